"""torch.linalg on CUDA (cuSOLVER and cuBLAS's trsm, kernels/cuda/solver.cuh) against the CPU's LAPACK kernels, which
tests/test_linalg*.py hold to torch: every factorization and the composites over them, batched, in float32, float64,
complex64 and complex128, with their errors. Factors that are unique only up to a sign or phase per column (QR's,
the SVD's and eigh's vectors) are compared after that freedom is taken out. Gradients on CUDA are in
tests/test_cuda_autograd.py. Skipped without a GPU (CI has none)."""

from __future__ import annotations

import numpy as np
import pytest

import yaten

pytestmark = pytest.mark.skipif(not yaten.cuda.is_available(), reason="no CUDA GPU")
DEVICE = "cuda"
DTYPES = ["float32", "float64", "complex64", "complex128"]
TOL = {"float32": 2e-4, "float64": 1e-10, "complex64": 2e-4, "complex128": 1e-10}


def matrices(shape, dtype, seed, shift=0.0):
    """Random matrices (entries in [-1, 1), both parts for complex), plus shift * I on the square ones."""
    g = yaten.Generator().manual_seed(seed)
    x = yaten.rand(tuple(shape) + (2,), generator=g, dtype=yaten.float64) * 2 - 1
    x = yaten.view_as_complex(x) if dtype.startswith("complex") else x[..., 0]
    if shift and shape[-1] == shape[-2]:
        x = x + shift * yaten.eye(shape[-1], dtype=x.dtype)
    return x.to(getattr(yaten, dtype))


def close(actual, expected, dtype, what, scale=1.0):
    assert actual.device.type == DEVICE, f"{what}: on {actual.device}"
    assert actual.dtype == expected.dtype and tuple(actual.shape) == tuple(expected.shape), \
        (what, actual.dtype, expected.dtype, tuple(actual.shape), tuple(expected.shape))
    np.testing.assert_allclose(actual.cpu().numpy(), expected.numpy(), rtol=TOL[dtype] * scale,
                               atol=TOL[dtype] * scale, err_msg=what)


def mH(x):
    return x.transpose(-2, -1).conj()


def column_phases(a, b):
    """The unit factors d (one per column) with a * d ~ b, for matrices whose columns are unique up to them."""
    dots = (a.conj() * b).sum(-2)
    return dots / dots.abs().clamp_min(1e-30)


@pytest.mark.parametrize("dtype", DTYPES)
def test_lu_factor_and_solves_match_cpu(dtype):
    a = matrices((3, 6, 6), dtype, 1)
    b = matrices((3, 6, 2), dtype, 2)
    lu, piv, info = yaten.linalg.lu_factor_ex(a.to(DEVICE))
    lu_c, piv_c, info_c = yaten.linalg.lu_factor_ex(a)
    close(lu, lu_c, dtype, "LU")
    assert piv.dtype == yaten.int32 and piv.device.type == DEVICE
    np.testing.assert_array_equal(piv.cpu().numpy(), piv_c.numpy())
    np.testing.assert_array_equal(info.cpu().numpy(), info_c.numpy())
    for left in (True, False):
        for adjoint in (False, True):
            rhs = b if left else mH(b)
            x = yaten.linalg.lu_solve(lu, piv, rhs.to(DEVICE), left=left, adjoint=adjoint)
            close(x, yaten.linalg.lu_solve(lu_c, piv_c, rhs, left=left, adjoint=adjoint), dtype,
                  f"lu_solve left={left} adjoint={adjoint}", scale=10)
    # wide and tall LU, and the composites over it
    for shape in ((4, 7), (7, 4)):
        w = matrices(shape, dtype, 3)
        close(yaten.linalg.lu_factor(w.to(DEVICE))[0], yaten.linalg.lu_factor(w)[0], dtype, f"LU {shape}")
        P, L, U = yaten.linalg.lu(w.to(DEVICE))
        close(P @ L @ U, w.to(DEVICE).cpu(), dtype, f"P L U {shape}", scale=10)
    dev = a.to(DEVICE)
    close(yaten.linalg.solve(dev, b.to(DEVICE)), yaten.linalg.solve(a, b), dtype, "solve", scale=10)
    close(yaten.linalg.inv(dev), yaten.linalg.inv(a), dtype, "inv", scale=10)
    close(yaten.linalg.det(dev), yaten.linalg.det(a), dtype, "det", scale=10)
    sign, logdet = yaten.linalg.slogdet(dev)
    sign_c, logdet_c = yaten.linalg.slogdet(a)
    close(sign, sign_c, dtype, "slogdet sign", scale=10)
    close(logdet, logdet_c, dtype.replace("complex64", "float32").replace("complex128", "float64"), "logabsdet")


def test_singular_matrices_report_info_and_raise():
    a = yaten.tensor([[[1.0, 2.0], [2.0, 4.0]], [[2.0, 0.0], [0.0, 3.0]]], dtype=yaten.float64, device=DEVICE)
    lu, piv, info = yaten.linalg.lu_factor_ex(a)
    assert info.device.type == DEVICE and info.cpu().tolist() == [2, 0]
    with pytest.raises(yaten.linalg.LinAlgError, match=r"\(Batch element 0\): U\[2,2\] is zero"):
        yaten.linalg.lu_factor_ex(a, check_errors=True)
    with pytest.raises(yaten.linalg.LinAlgError, match="singular"):
        yaten.linalg.solve(a, yaten.ones(2, 2, 1, dtype=yaten.float64, device=DEVICE))
    with pytest.raises(yaten.linalg.LinAlgError, match="singular"):
        yaten.linalg.inv(a)
    assert yaten.linalg.det(a).cpu().tolist() == pytest.approx([0.0, 6.0])
    with pytest.raises(NotImplementedError, match="without pivoting is not implemented on CUDA"):
        yaten.linalg.lu_factor_ex(a, pivot=False)


@pytest.mark.parametrize("dtype", DTYPES)
def test_cholesky_and_triangular_solves_match_cpu(dtype):
    x = matrices((2, 5, 5), dtype, 4)
    spd = x @ mH(x) + 5 * yaten.eye(5, dtype=x.dtype)
    for upper in (False, True):
        factor = yaten.linalg.cholesky(spd.to(DEVICE), upper=upper)
        close(factor, yaten.linalg.cholesky(spd, upper=upper), dtype, f"cholesky upper={upper}", scale=10)
    b = matrices((2, 5, 3), dtype, 5)
    close(yaten.cholesky_solve(b.to(DEVICE), yaten.linalg.cholesky(spd.to(DEVICE))),
          yaten.cholesky_solve(b, yaten.linalg.cholesky(spd)), dtype, "cholesky_solve", scale=10)
    tri = matrices((2, 5, 5), dtype, 6, shift=4.0)
    for upper in (False, True):
        for left in (True, False):
            for unit in (False, True):
                rhs = b if left else mH(b)
                got = yaten.linalg.solve_triangular(tri.to(DEVICE), rhs.to(DEVICE), upper=upper, left=left,
                                                    unitriangular=unit)
                want = yaten.linalg.solve_triangular(tri, rhs, upper=upper, left=left, unitriangular=unit)
                close(got, want, dtype, f"solve_triangular upper={upper} left={left} unit={unit}", scale=10)
    # a batch broadcast against one matrix
    close(yaten.linalg.solve_triangular(tri[0].to(DEVICE), b.to(DEVICE), upper=True),
          yaten.linalg.solve_triangular(tri[0], b, upper=True), dtype, "broadcast solve_triangular", scale=10)


def test_cholesky_of_a_matrix_that_is_not_positive_definite():
    a = yaten.tensor([[1.0, 2.0], [2.0, 1.0]], dtype=yaten.float64, device=DEVICE)
    L, info = yaten.linalg.cholesky_ex(a)
    assert info.cpu().item() == 2
    with pytest.raises(yaten.linalg.LinAlgError, match="leading minor of order 2 is not positive-definite"):
        yaten.linalg.cholesky(a)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(3, 7, 4), (2, 4, 7), (5, 5), (6, 0)])
def test_qr_matches_cpu_up_to_column_phases(dtype, shape):
    a = matrices(shape, dtype, 7)
    for mode in ("reduced", "complete", "r"):
        q, r = yaten.linalg.qr(a.to(DEVICE), mode=mode)
        q_c, r_c = yaten.linalg.qr(a, mode=mode)
        assert tuple(r.shape) == tuple(r_c.shape) and tuple(q.shape) == tuple(q_c.shape), mode
        k = min(shape[-2:])
        if k == 0:
            close(q, q_c, dtype, f"Q of an empty QR ({mode})")
            continue
        # R's rows and Q's columns are unique up to one unit factor each (LAPACK's and cuSOLVER's Householder
        # vectors agree in practice, so this mostly compares them exactly)
        d = column_phases(mH(r[..., :k, :].cpu()), mH(r_c[..., :k, :]))
        close(r[..., :k, :] * d.conj().unsqueeze(-1).to(DEVICE), r_c[..., :k, :], dtype, f"R ({mode})", scale=10)
        if mode != "r":
            qd = q[..., :k] * d.unsqueeze(-2).to(DEVICE)
            close(qd, q_c[..., :k], dtype, f"Q ({mode})", scale=10)
            close(q @ r, a, dtype, f"Q R ({mode})", scale=10)
    got, tau = yaten.geqrf(a.to(DEVICE))
    k = min(shape[-2:])
    q = yaten.linalg.householder_product(got[..., :, :k], tau)
    close(q @ yaten.triu(got[..., :k, :]), a, dtype, "geqrf's reflectors and R rebuild A", scale=10)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(2, 6, 4), (4, 6), (5, 5), (0, 3), (40, 36)])
@pytest.mark.parametrize("driver", [None, "gesvdj", "gesvd"])  # None: gesvdj (gesvdjBatched for small batches)
def test_svd_matches_cpu(dtype, shape, driver):
    a = matrices(shape, dtype, 8)
    real = dtype.replace("complex64", "float32").replace("complex128", "float64")
    close(yaten.linalg.svdvals(a.to(DEVICE), driver=driver), yaten.linalg.svdvals(a), real, "svdvals", scale=10)
    for full in (False, True):
        u, s, vh = yaten.linalg.svd(a.to(DEVICE), full_matrices=full, driver=driver)
        u_c, s_c, vh_c = yaten.linalg.svd(a, full_matrices=full)
        assert (tuple(u.shape), tuple(s.shape), tuple(vh.shape)) == \
            (tuple(u_c.shape), tuple(s_c.shape), tuple(vh_c.shape)), full
        close(s, s_c, real, "S", scale=10)
        k = min(shape[-2:])
        if k == 0:
            close(u, u_c, dtype, "U of an empty SVD")
            close(vh, vh_c, dtype, "Vh of an empty SVD")
            continue
        uk = u[..., :k].cpu()
        d = column_phases(uk, u_c[..., :k])  # distinct singular values: each pair of vectors one phase apart
        close(u[..., :k] * d.unsqueeze(-2).to(DEVICE), u_c[..., :k], dtype, "U", scale=100)
        close(vh[..., :k, :] * d.conj().unsqueeze(-1).to(DEVICE), vh_c[..., :k, :], dtype, "Vh", scale=100)
        eye_u = yaten.eye(u.shape[-1], dtype=u.dtype)
        close(mH(u) @ u, eye_u.expand(tuple(u.shape[:-2]) + tuple(eye_u.shape)).contiguous(), dtype,
              "U orthonormal", scale=10)
    with pytest.raises(NotImplementedError, match="gesvda"):
        yaten.linalg.svd(a.to(DEVICE), driver="gesvda")


@pytest.mark.parametrize("dtype", DTYPES)
def test_eigh_matches_cpu(dtype):
    x = matrices((3, 6, 6), dtype, 9)
    h = x + mH(x)
    real = dtype.replace("complex64", "float32").replace("complex128", "float64")
    for uplo in ("L", "U"):
        w, v = yaten.linalg.eigh(h.to(DEVICE), UPLO=uplo)
        w_c, v_c = yaten.linalg.eigh(h, UPLO=uplo)
        close(w, w_c, real, f"eigenvalues {uplo}", scale=10)
        close(v * column_phases(v.cpu(), v_c).unsqueeze(-2).to(DEVICE), v_c, dtype, f"eigenvectors {uplo}",
              scale=100)
        close(yaten.linalg.eigvalsh(h.to(DEVICE), UPLO=uplo), w_c, real, f"eigvalsh {uplo}", scale=10)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [1, 16, 32, 40])
def test_batched_and_one_at_a_time_routines_match_cpu(dtype, n):
    """Batches of n <= 32 take cuBLAS/cuSOLVER's batched routines, larger ones a call per matrix (Note [Batched
    routines for small matrices]); both against the CPU's LAPACK, a singular and a non-definite matrix included."""
    real = dtype.replace("complex64", "float32").replace("complex128", "float64")
    a = matrices((5, n, n), dtype, 11, shift=2.0)
    b = matrices((5, n, 3), dtype, 12)
    scale = 10 * n
    close(yaten.linalg.solve(a.to(DEVICE), b.to(DEVICE)), yaten.linalg.solve(a, b), dtype, "solve", scale=scale)
    for adjoint in (False, True):
        lu, piv = yaten.linalg.lu_factor(a.to(DEVICE))
        got = yaten.linalg.lu_solve(lu, piv, b.to(DEVICE), adjoint=adjoint)
        close(got, yaten.linalg.lu_solve(*yaten.linalg.lu_factor(a), b, adjoint=adjoint), dtype,
              f"lu_solve adjoint={adjoint}", scale=scale)
    singular = a.clone()
    singular[2] = 0
    _, _, info = yaten.linalg.lu_factor_ex(singular.to(DEVICE))
    np.testing.assert_array_equal(info.cpu().numpy(), yaten.linalg.lu_factor_ex(singular)[2].numpy())
    spd = a @ mH(a) + n * yaten.eye(n, dtype=a.dtype)
    for upper in (False, True):
        close(yaten.linalg.cholesky(spd.to(DEVICE), upper=upper), yaten.linalg.cholesky(spd, upper=upper), dtype,
              f"cholesky upper={upper}", scale=scale)
    not_definite = spd.clone()
    not_definite[3] = -not_definite[3]
    assert yaten.linalg.cholesky_ex(not_definite.to(DEVICE))[1].cpu().tolist() == [0, 0, 0, 1, 0]
    h = a + mH(a)
    for uplo in ("L", "U"):
        w, v = yaten.linalg.eigh(h.to(DEVICE), UPLO=uplo)
        w_c, v_c = yaten.linalg.eigh(h, UPLO=uplo)
        close(w, w_c, real, f"eigenvalues {uplo}", scale=scale)
        close((v * w.unsqueeze(-2).to(v.dtype)) @ mH(v), h.to(DEVICE).cpu(), dtype, f"V diag(w) V^H {uplo}",
              scale=scale)
    for shape in ((5, n, n), (5, n + 3, n), (5, n, n + 3)):
        x = matrices(shape, dtype, 13)
        s_c = yaten.linalg.svdvals(x)
        close(yaten.linalg.svdvals(x.to(DEVICE)), s_c, real, f"svdvals {shape}", scale=scale)
        for full in (False, True):
            u, s, vh = yaten.linalg.svd(x.to(DEVICE), full_matrices=full)
            k = min(shape[-2:])
            assert tuple(u.shape) == shape[:-1] + ((shape[-2] if full else k),)
            assert tuple(vh.shape) == (5, (shape[-1] if full else k), shape[-1])
            close(s, s_c, real, f"singular values {shape} full={full}", scale=scale)
            usv = (u[..., :k] * s.unsqueeze(-2).to(u.dtype)) @ vh[..., :k, :]
            close(usv, x, dtype, f"U S V^H {shape} full={full}", scale=scale)


@pytest.mark.parametrize("dtype", DTYPES)
def test_lstsq_matches_cpu_gels(dtype):
    a = matrices((2, 9, 4), dtype, 10)
    b = matrices((2, 9, 3), dtype, 11)
    x, residuals, rank, sv = yaten.linalg.lstsq(a.to(DEVICE), b.to(DEVICE))
    x_c, residuals_c, _, _ = yaten.linalg.lstsq(a, b, driver="gels")
    real = dtype.replace("complex64", "float32").replace("complex128", "float64")
    close(x, x_c, dtype, "solution", scale=10)
    close(residuals, residuals_c, real, "residuals", scale=10)
    assert rank.numel() == 0 and sv.numel() == 0
    vector = yaten.linalg.lstsq(a.to(DEVICE), b[..., 0].to(DEVICE)).solution
    close(vector, x_c[..., 0], dtype, "a vector right-hand side", scale=10)
    close(yaten.linalg.pinv(a.to(DEVICE)), yaten.linalg.pinv(a), dtype, "pinv", scale=100)
    with pytest.raises(RuntimeError, match="other than `gels` is not supported on CUDA"):
        yaten.linalg.lstsq(a.to(DEVICE), b.to(DEVICE), driver="gelsd")
    with pytest.raises(RuntimeError, match="only overdetermined systems"):
        yaten.linalg.lstsq(mH(a).to(DEVICE), b[..., :4, :].to(DEVICE))


def test_ops_without_a_cuda_kernel_say_so():
    a = yaten.eye(3, dtype=yaten.float64, device=DEVICE)
    with pytest.raises(NotImplementedError, match="has no kernel for CUDA"):
        yaten.linalg.eig(a)
    with pytest.raises(NotImplementedError, match="has no kernel for CUDA"):
        yaten.linalg.ldl_factor(a)
