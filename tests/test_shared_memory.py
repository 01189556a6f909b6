"""Shared memory across processes (yaten.multiprocessing), storage objects and allocator statistics."""

from __future__ import annotations

import gc

import yaten
import yaten.multiprocessing as ymp


def _child_writes(tensor, done):
    tensor[0] = 42.0
    tensor[1:].add_(1)
    done.put(tensor.is_shared())


def _child_sends(queue, go, answer):
    t = yaten.arange(4, dtype=yaten.int32)
    queue.put(t)
    queue.put(t.view(2, 2).t())  # a view of the same storage travels as a view
    go.get()  # the parent has written
    answer.put(t.tolist())


def test_write_in_a_child_process_is_seen_by_the_parent():
    ctx = ymp.get_context("spawn")
    tensor = yaten.zeros(4)
    done = ctx.Queue()
    process = ctx.Process(target=_child_writes, args=(tensor, done))
    process.start()
    child_saw_shared = done.get(timeout=60)
    process.join(timeout=60)
    assert process.exitcode == 0
    assert child_saw_shared is True and tensor.is_shared()
    assert tensor.tolist() == [42.0, 1.0, 1.0, 1.0]


def test_tensor_from_a_child_shares_memory_with_it():
    ctx = ymp.get_context("spawn")
    queue, go, answer = ctx.Queue(), ctx.Queue(), ctx.Queue()
    process = ctx.Process(target=_child_sends, args=(queue, go, answer))
    process.start()
    received = queue.get(timeout=60)
    transposed = queue.get(timeout=60)
    assert received.tolist() == [0, 1, 2, 3] and received.dtype == yaten.int32 and received.is_shared()
    assert transposed.tolist() == [[0, 2], [1, 3]] and transposed.stride() == (1, 2)
    received[0] = 7  # the parent writes; the child reads it back
    go.put(True)
    assert answer.get(timeout=60) == [7, 1, 2, 3]
    process.join(timeout=60)
    assert process.exitcode == 0
    assert transposed[0, 0].item() == 7  # both received tensors are views of one shared storage


def test_share_memory_in_place_keeps_views_and_values():
    t = yaten.arange(6.0).reshape(2, 3)
    view = t[:, 1]
    before = t.untyped_storage().data_ptr()
    assert not t.is_shared()
    assert t.share_memory_() is t
    assert t.is_shared() and view.is_shared() and t.untyped_storage().data_ptr() != before
    view[0] = 50
    assert t.tolist() == [[0.0, 50.0, 2.0], [3.0, 4.0, 5.0]]
    assert t.untyped_storage().nbytes() == 24
    del view, t
    gc.collect()


def test_memory_stats_count_allocations_and_huge_pages():
    before = yaten.memory_stats()
    big = yaten.empty(1 << 20)  # 4 MiB: 2 MiB aligned, huge pages advised
    small = yaten.empty(10)
    after = yaten.memory_stats()
    assert after["allocations"] - before["allocations"] == 2
    assert after["huge_page_allocations"] - before["huge_page_allocations"] == 1
    assert after["bytes_in_use"] - before["bytes_in_use"] == 4 * (1 << 20) + 40
    assert after["peak_bytes_in_use"] >= after["bytes_in_use"]
    assert big.data_ptr() % (2 << 20) == 0 and small.data_ptr() % 64 == 0
    del big, small
    assert yaten.memory_stats()["bytes_in_use"] == before["bytes_in_use"]


def test_large_freed_blocks_are_reused_and_can_be_released():
    yaten.empty_cache()
    first = yaten.empty(3 << 20)  # 12 MiB
    address = first.data_ptr()
    del first
    stats = yaten.memory_stats()
    assert stats["cached_bytes"] == 12 << 20
    again = yaten.empty(3 << 20)
    assert again.data_ptr() == address and yaten.memory_stats()["cache_hits"] == stats["cache_hits"] + 1
    assert yaten.memory_stats()["cached_bytes"] == 0
    del again
    yaten.empty_cache()
    assert yaten.memory_stats()["cached_bytes"] == 0


def test_of_several_cached_blocks_of_one_size_the_one_freed_last_is_reused():
    # the newest block is the one likeliest in cache: reusing the oldest cycled a loop's output through every block
    # of its size that a backward pass had left (batch_norm's output after a convolution's backward: 35% slower)
    yaten.empty_cache()
    blocks = [yaten.empty(3 << 20) for _ in range(3)]  # 12 MiB each
    addresses = [b.data_ptr() for b in blocks]
    while blocks:
        blocks.pop(0)  # freed first to last
    for _ in range(3):
        again = yaten.empty(3 << 20)
        assert again.data_ptr() == addresses[-1]
        del again
    yaten.empty_cache()
