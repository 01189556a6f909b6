"""Every overload of ops.yaml beside torch (tests/torch_differ.py): the op fuzzer's calls, and for every overload
calls whose tensors are all 0-dim, all empty, or all non-contiguous, run through yaten and through torch; results,
inputs written in place and gradients must agree, and where one library raises so must the other (issue 21).
YATEN_DIFFER_CALLS=N runs more of the fuzzer's calls. Skipped without torch."""

from __future__ import annotations

import os

import pytest

import torch_differ

pytest.importorskip("torch")

CALLS = int(os.environ.get("YATEN_DIFFER_CALLS", 12000))
PER_KIND = 8  # calls of each overload with each kind of input


@pytest.fixture(scope="module")
def results():
    calls = torch_differ.calls_for(CALLS, seed=0, per_kind=PER_KIND)
    return torch_differ.run(calls, workers=2)


def test_every_overload_agrees_with_torch(results):
    found = torch_differ.findings(results)
    counts: dict[str, int] = {}
    for _, o in results:
        counts[o["outcome"]] = counts.get(o["outcome"], 0) + 1
    assert not found, f"{len(found)} disagreements with torch ({counts}):\n{torch_differ.report(found)}"
    # OPEN lists what this seeded run still finds: a pair that no longer occurs was fixed and must leave the list
    still = {(c.op.split("::")[1], o["outcome"]) for c, o in torch_differ.findings(results, open_pairs=frozenset())}
    assert not torch_differ.OPEN - still, f"fixed, delete from torch_differ.OPEN: {sorted(torch_differ.OPEN - still)}"
    # The comparison reached the ops: many calls ran in both libraries, many were refused by both.
    assert counts.get("both ran", 0) > len(results) // 4 and counts.get("both raise", 0) > len(results) // 5, counts


def test_every_overload_is_compared_on_0dim_empty_and_noncontiguous_inputs(results):
    covered = torch_differ.coverage(results)
    assert len(covered) > 400, len(covered)  # the overloads torch has that take tensors
    missing = {kind: sorted(op for op, kinds in covered.items() if kind not in kinds) for kind in torch_differ.KINDS}
    assert not any(missing.values()), missing


def test_the_comparison_catches_what_it_names():
    # The harness itself: a wrong value, a wrong dtype, a refusal on one side only and a gradient that differs
    # are each reported; the same exception on both sides is agreement.
    Call = torch_differ.op_fuzzer.Call
    calls = [Call("yaten::value", "function", "a0 = T('float32', (3,))\nr = a0 + (1 if yaten.__name__ == 'yaten' else 2)"),
             Call("yaten::dtype", "function", "a0 = T('float32', (3,))\n"
                                              "r = a0.to(yaten.float64 if yaten.__name__ == 'yaten' else yaten.float32)"),
             Call("yaten::refuse", "function", "a0 = T('float32', (3,))\n"
                                               "r = a0 if yaten.__name__ == 'yaten' else a0.sum(5)"),
             Call("yaten::grad", "function", "a0 = G(T('float64', (3,)))\n"
                                             "r = a0 * (2 if yaten.__name__ == 'yaten' else 3)\nbackward(r)"),
             Call("yaten::both", "function", "a0 = T('float32', (3,))\nr = a0.sum(7)")]
    for c in calls:
        c.random = False
    outcomes = {c.op: o["outcome"] for c, o in torch_differ.run(calls, workers=1)}
    assert outcomes == {"yaten::value": "values differ", "yaten::dtype": "values differ",
                        "yaten::refuse": "torch raises", "yaten::grad": "values differ",
                        "yaten::both": "both raise"}, outcomes
