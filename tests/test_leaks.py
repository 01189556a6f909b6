"""Nothing leaks: many op calls and training steps leave the resident memory flat, and memory shared with NumPy or
through DLPack stays valid for as long as either side holds it. The loops run in a child process, measured after a
warm-up (the allocator's block cache, the first call of each op), with generous bounds: a leak of one small tensor per
call would be hundreds of MiB here."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import os

import pytest

# Under AddressSanitizer (tools/sanitize.sh) freed memory waits in a quarantine, so the resident size grows anyway.
pytestmark = pytest.mark.skipif("libasan" in os.environ.get("LD_PRELOAD", ""),
                                reason="AddressSanitizer's quarantine holds freed memory")

MEASURE = """
import gc, os, resource
import yaten

def rss_mib():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20

def measure(loop, warm_up, n):  # prints the resident memory (MiB) after loop(warm_up), then after loop(n) more
    loop(warm_up)
    gc.collect()
    before = rss_mib()
    loop(n)
    gc.collect()
    print(before, rss_mib())
"""


def run(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", MEASURE + textwrap.dedent(code)], capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def assert_flat(out: str, bound_mib: float = 16) -> None:
    before, after = map(float, out.split())
    assert after - before < bound_mib, f"resident memory grew from {before:.1f} to {after:.1f} MiB"


def test_a_million_op_calls_leave_memory_flat():
    out = run("""
        a, b = yaten.ones(64), yaten.arange(64.0)
        def calls(n):
            for _ in range(n):
                c = a + b                 # an op with a new result
                c.mul_(2)                 # in place
                d = c[3:9].sum(0)         # a view and a reduction
                e = yaten.where(c > 4, c, d)
                _ = e.tolist(), c.shape, yaten.cat([a, e])
        measure(calls, 20_000, 200_000)   # x 7 ops each: over a million calls
    """)
    assert_flat(out)


def test_training_steps_leave_memory_flat():
    out = run("""
        import yaten.nn.functional as F
        g = yaten.Generator().manual_seed(0)
        w1 = (yaten.randn(32, 64, generator=g) * 0.1).requires_grad_()
        w2 = (yaten.randn(64, 10, generator=g) * 0.1).requires_grad_()
        x, y = yaten.randn(16, 32, generator=g), yaten.randint(0, 10, (16,), generator=g)
        def steps(n):
            for _ in range(n):
                loss = F.cross_entropy(yaten.relu(x @ w1) @ w2, y)
                loss.backward()
                with yaten.no_grad():
                    for w in (w1, w2):
                        w -= 0.01 * w.grad
                        w.grad = None
        measure(steps, 1_000, 10_000)
    """)
    assert_flat(out)


def test_failing_calls_leave_memory_flat():
    # Error paths free what they allocated (the exception, its message, half-built results).
    out = run("""
        a = yaten.ones(3, 4)
        def calls(n):
            for _ in range(n):
                for bad in (lambda: a @ a, lambda: a.view(5), lambda: a.sum(7), lambda: yaten.cat([a, a.t()])):
                    try:
                        bad()
                    except (RuntimeError, IndexError, ValueError):
                        pass
        measure(calls, 10_000, 100_000)
    """)
    assert_flat(out)


@pytest.mark.parametrize("direction", ["numpy_to_yaten", "yaten_to_numpy", "dlpack_in", "dlpack_out"])
def test_shared_memory_outlives_the_side_that_made_it(direction):
    np = pytest.importorskip("numpy")
    out = run(f"""
        import numpy as np
        direction = {direction!r}
        n = 1 << 20
        for round in range(50):
            if direction == "numpy_to_yaten":
                src = np.arange(n, dtype=np.float32)
                held = yaten.from_numpy(src)
            elif direction == "yaten_to_numpy":
                src = yaten.arange(n, dtype=yaten.float32)
                held = src.numpy()
            elif direction == "dlpack_in":
                src = np.arange(n, dtype=np.float32)
                held = yaten.from_dlpack(src)
            else:
                src = yaten.arange(n, dtype=yaten.float32)
                held = np.from_dlpack(src)
            del src
            gc.collect()
            junk = [np.full(n, 7.0, dtype=np.float32), yaten.full((n,), 7.0)]  # reuse freed memory, if any was
            assert float(held[n - 1]) == n - 1 and float(held[12345]) == 12345, round
            del held, junk
        gc.collect()
        print(rss_mib())
    """)
    assert float(out) < 1024  # 50 rounds of 4 MiB each side were freed
