# @generated from ops.yaml by codegen (templates/stubs.pyi.j2): edit those, not this
# yaten._C._nn_functional: the functions whose ops.yaml entry says `python_module: nn.functional`,
# re-exported by yaten.nn.functional.
from typing import Any, Sequence, overload

from . import (
    Generator, Number, Tensor, _bool, _complex, _device, _dtype, _float, _int, return_types,
)

