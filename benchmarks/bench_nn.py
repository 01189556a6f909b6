"""The CPU speed cases of the Core ATen issue, yaten beside torch in one process: conv2d of a ResNet block layer
(forward, and forward + backward), max_pool2d, avg_pool2d, adaptive_avg_pool2d, batch_norm, group_norm, interpolate
(nearest, bilinear, bicubic); medians and ratios (1 thread unless --threads N). Timings on CUDA are in bench_cuda.py.

    python benchmarks/bench_nn.py [--threads N] [--quick]
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

F = yaten.nn.functional


def case(title: str, ours, theirs, repeat: int = 5) -> None:
    y = median_seconds(ours, repeat=repeat, min_time=0.2)
    line = f"{title:<58} yaten {y * 1e3:9.3f} ms"
    if torch is not None and theirs is not None:
        t = median_seconds(theirs, repeat=repeat, min_time=0.2)
        line += f"   torch {t * 1e3:9.3f} ms   yaten/torch speed {t / y:5.2f}x"
    print(line, flush=True)


def pair(shape, rng, scale=1.0):
    a = (rng.standard_normal(shape) * scale).astype(np.float32)
    return yaten.from_numpy(a), (torch.from_numpy(a) if torch is not None else None)


def main() -> None:
    threads = threads_from_argv(yaten, torch)
    quick = "--quick" in sys.argv
    print(f"threads: yaten {yaten.get_num_threads()}, torch {torch.get_num_threads() if torch else '-'}")
    rng = np.random.default_rng(0)
    n = 2 if quick else 8
    x, tx = pair((n, 64, 56, 56), rng)
    w, tw = pair((64, 64, 3, 3), rng, 0.05)
    case(f"conv2d N={n} C=64 56x56 3x3 pad 1 (forward)", lambda: F.conv2d(x, w, padding=1),
         (lambda: torch.nn.functional.conv2d(tx, tw, padding=1)) if torch else None)

    xg, wg = x.detach().requires_grad_(), w.detach().requires_grad_()
    txg, twg = (tx.detach().requires_grad_(), tw.detach().requires_grad_()) if torch else (None, None)

    g, tg = pair((n, 64, 56, 56), rng)  # a gradient as a loss would send it (not sum()'s expanded ones)

    def ours_step():
        F.conv2d(xg, wg, padding=1).backward(g)

    def torch_step():
        torch.nn.functional.conv2d(txg, twg, padding=1).backward(tg)

    case(f"conv2d N={n} C=64 56x56 3x3 pad 1 (forward + backward)", ours_step, torch_step if torch else None, 3)
    del xg, wg, txg, twg

    p, tp = pair((n, 64, 112, 112), rng)
    if hasattr(F, "max_pool2d"):
        case(f"max_pool2d N={n} C=64 112x112 k3 s2 p1", lambda: F.max_pool2d(p, 3, 2, 1),
             (lambda: torch.nn.functional.max_pool2d(tp, 3, 2, 1)) if torch else None)
    if hasattr(F, "avg_pool2d"):
        case(f"avg_pool2d N={n} C=64 56x56 k2 s2", lambda: F.avg_pool2d(x, 2),
             (lambda: torch.nn.functional.avg_pool2d(tx, 2)) if torch else None)
    if hasattr(F, "adaptive_avg_pool2d"):
        case(f"adaptive_avg_pool2d N={n} C=64 56x56 -> 1x1", lambda: F.adaptive_avg_pool2d(x, 1),
             (lambda: torch.nn.functional.adaptive_avg_pool2d(tx, 1)) if torch else None)
    if hasattr(F, "batch_norm"):
        rm, rv = yaten.zeros(64), yaten.ones(64)
        trm, trv = (torch.zeros(64), torch.ones(64)) if torch else (None, None)
        gamma, beta = yaten.ones(64), yaten.zeros(64)
        tgamma, tbeta = (torch.ones(64), torch.zeros(64)) if torch else (None, None)
        case(f"batch_norm training N={n} C=64 56x56", lambda: F.batch_norm(x, rm, rv, gamma, beta, training=True),
             (lambda: torch.nn.functional.batch_norm(tx, trm, trv, tgamma, tbeta, training=True)) if torch else None)
        case(f"batch_norm eval N={n} C=64 56x56", lambda: F.batch_norm(x, rm, rv, gamma, beta),
             (lambda: torch.nn.functional.batch_norm(tx, trm, trv, tgamma, tbeta)) if torch else None)
    if hasattr(F, "group_norm"):
        case(f"group_norm G=8 N={n} C=64 56x56", lambda: F.group_norm(x, 8),
             (lambda: torch.nn.functional.group_norm(tx, 8)) if torch else None)
    if hasattr(F, "interpolate"):
        for mode, extra in [("nearest", {}), ("bilinear", dict(align_corners=False)),
                            ("bicubic", dict(align_corners=False))]:
            case(f"interpolate {mode} x2 N={n} C=64 56x56", lambda: F.interpolate(x, scale_factor=2, mode=mode, **extra),
                 (lambda: torch.nn.functional.interpolate(tx, scale_factor=2, mode=mode, **extra)) if torch else None)
    del threads


if __name__ == "__main__":
    main()
