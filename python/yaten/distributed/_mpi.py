"""The MPI backend: CPU tensors through mpi4py, zero-copy.

Every operation hands MPI the tensor's own memory (`MPI.buffer.fromaddress(data_ptr, nbytes)` with the MPI datatype
of its dtype), starts MPI's nonblocking form of the call (Iallreduce, Ibcast, Iallgather, ...) and returns a Work
that tests the request: no copy on the way in or out, and a peer that never arrives is a timeout, not a hang. The
front end (yaten/distributed/__init__.py) has already made the tensors contiguous and put float16/bfloat16
reductions into float32 (MPI has no bfloat16 reduction); this file sees only what MPI can take as it is."""

from __future__ import annotations

from typing import Any

from ._work import Work


def load_mpi() -> Any:
    """mpi4py's MPI module (initialized with MPI_THREAD_MULTIPLE), or a RuntimeError naming what to install."""
    try:
        from mpi4py import MPI
    except ImportError as e:
        raise RuntimeError("the MPI backend needs mpi4py and an MPI library: pip install mpi4py mpich "
                           "(or `pip install yaten[distributed]`)") from e
    return MPI


def _datatypes(MPI: Any) -> dict:
    import yaten

    return {yaten.float32: MPI.FLOAT, yaten.float64: MPI.DOUBLE, yaten.int8: MPI.INT8_T, yaten.uint8: MPI.UINT8_T,
            yaten.int16: MPI.INT16_T, yaten.int32: MPI.INT32_T, yaten.int64: MPI.INT64_T, yaten.bool: MPI.C_BOOL,
            yaten.complex64: MPI.C_FLOAT_COMPLEX, yaten.complex128: MPI.C_DOUBLE_COMPLEX,
            yaten.uint16: MPI.UINT16_T, yaten.uint32: MPI.UINT32_T, yaten.uint64: MPI.UINT64_T,
            # moved, never reduced, as 16-bit words (the front end reduces them in float32)
            yaten.float16: MPI.UINT16_T, yaten.bfloat16: MPI.UINT16_T}


class MPIBackend:
    name = "mpi"
    native_reduce_16bit = False  # float16/bfloat16 reductions go through float32
    native_avg = False  # AVG is a SUM and a division

    def __init__(self, comm: Any, timeout: float) -> None:
        self.MPI = load_mpi()
        self.comm = comm
        self.timeout = timeout
        self._types = _datatypes(self.MPI)
        MPI = self.MPI
        self._ops = {"sum": MPI.SUM, "product": MPI.PROD, "min": MPI.MIN, "max": MPI.MAX, "band": MPI.BAND,
                     "bor": MPI.BOR, "bxor": MPI.BXOR}
        # bool: what torch's backends do (a sum is "any", a product "all")
        self._bool_ops = {"sum": MPI.LOR, "max": MPI.LOR, "bor": MPI.LOR, "product": MPI.LAND, "min": MPI.LAND,
                          "band": MPI.LAND, "bxor": MPI.LXOR}
        self._empty = bytearray(1)

    # ---------------------------------------------------------------------------------------------- helpers
    def rank(self) -> int:
        return self.comm.Get_rank()

    def size(self) -> int:
        return self.comm.Get_size()

    def _msg(self, t: Any, count: int | None = None) -> list:
        """[buffer, count, datatype] over t's memory (t contiguous)."""
        n = t.numel() if count is None else count
        dtype = self._types[t.dtype]
        if t.numel() == 0:
            return [self._empty, 0, dtype]  # MPI wants a buffer even for nothing
        return [self.MPI.buffer.fromaddress(t.data_ptr(), t.numel() * t.element_size()), n, dtype]

    def _vmsg(self, t: Any, counts: list[int]) -> list:
        dtype = self._types[t.dtype]
        displs = [0]
        for c in counts[:-1]:
            displs.append(displs[-1] + c)
        base = self._msg(t)[0]
        return [base, (list(counts), displs), dtype]

    def _op(self, t: Any, op: str) -> Any:
        import yaten

        return (self._bool_ops if t.dtype == yaten.bool else self._ops)[op]

    def _work(self, name: str, requests: list, then: Any = None, result: Any = None) -> Work:
        MPI = self.MPI
        if len(requests) == 1:
            req = requests[0]
            poll = req.Test
        else:
            def poll() -> bool:
                return MPI.Request.Testall(requests)
        return Work(name, self.comm.Get_rank(), self.timeout, poll, then=then, result=result)

    # ---------------------------------------------------------------------------------------------- collectives
    def allreduce(self, t: Any, op: str) -> Work:
        return self._work("all_reduce", [self.comm.Iallreduce(self.MPI.IN_PLACE, self._msg(t), self._op(t, op))])

    def broadcast(self, t: Any, root: int) -> Work:
        return self._work("broadcast", [self.comm.Ibcast(self._msg(t), root=root)])

    def reduce(self, t: Any, op: str, root: int) -> Work:
        MPI = self.MPI
        if self.rank() == root:
            req = self.comm.Ireduce(MPI.IN_PLACE, self._msg(t), self._op(t, op), root=root)
        else:
            req = self.comm.Ireduce(self._msg(t), None, self._op(t, op), root=root)
        return self._work("reduce", [req])

    def allgather(self, out: Any, inp: Any) -> Work:
        return self._work("all_gather", [self.comm.Iallgather(self._msg(inp), self._msg(out, inp.numel()))])

    def allgatherv(self, out: Any, inp: Any, counts: list[int]) -> Work:
        return self._work("all_gather", [self.comm.Iallgatherv(self._msg(inp), self._vmsg(out, counts))])

    def gather(self, out: Any, inp: Any, root: int) -> Work:
        recv = self._msg(out, inp.numel()) if self.rank() == root else None
        return self._work("gather", [self.comm.Igather(self._msg(inp), recv, root=root)])

    def scatter(self, out: Any, inp: Any, root: int) -> Work:
        send = self._msg(inp, out.numel()) if self.rank() == root else None
        return self._work("scatter", [self.comm.Iscatter(send, self._msg(out), root=root)])

    def reduce_scatter(self, out: Any, inp: Any, op: str) -> Work:
        req = self.comm.Ireduce_scatter_block(self._msg(inp, out.numel()), self._msg(out), self._op(out, op))
        return self._work("reduce_scatter", [req])

    def alltoall(self, out: Any, inp: Any, out_counts: list[int], in_counts: list[int]) -> Work:
        req = self.comm.Ialltoallv(self._vmsg(inp, in_counts), self._vmsg(out, out_counts))
        return self._work("all_to_all", [req])

    def barrier(self) -> Work:
        return self._work("barrier", [self.comm.Ibarrier()])

    # ---------------------------------------------------------------------------------------------- point to point
    def send(self, t: Any, dst: int, tag: int) -> Work:
        return self._work("send", [self.comm.Isend(self._msg(t), dest=dst, tag=tag)])

    def recv(self, t: Any, src: int | None, tag: int) -> Work:
        MPI = self.MPI
        req = self.comm.Irecv(self._msg(t), source=MPI.ANY_SOURCE if src is None else src, tag=tag)
        status = MPI.Status()
        work: Work

        def poll() -> bool:
            return req.Test(status)

        def then() -> None:
            work._source_rank = status.Get_source()

        work = Work("recv", self.comm.Get_rank(), self.timeout, poll, then=then,
                    on_timeout=lambda: _cancel(req))
        return work

    # ---------------------------------------------------------------------------------------------- objects
    def broadcast_object(self, obj: Any, root: int) -> Any:
        return self._pickled("broadcast_object_list", lambda: self.comm.bcast(obj, root=root))

    def allgather_object(self, obj: Any) -> list:
        return self._pickled("all_gather_object", lambda: self.comm.allgather(obj))

    def gather_object(self, obj: Any, root: int) -> Any:
        return self._pickled("gather_object", lambda: self.comm.gather(obj, root=root))

    def scatter_object(self, objs: Any, root: int) -> Any:
        return self._pickled("scatter_object_list", lambda: self.comm.scatter(objs, root=root))

    def _pickled(self, name: str, call: Any) -> Any:
        # mpi4py's pickled collectives block; a barrier first bounds the wait by the group's timeout.
        self.barrier().wait()
        return call()

    # ---------------------------------------------------------------------------------------------- groups
    def split(self, member: bool, key: int) -> "MPIBackend | None":
        """A communicator of the ranks that pass member=True (every rank of this one must call it)."""
        comm = self.comm.Split(0 if member else self.MPI.UNDEFINED, key)
        return MPIBackend(comm, self.timeout) if member else None

    def destroy(self) -> None:
        if self.comm != self.MPI.COMM_WORLD and self.comm != self.MPI.COMM_NULL:
            try:
                self.comm.Free()
            except Exception:  # noqa: BLE001 - a communicator left with pending work after a timeout
                pass


def _cancel(req: Any) -> None:
    try:
        req.Cancel()
    except Exception:  # noqa: BLE001
        pass


__all__ = ["MPIBackend", "load_mpi"]
