"""The dispatcher's own cost, and what a kernel registered from Python costs per call.

    python benchmarks/bench_dispatch.py
"""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import yaten  # noqa: E402
from common import median_seconds  # noqa: E402


def dispatcher_cost(repeats: int = 21, iterations: int = 200_000) -> None:
    through, direct = [], []
    for _ in range(repeats):
        t, d = yaten._C._benchmark_dispatcher(iterations)
        through.append(t)
        direct.append(d)
    t, d = statistics.median(through), statistics.median(direct)
    diffs = sorted(a - b for a, b in zip(through, direct))
    print("C++ yaten::add on 1-element float32 tensors (median of 21 x 200k calls, GIL released)")
    print(f"  through the dispatcher  {t:8.1f} ns")
    print(f"  kernel called directly  {d:8.1f} ns")
    print(f"  dispatcher's own cost   {statistics.median(diffs):8.1f} ns (median of paired differences; "
          f"quartiles {diffs[len(diffs) // 4]:.1f} .. {diffs[3 * len(diffs) // 4]:.1f})")


def python_kernel_cost() -> None:
    x = yaten.ones(100)
    results = {"yaten.add (built-in CPU kernel)": median_seconds(lambda: yaten.add(x, x))}
    with yaten.library.impl("yaten::add.Tensor", "CPU") as registration:
        registration(lambda a, b, alpha: a)  # trivial: measures the call path, not the work
        results["yaten.add, Python kernel on CPU"] = median_seconds(lambda: yaten.add(x, x))
    with yaten.library.impl("yaten::add.Tensor", "Python") as registration:
        registration(lambda a, b, alpha: yaten.add(a, b, alpha=alpha))
        results["yaten.add, Python-key wrapper + CPU"] = median_seconds(lambda: yaten.add(x, x))
    results["yaten.ops.yaten.add.Tensor (by name)"] = median_seconds(lambda: yaten.ops.yaten.add.Tensor(x, x))
    yaten.library.define("bench::ident(Tensor x) -> Tensor")
    with yaten.library.impl("bench::ident", "CPU") as registration:
        registration(lambda a: a)
        results["yaten.ops.bench.ident (Python-defined)"] = median_seconds(lambda: yaten.ops.bench.ident(x))
    print("Per call from Python, 100 float32 elements (median)")
    base = results["yaten.add (built-in CPU kernel)"]
    for name, seconds in results.items():
        print(f"  {name:<42} {seconds * 1e6:8.2f} us  {seconds / base:5.2f}x")


if __name__ == "__main__":
    dispatcher_cost()
    python_kernel_cost()
