"""yaten.linalg beside torch.linalg and NumPy/SciPy-free numpy.linalg on the CPU, in one process: solve, cholesky, qr,
svd, eigh (and inv, det, lstsq, eig) of one 512 x 512 float64 matrix and of a batch of 256 16 x 16 matrices, the
linalg issue's two sizes. Prints each median and the ratio to torch (the target: <= 1.1x at 2 threads; torch's CPU
build calls MKL's LAPACK, yaten OpenBLAS's through scipy-openblas32).

    python benchmarks/bench_linalg.py [--threads N]
"""

from __future__ import annotations

import numpy as np
import torch

import yaten
from common import median_seconds, threads_from_argv


def cases(lib, A, B, H):
    la = lib.linalg
    return {
        "solve": lambda: la.solve(A, B),
        "inv": lambda: la.inv(A),
        "det": lambda: la.det(A),
        "cholesky": lambda: la.cholesky(H),
        "qr": lambda: la.qr(A),
        "svd": lambda: la.svd(A, full_matrices=False),
        "svdvals": lambda: la.svdvals(A),
        "eigh": lambda: la.eigh(H),
        "eig": lambda: la.eig(A),
        "lstsq": lambda: la.lstsq(A, B),
    }


def main() -> None:
    threads = threads_from_argv(yaten, torch)
    rng = np.random.default_rng(0)
    print(f"linalg, float64, {threads} thread(s); median times, ratio = yaten / torch")
    worst = []
    for shape in [(512, 512), (256, 16, 16)]:
        n = shape[-1]
        a = rng.standard_normal(shape)
        b = rng.standard_normal(shape[:-1] + (4,))
        h = a @ np.swapaxes(a, -1, -2) + n * np.eye(n)
        ta, tb, th = torch.from_numpy(a), torch.from_numpy(b), torch.from_numpy(h)
        ya, yb, yh = yaten.tensor(a), yaten.tensor(b), yaten.tensor(h)
        ours, theirs = cases(yaten, ya, yb, yh), cases(torch, ta, tb, th)
        print(f"{'x'.join(map(str, shape))}:")
        for name in ours:
            repeat = 5 if shape == (512, 512) and name in ("svd", "eig", "eigh", "svdvals") else 9
            y = median_seconds(ours[name], repeat=repeat, min_time=0.02)
            t = median_seconds(theirs[name], repeat=repeat, min_time=0.02)
            worst.append((y / t, f"{name} {shape}"))
            print(f"  {name:<9} yaten {y * 1e3:9.3f} ms   torch {t * 1e3:9.3f} ms   {y / t:5.2f}x")
    ratios = sorted(worst)
    print(f"at or below 1.1x torch: {sum(r <= 1.1 for r, _ in ratios)} of {len(ratios)}; "
          f"median {ratios[len(ratios) // 2][0]:.2f}x; worst {ratios[-1][1]} {ratios[-1][0]:.2f}x")


if __name__ == "__main__":
    main()
