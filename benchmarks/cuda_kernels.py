"""The CUDA kernels a call launches, yaten beside torch: for each case, each library's host time per call and the
kernels of one call (name, launches, device time), from torch.profiler's CUPTI trace, which records yaten's
kernels too since both libraries share the device. Where a case is slower than torch, this says whether the device
work differs (other kernels, more launches) or the host does (the same kernels, more time between them): it is how
issue 20 found that yaten's bfloat16 conv2d ran torch's very kernels but spent 108 us of host time a call, and that
its CNN step launched 414 kernels to torch's 118.

    python benchmarks/cuda_kernels.py                 # every case
    python benchmarks/cuda_kernels.py cnn_step        # the cases named
"""

from __future__ import annotations

import sys
from collections import defaultdict
from pathlib import Path

import yaten

try:
    import torch
    from torch.profiler import ProfilerActivity, profile
except ImportError:  # pragma: no cover
    torch = None


def conv2d(lib, dtype):
    x = lib.rand(32, 64, 56, 56, device="cuda").to(getattr(lib, dtype))
    w = (lib.rand(64, 64, 3, 3, device="cuda") * 0.1).to(getattr(lib, dtype))
    return lambda: lib.nn.functional.conv2d(x, w, padding=1)


def batch_norm(lib):
    x = lib.rand(32, 64, 56, 56, device="cuda")
    rm, rv = lib.zeros(64, device="cuda"), lib.ones(64, device="cuda")
    return lambda: lib.nn.functional.batch_norm(x, rm, rv, training=True)


def cnn_step(lib):
    """A training step of examples/cnn.py, from the same weights and data in both libraries."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "examples"))
    import cnn

    g = yaten.Generator().manual_seed(0)
    x, y = cnn.make_data(64, g, "cuda")
    params = cnn.init_params(g, "cuda")
    if lib is not yaten:
        x, y = lib.from_numpy(x.cpu().numpy()).cuda(), lib.from_numpy(y.cpu().numpy()).cuda()
        params = {k: lib.from_numpy(v.detach().cpu().numpy()).cuda().requires_grad_() for k, v in params.items()}
    stats = cnn.init_stats(lib, "cuda")

    def step():
        loss = lib.nn.functional.cross_entropy(cnn.forward(lib, params, stats, x, True), y)
        for v in params.values():
            v.grad = None
        loss.backward()
        with lib.no_grad():
            for v in params.values():
                v.sub_(v.grad * 0.05)
    return step


CASES = {
    "conv2d_bf16": lambda lib: conv2d(lib, "bfloat16"),
    "conv2d_f32": lambda lib: conv2d(lib, "float32"),
    "batch_norm": batch_norm,
    "cnn_step": cnn_step,
}


def synchronize() -> None:
    torch.cuda.synchronize()  # waits for yaten's work too: one device


def kernels(fn, calls: int = 10) -> dict[str, tuple[float, float]]:
    """Kernel (or copy/memset) name -> (launches, device microseconds), per call."""
    fn()
    synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(calls):
            fn()
        synchronize()
    rows: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])
    for event in prof.events():
        if event.device_type == torch.autograd.DeviceType.CUDA:
            rows[event.name][0] += 1 / calls
            rows[event.name][1] += event.device_time / calls
    return {name: (n, us) for name, (n, us) in rows.items()}


def report(name: str, lib, make, top: int = 12) -> None:
    from bench_cuda import host_seconds

    fn = make(lib)
    seconds = host_seconds(fn, synchronize, calls=20, repeat=7)
    rows = kernels(fn)
    launches = sum(n for n, _ in rows.values())
    device_us = sum(us for _, us in rows.values())
    print(f"{name} [{lib.__name__}]: {seconds * 1e6:.1f} us a call on the host; {launches:.0f} launches, "
          f"{device_us:.1f} us on the device")
    for kernel, (n, us) in sorted(rows.items(), key=lambda kv: -kv[1][1])[:top]:
        print(f"  {us:9.1f} us  x{n:5.1f}  {kernel[:140]}")


def main() -> None:
    if torch is None or not yaten.cuda.is_available() or not torch.cuda.is_available():
        print("needs a CUDA GPU and torch with CUDA: nothing to measure")
        return
    wanted = sys.argv[1:] or list(CASES)
    unknown = [w for w in wanted if w not in CASES]
    if unknown:
        raise SystemExit(f"unknown case {unknown[0]!r}; the cases: {', '.join(CASES)}")
    print(f"device: {yaten.cuda.get_device_name()}; torch {torch.__version__}")
    for name in wanted:
        for lib in (yaten, torch):
            report(name, lib, CASES[name])


if __name__ == "__main__":
    main()
