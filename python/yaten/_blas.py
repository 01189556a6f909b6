"""Loads the BLAS behind float32/float64 matmul: OpenBLAS from the scipy-openblas32 wheel, a dependency of yaten
(Design rule [Run-time libraries]). Its gemm is reached through function pointers (csrc/core/blas.h), so the compiled
module has no link-time BLAS and this file is the one place that knows where pip put it."""

from __future__ import annotations

import os

from . import _C


def load() -> None:
    try:
        import scipy_openblas32
    except ImportError:  # matmul on float32/float64 then raises, saying what to install
        return
    path = os.path.join(scipy_openblas32.get_lib_dir(), f"lib{scipy_openblas32.get_library()}.so")
    # OpenBLAS's own threads run only large LAPACK calls (Note [LAPACK on the BLAS's threads] in csrc/core/blas.h):
    # between them its workers sleep at once instead of spinning for 2^28 cycles on yaten's cores. Read when the
    # library is opened; a value the user set is kept.
    os.environ.setdefault("OPENBLAS_THREAD_TIMEOUT", "4")
    _C._blas_load(path, "scipy_")
