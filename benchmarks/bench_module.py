"""The cost of calling a module: yaten.nn beside torch.nn in one process (issue 45's target: Linear(64, 64) on a
64-vector at or below torch's time), plus a few more layers and a whole small network's forward and backward.

    python benchmarks/bench_module.py [--threads N]
"""

from __future__ import annotations

import numpy as np
import torch

import yaten
from common import median_seconds, threads_from_argv


def pair(name: str, args: tuple, shape: tuple, backward: bool = False) -> tuple[float, float]:
    ours = getattr(yaten.nn, name)(*args)
    theirs = getattr(torch.nn, name)(*args)
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    yx, tx = yaten.tensor(x), torch.tensor(x)
    if backward:
        def run_ours():
            ours(yx).sum().backward()

        def run_theirs():
            theirs(tx).sum().backward()
    else:
        def run_ours():
            return ours(yx)

        def run_theirs():
            return theirs(tx)
    return median_seconds(run_ours), median_seconds(run_theirs)


def main() -> None:
    threads = threads_from_argv(yaten, torch)
    print(f"module calls, yaten beside torch {torch.__version__}, {threads} thread(s); median us per call")
    print(f"  {'case':<44} {'yaten':>9} {'torch':>9} {'ratio':>7}")
    cases = [
        ("Linear(64, 64), x of 64", "Linear", (64, 64), (64,), False),
        ("Linear(64, 64), x of 32x64", "Linear", (64, 64), (32, 64), False),
        ("ReLU, x of 64", "ReLU", (), (64,), False),
        ("LayerNorm(64), x of 8x64", "LayerNorm", (64,), (8, 64), False),
        ("Conv2d(3, 8, 3), x of 1x3x16x16", "Conv2d", (3, 8, 3), (1, 3, 16, 16), False),
        ("Linear(64, 64) forward+backward, x of 64", "Linear", (64, 64), (64,), True),
    ]
    for title, name, args, shape, backward in cases:
        ours, theirs = pair(name, args, shape, backward)
        print(f"  {title:<44} {ours * 1e6:9.2f} {theirs * 1e6:9.2f} {ours / theirs:6.2f}x")


if __name__ == "__main__":
    main()
