"""torch.special's Bessel, Airy, error-function, incomplete-gamma and polynomial functions (kernels/special_functions.h)
beside torch.special on the CPU, in one process: 1M float32 and float64 elements over each function's usual range.
Prints each median and the ratio to torch. yaten computes every dtype in float64 with methods chosen for accuracy
(series, Steed's continued fractions, Hankel's expansions); torch uses Cephes' rational approximations per dtype.

    python benchmarks/bench_special.py [--threads N]
"""

from __future__ import annotations

import numpy as np
import torch

import yaten
from common import median_seconds, threads_from_argv

# name -> (low, high) of the arguments, and a second operand for the binary ones
UNARY = {"bessel_j0": (0, 30), "bessel_y1": (0.1, 30), "modified_bessel_k0": (0.1, 30), "i0e": (-30, 30),
         "i1e": (-30, 30), "airy_ai": (-10, 10), "spherical_bessel_j0": (-30, 30), "erfcx": (-5, 30),
         "log_ndtr": (-30, 5), "ndtri": (0.001, 0.999), "entr": (0.001, 5)}
BINARY = {"gammainc": ((0.5, 20), (0.1, 30)), "zeta": ((1.5, 10), (0.5, 10)), "xlog1py": ((-5, 5), (0, 10)),
          "chebyshev_polynomial_t": ((-1, 1), (0, 20)), "legendre_polynomial_p": ((-1, 1), (0, 20)),
          "hermite_polynomial_h": ((-3, 3), (0, 20))}


def main() -> None:
    threads = threads_from_argv(yaten, torch)
    rng = np.random.default_rng(0)
    n = 1 << 20
    print(f"torch.special, 1M elements, {threads} thread(s); median ms, ratio = yaten / torch")
    ratios = []
    for dtype in ("float32", "float64"):
        for name, spec in {**UNARY, **BINARY}.items():
            ranges = [spec] if name in UNARY else list(spec)
            arrays = [rng.uniform(lo, hi, n).astype(dtype) for lo, hi in ranges]
            if name.endswith("polynomial_t") or name.endswith("polynomial_p") or name.endswith("polynomial_h"):
                arrays[1] = np.floor(arrays[1])
            ours = [yaten.from_numpy(a) for a in arrays]
            theirs = [torch.from_numpy(a) for a in arrays]
            t_ours = median_seconds(lambda: getattr(yaten.special, name)(*ours))
            t_theirs = median_seconds(lambda: getattr(torch.special, name)(*theirs))
            ratios.append(t_ours / t_theirs)
            print(f"  {name:28s} {dtype:8s} yaten {t_ours * 1e3:8.2f}  torch {t_theirs * 1e3:8.2f}  "
                  f"{t_ours / t_theirs:6.2f}x")
    print(f"median ratio {float(np.median(ratios)):.2f}x")


if __name__ == "__main__":
    main()
