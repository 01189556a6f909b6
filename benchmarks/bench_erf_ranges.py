"""float64 erf, gelu and erfinv by the range of their inputs, beside torch in one process: vec_double_erf.h takes a
different path below 3/4, from 3/4 to 2 and from 2 on (Note [Float64 erf], Note [Float64 erf's tail to an ulp of 1]),
and erfinv another where every lane of a vector has |y| < 0.948 (Note [erfinv's central residual]), so a sweep over one
range (bench_pointwise_sweep.py's inputs are in (0.05, 0.95)) can hide the others. 1M elements each.

    python benchmarks/bench_erf_ranges.py [--threads N]
"""

from __future__ import annotations

import numpy as np
import torch

import yaten
import yaten.nn.functional  # noqa: F401
from common import median_seconds, threads_from_argv


def main() -> None:
    threads = threads_from_argv(yaten, torch)
    rng = np.random.default_rng(0)
    n = 1 << 20
    cases = {"|x| < 0.75": rng.uniform(-0.74, 0.74, n), "0.75 .. 2": rng.uniform(0.76, 1.99, n),
             "2 .. 5.9": rng.uniform(2.01, 5.9, n), "randn": rng.standard_normal(n), "-3 .. 3": rng.uniform(-3, 3, n)}
    print(f"float64, 1M elements, {threads} thread(s); median ms, ratio = yaten / torch")
    ratios = []

    def row(op: str, name: str, f_ours, f_theirs) -> None:
        t_ours, t_theirs = median_seconds(f_ours), median_seconds(f_theirs)
        ratios.append(t_ours / t_theirs)
        print(f"  {op:<6} {name:<12} yaten {t_ours * 1e3:8.3f} ms   torch {t_theirs * 1e3:8.3f} ms   "
              f"{t_ours / t_theirs:5.2f}x")

    for name, values in cases.items():
        ours, theirs = yaten.from_numpy(values), torch.from_numpy(values)
        row("erf", name, lambda: yaten.erf(ours), lambda: torch.erf(theirs))
        row("gelu", name, lambda: yaten.nn.functional.gelu(ours), lambda: torch.nn.functional.gelu(theirs))
    # erfinv: the sweep's range, uniform(-1, 1) (as erfinv(2u - 1) draws normal samples), the tail, erf of randn
    normal = torch.randn(n, dtype=torch.float64)
    inverse = {"0.05 .. 0.95": rng.uniform(0.05, 0.95, n), "-1 .. 1": rng.uniform(-1, 1, n),
               "0.9 .. 1": rng.uniform(0.9, 1, n), "erf(randn)": torch.erf(normal).numpy()}
    for name, values in inverse.items():
        ours, theirs = yaten.from_numpy(values), torch.from_numpy(values)
        row("erfinv", name, lambda: yaten.erfinv(ours), lambda: torch.erfinv(theirs))
    print(f"median ratio {float(np.median(ratios)):.2f}x, worst {max(ratios):.2f}x")


if __name__ == "__main__":
    main()
