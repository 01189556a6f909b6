"""One optimizer step over the parameter list of a GPT-2-small-shaped model (148 tensors, 124M float32 values),
yaten beside torch in one process, each on its three paths (single-tensor, foreach=True, fused=True); the optimizer
issue's CPU target is AdamW at or below torch's foreach time. Each variant gets a fresh optimizer on the same
parameters (the first step makes the state, then the median of 5 steps), and the GB/s line counts the bytes a
step must move at least: the parameter, gradient and two moments read and the parameter and moments written.

    python benchmarks/bench_optim.py [--threads N] [--scale S] [--device cuda]   (S < 1 shrinks every tensor)

On CUDA (the optimizer issue's GPU target: fused=True at or below torch's fused=True time, near the memory
bandwidth) each step is timed between device synchronizations of both libraries, over 20 steps.
"""

from __future__ import annotations

import statistics
import sys
import time

import numpy as np
import torch

import yaten
from common import threads_from_argv


def gpt2_small_shapes(scale: float = 1.0) -> list[tuple[int, ...]]:
    d, vocab, ctx, layers = int(768 * scale), int(50304 * scale), int(1024 * scale), 12
    shapes = [(vocab, d), (ctx, d)]
    for _ in range(layers):
        shapes += [(d,), (d,), (3 * d, d), (3 * d,), (d, d), (d,), (d,), (d,), (4 * d, d), (4 * d,), (d, 4 * d), (d,)]
    shapes += [(d,), (d,)]
    return shapes


def median_step(opt, repeat: int = 5, sync=None) -> float:
    times = []
    for _ in range(repeat):
        if sync:
            sync()
        start = time.perf_counter()
        opt.step()
        if sync:
            sync()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    threads = threads_from_argv(yaten, torch)
    scale = float(sys.argv[sys.argv.index("--scale") + 1]) if "--scale" in sys.argv else 1.0
    device = sys.argv[sys.argv.index("--device") + 1] if "--device" in sys.argv else "cpu"
    cuda = device == "cuda"
    if cuda and not yaten.cuda.is_available():
        print("no CUDA GPU: nothing to measure")
        return
    repeat = 20 if cuda else 5
    shapes = gpt2_small_shapes(scale)
    total = sum(int(np.prod(s)) for s in shapes)
    where = "CUDA" if cuda else f"{threads} thread(s)"
    print(f"AdamW step, {len(shapes)} tensors, {total / 1e6:.1f}M float32 values, {where}; median of {repeat}")
    gen = np.random.default_rng(0)
    arrays = [gen.standard_normal(s).astype(np.float32) for s in shapes]
    grads = [gen.standard_normal(s).astype(np.float32) for s in shapes]
    yparams = [yaten.nn.Parameter(yaten.tensor(a, device=device)) for a in arrays]
    for p, g in zip(yparams, grads):
        p.grad = yaten.tensor(g, device=device)
    results = {}

    def sync():
        if cuda:
            yaten.cuda.synchronize()
            torch.cuda.synchronize()

    def run(name, make):
        opt = make()
        opt.step()  # the state is made on the first step
        results[name] = median_step(opt, repeat, sync if cuda else None)
        del opt

    for path in ({"foreach": False}, {"foreach": True}, {"fused": True}):
        key = next(iter(path))
        run(f"yaten {key}={path[key]}", lambda: yaten.optim.AdamW(yparams, lr=1e-3, **path))
    tparams = [torch.nn.Parameter(torch.tensor(a, device=device)) for a in arrays]
    for p, g in zip(tparams, grads):
        p.grad = torch.tensor(g, device=device)
    for path in ({"foreach": False}, {"foreach": True}, {"fused": True}):
        key = next(iter(path))
        run(f"torch {key}={path[key]}", lambda: torch.optim.AdamW(tparams, lr=1e-3, **path))
    base = results["torch foreach=True"]
    bytes_moved = total * 4 * 7  # read p, g, m, v; write p, m, v
    for name, seconds in results.items():
        print(f"  {name:<20} {seconds * 1e3:9.1f} ms   {seconds / base:5.2f}x of torch foreach   "
              f"{bytes_moved / seconds / 1e9:6.1f} GB/s")


if __name__ == "__main__":
    main()
