# @generated from ops.yaml by codegen (templates/stubs.pyi.j2): edit those, not this
# yaten._C._special: the functions whose ops.yaml entry says `python_module: special`,
# re-exported by yaten.special.
from typing import Any, Sequence, overload

from . import (
    Generator, Number, Tensor, _bool, _complex, _device, _dtype, _float, _int, return_types,
)

# ops.yaml:30  minmax(Tensor self) -> (Tensor min, Tensor max)
def minmax(input: Tensor) -> return_types.minmax: ...
