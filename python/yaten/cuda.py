"""yaten.cuda: devices, streams, events and the caching allocator, with torch.cuda's names and meanings.

Every kernel and copy runs on the current stream of its device (the default stream unless set with `stream()` or
`set_stream()`); see Note [CUDA streams] in csrc/cuda/cuda_runtime.h and Note [Caching allocator] in
csrc/cuda/runtime.cpp.
"""

from __future__ import annotations

import contextlib
from typing import Any, Iterator

from . import _C
from ._device import device as _device_class

OutOfMemoryError = _C._OutOfMemoryError


def is_built() -> bool:
    """Whether this build of yaten includes the CUDA backend."""
    return bool(_C._build_config["cuda"])


def device_count() -> int:
    """The number of CUDA devices (0 without a GPU or driver, or in a build without CUDA)."""
    return _C._cuda_device_count()


def is_available() -> bool:
    """Whether CUDA tensors can be created: the backend is built and a GPU is present."""
    return is_built() and device_count() > 0


def _index(device: Any = None) -> int:
    """The device index that `device` (None, an int, 'cuda', 'cuda:1' or a yaten.device) names."""
    if device is None:
        return current_device()
    if isinstance(device, int):
        index = device
    else:
        d = device if isinstance(device, _device_class) else _device_class(device)
        if d.type != "cuda":
            raise ValueError(f"expected a CUDA device, got {d}")
        index = current_device() if d.index is None else d.index
    _C._cuda_check_device(index)
    return index


def current_device() -> int:
    return _C._cuda_current_device()


def set_device(device: Any) -> None:
    """Makes `device` the current device of this thread: where 'cuda' tensors go and work runs by default."""
    _C._cuda_set_device(_index(device))


@contextlib.contextmanager
def device(device: Any) -> Iterator[None]:
    """Within the block, `device` is the current device."""
    previous = current_device()
    set_device(device)
    try:
        yield
    finally:
        _C._cuda_set_device(previous)


def get_device_name(device: Any = None) -> str:
    return _C._cuda_device_name(_index(device))


def get_device_capability(device: Any = None) -> tuple[int, int]:
    major, minor, _, _ = _C._cuda_device_properties(_index(device))
    return major, minor


def synchronize(device: Any = None) -> None:
    """Waits until all work queued on `device` (every stream) has finished."""
    _C._cuda_synchronize(_index(device))


class Stream:
    """A CUDA stream: work queued on it runs in order, and concurrently with other streams.

    `Stream()` makes a new stream on the current device (it lives as long as the process); `priority` is in
    `torch.cuda.Stream`'s sense (lower is higher priority)."""

    def __init__(self, device: Any = None, priority: int = 0, *, _handle: int | None = None) -> None:
        self.device_index = _index(device)
        self.cuda_stream = _C._cuda_stream_create(self.device_index, priority) if _handle is None else _handle

    @property
    def device(self) -> _device_class:
        return _device_class("cuda", self.device_index)

    def synchronize(self) -> None:
        """Waits until all work queued on this stream has finished."""
        _C._cuda_stream_synchronize(self.device_index, self.cuda_stream)

    def query(self) -> bool:
        """Whether all work queued on this stream has finished."""
        return _C._cuda_stream_query(self.device_index, self.cuda_stream)

    def wait_event(self, event: Event) -> None:
        """Work queued on this stream from now on waits for `event` (on the GPU; the host does not block)."""
        _C._cuda_stream_wait_event(self.device_index, self.cuda_stream, event._handle())

    def wait_stream(self, stream: Stream) -> None:
        """Work queued on this stream from now on waits for the work queued on `stream` until now."""
        _C._cuda_stream_wait_stream(self.device_index, self.cuda_stream, stream.cuda_stream)

    def record_event(self, event: Event | None = None) -> Event:
        event = Event() if event is None else event
        event.record(self)
        return event

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Stream) and (self.device_index, self.cuda_stream) == (
            other.device_index, other.cuda_stream)

    def __hash__(self) -> int:
        return hash((self.device_index, self.cuda_stream))

    def __repr__(self) -> str:
        return f"<yaten.cuda.Stream device=cuda:{self.device_index} cuda_stream={self.cuda_stream:#x}>"


def current_stream(device: Any = None) -> Stream:
    index = _index(device)
    return Stream(index, _handle=_C._cuda_current_stream(index))


def default_stream(device: Any = None) -> Stream:
    return Stream(_index(device), _handle=0)


def set_stream(stream: Stream) -> None:
    _C._cuda_set_stream(stream.device_index, stream.cuda_stream)


@contextlib.contextmanager
def stream(stream: Stream | None) -> Iterator[None]:
    """Within the block, work on the stream's device is queued on `stream` (None: no change)."""
    if stream is None:
        yield
        return
    previous = _C._cuda_current_stream(stream.device_index)
    set_stream(stream)
    try:
        yield
    finally:
        _C._cuda_set_stream(stream.device_index, previous)


class Event:
    """A marker in a stream: record it, wait for it, or time the work between two of them."""

    def __init__(self, enable_timing: bool = False, blocking: bool = False, interprocess: bool = False) -> None:
        if interprocess:
            raise NotImplementedError("Event: interprocess events are not supported")
        self.enable_timing = enable_timing
        self.blocking = blocking
        self._event: int | None = None  # made on first record, on that stream's device
        self._device_index: int | None = None

    def _handle(self) -> int:
        if self._event is None:
            raise RuntimeError("Event: record() the event before waiting for it")
        return self._event

    def record(self, stream: Stream | None = None) -> None:
        stream = current_stream() if stream is None else stream
        if self._event is None:
            self._device_index = stream.device_index
            self._event = _C._cuda_event_create(stream.device_index, self.enable_timing, self.blocking)
        _C._cuda_event_record(stream.device_index, self._event, stream.cuda_stream)

    def wait(self, stream: Stream | None = None) -> None:
        (current_stream() if stream is None else stream).wait_event(self)

    def query(self) -> bool:
        return True if self._event is None else _C._cuda_event_query(self._event)

    def synchronize(self) -> None:
        if self._event is not None:
            _C._cuda_event_synchronize(self._event)

    def elapsed_time(self, end_event: Event) -> float:
        """Milliseconds between this event and `end_event` (both recorded with enable_timing=True)."""
        if not (self.enable_timing and end_event.enable_timing):
            raise RuntimeError("Event.elapsed_time: both events must be created with enable_timing=True")
        return _C._cuda_event_elapsed_ms(self._handle(), end_event._handle())

    def __del__(self) -> None:
        if getattr(self, "_event", None) is not None and _C is not None:
            try:
                _C._cuda_event_destroy(self._device_index, self._event)
            except Exception:
                pass

    def __repr__(self) -> str:
        return f"<yaten.cuda.Event {'recorded' if self._event is not None else 'unrecorded'}>"


# ------------------------------------------------------------------------------------------------ memory


def memory_stats(device: Any = None) -> dict[str, int]:
    """The caching allocator's counters for `device`, under torch.cuda.memory_stats()'s keys (a subset), plus
    `num_device_alloc`/`num_device_free`: the cudaMalloc/cudaFree calls made."""
    return dict(sorted(_C._cuda_memory_stats(_index(device)).items()))


def memory_allocated(device: Any = None) -> int:
    """Bytes held by tensors on `device` now."""
    return memory_stats(device)["allocated_bytes.all.current"]


def max_memory_allocated(device: Any = None) -> int:
    return memory_stats(device)["allocated_bytes.all.peak"]


def memory_reserved(device: Any = None) -> int:
    """Bytes the caching allocator holds from the driver on `device`, in use or cached."""
    return memory_stats(device)["reserved_bytes.all.current"]


def max_memory_reserved(device: Any = None) -> int:
    return memory_stats(device)["reserved_bytes.all.peak"]


def reset_peak_memory_stats(device: Any = None) -> None:
    _C._cuda_reset_peak_memory_stats(_index(device))


def empty_cache() -> None:
    """Returns the cached memory that no tensor uses to the driver (other processes can then use it)."""
    if is_built():
        _C._cuda_empty_cache()


# ---------------------------------------------------------------------------------------------------- random numbers
# Each device has a default generator on the same Philox stream as the CPU's: with one seed, a random op on CUDA
# draws the CPU's numbers bit for bit (csrc/kernels/random_math.h).


def _default_generator(device: Any = None) -> Any:
    return _C._cuda_default_generator(_index(device))


def __getattr__(name: str) -> Any:
    if name == "default_generators":  # one per device, as torch.cuda.default_generators
        return tuple(_C._cuda_default_generator(i) for i in range(device_count()))
    raise AttributeError(f"module 'yaten.cuda' has no attribute '{name}'")


def manual_seed(seed: int) -> None:
    """Seeds the current device's default generator (nothing without a GPU, as torch)."""
    if is_available():
        _default_generator().manual_seed(seed)


def manual_seed_all(seed: int) -> None:
    """Seeds every device's default generator."""
    for i in range(device_count()):
        _C._cuda_default_generator(i).manual_seed(seed)


def seed() -> None:
    """Seeds the current device's default generator from the OS's entropy source."""
    if is_available():
        _default_generator().seed()


def seed_all() -> None:
    """Seeds every device's default generator with one seed from the OS's entropy source."""
    if is_available():
        s = _default_generator().seed()
        manual_seed_all(s)


def initial_seed() -> int:
    """The current device's default generator's seed."""
    return _default_generator().initial_seed()


def get_rng_state(device: Any = "cuda") -> Any:
    """The default generator's state of `device` as a uint8 CPU tensor (seed and offset)."""
    return _default_generator(device).get_state()


def set_rng_state(new_state: Any, device: Any = "cuda") -> None:
    _default_generator(device).set_state(new_state)


# -------------------------------------------------------------------------------------------- cuBLAS, cuDNN, cuFFT


def _library_candidates(variable: str, package: str, cu13_soname: str, cu12_soname: str) -> list[str]:
    """Where a CUDA library may be, in order: $variable, the nvidia-<package> wheel (CUDA 13's layout, then 12's),
    then the CUDA toolkit. The C++ side also tries the bare sonames through the system loader."""
    import os

    paths = [os.environ[variable]] if os.environ.get(variable) else []
    try:
        import importlib.util

        spec = importlib.util.find_spec("nvidia")
        roots = list(spec.submodule_search_locations or []) if spec else []
    except (ImportError, ValueError):
        roots = []
    for root in roots:
        paths += [os.path.join(root, "cu13", "lib", cu13_soname), os.path.join(root, package, "lib", cu12_soname),
                  os.path.join(root, "cu12", "lib", cu12_soname)]
    home = os.environ.get("CUDA_HOME") or os.environ.get("CUDA_PATH") or "/usr/local/cuda"
    paths += [os.path.join(home, "lib64", cu13_soname), os.path.join(home, "lib64", cu12_soname)]
    return [p for p in paths if os.path.exists(p)]


def _cublas_candidates() -> list[str]:
    """libcublas: $YATEN_CUBLAS, the nvidia-cublas wheel, the toolkit."""
    return _library_candidates("YATEN_CUBLAS", "cublas", "libcublas.so.13", "libcublas.so.12")


def _cusolver_candidates() -> list[str]:
    """libcusolver: $YATEN_CUSOLVER, the nvidia-cusolver wheel (cuSOLVER 12 ships with CUDA 13, 11 with CUDA 12),
    the toolkit."""
    return _library_candidates("YATEN_CUSOLVER", "cusolver", "libcusolver.so.12", "libcusolver.so.11")


def _cufft_candidates() -> list[str]:
    """libcufft: $YATEN_CUFFT, the nvidia-cufft wheel (cuFFT 12 ships with CUDA 13, 11 with CUDA 12), the toolkit."""
    return _library_candidates("YATEN_CUFFT", "cufft", "libcufft.so.12", "libcufft.so.11")


def _cudnn_candidates() -> list[str]:
    """libcudnn: $YATEN_CUDNN, the nvidia-cudnn-cu13 (or -cu12) wheel, the toolkit."""
    return list(dict.fromkeys(_library_candidates("YATEN_CUDNN", "cudnn", "libcudnn.so.9", "libcudnn.so.9")))


def _cublas_path() -> str:
    """The libcublas that CUDA matmul uses, opening it (RuntimeError saying what to install when there is none)."""
    return _C._cublas_path()


def _cusolver_path() -> str:
    """The libcusolver that CUDA linear algebra uses, opening it (RuntimeError saying what to install when there is
    none)."""
    return _C._cusolver_path()


def _cufft_path() -> str:
    """The libcufft that CUDA FFTs use, opening it (RuntimeError saying what to install when there is none)."""
    return _C._cufft_path()


if is_built():
    _C._cublas_set_candidates(_cublas_candidates())
    _C._cusolver_set_candidates(_cusolver_candidates())
    _C._cufft_set_candidates(_cufft_candidates())
    _C._cudnn_set_candidates(_cudnn_candidates())
