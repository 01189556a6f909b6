"""The CUDA backend. Skipped without a GPU (CI has none); run on a GPU machine to check the path."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import yaten
from codegen import parse

pytestmark = pytest.mark.skipif(not yaten.cuda.is_available(), reason="no CUDA GPU")
OPS = parse.load(Path(__file__).resolve().parent.parent / "ops.yaml").ops


def test_round_trip_to_the_gpu():
    x = yaten.tensor([[1.5, -2.0], [3.0, 4.25]])
    g = x.cuda()
    assert g.is_cuda and str(g.device) == "cuda:0"
    assert g.cpu().tolist() == x.tolist()
    assert yaten.tensor([1, 2], device="cuda").cpu().tolist() == [1, 2]


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int32", "int64", "float16", "bfloat16", "float32", "float64"])
def test_add_on_cuda_matches_cpu(dtype):
    d = getattr(yaten, dtype)
    flat = yaten.arange(12).to(d)
    matrix = yaten.tensor([[float(v) for v in range(4)]] * 3).to(d)
    row = yaten.tensor([1, 2, 3, 4]).to(d)
    for x, y in ((flat, flat), (matrix, row)):  # same shape, and broadcasting
        expected = yaten.add(x, y, alpha=2)
        actual = yaten.add(x.cuda(), y.cuda(), alpha=2)
        assert actual.is_cuda and actual.dtype == expected.dtype
        assert actual.cpu().tolist() == expected.tolist()


def test_add_with_python_number_and_inplace_on_cuda():
    g = yaten.ones(4, device="cuda")
    assert (g + 2).cpu().tolist() == [3.0] * 4
    assert g.add_(g) is g and g.cpu().tolist() == [2.0] * 4


def test_factories_on_cuda():
    assert yaten.full((2, 2), 3.0, device="cuda").cpu().tolist() == [[3.0, 3.0], [3.0, 3.0]]
    assert yaten.zeros(3, device="cuda").cpu().tolist() == [0.0] * 3


def test_missing_cuda_kernel_names_op_key_and_fix():
    # every op of ops.yaml has a CUDA kernel now (tests/test_coverage.py): an op registered for the CPU alone
    yaten.library.define("cudatest::twice(Tensor x) -> Tensor")

    @yaten.library.impl("cudatest::twice", "CPU")
    def twice(x):
        return x * 2

    g = yaten.ones(2, device="cuda")
    with pytest.raises(NotImplementedError, match=r"cudatest::twice has no kernel for CUDA. Registered: CPU \(.*"
                                                  r"test_cuda.py.*Move the tensors with .cpu\(\)"):
        yaten.ops.cudatest.twice(g)


def test_tensors_on_two_devices_raise():
    with pytest.raises(RuntimeError, match="expected all tensors to be on the same device"):
        yaten.add(yaten.ones(2, device="cuda"), yaten.ones(2))


def test_unknown_device_index_is_a_clear_error():
    n = yaten.cuda.device_count()
    with pytest.raises(RuntimeError, match=rf"cuda:{n + 6} does not exist \({n} CUDA device"):
        yaten.ones(2, device=f"cuda:{n + 6}")
    with pytest.raises(RuntimeError, match="does not exist"):
        yaten.cuda.set_device(n + 6)


def test_devices_and_names():
    assert yaten.cuda.current_device() == 0
    assert isinstance(yaten.cuda.get_device_name(), str) and yaten.cuda.get_device_name()
    assert yaten.cuda.get_device_capability()[0] >= 3
    with yaten.cuda.device(0):
        assert yaten.ones(1, device="cuda").device == yaten.device("cuda", 0)


# ------------------------------------------------------------------------------------------------ allocator


def test_allocator_reuses_freed_blocks_in_a_steady_loop():
    a = yaten.ones(1 << 20, device="cuda")
    b = yaten.ones(1 << 20, device="cuda")
    yaten.cuda.synchronize()
    before = yaten.cuda.memory_stats()["num_device_alloc"]
    for _ in range(100):
        c = a + b
        del c
    yaten.cuda.synchronize()
    assert yaten.cuda.memory_stats()["num_device_alloc"] - before <= 2


def test_memory_stats_follow_tensors():
    yaten.cuda.synchronize()
    base = yaten.cuda.memory_allocated()
    yaten.cuda.reset_peak_memory_stats()
    x = yaten.empty(1000, dtype=yaten.float32, device="cuda")  # 4,000 bytes, rounded up to 512-byte blocks
    assert yaten.cuda.memory_allocated() - base == 4096
    assert yaten.cuda.max_memory_allocated() >= base + 4096
    assert yaten.cuda.memory_reserved() >= yaten.cuda.memory_allocated()
    del x
    assert yaten.cuda.memory_allocated() == base
    assert yaten.cuda.max_memory_allocated() >= base + 4096
    stats = yaten.cuda.memory_stats()
    for key in ("allocated_bytes.all.current", "reserved_bytes.all.current", "num_ooms", "num_alloc_retries",
                "segment.all.current"):
        assert key in stats
    yaten.cuda.empty_cache()
    assert yaten.cuda.memory_reserved() <= stats["reserved_bytes.all.current"]


def test_impossible_allocation_raises_out_of_memory_and_process_stays_usable():
    ooms = yaten.cuda.memory_stats()["num_ooms"]
    with pytest.raises(yaten.cuda.OutOfMemoryError, match=r"Tried to allocate 4.00 PiB|Tried to allocate .* GiB"
                                                           r".*total capacity.*empty_cache"):
        yaten.empty(1 << 50, dtype=yaten.float32, device="cuda")
    assert issubclass(yaten.cuda.OutOfMemoryError, RuntimeError)
    assert yaten.cuda.memory_stats()["num_ooms"] == ooms + 1
    assert (yaten.ones(3, device="cuda") * 2).cpu().tolist() == [2.0] * 3


# ------------------------------------------------------------------------------------------------ streams, events


def test_work_on_a_side_stream_and_wait_stream():
    side = yaten.cuda.Stream()
    assert side != yaten.cuda.default_stream()
    x = yaten.ones(1 << 20, device="cuda")
    side.wait_stream(yaten.cuda.current_stream())
    with yaten.cuda.stream(side):
        assert yaten.cuda.current_stream() == side
        y = x * 3
        y.record_stream(side)
    assert yaten.cuda.current_stream() == yaten.cuda.default_stream()
    yaten.cuda.current_stream().wait_stream(side)
    assert (y + 1).cpu()[:3].tolist() == [4.0, 4.0, 4.0]
    side.synchronize()
    assert side.query()


def test_generic_stream_and_event_on_cuda_are_cudas():
    stream = yaten.Stream("cuda")
    assert stream.device_type == 1 and stream.device_index == yaten.cuda.current_device() and stream.stream_id != 0
    x = yaten.ones(1 << 20, device="cuda")
    stream.wait_stream(yaten.Stream("cuda"))
    start, end = yaten.Event("cuda", enable_timing=True), yaten.Event("cuda", enable_timing=True)
    with stream:
        assert yaten.cuda.current_stream().cuda_stream == stream.stream_id
        y = x * 3
        start.record(stream)
        y = y * 2  # on `stream`, after x * 3 there: the default stream has not waited for it
        end.record(stream)
    end.synchronize()
    assert end.query() and start.elapsed_time(end) >= 0
    yaten.cuda.current_stream().wait_event(end._cuda)
    assert y.cpu()[:2].tolist() == [6.0, 6.0]
    assert yaten.Stream().device.type == "cuda"  # the current accelerator by default, as torch


def test_events_time_the_work_between_them():
    start, end = yaten.cuda.Event(enable_timing=True), yaten.cuda.Event(enable_timing=True)
    x = yaten.ones(1 << 22, device="cuda")
    start.record()
    for _ in range(10):
        x = x * 1.0001
    end.record()
    end.synchronize()
    assert end.query()
    assert start.elapsed_time(end) > 0
    with pytest.raises(RuntimeError, match="enable_timing"):
        yaten.cuda.Event().elapsed_time(yaten.cuda.Event())


def test_pinned_non_blocking_copies():
    host = yaten.arange(1 << 20, dtype=yaten.float32)
    assert not host.is_pinned()
    pinned = host.pin_memory()
    assert pinned.is_pinned() and pinned.tolist()[:5] == [0.0, 1.0, 2.0, 3.0, 4.0]
    g = pinned.to("cuda", non_blocking=True)
    back = yaten.empty(1 << 20).pin_memory()
    back.copy_(g * 2, non_blocking=True)
    yaten.cuda.synchronize()
    assert back[:4].tolist() == [0.0, 2.0, 4.0, 6.0] and back[-1].item() == 2.0 * ((1 << 20) - 1)
    assert g.cpu().tolist()[-3:] == host.tolist()[-3:]


def test_gradients_of_pointwise_and_reduction_ops_on_cuda_match_cpu():
    x = yaten.linspace(-2, 2, 12).reshape(3, 4)
    w = yaten.linspace(0.5, 1.5, 4)
    grads = []
    for device in ("cpu", "cuda"):
        a = x.clone().to(device).requires_grad_()
        b = w.clone().to(device).requires_grad_()
        loss = ((a * b).tanh().exp() + a.sigmoid() * 2 - b).softmax(-1).amax(1).sum() + (a / 3).mean()
        loss.backward()
        assert a.grad.is_cuda == (device == "cuda")
        grads.append((a.grad.cpu().tolist(), b.grad.cpu().tolist()))
    for cpu, cuda in zip(grads[0], grads[1]):
        np.testing.assert_allclose(np.array(cuda), np.array(cpu), rtol=1e-5, atol=1e-6)


def test_gradient_through_a_copy_to_the_gpu_returns_to_the_cpu():
    w = yaten.linspace(-1, 1, 6).requires_grad_()
    (w.cuda() * 3).sum().backward()
    assert not w.grad.is_cuda and w.grad.tolist() == [3.0] * 6
