"""The speed cases of the CPU kernels issue, yaten beside NumPy and torch (1 thread), as medians and ratios.

    python benchmarks/bench_kernels.py [--threads N]     (1 by default, for yaten and torch alike)

"stream" is the time one pass of the same bytes takes with NumPy writing into a preallocated output
(np.add(a, b, out=c)): the bandwidth floor that the out-of-place targets are stated against.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402

import yaten  # noqa: E402
from common import median_seconds, threads_from_argv  # noqa: E402

try:
    import torch
except ImportError:
    torch = None


def row(title: str, results: dict[str, float]) -> None:
    base = results["yaten"]
    cells = "  ".join(f"{k} {v * 1e3:8.3f} ms ({v / base:4.2f}x)" for k, v in results.items())
    print(f"{title:<34} {cells}")


def case(title: str, y, n, t=None, repeat: int = 7) -> None:
    results = {"yaten": median_seconds(y, repeat=repeat, min_time=0.2), "numpy": median_seconds(n, repeat=repeat,
                                                                                               min_time=0.2)}
    if torch is not None and t is not None:
        results["torch"] = median_seconds(t, repeat=repeat, min_time=0.2)
    row(title, results)


def main() -> None:
    threads_from_argv(yaten, torch)
    print(f"threads: yaten {yaten.get_num_threads()}, torch {torch.get_num_threads() if torch else '-'} "
          "(NumPy's ufuncs are single-threaded)")
    rng = np.random.default_rng(0)
    n = 10_000_000
    x, z = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    out = np.empty_like(x)
    yx, yz = yaten.from_numpy(x), yaten.from_numpy(z)
    tx, tz = (torch.from_numpy(x), torch.from_numpy(z)) if torch else (None, None)
    stream = median_seconds(lambda: np.add(x, z, out=out), min_time=0.2)
    print(f"stream (np.add into a preallocated 1e7 float32 output): {stream * 1e3:.3f} ms "
          f"= {3 * 4 * n / stream / 1e9:.1f} GB/s")
    case("a + b, 1e7 float32", lambda: yx + yz, lambda: x + z, (lambda: tx + tz) if torch else None)
    yout = yaten.empty(n)
    tout = torch.empty(n) if torch else None
    case("add(out=), 1e7 float32", lambda: yaten.add(yx, yz, out=yout), lambda: np.add(x, z, out=out),
         (lambda: torch.add(tx, tz, out=tout)) if torch else None)
    case("sum(), 1e7 float32", lambda: yx.sum(), lambda: x.sum(), (lambda: tx.sum()) if torch else None)
    m = rng.standard_normal((4000, 4000)).astype(np.float32)
    ym, tm = yaten.from_numpy(m), (torch.from_numpy(m) if torch else None)
    case("sum(dim=0), 4000x4000", lambda: ym.sum(0), lambda: m.sum(0), (lambda: tm.sum(0)) if torch else None)
    case("amax(dim=1), 4000x4000", lambda: ym.amax(1), lambda: m.max(1), (lambda: tm.amax(1)) if torch else None)
    case("max(dim=1) with indices, 4000x4000", lambda: ym.max(1), lambda: (m.max(1), m.argmax(1)),
         (lambda: tm.max(1)) if torch else None)
    s = rng.standard_normal((2000, 2000)).astype(np.float32)
    ys, ts = yaten.from_numpy(s), (torch.from_numpy(s) if torch else None)
    case("a.T + b, 2000x2000", lambda: ys.T + ys, lambda: s.T + s, (lambda: ts.T + ts) if torch else None)
    row_vec = rng.standard_normal(1000).astype(np.float32)
    sq = rng.standard_normal((1000, 1000)).astype(np.float32)
    ysq, yrow = yaten.from_numpy(sq), yaten.from_numpy(row_vec)
    case("broadcast add 1000x1000 + 1000", lambda: ysq + yrow, lambda: sq + row_vec,
         (lambda: torch.from_numpy(sq) + torch.from_numpy(row_vec)) if torch else None)
    for name in ("exp", "tanh", "sigmoid"):
        np_fn = {"exp": np.exp, "tanh": np.tanh, "sigmoid": lambda a: 1 / (1 + np.exp(-a))}[name]
        case(f"{name}, 1e7 float32", lambda: getattr(yaten, name)(yx), lambda: np_fn(x),
             (lambda: getattr(torch, name)(tx)) if torch else None, repeat=5)
    # NumPy has no erf, so gelu's NumPy column is exp, for scale.
    case("gelu, 1e7 float32", lambda: yaten.nn.functional.gelu(yx), lambda: np.exp(x),
         (lambda: torch.nn.functional.gelu(tx)) if torch else None, repeat=5)


if __name__ == "__main__":
    main()
