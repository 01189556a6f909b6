"""torch.Stream and torch.Event: a device's stream and event whatever the device. On CUDA they are yaten.cuda's
Stream and Event (the same objects underneath); on the CPU, where work runs in order on the calling thread, a
stream is always finished and events cannot be recorded (torch's "cpu backend doesn't support events")."""

from __future__ import annotations

from typing import Any

from . import cuda as _cuda
from ._device import device as _device_class

_DEVICE_TYPES = {"cpu": 0, "cuda": 1}  # torch's DeviceType numbers, which Stream.device_type reports


def _device_of(device: Any) -> _device_class:
    if device is None:  # the current accelerator where there is one, as torch
        return _device_class("cuda", _cuda.current_device()) if _cuda.is_available() else _device_class("cpu")
    device = device if isinstance(device, _device_class) else _device_class(device)
    if device.type == "cuda" and device.index is None:
        return _device_class("cuda", _cuda.current_device())
    if device.type not in _DEVICE_TYPES:
        raise RuntimeError(f"Stream: unsupported device type {device.type}")
    return device


class Stream:
    """An in-order queue of work on a device (torch.Stream(device, *, priority)); `with stream:` makes it current."""

    def __init__(self, device: Any = None, *, priority: int = 0) -> None:
        self.device = _device_of(device)
        self._cuda = _cuda.Stream(self.device.index, priority) if self.device.type == "cuda" else None
        self._previous: list[Any] = []

    @property
    def device_type(self) -> int:
        return _DEVICE_TYPES[self.device.type]

    @property
    def device_index(self) -> int:
        return -1 if self.device.index is None else self.device.index

    @property
    def stream_id(self) -> int:
        return 0 if self._cuda is None else self._cuda.cuda_stream

    @property
    def native_handle(self) -> int:
        return self.stream_id

    def query(self) -> bool:
        return True if self._cuda is None else self._cuda.query()

    def synchronize(self) -> None:
        if self._cuda is not None:
            self._cuda.synchronize()

    def is_capturing(self) -> bool:
        return False

    def wait_event(self, event: Event) -> None:
        if self._cuda is None:
            raise RuntimeError("cpu backend doesn't support events.")
        self._cuda.wait_event(event._require())

    def wait_stream(self, stream: Stream) -> None:
        if self._cuda is not None and stream._cuda is not None:
            self._cuda.wait_stream(stream._cuda)

    def record_event(self, event: Event | None = None) -> Event:
        event = Event(self.device) if event is None else event
        event.record(self)
        return event

    def __enter__(self) -> Stream:
        if self._cuda is not None:
            self._previous.append(_cuda.current_stream(self.device.index))
            _cuda.set_stream(self._cuda)
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._cuda is not None:
            _cuda.set_stream(self._previous.pop())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Stream) and (self.device, self.stream_id) == (other.device, other.stream_id)

    def __hash__(self) -> int:
        return hash((str(self.device), self.stream_id))

    def __repr__(self) -> str:
        return (f"yaten.Stream device_type={self.device.type}, device_index={self.device_index}, "
                f"stream_id={self.stream_id}")


class Event:
    """A marker in a stream: record, wait, query, synchronize, time (torch.Event(device, *, enable_timing,
    blocking, interprocess))."""

    def __init__(self, device: Any = None, *, enable_timing: bool = False, blocking: bool = False,
                 interprocess: bool = False) -> None:
        self.device = _device_of(device)
        self.enable_timing = enable_timing
        self._cuda = (_cuda.Event(enable_timing=enable_timing, blocking=blocking, interprocess=interprocess)
                      if self.device.type == "cuda" else None)

    @property
    def event_id(self) -> int:
        return 0 if self._cuda is None or self._cuda._event is None else self._cuda._event

    def _require(self) -> Any:
        if self._cuda is None:
            raise RuntimeError("cpu backend doesn't support events.")
        return self._cuda

    def record(self, stream: Stream | None = None) -> None:
        cuda_event = self._require()
        cuda_event.record(None if stream is None else stream._cuda)

    def wait(self, stream: Stream | None = None) -> None:
        cuda_event = self._require()
        cuda_event.wait(None if stream is None else stream._cuda)

    def query(self) -> bool:
        return True if self._cuda is None else self._cuda.query()

    def synchronize(self) -> None:
        if self._cuda is not None:
            self._cuda.synchronize()

    def elapsed_time(self, end_event: Event) -> float:
        return self._require().elapsed_time(end_event._require())

    def __repr__(self) -> str:
        return f"yaten.Event device_type={self.device.type}, device_index={self.device.index}, event_id={self.event_id}"
