"""yaten.distributed: torch.distributed's API over existing engines, MPI for CPU tensors and NCCL for CUDA tensors.

    mpiexec -n 4 python train.py                                  # or: python -m yaten.distributed.run --nproc-per-node 4 train.py
    import yaten.distributed as dist
    dist.init_process_group()                                    # "mpi" for CPU tensors, "nccl" for CUDA ones
    dist.all_reduce(t, op=dist.ReduceOp.SUM)

How it is built (docs/distributed.md says more):
- A ProcessGroup holds one engine per device type: `_mpi.MPIBackend` (mpi4py; tensors' memory handed to MPI as it
  is) and `_nccl.NCCLBackend` (libnccl opened at run time from the nvidia-nccl wheel, created on the group's first
  CUDA collective, its unique id sent by MPI or made by NCCL's own bootstrap at MASTER_ADDR:MASTER_PORT).
- This file is the front end every engine shares: argument checks with torch's errors, global ranks turned into the
  group's, non-contiguous tensors staged through a contiguous copy (copied back when done), float16/bfloat16
  reductions in float32 where the engine has none, ReduceOp.AVG as a sum then a division, list forms packed into one
  flat buffer, and `async_op` (a Work, yaten/distributed/_work.py) or a wait bounded by the group's timeout.
"""

from __future__ import annotations

import datetime
import os
from typing import Any, Callable, Sequence

from ._work import DistBackendError, Work

__all__ = [
    "Backend", "DistBackendError", "GroupMember", "P2POp", "ProcessGroup", "ReduceOp", "Work", "all_gather",
    "all_gather_into_tensor", "all_gather_object", "all_reduce", "all_to_all", "all_to_all_single", "barrier",
    "batch_isend_irecv", "broadcast", "broadcast_object_list", "destroy_process_group", "gather", "gather_object",
    "get_backend", "get_global_rank", "get_group_rank", "get_process_group_ranks", "get_rank", "get_world_size",
    "group", "init_process_group", "irecv", "is_available", "is_initialized", "is_mpi_available",
    "is_nccl_available", "is_gloo_available", "is_torchelastic_launched", "isend", "monitored_barrier", "new_group",
    "recv", "reduce", "reduce_scatter", "reduce_scatter_tensor", "scatter", "scatter_object_list", "send",
]

default_pg_timeout = datetime.timedelta(minutes=30)


# ------------------------------------------------------------------------------------------------ names


class _RedOpType:
    def __init__(self, name: str) -> None:
        self.name = name
        self.value = name

    def __repr__(self) -> str:
        return f"<RedOpType.{self.name.upper()}>"

    def __reduce__(self) -> Any:
        return (getattr, (ReduceOp, self.name.upper()))


class ReduceOp:
    """The reductions of all_reduce, reduce and reduce_scatter (torch.distributed.ReduceOp)."""

    SUM = _RedOpType("sum")
    AVG = _RedOpType("avg")
    PRODUCT = _RedOpType("product")
    MIN = _RedOpType("min")
    MAX = _RedOpType("max")
    BAND = _RedOpType("band")
    BOR = _RedOpType("bor")
    BXOR = _RedOpType("bxor")
    RedOpType = _RedOpType


class Backend(str):
    """Backend names: "mpi" (CPU tensors, MPI through mpi4py) and "nccl" (CUDA tensors)."""

    UNDEFINED = "undefined"
    MPI = "mpi"
    NCCL = "nccl"
    GLOO = "gloo"

    def __new__(cls, name: str) -> "Backend":
        value = name.lower()
        if value not in ("mpi", "nccl", "gloo", "undefined"):
            raise ValueError(f"Backend: unknown backend {name!r}; yaten has 'mpi' (CPU) and 'nccl' (CUDA)")
        return str.__new__(cls, value)


def is_available() -> bool:
    return True


def is_mpi_available() -> bool:
    """Whether mpi4py and an MPI library can be imported (`pip install mpi4py mpich`)."""
    try:
        import mpi4py  # noqa: F401
        return True
    except ImportError:
        return False


def is_nccl_available() -> bool:
    """Whether libnccl can be found (the nvidia-nccl-cu13 wheel, $YATEN_NCCL, or the CUDA toolkit)."""
    from . import _nccl

    return bool(_nccl.candidates())


def is_gloo_available() -> bool:
    return False


def is_torchelastic_launched() -> bool:
    return os.environ.get("TORCHELASTIC_RUN_ID") is not None


# ------------------------------------------------------------------------------------------------ groups


class ProcessGroup:
    """A set of ranks and the engines that run their collectives (one per device type)."""

    def __init__(self, ranks: list[int], group_rank: int, timeout: float, engines: dict[str, Any],
                 backend_spec: dict[str, str], name: str, parent: "ProcessGroup | None" = None) -> None:
        self._ranks = ranks
        self._rank = group_rank
        self._timeout = timeout
        self._engines = engines
        self._spec = backend_spec  # device type -> backend name ("cpu" -> "mpi", "cuda" -> "nccl")
        self.group_name = name
        self._parent = parent

    def rank(self) -> int:
        return self._rank

    def size(self) -> int:
        return len(self._ranks)

    def name(self) -> str:
        return ",".join(f"{d}:{b}" for d, b in self._spec.items())

    def _engine(self, fn: str, device_type: str) -> Any:
        backend = self._spec.get(device_type)
        if backend is None:
            raise RuntimeError(f"{fn}: no backend of this process group takes {device_type} tensors (it has "
                               f"{self.name()}); init_process_group(backend=None) gives cpu:mpi,cuda:nccl")
        engine = self._engines.get(device_type)
        if engine is None:
            engine = self._engines[device_type] = _make_engine(backend, self)
        return engine

    def __repr__(self) -> str:
        return f"<yaten.distributed.ProcessGroup {self.name()} ranks={self._ranks}>"


class GroupMember:
    WORLD: ProcessGroup | None = None
    NON_GROUP_MEMBER = object()


class group:  # noqa: N801 - torch's name
    WORLD: ProcessGroup | None = None


_state: dict[str, Any] = {"world": None, "groups": [], "mpi_world": None}


def is_initialized() -> bool:
    return _state["world"] is not None


def _world() -> ProcessGroup:
    if _state["world"] is None:
        raise ValueError("Default process group has not been initialized, please make sure to call "
                         "init_process_group.")
    return _state["world"]


def _timeout_seconds(timeout: Any) -> float:
    if timeout is None:
        return default_pg_timeout.total_seconds()
    if isinstance(timeout, datetime.timedelta):
        return timeout.total_seconds()
    if isinstance(timeout, (int, float)) and timeout > 0:
        return float(timeout)
    raise TypeError(f"init_process_group: timeout must be a datetime.timedelta, got {timeout!r}")


def _parse_backend(backend: Any) -> dict[str, str]:
    if backend is None or str(backend).lower() == "undefined":
        return {"cpu": "mpi", "cuda": "nccl"}
    spec: dict[str, str] = {}
    text = str(backend).lower()
    for part in text.split(","):
        device, _, name = part.strip().rpartition(":")
        if name == "gloo":
            raise ValueError("init_process_group: yaten has no gloo backend (Gloo has no package to depend on); "
                             "'mpi' runs CPU tensors (pip install mpi4py mpich)")
        if name not in ("mpi", "nccl"):
            raise ValueError(f"init_process_group: unknown backend {name!r}; yaten has 'mpi' (CPU tensors) and "
                             "'nccl' (CUDA tensors), or 'cpu:mpi,cuda:nccl'")
        if device:
            if device not in ("cpu", "cuda"):
                raise ValueError(f"init_process_group: unknown device type {device!r} in backend {backend!r}")
            spec[device] = name
        else:
            spec["cpu" if name == "mpi" else "cuda"] = name
    return spec


def _env_int(name: str) -> int | None:
    value = os.environ.get(name)
    return int(value) if value not in (None, "") else None


def _mpi_world() -> Any:
    from ._mpi import load_mpi

    if _state["mpi_world"] is None:
        _state["mpi_world"] = load_mpi().COMM_WORLD
    return _state["mpi_world"]


def init_process_group(backend: Any = None, init_method: str | None = None, timeout: Any = None,
                       world_size: int = -1, rank: int = -1, store: Any = None, group_name: str = "",
                       pg_options: Any = None, device_id: Any = None) -> None:
    """Joins this process to the default group (torch's signature).

    backend: "mpi" (CPU tensors), "nccl" (CUDA tensors), "cpu:mpi,cuda:nccl", or None for both. Rank and world size
    come from MPI when the processes were started by `mpiexec` or `python -m yaten.distributed.run` (RANK and
    WORLD_SIZE, when set, must agree); a NCCL-only group started otherwise reads `rank`/`world_size` or RANK/
    WORLD_SIZE, and `init_method` ("env://" with MASTER_ADDR/MASTER_PORT, or "tcp://host:port") for NCCL's bootstrap.
    """
    if _state["world"] is not None:
        raise ValueError("trying to initialize the default process group twice!")
    if store is not None:
        raise NotImplementedError("init_process_group: store= is not supported; ranks meet through MPI or NCCL's "
                                  "bootstrap (init_method)")
    spec = _parse_backend(backend)
    seconds = _timeout_seconds(timeout)
    want_rank = rank if rank >= 0 else _env_int("RANK")
    want_size = world_size if world_size > 0 else _env_int("WORLD_SIZE")
    engines: dict[str, Any] = {}
    mpi_ok = is_mpi_available()
    if "cpu" in spec or (mpi_ok and _launched_by_mpi()):
        comm = _mpi_world()
        mpi_rank, mpi_size = comm.Get_rank(), comm.Get_size()
        if want_size is not None and want_size != mpi_size:
            raise RuntimeError(
                f"init_process_group: WORLD_SIZE is {want_size} but MPI started {mpi_size} process(es); the MPI "
                "backend needs its processes started together: `mpiexec -n N python script.py` or "
                "`python -m yaten.distributed.run --nproc-per-node N script.py`")
        if want_rank is not None and want_rank != mpi_rank:
            raise RuntimeError(f"init_process_group: RANK is {want_rank} but MPI gave this process rank {mpi_rank}")
        my_rank, size = mpi_rank, mpi_size
        from ._mpi import MPIBackend

        engines["mpi"] = MPIBackend(comm, seconds)
    else:
        if want_rank is None or want_size is None:
            raise ValueError("init_process_group: no rank or world size: pass rank= and world_size=, set RANK and "
                             "WORLD_SIZE, or start the processes with mpiexec")
        if not 0 <= want_rank < want_size:
            raise ValueError(f"init_process_group: rank {want_rank} is not in [0, {want_size})")
        my_rank, size = want_rank, want_size
    pg = ProcessGroup(list(range(size)), my_rank, seconds, {}, spec, group_name or "default")
    if "cpu" in spec:
        pg._engines["cpu"] = engines["mpi"]
    pg._mpi = engines.get("mpi")  # sends NCCL's unique id when there is one
    pg._init_method = init_method
    _state["world"] = pg
    _state["groups"] = [pg]
    GroupMember.WORLD = group.WORLD = pg


def _launched_by_mpi() -> bool:
    return any(v in os.environ for v in ("PMI_RANK", "PMI_SIZE", "OMPI_COMM_WORLD_RANK", "PMIX_RANK",
                                          "YATEN_DISTRIBUTED_MPI"))


def _make_engine(backend: str, pg: ProcessGroup) -> Any:
    if backend == "nccl":
        from ._nccl import NCCLBackend

        return NCCLBackend.for_group(pg)
    raise RuntimeError(f"process group {pg.name()}: backend {backend} is not set up on this group")


def destroy_process_group(group: ProcessGroup | None = None) -> None:
    """Ends a group (every group, the default one included, when `group` is None)."""
    everything = group is None or group is _state["world"]
    for pg in list(_state["groups"]) if everything else [group]:
        engines = list({id(e): e for e in list(pg._engines.values()) + [pg._mpi] if e is not None}.values())
        for engine in engines:
            engine.destroy()
        pg._engines.clear()
        pg._mpi = None
        if pg in _state["groups"]:
            _state["groups"].remove(pg)
    if everything:
        _state["world"] = None
        _state["groups"] = []
        GroupMember.WORLD = None
        globals()["group"].WORLD = None


def new_group(ranks: Sequence[int] | None = None, timeout: Any = None, backend: Any = None, pg_options: Any = None,
              use_local_synchronization: bool = False, group_desc: str | None = None) -> Any:
    """A group of some ranks of the world. Every rank of the world calls it (as in torch); the ranks outside get
    GroupMember.NON_GROUP_MEMBER, with which collectives do nothing."""
    world = _world()
    members = sorted(set(range(world.size()) if ranks is None else (int(r) for r in ranks)))
    for r in members:
        if not 0 <= r < world.size():
            raise ValueError(f"new_group: rank {r} is not in the world (size {world.size()})")
    me = world.rank()
    member = me in members
    seconds = world._timeout if timeout is None else _timeout_seconds(timeout)
    spec = world._spec if backend is None else _parse_backend(backend)
    engines: dict[str, Any] = {}
    mpi_sub = world._mpi.split(member, me) if world._mpi is not None else None
    if mpi_sub is not None:
        mpi_sub.timeout = seconds
        if "cpu" in spec:
            engines["cpu"] = mpi_sub
    if "cuda" in spec and world._mpi is None and "cuda" in world._spec:
        # without MPI a subgroup's NCCL communicator can only come from the world's (NCCL's bootstrap serves one
        # address): make the world's now, which every world rank is here to join
        world._engine("new_group", "cuda")
    if "cuda" in spec and "cuda" in world._engines:
        # an existing world communicator is split (ncclCommSplit), which every world rank joins
        sub = world._engines["cuda"].split(member, me)
        if member:
            engines["cuda"] = sub
    if not member:
        return GroupMember.NON_GROUP_MEMBER
    pg = ProcessGroup(members, members.index(me), seconds, engines, spec, group_desc or f"group{len(_state['groups'])}",
                      parent=world)
    pg._mpi = mpi_sub
    pg._init_method = world._init_method
    _state["groups"].append(pg)
    return pg


def _group(group: Any, fn: str) -> ProcessGroup | None:
    if group is GroupMember.NON_GROUP_MEMBER:
        return None
    if group is None:
        return _world()
    if not isinstance(group, ProcessGroup):
        raise TypeError(f"{fn}: group must be a ProcessGroup from new_group(), got {type(group).__name__}")
    if group not in _state["groups"]:
        raise ValueError(f"{fn}: the group was destroyed")
    return group


def get_rank(group: Any = None) -> int:
    """This process's rank in `group` (the world by default), -1 for a group it is not in."""
    pg = _group(group, "get_rank")
    return -1 if pg is None else pg.rank()


def get_world_size(group: Any = None) -> int:
    pg = _group(group, "get_world_size")
    return -1 if pg is None else pg.size()


def get_backend(group: Any = None) -> str:
    pg = _group(group, "get_backend")
    if pg is None:
        raise ValueError("get_backend: this process is not in the group")
    names = list(dict.fromkeys(pg._spec.values()))
    return names[0] if len(names) == 1 else pg.name()


def get_process_group_ranks(group: Any) -> list[int]:
    pg = _group(group, "get_process_group_ranks")
    return list(pg._ranks) if pg is not None else []


def get_global_rank(group: Any, group_rank: int) -> int:
    pg = _group(group, "get_global_rank")
    if pg is None or not 0 <= group_rank < pg.size():
        raise ValueError(f"get_global_rank: group rank {group_rank} is not part of the group")
    return pg._ranks[group_rank]


def get_group_rank(group: Any, global_rank: int) -> int:
    pg = _group(group, "get_group_rank")
    if pg is None or global_rank not in pg._ranks:
        raise ValueError(f"get_group_rank: global rank {global_rank} is not part of the group")
    return pg._ranks.index(global_rank)


# ------------------------------------------------------------------------------------------------ the front end


def _check_tensor(fn: str, t: Any, name: str = "tensor") -> None:
    from .. import Tensor

    if not isinstance(t, Tensor):
        raise TypeError(f"{fn}: {name} must be a yaten.Tensor, got {type(t).__name__}")


def _device_type(t: Any) -> str:
    return t.device.type


def _peer(fn: str, pg: ProcessGroup, global_rank: int | None, what: str, group_rank: int | None = None) -> int:
    """A global rank argument (src/dst) as the group's rank."""
    if group_rank is not None:
        if global_rank is not None:
            raise ValueError(f"{fn}: give {what} or group_{what}, not both")
        if not 0 <= group_rank < pg.size():
            raise ValueError(f"{fn}: group_{what}={group_rank} is not a rank of the group (size {pg.size()})")
        return group_rank
    if global_rank is None:
        raise ValueError(f"{fn}: {what} is required")
    if global_rank not in pg._ranks:
        raise ValueError(f"{fn}: {what}={global_rank} is not a rank of the group (ranks {pg._ranks})")
    return pg._ranks.index(global_rank)


def _op_name(fn: str, op: Any, t: Any) -> str:
    from .. import is_complex as _is_complex

    if not isinstance(op, _RedOpType):
        raise TypeError(f"{fn}: op must be a ReduceOp (ReduceOp.SUM, ...), got {op!r}")
    name = op.name
    dtype = t.dtype
    if _is_complex(t) and name not in ("sum", "avg", "product"):
        raise ValueError(f"{fn}: ReduceOp.{name.upper()} is not defined for complex tensors ({dtype})")
    if name in ("band", "bor", "bxor") and (t.is_floating_point() or _is_complex(t)):
        raise ValueError(f"{fn}: ReduceOp.{name.upper()} needs an integer or bool tensor, got {dtype}")
    if name == "avg" and str(dtype) == "yaten.bool":
        raise ValueError(f"{fn}: ReduceOp.AVG is not defined for bool tensors")
    return name


def _stage(t: Any, engine: Any, reducing: bool) -> Any:
    """The tensor an engine works on: t itself when it can, else a contiguous (float32 for reduced 16-bit) copy."""
    import yaten

    if reducing and t.dtype in (yaten.float16, yaten.bfloat16) and not engine.native_reduce_16bit:
        return t.to(yaten.float32).contiguous()
    return t if t.is_contiguous() else t.contiguous()


def _after(work: Work, fn: Callable[[], Any]) -> Work:
    """Runs fn once the work is done (now, if it already is)."""
    if work._done:
        if work._exception is None:
            fn()
        return work
    previous = work._then

    def both() -> Any:
        if previous is not None:
            previous()
        return fn()

    work._then = both
    return work


def _finish(work: Work, async_op: bool) -> Work | None:
    if async_op:
        return work
    work.wait()
    return None


def _average(t: Any, n: int) -> None:
    if t.is_floating_point() or t.is_complex():
        t.div_(n)
    else:
        t.div_(n, rounding_mode="trunc")


def _write_back(dst: Any, src: Any, avg: int = 0) -> Callable[[], None]:
    def back() -> None:
        if avg:
            _average(src, avg)
        if src is not dst:
            dst.copy_(src)

    return back


def all_reduce(tensor: Any, op: Any = ReduceOp.SUM, group: Any = None, async_op: bool = False) -> Work | None:
    """Reduces `tensor` over every rank of the group, in place, on every rank."""
    _check_tensor("all_reduce", tensor)
    pg = _group(group, "all_reduce")
    if pg is None:
        return None
    name = _op_name("all_reduce", op, tensor)
    engine = pg._engine("all_reduce", _device_type(tensor))
    t = _stage(tensor, engine, True)
    work = engine.allreduce(t, "sum" if name == "avg" and not engine.native_avg else name)
    avg = pg.size() if name == "avg" and not engine.native_avg else 0
    return _finish(_after(work, _write_back(tensor, t, avg)), async_op)


def broadcast(tensor: Any, src: int | None = None, group: Any = None, async_op: bool = False,
              group_src: int | None = None) -> Work | None:
    """Copies `tensor` of rank `src` (a global rank) into `tensor` on every rank of the group."""
    _check_tensor("broadcast", tensor)
    pg = _group(group, "broadcast")
    if pg is None:
        return None
    root = _peer("broadcast", pg, src, "src", group_src)
    engine = pg._engine("broadcast", _device_type(tensor))
    t = _stage(tensor, engine, False)
    return _finish(_after(engine.broadcast(t, root), _write_back(tensor, t)), async_op)


def reduce(tensor: Any, dst: int | None = None, op: Any = ReduceOp.SUM, group: Any = None, async_op: bool = False,
           group_dst: int | None = None) -> Work | None:
    """Reduces `tensor` over the group into `tensor` of rank `dst` (the others' tensors are left as they were)."""
    _check_tensor("reduce", tensor)
    pg = _group(group, "reduce")
    if pg is None:
        return None
    root = _peer("reduce", pg, dst, "dst", group_dst)
    name = _op_name("reduce", op, tensor)
    engine = pg._engine("reduce", _device_type(tensor))
    t = _stage(tensor, engine, True)
    avg = pg.size() if name == "avg" and not engine.native_avg else 0
    work = engine.reduce(t, "sum" if avg else name, root)
    if pg.rank() != root:
        return _finish(work, async_op)
    return _finish(_after(work, _write_back(tensor, t, avg)), async_op)


def _same_dtype(fn: str, tensors: Sequence[Any], dtype: Any, device: Any) -> None:
    for i, t in enumerate(tensors):
        _check_tensor(fn, t, f"element {i} of the list")
        if t.dtype != dtype:
            raise TypeError(f"{fn}: element {i} of the list has dtype {t.dtype}, the tensor {dtype}")
        if t.device != device:
            raise ValueError(f"{fn}: element {i} of the list is on {t.device}, the tensor on {device}")


def _check_list(fn: str, tensors: Any, what: str, pg: ProcessGroup, like: Any, same_size: bool = True) -> None:
    """`tensors` is a list of one tensor per rank of the group, of `like`'s dtype and device (and element count)."""
    if not isinstance(tensors, list) or len(tensors) != pg.size():
        raise ValueError(f"{fn}: {what} must be a list of {pg.size()} tensors (the group's size), got "
                         f"{len(tensors) if isinstance(tensors, list) else type(tensors).__name__}")
    _same_dtype(fn, tensors, like.dtype, like.device)
    for i, t in enumerate(tensors if same_size else []):
        if t.numel() != like.numel():
            raise ValueError(f"{fn}: {what}[{i}] has {t.numel()} elements, the tensor {like.numel()}")


def _unpacker(flat: Any, tensors: list) -> Callable[[], None]:
    """Copies consecutive pieces of `flat` into `tensors` (each its own element count and shape)."""
    def unpack() -> None:
        offset = 0
        for dst in tensors:
            dst.copy_(flat[offset:offset + dst.numel()].view(dst.shape))
            offset += dst.numel()

    return unpack


def all_gather(tensor_list: list, tensor: Any, group: Any = None, async_op: bool = False) -> Work | None:
    """tensor_list[i] = rank i's `tensor`, on every rank (sizes may differ between ranks when the list's do)."""
    import yaten

    _check_tensor("all_gather", tensor)
    pg = _group(group, "all_gather")
    if pg is None:
        return None
    _check_list("all_gather", tensor_list, "tensor_list", pg, tensor, same_size=False)
    if tensor_list[pg.rank()].numel() != tensor.numel():
        raise ValueError(f"all_gather: tensor_list[{pg.rank()}] has {tensor_list[pg.rank()].numel()} elements, "
                         f"this rank's tensor {tensor.numel()}")
    engine = pg._engine("all_gather", _device_type(tensor))
    counts = [t.numel() for t in tensor_list]
    out = yaten.empty(sum(counts), dtype=tensor.dtype, device=tensor.device)
    t = _stage(tensor, engine, False)
    work = engine.allgather(out, t) if len(set(counts)) == 1 else engine.allgatherv(out, t, counts)
    return _finish(_after(work, _unpacker(out, tensor_list)), async_op)


def all_gather_into_tensor(output_tensor: Any, input_tensor: Any, group: Any = None,
                           async_op: bool = False) -> Work | None:
    """output_tensor = the ranks' input_tensors, concatenated along dim 0 or stacked along a new dim 0."""
    _check_tensor("all_gather_into_tensor", output_tensor, "output_tensor")
    _check_tensor("all_gather_into_tensor", input_tensor, "input_tensor")
    pg = _group(group, "all_gather_into_tensor")
    if pg is None:
        return None
    if output_tensor.dtype != input_tensor.dtype:
        raise TypeError(f"all_gather_into_tensor: output dtype {output_tensor.dtype} != input dtype "
                        f"{input_tensor.dtype}")
    if output_tensor.numel() != input_tensor.numel() * pg.size():
        raise ValueError(f"all_gather_into_tensor: output_tensor must have world_size ({pg.size()}) times the "
                         f"input's {input_tensor.numel()} elements, has {output_tensor.numel()}")
    engine = pg._engine("all_gather_into_tensor", _device_type(input_tensor))
    out = _stage(output_tensor, engine, False)
    work = engine.allgather(out, _stage(input_tensor, engine, False))
    return _finish(_after(work, _write_back(output_tensor, out)), async_op)


def _all_gather_base(output_tensor: Any, input_tensor: Any, group: Any = None, async_op: bool = False) -> Any:
    return all_gather_into_tensor(output_tensor, input_tensor, group, async_op)


def gather(tensor: Any, gather_list: list | None = None, dst: int | None = None, group: Any = None,
           async_op: bool = False, group_dst: int | None = None) -> Work | None:
    """On rank `dst`, gather_list[i] = rank i's tensor; the other ranks pass gather_list=None."""
    import yaten

    _check_tensor("gather", tensor)
    pg = _group(group, "gather")
    if pg is None:
        return None
    root = _peer("gather", pg, 0 if dst is None and group_dst is None else dst, "dst", group_dst)
    engine = pg._engine("gather", _device_type(tensor))
    t = _stage(tensor, engine, False)
    if pg.rank() != root:
        if gather_list:
            raise ValueError("gather: gather_list is only given on the destination rank")
        return _finish(engine.gather(None, t, root), async_op)
    _check_list("gather", gather_list, "gather_list (on the destination rank)", pg, tensor)
    out = yaten.empty(tensor.numel() * pg.size(), dtype=tensor.dtype, device=tensor.device)
    return _finish(_after(engine.gather(out, t, root), _unpacker(out, gather_list)), async_op)


def scatter(tensor: Any, scatter_list: list | None = None, src: int | None = None, group: Any = None,
            async_op: bool = False, group_src: int | None = None) -> Work | None:
    """tensor = rank `src`'s scatter_list[this rank]; the other ranks pass scatter_list=None."""
    import yaten

    _check_tensor("scatter", tensor)
    pg = _group(group, "scatter")
    if pg is None:
        return None
    root = _peer("scatter", pg, 0 if src is None and group_src is None else src, "src", group_src)
    engine = pg._engine("scatter", _device_type(tensor))
    t = _stage(tensor, engine, False)
    packed = None
    if pg.rank() == root:
        _check_list("scatter", scatter_list, "scatter_list (on the source rank)", pg, tensor)
        packed = yaten.cat([s.reshape(-1) for s in scatter_list])
    elif scatter_list:
        raise ValueError("scatter: scatter_list is only given on the source rank")
    return _finish(_after(engine.scatter(t, packed, root), _write_back(tensor, t)), async_op)


def reduce_scatter_tensor(output: Any, input: Any, op: Any = ReduceOp.SUM, group: Any = None,  # noqa: A002
                          async_op: bool = False) -> Work | None:
    """output = this rank's part of the reduction of the ranks' inputs (input has world_size x output's elements)."""
    _check_tensor("reduce_scatter_tensor", output, "output")
    _check_tensor("reduce_scatter_tensor", input, "input")
    pg = _group(group, "reduce_scatter_tensor")
    if pg is None:
        return None
    if output.dtype != input.dtype:
        raise TypeError(f"reduce_scatter_tensor: output dtype {output.dtype} != input dtype {input.dtype}")
    if input.numel() != output.numel() * pg.size():
        raise ValueError(f"reduce_scatter_tensor: input must have world_size ({pg.size()}) times the output's "
                         f"{output.numel()} elements, has {input.numel()}")
    name = _op_name("reduce_scatter_tensor", op, input)
    engine = pg._engine("reduce_scatter_tensor", _device_type(input))
    out = _stage(output, engine, True)
    inp = _stage(input, engine, True)
    avg = pg.size() if name == "avg" and not engine.native_avg else 0
    work = engine.reduce_scatter(out, inp, "sum" if avg else name)
    return _finish(_after(work, _write_back(output, out, avg)), async_op)


def _reduce_scatter_base(output: Any, input: Any, op: Any = ReduceOp.SUM, group: Any = None,  # noqa: A002
                         async_op: bool = False) -> Any:
    return reduce_scatter_tensor(output, input, op, group, async_op)


def reduce_scatter(output: Any, input_list: list, op: Any = ReduceOp.SUM, group: Any = None,
                   async_op: bool = False) -> Work | None:
    """output = the reduction over the ranks of their input_list[this rank]."""
    import yaten

    _check_tensor("reduce_scatter", output, "output")
    pg = _group(group, "reduce_scatter")
    if pg is None:
        return None
    _check_list("reduce_scatter", input_list, "input_list", pg, output)
    return reduce_scatter_tensor(output, yaten.cat([t.reshape(-1) for t in input_list]), op, group, async_op)


def all_to_all_single(output: Any, input: Any, output_split_sizes: list | None = None,  # noqa: A002
                      input_split_sizes: list | None = None, group: Any = None, async_op: bool = False) -> Work | None:
    """Rank i sends its input's i-th split (rows of dim 0) to rank j's output j-th split... as torch's."""
    _check_tensor("all_to_all_single", output, "output")
    _check_tensor("all_to_all_single", input, "input")
    pg = _group(group, "all_to_all_single")
    if pg is None:
        return None
    if output.dtype != input.dtype:
        raise TypeError(f"all_to_all_single: output dtype {output.dtype} != input dtype {input.dtype}")
    n = pg.size()

    def counts(t: Any, splits: list | None, what: str) -> list[int]:
        rows = t.shape[0] if t.dim() else 1
        row = t.numel() // rows if rows else 0
        if splits is None or len(splits) == 0:
            if rows % n:
                raise ValueError(f"all_to_all_single: the {what}'s dim 0 ({rows}) is not divisible by the group's "
                                 f"size {n}; give {what}_split_sizes")
            return [rows // n * row] * n
        if len(splits) != n or any(int(s) < 0 for s in splits) or sum(int(s) for s in splits) != rows:
            raise ValueError(f"all_to_all_single: {what}_split_sizes {list(splits)} must be {n} sizes that add up "
                             f"to the {what}'s dim 0 ({rows})")
        return [int(s) * row for s in splits]

    out_counts = counts(output, output_split_sizes, "output")
    in_counts = counts(input, input_split_sizes, "input")
    engine = pg._engine("all_to_all_single", _device_type(input))
    out = _stage(output, engine, False)
    work = engine.alltoall(out, _stage(input, engine, False), out_counts, in_counts)
    return _finish(_after(work, _write_back(output, out)), async_op)


def all_to_all(output_tensor_list: list, input_tensor_list: list, group: Any = None,
               async_op: bool = False) -> Work | None:
    """output_tensor_list[i] = rank i's input_tensor_list[this rank]."""
    import yaten

    pg = _group(group, "all_to_all")
    if pg is None:
        return None
    n = pg.size()
    for what, lst in (("output_tensor_list", output_tensor_list), ("input_tensor_list", input_tensor_list)):
        if not isinstance(lst, list) or len(lst) != n:
            raise ValueError(f"all_to_all: {what} must be a list of {n} tensors (the group's size)")
    first = input_tensor_list[0]
    _check_tensor("all_to_all", first, "input_tensor_list[0]")
    _same_dtype("all_to_all", input_tensor_list + output_tensor_list, first.dtype, first.device)
    engine = pg._engine("all_to_all", _device_type(first))
    inp = yaten.cat([t.reshape(-1) for t in input_tensor_list])
    out_counts = [t.numel() for t in output_tensor_list]
    out = yaten.empty(sum(out_counts), dtype=first.dtype, device=first.device)
    work = engine.alltoall(out, inp, out_counts, [t.numel() for t in input_tensor_list])
    return _finish(_after(work, _unpacker(out, output_tensor_list)), async_op)


def barrier(group: Any = None, async_op: bool = False, device_ids: Any = None) -> Work | None:
    """Returns when every rank of the group has called it (raises after the group's timeout)."""
    pg = _group(group, "barrier")
    if pg is None:
        return None
    return _finish(_barrier_engine(pg, "barrier").barrier(), async_op)


def _barrier_engine(pg: ProcessGroup, fn: str) -> Any:
    return pg._mpi if pg._mpi is not None else pg._engine(fn, "cuda")


def monitored_barrier(group: Any = None, timeout: Any = None, wait_all_ranks: bool = False) -> None:
    pg = _group(group, "monitored_barrier")
    if pg is None:
        return
    _barrier_engine(pg, "monitored_barrier").barrier().wait(None if timeout is None else _timeout_seconds(timeout))


# ------------------------------------------------------------------------------------------------ point to point


def isend(tensor: Any, dst: int | None = None, group: Any = None, tag: int = 0,
          group_dst: int | None = None) -> Work | None:
    _check_tensor("isend", tensor)
    pg = _group(group, "isend")
    if pg is None:
        return None
    peer = _peer("isend", pg, dst, "dst", group_dst)
    if peer == pg.rank():
        raise ValueError("isend: invalid destination rank: should not be the same as the rank of the current process")
    engine = pg._engine("isend", _device_type(tensor))
    t = _stage(tensor, engine, False)
    work = engine.send(t, peer, tag)
    work._keep = t  # the staged copy lives until the message has gone
    return work


def irecv(tensor: Any, src: int | None = None, group: Any = None, tag: int = 0,
          group_src: int | None = None) -> Work | None:
    """Receives into `tensor`; src=None takes a message from any rank (source_rank() says which)."""
    _check_tensor("irecv", tensor)
    pg = _group(group, "irecv")
    if pg is None:
        return None
    peer = None if src is None and group_src is None else _peer("irecv", pg, src, "src", group_src)
    engine = pg._engine("irecv", _device_type(tensor))
    t = _stage(tensor, engine, False)
    work = engine.recv(t, peer, tag)

    def done() -> None:
        if 0 <= work._source_rank < pg.size():
            work._source_rank = pg._ranks[work._source_rank]
        if t is not tensor:
            tensor.copy_(t)

    return _after(work, done)


def send(tensor: Any, dst: int | None = None, group: Any = None, tag: int = 0, group_dst: int | None = None) -> None:
    work = isend(tensor, dst, group, tag, group_dst)
    if work is not None:
        work.wait()


def recv(tensor: Any, src: int | None = None, group: Any = None, tag: int = 0,
         group_src: int | None = None) -> int:
    """Receives into `tensor` and returns the sender's rank (-1 outside the group)."""
    work = irecv(tensor, src, group, tag, group_src)
    if work is None:
        return -1
    work.wait()
    return work._source_rank


class P2POp:
    """One send or receive of batch_isend_irecv: P2POp(dist.isend or dist.irecv, tensor, peer, group, tag)."""

    def __init__(self, op: Callable, tensor: Any, peer: int | None = None, group: Any = None, tag: int = 0,
                 group_peer: int | None = None) -> None:
        if op not in (isend, irecv):
            raise ValueError("P2POp: op must be yaten.distributed.isend or yaten.distributed.irecv")
        _check_tensor("P2POp", tensor)
        self.op, self.tensor, self.peer, self.group, self.tag, self.group_peer = op, tensor, peer, group, tag, group_peer


def batch_isend_irecv(p2p_op_list: list) -> list:
    """Starts every send and receive of the list and returns their Works."""
    if not p2p_op_list or not all(isinstance(p, P2POp) for p in p2p_op_list):
        raise ValueError("batch_isend_irecv: expected a non-empty list of P2POp")
    works = []
    for p in p2p_op_list:
        if p.op is isend:
            works.append(isend(p.tensor, p.peer, p.group, p.tag, p.group_peer))
        else:
            works.append(irecv(p.tensor, p.peer, p.group, p.tag, p.group_peer))
    return [w for w in works if w is not None]


# ------------------------------------------------------------------------------------------------ objects


def _object_engine(pg: ProcessGroup, fn: str) -> Any:
    if pg._mpi is None:
        raise RuntimeError(f"{fn}: objects travel through MPI, which this process group does not have "
                           "(start the processes with mpiexec, or init_process_group(backend=None))")
    return pg._mpi


def broadcast_object_list(object_list: list, src: int | None = None, group: Any = None, device: Any = None,
                          group_src: int | None = None) -> None:
    """object_list[:] = rank src's object_list (pickled, as torch does: only for trusted peers)."""
    pg = _group(group, "broadcast_object_list")
    if pg is None:
        return
    root = _peer("broadcast_object_list", pg, 0 if src is None and group_src is None else src, "src", group_src)
    values = _object_engine(pg, "broadcast_object_list").broadcast_object(list(object_list), root)
    if len(values) != len(object_list):
        raise ValueError(f"broadcast_object_list: the source's list has {len(values)} objects, this rank's "
                         f"{len(object_list)}")
    object_list[:] = values


def all_gather_object(object_list: list, obj: Any, group: Any = None) -> None:
    pg = _group(group, "all_gather_object")
    if pg is None:
        return
    if len(object_list) != pg.size():
        raise ValueError(f"all_gather_object: object_list must have {pg.size()} slots (the group's size)")
    object_list[:] = _object_engine(pg, "all_gather_object").allgather_object(obj)


def gather_object(obj: Any, object_gather_list: list | None = None, dst: int | None = None, group: Any = None,
                  group_dst: int | None = None) -> None:
    pg = _group(group, "gather_object")
    if pg is None:
        return
    root = _peer("gather_object", pg, 0 if dst is None and group_dst is None else dst, "dst", group_dst)
    values = _object_engine(pg, "gather_object").gather_object(obj, root)
    if pg.rank() == root:
        if object_gather_list is None or len(object_gather_list) != pg.size():
            raise ValueError(f"gather_object: on the destination rank object_gather_list must have {pg.size()} "
                             "slots")
        object_gather_list[:] = values


def scatter_object_list(scatter_object_output_list: list, scatter_object_input_list: list | None = None,
                        src: int | None = None, group: Any = None, group_src: int | None = None) -> None:
    pg = _group(group, "scatter_object_list")
    if pg is None:
        return
    root = _peer("scatter_object_list", pg, 0 if src is None and group_src is None else src, "src", group_src)
    if not isinstance(scatter_object_output_list, list) or len(scatter_object_output_list) < 1:
        raise ValueError("scatter_object_list: scatter_object_output_list must be a list of at least one slot")
    inputs = None
    if pg.rank() == root:
        if scatter_object_input_list is None or len(scatter_object_input_list) != pg.size():
            raise ValueError(f"scatter_object_list: on the source rank the input list must have {pg.size()} objects")
        inputs = list(scatter_object_input_list)
    scatter_object_output_list[0] = _object_engine(pg, "scatter_object_list").scatter_object(inputs, root)
