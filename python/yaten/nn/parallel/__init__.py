"""yaten.nn.parallel: the names torch scripts import. DataParallel over one device is the module itself (across
several devices torch itself recommends DistributedDataParallel); DistributedDataParallel runs over
yaten.distributed (distributed.py)."""

from __future__ import annotations

from typing import Any

from ..modules.module import Module
from .distributed import DistributedDataParallel


class DataParallel(Module):
    """Runs `module` as it is when there is at most one device to use; several devices are refused."""

    def __init__(self, module: Module, device_ids: Any = None, output_device: Any = None, dim: int = 0) -> None:
        super().__init__()
        from ... import cuda

        ids = list(device_ids) if device_ids is not None else list(range(cuda.device_count()))
        if len(ids) > 1:
            raise NotImplementedError("DataParallel over several GPUs is not supported by yaten yet; run on one "
                                      "device (CUDA_VISIBLE_DEVICES), or one process per GPU with "
                                      "DistributedDataParallel (python -m yaten.distributed.run)")
        self.module = module
        self.device_ids = ids
        self.dim = dim

    def forward(self, *inputs: Any, **kwargs: Any) -> Any:
        return self.module(*inputs, **kwargs)


def data_parallel(module: Module, inputs: Any, device_ids: Any = None, output_device: Any = None, dim: int = 0,
                  module_kwargs: Any = None) -> Any:
    return DataParallel(module, device_ids, output_device, dim)(*(inputs if isinstance(inputs, tuple) else
                                                                   (inputs,)), **(module_kwargs or {}))
