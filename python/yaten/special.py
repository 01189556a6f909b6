"""yaten.special: the ops whose ops.yaml entry says `python_module: special`."""

from ._C._special import *  # noqa: F401,F403
