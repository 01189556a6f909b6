# @generated from ops.yaml by codegen (templates/stubs.pyi.j2): edit those, not this
# yaten.linalg: the functions whose ops.yaml entry says `python_module: linalg`.
from typing import Any, Sequence, overload

from ._C import (
    Generator, Number, Tensor, _bool, _device, _dtype, _float, _int, return_types,
)

