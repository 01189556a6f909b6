"""A wide scan of everyday tensor code beside torch: reductions, shape and indexing ops, products, nn functions and
their gradients, in float32 or in float16/bfloat16, at the sizes a training step meets (1024 x 1024 and the like).
Where bench_pointwise_sweep.py covers every pointwise op, this covers what programs call between them; each case
that takes more than 1.1x torch's time in both of its two rounds is flagged, so a gap cannot hide.

    python benchmarks/bench_wide_scan.py [--threads N] [--dtype float32|bfloat16|float16] [--only a,b,c]

Medians of repeated calls, yaten and torch alternating in one process at the same thread count. At 2 threads, torch's
OpenMP workers spin after each call and take the core yaten's worker needs next (see bench_cpu_gaps.py), so read
multi-thread ratios of short cases with care.
"""

from __future__ import annotations

import sys
from typing import Any, Callable

import numpy as np
import torch

import yaten
from common import median_of_calls, threads_from_argv


def _backward(fn: Callable[..., Any]) -> Callable[..., Any]:
    """The case's forward and backward through x (the gradient of out.sum())."""
    def run(lib, a, b):
        p = a.detach().requires_grad_()
        fn(lib, p, b).sum().backward()
        return p.grad
    return run


def _labels(lib, b):  # 1024 class indices from the second input
    return (b[:, 0].float().abs() * 100).long().clamp_max(1023)


F32_CASES: dict[str, Callable[..., Any]] = {
    "sum": lambda L, a, b: a.sum(), "sum(1)": lambda L, a, b: a.sum(1), "sum(0)": lambda L, a, b: a.sum(0),
    "mean(1)": lambda L, a, b: a.mean(1), "amax(1)": lambda L, a, b: a.amax(1), "max(1)": lambda L, a, b: a.max(1),
    "argmax(1)": lambda L, a, b: a.argmax(1), "std(1)": lambda L, a, b: a.std(1), "norm": lambda L, a, b: a.norm(),
    "prod(1)": lambda L, a, b: (a * 0.001 + 1).prod(1), "cumsum(1)": lambda L, a, b: a.cumsum(1),
    "logsumexp(1)": lambda L, a, b: L.logsumexp(a, 1), "kthvalue": lambda L, a, b: a.kthvalue(10, 1),
    "median(1)": lambda L, a, b: a.median(1), "count_nonzero": lambda L, a, b: L.count_nonzero(a > 0),
    "t().contiguous": lambda L, a, b: a.t().contiguous(), "cat(1)": lambda L, a, b: L.cat([a, b], 1),
    "expand.contig": lambda L, a, b: a[:, :1].expand(1024, 1024).contiguous(), "clone": lambda L, a, b: a.clone(),
    "zeros": lambda L, a, b: L.zeros(1024, 1024), "outer": lambda L, a, b: L.outer(a[0], b[0]),
    "kron": lambda L, a, b: L.kron(a[:32, :32], b[:32, :32]), "cdist": lambda L, a, b: L.cdist(a[:256, :64], b[:256, :64]),
    "index_add": lambda L, a, b: a.index_add(0, L.arange(1024).flip(0), b),
    "index_select(1)": lambda L, a, b: a.index_select(1, L.arange(0, 1024, 2)),
    "take": lambda L, a, b: a.take(L.arange(0, 1 << 20, 3)), "x[mask]=0": lambda L, a, b: a.clone().__setitem__(a > 0, 0.0),
    "nonzero": lambda L, a, b: (a > 0).nonzero(), "x[mask]": lambda L, a, b: a.flatten()[(a > 0).flatten()],
    "x[idx]": lambda L, a, b: a.flatten()[(b.abs() * 1e5).long().flatten()],
    "bincount": lambda L, a, b: L.bincount((a.abs() * 10).long().flatten()),
    "unique_consec": lambda L, a, b: L.unique_consecutive((a * 3).round().flatten()),
    "searchsorted": lambda L, a, b: L.searchsorted(a[0].sort().values, b), "randint": lambda L, a, b: L.randint(0, 10, (1024, 1024)),
    "dot": lambda L, a, b: L.dot(a.flatten(), b.flatten()), "mv": lambda L, a, b: a @ b[0],
    "vm": lambda L, a, b: b[0] @ a, "matmul": lambda L, a, b: a @ b, "bmm.T": lambda L, a, b: L.bmm(
        a.view(16, 64, 1024), b.view(16, 64, 1024).transpose(1, 2)),
    "conv2d": lambda L, a, b: L.nn.functional.conv2d(a.view(4, 64, 64, 64), b[:64, :576].reshape(64, 64, 3, 3), padding=1),
    "normalize": lambda L, a, b: L.nn.functional.normalize(a),
    "group_norm": lambda L, a, b: L.nn.functional.group_norm(a.view(4, 64, 64, 64), 8),
    "sdpa": lambda L, a, b: L.nn.functional.scaled_dot_product_attention(
        a.view(4, 4, 256, 256), b.view(4, 4, 256, 256), a.view(4, 4, 256, 256), is_causal=True),
}
COMMON_CASES: dict[str, Callable[..., Any]] = {
    "exp": lambda L, a, b: a.exp(), "sigmoid": lambda L, a, b: a.sigmoid(), "gelu": lambda L, a, b: L.nn.functional.gelu(a),
    "sqrt": lambda L, a, b: a.abs().sqrt(), "add": lambda L, a, b: a + b, "softmax": lambda L, a, b: a.softmax(1),
    "layer_norm": lambda L, a, b: L.nn.functional.layer_norm(a, (1024,)),
    "cross_entropy": lambda L, a, b: L.nn.functional.cross_entropy(a, _labels(L, b)),
    "linear": lambda L, a, b: L.nn.functional.linear(a[:256], b),
    "bw softmax": _backward(lambda L, p, b: L.softmax(p, 1) * b),
    "bw layer_norm": _backward(lambda L, p, b: L.nn.functional.layer_norm(p, (1024,))),
    "bw gelu": _backward(lambda L, p, b: L.nn.functional.gelu(p)),
    "bw silu": _backward(lambda L, p, b: L.nn.functional.silu(p)),
    "bw cross_entropy": _backward(lambda L, p, b: L.nn.functional.cross_entropy(p, _labels(L, b))),
    "bw linear": _backward(lambda L, p, b: L.nn.functional.linear(p[:256], b)),
    "bw conv2d": _backward(lambda L, p, b: L.nn.functional.conv2d(p.view(4, 64, 64, 64),
                                                                 b[:64, :576].reshape(64, 64, 3, 3), padding=1)),
}


def main() -> None:
    threads = threads_from_argv(yaten, torch)
    dtype = sys.argv[sys.argv.index("--dtype") + 1] if "--dtype" in sys.argv else "float32"
    only = sys.argv[sys.argv.index("--only") + 1].split(",") if "--only" in sys.argv else None
    rng = np.random.default_rng(0)
    a = rng.standard_normal((1024, 1024)).astype(np.float32)
    b = rng.standard_normal((1024, 1024)).astype(np.float32)
    ya, yb = yaten.from_numpy(a).to(getattr(yaten, dtype)), yaten.from_numpy(b).to(getattr(yaten, dtype))
    ta, tb = torch.from_numpy(a).to(getattr(torch, dtype)), torch.from_numpy(b).to(getattr(torch, dtype))
    cases = {**(F32_CASES if dtype == "float32" else {}), **COMMON_CASES}
    print(f"{dtype}, {threads} thread(s); median times, ratio = yaten / torch (two rounds)")
    flagged, ratios = [], []
    for name, case in cases.items():
        if only and name not in only:
            continue
        rounds = []
        for _ in range(2):
            ours = median_of_calls(lambda: case(yaten, ya, yb), 15)
            theirs = median_of_calls(lambda: case(torch, ta, tb), 15)
            rounds.append(ours / theirs)
        flag = "  <<<" if min(rounds) > 1.1 else ""
        if flag:
            flagged.append(name)
        ratios.append(min(rounds))
        print(f"{name:18s} yaten {ours * 1e3:9.3f} ms  torch {theirs * 1e3:9.3f} ms  {rounds[0]:5.2f} {rounds[1]:5.2f}{flag}",
              flush=True)
    print(f"summary: {len(ratios) - len(flagged)} of {len(ratios)} cases at or below 1.1x torch; median ratio "
          f"{float(np.median(ratios)):.2f}x; above: {', '.join(flagged) or 'none'}")


if __name__ == "__main__":
    main()
