"""yaten.profiler: what each op cost, on the CPU and the GPU, as a table, a trace and flame-graph stacks.

The drill a PyTorch user knows, with torch's names::

    from yaten.profiler import profile, record_function, ProfilerActivity

    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True) as prof:
        with record_function("step"):
            loss = model(x).sum()
            loss.backward()
    print(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=20))
    prof.export_chrome_trace("trace.json")      # open in https://ui.perfetto.dev or chrome://tracing

Events are recorded where every call already passes, the dispatcher (Note [Profiler events] in
csrc/profiler/profiler.h): one per op call (nested calls nest: matmul -> mm), per `record_function` range and per
autograd node run by backward (``MulBackward0``). GPU time comes from CUDA events recorded around each CUDA call on
its stream and read when the profile stops, so recording never waits for the GPU. Beyond torch: ``with_flops=True``
adds achieved GFLOP/s (matmul family) and GB/s (pointwise ops, reductions, softmax) to the table, computed from the
recorded shapes, and every table ends with the ops above 5% of the total, the first thing to look at.
"""

from __future__ import annotations

import enum
import functools
import gzip
import json
import os
from collections import defaultdict
from typing import Any, Callable, Iterable

from . import _C

__all__ = [
    "EventList",
    "FunctionEvent",
    "FunctionEventAvg",
    "ProfilerAction",
    "ProfilerActivity",
    "profile",
    "record_function",
    "schedule",
    "tensorboard_trace_handler",
]


class ProfilerActivity(enum.Enum):
    CPU = "CPU"
    CUDA = "CUDA"


class ProfilerAction(enum.Enum):
    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


def schedule(*, wait: int, warmup: int, active: int, repeat: int = 0,
             skip_first: int = 0) -> Callable[[int], ProfilerAction]:
    """torch's schedule: after `skip_first` steps, cycles of `wait` idle steps, `warmup` steps recorded and thrown
    away, and `active` steps recorded (the last of them RECORD_AND_SAVE: on_trace_ready runs after it); `repeat`
    cycles (0: for as long as steps come)."""
    if wait < 0 or warmup < 0 or active <= 0 or repeat < 0 or skip_first < 0:
        raise ValueError("schedule: wait, warmup, repeat and skip_first must be >= 0 and active > 0")

    def action(step: int) -> ProfilerAction:
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        cycle = wait + warmup + active
        if repeat > 0 and step // cycle >= repeat:
            return ProfilerAction.NONE
        at = step % cycle
        if at < wait:
            return ProfilerAction.NONE
        if at < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if at < cycle - 1 else ProfilerAction.RECORD_AND_SAVE

    return action


def _default_schedule(step: int) -> ProfilerAction:
    return ProfilerAction.RECORD


def tensorboard_trace_handler(dir_name: str, worker_name: str | None = None,
                              use_gzip: bool = False) -> Callable[["profile"], None]:
    """An on_trace_ready that writes each saved cycle as a Chrome trace into `dir_name`."""

    def handler(prof: "profile") -> None:
        os.makedirs(dir_name, exist_ok=True)
        name = worker_name or f"{os.uname().nodename}_{os.getpid()}"
        path = os.path.join(dir_name, f"{name}.{prof.step_num}.pt.trace.json" + (".gz" if use_gzip else ""))
        prof.export_chrome_trace(path)

    return handler


class record_function:
    """A user range: ``with record_function("name"):`` or ``@record_function("name")``. Ranges nest with op calls
    and show in the table and the trace under their name. Outside a profile it costs one check."""

    def __init__(self, name: str, args: str | None = None) -> None:
        self.name = name
        self._open: list[bool] = []

    def __enter__(self) -> "record_function":
        self._open.append(_C._profiler_push_range(self.name))
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._open.pop():
            _C._profiler_pop_range()

    def __call__(self, fn: Callable) -> Callable:
        @functools.wraps(fn)
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            with record_function(self.name):
                return fn(*args, **kwargs)

        return wrapped


# ---------------------------------------------------------------------------------------------------- events

_KINDS = {0: "op", 1: "user_annotation", 2: "backward", 3: "memory"}
_THIS_FILE = __file__ + ":"


class FunctionEvent:
    """One recorded op call, range or autograd node. Times in microseconds, memory in bytes."""

    def __init__(self, raw: tuple) -> None:
        (self.id, self.parent_id, name, self.overload, kind, self.dispatch_key, self.thread, start_ns, end_ns, shapes,
         dtypes, stack, self.self_cpu_memory_usage, self.self_cuda_memory_usage, self.device_index, cuda_us,
         gpu_start_us) = raw
        self.name = name
        self.kind = _KINDS[kind]
        self.start_us = start_ns / 1000.0
        self.end_us = end_ns / 1000.0
        self.input_shapes = json.loads(shapes) if shapes else []
        self.input_types = [t.strip() for t in dtypes.strip("[]").split(",")] if dtypes not in ("", "[]") else []
        # the frames of the user's code: record_function's own __enter__ is not one of them
        self._own_stack = [f for f in stack.split(";") if not f.startswith(_THIS_FILE)] if stack else []
        self.stack: list[str] = []  # filled in by EventList: the nearest recorded frames
        self._cuda_us = cuda_us if cuda_us >= 0 else None
        self.gpu_start_us = gpu_start_us if gpu_start_us >= 0 else None
        self.cpu_parent: FunctionEvent | None = None
        self.cpu_children: list[FunctionEvent] = []
        self.flops = 0
        self.bytes = 0

    @property
    def key(self) -> str:
        return self.name

    @property
    def cpu_time_total(self) -> float:
        return self.end_us - self.start_us

    @property
    def self_cpu_time_total(self) -> float:
        return max(0.0, self.cpu_time_total - sum(c.cpu_time_total for c in self.cpu_children))

    @property
    def cuda_time_total(self) -> float:
        """GPU time of what this call queued, its children's included (their sum where it was not measured)."""
        if self._cuda_us is not None:
            return self._cuda_us
        return sum(c.cuda_time_total for c in self.cpu_children)

    @property
    def self_cuda_time_total(self) -> float:
        if self._cuda_us is None:
            return 0.0
        return max(0.0, self._cuda_us - sum(c.cuda_time_total for c in self.cpu_children))

    device_time_total = cuda_time_total
    self_device_time_total = self_cuda_time_total

    @property
    def cpu_memory_usage(self) -> int:
        return self.self_cpu_memory_usage + sum(c.cpu_memory_usage for c in self.cpu_children)

    @property
    def cuda_memory_usage(self) -> int:
        return self.self_cuda_memory_usage + sum(c.cuda_memory_usage for c in self.cpu_children)

    @property
    def time_range(self) -> tuple[float, float]:
        return self.start_us, self.end_us

    def __repr__(self) -> str:
        return (f"<FunctionEvent id={self.id} name={self.name} thread={self.thread} cpu_time={self.cpu_time_total:.3f}us "
                f"self_cpu={self.self_cpu_time_total:.3f}us cuda_time={self.cuda_time_total:.3f}us "
                f"input_shapes={self.input_shapes}>")


class FunctionEventAvg:
    """The events of one key (name, and shapes or stack when grouped so) added up."""

    def __init__(self, key: str, input_shapes: str = "", stack: tuple[str, ...] = ()) -> None:
        self.key = key
        self.input_shapes = input_shapes
        self.stack = list(stack)
        self.count = 0
        self.cpu_time_total = 0.0
        self.self_cpu_time_total = 0.0
        self.cuda_time_total = 0.0
        self.self_cuda_time_total = 0.0
        self.cpu_memory_usage = 0
        self.self_cpu_memory_usage = 0
        self.cuda_memory_usage = 0
        self.self_cuda_memory_usage = 0
        self.flops = 0
        self.bytes = 0
        self._nested_cpu = 0.0  # time inside another event of the same key (a recursion): not counted twice

    def add(self, e: FunctionEvent) -> None:
        self.count += 1
        self.self_cpu_time_total += e.self_cpu_time_total
        self.self_cuda_time_total += e.self_cuda_time_total
        self.self_cpu_memory_usage += e.self_cpu_memory_usage
        self.self_cuda_memory_usage += e.self_cuda_memory_usage
        parent = e.cpu_parent
        while parent is not None and parent.name != e.name:
            parent = parent.cpu_parent
        if parent is None:  # totals count the outermost event of a key only
            self.cpu_time_total += e.cpu_time_total
            self.cuda_time_total += e.cuda_time_total
            self.cpu_memory_usage += e.cpu_memory_usage
            self.cuda_memory_usage += e.cuda_memory_usage
        self.flops += e.flops
        self.bytes += e.bytes

    @property
    def cpu_time(self) -> float:
        return self.cpu_time_total / self.count if self.count else 0.0

    @property
    def cuda_time(self) -> float:
        return self.cuda_time_total / self.count if self.count else 0.0

    device_time_total = property(lambda self: self.cuda_time_total)
    self_device_time_total = property(lambda self: self.self_cuda_time_total)

    def __repr__(self) -> str:
        return (f"<FunctionEventAvg key={self.key} self_cpu_time={self.self_cpu_time_total:.3f}us "
                f"cpu_time={self.cpu_time_total:.3f}us count={self.count}>")


def _format_time(us: float) -> str:
    if us >= 1e6:
        return f"{us / 1e6:.3f}s"
    if us >= 1e3:
        return f"{us / 1e3:.3f}ms"
    return f"{us:.3f}us"


def _format_memory(n: int) -> str:
    for unit, size in (("Gb", 1 << 30), ("Mb", 1 << 20), ("Kb", 1 << 10)):
        if abs(n) >= size:
            return f"{n / size:.2f} {unit}"
    return f"{n} b"


def _percent(part: float, whole: float) -> str:
    return f"{100.0 * part / whole:.2f}%" if whole > 0 else "0.00%"


_SORT_KEYS = {
    "cpu_time", "cuda_time", "device_time", "cpu_time_total", "cuda_time_total", "device_time_total",
    "self_cpu_time_total", "self_cuda_time_total", "self_device_time_total", "count", "cpu_memory_usage",
    "self_cpu_memory_usage", "cuda_memory_usage", "self_cuda_memory_usage", "flops",
}


class EventList(list):
    """A list of FunctionEvent (from profile.events()) or FunctionEventAvg (from key_averages())."""

    def __init__(self, events: Iterable = (), *, with_cuda: bool = False, with_memory: bool = False,
                 with_flops: bool = False, group_by_input_shape: bool = False, group_by_stack_n: int = 0) -> None:
        super().__init__(events)
        self._with_cuda = with_cuda
        self._with_memory = with_memory
        self._with_flops = with_flops
        self._by_shape = group_by_input_shape
        self._stack_n = group_by_stack_n

    def _options(self, **changes: Any) -> dict:
        options = dict(with_cuda=self._with_cuda, with_memory=self._with_memory, with_flops=self._with_flops,
                       group_by_input_shape=self._by_shape, group_by_stack_n=self._stack_n)
        options.update(changes)
        return options

    def key_averages(self, group_by_input_shape: bool = False, group_by_stack_n: int = 0) -> "EventList":
        groups: dict[tuple, FunctionEventAvg] = {}
        for e in self:
            shapes = str(e.input_shapes) if group_by_input_shape else ""
            stack = tuple(e.stack[:group_by_stack_n]) if group_by_stack_n > 0 else ()  # the innermost frames
            key = (e.name, shapes, stack)
            if key not in groups:
                groups[key] = FunctionEventAvg(e.name, shapes, stack)
            groups[key].add(e)
        return EventList(groups.values(), **self._options(group_by_input_shape=group_by_input_shape,
                                                          group_by_stack_n=group_by_stack_n))

    def total_average(self) -> FunctionEventAvg:
        total = FunctionEventAvg("Total")
        for e in self:
            total.count += getattr(e, "count", 1)
            total.self_cpu_time_total += e.self_cpu_time_total
            total.self_cuda_time_total += e.self_cuda_time_total
        return total

    @property
    def self_cpu_time_total(self) -> float:
        return sum(e.self_cpu_time_total for e in self)

    def table(self, sort_by: str | None = None, row_limit: int = 100, max_name_column_width: int = 55,
              top_level_events_only: bool = False, header: str | None = None) -> str:
        """The table in torch's layout: Name, Self CPU %, Self CPU, CPU total %, CPU total, CPU time avg, the CUDA
        columns when a GPU was profiled, the memory columns with profile_memory, # of Calls, Input Shapes when
        grouped by shape, Source Location when grouped by stack, and GFLOP/s and GB/s with with_flops. Then the
        totals, and the ops above 5% of the self time."""
        rows = list(self)
        if rows and isinstance(rows[0], FunctionEvent):
            if top_level_events_only:
                rows = [e for e in rows if e.cpu_parent is None]
        if sort_by is not None:
            if sort_by not in _SORT_KEYS:
                raise ValueError(f"table: sort_by must be one of {sorted(_SORT_KEYS)}, got {sort_by!r}")
            attr = {"device_time": "cuda_time", "device_time_total": "cuda_time_total",
                    "self_device_time_total": "self_cuda_time_total"}.get(sort_by, sort_by)
            if attr in ("cpu_time", "cuda_time") and rows and isinstance(rows[0], FunctionEvent):
                attr += "_total"
            rows.sort(key=lambda e: getattr(e, attr), reverse=True)
        self_cpu_total = sum(e.self_cpu_time_total for e in self)
        self_cuda_total = sum(e.self_cuda_time_total for e in self)
        shown = rows[:row_limit] if row_limit is not None and row_limit >= 0 else rows

        def count(e: Any) -> int:
            return getattr(e, "count", 1)

        columns: list[tuple[str, Callable[[Any], str]]] = [
            ("Self CPU %", lambda e: _percent(e.self_cpu_time_total, self_cpu_total)),
            ("Self CPU", lambda e: _format_time(e.self_cpu_time_total)),
            ("CPU total %", lambda e: _percent(e.cpu_time_total, self_cpu_total)),
            ("CPU total", lambda e: _format_time(e.cpu_time_total)),
            ("CPU time avg", lambda e: _format_time(e.cpu_time_total / count(e))),
        ]
        if self._with_cuda:
            columns += [
                ("Self CUDA", lambda e: _format_time(e.self_cuda_time_total)),
                ("Self CUDA %", lambda e: _percent(e.self_cuda_time_total, self_cuda_total)),
                ("CUDA total", lambda e: _format_time(e.cuda_time_total)),
                ("CUDA time avg", lambda e: _format_time(e.cuda_time_total / count(e))),
            ]
        if self._with_memory:
            columns += [
                ("CPU Mem", lambda e: _format_memory(e.cpu_memory_usage)),
                ("Self CPU Mem", lambda e: _format_memory(e.self_cpu_memory_usage)),
            ]
            if self._with_cuda:
                columns += [
                    ("CUDA Mem", lambda e: _format_memory(e.cuda_memory_usage)),
                    ("Self CUDA Mem", lambda e: _format_memory(e.self_cuda_memory_usage)),
                ]
        columns.append(("# of Calls", lambda e: str(count(e))))
        if self._with_flops:
            # achieved rates over the op's own time: GPU time where it ran on the GPU, else CPU time
            def rate(amount: float, e: Any) -> str:
                seconds = (e.self_cuda_time_total or e.self_cpu_time_total) / 1e6
                return f"{amount / seconds / 1e9:.2f}" if amount and seconds > 0 else "--"

            columns += [("GFLOP/s", lambda e: rate(e.flops, e)), ("GB/s", lambda e: rate(e.bytes, e))]
        wide: list[tuple[str, Callable[[Any], str]]] = []
        if self._by_shape:
            wide.append(("Input Shapes", lambda e: str(e.input_shapes if isinstance(e, FunctionEvent)
                                                       else e.input_shapes)))
        if self._stack_n > 0:
            wide.append(("Source Location", lambda e: (e.stack[0] if e.stack else "")))

        names = [e.key for e in shown]
        name_width = min(max([len("Name")] + [len(n) for n in names]) + 2, max_name_column_width)
        cells = [[fn(e) for _, fn in columns] for e in shown]
        widths = [max([len(title)] + [len(row[i]) for row in cells]) + 2 for i, (title, _) in enumerate(columns)]
        widths = [max(w, 12) for w in widths]
        wide_cells = [[fn(e) for _, fn in wide] for e in shown]
        wide_widths = [max([len(title)] + [len(row[i]) for row in wide_cells]) + 2 for i, (title, _) in enumerate(wide)]

        def line(name: str, values: list[str], wide_values: list[str]) -> str:
            if len(name) > name_width:
                name = name[: name_width - 3] + "..."
            parts = [name.ljust(name_width)] + [v.rjust(w) for v, w in zip(values, widths)]
            parts += [v.ljust(w) for v, w in zip(wide_values, wide_widths)]
            return "  ".join(parts).rstrip()

        rule = "  ".join(["-" * name_width] + ["-" * w for w in widths] + ["-" * w for w in wide_widths])
        out = []
        if header:
            out.append(header)
        out += [rule, line("Name", [t for t, _ in columns], [t for t, _ in wide]), rule]
        for name, row, wide_row in zip(names, cells, wide_cells):
            out.append(line(name, row, wide_row))
        out.append(rule)
        out.append(f"Self CPU time total: {_format_time(self_cpu_total)}")
        if self._with_cuda:
            out.append(f"Self CUDA time total: {_format_time(self_cuda_total)}")
        out.append(_hotspots(self))
        return "\n".join(out) + "\n"

    def __str__(self) -> str:
        return self.table()

    def export_chrome_trace(self, path: str) -> None:
        _export_chrome_trace([e for e in self if isinstance(e, FunctionEvent)], path)


def _hotspots(events: Iterable, threshold: float = 0.05) -> str:
    """The seed's drill done for the user: the keys whose self time is above 5% of the total."""
    by_key: dict[str, float] = defaultdict(float)
    cuda_by_key: dict[str, float] = defaultdict(float)
    for e in events:
        by_key[e.key] += e.self_cpu_time_total
        cuda_by_key[e.key] += e.self_cuda_time_total
    lines = []
    for label, table in (("self CPU", by_key), ("self CUDA", cuda_by_key)):
        total = sum(table.values())
        if total <= 0:
            continue
        hot = sorted(((t / total, k) for k, t in table.items() if t / total > threshold), reverse=True)
        listed = ", ".join(f"{k} {100 * share:.1f}%" for share, k in hot) or "none"
        lines.append(f"Above 5% of {label} time: {listed}")
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------------- costs

_ITEMSIZE = {"bool": 1, "uint8": 1, "int8": 1, "int16": 2, "int32": 4, "int64": 8, "float16": 2, "bfloat16": 2,
             "float32": 4, "float64": 8, "complex64": 8, "complex128": 16, "uint16": 2, "uint32": 4, "uint64": 8}
_MATMUL = {"yaten::mm", "yaten::bmm", "yaten::matmul", "yaten::addmm", "yaten::baddbmm", "yaten::mv", "yaten::dot",
           "yaten::linear", "yaten::outer", "yaten::vdot", "yaten::addmv"}


@functools.lru_cache(maxsize=1)
def _op_tags() -> dict[str, set[str]]:
    """Each op's tags from the ops.yaml this build compiled (pointwise, reduction, ...)."""
    from pathlib import Path

    from .codegen import parse

    tags: dict[str, set[str]] = defaultdict(set)
    for op in parse.load(Path(_C.__file__).resolve().parent / "ops.yaml").ops:
        tags["yaten::" + op.schema.name].update(op.tags)
    return tags


def _numel(shape: list) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


def _broadcast(shapes: list[list[int]]) -> list[int]:
    out: list[int] = []
    for shape in shapes:
        for i, s in enumerate(reversed(shape)):
            if i < len(out):
                out[-1 - i] = max(out[-1 - i], s)
            else:
                out.insert(0, s)
    return out


def _matmul_flops(name: str, shapes: list) -> int:
    """2 * multiply-adds, from the operands' shapes (the batch dims broadcast)."""
    tensors = [s for s in shapes if isinstance(s, list) and s and all(isinstance(d, int) for d in s)]
    if name in ("yaten::addmm", "yaten::baddbmm", "yaten::addmv"):
        tensors = tensors[1:3]
    if name == "yaten::linear":
        if len(tensors) < 2:
            return 0
        x, w = tensors[0], tensors[1]
        return 2 * _numel(x) * w[0] if len(w) == 2 else 2 * _numel(x)
    if len(tensors) < 2:
        return 0
    a, b = tensors[0], tensors[1]
    if name in ("yaten::dot", "yaten::vdot"):
        return 2 * a[-1]
    if name == "yaten::outer":
        return _numel(a) * _numel(b)
    if len(a) == 1 and len(b) == 1:
        return 2 * a[0]
    if len(b) == 1:  # matrix @ vector
        return 2 * _numel(a)
    if len(a) == 1:
        return 2 * _numel(b)
    m, k, n = a[-2], a[-1], b[-1]
    batch = _numel(_broadcast([a[:-2], b[:-2]]))
    return 2 * batch * m * k * n


def _bytes_moved(name: str, shapes: list, types: list[str], tags: set[str]) -> int:
    """Bytes read and written by an op whose traffic follows from its shapes: each tensor input read once, and for
    pointwise ops and softmax a result the size of the broadcast inputs written (reductions write little)."""
    tensors = [(s, t) for s, t in zip(shapes, types) if t in _ITEMSIZE]
    if not tensors:
        return 0
    read = sum(_numel(s) * _ITEMSIZE[t] for s, t in tensors)
    itemsize = max(_ITEMSIZE[t] for _, t in tensors)
    if "pointwise" in tags or name in ("yaten::softmax", "yaten::log_softmax"):
        return read + _numel(_broadcast([s for s, _ in tensors])) * itemsize
    return read


def _add_costs(events: list[FunctionEvent]) -> None:
    tags = _op_tags()
    for e in events:
        if e.kind != "op" or not e.input_shapes:
            continue
        if e.name in _MATMUL:
            e.flops = _matmul_flops(e.name, e.input_shapes)
        op_tags = tags.get(e.name, set())
        if "pointwise" in op_tags or "reduction" in op_tags or e.name in ("yaten::softmax", "yaten::log_softmax"):
            e.bytes = _bytes_moved(e.name, e.input_shapes, e.input_types, op_tags)


# ---------------------------------------------------------------------------------------------------- exports


def _export_chrome_trace(events: list[FunctionEvent], path: str) -> None:
    """Chrome Trace Event JSON (Perfetto and chrome://tracing open it): a complete ("X") event per op, range and
    autograd node on its thread's track, and the GPU time of each CUDA call on a track per device; gzip when the
    path ends in .gz."""
    pid = os.getpid()
    trace: list[dict] = [{"ph": "M", "name": "process_name", "pid": pid, "tid": 0, "args": {"name": "yaten"}}]
    threads = sorted({e.thread for e in events})
    for i, tid in enumerate(threads):
        trace.append({"ph": "M", "name": "thread_name", "pid": pid, "tid": tid,
                      "args": {"name": "main thread" if i == 0 else f"thread {tid}"}})
    devices = sorted({e.device_index for e in events if e.gpu_start_us is not None})
    for d in devices:
        trace.append({"ph": "M", "name": "process_name", "pid": 1_000_000 + d, "tid": 0,
                      "args": {"name": f"CUDA device {d}"}})
    categories = {"op": "cpu_op", "user_annotation": "user_annotation", "backward": "autograd", "memory": "memory"}
    for e in events:
        args: dict[str, Any] = {"External id": e.id}
        if e.kind == "op":
            args["dispatch key"] = e.dispatch_key
            if e.overload:
                args["overload"] = e.overload
        if e.input_shapes:
            args["Input Dims"] = e.input_shapes
            args["Input type"] = e.input_types
        if e._own_stack:
            args["Call stack"] = ";".join(reversed(e._own_stack))
        if e.self_cpu_memory_usage or e.self_cuda_memory_usage:
            args["Self CPU Mem"] = e.self_cpu_memory_usage
            args["Self CUDA Mem"] = e.self_cuda_memory_usage
        if e.kind == "memory":
            trace.append({"ph": "i", "s": "t", "cat": "memory", "name": e.name, "pid": pid, "tid": e.thread,
                          "ts": round(e.start_us, 3), "args": args})
            continue
        trace.append({"ph": "X", "cat": categories[e.kind], "name": e.name, "pid": pid, "tid": e.thread,
                      "ts": round(e.start_us, 3), "dur": round(e.cpu_time_total, 3), "args": args})
        if e.gpu_start_us is not None and e._cuda_us is not None:
            trace.append({"ph": "X", "cat": "gpu_op", "name": e.name, "pid": 1_000_000 + e.device_index, "tid": 0,
                          "ts": round(e.gpu_start_us, 3), "dur": round(e._cuda_us, 3),
                          "args": {"External id": e.id}})
    document = {"schemaVersion": 1, "displayTimeUnit": "ms", "traceEvents": trace}
    data = json.dumps(document).encode()
    if path.endswith(".gz"):
        with gzip.open(path, "wb") as f:
            f.write(data)
    else:
        with open(path, "wb") as f:
            f.write(data)


def _export_stacks(events: list[FunctionEvent], path: str, metric: str) -> None:
    """Collapsed stacks for flame graphs (flamegraph.pl, speedscope): the Python frames, then the nesting of ops,
    and the metric (self time in microseconds) of the innermost one."""
    if metric not in ("self_cpu_time_total", "self_cuda_time_total", "self_device_time_total"):
        raise ValueError("export_stacks: metric must be self_cpu_time_total or self_cuda_time_total")
    attr = "self_cuda_time_total" if metric != "self_cpu_time_total" else metric
    with open(path, "w") as f:
        for e in events:
            value = int(round(getattr(e, attr)))
            if value <= 0 or e.kind == "memory":
                continue
            chain = []
            node: FunctionEvent | None = e
            while node is not None:
                chain.append(node.name)
                node = node.cpu_parent
            frames = e.stack[::-1] + chain[::-1]  # outermost first
            f.write(";".join(x.replace(";", ":").replace(" ", "_") for x in frames) + f" {value}\n")


# ---------------------------------------------------------------------------------------------------- profile


class profile:
    """Records op calls, ranges and autograd nodes, with torch.profiler.profile's arguments. A context manager, or
    start()/stop(); step() advances `schedule` (each step a ``ProfilerStep#N`` range while recording)."""

    def __init__(self, *, activities: Iterable[ProfilerActivity] | None = None,
                 schedule: Callable[[int], ProfilerAction] | None = None,
                 on_trace_ready: Callable[["profile"], Any] | None = None, record_shapes: bool = False,
                 profile_memory: bool = False, with_stack: bool = False, with_flops: bool = False,
                 with_modules: bool = False) -> None:
        from . import cuda

        if activities is None:
            activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if cuda.is_available() else [])
        self.activities = set(activities)
        bad = [a for a in self.activities if not isinstance(a, ProfilerActivity)]
        if bad:
            raise TypeError(f"profile: activities must be ProfilerActivity values, got {bad!r}")
        if ProfilerActivity.CUDA in self.activities and not cuda.is_available():
            raise RuntimeError("profile: ProfilerActivity.CUDA was asked for, but no CUDA GPU is available")
        self.schedule = schedule or _default_schedule
        self.on_trace_ready = on_trace_ready
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.with_flops = with_flops
        self.step_num = 0
        self._action = ProfilerAction.NONE
        self._events: list[FunctionEvent] = []
        self._step_range: record_function | None = None

    # ---- recording
    def _start_trace(self) -> None:
        _C._profiler_start(ProfilerActivity.CPU in self.activities, ProfilerActivity.CUDA in self.activities,
                           self.record_shapes or self.with_flops, self.with_stack, self.profile_memory)

    def _stop_trace(self) -> list[FunctionEvent]:
        self._close_step()
        return self._link([FunctionEvent(raw) for raw in _C._profiler_stop()])

    def _open_step(self) -> None:
        if self._action in (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE) and self.schedule is not \
                _default_schedule:
            self._step_range = record_function(f"ProfilerStep#{self.step_num}")
            self._step_range.__enter__()

    def _close_step(self) -> None:
        if self._step_range is not None:
            self._step_range.__exit__(None, None, None)
            self._step_range = None

    def _link(self, events: list[FunctionEvent]) -> list[FunctionEvent]:
        by_id = {e.id: e for e in events}
        events.sort(key=lambda e: (e.thread, e.start_us, e.id))
        for e in events:
            parent = by_id.get(e.parent_id)
            if parent is not None:
                e.cpu_parent = parent
                parent.cpu_children.append(e)
        for e in events:  # each event's frames: its own, else its nearest ancestor's
            node: FunctionEvent | None = e
            while node is not None and not node._own_stack:
                node = node.cpu_parent
            e.stack = list(reversed(node._own_stack)) if node is not None else []  # innermost frame first
        if self.with_flops:
            _add_costs(events)
        return events

    def _transition(self, new: ProfilerAction) -> None:
        old = self._action
        recording = (ProfilerAction.WARMUP, ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE)
        if old == ProfilerAction.RECORD_AND_SAVE:
            self._events = self._stop_trace()
            self._action = new
            if self.on_trace_ready is not None:
                self.on_trace_ready(self)
            if new in recording:
                self._start_trace()
        elif old == ProfilerAction.WARMUP and new in (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE):
            self._close_step()
            _C._profiler_stop()  # what warm-up recorded is thrown away
            self._start_trace()
            self._action = new
        elif old in recording and new == ProfilerAction.NONE:
            self._events = self._stop_trace()  # a cycle cut short: kept, but not handed to on_trace_ready
            self._action = new
        elif old == ProfilerAction.NONE and new in recording:
            self._start_trace()
            self._action = new
        else:
            self._close_step()
            self._action = new
        self._open_step()

    def start(self) -> None:
        self.step_num = 0
        self._events = []
        self._action = ProfilerAction.NONE
        self._transition(self.schedule(0))

    def stop(self) -> None:
        if self._action == ProfilerAction.NONE:
            return
        saving = self._action == ProfilerAction.RECORD_AND_SAVE or self.schedule is _default_schedule
        self._events = self._stop_trace()
        self._action = ProfilerAction.NONE
        if saving and self.on_trace_ready is not None:
            self.on_trace_ready(self)

    def step(self) -> None:
        self.step_num += 1
        self._transition(self.schedule(self.step_num))

    def __enter__(self) -> "profile":
        self.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    # ---- results
    def events(self) -> EventList:
        """Every recorded event, in order of start on each thread."""
        return EventList(self._events, with_cuda=ProfilerActivity.CUDA in self.activities,
                         with_memory=self.profile_memory, with_flops=self.with_flops)

    def key_averages(self, group_by_input_shape: bool = False, group_by_stack_n: int = 0) -> EventList:
        if group_by_input_shape and not self.record_shapes:
            raise RuntimeError("key_averages(group_by_input_shape=True) needs profile(record_shapes=True)")
        if group_by_stack_n > 0 and not self.with_stack:
            raise RuntimeError("key_averages(group_by_stack_n=...) needs profile(with_stack=True)")
        return self.events().key_averages(group_by_input_shape, group_by_stack_n)

    def export_chrome_trace(self, path: str) -> None:
        _export_chrome_trace(self._events, path)

    def export_stacks(self, path: str, metric: str = "self_cpu_time_total") -> None:
        if not self.with_stack:
            raise RuntimeError("export_stacks needs profile(with_stack=True)")
        _export_stacks(self._events, path, metric)
