"""yaten.utils.data: every sample once per epoch, the same order for a seed whatever num_workers, worker errors and
deaths raised in the parent, collation as torch's."""

from __future__ import annotations

import os

import numpy as np
import pytest

import yaten
from yaten.utils.data import (
    BatchSampler, DataLoader, Dataset, IterableDataset, RandomSampler, SequentialSampler, TensorDataset,
    WeightedRandomSampler, default_collate, get_worker_info, random_split)


class Squares(Dataset):
    def __init__(self, n: int) -> None:
        self.n = n

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: int):
        return {"x": yaten.tensor([float(i), float(i * i)]), "i": i, "name": f"s{i}"}


class Failing(Squares):
    def __getitem__(self, i: int):
        if i == 7:
            raise ValueError(f"sample {i} is broken")
        return super().__getitem__(i)


class Dying(Squares):
    def __getitem__(self, i: int):
        if i == 5:
            os._exit(3)
        return super().__getitem__(i)


class Stream(IterableDataset):
    def __init__(self, n: int) -> None:
        self.n = n

    def __iter__(self):
        info = get_worker_info()
        start, step = (0, 1) if info is None else (info.id, info.num_workers)
        return iter(yaten.tensor([float(i)]) for i in range(start, self.n, step))


def order(loader) -> list[int]:
    return [i for batch in loader for i in batch["i"].tolist()]


@pytest.mark.parametrize("workers", [0, 2])
def test_every_sample_once_per_epoch(workers):
    loader = DataLoader(Squares(23), batch_size=4, shuffle=True, num_workers=workers)
    for _ in range(2):
        seen = order(loader)
        assert sorted(seen) == list(range(23))


def test_same_order_for_a_seed_whatever_the_number_of_workers():
    orders = [order(DataLoader(Squares(30), batch_size=4, shuffle=True, num_workers=w,
                               generator=yaten.Generator().manual_seed(7))) for w in (0, 1, 2, 3)]
    assert orders[0] != list(range(30))
    assert all(o == orders[0] for o in orders)
    yaten.manual_seed(11)
    first = [order(DataLoader(Squares(30), batch_size=5, shuffle=True, num_workers=w)) for w in (0,)]
    yaten.manual_seed(11)
    second = [order(DataLoader(Squares(30), batch_size=5, shuffle=True, num_workers=w)) for w in (2,)]
    assert first == second


def test_batches_are_collated_as_torch():
    batch = next(iter(DataLoader(Squares(5), batch_size=3, num_workers=2)))
    assert batch["x"].tolist() == [[0.0, 0.0], [1.0, 1.0], [2.0, 4.0]]
    assert batch["i"].dtype == yaten.int64 and batch["name"] == ["s0", "s1", "s2"]
    assert default_collate([(1.5, np.ones(2)), (2.5, np.zeros(2))])[0].dtype == yaten.float64
    last = list(DataLoader(Squares(5), batch_size=2, drop_last=True))
    assert len(last) == 2


def test_a_worker_exception_is_raised_in_the_parent():
    loader = DataLoader(Failing(12), batch_size=2, num_workers=2)
    with pytest.raises(ValueError, match="sample 7 is broken") as info:
        list(loader)
    assert "DataLoader worker process" in str(info.value)


def test_a_dead_worker_is_an_error_not_a_hang():
    loader = DataLoader(Dying(12), batch_size=2, num_workers=2)
    with pytest.raises(RuntimeError, match="exited unexpectedly with exit code 3"):
        list(loader)


def test_iterable_dataset_shards_by_worker_info():
    values = sorted(int(b.item()) for b in DataLoader(Stream(9), batch_size=None, num_workers=3))
    assert values == list(range(9))
    batches = list(DataLoader(Stream(7), batch_size=3))
    assert [b.shape[0] for b in batches] == [3, 3, 1]


def test_tensor_dataset_random_split_and_samplers():
    ds = TensorDataset(yaten.arange(10.0), yaten.arange(10))
    a, b = random_split(ds, [0.7, 0.3], generator=yaten.Generator().manual_seed(0))
    assert len(a) == 7 and len(b) == 3 and sorted(a.indices + b.indices) == list(range(10))
    assert list(BatchSampler(SequentialSampler(range(5)), 2, False)) == [[0, 1], [2, 3], [4]]
    drawn = list(RandomSampler(range(4), replacement=True, num_samples=40, generator=yaten.Generator().manual_seed(1)))
    assert len(drawn) == 40 and set(drawn) <= {0, 1, 2, 3}
    weighted = list(WeightedRandomSampler([0.0, 1.0, 0.0], 10, generator=yaten.Generator().manual_seed(2)))
    assert weighted == [1] * 10
    with pytest.raises(ValueError, match="sampler option is mutually exclusive with shuffle"):
        DataLoader(ds, sampler=SequentialSampler(ds), shuffle=True)


def test_persistent_workers_serve_several_epochs():
    loader = DataLoader(Squares(10), batch_size=3, num_workers=2, persistent_workers=True,
                        generator=yaten.Generator().manual_seed(3), shuffle=True)
    first, second = order(loader), order(loader)
    assert sorted(first) == sorted(second) == list(range(10)) and first != second
