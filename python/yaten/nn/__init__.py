"""yaten.nn: torch.nn over yaten's ops: Module and the layers (modules/), functional, init, utils, parallel."""

from . import functional, init  # noqa: F401
from .modules import *  # noqa: F401,F403
from .modules import Module  # noqa: F401
from .modules.module import (  # noqa: F401
    register_module_forward_hook, register_module_forward_pre_hook)
from .parameter import Buffer, Parameter, UninitializedBuffer, UninitializedParameter  # noqa: F401
from . import modules, parallel, utils  # noqa: F401,E402
from .parallel import DataParallel  # noqa: F401,E402
