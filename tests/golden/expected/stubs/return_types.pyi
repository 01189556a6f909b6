# @generated from ops.yaml by codegen (templates/return_types.pyi.j2): edit those, not this
# yaten.return_types: the named tuples of ops with named returns.
from ._C import Tensor

class minmax(tuple[Tensor, Tensor]):
    @property
    def min(self) -> Tensor: ...
    @property
    def max(self) -> Tensor: ...

