# @generated from ops.yaml by codegen (templates/stubs.pyi.j2): edit those, not this
# yaten._C._linalg: the functions whose ops.yaml entry says `python_module: linalg`,
# re-exported by yaten.linalg.
from typing import Any, Sequence, overload

from . import (
    Generator, Number, Tensor, _bool, _complex, _device, _dtype, _float, _int, return_types,
)

