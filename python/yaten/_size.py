"""yaten.Size: the type of Tensor.shape and Tensor.size(), a tuple that prints as torch.Size does."""

from __future__ import annotations

from typing import Any


class Size(tuple):
    """A tensor's shape: a tuple of ints (`x.shape == (2, 3)` holds), printed as `yaten.Size([2, 3])`."""

    __slots__ = ()

    def __new__(cls, sizes: Any = ()) -> "Size":
        values = tuple(sizes)
        for v in values:
            if isinstance(v, bool) or not hasattr(v, "__index__"):
                raise TypeError(f"Size: expected a sequence of ints, got an element of type {type(v).__name__}")
        return super().__new__(cls, (v.__index__() for v in values))

    def __repr__(self) -> str:
        return f"yaten.Size([{', '.join(str(v) for v in self)}])"

    def __getitem__(self, index: Any) -> Any:
        item = tuple.__getitem__(self, index)
        return Size(item) if isinstance(index, slice) else item

    def __add__(self, other: Any) -> "Size":
        if not isinstance(other, tuple):
            return NotImplemented
        return Size(tuple(self) + tuple(other))

    def __radd__(self, other: Any) -> "Size":
        if not isinstance(other, tuple):
            return NotImplemented
        return Size(tuple(other) + tuple(self))

    def __mul__(self, times: Any) -> "Size":
        return Size(tuple(self) * times)

    __rmul__ = __mul__

    def numel(self) -> int:
        """The number of elements a tensor of this shape holds."""
        n = 1
        for v in self:
            n *= v
        return n

    def __reduce__(self) -> Any:
        return (Size, (tuple(self),))
