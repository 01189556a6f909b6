"""DistributedSampler: each rank's share of a dataset, as torch.utils.data.distributed.DistributedSampler draws it."""

from __future__ import annotations

import math
from typing import Any, Iterator

from .sampler import Sampler


class DistributedSampler(Sampler):
    """Indices rank, rank + num_replicas, ... of the dataset's order (shuffled with seed + epoch when `shuffle`),
    padded by wrapping around to a multiple of num_replicas, or cut to one with `drop_last`: every rank gets
    `len(self)` indices, and together they cover the dataset. Call `set_epoch(e)` each epoch for a new order."""

    def __init__(self, dataset: Any, num_replicas: int | None = None, rank: int | None = None, shuffle: bool = True,
                 seed: int = 0, drop_last: bool = False) -> None:
        if num_replicas is None or rank is None:
            from ... import distributed as dist

            if not dist.is_initialized():
                raise RuntimeError("DistributedSampler: give num_replicas and rank, or initialize the default "
                                   "process group (yaten.distributed.init_process_group)")
            num_replicas = dist.get_world_size() if num_replicas is None else num_replicas
            rank = dist.get_rank() if rank is None else rank
        if rank >= num_replicas or rank < 0:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval [0, {num_replicas - 1}]")
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.drop_last = drop_last
        n = len(dataset)
        if drop_last and n % num_replicas != 0:
            self.num_samples = math.ceil((n - num_replicas) / num_replicas)
        else:
            self.num_samples = math.ceil(n / num_replicas)
        self.total_size = self.num_samples * num_replicas
        self.shuffle = shuffle
        self.seed = seed

    def __iter__(self) -> Iterator[int]:
        n = len(self.dataset)
        if self.shuffle:
            import yaten

            g = yaten.Generator()
            g.manual_seed(self.seed + self.epoch)
            indices = yaten.randperm(n, generator=g).tolist()
        else:
            indices = list(range(n))
        if not self.drop_last:
            padding = self.total_size - len(indices)
            if padding <= len(indices):
                indices += indices[:padding]
            else:
                indices += (indices * math.ceil(padding / len(indices)))[:padding]
        else:
            indices = indices[:self.total_size]
        return iter(indices[self.rank:self.total_size:self.num_replicas])

    def __len__(self) -> int:
        return self.num_samples

    def set_epoch(self, epoch: int) -> None:
        self.epoch = epoch
