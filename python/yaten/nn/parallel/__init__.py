"""yaten.nn.parallel: DataParallel (one process, the batch split over several devices; data_parallel.py) with
torch.nn.parallel's scatter, replicate, parallel_apply and gather, and DistributedDataParallel over yaten.distributed
(distributed.py)."""

from __future__ import annotations

from .data_parallel import (  # noqa: F401
    DataParallel, data_parallel, gather, parallel_apply, replicate, scatter, scatter_kwargs)
from .distributed import DistributedDataParallel  # noqa: F401
