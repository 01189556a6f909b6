"""torch.nn.DataParallel: one process, the batch split over several devices. Each forward scatters the inputs along
`dim` (chunks, as torch's), replicates the module onto each device (parameters and buffers copied by differentiable
`.to`, so the gradients of every replica flow back into the original parameters), runs the replicas on threads, each
with its device current, and gathers the outputs on `output_device` (a differentiable `cat`). With no CUDA device the
module runs as it is, as in torch. scatter, replicate, parallel_apply and gather are torch.nn.parallel's functions;
they take any devices (the CPU too), which is how the tests run them on a machine without GPUs."""

from __future__ import annotations

import threading
from typing import Any

from ... import _C
from ..._device import device as _device_class
from ..modules.module import Module

Tensor = _C.Tensor


def _device(d: Any) -> Any:
    """A device index or object as a yaten device (an int is a CUDA device, as in torch)."""
    if isinstance(d, int):
        return _device_class("cuda", d)
    return _device_class(d) if isinstance(d, str) else d


def _chunks(obj: Any, count: int, dim: int) -> list[Any]:
    """obj split into at most `count` pieces per device: tensors by chunk along dim, containers piece by piece,
    anything else repeated."""
    if isinstance(obj, Tensor):
        return list(_C.chunk(obj, count, dim))
    if isinstance(obj, (tuple, list)) and obj:
        per_item = [_chunks(item, count, dim) for item in obj]
        size = min(len(p) for p in per_item)
        return [type(obj)(p[i] for p in per_item) if isinstance(obj, tuple) else [p[i] for p in per_item]
                for i in range(size)]
    if isinstance(obj, dict) and obj:
        per_value = {k: _chunks(v, count, dim) for k, v in obj.items()}
        size = min(len(p) for p in per_value.values())
        return [type(obj)((k, p[i]) for k, p in per_value.items()) for i in range(size)]
    return [obj] * count


def _to(obj: Any, device: Any) -> Any:
    if isinstance(obj, Tensor):
        return obj.to(device)
    if isinstance(obj, tuple):
        items = [_to(item, device) for item in obj]
        return type(obj)(*items) if hasattr(obj, "_fields") else type(obj)(items)  # a namedtuple takes fields
    if isinstance(obj, list):
        return [_to(item, device) for item in obj]
    if isinstance(obj, dict):
        return type(obj)((k, _to(v, device)) for k, v in obj.items())
    return obj


def scatter(inputs: Any, target_gpus: Any, dim: int = 0) -> list[Any]:
    """torch.nn.parallel.scatter: `inputs` split into one piece per device (fewer when a tensor has fewer slices than
    there are devices), piece i moved to device i."""
    devices = [_device(d) for d in target_gpus]
    pieces = _chunks(inputs, len(devices), dim)
    return [_to(piece, device) for piece, device in zip(pieces, devices)]


def scatter_kwargs(inputs: Any, kwargs: Any, target_gpus: Any, dim: int = 0) -> tuple[tuple, tuple]:
    """torch.nn.parallel.scatter_kwargs: the positional and keyword inputs scattered alike, padded to equal counts."""
    scattered = scatter(tuple(inputs), target_gpus, dim) if inputs else []
    scattered_kwargs = scatter(dict(kwargs), target_gpus, dim) if kwargs else []
    count = max(len(scattered), len(scattered_kwargs))
    scattered = list(scattered) + [()] * (count - len(scattered))
    scattered_kwargs = list(scattered_kwargs) + [{}] * (count - len(scattered_kwargs))
    return tuple(tuple(s) for s in scattered), tuple(scattered_kwargs)


def replicate(network: Module, devices: Any, detach: bool = False) -> list[Module]:
    """torch.nn.parallel.replicate: one copy of `network` per device sharing its structure, each parameter and buffer
    moved there by a differentiable copy (the original parameters receive the replicas' gradients); `detach` cuts
    them off instead."""
    devices = [_device(d) for d in devices]
    modules = list(network.modules())
    replicas = []
    for device in devices:
        copies: dict[int, Module] = {}
        for module in modules:
            replica = module.__new__(type(module))
            replica.__dict__ = module.__dict__.copy()
            replica.__dict__["_parameters"] = type(module._parameters)(module._parameters)
            replica.__dict__["_buffers"] = type(module._buffers)(module._buffers)
            replica.__dict__["_modules"] = type(module._modules)(module._modules)
            replica.__dict__["_is_replica"] = True
            copies[id(module)] = replica
        for module in modules:
            replica = copies[id(module)]
            for name, param in module._parameters.items():
                if param is not None:
                    moved = param.to(device, copy=True)  # a copy even on the same device, as Broadcast
                    replica._parameters[name] = moved.detach() if detach else moved
            for name, buffer in module._buffers.items():
                if buffer is not None:
                    replica._buffers[name] = buffer.to(device)
            for name, child in module._modules.items():
                replica._modules[name] = copies[id(child)] if child is not None else None
        replicas.append(copies[id(network)])
    return replicas


def parallel_apply(modules: Any, inputs: Any, kwargs_tup: Any = None, devices: Any = None) -> list[Any]:
    """torch.nn.parallel.parallel_apply: modules[i](*inputs[i], **kwargs_tup[i]) on one thread each, with device i
    current for CUDA devices and autograd's grad mode as the caller's; the first exception raised is raised again
    here, naming the replica."""
    from ... import autograd, cuda

    modules, inputs = list(modules), list(inputs)
    if len(modules) != len(inputs):
        raise ValueError(f"parallel_apply: {len(modules)} modules but {len(inputs)} inputs")
    kwargs_tup = list(kwargs_tup) if kwargs_tup is not None else [{}] * len(modules)
    devices = [_device(d) for d in devices] if devices is not None else [None] * len(modules)
    grad_enabled = autograd.is_grad_enabled()
    results: list[Any] = [None] * len(modules)
    errors: list[BaseException | None] = [None] * len(modules)

    def run(i: int) -> None:
        try:
            with autograd.set_grad_enabled(grad_enabled):
                args = inputs[i] if isinstance(inputs[i], (tuple, list)) else (inputs[i],)
                device = devices[i]
                if device is not None and device.type == "cuda":
                    with cuda.device(device.index):
                        results[i] = modules[i](*args, **kwargs_tup[i])
                else:
                    results[i] = modules[i](*args, **kwargs_tup[i])
        except BaseException as error:  # noqa: BLE001 -- raised again in the caller's thread
            errors[i] = error

    if len(modules) == 1:
        run(0)
    else:
        threads = [threading.Thread(target=run, args=(i,)) for i in range(len(modules))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    for i, error in enumerate(errors):
        if error is not None:
            raise type(error)(f"Caught {type(error).__name__} in replica {i} on device {devices[i]}: {error}") \
                from error
    return results


def gather(outputs: Any, target_device: Any, dim: int = 0) -> Any:
    """torch.nn.parallel.gather: the per-device outputs joined on `target_device` along `dim` (a differentiable cat;
    0-dim tensors stacked into a vector, as torch does with a warning), containers joined element by element."""
    target = _device(target_device) if target_device != -1 else _device_class("cpu")
    first = outputs[0]
    if isinstance(first, Tensor):
        moved = [o.to(target) for o in outputs]
        if all(o.dim() == 0 for o in moved):
            import warnings

            warnings.warn("Was asked to gather along dimension 0, but all input tensors were scalars; will instead "
                          "unsqueeze and return a vector.")
            return _C.stack(moved)
        return _C.cat(moved, dim)
    if first is None:
        return None
    if isinstance(first, dict):
        return type(first)((k, gather([o[k] for o in outputs], target_device, dim)) for k in first)
    if isinstance(first, (tuple, list)):
        joined = [gather([o[i] for o in outputs], target_device, dim) for i in range(len(first))]
        if hasattr(first, "_fields"):
            return type(first)(*joined)
        return type(first)(joined)
    return first


class DataParallel(Module):
    """torch.nn.DataParallel: `module`'s forward over the batch split among `device_ids` (all CUDA devices by default;
    with none, the module itself runs), the outputs gathered on `output_device` (device_ids[0] by default). The
    module's parameters and buffers must be on device_ids[0]."""

    def __init__(self, module: Module, device_ids: Any = None, output_device: Any = None, dim: int = 0) -> None:
        super().__init__()
        from ... import cuda

        if not cuda.is_available():
            self.module = module
            self.device_ids = []
            return
        ids = list(device_ids) if device_ids is not None else list(range(cuda.device_count()))
        ids = [_device(d).index if not isinstance(d, int) else d for d in ids]
        self.dim = dim
        self.module = module
        self.device_ids = ids
        self.output_device = ids[0] if output_device is None else \
            (output_device if isinstance(output_device, int) else _device(output_device).index)
        self.src_device_obj = _device_class("cuda", ids[0])

    def forward(self, *inputs: Any, **kwargs: Any) -> Any:
        if not self.device_ids:
            return self.module(*inputs, **kwargs)
        for t in list(self.module.parameters()) + list(self.module.buffers()):
            if t.device != self.src_device_obj:
                raise RuntimeError("module must have its parameters and buffers on device "
                                   f"{self.src_device_obj} (device_ids[0]) but found one of them on device: "
                                   f"{t.device}")
        inputs, module_kwargs = self.scatter(inputs, kwargs, self.device_ids)
        if not inputs and not module_kwargs:
            inputs, module_kwargs = ((),), ({},)
        if len(self.device_ids) == 1:
            return self.module(*inputs[0], **module_kwargs[0])
        replicas = self.replicate(self.module, self.device_ids[:len(inputs)])
        outputs = self.parallel_apply(replicas, inputs, module_kwargs)
        return self.gather(outputs, self.output_device)

    def replicate(self, module: Module, device_ids: Any) -> list[Module]:
        from ... import autograd

        return replicate(module, device_ids, not autograd.is_grad_enabled())

    def scatter(self, inputs: Any, kwargs: Any, device_ids: Any) -> tuple[tuple, tuple]:
        return scatter_kwargs(inputs, kwargs, device_ids, dim=self.dim)

    def parallel_apply(self, replicas: Any, inputs: Any, kwargs: Any) -> list[Any]:
        return parallel_apply(replicas, inputs, kwargs, self.device_ids[:len(replicas)])

    def gather(self, outputs: Any, output_device: Any) -> Any:
        return gather(outputs, output_device, dim=self.dim)


def data_parallel(module: Module, inputs: Any, device_ids: Any = None, output_device: Any = None, dim: int = 0,
                  module_kwargs: Any = None) -> Any:
    """torch.nn.parallel.data_parallel: DataParallel's forward as a function."""
    inputs = inputs if isinstance(inputs, tuple) else (inputs,)
    return DataParallel(module, device_ids, output_device, dim)(*inputs, **(module_kwargs or {}))
