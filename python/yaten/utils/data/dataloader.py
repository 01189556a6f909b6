"""DataLoader: batches of a dataset, in the main process or in worker processes.

The order of samples is decided in the main process alone (the sampler, drawing from `generator` or from yaten's
default generator), and worker results are handed out in that order, so a seed gives the same batches whatever
num_workers is. Workers send their batches back through yaten.multiprocessing queues, whose tensors travel in
shared memory (no copy of the data through a pipe). A worker's exception is raised in the parent with the worker's
traceback; a worker that dies (killed, segfault) is a RuntimeError naming it, never a hang.
"""

from __future__ import annotations

import collections
import itertools
import os
import queue
import random
import time
import traceback
import warnings
from dataclasses import dataclass
from typing import Any, Callable, Iterator

from ... import _C
from .dataset import IterableDataset
from .sampler import BatchSampler, RandomSampler, SequentialSampler

Tensor = _C.Tensor

# How often the parent checks that its workers are alive while it waits for a batch (seconds).
_POLL_SECONDS = 1.0


# ---------------------------------------------------------------------------------------------------- collation

def default_convert(data: Any) -> Any:
    """NumPy arrays and numbers to tensors, recursively (the collate of batch_size=None)."""
    if _is_ndarray(data):
        from ... import from_numpy

        return from_numpy(data) if data.dtype.kind not in "USO" else data
    if isinstance(data, collections.abc.Mapping):
        return type(data)({k: default_convert(v) for k, v in data.items()}) if not isinstance(data, dict) \
            else {k: default_convert(v) for k, v in data.items()}
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, (list, tuple)):
        return type(data)(default_convert(d) for d in data) if isinstance(data, tuple) else \
            [default_convert(d) for d in data]
    return data


def _is_ndarray(data: Any) -> bool:
    return type(data).__module__ == "numpy" and type(data).__name__ == "ndarray"


def default_collate(batch: list[Any]) -> Any:
    """Stacks a list of samples into a batch, as torch's: tensors stacked along a new dim 0, NumPy arrays too, Python
    floats to a float64 tensor and ints to int64, strings kept in a list, and dicts, tuples, named tuples and lists
    collated field by field."""
    elem = batch[0]
    if isinstance(elem, Tensor):
        return _C.stack(list(batch), 0)
    if _is_ndarray(elem):
        if elem.dtype.kind in "USO":
            raise TypeError(f"default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; "
                            f"found numpy array of dtype {elem.dtype}")
        from ... import from_numpy

        return _C.stack([from_numpy(b) for b in batch], 0)
    if type(elem).__module__ == "numpy" and hasattr(elem, "dtype"):  # a NumPy scalar
        import numpy as np

        from ... import from_numpy

        return from_numpy(np.array(batch))
    if isinstance(elem, bool):
        return _C.tensor(batch)
    if isinstance(elem, float):
        return _C.tensor(batch, dtype=_C.float64)
    if isinstance(elem, int):
        return _C.tensor(batch)
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, collections.abc.Mapping):
        return {key: default_collate([d[key] for d in batch]) for key in elem}
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):
        return type(elem)(*(default_collate(samples) for samples in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        it = iter(batch)
        elem_size = len(next(it))
        if not all(len(e) == elem_size for e in it):
            raise RuntimeError("each element in list of batch should be of equal size")
        transposed = list(zip(*batch))
        if isinstance(elem, tuple):
            return [default_collate(samples) for samples in transposed]
        return [default_collate(samples) for samples in transposed]
    raise TypeError(f"default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found "
                    f"{type(elem)}")


# ---------------------------------------------------------------------------------------------------- workers

@dataclass(frozen=True)
class WorkerInfo:
    id: int
    num_workers: int
    seed: int
    dataset: Any


_worker_info: WorkerInfo | None = None


def get_worker_info() -> WorkerInfo | None:
    """In a DataLoader worker: its id, the number of workers, its seed and its copy of the dataset; else None."""
    return _worker_info


class _WorkerError:
    """A worker's exception, carried to the parent as text (the exception object may not pickle)."""

    def __init__(self, worker_id: int, exc: BaseException) -> None:
        self.worker_id = worker_id
        self.exc_type = type(exc)
        self.message = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))

    def reraise(self) -> None:
        text = f"Caught {self.exc_type.__name__} in DataLoader worker process {self.worker_id}.\nOriginal " + \
            self.message
        try:
            error = self.exc_type(text)
        except Exception:  # noqa: BLE001 - an exception type whose constructor takes other arguments
            error = RuntimeError(text)
        raise error


class _IterableEnd:
    """A worker's iterable dataset is exhausted."""

    def __init__(self, worker_id: int) -> None:
        self.worker_id = worker_id


def _worker_loop(dataset: Any, index_queue: Any, result_queue: Any, collate_fn: Callable, auto_collation: bool,
                 drop_last: bool, batch_size: Any, seed: int, worker_id: int, num_workers: int,
                 init_fn: Callable | None, iterable: bool) -> None:
    global _worker_info
    _C.manual_seed(seed)
    random.seed(seed)
    try:
        import numpy as np

        np.random.seed(seed % 2 ** 32)
    except ImportError:
        pass
    _worker_info = WorkerInfo(worker_id, num_workers, seed, dataset)
    try:
        if init_fn is not None:
            init_fn(worker_id)
        stream = iter(dataset) if iterable else None
    except Exception as exc:  # noqa: BLE001 - handed to the parent
        result_queue.put((-1, _WorkerError(worker_id, exc)))
        return
    while True:
        try:
            task = index_queue.get(timeout=_POLL_SECONDS)
        except queue.Empty:
            if os.getppid() == 1:  # the parent is gone
                return
            continue
        if task is None:
            return
        batch_index, indices = task
        try:
            if iterable:
                if auto_collation:
                    samples = list(itertools.islice(stream, batch_size))
                    if not samples or (drop_last and len(samples) < batch_size):
                        result_queue.put((batch_index, _IterableEnd(worker_id)))
                        continue
                    data = collate_fn(samples)
                else:
                    try:
                        data = collate_fn(next(stream))
                    except StopIteration:
                        result_queue.put((batch_index, _IterableEnd(worker_id)))
                        continue
            elif auto_collation:
                data = collate_fn([dataset[i] for i in indices])
            else:
                data = collate_fn(dataset[indices])
            result_queue.put((batch_index, data))
        except Exception as exc:  # noqa: BLE001 - handed to the parent
            result_queue.put((batch_index, _WorkerError(worker_id, exc)))
        del task


# ---------------------------------------------------------------------------------------------------- DataLoader

class DataLoader:
    """torch's DataLoader: batches from a map-style or iterable dataset, shuffled by a sampler, collated, fetched
    by num_workers processes (0: in this process)."""

    def __init__(self, dataset: Any, batch_size: int | None = 1, shuffle: bool | None = None, sampler: Any = None,
                 batch_sampler: Any = None, num_workers: int = 0, collate_fn: Callable | None = None,
                 pin_memory: bool = False, drop_last: bool = False, timeout: float = 0,
                 worker_init_fn: Callable | None = None, multiprocessing_context: Any = None, generator: Any = None,
                 *, prefetch_factor: int | None = None, persistent_workers: bool = False,
                 pin_memory_device: str = "", in_order: bool = True) -> None:
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable "
                             "multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError("prefetch_factor option could only be specified in multiprocessing. let num_workers > 0 "
                             "to enable multiprocessing, otherwise set prefetch_factor to None.")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")
        if persistent_workers and isinstance(dataset, IterableDataset):
            raise NotImplementedError("DataLoader: persistent_workers with an IterableDataset is not supported by "
                                      "yaten (each epoch needs fresh iterators in the workers)")
        if not in_order:
            raise NotImplementedError("DataLoader: in_order=False is not supported by yaten (batches come in order)")
        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = 2 if prefetch_factor is None and num_workers > 0 else prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.persistent_workers = persistent_workers
        self.generator = generator
        self._iterable = isinstance(dataset, IterableDataset)
        if self._iterable:
            if shuffle not in (False, None):
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified shuffle option, but got "
                                 f"shuffle={shuffle}")
            if sampler is not None:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified sampler option, but got "
                                 f"sampler={sampler}")
            if batch_sampler is not None:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified batch_sampler option, but "
                                 f"got batch_sampler={batch_sampler}")
        else:
            shuffle = bool(shuffle)
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and "
                                 "drop_last")
            batch_size = None
            drop_last = False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive with "
                             "drop_last")
        if sampler is None and not self._iterable:
            sampler = RandomSampler(dataset, generator=generator) if shuffle else SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None and not self._iterable:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn
        self._persistent: _WorkerPool | None = None

    @property
    def _auto_collation(self) -> bool:
        return self.batch_sampler is not None or (self._iterable and self.batch_size is not None)

    def _index_stream(self) -> Iterator[Any]:
        if self._iterable:
            return itertools.count()  # a worker (or this process) reads its own stream; indices are unused
        return iter(self.batch_sampler) if self._auto_collation else iter(self.sampler)

    def __len__(self) -> int:
        if self._iterable:
            length = len(self.dataset)  # type: ignore[arg-type]
            if self.batch_size is not None:
                return length // self.batch_size if self.drop_last else -(-length // self.batch_size)
            return length
        return len(self.batch_sampler if self._auto_collation else self.sampler)

    def __iter__(self) -> Iterator[Any]:
        # One draw from the loader's generator per epoch, whatever num_workers is (torch's base seed), so that the
        # sampler's draws after it, and so the order of batches, do not depend on the number of workers.
        base_seed = int(_C.randint(0, 2 ** 62, [1], generator=self.generator).item())
        if self.num_workers == 0:
            return self._single_process()
        if self.persistent_workers:
            if self._persistent is None:
                self._persistent = _WorkerPool(self, base_seed)
            return self._persistent.epoch(self)
        pool = _WorkerPool(self, base_seed)
        return pool.epoch(self, shutdown_after=True)

    def _single_process(self) -> Iterator[Any]:
        if self._iterable:
            stream = iter(self.dataset)
            if self._auto_collation:
                while True:
                    samples = list(itertools.islice(stream, self.batch_size))
                    if not samples or (self.drop_last and len(samples) < self.batch_size):
                        return
                    yield self._pin(self.collate_fn(samples))
            else:
                for sample in stream:
                    yield self._pin(self.collate_fn(sample))
            return
        for indices in self._index_stream():
            if self._auto_collation:
                yield self._pin(self.collate_fn([self.dataset[i] for i in indices]))
            else:
                yield self._pin(self.collate_fn(self.dataset[indices]))

    def _pin(self, data: Any) -> Any:
        if not self.pin_memory:
            return data
        from ... import cuda

        if not cuda.is_available():
            return data  # torch warns once and does not pin where there is no GPU; so does __init__ below
        return _pin_tree(data)

    def __del__(self) -> None:
        pool = getattr(self, "_persistent", None)
        if pool is not None:
            pool.shutdown()


def _pin_tree(data: Any) -> Any:
    if isinstance(data, Tensor):
        return data.pin_memory()
    if isinstance(data, dict):
        return {k: _pin_tree(v) for k, v in data.items()}
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(_pin_tree(d) for d in data))
    if isinstance(data, (list, tuple)):
        return type(data)(_pin_tree(d) for d in data)
    return data


class _WorkerPool:
    """num_workers processes, each with its own task queue, and one result queue back."""

    def __init__(self, loader: DataLoader, base_seed: int) -> None:
        from ... import multiprocessing as ymp

        context = loader.multiprocessing_context
        if context is None:
            context = ymp.get_context()
        elif isinstance(context, str):
            context = ymp.get_context(context)
        if loader.pin_memory:
            from ... import cuda

            if not cuda.is_available():
                warnings.warn("'pin_memory' argument is set as true but no accelerator is found, then device pinned "
                              "memory won't be used.", stacklevel=3)
        self.result_queue = context.Queue()
        self.index_queues = []
        self.workers = []
        for worker_id in range(loader.num_workers):
            index_queue = context.Queue()
            index_queue.cancel_join_thread()
            w = context.Process(target=_worker_loop, args=(
                loader.dataset, index_queue, self.result_queue, loader.collate_fn, loader._auto_collation,
                loader.drop_last, loader.batch_size, base_seed + worker_id, worker_id, loader.num_workers,
                loader.worker_init_fn, loader._iterable), daemon=True)
            w.start()
            self.index_queues.append(index_queue)
            self.workers.append(w)
        self.alive = True
        self.next_batch = 0  # batch numbers keep counting across epochs, so a late result cannot be mistaken

    def shutdown(self) -> None:
        if not self.alive:
            return
        self.alive = False
        for q in self.index_queues:
            try:
                q.put(None)
            except (OSError, ValueError):
                pass
        for w in self.workers:
            w.join(timeout=5)
            if w.is_alive():
                w.terminate()
        for q in self.index_queues:
            q.close()
        self.result_queue.cancel_join_thread()
        self.result_queue.close()

    def _get(self, loader: DataLoader) -> tuple[int, Any]:
        waited = 0.0
        while True:
            try:
                return self.result_queue.get(timeout=_POLL_SECONDS)
            except queue.Empty:
                waited += _POLL_SECONDS
                self._raise_if_a_worker_died()
                if loader.timeout and waited >= loader.timeout:
                    self.shutdown()
                    raise RuntimeError(f"DataLoader timed out after {loader.timeout} seconds") from None
            except (OSError, EOFError) as exc:
                # a batch whose tensors' shared memory could not be fetched: the worker that sent it died since
                for _ in range(20):
                    self._raise_if_a_worker_died()
                    time.sleep(0.1)
                self.shutdown()
                raise RuntimeError(f"DataLoader: a batch could not be received from a worker ({exc})") from exc

    def _raise_if_a_worker_died(self) -> None:
        dead = [w for w in self.workers if not w.is_alive()]
        if dead:
            w = dead[0]
            self.shutdown()
            raise RuntimeError(f"DataLoader worker (pid {w.pid}) exited unexpectedly with exit code {w.exitcode}" +
                               (f" (killed by signal {-w.exitcode})" if w.exitcode and w.exitcode < 0 else ""))

    def epoch(self, loader: DataLoader, shutdown_after: bool = False) -> Iterator[Any]:
        try:
            yield from self._epoch(loader)
        finally:
            if shutdown_after:
                self.shutdown()

    def _epoch(self, loader: DataLoader) -> Iterator[Any]:
        if not self.alive:
            raise RuntimeError("DataLoader: its workers were shut down after an error; create a new DataLoader")
        tasks = loader._index_stream()
        n = len(self.workers)
        in_flight = 0
        first = self.next_batch
        buffered: dict[int, Any] = {}
        active = set(range(n))  # workers whose iterable stream is not exhausted
        owner: dict[int, int] = {}

        def send(worker_id: int) -> bool:
            nonlocal in_flight
            try:
                indices = next(tasks)
            except StopIteration:
                return False
            batch = self.next_batch
            self.next_batch += 1
            owner[batch] = worker_id
            self.index_queues[worker_id].put((batch, indices))
            in_flight += 1
            return True

        # round-robin: batch b goes to worker (b - first) % n, prefetch_factor batches per worker in flight
        exhausted = False
        for _ in range(loader.prefetch_factor * n):
            if not send((self.next_batch - first) % n):
                exhausted = True
                break
        expected = first
        while in_flight:
            while expected not in buffered:
                batch, data = self._get(loader)
                buffered[batch] = data
            data = buffered.pop(expected)
            in_flight -= 1
            worker_id = owner.pop(expected)
            expected += 1
            if isinstance(data, _WorkerError):
                self.shutdown()
                data.reraise()
            if isinstance(data, _IterableEnd):
                active.discard(data.worker_id)
            else:
                yield loader._pin(data)
            if not exhausted and (not loader._iterable or worker_id in active):
                target = worker_id if loader._iterable else (self.next_batch - first) % n
                if not send(target):
                    exhausted = True
            if loader._iterable and not active:
                break
        # an iterable epoch ends with requests to exhausted workers outstanding: receive the answers not yet here
        for _ in range(in_flight - len(buffered)):
            self._get(loader)
