"""yaten beside torch on one CUDA device, in one process: device throughput of pointwise ops, reductions, scans,
indexing, random numbers and matmul (TFLOP/s), an MLP training step, linear algebra on cuSOLVER, and the host cost
of queuing small ops. Every timing synchronizes the device before reading the clock.

    python benchmarks/bench_cuda.py            # the issue's cases
    python benchmarks/bench_cuda.py --quick    # smaller tensors
    python benchmarks/bench_cuda.py --nn       # the convolution network rows alone (conv2d, batch_norm, a CNN step)
"""

from __future__ import annotations

import statistics
import sys
import time

import yaten
from yaten.utils.benchmark import Timer

try:
    import torch
except ImportError:  # pragma: no cover
    torch = None


def device_seconds(fn, sync, repeat: int = 20) -> float:
    """Median seconds per call of `fn`, each measured as a block of 5 calls between two device synchronizations
    (yaten.utils.benchmark.Timer synchronizes the whole device, so torch's work is waited for too; `sync` is the
    library's own, run once after the warm-up call)."""
    try:
        fn()
        sync()
        return statistics.median(Timer(fn).repeat(repeat, number=5)) / 5
    except Exception as error:  # one failing case must not hide the others' figures
        return failed(error)


def host_seconds(fn, sync, calls: int = 200, repeat: int = 15) -> float:
    """Median seconds per call of queuing `calls` small ops and then synchronizing once (Python included)."""
    try:
        fn()
        sync()
        times = []
        for _ in range(repeat):
            start = time.perf_counter()
            for _ in range(calls):
                fn()
            sync()
            times.append((time.perf_counter() - start) / calls)
        return statistics.median(times)
    except Exception as error:
        return failed(error)


def failed(error: Exception) -> float:
    print(f"    failed: {type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}")
    return float("nan")


def built(make, *args):
    """make(*args), or, where building the case raises, a case that raises the same error when timed."""
    try:
        return make(*args)
    except Exception as error:
        def fail():
            raise error
        return fail


def row(title: str, nbytes: int | None, ours: float, theirs: float | None, flops: float | None = None) -> None:
    def fmt(s):
        bw = f" {nbytes / s / 1e9:8.0f} GB/s" if nbytes else ""
        if flops:
            bw = f" {flops / s / 1e12:6.1f} TFLOP/s"
        return f"{s * 1e3:9.3f} ms{bw}" if s > 1e-4 else f"{s * 1e6:9.2f} us{bw}"

    ratio = f"   yaten/torch throughput {theirs / ours:5.2f}x" if theirs else ""
    print(f"{title:<34} yaten {fmt(ours)}   torch {fmt(theirs) if theirs else '-':>24}{ratio}")


def linalg_rows(ysync, tsync) -> None:
    """torch.linalg on cuSOLVER: the linear algebra issue's cases (one 512 x 512 float64 matrix, a batch of 256
    16 x 16 ones), the same matrices in both libraries."""
    for shape in ((512, 512), (256, 16, 16)):
        g = yaten.Generator().manual_seed(0)
        a = yaten.rand(*shape, generator=g, dtype=yaten.float64) - 0.5
        spd = a @ a.transpose(-2, -1) + shape[-1] * yaten.eye(shape[-1], dtype=yaten.float64)
        b = yaten.rand(*shape[:-1], 4, generator=g, dtype=yaten.float64)
        ya, yspd, yb = a.cuda(), spd.cuda(), b.cuda()
        ta, tspd, tb = ((torch.from_numpy(x.numpy()).cuda() for x in (a, spd, b)) if torch
                        else (None, None, None))
        name = "x".join(map(str, shape))
        for title, ours, theirs in (
                ("solve", lambda: yaten.linalg.solve(ya, yb), lambda: torch.linalg.solve(ta, tb)),
                ("cholesky", lambda: yaten.linalg.cholesky(yspd), lambda: torch.linalg.cholesky(tspd)),
                ("qr", lambda: yaten.linalg.qr(ya), lambda: torch.linalg.qr(ta)),
                ("svd", lambda: yaten.linalg.svd(ya, full_matrices=False),
                 lambda: torch.linalg.svd(ta, full_matrices=False)),
                ("eigh", lambda: yaten.linalg.eigh(yspd), lambda: torch.linalg.eigh(tspd)),
                ("lstsq", lambda: yaten.linalg.lstsq(ya, yb), lambda: torch.linalg.lstsq(ta, tb))):
            row(f"linalg.{title} {name} float64", None, device_seconds(ours, ysync, repeat=5),
                device_seconds(theirs, tsync, repeat=5) if torch else None)


def network_rows(ysync, tsync) -> None:
    """Convolution networks (issue 20): a ResNet block layer's conv2d and batch_norm, and examples/cnn.py's step (the
    cases of cuda_kernels.py, which lists their kernels)."""
    from cuda_kernels import batch_norm as bn_case, cnn_step, conv2d as conv_case

    def conv_row(title, dtype="float32"):
        row(title, None, device_seconds(built(conv_case, yaten, dtype), ysync),
            device_seconds(built(conv_case, torch, dtype), tsync) if torch else None,
            flops=2.0 * 32 * 64 * 576 * 56 * 56)

    for dtype in ("float32", "bfloat16"):
        conv_row(f"conv2d N=32 C=64 56x56 3x3 {dtype}", dtype)
    # the same float32 convolution with TF32 off in both libraries' cuDNN, and yaten without cuDNN (its own im2col
    # kernels and cuBLAS products) beside torch's default
    tf32 = torch.backends.cudnn.allow_tf32 if torch else None
    if torch:
        torch.backends.cudnn.allow_tf32 = False
    with yaten.backends.cudnn.flags(allow_tf32=False):
        conv_row("conv2d as above, float32, TF32 off")
    if torch:
        torch.backends.cudnn.allow_tf32 = tf32
    with yaten.backends.cudnn.flags(enabled=False):
        conv_row("conv2d float32, yaten without cuDNN")

    def conv_backward_case(lib):  # forward and both gradients: cuDNN's three passes
        x = lib.rand(32, 64, 56, 56, device="cuda").requires_grad_()
        w = (lib.rand(64, 64, 3, 3, device="cuda") * 0.1).requires_grad_()
        return lambda: lib.nn.functional.conv2d(x, w, padding=1).sum().backward()

    row("conv2d float32 forward + backward", None, device_seconds(built(conv_backward_case, yaten), ysync),
        device_seconds(built(conv_backward_case, torch), tsync) if torch else None,
        flops=3 * 2.0 * 32 * 64 * 576 * 56 * 56)

    def unfold_case(lib):
        x = lib.rand(32, 64, 56, 56, device="cuda")
        return lambda: lib.nn.functional.unfold(x, 3, padding=1)

    row("F.unfold 3x3 of N=32 C=64 56x56", 4 * 32 * 576 * 56 * 56, device_seconds(built(unfold_case, yaten), ysync),
        device_seconds(built(unfold_case, torch), tsync) if torch else None)

    row("batch_norm training N=32 C=64 56x56", 8 * 32 * 64 * 56 * 56, device_seconds(built(bn_case, yaten), ysync),
        device_seconds(built(bn_case, torch), tsync) if torch else None)

    row("CNN training step (examples/cnn.py)", None, host_seconds(built(cnn_step, yaten), ysync, calls=20),
        host_seconds(built(cnn_step, torch), tsync, calls=20) if torch else None)


def main() -> None:
    if not yaten.cuda.is_available():
        print("no CUDA GPU: nothing to measure")
        return
    quick = "--quick" in sys.argv
    if "--nn" in sys.argv:  # the convolution network rows alone
        network_rows(yaten.cuda.synchronize, torch.cuda.synchronize if torch is not None else None)
        return
    if "--linalg" in sys.argv:  # the cuSOLVER rows alone
        linalg_rows(yaten.cuda.synchronize, torch.cuda.synchronize if torch is not None else None)
        return
    n = (1 << 24) if quick else (1 << 27)  # 128M float32 = 512 MB per tensor
    side = 2048 if quick else 8192
    ysync = yaten.cuda.synchronize
    tsync = torch.cuda.synchronize if torch is not None else None
    print(f"device: {yaten.cuda.get_device_name()}; torch {torch.__version__ if torch else 'absent'}")

    def values(*shape):
        return yaten.rand(*shape, device="cuda")

    a, b = values(n), values(n)
    ta, tb = (torch.rand(n, device="cuda"), torch.rand(n, device="cuda")) if torch else (None, None)
    cases = [
        ("a + b", 12 * n, lambda: a + b, lambda: ta + tb),
        ("a * b", 12 * n, lambda: a * b, lambda: ta * tb),
        ("a.exp()", 8 * n, lambda: a.exp(), lambda: ta.exp()),
        ("a + 1.5 (CPU scalar)", 8 * n, lambda: a + 1.5, lambda: ta + 1.5),
        ("a.add_(b)", 12 * n, lambda: a.add_(b), lambda: ta.add_(tb)),
        ("a.to(float16)", 6 * n, lambda: a.to(yaten.float16), lambda: ta.to(torch.float16)),
    ]
    cases += [
        ("a.sum()", 4 * n, lambda: a.sum(), lambda: ta.sum()),
        ("a.amax()", 4 * n, lambda: a.amax(), lambda: ta.amax()),
        ("a.argmax()", 4 * n, lambda: a.argmax(), lambda: ta.argmax()),
        ("a.var_mean()", 4 * n, lambda: yaten.var_mean(a), lambda: torch.var_mean(ta)),
        ("a.cumsum(0)", 8 * n, lambda: a.cumsum(0), lambda: ta.cumsum(0)),
        ("rand(n)", 4 * n, lambda: yaten.rand(n, device="cuda"), lambda: torch.rand(n, device="cuda")),
        ("randn(n)", 4 * n, lambda: yaten.randn(n, device="cuda"), lambda: torch.randn(n, device="cuda")),
    ]
    for title, nbytes, ours, theirs in cases:
        row(f"{title}, {n >> 20}M float32", nbytes, device_seconds(ours, ysync),
            device_seconds(theirs, tsync) if torch else None)
    del a, b, ta, tb

    # pointwise ops of 1- and 2-byte dtypes: their vectorized kernels take 16 or 8 elements per 16-byte vector, and
    # how many vectors a thread takes is a build-time lever (issue 19) to be decided by these rows
    for dtype, size in (("bfloat16", 2), ("float16", 2), ("int8", 1)):
        ya, yb = (values(n).mul(100).to(getattr(yaten, dtype)) for _ in range(2))
        pa, pb = ((torch.rand(n, device="cuda") * 100).to(getattr(torch, dtype)) for _ in range(2)) if torch \
            else (None, None)
        row(f"a + b, {n >> 20}M {dtype}", 3 * size * n, device_seconds(lambda: ya + yb, ysync),
            device_seconds(lambda: pa + pb, tsync) if torch else None)
        if dtype != "int8":
            row(f"a.exp(), {n >> 20}M {dtype}", 2 * size * n, device_seconds(lambda: ya.exp(), ysync),
                device_seconds(lambda: pa.exp(), tsync) if torch else None)
        del ya, yb, pa, pb

    m = values(side, side)
    tm = torch.rand(side, side, device="cuda") if torch else None
    row(f"m.t() + m, {side}^2 float32", 12 * side * side, device_seconds(lambda: m.t() + m, ysync),
        device_seconds(lambda: tm.t() + tm, tsync) if torch else None)
    for title, ours, theirs in (("m.sum(1)", lambda: m.sum(1), lambda: tm.sum(1)),
                                ("m.sum(0)", lambda: m.sum(0), lambda: tm.sum(0)),
                                ("m.mean(-1, keepdim=True)", lambda: m.mean(-1, keepdim=True),
                                 lambda: tm.mean(-1, keepdim=True)),
                                ("m.softmax(-1)", lambda: m.softmax(-1), lambda: tm.softmax(-1)),
                                ("m.log_softmax(-1)", lambda: m.log_softmax(-1), lambda: tm.log_softmax(-1))):
        traffic = 8 if "softmax" in title else 4  # one read and one write, or one read
        row(f"{title}, {side}^2 float32", traffic * side * side, device_seconds(ours, ysync),
            device_seconds(theirs, tsync) if torch else None)
    row(f"m.t().contiguous(), {side}^2", 8 * side * side, device_seconds(lambda: m.t().contiguous(), ysync),
        device_seconds(lambda: tm.t().contiguous(), tsync) if torch else None)
    for title, ours, theirs in (("m.max(1)", lambda: m.max(1), lambda: tm.max(1)),
                                ("m.argmax(1)", lambda: m.argmax(1), lambda: tm.argmax(1)),
                                ("m.cumsum(1)", lambda: m.cumsum(1), lambda: tm.cumsum(1))):
        traffic = 8 if "cum" in title else 4
        row(f"{title}, {side}^2 float32", traffic * side * side, device_seconds(ours, ysync),
            device_seconds(theirs, tsync) if torch else None)
    rows = yaten.randint(0, side, (side // 2,), device="cuda")
    trows = torch.randint(0, side, (side // 2,), device="cuda") if torch else None
    row(f"m[idx] ({side // 2} rows), {side}^2", 8 * side * side // 2, device_seconds(lambda: m[rows], ysync),
        device_seconds(lambda: tm[trows], tsync) if torch else None)
    cols = yaten.randint(0, side, (side, 64), device="cuda")
    tcols = torch.randint(0, side, (side, 64), device="cuda") if torch else None
    row(f"m.gather(1, idx[{side}, 64])", 16 * side * 64, device_seconds(lambda: m.gather(1, cols), ysync),
        device_seconds(lambda: tm.gather(1, tcols), tsync) if torch else None)
    del m, tm

    # matmul on cuBLAS: TFLOP/s beside torch (float32 with TF32 off in both, torch's default)
    for size, dtype in ((side, "bfloat16"), (side, "float32"), (side // 2, "bfloat16"), (side // 2, "float32"),
                        (side // 2, "float16")):
        x, y = yaten.rand(size, size, device="cuda").to(getattr(yaten, dtype)), \
            yaten.rand(size, size, device="cuda").to(getattr(yaten, dtype))
        tx = torch.rand(size, size, device="cuda").to(getattr(torch, dtype)) if torch else None
        ty = torch.rand(size, size, device="cuda").to(getattr(torch, dtype)) if torch else None
        row(f"matmul {size}^3 {dtype}", None, device_seconds(lambda: x @ y, ysync),
            device_seconds(lambda: tx @ ty, tsync) if torch else None, flops=2.0 * size ** 3)
        del x, y, tx, ty

    # one SGD step of examples/mlp.py's model (512 x 10 -> 32 -> 3, cross_entropy), on CUDA; yaten and torch share
    # every name used here, so one function builds the step for either
    def mlp_step(lib):
        xs, ys = lib.rand(512, 10, device="cuda"), lib.randint(0, 3, (512,), device="cuda")
        w1 = (lib.rand(32, 10, device="cuda") - 0.5).requires_grad_()
        w2 = (lib.rand(3, 32, device="cuda") - 0.5).requires_grad_()
        F = lib.nn.functional

        def step():
            loss = F.cross_entropy(F.linear(F.linear(xs, w1).relu(), w2), ys)
            w1.grad = w2.grad = None
            loss.backward()
            with lib.no_grad():
                w1.sub_(w1.grad * 0.1)
                w2.sub_(w2.grad * 0.1)
        return step

    row("MLP training step (examples/mlp.py)", None, host_seconds(built(mlp_step, yaten), ysync, calls=50),
        host_seconds(built(mlp_step, torch), tsync, calls=50) if torch else None)

    network_rows(ysync, tsync)
    linalg_rows(ysync, tsync)

    s, t = values(1000), values(1000)
    ts, tt = (torch.rand(1000, device="cuda"), torch.rand(1000, device="cuda")) if torch else (None, None)
    row("host cost: a + b, 1000 floats", None, host_seconds(lambda: s + t, ysync),
        host_seconds(lambda: ts + tt, tsync) if torch else None)
    row("host cost: a * 2, 1000 floats", None, host_seconds(lambda: s * 2, ysync),
        host_seconds(lambda: ts * 2, tsync) if torch else None)
    print("cudaMalloc calls made by yaten:", yaten.cuda.memory_stats()["num_device_alloc"])


if __name__ == "__main__":
    main()
