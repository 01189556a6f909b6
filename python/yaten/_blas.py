"""Loads the BLAS behind float32/float64 matmul: OpenBLAS from the scipy-openblas32 wheel, a dependency of yaten
(Design rule [Run-time libraries]). Its gemm is reached through function pointers (csrc/core/blas.h), so the compiled
module has no link-time BLAS and this file is the one place that knows where pip put it."""

from __future__ import annotations

import os

from . import _C


def load() -> None:
    # OpenBLAS's own threads run only large LAPACK calls (Note [LAPACK on the BLAS's threads] in csrc/core/blas.h):
    # after a call its workers spin for OPENBLAS_THREAD_TIMEOUT (2^n cycles; its default 2^28, about 0.1 s) before
    # they sleep. 2^18 (about 0.1 ms) keeps them awake between the calls of one factorization and off yaten's cores
    # soon after. Read when the library is opened, which `import scipy_openblas32` already does (through ctypes), so
    # it is set before that import (set after it, as it was, it never took effect). A value the user set is kept.
    os.environ.setdefault("OPENBLAS_THREAD_TIMEOUT", "18")
    try:
        import scipy_openblas32
    except ImportError:  # matmul on float32/float64 then raises, saying what to install
        return
    path = os.path.join(scipy_openblas32.get_lib_dir(), f"lib{scipy_openblas32.get_library()}.so")
    _C._blas_load(path, "scipy_")
