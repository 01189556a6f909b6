"""Timing helpers: medians of repeated timeit runs, in one process, so ratios compare like with like."""

from __future__ import annotations

import statistics
import time
import timeit
from typing import Callable


def median_seconds(fn: Callable[[], object], repeat: int = 15, min_time: float = 0.05) -> float:
    """Median per-call time of `fn`, with the loop count chosen so each repeat runs at least `min_time`."""
    number = _loop_count(fn, min_time)
    times = timeit.repeat(fn, number=number, repeat=repeat)
    return statistics.median(times) / number


def _loop_count(fn: Callable[[], object], min_time: float) -> int:
    number = 1
    while True:
        elapsed = timeit.timeit(fn, number=number)
        if elapsed >= min_time:
            return number
        number *= 2 if elapsed == 0 else max(2, int(min_time / elapsed * 1.2))


def interleaved_median_seconds(fns: list[Callable[[], object]], repeat: int = 15,
                               min_time: float = 0.02) -> list[float]:
    """The median per-call time of each of `fns`, their repeats taken in turn (a b c a b c ...), so that a change in
    the machine's speed during the measurement (another tenant, the clock) falls on all of them alike, where timing
    one after the other's repeats charges it to whichever ran then. Each loop runs at least `min_time`."""
    numbers = [_loop_count(fn, min_time) for fn in fns]
    times: list[list[float]] = [[] for _ in fns]
    for _ in range(repeat):
        for fn, number, out in zip(fns, numbers, times):
            out.append(timeit.timeit(fn, number=number) / number)
    return [statistics.median(t) for t in times]


def median_of_calls(fn: Callable[[], object], repeat: int, warmup: int = 1) -> float:
    """Median time of `repeat` single calls of `fn` after `warmup` untimed ones: for calls long enough to time one
    at a time (collectives, whole steps, the wide scan's cases)."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def report(title: str, results: dict[str, float], baseline: str = "yaten") -> None:
    print(title)
    base = results[baseline]
    for name, seconds in results.items():
        print(f"  {name:<8} {seconds * 1e6:10.3f} us   {seconds / base:6.2f}x of {baseline}")


def threads_from_argv(yaten, torch) -> int:
    """`--threads N` (1 by default) for yaten and torch alike, so their ratios compare like with like."""
    import sys

    threads = int(sys.argv[sys.argv.index("--threads") + 1]) if "--threads" in sys.argv else 1
    yaten.set_num_threads(threads)
    if torch is not None:
        torch.set_num_threads(threads)
    return threads
