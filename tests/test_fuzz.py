"""The op fuzzer (tests/op_fuzzer.py) over every overload of ops.yaml: no call may crash, hang, raise anything but
TypeError/ValueError/IndexError/RuntimeError/NotImplementedError, or return a tensor whose shape, numel, strides and
storage disagree. Hypothesis draws the calls (derandomized, so a CI run is repeatable); YATEN_FUZZ_CALLS=N runs
more than the default 20,000, YATEN_FUZZ_SEED=S another set of them."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

import op_fuzzer

CALLS = int(os.environ.get("YATEN_FUZZ_CALLS", 20000))
SEED = int(os.environ["YATEN_FUZZ_SEED"]) if os.environ.get("YATEN_FUZZ_SEED") else None
BATCH = 500  # calls drawn per Hypothesis example


HOSTILE_CALLS = int(os.environ.get("YATEN_FUZZ_HOSTILE_CALLS", 6000))


def draw_calls(count: int, hostile: int = 2) -> list[op_fuzzer.Call]:
    """`count` calls (BATCH per Hypothesis example) of overloads Hypothesis picks; `hostile` percent of their
    tensors, numbers and lists from the hostile classes (foreign memory, misbehaving objects, resource limits)."""
    import yaten
    from codegen import parse

    ops = parse.load(op_fuzzer.ROOT / "ops.yaml").ops
    faces = [op_fuzzer.faces_of(op, yaten) for op in ops]
    calls: list[op_fuzzer.Call] = []

    @settings(max_examples=(count + BATCH - 1) // BATCH, derandomize=SEED is None, database=None, deadline=None,
              phases=[Phase.generate], suppress_health_check=list(HealthCheck))
    @given(st.data())
    def batch(data):
        # A generator Hypothesis seeds: drawing each of ~15 choices per call through data.draw costs ~50x more
        rnd = data.draw(st.randoms(use_true_random=True))
        writer = op_fuzzer.CallWriter(rnd.randint, rnd.choice, yaten.cuda.is_available(), hostile)
        for _ in range(BATCH):
            i = rnd.randrange(len(ops))
            calls.append(writer.call(ops[i], faces[i]))

    (seed(SEED)(batch) if SEED is not None else batch)()
    return calls[:count]


def test_every_op_survives_generated_calls():
    calls = draw_calls(CALLS)
    assert len(calls) == CALLS
    if CALLS >= 20000:  # every overload is called, on average ~40 times
        from codegen import parse

        names = {f"{op.namespace}::{op.schema.full_name}" for op in parse.load(op_fuzzer.ROOT / "ops.yaml").ops}
        assert names == {call.op for call in calls}, sorted(names - {call.op for call in calls})[:10]
    findings, counts = op_fuzzer.run_calls(calls, workers=2)
    assert not findings, f"{len(findings)} findings in {CALLS} calls ({counts}):\n{op_fuzzer.report(findings)}"
    # The calls reached the kernels: many ran to a result, many were refused with a Python exception.
    assert counts.get("result", 0) > CALLS // 5 and counts.get("error", 0) > CALLS // 5, counts


def test_every_op_survives_foreign_memory_hostile_objects_and_resource_limits():
    # The reliability issue's crash classes as input classes of their own: each call draws most of its tensors,
    # numbers and lists from them, and many run under a thread count or an address-space limit.
    calls = draw_calls(HOSTILE_CALLS, hostile=40)
    text = "\n".join(call.code for call in calls)
    # every class is drawn, often: each in over 1.25% of the calls (HL(, a hostile list, only where an op takes a
    # list, 1.8% of the calls with this session's ops)
    for made_by in ("F(", "Hostile(", "HL(", "HostileSeq(", "threads(", "tight("):
        assert text.count(made_by) > HOSTILE_CALLS // 80, made_by
    findings, counts = op_fuzzer.run_calls(calls, workers=2)
    assert not findings, f"{len(findings)} findings in {len(calls)} calls ({counts}):\n{op_fuzzer.report(findings)}"
    assert counts.get("result", 0) > len(calls) // 10, counts


def test_the_hostile_classes_catch_what_they_are_for():
    # Each class's check fires: a write that reached read-only memory, an exception other than the allowed ones,
    # a pool left at the wrong size; and the allowed outcomes (a hostile object's own error, a refused thread count,
    # MemoryError under a tight limit) are not findings.
    calls = [
        op_fuzzer.Call("source changed", "ops", "import ctypes\n"  # a write no check stopped
                                                "a0 = F('float64', (4,), 'numpy-readonly')\n"
                                                "ctypes.memmove(a0.data_ptr(), (ctypes.c_double * 1)(7.0), 8)"),
        op_fuzzer.Call("hostile raises", "ops", "r = yaten.zeros(HL([2, 3], 1, 'raise'))"),
        op_fuzzer.Call("hostile clears", "ops", "r = yaten.zeros(HL([2, 3, 4], 1, 'clear'))"),
        op_fuzzer.Call("lying length", "ops", "r = yaten.zeros(HostileSeq([2, 3], 'long'))"),
        op_fuzzer.Call("refused threads", "ops", "threads(10**6)\nr = T('float32', (2, 3)).sum()"),
        op_fuzzer.Call("tight memory", "ops", "tight(1)\nr = [bytearray(1 << 20) for _ in range(64)]"),
        op_fuzzer.Call("bad pool", "ops", "real = yaten.set_num_threads\n"  # a pool that ignores the request
                                          "yaten.set_num_threads = lambda n: None\n"
                                          "try:\n    threads(2)\nfinally:\n    yaten.set_num_threads = real"),
    ]
    findings, counts = op_fuzzer.run_calls(calls, workers=1)
    outcomes = {call.op: outcome["outcome"] for call, outcome in findings}
    assert outcomes == {"source changed": "bad tensor", "bad pool": "bad exception"}, op_fuzzer.report(findings)
    assert counts["error"] + counts.get("result", 0) == 5, counts


def test_the_fuzzer_reports_crashes_hangs_and_bad_exceptions():
    # The harness itself: each kind of finding is caught and reported with its reproduction.
    calls = [op_fuzzer.Call("crash", "ops", "import ctypes\nr = ctypes.string_at(0)"),
             op_fuzzer.Call("hang", "ops", "import time\ntime.sleep(100)"),
             op_fuzzer.Call("system", "ops", "raise SystemError('x')"),
             op_fuzzer.Call("overflow", "ops", "r = yaten.ones(3).sum(2**70)"),
             op_fuzzer.Call("fine", "ops", "a0 = T('float32', (2, 3), 'transposed')\nr = a0 + 1")]
    findings, counts = op_fuzzer.run_calls(calls, workers=1, timeout=2)
    outcomes = {call.op: outcome["outcome"] for call, outcome in findings}
    assert outcomes == {"crash": "crash", "hang": "hang", "system": "bad exception"}, outcomes
    assert counts == {"crash": 1, "hang": 1, "bad exception": 1, "error": 1, "result": 1}
    assert "ctypes.string_at(0)" in op_fuzzer.report(findings)


def test_the_tensor_helper_makes_the_layouts_it_names():
    calls = [op_fuzzer.Call(layout, "ops", f"a0 = T('float32', (2, 3), {layout!r})\n"
                                           f"assert a0.shape == (2, 3) and a0.tolist() == [[-3, -2, -1], [0, 1, 2]] "
                                           f"or {layout!r} == 'expanded'\n"
                                           f"assert a0.is_contiguous() == ({layout!r} == 'contiguous')")
             for layout in op_fuzzer.LAYOUTS]
    findings, counts = op_fuzzer.run_calls(calls, workers=1)
    assert not findings and counts == {"result": len(calls)}, op_fuzzer.report(findings)
