"""yaten.fft beside NumPy's and torch's FFTs (NumPy's and torch's are pocketfft; yaten's is its own, kernels/cpu/fft_engine.cpp), in one process; ratios are
their time over yaten's (above 1: yaten is faster). `--threads N` sets yaten's and torch's threads (1 by default).

Issue 20's target: rfft of 2^20 float32 at >= 0.8x NumPy's speed."""

from __future__ import annotations

import numpy as np

import yaten
from common import median_seconds, threads_from_argv

try:
    import torch
except ImportError:  # NumPy alone still gives the ratio
    torch = None


def case(title: str, numpy_fn, yaten_fn, torch_fn) -> None:
    t_yaten = median_seconds(yaten_fn)
    t_numpy = median_seconds(numpy_fn)
    line = f"{title:<34} yaten {t_yaten * 1e6:10.1f} us   numpy {t_numpy * 1e6:10.1f} us ({t_numpy / t_yaten:5.2f}x)"
    if torch is not None:
        t_torch = median_seconds(torch_fn)
        line += f"   torch {t_torch * 1e6:10.1f} us ({t_torch / t_yaten:5.2f}x)"
    print(line)


def main() -> None:
    threads = threads_from_argv(yaten, torch)
    print(f"yaten.fft vs numpy.fft and torch.fft, {threads} thread(s); (Nx) = their time / yaten's\n")
    rng = np.random.default_rng(0)
    for n, dtype in ((1 << 20, "float32"), (1 << 20, "float64"), (1000, "float32"), (3 * 5 * 7 * 11 * 13, "float32")):
        x = rng.standard_normal(n).astype(dtype)
        yx = yaten.from_numpy(x)
        tx = torch.from_numpy(x) if torch is not None else None
        case(f"rfft {n} {dtype}", lambda: np.fft.rfft(x), lambda: yaten.fft.rfft(yx),
             lambda: torch.fft.rfft(tx))
    z = (rng.standard_normal(1 << 20) + 1j * rng.standard_normal(1 << 20)).astype("complex64")
    yz = yaten.from_numpy(z)
    tz = torch.from_numpy(z) if torch is not None else None
    case("fft 2^20 complex64", lambda: np.fft.fft(z), lambda: yaten.fft.fft(yz), lambda: torch.fft.fft(tz))
    spectrum = np.fft.rfft(rng.standard_normal(1 << 20).astype("float32"))
    ys = yaten.from_numpy(spectrum)
    ts = torch.from_numpy(spectrum) if torch is not None else None
    case("irfft 2^20 float32", lambda: np.fft.irfft(spectrum), lambda: yaten.fft.irfft(ys),
         lambda: torch.fft.irfft(ts))
    img = rng.standard_normal((64, 256, 256)).astype("float32")
    yi = yaten.from_numpy(img)
    ti = torch.from_numpy(img) if torch is not None else None
    case("rfft2 64x256x256 float32", lambda: np.fft.rfft2(img), lambda: yaten.fft.rfft2(yi),
         lambda: torch.fft.rfft2(ti))


if __name__ == "__main__":
    main()
