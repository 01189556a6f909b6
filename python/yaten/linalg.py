"""yaten.linalg: the ops whose ops.yaml entry says `python_module: linalg`."""

from ._C._linalg import *  # noqa: F401,F403
