"""`a + b` on float32 from Python: yaten beside NumPy and torch (1 thread), as per-call medians and ratios.

    python benchmarks/bench_add.py
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402

import yaten  # noqa: E402
from common import median_seconds, report  # noqa: E402

try:
    import torch

    torch.set_num_threads(1)
except ImportError:  # the comparison is then NumPy only
    torch = None


def bench(n: int) -> None:
    rng = np.random.default_rng(0)
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    ya, yb = yaten.tensor(x.tolist(), dtype=yaten.float32), yaten.tensor(y.tolist(), dtype=yaten.float32)
    assert np.allclose((ya + yb).numpy(), x + y)
    results = {"yaten": median_seconds(lambda: ya + yb), "numpy": median_seconds(lambda: x + y)}
    if torch is not None:
        ta, tb = torch.from_numpy(x), torch.from_numpy(y)
        results["torch"] = median_seconds(lambda: ta + tb)
    report(f"a + b, {n} float32 elements (median per call)", results)
    scalar = {"yaten": median_seconds(lambda: ya + 1.5), "numpy": median_seconds(lambda: x + np.float32(1.5))}
    if torch is not None:
        scalar["torch"] = median_seconds(lambda: ta + 1.5)
    report(f"a + 1.5, {n} float32 elements (median per call)", scalar)


if __name__ == "__main__":
    for n in (100, 1_000_000):
        bench(n)
