"""DistributedDataParallel: one model per process, gradients averaged over the process group during backward.

How it works (torch's Reducer, in Python over yaten.distributed):
- At construction the parameters and buffers of rank 0 are broadcast to every rank (one flat message per dtype).
- The parameters that require grad are cut into buckets in reverse registration order (roughly the order backward
  produces their gradients): the first bucket holds up to 1 MiB, the others up to `bucket_cap_mb`, and a bucket
  holds one dtype on one device.
- Each parameter has a post-accumulate-grad hook (Tensor.register_post_accumulate_grad_hook). When the last
  gradient of a bucket has arrived, its gradients are copied into the bucket's flat buffer, divided by the world size
  and all-reduced asynchronously, while backward goes on computing the next buckets. Buckets are launched in their
  order on every rank (a bucket ready early waits for the ones before it), so every rank issues the same sequence of
  collectives. Each hook also tests the pending reductions, which is what moves MPI's nonblocking collectives on.
- A callback queued on the autograd engine (Variable._execution_engine.queue_callback) runs when backward is over:
  it marks the parameters that got no gradient (find_unused_parameters=True; otherwise that is an error, as in torch),
  launches what is left, waits for every bucket and writes the averaged gradients back into each `.grad`.
- `no_sync()` turns the hooks off: gradients accumulate locally, and the first backward after it reduces the sum.
"""

from __future__ import annotations

import contextlib
import weakref
from typing import Any, Iterator

from ..modules.module import Module

_FIRST_BUCKET_BYTES = 1024 * 1024


class _Bucket:
    def __init__(self, params: list, names: list[str]) -> None:
        import yaten

        self.params = params
        self.names = names
        self.sizes = [p.numel() for p in params]
        first = params[0]
        self.buffer = yaten.zeros(sum(self.sizes), dtype=first.dtype, device=first.device)
        self.indices: list[int] = []
        self.ready = 0
        self.work: Any = None

    def pack(self, world_size: int) -> None:
        offset = 0
        for p, n in zip(self.params, self.sizes):
            view = self.buffer[offset:offset + n]
            if p.grad is None:
                view.zero_()
            else:
                view.copy_(p.grad.reshape(-1))
            offset += n
        self.buffer.div_(world_size)

    def unpack(self) -> None:
        offset = 0
        for p, n in zip(self.params, self.sizes):
            reduced = self.buffer[offset:offset + n].view(p.shape)
            if p.grad is None:
                p.grad = reduced.clone()
            else:
                p.grad.copy_(reduced)
            offset += n


class DistributedDataParallel(Module):
    """torch.nn.parallel.DistributedDataParallel (its signature; the arguments marked below are accepted and have
    no effect in yaten)."""

    def __init__(self, module: Module, device_ids: Any = None, output_device: Any = None, dim: int = 0,
                 broadcast_buffers: bool = True, process_group: Any = None, bucket_cap_mb: float | None = None,
                 find_unused_parameters: bool = False, check_reduction: bool = False,
                 gradient_as_bucket_view: bool = False, static_graph: bool = False,
                 delay_all_reduce_named_params: Any = None, param_to_hook_all_reduce: Any = None,
                 mixed_precision: Any = None, device_mesh: Any = None, skip_all_reduce_unused_params: bool = False
                 ) -> None:
        super().__init__()
        from ... import distributed as dist

        if not dist.is_initialized():
            raise RuntimeError("DistributedDataParallel: the default process group has not been initialized "
                               "(call yaten.distributed.init_process_group first)")
        if device_ids is not None and len(list(device_ids)) > 1:
            raise ValueError("DistributedDataParallel: device_ids must name one device (one model per process), "
                             f"got {list(device_ids)}")
        if mixed_precision is not None or device_mesh is not None:
            raise NotImplementedError("DistributedDataParallel: mixed_precision and device_mesh are not supported")
        self.module = module
        self.process_group = process_group if process_group is not None else dist.group.WORLD
        self.device_ids = list(device_ids) if device_ids is not None else None
        self.output_device = output_device
        self.dim = dim
        self.broadcast_buffers = broadcast_buffers
        self.find_unused_parameters = find_unused_parameters
        self.gradient_as_bucket_view = gradient_as_bucket_view
        self.static_graph = static_graph
        self.require_backward_grad_sync = True
        self.require_forward_param_sync = True
        self.bucket_bytes_cap = int((25 if bucket_cap_mb is None else bucket_cap_mb) * 1024 * 1024)
        self._world_size = dist.get_world_size(self.process_group)

        named: list[tuple[str, Any]] = []
        seen: set[int] = set()
        for name, p in module.named_parameters():
            if p.requires_grad and id(p) not in seen:
                seen.add(id(p))
                named.append((name, p))
        if not named:
            raise RuntimeError("DistributedDataParallel is not needed when a module doesn't have any parameter that "
                               "requires a gradient.")
        devices = {p.device.type for _, p in named}
        if len(devices) > 1:
            raise ValueError(f"DistributedDataParallel: the module's parameters are on several device types "
                             f"{sorted(devices)}; one model per process on one device")
        self._sync_module_states()
        self._buckets = self._make_buckets(named)
        # a parameter is known by its index in `named` (a hook receives a new Python object for the same tensor)
        index = {id(p): i for i, (_, p) in enumerate(named)}
        self._where = [0] * len(named)  # parameter index -> bucket index
        for b, bucket in enumerate(self._buckets):
            bucket.indices = [index[id(p)] for p in bucket.params]
            for i in bucket.indices:
                self._where[i] = b
        self._ready_params: set[int] = set()
        self._next_bucket = 0
        self._in_backward = False
        self._launched_in_backward = 0
        # the hooks hold the DDP weakly: the tensors outlive it, and a dropped DDP's __del__ takes them off
        owner = weakref.ref(self)

        def hook(_: Any, i: int) -> None:
            ddp = owner()
            if ddp is not None:
                ddp._grad_ready(i)

        self._hook_handles = [p.register_post_accumulate_grad_hook(lambda t, i=i: hook(t, i))
                              for i, (_, p) in enumerate(named)]

    # ---------------------------------------------------------------------------------------------- set-up
    def _make_buckets(self, named: list[tuple[str, Any]]) -> list[_Bucket]:
        buckets: list[_Bucket] = []
        open_: dict[tuple, tuple[list, list, int]] = {}  # (dtype, device) -> (params, names, bytes)
        cap = min(_FIRST_BUCKET_BYTES, self.bucket_bytes_cap)
        for name, p in reversed(named):
            key = (str(p.dtype), str(p.device))
            params, names, size = open_.get(key, ([], [], 0))
            params.append(p)
            names.append(name)
            size += p.numel() * p.element_size()
            if size >= cap:
                buckets.append(_Bucket(params, names))
                open_.pop(key, None)
                cap = self.bucket_bytes_cap
            else:
                open_[key] = (params, names, size)
        for params, names, _ in open_.values():
            buckets.append(_Bucket(params, names))
        return buckets

    def _broadcast_coalesced(self, tensors: list) -> None:
        import yaten
        from ... import distributed as dist

        groups: dict[tuple, list] = {}
        for t in tensors:
            groups.setdefault((str(t.dtype), str(t.device)), []).append(t)
        root = dist.get_global_rank(self.process_group, 0)
        with yaten.no_grad():
            for ts in groups.values():
                flat = yaten.cat([t.detach().reshape(-1) for t in ts])
                dist.broadcast(flat, src=root, group=self.process_group)
                offset = 0
                for t in ts:
                    t.detach().copy_(flat[offset:offset + t.numel()].view(t.shape))
                    offset += t.numel()

    def _sync_module_states(self) -> None:
        states = [p for p in self.module.parameters()] + [b for b in self.module.buffers()]
        if states:
            self._broadcast_coalesced(states)

    # ---------------------------------------------------------------------------------------------- backward
    def _grad_ready(self, i: int) -> None:
        if not self.require_backward_grad_sync:
            return
        if not self._in_backward:
            from ...autograd import Variable

            self._in_backward = True
            self._ready_params.clear()
            self._next_bucket = 0
            for bucket in self._buckets:
                bucket.ready, bucket.work = 0, None
            Variable._execution_engine.queue_callback(self._finalize)
        if i in self._ready_params:
            return
        self._ready_params.add(i)
        bucket = self._buckets[self._where[i]]
        bucket.ready += 1
        self._launch_ready()
        for b in self._buckets[:self._next_bucket]:
            if b.work is not None:
                b.work.is_completed()  # moves MPI's nonblocking reductions on while backward computes

    def _launch_ready(self) -> None:
        from ... import distributed as dist

        while self._next_bucket < len(self._buckets):
            bucket = self._buckets[self._next_bucket]
            if bucket.ready < len(bucket.params):
                return
            bucket.pack(self._world_size)
            bucket.work = dist.all_reduce(bucket.buffer, group=self.process_group, async_op=True)
            self._next_bucket += 1

    def _finalize(self) -> None:
        self._in_backward = False
        self._launched_in_backward = self._next_bucket  # what overlapped backward (the rest launches below)
        missing = [(name, i) for bucket in self._buckets for name, i in zip(bucket.names, bucket.indices)
                   if i not in self._ready_params]
        if missing and not self.find_unused_parameters:
            names = ", ".join(name for name, _ in missing)
            raise RuntimeError(
                "Expected to have finished reduction in the prior iteration before starting a new one. This error "
                "indicates that your module has parameters that were not used in producing loss. You can enable "
                "unused parameter detection by passing the keyword argument `find_unused_parameters=True` to "
                "`yaten.nn.parallel.DistributedDataParallel`, and by making sure all `forward` function outputs "
                f"participate in calculating loss. Parameters which did not receive grad: {names}")
        for _, i in missing:  # their gradient here is zero; the average may not be
            self._ready_params.add(i)
            self._buckets[self._where[i]].ready += 1
        self._launch_ready()
        for bucket in self._buckets:
            bucket.work.wait()
            bucket.unpack()
            bucket.work = None

    # ---------------------------------------------------------------------------------------------- forward
    def forward(self, *inputs: Any, **kwargs: Any) -> Any:
        if self._in_backward:
            raise RuntimeError("DistributedDataParallel: forward was called while the previous backward's gradient "
                               "reduction has not finished")
        if self.broadcast_buffers and self.require_forward_param_sync:
            buffers = list(self.module.buffers())
            if buffers:
                self._broadcast_coalesced(buffers)
        return self.module(*inputs, **kwargs)

    @contextlib.contextmanager
    def no_sync(self) -> Iterator[None]:
        """Within the block, backward accumulates gradients locally; the first backward after it reduces them."""
        previous = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = previous

    def _get_ddp_logging_data(self) -> dict:
        return {"bucket_sizes": [b.buffer.numel() * b.buffer.element_size() for b in self._buckets],
                "num_buckets": len(self._buckets), "world_size": self._world_size,
                "buckets_launched_in_backward": self._launched_in_backward}

    def __del__(self) -> None:
        for h in getattr(self, "_hook_handles", []):
            try:
                h.remove()
            except Exception:  # noqa: BLE001 - interpreter shutdown
                pass
