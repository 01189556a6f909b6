"""yaten.lobpcg: torch.lobpcg's k largest (or smallest) eigenpairs of a symmetric positive-definite generalized problem
A X = B X E by the locally optimal block preconditioned conjugate gradient method (Knyazev, 2001).

Each step takes the Rayleigh-Ritz solution on the span of S = [X, W, P]: X the current approximations, W the
(preconditioned) residuals A X - B X E, P the previous step's direction (the part of the new X that came from W and
P). S is B-orthonormalized first by SVQB (the Gram matrix scaled by its diagonal, its eigenvectors, the directions
whose eigenvalue is below eps times the largest dropped), which keeps the basis sound as the residuals shrink, the
"ortho" method's purpose; method="basic" takes the same steps (the two differ in torch only in how they
orthonormalize). A pair has converged when ||A x - B x e|| <= tol ||x|| (||A|| + |e| ||B||) (norms of the current
approximations, A's and B's by their largest column); the iteration stops when the k requested pairs have, or after
niter steps. Batches of matrices run one matrix at a time, as in torch."""

from __future__ import annotations

from typing import Any

from . import _C, linalg as _linalg
from ._torch_functions import finfo as _finfo

Tensor = _C.Tensor


def _svqb(S: Tensor, BS: Tensor) -> tuple[Tensor, Tensor]:
    """S and B S with S's columns made B-orthonormal, the numerically dependent directions dropped."""
    gram = S.mT @ BS
    gram = (gram + gram.mT) * 0.5
    scale = _C.rsqrt(_C.clamp(_C.diagonal(gram), min=_finfo(S.dtype).tiny))
    scaled = gram * scale.unsqueeze(0) * scale.unsqueeze(1)
    theta, Z = _linalg.eigh(scaled)
    keep = theta > _finfo(S.dtype).eps * theta.abs().max() * S.shape[-1]
    transform = (Z[:, keep] * _C.rsqrt(theta[keep]).unsqueeze(0)) * scale.unsqueeze(1)
    return S @ transform, BS @ transform


def _lobpcg_one(A: Tensor, k: int, B: Tensor | None, X: Tensor, iK: Tensor | None, niter: int, tol: float,
                largest: bool, tracker: Any) -> tuple[Tensor, Tensor]:
    def apply_B(V: Tensor) -> Tensor:
        return V if B is None else B @ V

    n = X.shape[-1]
    a_norm = A.abs().sum(0).max()
    b_norm = B.abs().sum(0).max() if B is not None else _C.ones((), dtype=A.dtype)
    X, BX = _svqb(X, apply_B(X))
    P = BP = None
    step = 0
    E = None
    while niter < 0 or step < niter:
        AX = A @ X
        # Rayleigh-Ritz on X: the current approximations as eigenpairs of the projected problem
        small = X.mT @ AX
        small = (small + small.mT) * 0.5
        values, vectors = _linalg.eigh(small)
        order = _C.flip(_C.arange(values.shape[0]), [0]) if largest else _C.arange(values.shape[0])
        values, vectors = values[order], vectors[:, order]
        X, BX, AX = X @ vectors, BX @ vectors, AX @ vectors
        E = values
        R = AX - BX * E.unsqueeze(0)
        residual = _linalg.vector_norm(R, dim=0)
        bound = tol * _linalg.vector_norm(X, dim=0) * (a_norm + E.abs() * b_norm)
        converged = int((residual[:k] <= bound[:k]).sum())
        if tracker is not None:
            tracker(_Tracker(step, E[:k], converged))
        if converged >= k:
            break
        W = R if iK is None else iK @ R
        blocks = [X, W] if P is None else [X, W, P]
        S = _C.cat(blocks, 1)
        S, BS = _svqb(S, apply_B(S))
        AS = A @ S
        projected = S.mT @ AS
        projected = (projected + projected.mT) * 0.5
        theta, C = _linalg.eigh(projected)
        chosen = _C.flip(_C.arange(theta.shape[0]), [0])[:n] if largest else _C.arange(n)
        C = C[:, chosen]
        X_new, BX_new = S @ C, BS @ C
        # P: the new X's part outside the old X's span (its W and P components), B-orthogonal to the old X
        P = X_new - X @ (BX.mT @ X_new)
        P, BP = _svqb(P, apply_B(P)) if P.abs().max() > 0 else (None, None)
        X, BX = X_new, BX_new
        step += 1
    return E[:k], X[:, :k]


class _Tracker:
    """What torch's tracker callable receives, in brief: the iteration, the current eigenvalues, how many converged."""

    def __init__(self, step: int, E: Tensor, converged: int) -> None:
        self.ivars = {"istep": step, "converged_count": converged}
        self.E = E


def lobpcg(A: Tensor, k: int | None = None, B: Tensor | None = None, X: Tensor | None = None, n: int | None = None,
           iK: Tensor | None = None, niter: int | None = None, tol: float | None = None, largest: bool | None = None,
           method: str | None = None, tracker: Any = None, ortho_iparams: dict | None = None,
           ortho_fparams: dict | None = None, ortho_bparams: dict | None = None) -> tuple[Tensor, Tensor]:
    """torch.lobpcg: the k largest (largest=True, the default) or smallest eigenvalues E and eigenvectors X of the
    symmetric positive-definite problem A X = B X E (B the identity when None), from X (m x n) or n random starting
    vectors, iK a preconditioner; batches of A (*, m, m). The module's docstring says how."""
    if A.shape[-2] != A.shape[-1]:
        raise ValueError(f"A must be square, got shape {tuple(A.shape)}")
    if B is not None and tuple(A.shape) != tuple(B.shape):
        raise ValueError(f"A and B must have same shape, got {tuple(A.shape)} vs {tuple(B.shape)}")
    if A.dtype not in (_C.float32, _C.float64):
        raise ValueError(f"lobpcg: expected a float32 or float64 A, got {A.dtype}")
    method = "ortho" if method is None else method
    if method not in ("ortho", "basic"):
        raise ValueError(f"lobpcg: method must be 'ortho' or 'basic', got {method!r}")
    if tol is None:
        tol = {_C.float32: 1.2e-07, _C.float64: 2.23e-16}[A.dtype] ** 0.5
    m = A.shape[-1]
    k = (1 if X is None else X.shape[-1]) if k is None else k
    n = (k if n is None else n) if X is None else X.shape[-1]
    if m < 3 * n:
        raise ValueError(f"LOBPCG algorithm is not applicable when the number of A rows (={m}) is smaller than 3 x "
                         f"the number of requested eigenpairs (={n})")
    if n < k:
        raise ValueError(f"lobpcg: n (={n}) must be at least k (={k})")
    niter = 1000 if niter is None else niter
    largest = True if largest is None else largest
    batch = tuple(A.shape[:-2])
    count = 1
    for size in batch:
        count *= size
    As = A.reshape((count, m, m))
    Bs = B.reshape((count, m, m)) if B is not None else None
    Xs = X.reshape((count, m, n)) if X is not None else None
    values, vectors = [], []
    for i in range(count):
        start = Xs[i] if Xs is not None else _C.randn((m, n), dtype=A.dtype, device=A.device)
        E, V = _lobpcg_one(As[i], k, None if Bs is None else Bs[i], start, iK, niter, tol, largest, tracker)
        values.append(E)
        vectors.append(V)
    return _C.stack(values).reshape(batch + (k,)), _C.stack(vectors).reshape(batch + (m, k))
