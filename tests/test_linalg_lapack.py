"""yaten.linalg on LAPACK against torch.linalg (CPU): values for every dtype LAPACK serves, batched, broadcast,
non-contiguous and empty inputs; errors (singular and non-definite matrices as LinAlgError, bad shapes); gradients
against torch's and finite differences, for real and complex inputs. Decompositions whose factors are not unique
(signs and phases of singular and eigen vectors, the order of general eigenvalues) are compared through what is
unique: reconstructions, gauge-free products, sorted values."""

from __future__ import annotations

import numpy as np
import pytest

import yaten
from helpers import from_torch, to_torch

pytestmark = pytest.mark.filterwarnings("ignore:torch.(lu_solve|triangular_solve|qr|svd|cholesky|chain_matmul)")

DTYPES = ["float32", "float64", "complex64", "complex128"]
BATCHES = [(), (3,), (2, 2)]
TOL = {"float32": dict(rtol=1e-4, atol=1e-4), "complex64": dict(rtol=1e-4, atol=1e-4),
       "float64": dict(rtol=1e-9, atol=1e-9), "complex128": dict(rtol=1e-9, atol=1e-9)}


def tdtype(torch, name):
    return getattr(torch, name)


def rand(torch, dtype, shape, seed=0):
    gen = torch.Generator().manual_seed(seed)
    return torch.randn(shape, generator=gen, dtype=tdtype(torch, dtype))


def spd(torch, a):
    n = a.shape[-1]
    return a @ a.mH + n * torch.eye(n, dtype=a.dtype)


def close(torch, ours, expected, dtype, scale=1.0):
    tol = {k: v * scale for k, v in TOL[dtype].items()}
    torch.testing.assert_close(to_torch(torch, ours), expected, **tol)


def matmul_t(torch, *xs):
    out = xs[0]
    for x in xs[1:]:
        out = out @ x
    return out


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("batch", BATCHES, ids=str)
def test_solve_inv_det_slogdet(torch, dtype, batch):
    A = rand(torch, dtype, batch + (5, 5), 1)
    B = rand(torch, dtype, batch + (5, 3), 2)
    a, b = from_torch(A), from_torch(B)
    close(torch, yaten.linalg.solve(a, b), torch.linalg.solve(A, B), dtype, 10)
    close(torch, yaten.linalg.solve(a, b.transpose(-2, -1), left=False), torch.linalg.solve(A, B.mT, left=False),
          dtype, 10)
    close(torch, yaten.linalg.solve(a, b[..., 0]), torch.linalg.solve(A, B[..., 0]), dtype, 10)  # vector rhs
    close(torch, yaten.linalg.inv(a), torch.linalg.inv(A), dtype, 10)
    close(torch, yaten.inverse(a), torch.inverse(A), dtype, 10)
    close(torch, yaten.linalg.det(a), torch.linalg.det(A), dtype, 10)
    close(torch, a.det(), A.det(), dtype, 10)
    sign, logabs = yaten.linalg.slogdet(a)
    close(torch, sign, torch.linalg.slogdet(A).sign, dtype)
    close(torch, logabs, torch.linalg.slogdet(A).logabsdet, dtype)
    if not dtype.startswith("complex"):
        close(torch, yaten.logdet(from_torch(spd(torch, A))), torch.logdet(spd(torch, A)), dtype)


def test_solve_broadcasts_batches_and_reads_strided_operands(torch):
    A = rand(torch, "float64", (2, 1, 4, 4), 3)
    B = rand(torch, "float64", (3, 4, 2), 4)
    close(torch, yaten.linalg.solve(from_torch(A), from_torch(B)), torch.linalg.solve(A, B), "float64")
    At = A.transpose(-2, -1)  # a column-major view: read as it is laid out
    close(torch, yaten.linalg.solve(from_torch(A).transpose(-2, -1), from_torch(B)), torch.linalg.solve(At, B),
          "float64")
    x = from_torch(rand(torch, "float64", (4, 8), 5))[:, ::2]
    close(torch, yaten.linalg.inv(x), torch.linalg.inv(to_torch(torch, x)), "float64")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(4, 4), (2, 5, 3), (2, 3, 5)], ids=str)
def test_lu_factor_lu_unpack_and_lu_solve(torch, dtype, shape):
    A = rand(torch, dtype, shape, 6)
    a = from_torch(A)
    LU, piv, info = yaten.linalg.lu_factor_ex(a)
    eLU, epiv, einfo = torch.linalg.lu_factor_ex(A)
    close(torch, LU, eLU, dtype)
    assert to_torch(torch, piv).equal(epiv) and to_torch(torch, info).equal(einfo)
    assert piv.dtype == yaten.int32 and info.dtype == yaten.int32
    P, L, U = yaten.linalg.lu(a)
    eP, eL, eU = torch.linalg.lu(A)
    for ours, expected in ((P, eP), (L, eL), (U, eU)):
        close(torch, ours, expected, dtype)
    for ours, expected in zip(yaten.lu_unpack(LU, piv), torch.lu_unpack(eLU, epiv)):
        close(torch, ours, expected, dtype)
    if shape[-1] == shape[-2]:
        B = rand(torch, dtype, shape[:-1] + (2,), 7)
        for left, adjoint in ((True, False), (True, True), (False, False), (False, True)):
            rhs = B if left else B.mT
            close(torch, yaten.linalg.lu_solve(LU, piv, from_torch(rhs), left=left, adjoint=adjoint),
                  torch.linalg.lu_solve(eLU, epiv, rhs, left=left, adjoint=adjoint), dtype, 10)
        close(torch, yaten.lu_solve(from_torch(B), LU, piv), torch.lu_solve(B, eLU, epiv), dtype, 10)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(300, 300), (257, 130), (130, 257), (2, 100, 100), (20, 20), (3, 7, 12),
                                   (12, 7)], ids=str)
def test_lu_factor_small_and_past_the_recursive_split(torch, dtype, shape):
    """Notes [Small LU] and [Recursive LU]: up to 32 x 32 yaten's own unblocked LU, past 32 columns getrf splits the
    panel, solves, updates by gemm and recurses; P L U rebuilds A, L's entries are at most 1 (partial pivoting; sqrt(2)
    for complex, where LAPACK pivots on |re| + |im|), and info names the first zero pivot as torch's."""
    A = rand(torch, dtype, shape, 8)
    P, L, U = yaten.linalg.lu(from_torch(A))
    close(torch, yaten.matmul(P, yaten.matmul(L, U)), A, dtype, 100)
    # LAPACK pivots on |re| + |im| for complex numbers, so there |l| <= sqrt(2)
    assert float(yaten.abs(L).max()) <= (2 ** 0.5 if dtype.startswith("complex") else 1.0) + 1e-6
    LU, piv, info = yaten.linalg.lu_factor_ex(from_torch(A))
    close(torch, yaten.lu_unpack(LU, piv)[2], to_torch(torch, U), dtype)
    Z = A.clone()
    Z[..., :, min(shape[-2:]) // 2] = 0  # the first zero pivot: U's at that column
    assert to_torch(torch, yaten.linalg.lu_factor_ex(from_torch(Z))[2]).equal(torch.linalg.lu_factor_ex(Z)[2])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_family(torch, dtype, upper):
    H = spd(torch, rand(torch, dtype, (3, 4, 4), 8))
    h = from_torch(H)
    close(torch, yaten.linalg.cholesky(h, upper=upper), torch.linalg.cholesky(H, upper=upper), dtype)
    L, info = yaten.linalg.cholesky_ex(h, upper=upper)
    assert to_torch(torch, info).eq(0).all()
    B = rand(torch, dtype, (3, 4, 2), 9)
    eL = torch.linalg.cholesky(H, upper=upper)
    close(torch, yaten.cholesky_solve(from_torch(B), L, upper), torch.cholesky_solve(B, eL, upper), dtype, 10)
    close(torch, yaten.cholesky_inverse(L[0], upper), torch.cholesky_inverse(eL[0], upper), dtype, 10)
    close(torch, yaten.cholesky(h, upper), torch.linalg.cholesky(H, upper=upper), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_solve_triangular_and_triangular_solve(torch, dtype):
    A = rand(torch, dtype, (2, 4, 4), 10) + 4 * torch.eye(4, dtype=tdtype(torch, dtype))
    B = rand(torch, dtype, (2, 4, 3), 11)
    a, b = from_torch(A), from_torch(B)
    for upper in (False, True):
        for unit in (False, True):
            close(torch, yaten.linalg.solve_triangular(a, b, upper=upper, unitriangular=unit),
                  torch.linalg.solve_triangular(A, B, upper=upper, unitriangular=unit), dtype, 10)
            close(torch, yaten.linalg.solve_triangular(a, b.transpose(-2, -1), upper=upper, left=False,
                                                       unitriangular=unit),
                  torch.linalg.solve_triangular(A, B.mT, upper=upper, left=False, unitriangular=unit), dtype, 10)
    x, coeff = yaten.triangular_solve(b, a, upper=True, transpose=True)
    ex, ecoeff = torch.triangular_solve(B, A, upper=True, transpose=True)
    close(torch, x, ex, dtype, 10)
    close(torch, coeff, ecoeff, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (2, 4, 4)], ids=str)
@pytest.mark.parametrize("mode", ["reduced", "complete", "r"])
def test_qr(torch, dtype, shape, mode):
    A = rand(torch, dtype, shape, 12)
    Q, R = yaten.linalg.qr(from_torch(A), mode=mode)
    eQ, eR = torch.linalg.qr(A, mode=mode)
    assert tuple(Q.shape) == tuple(eQ.shape) and tuple(R.shape) == tuple(eR.shape)
    close(torch, R, eR, dtype, 10)  # Householder QR's signs are LAPACK's convention, the same in both
    if mode != "r":
        close(torch, Q, eQ, dtype, 10)
        close(torch, yaten.matmul(Q, R), A, dtype, 10)
    a, tau = yaten.geqrf(from_torch(A))
    ea, etau = torch.geqrf(A)
    close(torch, a, ea, dtype, 10)
    close(torch, tau, etau, dtype, 10)
    if shape[-2] >= shape[-1]:
        close(torch, yaten.linalg.householder_product(a, tau), torch.linalg.householder_product(ea, etau), dtype, 10)
    q, r = yaten.qr(from_torch(A), some=mode != "complete")
    close(torch, r, torch.qr(A, some=mode != "complete")[1], dtype, 10)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (2, 4, 4)], ids=str)
@pytest.mark.parametrize("full", [False, True])
def test_svd(torch, dtype, shape, full):
    A = rand(torch, dtype, shape, 13)
    U, S, Vh = yaten.linalg.svd(from_torch(A), full_matrices=full)
    eU, eS, eVh = torch.linalg.svd(A, full_matrices=full)
    assert (tuple(U.shape), tuple(S.shape), tuple(Vh.shape)) == (tuple(eU.shape), tuple(eS.shape), tuple(eVh.shape))
    assert S.dtype == from_torch(eS).dtype
    close(torch, S, eS, dtype)
    k = S.shape[-1]
    Ut, Vht = to_torch(torch, U), to_torch(torch, Vh)
    close(torch, from_torch((Ut[..., :k] * eS.unsqueeze(-2).to(Ut.dtype)) @ Vht[..., :k, :]), A, dtype, 10)
    eye = torch.eye(Ut.shape[-1], dtype=Ut.dtype)
    close(torch, from_torch(Ut.mH @ Ut), eye.expand_as(Ut.mH @ Ut), dtype, 10)
    close(torch, yaten.linalg.svdvals(from_torch(A)), torch.linalg.svdvals(A), dtype)
    u, s, v = yaten.svd(from_torch(A), some=not full)
    close(torch, s, torch.svd(A, some=not full).S, dtype)
    assert tuple(v.shape) == tuple(torch.svd(A, some=not full).V.shape)


# Real matrices of at least 128 rows and columns are reduced to bidiagonal form by yaten itself (Note [An SVD whose
# bidiagonalization shares out], csrc/core/householder.cpp), with LAPACK's bdsdc in the middle: tall and wide (from
# 11/6 as many rows as columns, or columns as rows, a QR first), batched, rank-deficient (zero and repeated columns,
# where a reflector is the identity), and scaled to the edges of the range, where the matrix is first scaled as gesdd
# scales it.
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(200, 128), (128, 200), (2, 128, 128), (150, 149), (300, 128), (128, 300)],
                         ids=str)
@pytest.mark.parametrize("kind", ["random", "rank_deficient", "tiny", "huge", "zero"])
def test_svd_reduced_here(torch, dtype, shape, kind):
    A = rand(torch, dtype, shape, 21).double()
    if kind == "rank_deficient":
        A[..., :, 5] = 0
        A[..., :, 7] = A[..., :, 3]
        A[..., 9, :] = 0
    scale = {"tiny": 1e-200 if dtype == "float64" else 1e-30, "huge": 1e200 if dtype == "float64" else 1e30}.get(kind, 1)
    if kind == "zero":
        A = torch.zeros_like(A)
    A = (A * scale).to(tdtype(torch, dtype))
    ref = np.linalg.svd(A.double().numpy() / scale, compute_uv=False)
    tol = 1e-12 if dtype == "float64" else 2e-5
    for full in (False, True):
        U, S, Vh = (to_torch(torch, t).double() for t in yaten.linalg.svd(from_torch(A), full_matrices=full))
        eU, _, eVh = torch.linalg.svd(A, full_matrices=full)
        assert (U.shape, Vh.shape) == (eU.shape, eVh.shape)
        norm = max(ref.max(), 1.0)
        np.testing.assert_allclose(S.numpy() / scale, ref, rtol=0, atol=tol * 10 * norm)
        k = S.shape[-1]
        rebuilt = ((U[..., :k] * S.unsqueeze(-2)) @ Vh[..., :k, :]) / scale
        np.testing.assert_allclose(rebuilt.numpy(), A.double().numpy() / scale, rtol=0, atol=tol * 10 * norm)
        for Q in (U, Vh.mT):
            eye = torch.eye(Q.shape[-1], dtype=Q.dtype).expand(Q.mT.shape[:-1] + (Q.shape[-1],))
            np.testing.assert_allclose((Q.mT @ Q).numpy(), eye.numpy(), rtol=0, atol=tol * 10)
    s = to_torch(torch, yaten.linalg.svdvals(from_torch(A))).double()
    np.testing.assert_allclose(s.numpy() / scale, ref, rtol=0, atol=tol * 10 * max(ref.max(), 1.0))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("uplo", ["L", "U"])
def test_eigh(torch, dtype, uplo):
    H = rand(torch, dtype, (3, 5, 5), 14)
    H = H + H.mH
    w, V = yaten.linalg.eigh(from_torch(H), UPLO=uplo)
    ew, eV = torch.linalg.eigh(H, UPLO=uplo)
    close(torch, w, ew, dtype, 10)
    Vt = to_torch(torch, V)
    close(torch, from_torch(Vt @ torch.diag_embed(ew.to(Vt.dtype)) @ Vt.mH), H, dtype, 50)
    close(torch, yaten.linalg.eigvalsh(from_torch(H), UPLO=uplo), torch.linalg.eigvalsh(H, UPLO=uplo), dtype, 10)
    # only the named triangle is read: junk in the other changes nothing
    mask = torch.ones(5, 5, dtype=torch.bool)
    other = mask.triu(1) if uplo == "L" else mask.tril(-1)
    junk = torch.where(other, H + 7, H)
    close(torch, yaten.linalg.eigvalsh(from_torch(junk), UPLO=uplo), ew, dtype, 10)


@pytest.mark.parametrize("dtype", DTYPES)
def test_eig(torch, dtype):
    A = rand(torch, dtype, (2, 5, 5), 15)
    w, V = yaten.linalg.eig(from_torch(A))
    ew = torch.linalg.eigvals(A)
    assert w.dtype == from_torch(ew).dtype and V.dtype == w.dtype
    for ours, expected in zip(to_torch(torch, w).numpy(), ew.numpy()):
        np.testing.assert_allclose(np.sort_complex(ours), np.sort_complex(expected), **TOL[dtype])
    Vt, wt = to_torch(torch, V), to_torch(torch, w)
    close(torch, from_torch(A.to(Vt.dtype) @ Vt), Vt * wt.unsqueeze(-2), {"float32": "complex64", "float64": "complex128"}.get(dtype, dtype), 10)
    np.testing.assert_allclose(torch.linalg.vector_norm(Vt, dim=-2).numpy(), 1.0, rtol=1e-4)
    assert to_torch(torch, yaten.linalg.eigvals(from_torch(A))).allclose(wt)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("driver", ["gelsy", "gelsd", "gelss", "gels"])
@pytest.mark.parametrize("shape", [((2, 6, 3), (2, 6, 2)), ((3, 5), (3, 4)), ((6, 3), (6,)), ((2, 6, 3), (1, 6, 1))],
                         ids=str)
def test_lstsq(torch, dtype, driver, shape):
    A, B = rand(torch, dtype, shape[0], 16), rand(torch, dtype, shape[1], 17)
    ours = yaten.linalg.lstsq(from_torch(A), from_torch(B), driver=driver)
    expected = torch.linalg.lstsq(A, B, driver=driver)
    for field in ("solution", "residuals", "rank", "singular_values"):
        o, e = getattr(ours, field), getattr(expected, field)
        assert tuple(o.shape) == tuple(e.shape), field
        if e.numel():
            close(torch, o, e, dtype, 100) if e.is_floating_point() or e.is_complex() else (
                np.testing.assert_array_equal(to_torch(torch, o).numpy(), e.numpy()))


def test_lstsq_rank_deficient_gives_the_least_norm_solution(torch):
    A = rand(torch, "float64", (6, 4), 18)
    A[:, 3] = A[:, 0] + A[:, 1]
    B = rand(torch, "float64", (6, 2), 19)
    for driver in ("gelsy", "gelsd", "gelss"):
        ours = yaten.linalg.lstsq(from_torch(A), from_torch(B), driver=driver)
        assert int(ours.rank) == 3
        close(torch, ours.solution, torch.linalg.pinv(A) @ B, "float64", 100)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(150, 100), (3, 130, 64), (200, 200)], ids=str)
def test_qr_and_lstsq_from_64_columns(torch, dtype, shape):
    """Note [QR by geqrt]: from 64 columns geqrf is LAPACK's geqrt (recursive panels, tau from each panel's T): the
    same Q and R as torch's, and geqrf's reflectors as orgqr and householder_product read them; lstsq's QR path
    (Note [lstsq by QR where the rank is plainly full]) on top. Square complex matrices are left out of the
    comparison of R: MKL leaves the last 1 x 1 reflector's phase in R where LAPACK's zlarfg makes it real."""
    A = rand(torch, dtype, shape, 22)
    Q, R = yaten.linalg.qr(from_torch(A))
    q, r = to_torch(torch, Q), to_torch(torch, R)
    close(torch, q @ r, A, dtype, 100)
    eye = torch.eye(q.shape[-1], dtype=q.dtype).expand(q.mH.shape[:-2] + (q.shape[-1], q.shape[-1]))
    close(torch, q.mH @ q, eye, dtype, 100)
    if not (A.is_complex() and shape[-1] == shape[-2]):
        eQ, eR = torch.linalg.qr(A)
        close(torch, Q, eQ, dtype, 100)
        close(torch, R, eR, dtype, 100)
    a, tau = yaten.geqrf(from_torch(A))
    close(torch, yaten.linalg.householder_product(a, tau), q, dtype, 100)
    B = rand(torch, dtype, shape[:-1] + (3,), 23)
    ours = yaten.linalg.lstsq(from_torch(A), from_torch(B))
    expected = torch.linalg.lstsq(A, B)
    assert to_torch(torch, ours.rank).tolist() == expected.rank.tolist()
    close(torch, ours.solution, expected.solution, dtype, 1000)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(200, 128), (128, 200), (2, 160, 130), (256, 256), (3, 16, 16), (20, 12),
                                   (12, 20)], ids=str)
@pytest.mark.parametrize("zero_column", [False, True])
def test_qr_factored_here_small_and_from_128_columns(torch, dtype, shape, zero_column):
    """Note [A QR whose products share out] (csrc/core/householder.cpp): real matrices of 128 rows and columns and more
    are factored by yaten's blocked QR, and those of at most 32 by its column loop alone (orgqr by org2r's), with
    larfg's reflectors as LAPACK's: geqrf's matrix and tau as torch's, Q and R as torch's in every mode, orgqr
    (householder_product) and ormqr on them, and lstsq's QR path; a zero column (a reflector that is the identity,
    tau 0) among them."""
    A = rand(torch, dtype, shape, 24)
    if zero_column:
        A[..., :, min(shape[-1], shape[-2]) // 3] = 0
    a, tau = yaten.geqrf(from_torch(A))
    ea, etau = torch.geqrf(A)
    close(torch, a, ea, dtype, 100)
    close(torch, tau, etau, dtype, 100)
    for mode in ("reduced", "complete", "r"):
        Q, R = yaten.linalg.qr(from_torch(A), mode=mode)
        eQ, eR = torch.linalg.qr(A, mode=mode)
        close(torch, R, eR, dtype, 100)
        if mode != "r":
            close(torch, Q, eQ, dtype, 100)
    cols = min(shape[-2], shape[-1])  # householder_product takes at most as many columns as rows
    close(torch, yaten.linalg.householder_product(a[..., :cols], tau),
          torch.linalg.householder_product(ea[..., :cols], etau), dtype, 100)
    C = rand(torch, dtype, shape[:-1] + (5,), 25)
    close(torch, yaten.ormqr(a, tau, from_torch(C), transpose=True), torch.ormqr(ea, etau, C, transpose=True), dtype,
          100)
    if shape[-2] >= shape[-1] and not zero_column:
        B = rand(torch, dtype, shape[:-1] + (3,), 26)
        ours = yaten.linalg.lstsq(from_torch(A), from_torch(B))
        expected = torch.linalg.lstsq(A, B)
        close(torch, ours.solution, expected.solution, dtype, 1000)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(128, 128), (2, 150, 150)], ids=str)
@pytest.mark.parametrize("uplo", ["L", "U"])
@pytest.mark.parametrize("scale", [1.0, 1e-160, 1e160])
def test_eigh_with_q_applied_here_from_128_rows(torch, dtype, shape, uplo, scale):
    """Note [An eigh whose Q shares out] (csrc/core/householder.cpp): real matrices of 128 rows and more take sytrd,
    stedc and Q applied by yaten's blocked reflectors: eigenvalues as torch's, A V = V diag(w) with V orthogonal, from
    the named triangle alone (the other holds noise), and at the edges of the range, where syevd's scaling applies."""
    if dtype == "float32" and scale != 1.0:
        scale = {1e-160: 1e-20, 1e160: 1e20}[scale]
    A = rand(torch, dtype, shape, 27).double()
    H = (A + A.mT) * scale
    noisy = H.clone()
    noise = rand(torch, "float64", shape, 28) * scale
    if uplo == "L":
        noisy = torch.tril(H) + torch.triu(noise, 1)
    else:
        noisy = torch.triu(H) + torch.tril(noise, -1)
    w, V = (to_torch(torch, t).double() for t in yaten.linalg.eigh(from_torch(noisy.to(tdtype(torch, dtype))), UPLO=uplo))
    expected = torch.linalg.eigvalsh(H.to(tdtype(torch, dtype)).double())
    tol = 1e-12 if dtype == "float64" else 2e-5
    top = expected.abs().max()
    np.testing.assert_allclose((w / top).numpy(), (expected / top).numpy(), rtol=0, atol=tol * 10)
    Hc = H.to(tdtype(torch, dtype)).double()
    np.testing.assert_allclose(((Hc @ V - V * w.unsqueeze(-2)) / top).numpy(), np.zeros(V.shape), rtol=0,
                               atol=tol * 10)
    eye = torch.eye(V.shape[-1], dtype=V.dtype).expand(V.shape)
    np.testing.assert_allclose((V.mT @ V).numpy(), eye.numpy(), rtol=0, atol=tol * 10)


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
@pytest.mark.parametrize("spectrum, rcond, rank", [("graded", None, 24), ("gap", 1e-8, 17), ("gap", None, 24),
                                                   ("zeros", None, 21), ("graded", 0.0, 24)], ids=str)
def test_lstsq_gelsy_by_qr_only_where_the_rank_is_plainly_full(torch, dtype, spectrum, rcond, rank):
    """Note [lstsq by QR where the rank is plainly full]: A = U diag(s) V^H, 40 x 24, with s graded from 1 to 1e-3
    (the unpivoted QR's solution), or 17 values from 1 to 1e-4 then 1e-12 (gelsy itself: rank 17 where rcond is 1e-8,
    24 at the default rcond, where the QR's estimate is too close to call), or three zeros; the rank torch reports and
    torch's solution (the residual both minimize, where A is ill-conditioned)."""
    gen = torch.Generator().manual_seed(21)
    m, n = 40, 24
    tdtype = getattr(torch, dtype)
    U = torch.linalg.qr(torch.randn(m, n, dtype=tdtype, generator=gen)).Q
    V = torch.linalg.qr(torch.randn(n, n, dtype=tdtype, generator=gen)).Q
    if spectrum == "graded":
        s = torch.logspace(0, -3, n, dtype=torch.float64)
    else:
        s = torch.cat([torch.logspace(0, -4, 17, dtype=torch.float64), torch.full((7,), 1e-12, dtype=torch.float64)])
        if spectrum == "zeros":
            s[-3:] = 0.0
    A = (U * s.to(tdtype)) @ V.mH
    B = torch.randn(m, 3, dtype=tdtype, generator=gen)
    ours = yaten.linalg.lstsq(from_torch(A), from_torch(B), rcond=rcond, driver="gelsy")
    expected = torch.linalg.lstsq(A, B, rcond=rcond, driver="gelsy")
    assert int(ours.rank) == int(expected.rank) == rank
    if spectrum == "graded":
        close(torch, ours.solution, expected.solution, dtype, 100)
    else:  # condition numbers to 1e12: the residuals agree to their rounding there (1.1e-6 apart measured)
        r_ours = torch.linalg.vector_norm(A @ to_torch(torch, ours.solution) - B)
        r_torch = torch.linalg.vector_norm(A @ expected.solution - B)
        assert float(r_ours) <= float(r_torch) * (1 + 1e-4)


@pytest.mark.parametrize("dtype", DTYPES)
def test_pinv_matrix_rank_norms_cond(torch, dtype):
    A = rand(torch, dtype, (2, 5, 4), 20)
    A[1, :, 3] = A[1, :, 0]  # rank 3
    a = from_torch(A)
    close(torch, yaten.linalg.pinv(a), torch.linalg.pinv(A), dtype, 10)
    close(torch, yaten.pinverse(a[0]), torch.pinverse(A[0]), dtype, 10)  # rcond 1e-15: full rank only
    H = A[0, :4] + A[0, :4].mH
    close(torch, yaten.linalg.pinv(from_torch(H), hermitian=True), torch.linalg.pinv(H, hermitian=True), dtype, 10)
    assert to_torch(torch, yaten.linalg.matrix_rank(a)).tolist() == torch.linalg.matrix_rank(A).tolist() == [4, 3]
    assert int(yaten.linalg.matrix_rank(from_torch(H), hermitian=True)) == int(torch.linalg.matrix_rank(H,
                                                                                                          hermitian=True))
    assert to_torch(torch, yaten.linalg.matrix_rank(a, atol=1.0, rtol=0.0)).tolist() == torch.linalg.matrix_rank(
        A, atol=1.0, rtol=0.0).tolist()
    for ord in ("fro", "nuc", 1, -1, 2, -2, float("inf"), -float("inf")):
        close(torch, yaten.linalg.matrix_norm(a, ord), torch.linalg.matrix_norm(A, ord), dtype)
        close(torch, yaten.linalg.matrix_norm(a, ord, dim=(0, 2), keepdim=True),
              torch.linalg.matrix_norm(A, ord, dim=(0, 2), keepdim=True), dtype)
        close(torch, yaten.linalg.norm(a[0], ord), torch.linalg.norm(A[0], ord), dtype)
    close(torch, yaten.linalg.norm(a), torch.linalg.norm(A), dtype)
    close(torch, yaten.linalg.norm(a, 3, dim=1), torch.linalg.norm(A, 3, dim=1), dtype)
    S = A[:, :4]
    for p in (None, 2, -2, 1, float("inf"), "fro", "nuc"):
        close(torch, yaten.linalg.cond(from_torch(S[0]), p), torch.linalg.cond(S[0], p), dtype, 100)


@pytest.mark.parametrize("dtype", DTYPES)
def test_matrix_power_matrix_exp(torch, dtype):
    A = rand(torch, dtype, (2, 4, 4), 21)
    a = from_torch(A)
    for n in (0, 1, 2, 5, -1, -3):
        close(torch, yaten.linalg.matrix_power(a, n), torch.linalg.matrix_power(A, n), dtype, 100)
    close(torch, a.matrix_power(3), A.matrix_power(3), dtype, 10)
    for scale in (1e-3, 1.0, 30.0):  # no squaring, and several
        close(torch, yaten.linalg.matrix_exp(from_torch(A * scale)), torch.linalg.matrix_exp(A * scale), dtype,
              1e3 if scale > 1 else 10)
    close(torch, yaten.matrix_exp(a), torch.matrix_exp(A), dtype, 10)


def test_cross_multi_dot_vander_diagonal_tensorinv_tensorsolve(torch):
    x, y = rand(torch, "float64", (4, 3), 22), rand(torch, "float64", (1, 3), 23)
    close(torch, yaten.linalg.cross(from_torch(x), from_torch(y)), torch.linalg.cross(x, y), "float64")
    close(torch, yaten.cross(from_torch(x.mT), from_torch(y.expand(4, 3).mT)), torch.cross(x.mT, y.expand(4, 3).mT,
                                                                                             dim=0), "float64")
    mats = [rand(torch, "float64", s, 24 + i) for i, s in enumerate([(5,), (5, 7), (7, 2), (2, 9), (9,)])]
    close(torch, yaten.linalg.multi_dot([from_torch(m) for m in mats]), torch.linalg.multi_dot(mats), "float64")
    close(torch, yaten.chain_matmul(*[from_torch(m) for m in mats[1:4]]), torch.linalg.multi_dot(mats[1:4]),
          "float64")
    v = rand(torch, "float64", (2, 4), 30)
    close(torch, yaten.linalg.vander(from_torch(v)), torch.linalg.vander(v), "float64")
    close(torch, yaten.linalg.vander(from_torch(v), N=6), torch.linalg.vander(v, N=6), "float64")
    close(torch, yaten.linalg.diagonal(from_torch(x.reshape(2, 2, 3))), torch.linalg.diagonal(x.reshape(2, 2, 3)),
          "float64")
    close(torch, yaten.diag_embed(from_torch(v), 1, 0, 2), torch.diag_embed(v, 1, 0, 2), "float64")
    T = rand(torch, "float64", (4, 6, 8, 3), 31)
    close(torch, yaten.linalg.tensorinv(from_torch(T), ind=2), torch.linalg.tensorinv(T, ind=2), "float64", 100)
    Bt = rand(torch, "float64", (4, 6), 32)
    close(torch, yaten.linalg.tensorsolve(from_torch(T), from_torch(Bt)), torch.linalg.tensorsolve(T, Bt),
          "float64", 100)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("hermitian", [False, True])
def test_ldl_factor_and_solve(torch, dtype, hermitian):
    A = rand(torch, dtype, (2, 5, 5), 33)
    A = A + (A.mH if hermitian else A.mT)  # symmetric (Hermitian), indefinite
    B = rand(torch, dtype, (2, 5, 3), 34)
    LD, piv, info = yaten.linalg.ldl_factor_ex(from_torch(A), hermitian=hermitian)
    eLD, epiv, einfo = torch.linalg.ldl_factor_ex(A, hermitian=hermitian)
    close(torch, LD, eLD, dtype, 10)
    assert to_torch(torch, piv).equal(epiv) and to_torch(torch, info).equal(einfo)
    close(torch, yaten.linalg.ldl_solve(LD, piv, from_torch(B), hermitian=hermitian),
          torch.linalg.ldl_solve(eLD, epiv, B, hermitian=hermitian), dtype, 100)
    close(torch, yaten.linalg.ldl_factor(from_torch(A), hermitian=hermitian)[0], eLD, dtype, 10)


def test_empty_matrices(torch):
    for shape in [(0, 0), (2, 0, 0), (0, 3, 3)]:
        A = torch.zeros(shape, dtype=torch.float64)
        a = from_torch(A)
        for name in ("inv", "det", "cholesky", "eigvalsh", "svdvals", "matrix_exp"):
            assert tuple(getattr(yaten.linalg, name)(a).shape) == tuple(getattr(torch.linalg, name)(A).shape), name
    A = torch.zeros(3, 0, dtype=torch.float64)
    assert tuple(yaten.linalg.pinv(from_torch(A)).shape) == (0, 3)
    U, S, Vh = yaten.linalg.svd(from_torch(A))
    eU, eS, eVh = torch.linalg.svd(A)
    close(torch, U, eU, "float64")
    assert tuple(Vh.shape) == tuple(eVh.shape) and S.numel() == 0


def test_errors_are_torchs(torch):
    singular = from_torch(torch.tensor([[1.0, 2.0], [2.0, 4.0]], dtype=torch.float64))
    with pytest.raises(yaten.linalg.LinAlgError, match="singular"):
        yaten.linalg.inv(singular)
    with pytest.raises(RuntimeError, match="singular"):  # LinAlgError is a RuntimeError, as torch's
        yaten.linalg.solve(singular, singular)
    with pytest.raises(yaten.linalg.LinAlgError, match="U\\[2,2\\] is zero"):
        yaten.linalg.lu_factor(singular)
    inverse, info = yaten.linalg.inv_ex(singular)
    assert int(info) == 2
    not_pd = from_torch(torch.tensor([[[4.0, 0.0], [0.0, 1.0]], [[1.0, 2.0], [2.0, 1.0]]], dtype=torch.float64))
    with pytest.raises(yaten.linalg.LinAlgError, match=r"\(Batch element 1\).*leading minor of order 2"):
        yaten.linalg.cholesky(not_pd)
    assert to_torch(torch, yaten.linalg.cholesky_ex(not_pd).info).tolist() == [0, 2]
    assert float(yaten.linalg.det(singular)) == 0.0
    assert float(yaten.linalg.slogdet(singular).logabsdet) == -np.inf
    with pytest.raises(RuntimeError, match="square matrices"):
        yaten.linalg.inv(from_torch(torch.zeros(2, 3, dtype=torch.float64)))
    with pytest.raises(RuntimeError, match="at least 2 dimensions"):
        yaten.linalg.det(from_torch(torch.zeros(3, dtype=torch.float64)))
    with pytest.raises(RuntimeError, match="same dtype"):
        yaten.linalg.solve(singular, from_torch(torch.zeros(2, 1, dtype=torch.float32)))
    with pytest.raises(RuntimeError, match="unrecognized mode"):
        yaten.linalg.qr(singular, mode="bad")
    with pytest.raises(RuntimeError, match="driver"):
        yaten.linalg.lstsq(singular, singular, driver="gelsx")
    with pytest.raises((NotImplementedError, RuntimeError), match="linalg"):
        yaten.linalg.inv(from_torch(torch.eye(2, dtype=torch.int64)))
    with pytest.raises(RuntimeError, match="Q, which is not computed"):
        x = from_torch(torch.randn(3, 3, dtype=torch.float64)).requires_grad_()
        yaten.linalg.qr(x, mode="r")[1].sum().backward()


def _complex_checks(torch):
    """(name, yaten function, torch function, inputs) for the gradient tests, complex inputs included."""
    def sym(a):
        return (a + a.mH) / 2 if isinstance(a, torch.Tensor) else (a + a.transpose(-2, -1).conj()) / 2

    def cases(dt):
        A = rand(torch, dt, (2, 4, 4), 40)
        B = rand(torch, dt, (2, 4, 3), 41)
        T = rand(torch, dt, (4, 3), 42)
        W = rand(torch, dt, (3, 5), 43)
        H = spd(torch, A)
        L = torch.linalg.cholesky(H)
        return [
            ("solve", lambda lib, a, b: lib.linalg.solve(a, b), (A, B)),
            ("solve_right", lambda lib, a, b: lib.linalg.solve(a, b.transpose(-2, -1), left=False), (A, B)),
            ("inv", lambda lib, a: lib.linalg.inv(a), (A,)),
            ("det", lambda lib, a: lib.linalg.det(a), (A,)),
            ("slogdet", lambda lib, a: lib.linalg.slogdet(a)[1] + lib.linalg.slogdet(a)[0].real, (A,)),
            ("lu", lambda lib, a: lib.linalg.lu(a)[1] + lib.linalg.lu(a)[2], (A,)),
            ("lu_tall", lambda lib, a: lib.linalg.lu_factor(a)[0], (T,)),
            ("lu_wide", lambda lib, a: lib.linalg.lu_factor(a)[0], (W,)),
            ("lu_solve", lambda lib, a, b: lib.linalg.lu_solve(*lib.linalg.lu_factor(a), b, adjoint=True), (A, B)),
            ("cholesky", lambda lib, a: lib.linalg.cholesky(sym(a), upper=True), (H,)),
            ("cholesky_solve", lambda lib, b, l: lib.cholesky_solve(b, lib.tril(l)), (B, L)),
            ("solve_triangular", lambda lib, a, b: lib.linalg.solve_triangular(a, b, upper=False, left=False,
                                                                               unitriangular=True),
             (A, B.mT.contiguous())),
            ("qr_tall", lambda lib, a: lib.linalg.qr(a)[0] * 2 + lib.linalg.qr(a)[1][:1], (T,)),
            ("qr_wide", lambda lib, a: lib.linalg.qr(a)[0].sum(-1, keepdim=True) + lib.linalg.qr(a)[1], (W,)),
            ("svd", lambda lib, a: (lambda u, s, vh: (u[..., :2] @ vh[..., :2, :]) * s[..., :1].unsqueeze(-1))(
                *lib.linalg.svd(a, full_matrices=False)), (W,)),
            ("svdvals", lambda lib, a: lib.linalg.svdvals(a), (T,)),
            ("eigh", lambda lib, a: (lambda w, v: (v[..., :2] @ v[..., :2].transpose(-2, -1).conj())
                                     * w[..., -1:].unsqueeze(-1))(*lib.linalg.eigh(sym(a))), (A,)),
            ("eigvals", lambda lib, a: lib.linalg.eigvals(a), (A,)),
            ("eig", lambda lib, a: (lambda w, v: (v * v.conj()).real * w.real.unsqueeze(-2))(*lib.linalg.eig(a)),
             (A,)),
            ("lstsq", lambda lib, a, b: lib.linalg.lstsq(a, b, driver="gelsd").solution, (W, B[0, :3])),
            ("pinv", lambda lib, a: lib.linalg.pinv(a), (T,)),
            ("pinv_hermitian", lambda lib, a: lib.linalg.pinv(sym(a), hermitian=True), (H,)),
            ("matrix_exp", lambda lib, a: lib.linalg.matrix_exp(a), (A,)),
            ("nuclear_norm", lambda lib, a: lib.linalg.matrix_norm(a, "nuc"), (A,)),
            ("householder_product", lambda lib, a, t: lib.linalg.householder_product(a, t),
             (T, rand(torch, dt, (3,), 44))),
        ]
    return cases


GRAD_CASES = ["solve", "solve_right", "inv", "det", "slogdet", "lu", "lu_tall", "lu_wide", "lu_solve", "cholesky", "cholesky_solve",
              "solve_triangular", "qr_tall", "qr_wide", "svd", "svdvals", "eigh", "eigvals", "eig", "lstsq", "pinv",
              "pinv_hermitian", "matrix_exp", "nuclear_norm", "householder_product"]


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
@pytest.mark.parametrize("case", GRAD_CASES)
def test_gradients_match_torch_and_finite_differences(torch, dtype, case):
    name, fn, inputs = next(c for c in _complex_checks(torch)(dtype) if c[0] == case)
    if case in ("eigvals", "eig") and dtype == "float64":
        pass  # real input, complex output: the loss below takes the real part
    theirs = [t.detach().clone().requires_grad_() for t in inputs]
    ours = [from_torch(t.detach()).requires_grad_() for t in inputs]
    expected, out = fn(torch, *theirs), fn(yaten, *ours)
    seed = torch.randn(expected.shape, generator=torch.Generator().manual_seed(1), dtype=expected.dtype)
    (expected * seed).sum().real.backward() if expected.is_complex() else (expected * seed).sum().backward()
    loss = (out * from_torch(seed)).sum()
    (loss.real if loss.dtype.is_complex else loss).backward()
    for t, y in zip(theirs, ours):
        torch.testing.assert_close(to_torch(torch, y.grad), t.grad, rtol=1e-7, atol=1e-9)
    # finite differences, complex inputs as pairs of real numbers
    complex_in = [t.is_complex() for t in inputs]

    def real_fn(*xs):
        zs = [yaten.view_as_complex(x) if c else x for x, c in zip(xs, complex_in)]
        r = fn(yaten, *zs)
        return yaten.view_as_real(r) if r.dtype.is_complex else r
    fresh = [from_torch(torch.view_as_real(t.detach()).contiguous() if t.is_complex() else t.detach())
             .requires_grad_() for t in inputs]
    assert yaten.autograd.gradcheck(real_fn, fresh)
