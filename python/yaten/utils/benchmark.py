"""yaten.utils.benchmark: timing that respects CUDA's asynchrony, with torch.utils.benchmark's names.

CUDA work is queued, not done, when a call returns: a clock read without a synchronize times the queueing. Timer
synchronizes every CUDA device before it starts a clock and before it reads one, so that a
measurement covers the work itself::

    from yaten.utils.benchmark import Timer
    t = Timer("a @ b", globals={"a": a, "b": b})
    print(t.blocked_autorange(min_run_time=0.5))     # median per call, in a block of repeated runs
    print(t.timeit(100).mean)
"""

from __future__ import annotations

import statistics
import timeit
from typing import Any, Callable


def synchronize() -> None:
    """Waits for every CUDA device (nothing when there is none)."""
    from .. import cuda

    if cuda.is_available():
        for d in range(cuda.device_count()):
            cuda.synchronize(d)


class Measurement:
    """Per-call times (seconds) of several blocks of `number_per_run` calls each."""

    def __init__(self, number_per_run: int, raw_times: list[float], stmt: str, label: str | None = None) -> None:
        self.number_per_run = number_per_run
        self.raw_times = raw_times  # seconds per block
        self.stmt = stmt
        self.label = label

    @property
    def times(self) -> list[float]:
        return [t / self.number_per_run for t in self.raw_times]

    @property
    def mean(self) -> float:
        return statistics.fmean(self.times)

    @property
    def median(self) -> float:
        return statistics.median(self.times)

    @property
    def iqr(self) -> float:
        if len(self.times) < 2:
            return 0.0
        q = statistics.quantiles(self.times, n=4)
        return q[2] - q[0]

    def __repr__(self) -> str:
        def fmt(s: float) -> str:
            return f"{s * 1e6:.2f} us" if s < 1e-3 else f"{s * 1e3:.3f} ms" if s < 1 else f"{s:.3f} s"

        head = f"{self.label}: " if self.label else ""
        return (f"<Measurement {head}{self.stmt}: median {fmt(self.median)}, IQR {fmt(self.iqr)}, "
                f"{len(self.raw_times)} blocks of {self.number_per_run}>")


class Timer:
    """Times `stmt` after running `setup` once, in the namespace `globals`."""

    def __init__(self, stmt: str | Callable[[], Any] = "pass", setup: str | Callable[[], Any] = "pass",
                 globals: dict[str, Any] | None = None, label: str | None = None) -> None:
        self.stmt = stmt if isinstance(stmt, str) else getattr(stmt, "__name__", "stmt")
        self.label = label
        self._timer = timeit.Timer(stmt, setup, globals=dict(globals or {}))

    def _block(self, number: int) -> float:
        synchronize()
        elapsed = self._timer.timeit(number) if number > 0 else 0.0  # the clock is read before and after
        start_sync = timeit.default_timer()
        synchronize()
        return elapsed + (timeit.default_timer() - start_sync)  # the queued work's tail belongs to the block

    def timeit(self, number: int = 1000000) -> Measurement:
        """One block of `number` calls (after one warm-up call)."""
        if number < 1:
            raise ValueError(f"timeit: number must be >= 1, got {number}")
        self._block(1)
        return Measurement(number, [self._block(number)], self.stmt, self.label)

    def repeat(self, repeat: int = 5, number: int = 1000) -> list[float]:
        return [self._block(number) for _ in range(repeat)]

    def blocked_autorange(self, min_run_time: float = 0.2, callback: Callable[[int, float], None] | None = None
                          ) -> Measurement:
        """Finds a block size that runs at least 0.02 s, then runs blocks of it for at least `min_run_time`."""
        number = 1
        while True:
            t = self._block(number)
            if t >= 0.02 or number >= 1 << 30:
                break
            number *= 10 if t < 0.002 else 2
        times: list[float] = []
        total = 0.0
        while total < min_run_time or len(times) < 3:
            t = self._block(number)
            if callback is not None:
                callback(number, t)
            times.append(t)
            total += t
        return Measurement(number, times, self.stmt, self.label)
