"""Memory its owner made read-only stays unwritten: a tensor over a read-only NumPy array, a read-only memory map or
a DLPack capsule flagged read-only raises on every write (in place, out=, index assignment, copy_, through a view)
and reads without a copy (the reliability issue's first crash class: a read-only memmap write was a segfault)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest

import yaten

WRITES = [
    lambda t: t.__setitem__(0, 3.0),
    lambda t: t.add_(1),
    lambda t: t.copy_(yaten.ones(4, dtype=yaten.float64)),
    lambda t: yaten.add(yaten.ones(4, dtype=yaten.float64), 1, out=t),
    lambda t: t[1:].mul_(2),
    lambda t: t.view(2, 2).zero_(),
    lambda t: t.index_copy_(0, yaten.tensor([1]), yaten.tensor([5.0], dtype=yaten.float64)),
    lambda t: t.__setitem__(yaten.tensor([True, False, True, False]), 7.0),
    # the dispatcher's boxed path, by name (found by the fuzzer's foreign-memory class: it wrote, and a read-only
    # memory map was a segfault)
    lambda t: yaten.ops.yaten.neg_.default(t),
    lambda t: yaten.ops.yaten.neg.out(yaten.ones(4, dtype=yaten.float64), out=t),
    lambda t: yaten.ops.yaten.add_(t, 1),
]


@pytest.mark.parametrize("write", WRITES, ids=["setitem", "add_", "copy_", "out=", "view mul_", "view zero_",
                                               "index_copy_", "mask setitem", "ops in place", "ops out=",
                                               "ops packet"])
def test_every_write_into_a_read_only_array_raises(write):
    a = np.arange(4.0)
    a.setflags(write=False)
    t = yaten.from_numpy(a)
    with pytest.raises(RuntimeError, match="read-only.*clone"):
        write(t)
    assert a.tolist() == [0.0, 1.0, 2.0, 3.0]


def test_reading_stays_zero_copy_and_copies_are_writable():
    a = np.arange(4.0)
    a.setflags(write=False)
    t = yaten.from_numpy(a)
    assert t.data_ptr() == a.ctypes.data and (t * 2).tolist() == [0.0, 2.0, 4.0, 6.0]
    assert not t.numpy().flags.writeable  # the flag travels back to NumPy
    c = t.clone()
    c.add_(1)
    assert c.tolist() == [1.0, 2.0, 3.0, 4.0]
    writable = np.arange(3.0)
    yaten.from_numpy(writable).add_(1)
    assert writable.tolist() == [1.0, 2.0, 3.0]


def test_read_only_dlpack_capsule_is_read_only():
    a = np.arange(4.0)
    a.setflags(write=False)
    try:
        t = yaten.from_dlpack(a)
    except (BufferError, TypeError) as exc:
        pytest.skip(f"this NumPy does not export read-only arrays through DLPack ({exc})")
    with pytest.raises(RuntimeError, match="read-only"):
        t.add_(1)
    assert a.tolist() == [0.0, 1.0, 2.0, 3.0]


def test_read_only_memory_map_write_raises_instead_of_crashing(tmp_path):
    path = tmp_path / "data.bin"
    np.arange(6.0).tofile(path)
    code = textwrap.dedent(f"""
        import numpy as np, yaten
        m = np.memmap({str(path)!r}, dtype=np.float64, mode="r")
        t = yaten.from_numpy(m)
        try:
            t[0] = 1.0
        except RuntimeError as e:
            print("RuntimeError", "read-only" in str(e))
        print(t.sum().item())
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["RuntimeError", "True", "15.0"]


def test_a_write_by_name_makes_saved_tensors_stale():
    # the boxed path bumps the version counter as the generated entry points do, so autograd sees the write
    u = yaten.ones(3, requires_grad=True) * 1
    v = u.sin()  # saves u
    yaten.ops.yaten.neg_.default(u)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        v.sum().backward()


def test_unaligned_arrays_are_refused_by_the_sharing_calls_and_copied_by_the_others():
    # Note [Unaligned foreign memory]: kernels read aligned elements; a view one byte off is not shared
    a = np.frombuffer(bytearray(4 * 6 + 1), dtype=np.uint8)[1:].view(np.float32)
    a[:] = np.arange(6)
    with pytest.raises(ValueError, match="from_numpy: .*multiple of its 4-byte element size.*copy"):
        yaten.from_numpy(a)
    with pytest.raises(ValueError, match="from_dlpack: .*element size"):
        yaten.from_dlpack(a)
    for t in (yaten.as_tensor(a), yaten.tensor(a)):
        assert t.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0] and t.data_ptr() % 4 == 0
    assert yaten.from_numpy(np.zeros(0, dtype=np.float64)[:0]).numel() == 0


def _read_only_through_dlpack(t):
    """`t` re-imported through a DLPack 1.x capsule whose producer flags it read-only (DLPACK_FLAG_BITMASK_READ_ONLY,
    set in the capsule's DLManagedTensorVersioned, whose flags follow the version, manager_ctx and deleter)."""
    import ctypes

    capsule = t.__dlpack__(max_version=(1, 1))
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype, get.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    flags = ctypes.c_uint64.from_address(get(capsule, b"dltensor_versioned") + 24)
    flags.value |= 1
    return yaten.from_dlpack(capsule)


@pytest.mark.parametrize("device", ["cpu", pytest.param("cuda", marks=pytest.mark.skipif(
    not yaten.cuda.is_available(), reason="no CUDA GPU"))])
def test_read_only_memory_refuses_writes_on_every_device(device):
    # crash class 1 on each device: the flag is the storage's, so the generated entry points and the boxed path
    # refuse a write into read-only CUDA memory as they do on the CPU
    source = yaten.arange(4.0, device=device)
    t = _read_only_through_dlpack(source)
    assert t.device.type == device and t.data_ptr() == source.data_ptr()
    for write in (lambda: t.add_(1), lambda: t.copy_(yaten.ones(4, device=device)),
                  lambda: yaten.ops.yaten.neg_.default(t), lambda: t.__setitem__(0, 5.0),
                  lambda: yaten.mul(source, 2, out=t)):
        with pytest.raises(RuntimeError, match="read-only"):
            write()
    assert source.cpu().tolist() == [0.0, 1.0, 2.0, 3.0]
    assert (t * 2).cpu().tolist() == [0.0, 2.0, 4.0, 6.0]  # reading stays allowed
