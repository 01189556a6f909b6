"""The NCCL backend: CUDA tensors through libnccl, opened at run time (the nvidia-nccl-cu13 wheel, $YATEN_NCCL, or the
CUDA toolkit), as yaten opens cuBLAS and cuFFT. Nothing is linked at build time and nothing here runs without a GPU
but the library's loading and its version.

Each operation is enqueued on the tensor's device's current stream, as torch documents for its NCCL collectives,
so work that follows on that stream sees the result without a host wait; the Work's `wait()` blocks the host until
an event recorded after the call has passed (or the group's timeout, after which the communicator is aborted and a
DistBackendError raised). Communicators are made on a group's first CUDA collective: the unique id travels by MPI
when the processes share an MPI world, otherwise by NCCL's own bootstrap (NCCL_COMM_ID = MASTER_ADDR:MASTER_PORT:
every rank computes the same id and rank 0 listens there). Subgroups split the world's communicator
(ncclCommSplit). gather, scatter and all_to_all are grouped sends and receives (ncclGroupStart/End), as torch's are."""

from __future__ import annotations

import ctypes
import os
from typing import Any

from ._work import DistBackendError, Work

_NCCL_DTYPES = {"int8": 0, "uint8": 1, "int32": 2, "uint32": 3, "int64": 4, "uint64": 5, "float16": 6, "float32": 7,
                "float64": 8, "bfloat16": 9, "bool": 1}
_NCCL_OPS = {"sum": 0, "product": 1, "max": 2, "min": 3, "avg": 4}


def candidates() -> list[str]:
    """Where libnccl may be, in order: $YATEN_NCCL, the nvidia-nccl-cu13 (or -cu12) wheel, the CUDA toolkit (the
    search yaten.cuda makes for cuBLAS and cuFFT)."""
    from ..cuda import _library_candidates

    return list(dict.fromkeys(_library_candidates("YATEN_NCCL", "nccl", "libnccl.so.2", "libnccl.so.2")))


class _UniqueId(ctypes.Structure):
    _fields_ = [("internal", ctypes.c_char * 128)]


_lib: Any = None


def library() -> Any:
    """libnccl with its functions' signatures, opened once; a RuntimeError naming what to install."""
    global _lib
    if _lib is not None:
        return _lib
    found = candidates()
    if not found:
        raise RuntimeError("the NCCL backend needs libnccl: pip install nvidia-nccl-cu13 (or `pip install "
                           "yaten[distributed]`), or point YATEN_NCCL at libnccl.so.2")
    lib = ctypes.CDLL(found[0])
    p, i, sz, res = ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t, ctypes.c_int
    sigs = {
        "ncclGetVersion": [ctypes.POINTER(i)],
        "ncclGetUniqueId": [ctypes.POINTER(_UniqueId)],
        "ncclCommInitRank": [ctypes.POINTER(p), i, _UniqueId, i],
        "ncclCommDestroy": [p], "ncclCommAbort": [p],
        "ncclCommGetAsyncError": [p, ctypes.POINTER(res)],
        "ncclCommSplit": [p, i, i, ctypes.POINTER(p), p],
        "ncclAllReduce": [p, p, sz, i, i, p, p],
        "ncclBroadcast": [p, p, sz, i, i, p, p],
        "ncclReduce": [p, p, sz, i, i, i, p, p],
        "ncclAllGather": [p, p, sz, i, p, p],
        "ncclReduceScatter": [p, p, sz, i, i, p, p],
        "ncclSend": [p, sz, i, i, p, p], "ncclRecv": [p, sz, i, i, p, p],
        "ncclGroupStart": [], "ncclGroupEnd": [],
        "ncclCommUserRank": [p, ctypes.POINTER(i)], "ncclCommCount": [p, ctypes.POINTER(i)],
    }
    for name, argtypes in sigs.items():
        fn = getattr(lib, name)
        fn.argtypes, fn.restype = argtypes, res
    lib.ncclGetErrorString.argtypes, lib.ncclGetErrorString.restype = [res], ctypes.c_char_p
    lib.ncclGetLastError.argtypes, lib.ncclGetLastError.restype = [p], ctypes.c_char_p
    lib.path = found[0]
    _lib = lib
    return lib


def version() -> tuple[int, int, int]:
    """NCCL's version as (major, minor, patch)."""
    v = ctypes.c_int()
    check(library().ncclGetVersion(ctypes.byref(v)), "ncclGetVersion")
    code = v.value
    return (code // 10000, code % 10000 // 100, code % 100) if code >= 10000 else (code // 1000, code % 1000 // 100,
                                                                                   code % 100)


def check(result: int, what: str, comm: Any = None) -> None:
    if result != 0:
        lib = library()
        detail = lib.ncclGetLastError(comm) or b""
        raise DistBackendError(f"NCCL error in {what}: {lib.ncclGetErrorString(result).decode()} "
                               f"({detail.decode(errors='replace')})")


def unique_id() -> bytes:
    uid = _UniqueId()
    check(library().ncclGetUniqueId(ctypes.byref(uid)), "ncclGetUniqueId")
    return ctypes.string_at(ctypes.addressof(uid), ctypes.sizeof(uid))  # all 128 bytes (zeros included)


class NCCLBackend:
    name = "nccl"
    native_reduce_16bit = True
    native_avg = True

    def __init__(self, comm: int, rank: int, size: int, device_index: int, timeout: float) -> None:
        self.lib = library()
        self.comm = ctypes.c_void_p(comm)
        self._rank = rank
        self._size = size
        self.device_index = device_index
        self.timeout = timeout

    @classmethod
    def for_group(cls, pg: Any) -> "NCCLBackend":
        """The world's communicator (every rank of the world calls this on its first CUDA collective)."""
        from .. import cuda

        if not cuda.is_available():
            raise RuntimeError("the NCCL backend needs a CUDA GPU; this process sees none (CPU tensors use 'mpi')")
        lib = library()
        rank, size = pg.rank(), pg.size()
        if pg._mpi is not None:
            uid = pg._mpi.broadcast_object(unique_id() if rank == 0 else None, 0)
        else:
            addr = os.environ.get("MASTER_ADDR")
            port = os.environ.get("MASTER_PORT")
            method = getattr(pg, "_init_method", None) or "env://"
            if method.startswith("tcp://"):
                addr, _, port = method[len("tcp://"):].rpartition(":")
            elif method != "env://":
                raise ValueError(f"init_process_group: init_method {method!r} is not supported by the NCCL backend "
                                 "without MPI; use env:// (MASTER_ADDR, MASTER_PORT) or tcp://host:port")
            if not addr or not port:
                raise ValueError("NCCL's bootstrap needs MASTER_ADDR and MASTER_PORT (or init_method='tcp://host:port')"
                                 " when the processes were not started by mpiexec")
            os.environ["NCCL_COMM_ID"] = f"{addr}:{port}"  # every rank computes the same id; rank 0 listens
            uid = unique_id()
        device_index = cuda.current_device()
        comm = ctypes.c_void_p()
        uid_struct = _UniqueId.from_buffer_copy(uid)
        check(lib.ncclCommInitRank(ctypes.byref(comm), size, uid_struct, rank), "ncclCommInitRank")
        return cls(comm.value, rank, size, device_index, pg._timeout)

    def split(self, member: bool, key: int) -> "NCCLBackend | None":
        new = ctypes.c_void_p()
        check(self.lib.ncclCommSplit(self.comm, 0 if member else -1, key, ctypes.byref(new), None), "ncclCommSplit",
              self.comm)
        if not member:
            return None
        # the new communicator's ranks are the members in the order of key (the world rank)
        rank, size = _comm_rank_size(self.lib, new)
        return NCCLBackend(new.value, rank, size, self.device_index, self.timeout)

    # ---------------------------------------------------------------------------------------------- helpers
    def rank(self) -> int:
        return self._rank

    def size(self) -> int:
        return self._size

    def _stream(self, t: Any) -> int:
        from .. import cuda

        return cuda.current_stream(t.device.index).cuda_stream

    def _dtype(self, t: Any) -> tuple[int, int]:
        """NCCL's datatype and the element count multiplier (complex numbers travel as pairs of reals)."""
        name = str(t.dtype).split(".")[-1]
        if name in ("complex64", "complex128"):
            return _NCCL_DTYPES["float32" if name == "complex64" else "float64"], 2
        if name not in _NCCL_DTYPES:
            raise TypeError(f"NCCL has no datatype for {t.dtype}")
        return _NCCL_DTYPES[name], 1

    def _op(self, t: Any, op: str) -> int:
        name = str(t.dtype).split(".")[-1]
        if name == "bool":
            op = {"sum": "max", "bor": "max", "product": "min", "band": "min"}.get(op, op)
        if op not in _NCCL_OPS:
            raise ValueError(f"NCCL has no ReduceOp.{op.upper()} for {t.dtype}")
        return _NCCL_OPS[op]

    def _check_device(self, t: Any) -> None:
        if t.device.type != "cuda":
            raise ValueError(f"the NCCL backend takes CUDA tensors, got one on {t.device}")

    def _enqueued(self, name: str, t: Any) -> Work:
        from .. import cuda

        event = cuda.Event()
        event.record(cuda.current_stream(t.device.index))
        comm = self.comm

        def poll() -> bool:
            err = ctypes.c_int()
            check(self.lib.ncclCommGetAsyncError(comm, ctypes.byref(err)), "ncclCommGetAsyncError", comm)
            check(err.value, name, comm)
            return event.query()

        def abort() -> None:
            self.lib.ncclCommAbort(comm)

        return Work(name, self._rank, self.timeout, poll, on_timeout=abort)

    def _call(self, name: str, t: Any, fn: str, *args: Any) -> Work:
        self._check_device(t)
        check(getattr(self.lib, fn)(*args, self.comm, ctypes.c_void_p(self._stream(t))), fn, self.comm)
        return self._enqueued(name, t)

    # ---------------------------------------------------------------------------------------------- collectives
    def allreduce(self, t: Any, op: str) -> Work:
        dt, k = self._dtype(t)
        ptr = t.data_ptr()
        return self._call("all_reduce", t, "ncclAllReduce", ptr, ptr, t.numel() * k, dt, self._op(t, op))

    def broadcast(self, t: Any, root: int) -> Work:
        dt, k = self._dtype(t)
        return self._call("broadcast", t, "ncclBroadcast", t.data_ptr(), t.data_ptr(), t.numel() * k, dt, root)

    def reduce(self, t: Any, op: str, root: int) -> Work:
        dt, k = self._dtype(t)
        return self._call("reduce", t, "ncclReduce", t.data_ptr(), t.data_ptr(), t.numel() * k, dt, self._op(t, op),
                          root)

    def allgather(self, out: Any, inp: Any) -> Work:
        dt, k = self._dtype(inp)
        return self._call("all_gather", inp, "ncclAllGather", inp.data_ptr(), out.data_ptr(), inp.numel() * k, dt)

    def allgatherv(self, out: Any, inp: Any, counts: list[int]) -> Work:
        dt, k = self._dtype(inp)
        self.lib.ncclGroupStart()
        offset = 0
        for peer, c in enumerate(counts):
            self._p2p("ncclSend", inp.data_ptr(), inp.numel() * k, dt, peer, inp)
            self._p2p("ncclRecv", out.data_ptr() + offset * out.element_size(), c * k, dt, peer, inp)
            offset += c
        check(self.lib.ncclGroupEnd(), "ncclGroupEnd", self.comm)
        return self._enqueued("all_gather", inp)

    def reduce_scatter(self, out: Any, inp: Any, op: str) -> Work:
        dt, k = self._dtype(out)
        return self._call("reduce_scatter", out, "ncclReduceScatter", inp.data_ptr(), out.data_ptr(),
                          out.numel() * k, dt, self._op(out, op))

    def _p2p(self, fn: str, ptr: int, count: int, dt: int, peer: int, t: Any) -> None:
        check(getattr(self.lib, fn)(ctypes.c_void_p(ptr), count, dt, peer, self.comm,
                                    ctypes.c_void_p(self._stream(t))), fn, self.comm)

    def gather(self, out: Any, inp: Any, root: int) -> Work:
        dt, k = self._dtype(inp)
        n = inp.numel() * k
        self.lib.ncclGroupStart()
        if self._rank == root:
            for peer in range(self._size):
                self._p2p("ncclRecv", out.data_ptr() + peer * inp.numel() * inp.element_size(), n, dt, peer, inp)
        self._p2p("ncclSend", inp.data_ptr(), n, dt, root, inp)
        check(self.lib.ncclGroupEnd(), "ncclGroupEnd", self.comm)
        return self._enqueued("gather", inp)

    def scatter(self, out: Any, inp: Any, root: int) -> Work:
        dt, k = self._dtype(out)
        n = out.numel() * k
        self.lib.ncclGroupStart()
        if self._rank == root:
            for peer in range(self._size):
                self._p2p("ncclSend", inp.data_ptr() + peer * out.numel() * out.element_size(), n, dt, peer, out)
        self._p2p("ncclRecv", out.data_ptr(), n, dt, root, out)
        check(self.lib.ncclGroupEnd(), "ncclGroupEnd", self.comm)
        return self._enqueued("scatter", out)

    def alltoall(self, out: Any, inp: Any, out_counts: list[int], in_counts: list[int]) -> Work:
        dt, k = self._dtype(inp)
        size = inp.element_size()
        self.lib.ncclGroupStart()
        send_off = recv_off = 0
        for peer in range(self._size):
            self._p2p("ncclSend", inp.data_ptr() + send_off * size, in_counts[peer] * k, dt, peer, inp)
            self._p2p("ncclRecv", out.data_ptr() + recv_off * size, out_counts[peer] * k, dt, peer, inp)
            send_off += in_counts[peer]
            recv_off += out_counts[peer]
        check(self.lib.ncclGroupEnd(), "ncclGroupEnd", self.comm)
        return self._enqueued("all_to_all", inp)

    def barrier(self) -> Work:
        import yaten

        one = yaten.ones(1, device=f"cuda:{self.device_index}")
        return self.allreduce(one, "sum")

    def send(self, t: Any, dst: int, tag: int) -> Work:
        dt, k = self._dtype(t)
        self._check_device(t)
        self._p2p("ncclSend", t.data_ptr(), t.numel() * k, dt, dst, t)
        return self._enqueued("send", t)

    def recv(self, t: Any, src: int | None, tag: int) -> Work:
        if src is None:
            raise ValueError("recv: the NCCL backend needs src (NCCL has no receive from any source)")
        dt, k = self._dtype(t)
        self._check_device(t)
        self._p2p("ncclRecv", t.data_ptr(), t.numel() * k, dt, src, t)
        work = self._enqueued("recv", t)
        work._source_rank = src
        return work

    def destroy(self) -> None:
        if self.comm:
            self.lib.ncclCommDestroy(self.comm)
            self.comm = ctypes.c_void_p()


def _comm_rank_size(lib: Any, comm: Any) -> tuple[int, int]:
    rank, count = ctypes.c_int(), ctypes.c_int()
    check(lib.ncclCommUserRank(comm, ctypes.byref(rank)), "ncclCommUserRank")
    check(lib.ncclCommCount(comm, ctypes.byref(count)), "ncclCommCount")
    return rank.value, count.value
