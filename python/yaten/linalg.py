"""yaten.linalg: the ops whose ops.yaml entry says `python_module: linalg` (LAPACK on the CPU: csrc/kernels/cpu/lapack.h),
and LinAlgError, the RuntimeError they raise for singular or non-definite inputs."""

from ._C import _LinAlgError as LinAlgError  # noqa: F401
from ._C._linalg import *  # noqa: F401,F403
