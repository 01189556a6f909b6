"""yaten.device: where a tensor lives, like torch.device."""

from __future__ import annotations

from . import _C


class device:  # noqa: N801  (torch's name)
    """`yaten.device("cuda:0")`, `yaten.device("cpu")`, or `yaten.device("cuda", 1)`."""

    __slots__ = ("type", "index")
    _yaten_device = True

    def __init__(self, type: str | device, index: int | None = None) -> None:  # noqa: A002
        if isinstance(type, device):
            type, index = type.type, type.index if index is None else index
        text = str(type)
        if ":" in text:
            if index is not None:
                raise ValueError(f"device: index given twice in {text!r} and index={index}")
            text, _, idx = text.partition(":")
            if not idx.isdigit():
                raise ValueError(f"device: expected 'cpu', 'cuda' or 'cuda:N', got {type!r}")
            index = int(idx)
        if text not in ("cpu", "cuda"):
            raise ValueError(f"device: expected 'cpu', 'cuda' or 'cuda:N', got {type!r}")
        if text == "cpu" and index not in (None, 0, -1):
            raise ValueError(f"device: the cpu has no index {index}")
        object.__setattr__(self, "type", text)
        object.__setattr__(self, "index", None if text == "cpu" else index)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("yaten.device is immutable")

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __repr__(self) -> str:
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, str):
            other = device(other)
        return isinstance(other, device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self) -> int:
        return hash((self.type, self.index))

    def __enter__(self) -> "device":
        """`with yaten.device("cuda"):` factories called inside make their tensors there (set_default_device)."""
        _entered.append(get_default_device())
        set_default_device(self)
        return self

    def __exit__(self, *exc: object) -> None:
        set_default_device(_entered.pop())


_entered: list = []


def set_default_device(device_: "device | str | int | None") -> None:
    """Where factories (zeros, arange, rand, tensor, ...) called from Python make tensors when not given a device=
    (None: back to the CPU). *_like ops and conversions keep their input's device, as torch's do."""
    if isinstance(device_, int):
        device_ = f"cuda:{device_}"
    _C._set_default_device(None if device_ is None else device(device_))


def get_default_device() -> device:
    """The device set_default_device chose (the CPU unless changed)."""
    return _C._default_device()


_C._set_device_class(device)
