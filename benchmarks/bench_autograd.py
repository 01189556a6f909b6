"""Autograd costs, yaten beside torch (1 thread unless --threads N): the recording overhead per op call (a + b
on 100 float32 elements with and without requires_grad), and one MLP training step (784 -> 256 -> 10, batch 256,
relu, cross_entropy): forward alone, forward + backward, and backward as their difference.

    python benchmarks/bench_autograd.py [--threads N]
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


def main() -> None:
    threads_from_argv(yaten, torch)
    rng = np.random.default_rng(0)
    a, b = (rng.standard_normal(100).astype(np.float32) for _ in range(2))
    libs = {"yaten": yaten} | ({"torch": torch} if torch is not None else {})

    def tensors(lib, arrays, grad):
        ts = [lib.from_numpy(x.copy()) for x in arrays]
        return [t.requires_grad_() if grad else t for t in ts]

    print("a + b, 100 float32 elements, per call")
    for name, lib in libs.items():
        plain = tensors(lib, [a, b], False)
        tracked = tensors(lib, [a, b], True)
        t0 = median_seconds(lambda: plain[0] + plain[1])
        t1 = median_seconds(lambda: tracked[0] + tracked[1])
        print(f"  {name:<6} no grad {t0 * 1e6:7.2f} us   requires_grad {t1 * 1e6:7.2f} us   "
              f"recording costs {(t1 - t0) * 1e6:6.2f} us")

    x = rng.standard_normal((256, 784)).astype(np.float32)
    y = rng.integers(0, 10, 256)
    w1 = (rng.standard_normal((256, 784)) * 0.05).astype(np.float32)
    w2 = (rng.standard_normal((10, 256)) * 0.05).astype(np.float32)
    bias1, bias2 = np.zeros(256, np.float32), np.zeros(10, np.float32)
    print("MLP step 784 -> 256 -> 10, batch 256")
    results = {}
    for name, lib in libs.items():
        F = lib.nn.functional
        xs = lib.from_numpy(x)
        ys = lib.from_numpy(y)
        params = tensors(lib, [w1, bias1, w2, bias2], True)

        def forward():
            return F.cross_entropy(F.linear(F.relu(F.linear(xs, params[0], params[1])), params[2], params[3]), ys)

        def step():
            for p in params:
                p.grad = None
            forward().backward()

        fwd = median_seconds(forward, repeat=9)
        both = median_seconds(step, repeat=9)
        results[name] = both - fwd
        print(f"  {name:<6} forward {fwd * 1e3:7.3f} ms   forward+backward {both * 1e3:7.3f} ms   "
              f"backward {(both - fwd) * 1e3:7.3f} ms")
    if "torch" in results:
        print(f"  backward: yaten takes {results['yaten'] / results['torch']:.2f}x torch's time")


if __name__ == "__main__":
    main()
