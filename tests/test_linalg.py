"""Matrix products against torch: every matmul broadcasting case, mm/bmm per dtype (OpenBLAS for float32/float64,
the blocked loop for the rest), non-contiguous operands, degenerate shapes, errors, `@` and `@=`."""

from __future__ import annotations

import numpy as np
import pytest

import yaten
from helpers import from_torch, random_torch, to_torch
from test_ops import assert_matches

SHAPES = [
    ((4,), (4,)), ((3, 4), (4,)), ((4,), (4, 5)), ((3, 4), (4, 5)), ((2, 3, 4), (4,)), ((4,), (2, 4, 5)),
    ((2, 3, 4), (4, 5)), ((3, 4), (2, 4, 5)), ((2, 1, 3, 4), (5, 4, 2)), ((0, 4), (4, 3)), ((3, 0), (0, 2)),
]


@pytest.mark.parametrize("dtype", ["int32", "int64", "float16", "bfloat16", "float32", "float64"])
@pytest.mark.parametrize("sa,sb", SHAPES, ids=[f"{a}x{b}" for a, b in SHAPES])
def test_matmul_matches_torch(torch, dtype, sa, sb):
    gen = torch.Generator().manual_seed(51)
    a, b = random_torch(torch, dtype, sa, gen, -3, 4), random_torch(torch, dtype, sb, gen, -3, 4)
    if dtype in ("float16", "bfloat16"):  # torch's CPU half matmul rounds differently: compare in float32
        expected = torch.matmul(a.float(), b.float()).to(a.dtype)
    else:
        expected = torch.matmul(a, b)
    assert_matches(torch, yaten.matmul(from_torch(a), from_torch(b)), expected)
    assert_matches(torch, from_torch(a) @ from_torch(b), expected)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_mm_with_transposed_and_sliced_operands(torch, dtype):
    gen = torch.Generator().manual_seed(52)
    a = random_torch(torch, dtype, (6, 8), gen)
    b = random_torch(torch, dtype, (8, 10), gen)
    ya, yb = from_torch(a), from_torch(b)
    for left, right, yl, yr in ((a, b, ya, yb), (b.T, a.T, yb.T, ya.T), (a[:, ::2], b[::2], ya[:, ::2], yb[::2]),
                                (a[1:4], b[:, 3:7], ya[1:4], yb[:, 3:7])):
        assert_matches(torch, yaten.mm(yl, yr), torch.mm(left, right))
    x = random_torch(torch, dtype, (3, 4, 5), gen)
    y = random_torch(torch, dtype, (3, 5, 2), gen)
    assert_matches(torch, yaten.bmm(from_torch(x), from_torch(y)), torch.bmm(x, y))
    assert_matches(torch, from_torch(x).transpose(1, 2).bmm(from_torch(x)), x.transpose(1, 2).bmm(x))


def test_vector_products_addmm_linear(torch):
    gen = torch.Generator().manual_seed(53)
    m, v, w = torch.randn(3, 4, generator=gen), torch.randn(4, generator=gen), torch.randn(3, generator=gen)
    ym, yv, yw = from_torch(m), from_torch(v), from_torch(w)
    assert_matches(torch, yaten.dot(yv, yv), torch.dot(v, v))
    assert_matches(torch, yaten.mv(ym, yv), torch.mv(m, v))
    assert_matches(torch, yaten.outer(yw, yv), torch.outer(w, v))
    c = torch.randn(3, 5, generator=gen)
    k = torch.randn(4, 5, generator=gen)
    assert_matches(torch, yaten.addmm(from_torch(c), ym, from_torch(k), beta=0.5, alpha=2),
                   torch.addmm(c, m, k, beta=0.5, alpha=2))
    assert_matches(torch, yaten.addmm(yw.unsqueeze(1), ym, from_torch(k)), torch.addmm(w.unsqueeze(1), m, k))
    weight, bias = torch.randn(6, 4, generator=gen), torch.randn(6, generator=gen)
    x = torch.randn(2, 5, 4, generator=gen)
    F, YF = torch.nn.functional, yaten.nn.functional
    assert_matches(torch, YF.linear(from_torch(x), from_torch(weight), from_torch(bias)), F.linear(x, weight, bias))
    assert_matches(torch, YF.linear(from_torch(x), from_torch(weight)), F.linear(x, weight))
    t = from_torch(m[:, :3].contiguous())
    before = t
    t @= from_torch(torch.eye(3))
    assert t is before


def test_matmul_errors_name_the_problem():
    with pytest.raises(RuntimeError, match=r"mm: mat1 and mat2 shapes cannot be multiplied \(2x3 and 4x5\)"):
        yaten.mm(yaten.zeros(2, 3), yaten.zeros(4, 5))
    with pytest.raises(RuntimeError, match="expected m1 and m2 to have the same dtype, but got: float32 != float64"):
        yaten.mm(yaten.zeros(2, 3), yaten.zeros(3, 2, dtype=yaten.float64))
    with pytest.raises(RuntimeError, match="both arguments to matmul need to be at least 1D"):
        yaten.matmul(yaten.tensor(1.0), yaten.zeros(2))
    with pytest.raises(RuntimeError, match="inconsistent tensor size"):
        yaten.zeros(3) @ yaten.zeros(4)
    with pytest.raises(RuntimeError, match="@= would change the shape"):
        t = yaten.zeros(2, 3)
        t @= yaten.zeros(3, 4)


def _with_threads(threads, fn):
    before = yaten.get_num_threads()
    yaten.set_num_threads(threads)
    try:
        return fn()
    finally:
        yaten.set_num_threads(before)


# Note [One pool for the BLAS]: a large product is split into blocks of rows or of columns over yaten's threads,
# each block a single-threaded BLAS call on a slice of an operand. These shapes take each split (more columns than
# rows, the reverse, a count of columns that is not a whole number of cache lines, one row or column), with each
# operand as it is stored or transposed, against NumPy in double precision.
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128"])
@pytest.mark.parametrize("threads", [1, 2, 3])
def test_products_split_over_threads_match_numpy(dtype, threads):
    assert "OpenBLAS" in yaten._C._blas_config()
    rng = np.random.default_rng(71)
    wide = np.complex128 if dtype.startswith("complex") else np.float64
    tol = 1e-5 if dtype in ("float32", "complex64") else 1e-12
    for m, n, k in [(300, 77, 40), (37, 513, 50), (1, 5000, 60), (5000, 1, 60), (129, 131, 127)]:
        for a_t in (False, True):
            for b_t in (False, True):
                a = rng.standard_normal((k, m) if a_t else (m, k)).astype(wide)
                b = rng.standard_normal((n, k) if b_t else (k, n)).astype(wide)
                if dtype.startswith("complex"):
                    a, b = a + 1j * rng.standard_normal(a.shape), b + 1j * rng.standard_normal(b.shape)
                a, b = a.astype(dtype), b.astype(dtype)
                ya, yb = yaten.from_numpy(a), yaten.from_numpy(b)
                ya, yb = (ya.T if a_t else ya), (yb.T if b_t else yb)
                expected = (a.T if a_t else a).astype(wide) @ (b.T if b_t else b).astype(wide)
                got = _with_threads(threads, lambda: (ya @ yb).numpy())
                scale = np.abs(expected).max()
                assert np.abs(got - expected).max() <= tol * scale * np.sqrt(k), (m, n, k, a_t, b_t)


def test_products_from_several_python_threads_at_once():
    # Note [One pool for the BLAS]: while one caller's product holds the pool, another's runs whole on its own thread;
    # OpenBLAS, single-threaded, is called from several threads at once. Every product stays right.
    import threading

    rng = np.random.default_rng(73)
    pairs = [(rng.standard_normal((300, 200)).astype(np.float32), rng.standard_normal((200, 400)).astype(np.float32))
             for _ in range(4)]
    wrong: list[tuple[int, float]] = []

    def work(i):
        a, b = pairs[i]
        expected = a.astype(np.float64) @ b
        ya, yb = yaten.from_numpy(a), yaten.from_numpy(b)
        for _ in range(20):
            err = float(np.abs((ya @ yb).numpy() - expected).max())
            if err > 1e-3:
                wrong.append((i, err))

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    _with_threads(2, lambda: ([t.start() for t in threads], [t.join() for t in threads]))
    assert wrong == []


# bmm shares its matrices out over the threads when they divide evenly (or there are many), else it splits each
# product: both, with stored, transposed and broadcast (stride-0) batches, against torch.
@pytest.mark.parametrize("threads", [1, 2, 3])
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64"])
def test_bmm_over_threads_matches_torch(torch, threads, dtype):
    gen = torch.Generator().manual_seed(72)
    tdt = getattr(torch, dtype)
    tol = dict(rtol=1e-5, atol=1e-5) if dtype != "float64" else dict(rtol=1e-12, atol=1e-12)
    for batch, n, k, m in [(6, 40, 30, 50), (5, 64, 64, 64), (2, 200, 90, 150), (13, 3, 5, 4), (0, 3, 4, 5),
                           (4, 3, 0, 5)]:
        a, b = torch.randn(batch, n, k, generator=gen, dtype=tdt), torch.randn(batch, k, m, generator=gen, dtype=tdt)
        a_t, b_t = a.mT.contiguous(), b.mT.contiguous()  # stored transposed
        one = torch.randn(1, k, m, generator=gen, dtype=tdt)
        cases = [
            (from_torch(a), from_torch(b), a, b),
            (from_torch(a_t).mT, from_torch(b), a_t.mT, b),
            (from_torch(a), from_torch(b_t).mT, a, b_t.mT),
            (from_torch(a), from_torch(one).expand(batch, k, m), a, one.expand(batch, k, m)),
        ]
        for ya, yb, ta, tb in cases:
            got = _with_threads(threads, lambda: yaten.bmm(ya, yb))
            torch.testing.assert_close(to_torch(torch, got), torch.bmm(ta, tb), **tol)


# ---------------------------------------------------------------------------------------------------- more products

@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_baddbmm_addmv_vdot_vecdot_tensordot_match_torch(torch, dtype):
    gen = torch.Generator().manual_seed(61)

    def r(*shape):
        return random_torch(torch, dtype, shape, gen, -3, 4)

    y = from_torch
    s, b1, b2 = r(2, 3, 5), r(2, 3, 4), r(2, 4, 5)
    assert_matches(torch, yaten.baddbmm(y(s), y(b1), y(b2)), torch.baddbmm(s, b1, b2))
    assert_matches(torch, y(s[0, 0]).baddbmm(y(b1), y(b2), beta=2, alpha=3), s[0, 0].baddbmm(b1, b2, beta=2, alpha=3))
    m, v, bias = r(3, 4), r(4), r(3)
    assert_matches(torch, yaten.addmv(y(bias), y(m), y(v)), torch.addmv(bias, m, v))
    assert_matches(torch, yaten.addmv(y(bias), y(m), y(v), beta=0, alpha=2), torch.addmv(bias, m, v, beta=0, alpha=2))
    assert_matches(torch, yaten.vdot(y(v), y(v)), torch.vdot(v, v))
    x1, x2, x3, x4 = r(3, 1, 4), r(5, 4), r(4, 3), r(4, 1)
    if dtype == "int64":  # as torch: floating only
        with pytest.raises(RuntimeError, match="vecdot"):
            yaten.linalg.vecdot(y(x1), y(x2))
    else:
        assert_matches(torch, yaten.linalg.vecdot(y(x1), y(x2)), torch.linalg.vecdot(x1, x2))
        assert_matches(torch, yaten.linalg.vecdot(y(x3), y(x4), dim=0), torch.linalg.vecdot(x3, x4, dim=0))
    a, b, c, d = r(3, 4, 5), r(4, 5, 2), r(5, 3, 4), r(2, 2)
    assert_matches(torch, yaten.tensordot(y(a), y(b)), torch.tensordot(a, b))
    assert_matches(torch, yaten.tensordot(y(a), y(b), ([1, 2], [0, 1])), torch.tensordot(a, b, ([1, 2], [0, 1])))
    assert_matches(torch, yaten.tensordot(y(a), y(c), ([2, 1], [0, 2])), torch.tensordot(a, c, ([2, 1], [0, 2])))
    assert_matches(torch, yaten.tensordot(y(a), y(d), 0), torch.tensordot(a, d, 0))
    with pytest.raises(RuntimeError, match="tensordot"):
        yaten.tensordot(y(a), y(b), ([0], [0]))
    with pytest.raises(RuntimeError, match="vdot"):
        yaten.vdot(y(m), y(m))


EINSUMS = [
    ("ij,jk->ik", [(3, 4), (4, 5)]), ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]), ("ii->i", [(4, 4)]), ("ii", [(4, 4)]),
    ("ij->ji", [(3, 4)]), ("ij->", [(3, 4)]), ("i,i->", [(5,), (5,)]), ("i,j->ij", [(3,), (4,)]),
    ("ij,ij->ij", [(3, 4), (3, 4)]), ("...ij,...jk->...ik", [(2, 1, 3, 4), (5, 4, 2)]), ("bhqd,bhkd->bhqk",
    [(2, 3, 4, 5), (2, 3, 6, 5)]), ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]), ("ijk,k", [(2, 3, 4), (4,)]),
    ("iij->j", [(3, 3, 2)]), ("ab,cd->", [(2, 3), (4, 5)]), ("i...->...", [(3, 4, 5)]), ("ji,j", [(3, 4), (3,)]),
]


@pytest.mark.parametrize("equation,shapes", EINSUMS, ids=[e for e, _ in EINSUMS])
@pytest.mark.parametrize("dtype", ["float64", "int64"])
def test_einsum_matches_torch(torch, equation, shapes, dtype):
    gen = torch.Generator().manual_seed(62)
    operands = [random_torch(torch, dtype, s, gen, -3, 4) for s in shapes]
    assert_matches(torch, yaten.einsum(equation, *[from_torch(o) for o in operands]), torch.einsum(equation, *operands))
    assert_matches(torch, yaten.einsum(equation, [from_torch(o) for o in operands]), torch.einsum(equation, operands))


def test_einsum_errors():
    a = yaten.ones(2, 3)
    with pytest.raises(RuntimeError, match="subscripts"):
        yaten.einsum("ijk->i", a)
    with pytest.raises(RuntimeError, match="operand"):
        yaten.einsum("ij,jk->ik", a)
    with pytest.raises(RuntimeError, match="output subscript"):
        yaten.einsum("ij->z", a)
    with pytest.raises(RuntimeError, match="invalid subscript"):
        yaten.einsum("i1->i", a)
    with pytest.raises(RuntimeError, match="einsum"):
        yaten.einsum("ij,ij->i", a, yaten.ones(2, 4))


def test_openblas_thread_timeout_is_set_before_the_library_opens():
    """Note [LAPACK on the BLAS's threads] (csrc/core/blas.h): OpenBLAS reads OPENBLAS_THREAD_TIMEOUT when its library
    is opened, which `import scipy_openblas32` already does (through ctypes). A fresh interpreter records the variable
    at the moment that import starts: yaten must have set it by then (set after it, it never took effect, and
    OpenBLAS's workers spun ~0.1 s after every threaded LAPACK call); a value the user set is kept."""
    import os
    import subprocess
    import sys

    probe = (
        "import importlib.abc, os, sys\n"
        "seen = []\n"
        "class Probe(importlib.abc.MetaPathFinder):\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'scipy_openblas32':\n"
        "            seen.append(os.environ.get('OPENBLAS_THREAD_TIMEOUT'))\n"
        "        return None\n"
        "sys.meta_path.insert(0, Probe())\n"
        "import yaten\n"
        "print(seen[0] if seen else 'never imported')\n"
    )
    for given, expected in ((None, "18"), ("7", "7")):
        env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_THREAD_TIMEOUT"}
        if given is not None:
            env["OPENBLAS_THREAD_TIMEOUT"] = given
        out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, check=True)
        assert out.stdout.strip().splitlines()[-1] == expected, out.stdout + out.stderr
