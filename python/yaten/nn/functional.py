"""yaten.nn.functional: the ops whose ops.yaml entry says `python_module: nn.functional`."""

from .._C._nn_functional import *  # noqa: F401,F403
