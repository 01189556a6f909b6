"""What the profiler costs per op call: off (the hook's one branch), and on, beside torch.profiler in the same
process. `a + b` on 100 floats, the call whose fixed cost dominates; and the C++ dispatcher's own cost with the hook
off (the GIL released, no Python), from bench_dispatch's loop.

    python benchmarks/bench_profiler.py
"""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import yaten  # noqa: E402
from common import median_seconds  # noqa: E402
from yaten.profiler import ProfilerActivity, profile  # noqa: E402

try:
    import torch
except ImportError:  # torch is optional here
    torch = None


def per_call(fn, calls: int = 1000) -> float:
    """Median seconds per call of `fn` run `calls` times in a row (so a profile holds `calls` events per run)."""

    def block():
        for _ in range(calls):
            fn()

    return median_seconds(block, repeat=11) / calls


def main() -> None:
    a, b = yaten.rand(100), yaten.rand(100)
    rows = {}
    rows["yaten a + b, profiler off"] = per_call(lambda: a + b)
    for label, options in (("on (CPU)", {}), ("on, record_shapes", {"record_shapes": True}),
                           ("on, with_stack", {"with_stack": True})):
        with profile(activities=[ProfilerActivity.CPU], **options):
            rows[f"yaten a + b, profiler {label}"] = per_call(lambda: a + b)
    if torch is not None:
        ta, tb = torch.rand(100), torch.rand(100)
        rows["torch a + b, profiler off"] = per_call(lambda: ta + tb)
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]):
            rows["torch a + b, profiler on (CPU)"] = per_call(lambda: ta + tb)
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU], record_shapes=True):
            rows["torch a + b, profiler on, record_shapes"] = per_call(lambda: ta + tb)
    base = rows["yaten a + b, profiler off"]
    print("a + b on 100 float32 (median per call, 1000 calls per block)")
    for name, seconds in rows.items():
        extra = f"   +{(seconds - base) * 1e9:7.0f} ns over yaten off" if name.startswith("yaten") else ""
        print(f"  {name:<42} {seconds * 1e9:8.0f} ns{extra}")
    through, direct = [], []
    for _ in range(21):
        t, d = yaten._C._benchmark_dispatcher(200_000)
        through.append(t)
        direct.append(d)
    print(f"C++ dispatcher's own cost, hook off: {statistics.median(through) - statistics.median(direct):.1f} ns "
          f"(yaten::add on 1 element through the dispatcher {statistics.median(through):.1f} ns, kernel called "
          f"directly {statistics.median(direct):.1f} ns)")


if __name__ == "__main__":
    main()
