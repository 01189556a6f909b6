"""yaten.fft: the ops whose ops.yaml entry says `python_module: fft`."""

from ._C._fft import *  # noqa: F401,F403
