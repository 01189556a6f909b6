"""yaten.profiler: events from the dispatcher, their nesting and sums, the table, the Chrome trace, stacks, memory,
record_function, schedules, backward, threads, and CUDA time where a GPU is present. No timing assertions: the
overhead is measured in benchmarks/bench_profiler.py."""

from __future__ import annotations

import gzip
import json
import threading
from pathlib import Path

import pytest

import yaten
from yaten.profiler import ProfilerAction, ProfilerActivity, profile, record_function, schedule

CPU = [ProfilerActivity.CPU]


def ops(prof, name=None):
    return [e for e in prof.events() if e.kind == "op" and (name is None or e.name == name)]


def test_one_event_per_op_call_nested_as_the_calls_nest():
    a, b = yaten.rand(8, 8), yaten.rand(8, 8)
    with profile(activities=CPU) as prof:
        yaten.matmul(a, b)
        a + b
        a + b
    names = [e.name for e in ops(prof)]
    assert names.count("yaten::add") == 2
    (mm,) = ops(prof, "yaten::mm")
    (matmul,) = ops(prof, "yaten::matmul")
    assert mm.cpu_parent is matmul and mm in matmul.cpu_children  # matmul -> mm
    assert matmul.start_us <= mm.start_us <= mm.end_us <= matmul.end_us
    add = ops(prof, "yaten::add")[0]
    assert add.overload == "Tensor" and add.dispatch_key == "CPU" and add.cpu_parent is None
    assert all(e.thread == threading.get_native_id() for e in ops(prof))
    # outside a profile nothing is recorded, and a new profile starts empty
    a + b
    with profile(activities=CPU) as again:
        pass
    assert not ops(again)


def test_self_times_add_up_and_totals_include_children():
    x = yaten.rand(64, 64, requires_grad=True)
    with profile(activities=CPU) as prof:
        for _ in range(3):
            (x @ x).relu().sum().backward()
    events = prof.events()
    for e in events:
        assert e.cpu_time_total >= e.self_cpu_time_total >= 0
        assert e.cpu_time_total + 1e-6 >= sum(c.cpu_time_total for c in e.cpu_children)
        assert e.self_cpu_time_total == pytest.approx(
            max(0.0, e.cpu_time_total - sum(c.cpu_time_total for c in e.cpu_children)))
    top = [e for e in events if e.cpu_parent is None]
    # every event's time is its own or inside one top-level event: the self times add up to the top-level totals
    assert sum(e.self_cpu_time_total for e in events) == pytest.approx(sum(e.cpu_time_total for e in top), rel=1e-6)
    averages = prof.key_averages()
    assert sum(a.self_cpu_time_total for a in averages) == pytest.approx(events.self_cpu_time_total, rel=1e-9)
    mm = next(a for a in averages if a.key == "yaten::mm")
    assert mm.count == len(ops(prof, "yaten::mm")) >= 3  # forward and backward products
    # backward nodes are events, and the ops they call nest under them
    backward = [e for e in events if e.kind == "backward"]
    assert {"MmBackward0", "ReluBackward0", "SumBackward0"} <= {e.name for e in backward}, {e.name for e in backward}
    node = next(e for e in backward if e.name == "MmBackward0")
    assert any(c.name == "yaten::mm" for c in node.cpu_children)


def test_table_has_torchs_columns_and_names_the_hot_ops():
    a = yaten.rand(256, 256)
    with profile(activities=CPU, record_shapes=True) as prof:
        for _ in range(5):
            a @ a
        (a + 1).sum()
    table = prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=20)
    header = table.splitlines()[1]
    for column in ("Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg", "# of Calls"):
        assert column in header
    assert "Self CUDA" not in header  # no GPU activity asked for
    rows = [line for line in table.splitlines()[3:] if line.startswith("yaten::")]
    assert rows[0].startswith("yaten::mm")  # sorted by self CPU time: the products dominate
    assert "Self CPU time total:" in table
    assert "Above 5% of self CPU time: yaten::mm" in table
    by_shape = prof.key_averages(group_by_input_shape=True).table(sort_by="count", row_limit=5)
    assert "Input Shapes" in by_shape and "[[256, 256], [256, 256]]" in by_shape
    assert len(prof.key_averages().table(row_limit=2).splitlines()) < len(table.splitlines())
    with pytest.raises(ValueError, match="sort_by"):
        prof.key_averages().table(sort_by="nonsense")
    with pytest.raises(RuntimeError, match="record_shapes"):
        profile(activities=CPU).key_averages(group_by_input_shape=True)


def test_record_shapes_and_flops_and_bytes():
    a, b = yaten.rand(32, 16), yaten.rand(16, 8)
    with profile(activities=CPU, record_shapes=True, with_flops=True) as prof:
        yaten.mm(a, b)
        yaten.add(a, a, alpha=2)
        yaten.cat([a, a])
    (mm,) = ops(prof, "yaten::mm")
    assert mm.input_shapes == [[32, 16], [16, 8]] and mm.input_types == ["float32", "float32"]
    assert mm.flops == 2 * 32 * 16 * 8
    (add,) = ops(prof, "yaten::add")
    assert add.input_shapes == [[32, 16], [32, 16], []] and add.input_types == ["float32", "float32", "Scalar"]
    assert add.bytes == 3 * 32 * 16 * 4  # two inputs read once, the result written once
    (cat,) = ops(prof, "yaten::cat")
    assert cat.input_shapes[0] == [[32, 16], [32, 16]] and cat.input_types[0] == "TensorList"
    table = prof.key_averages().table()
    assert "GFLOP/s" in table and "GB/s" in table


def test_record_function_ranges_and_decorator():
    @record_function("decorated")
    def work(t):
        return t * 2

    x = yaten.ones(3)
    with profile(activities=CPU) as prof:
        with record_function("outer"):
            with record_function("inner"):
                x + x
            work(x)
    events = {e.name: e for e in prof.events()}
    outer, inner, decorated = events["outer"], events["inner"], events["decorated"]
    assert outer.kind == inner.kind == "user_annotation"
    assert inner.cpu_parent is outer and decorated.cpu_parent is outer
    assert events["yaten::add"].cpu_parent is inner and events["yaten::mul"].cpu_parent is decorated
    with record_function("outside a profile"):  # no profile: nothing to open, nothing to close
        x + x
    assert work(x).tolist() == [2.0, 2.0, 2.0]


def test_with_stack_names_the_users_line_and_export_stacks(tmp_path):
    x = yaten.ones(4)
    with profile(activities=CPU, with_stack=True) as prof:
        y = x.exp()  # the line the stack names
    (exp,) = ops(prof, "yaten::exp")
    here = Path(__file__).name
    assert exp.stack and here in exp.stack[0] and "test_with_stack_names_the_users_line" in exp.stack[0]
    assert "y = x.exp()" in Path(__file__).read_text().splitlines()[int(exp.stack[0].split(":")[1].split("(")[0]) - 1]
    path = tmp_path / "stacks.txt"
    prof.export_stacks(str(path))
    lines = path.read_text().splitlines()
    assert lines and all(line.rsplit(" ", 1)[1].isdigit() for line in lines)
    assert any(line.split(" ")[0].endswith("yaten::exp") and here in line for line in lines)
    grouped = prof.key_averages(group_by_stack_n=1).table()
    assert "Source Location" in grouped and here in grouped
    assert y.sum().item() > 0


def test_profile_memory_counts_what_each_op_allocates():
    x = yaten.ones(1000)
    with profile(activities=CPU, profile_memory=True) as prof:
        y = x * 2  # 4000 bytes
        del y  # freed outside any op: a [memory] event
        z = yaten.zeros(250, dtype=yaten.float64)  # 2000 bytes
    (mul,) = ops(prof, "yaten::mul")
    # the result, less the 2 that mul converts to float32 (a child's 4 bytes, freed in mul itself)
    assert mul.cpu_memory_usage == 4000 and mul.self_cpu_memory_usage == 4000 - 4
    freed = [e for e in prof.events() if e.kind == "memory"]
    assert sum(e.self_cpu_memory_usage for e in freed) == -4000
    zeros = ops(prof, "yaten::zeros")[0]
    assert zeros.cpu_memory_usage == 2000  # its children's allocations count in its total
    table = prof.key_averages().table()
    assert "CPU Mem" in table and "Self CPU Mem" in table
    assert z.numel() == 250


def check_chrome_trace(document):
    """The Chrome Trace Event format's rules that viewers rely on, checked by hand and (where installed) against a
    JSON schema."""
    assert isinstance(document["traceEvents"], list)
    schema = {
        "type": "object",
        "required": ["traceEvents"],
        "properties": {"traceEvents": {"type": "array", "items": {
            "type": "object",
            "required": ["ph", "name", "pid"],
            "properties": {
                "ph": {"enum": ["X", "M", "i", "B", "E", "C"]},
                "name": {"type": "string"},
                "pid": {"type": "integer"},
                "tid": {"type": "integer"},
                "ts": {"type": "number", "minimum": 0},
                "dur": {"type": "number", "minimum": 0},
                "args": {"type": "object"},
            },
            "allOf": [{"if": {"properties": {"ph": {"const": "X"}}}, "then": {"required": ["ts", "dur", "tid"]}}],
        }}},
    }
    try:
        import jsonschema
    except ImportError:
        jsonschema = None
    if jsonschema is not None:
        jsonschema.validate(document, schema)
    spans = {}
    for e in document["traceEvents"]:
        assert e["ph"] in ("X", "M", "i")
        if e["ph"] == "X":
            assert isinstance(e["ts"], (int, float)) and isinstance(e["dur"], (int, float)) and e["dur"] >= 0
            spans.setdefault((e["pid"], e["tid"]), []).append((e["ts"], e["ts"] + e["dur"]))
    for track in spans.values():  # complete events on one track nest or follow each other, never overlap
        stack = []
        for start, end in sorted(track, key=lambda s: (s[0], -s[1])):
            while stack and stack[-1] <= start + 1e-3:
                stack.pop()
            assert not stack or end <= stack[-1] + 1e-3, "overlapping events on one thread"
            stack.append(end)
    return spans


def test_chrome_trace_is_valid_and_nested(tmp_path):
    x = yaten.rand(32, 32, requires_grad=True)
    with profile(activities=CPU, record_shapes=True, with_stack=True) as prof:
        with record_function("forward"):
            loss = (x @ x).tanh().sum()
        loss.backward()
    for name in ("trace.json", "trace.json.gz"):
        path = tmp_path / name
        prof.export_chrome_trace(str(path))
        raw = gzip.open(path).read() if name.endswith(".gz") else path.read_bytes()
        document = json.loads(raw)
        spans = check_chrome_trace(document)
        assert spans
        complete = [e for e in document["traceEvents"] if e["ph"] == "X"]
        assert {"forward", "yaten::mm", "yaten::tanh", "TanhBackward0"} <= {e["name"] for e in complete}
        mm = next(e for e in complete if e["name"] == "yaten::mm")
        assert mm["cat"] == "cpu_op" and mm["args"]["Input Dims"] == [[32, 32], [32, 32]]
        assert mm["args"]["dispatch key"] in ("CPU", "Autograd")
        event = next(e for e in prof.events() if e.name == "yaten::mm")
        assert mm["ts"] == pytest.approx(event.start_us, abs=1e-3) and mm["dur"] == pytest.approx(
            event.cpu_time_total, abs=2e-3)


def test_schedule_steps_and_on_trace_ready():
    assert [schedule(wait=1, warmup=1, active=2, repeat=1)(s) for s in range(5)] == [
        ProfilerAction.NONE, ProfilerAction.WARMUP, ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE,
        ProfilerAction.NONE]
    assert schedule(wait=0, warmup=0, active=1, skip_first=2)(1) == ProfilerAction.NONE
    with pytest.raises(ValueError):
        schedule(wait=0, warmup=0, active=0)
    saved = []
    x = yaten.ones(2)
    with profile(activities=CPU, schedule=schedule(wait=1, warmup=1, active=2, repeat=2),
                 on_trace_ready=lambda p: saved.append(
                     sorted(e.name for e in p.events() if e.kind == "user_annotation"))) as prof:
        for step in range(10):
            x.mul(float(step))
            prof.step()
    # cycles of wait, warm-up, two recorded steps: steps 2-3 and 6-7 recorded and saved, each a ProfilerStep# range
    assert saved == [["ProfilerStep#2", "ProfilerStep#3"], ["ProfilerStep#6", "ProfilerStep#7"]]
    assert not yaten._C._profiler_is_running()


def test_events_from_other_threads_land_on_their_own_track():
    x = yaten.ones(16)
    ids = []

    def work():
        ids.append(threading.get_native_id())
        for _ in range(3):
            x.sin()

    with profile(activities=CPU) as prof:
        threads = [threading.Thread(target=work) for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        x.cos()
    sins = ops(prof, "yaten::sin")
    assert len(sins) == 6 and {e.thread for e in sins} == set(ids) and len(set(ids)) == 2
    assert ops(prof, "yaten::cos")[0].thread == threading.get_native_id()


def test_profiler_errors_and_one_profile_at_a_time():
    with profile(activities=CPU):
        with pytest.raises(RuntimeError, match="already running"):
            yaten._C._profiler_start(True, False, False, False, False)
    with pytest.raises(RuntimeError, match="no profile"):
        yaten._C._profiler_stop()
    with pytest.raises(TypeError, match="ProfilerActivity"):
        profile(activities=["CPU"])
    if not yaten.cuda.is_available():
        with pytest.raises(RuntimeError, match="no CUDA GPU"):
            profile(activities=[ProfilerActivity.CUDA])
    # an op that fails inside a profile leaves the events balanced
    with profile(activities=CPU) as prof:
        with pytest.raises(RuntimeError):
            yaten.ones(2, 3) @ yaten.ones(2, 3)
        yaten.ones(2).neg()
    neg = ops(prof, "yaten::neg")[0]
    assert neg.cpu_parent is None


def test_timer_measures_and_synchronizes():
    from yaten.utils.benchmark import Timer

    x = yaten.rand(1000)
    m = Timer("x.exp()", globals={"x": x}).blocked_autorange(min_run_time=0.05)
    assert m.median > 0 and len(m.times) >= 3 and m.number_per_run >= 1
    assert "x.exp()" in repr(m)
    assert Timer("x + 1", globals={"x": x}).timeit(10).mean > 0
    with pytest.raises(ValueError):
        Timer("x").timeit(0)


@pytest.mark.skipif(not yaten.cuda.is_available(), reason="no CUDA GPU")
def test_cuda_time_from_cuda_events(tmp_path):
    a = yaten.rand(1024, 1024, device="cuda")
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True) as prof:
        for _ in range(3):
            (a @ a).relu()
    mms = ops(prof, "yaten::mm")
    assert len(mms) == 3 and all(e.dispatch_key == "CUDA" and e.cuda_time_total > 0 for e in mms)
    assert all(e.gpu_start_us is not None and e.device_index == 0 for e in mms)
    matmul = mms[0].cpu_parent
    assert matmul.name == "yaten::matmul" and matmul.cuda_time_total >= mms[0].cuda_time_total
    table = prof.key_averages().table(sort_by="self_cuda_time_total")
    assert "Self CUDA" in table and "CUDA total" in table and "Self CUDA time total" in table
    path = tmp_path / "cuda.json"
    prof.export_chrome_trace(str(path))
    document = json.loads(path.read_text())
    check_chrome_trace(document)
    assert any(e.get("cat") == "gpu_op" and e["name"] == "yaten::mm" for e in document["traceEvents"])
