"""yaten.multiprocessing: Python's multiprocessing, with tensors that travel by shared memory, like
torch.multiprocessing.

A tensor sent to another process (as a Process argument, through a Queue or a Pipe) is moved into shared memory
first (Tensor.share_memory_()); the other process maps the same pages, so a write on either side is seen by the
other. The memory is freed when the last tensor using it, in any process, is gone.
"""

from __future__ import annotations

import multiprocessing
from multiprocessing import *  # noqa: F401,F403
from multiprocessing.reduction import DupFd, ForkingPickler
from typing import Any

from .. import _C

__all__ = multiprocessing.__all__  # type: ignore[attr-defined]


def _rebuild_tensor(fd_holder: Any, nbytes: int, dtype_name: str, sizes: tuple, strides: tuple, offset: int) -> Any:
    fd = fd_holder.detach()
    return _C._tensor_from_shared_fd(fd, nbytes, getattr(_C, dtype_name), list(sizes), list(strides), offset)


def _reduce_tensor(tensor: Any) -> tuple:
    if tensor.is_cuda:
        raise RuntimeError("yaten.multiprocessing: CUDA tensors cannot be shared between processes yet; "
                           "send tensor.cpu()")
    tensor.share_memory_()
    _, nbytes, _, _, fd = _C._storage_info(tensor)
    dtype_name = repr(tensor.dtype).split(".")[1]
    return _rebuild_tensor, (DupFd(fd), nbytes, dtype_name, tuple(tensor.shape), tensor.stride(),
                             tensor.storage_offset())


ForkingPickler.register(_C.Tensor, _reduce_tensor)
