"""The composite and small-op cases of the CPU element-math issue beside torch (and NumPy where it has the op).

    python benchmarks/bench_composites.py [--threads N]     (1 by default, for yaten and torch alike)

Composites on 1024 x 1024 float32 (softmax also on 4096 x 1024; indexing takes 512 rows), and the per-call cost of
small ops on 100 floats, where NumPy is the yardstick. Medians of repeated runs in one process (yaten's composites all
before torch's); the last line counts the composites at or below torch's time and the small ops at or below NumPy's.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import median_seconds, threads_from_argv  # noqa: E402

import yaten  # noqa: E402
import yaten.nn.functional as YF  # noqa: E402

try:
    import torch
    import torch.nn.functional as TF
except ImportError:  # the table then has yaten's times only
    torch = TF = None


def main() -> None:
    threads = threads_from_argv(yaten, torch)
    rng = np.random.default_rng(0)
    m = rng.standard_normal((1024, 1024)).astype(np.float32)
    wide = rng.standard_normal((4096, 1024)).astype(np.float32)
    w = rng.standard_normal(1024).astype(np.float32)
    b = rng.standard_normal(1024).astype(np.float32)
    idx = rng.integers(0, 1024, 512)
    target = rng.integers(0, 1024, 1024)
    small_a = rng.standard_normal(100).astype(np.float32)
    small_b = rng.standard_normal(100).astype(np.float32)

    def both(arr):
        return yaten.from_numpy(arr), (torch.from_numpy(arr) if torch else None)

    (ym, tm), (yw, tw), (yb, tb), (ywide, twide) = both(m), both(w), both(b), both(wide)
    (yi, ti), (yt, tt) = both(idx), both(target)
    (ysa, tsa), (ysb, tsb) = both(small_a), both(small_b)

    composites = [
        ("layer_norm(1024x1024, weight, bias)", lambda: YF.layer_norm(ym, (1024,), yw, yb),
         lambda: TF.layer_norm(tm, (1024,), tw, tb)),
        ("gelu", lambda: YF.gelu(ym), lambda: TF.gelu(tm)),
        ("gelu(approximate='tanh')", lambda: YF.gelu(ym, approximate="tanh"),
         lambda: TF.gelu(tm, approximate="tanh")),
        ("clamp(x, -0.5, 0.5)", lambda: yaten.clamp(ym, -0.5, 0.5), lambda: torch.clamp(tm, -0.5, 0.5)),
        ("index_select(x, 0, idx)", lambda: yaten.index_select(ym, 0, yi), lambda: torch.index_select(tm, 0, ti)),
        ("x[idx]", lambda: ym[yi], lambda: tm[ti]),
        ("cross_entropy(1024x1024)", lambda: YF.cross_entropy(ym, yt), lambda: TF.cross_entropy(tm, tt)),
        ("softmax(x, -1) 1024x1024", lambda: yaten.softmax(ym, -1), lambda: torch.softmax(tm, -1)),
        ("softmax(x, -1) 4096x1024", lambda: yaten.softmax(ywide, -1), lambda: torch.softmax(twide, -1)),
    ]
    small = [
        ("a + b, 100 floats", lambda: ysa + ysb, lambda: small_a + small_b, lambda: tsa + tsb),
        ("a * 2.0, 100 floats", lambda: ysa * 2.0, lambda: small_a * np.float32(2.0), lambda: tsa * 2.0),
        ("a[0]", lambda: ysa[0], lambda: small_a[0], lambda: tsa[0]),
        ("a.reshape(10, 10)", lambda: ysa.reshape(10, 10), lambda: small_a.reshape(10, 10),
         lambda: tsa.reshape(10, 10)),
    ]
    print(f"threads: yaten {yaten.get_num_threads()}, torch {torch.get_num_threads() if torch else '-'}")
    # Every yaten case first, then every torch case, each after a warm-up call: torch's OpenMP workers spin for a
    # while after each call, and on a machine with few cores they would take the core yaten's worker needs next.
    ours = [median_seconds(yfn) for _, yfn, _ in composites if yfn() is not None]
    theirs = [median_seconds(tfn) if tfn() is not None else float("nan") for _, _, tfn in composites] if torch else \
        [float("nan")] * len(composites)
    print(f"{'case':<38} {'yaten':>11} {'torch':>11} {'ratio':>6}")
    at_or_below = 0
    for (name, _, _), ys, ts in zip(composites, ours, theirs):
        at_or_below += ys <= ts
        print(f"{name:<38} {ys * 1e3:8.3f} ms {ts * 1e3:8.3f} ms {ys / ts:6.2f}")
    print(f"\n{'case':<38} {'yaten':>11} {'numpy':>11} {'ratio':>6} {'torch':>11}")
    small_ok = 0
    for name, yfn, nfn, tfn in small:
        ys, ns = median_seconds(yfn, repeat=31), median_seconds(nfn, repeat=31)
        ts = median_seconds(tfn, repeat=31) if torch else float("nan")
        small_ok += ys <= ns
        print(f"{name:<38} {ys * 1e9:8.0f} ns {ns * 1e9:8.0f} ns {ys / ns:6.2f} {ts * 1e9:8.0f} ns")
    print(f"\nsummary ({threads} thread{'s' if threads > 1 else ''}): composites at or below torch's time "
          f"{at_or_below}/{len(composites)}; small ops at or below NumPy's {small_ok}/{len(small)}")


if __name__ == "__main__":
    main()
