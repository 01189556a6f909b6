"""What each rank runs for tests/test_distributed.py (started by `python -m yaten.distributed.run` or mpiexec).

    python -m yaten.distributed.run --nproc-per-node 4 tests/distributed_worker.py collectives

Every rank makes the same inputs for every rank from a seed (NumPy), so each rank checks its result against a
computation of NumPy's over all of them, in one process. A failed check raises, which makes the rank exit non-zero
(the test reads every rank's exit status and output)."""

from __future__ import annotations

import datetime
import os
import sys

import numpy as np

import yaten
import yaten.distributed as dist

TIMEOUT = datetime.timedelta(seconds=float(os.environ.get("DIST_TEST_TIMEOUT", "30")))
DTYPES = ["float32", "float64", "int32", "int64", "uint8", "int8", "int16", "bool", "float16", "bfloat16",
          "complex64", "complex128", "uint16", "uint32", "uint64"]
INTEGERS = ("uint8", "int8", "int16", "int32", "int64", "uint16", "uint32", "uint64")


def source(rank: int, shape: tuple, dtype: str, salt: int = 0) -> np.ndarray:
    """Rank `rank`'s input, as NumPy (bfloat16 as float32 values that bfloat16 holds exactly)."""
    rng = np.random.default_rng(1000 * rank + 17 * salt + 1)
    if dtype == "bool":
        return rng.random(shape) < 0.5
    if dtype in INTEGERS:
        return rng.integers(1, 4, shape).astype(dtype)
    if dtype.startswith("complex"):
        return (rng.integers(-8, 8, shape) + 1j * rng.integers(-8, 8, shape)).astype(dtype) / 4
    values = rng.integers(-64, 64, shape) / 8.0  # exact in every float type, sums too
    return values.astype("float32" if dtype == "bfloat16" else dtype)


def tensor(a: np.ndarray, dtype: str, noncontiguous: bool = False) -> yaten.Tensor:
    t = yaten.tensor(a.tolist(), dtype=getattr(yaten, dtype)) if a.ndim else yaten.tensor(a.item(),
                                                                                        dtype=getattr(yaten, dtype))
    if noncontiguous and t.dim() == 2:
        t = t.t().contiguous().t()  # same values, transposed strides
        assert not t.is_contiguous()
    return t


def as_numpy(t: yaten.Tensor) -> np.ndarray:
    if t.dtype == yaten.bfloat16:
        t = t.float()
    return np.array(t.tolist())


def same(got: yaten.Tensor, want: np.ndarray, what: str) -> None:
    """got equals want rounded to got's dtype (the reference is computed in float64 or complex128)."""
    g = as_numpy(got)
    if got.is_floating_point() or got.is_complex():
        want = as_numpy(yaten.tensor(np.asarray(want).tolist(), dtype=got.dtype))
    if g.shape != want.shape or not np.allclose(g, want, rtol=1e-6, atol=0):
        raise AssertionError(f"rank {dist.get_rank()} {what}: got {g.tolist()}, want {want.tolist()}")


def reduce_ref(arrays: list, op: str, dtype: str) -> np.ndarray:
    if dtype == "bool":
        stack = np.stack(arrays)
        return stack.any(0) if op in ("sum", "max", "bor") else stack.all(0) if op in ("product", "min", "band") \
            else np.logical_xor.reduce(stack, 0)
    stack = np.stack([a.astype("complex128" if dtype.startswith("complex") else "float64") for a in arrays])
    if op in ("band", "bor", "bxor"):
        ints = np.stack(arrays)
        fn = {"band": np.bitwise_and, "bor": np.bitwise_or, "bxor": np.bitwise_xor}[op]
        return fn.reduce(ints, 0)
    out = {"sum": stack.sum(0), "product": stack.prod(0), "min": stack.min(0) if op == "min" else None,
           "max": stack.max(0) if op == "max" else None, "avg": stack.sum(0) / len(arrays)}[op]
    if op == "avg" and dtype in INTEGERS:
        out = np.trunc(out)
    if dtype in INTEGERS:
        out = out.astype(dtype)  # wraps as the tensor's own arithmetic does
    return out


def ops_for(dtype: str) -> list[str]:
    if dtype.startswith("complex"):
        return ["sum", "product", "avg"]
    if dtype == "bool":
        return ["sum", "product", "min", "max", "band", "bor", "bxor"]
    if dtype in INTEGERS:
        return ["sum", "product", "min", "max", "avg", "band", "bor", "bxor"]
    return ["sum", "product", "min", "max", "avg"]


def collectives() -> None:
    rank, n = dist.get_rank(), dist.get_world_size()
    checks = 0
    for dtype in DTYPES:
        for shape, nc in (((3, 4), False), ((3, 4), True), ((5,), False), ((), False)):
            inputs = [source(r, shape, dtype) for r in range(n)]
            for op in ops_for(dtype):
                t = tensor(inputs[rank], dtype, nc)
                dist.all_reduce(t, op=getattr(dist.ReduceOp, op.upper() if op != "product" else "PRODUCT"))
                same(t, reduce_ref(inputs, op, dtype), f"all_reduce {op} {dtype} {shape} nc={nc}")
                checks += 1
            # reduce to the last rank, broadcast from rank 1 % n, all_gather, gather, scatter
            t = tensor(inputs[rank], dtype, nc)
            dist.reduce(t, dst=n - 1, op=dist.ReduceOp.SUM)
            same(t, reduce_ref(inputs, "sum", dtype) if rank == n - 1 else inputs[rank], f"reduce {dtype} {shape}")
            t = tensor(inputs[rank], dtype, nc)
            dist.broadcast(t, src=1 % n)
            same(t, inputs[1 % n], f"broadcast {dtype} {shape}")
            outs = [tensor(np.zeros(shape, dtype="float32" if dtype == "bfloat16" else dtype), dtype)
                    for _ in range(n)]
            dist.all_gather(outs, tensor(inputs[rank], dtype, nc))
            for r in range(n):
                same(outs[r], inputs[r], f"all_gather {dtype} {shape} from {r}")
            gl = [yaten.empty_like(tensor(inputs[0], dtype)) for _ in range(n)] if rank == 0 else None
            dist.gather(tensor(inputs[rank], dtype, nc), gl, dst=0)
            if rank == 0:
                for r in range(n):
                    same(gl[r], inputs[r], f"gather {dtype} {shape} from {r}")
            out = yaten.empty_like(tensor(inputs[0], dtype))
            dist.scatter(out, [tensor(source(r, shape, dtype, 5), dtype) for r in range(n)] if rank == n - 1
                         else None, src=n - 1)
            same(out, source(rank, shape, dtype, 5), f"scatter {dtype} {shape}")
            checks += 5
        # tensor forms: all_gather_into_tensor (concatenated and stacked), reduce_scatter(_tensor), all_to_all
        inputs = [source(r, (2, 3), dtype, 1) for r in range(n)]
        flat = yaten.empty(2 * n, 3, dtype=getattr(yaten, dtype))
        dist.all_gather_into_tensor(flat, tensor(inputs[rank], dtype))
        same(flat, np.concatenate(inputs), f"all_gather_into_tensor {dtype}")
        stacked = yaten.empty(n, 2, 3, dtype=getattr(yaten, dtype))
        dist.all_gather_into_tensor(stacked, tensor(inputs[rank], dtype))
        same(stacked, np.stack(inputs), f"all_gather_into_tensor stacked {dtype}")
        big = [source(r, (2 * n, 3), dtype, 2) for r in range(n)]
        out = yaten.empty(2, 3, dtype=getattr(yaten, dtype))
        dist.reduce_scatter_tensor(out, tensor(big[rank], dtype))
        same(out, reduce_ref(big, "sum", dtype)[2 * rank:2 * rank + 2], f"reduce_scatter_tensor {dtype}")
        out = yaten.empty(2, 3, dtype=getattr(yaten, dtype))
        dist.reduce_scatter(out, [tensor(big[rank][2 * r:2 * r + 2], dtype) for r in range(n)],
                            op=dist.ReduceOp.MAX if not dtype.startswith("complex") else dist.ReduceOp.SUM)
        want = reduce_ref(big, "max" if not dtype.startswith("complex") else "sum", dtype)[2 * rank:2 * rank + 2]
        same(out, want, f"reduce_scatter {dtype}")
        # all_to_all_single, even and uneven splits (rank r sends r + j + 1 rows to rank j)
        rows = [source(r, (2 * n, 2), dtype, 3) for r in range(n)]
        out = yaten.empty(2 * n, 2, dtype=getattr(yaten, dtype))
        dist.all_to_all_single(out, tensor(rows[rank], dtype))
        same(out, np.concatenate([rows[r][2 * rank:2 * rank + 2] for r in range(n)]), f"all_to_all_single {dtype}")
        send = [r + j + 1 for j in range(n) for r in [rank]]
        recv = [r + rank + 1 for r in range(n)]
        src = [source(r, (sum(r + j + 1 for j in range(n)), 2), dtype, 4) for r in range(n)]
        out = yaten.empty(sum(recv), 2, dtype=getattr(yaten, dtype))
        dist.all_to_all_single(out, tensor(src[rank], dtype), output_split_sizes=recv, input_split_sizes=send)
        pieces = []
        for r in range(n):
            start = sum(r + j + 1 for j in range(rank))
            pieces.append(src[r][start:start + r + rank + 1])
        same(out, np.concatenate(pieces), f"all_to_all_single uneven {dtype}")
        outs = [yaten.empty(r + rank + 1, 2, dtype=getattr(yaten, dtype)) for r in range(n)]
        ins = []
        offset = 0
        for j in range(n):
            ins.append(tensor(src[rank][offset:offset + rank + j + 1], dtype))
            offset += rank + j + 1
        dist.all_to_all(outs, ins)
        for r in range(n):
            same(outs[r], pieces[r], f"all_to_all {dtype} from {r}")
        checks += 8
    # uneven all_gather, async_op, barrier
    mine = yaten.arange(rank + 1, dtype=yaten.float32) + 10 * rank
    outs = [yaten.empty(r + 1) for r in range(n)]
    work = dist.all_gather(outs, mine, async_op=True)
    assert isinstance(work, dist.Work) and work.wait() and work.is_completed() and work.is_success()
    for r in range(n):
        same(outs[r], np.arange(r + 1) + 10.0 * r, f"uneven all_gather from {r}")
    works = [dist.all_reduce(yaten.full((1000,), float(rank)), async_op=True) for _ in range(3)]
    for w in works:
        w.wait()
    assert dist.barrier() is None
    print(f"rank {rank}: {checks} collective checks passed", flush=True)


def point_to_point() -> None:
    rank, n = dist.get_rank(), dist.get_world_size()
    # a ring: send to rank + 1, receive from rank - 1, non-contiguous and bfloat16 included
    for dtype in ("float32", "int64", "bfloat16", "complex64", "bool"):
        a = source(rank, (3, 2), dtype)
        out = yaten.empty(3, 2, dtype=getattr(yaten, dtype))
        reqs = dist.batch_isend_irecv([dist.P2POp(dist.isend, tensor(a, dtype, True), (rank + 1) % n),
                                       dist.P2POp(dist.irecv, out, (rank - 1) % n)])
        for r in reqs:
            r.wait()
        same(out, source((rank - 1) % n, (3, 2), dtype), f"ring {dtype}")
    # any-source receive on rank 0, tags
    if rank == 0:
        got = set()
        for _ in range(n - 1):
            t = yaten.empty(1, dtype=yaten.int64)
            src = dist.recv(t, tag=7)
            assert int(t.item()) == src * 100, (src, t)
            got.add(src)
        assert got == set(range(1, n)), got
    else:
        dist.send(yaten.tensor([rank * 100]), dst=0, tag=7)
    # objects
    objs = [{"rank": rank}, "text", None] if rank == n - 1 else [None, None, None]
    dist.broadcast_object_list(objs, src=n - 1)
    assert objs == [{"rank": n - 1}, "text", None], objs
    everyone = [None] * n
    dist.all_gather_object(everyone, (rank, "x" * rank))
    assert everyone == [(r, "x" * r) for r in range(n)], everyone
    gathered = [None] * n if rank == 0 else None
    dist.gather_object(rank * 2, gathered, dst=0)
    if rank == 0:
        assert gathered == [r * 2 for r in range(n)], gathered
    slot = [None]
    dist.scatter_object_list(slot, [f"to {r}" for r in range(n)] if rank == 0 else None, src=0)
    assert slot == [f"to {rank}"], slot
    print(f"rank {rank}: point-to-point and object checks passed", flush=True)


def groups() -> None:
    rank, n = dist.get_rank(), dist.get_world_size()
    evens = dist.new_group([r for r in range(n) if r % 2 == 0])
    odds = dist.new_group([r for r in range(n) if r % 2 == 1])
    mine = evens if rank % 2 == 0 else odds
    other = odds if rank % 2 == 0 else evens
    assert other is dist.GroupMember.NON_GROUP_MEMBER
    assert dist.get_rank(other) == -1 and dist.all_reduce(yaten.ones(1), group=other) is None
    members = [r for r in range(n) if r % 2 == rank % 2]
    assert dist.get_process_group_ranks(mine) == members
    assert dist.get_rank(mine) == members.index(rank) and dist.get_world_size(mine) == len(members)
    assert dist.get_global_rank(mine, 0) == members[0] and dist.get_group_rank(mine, rank) == members.index(rank)
    t = yaten.tensor([float(rank)])
    dist.all_reduce(t, group=mine)
    same(t, np.array([float(sum(members))]), "all_reduce in a subgroup")
    t = yaten.tensor([float(rank)])
    dist.broadcast(t, src=members[-1], group=mine)  # src is a global rank, as in torch
    same(t, np.array([float(members[-1])]), "broadcast in a subgroup")
    try:
        dist.broadcast(t, src=(rank + 1) % n, group=mine)
        raise AssertionError("a src outside the group must raise")
    except ValueError as e:
        assert "not a rank of the group" in str(e), e
    dist.destroy_process_group(mine)
    print(f"rank {rank}: group checks passed", flush=True)


def errors() -> None:
    rank, n = dist.get_rank(), dist.get_world_size()
    cases = [
        (lambda: dist.all_reduce([1, 2]), TypeError, "must be a yaten.Tensor"),
        (lambda: dist.all_reduce(yaten.ones(2), op="sum"), TypeError, "must be a ReduceOp"),
        (lambda: dist.all_reduce(yaten.ones(2, dtype=yaten.complex64), op=dist.ReduceOp.MAX), ValueError,
         "not defined for complex"),
        (lambda: dist.all_reduce(yaten.ones(2), op=dist.ReduceOp.BAND), ValueError, "integer or bool"),
        (lambda: dist.broadcast(yaten.ones(2), src=n), ValueError, "not a rank of the group"),
        (lambda: dist.all_gather([yaten.ones(2)] * (n + 1), yaten.ones(2)), ValueError, "list of"),
        (lambda: dist.all_gather_into_tensor(yaten.ones(3), yaten.ones(2)), ValueError, "world_size"),
        (lambda: dist.all_to_all_single(yaten.ones(2 * n + 1), yaten.ones(2 * n + 1)), ValueError, "divisible"),
        (lambda: dist.send(yaten.ones(1), dst=rank), ValueError, "same as the rank"),
        (lambda: dist.init_process_group(), ValueError, "twice"),
    ]
    for fn, exc, text in cases:
        try:
            fn()
        except exc as e:
            assert text in str(e), (text, str(e))
        else:
            raise AssertionError(f"expected {exc.__name__} with {text!r}")
    print(f"rank {rank}: {len(cases)} error checks passed", flush=True)


def failure(mode: str) -> None:
    """Rank 1 fails; the others must raise DistBackendError from all_reduce within the timeout."""
    import time

    rank = dist.get_rank()
    if rank == 1:
        if mode == "raise":
            raise ValueError("rank 1 gives up")
        os.kill(os.getpid(), 9)
    start = time.monotonic()
    try:
        dist.all_reduce(yaten.ones(4))
    except dist.DistBackendError as e:
        print(f"rank {rank} raised after {time.monotonic() - start:.1f} s: {e}", flush=True)
        sys.exit(3)
    raise AssertionError("all_reduce returned although rank 1 is gone")


def ddp() -> None:
    """Two ranks with half the batch each train to the parameters of one process with the whole batch."""
    import copy

    import yaten.nn as nn
    from yaten.nn.parallel import DistributedDataParallel as DDP

    rank, n = dist.get_rank(), dist.get_world_size()
    yaten.manual_seed(rank)  # different weights on each rank: DDP must start from rank 0's
    model = nn.Sequential(nn.Linear(5, 16), nn.BatchNorm1d(16), nn.Tanh(), nn.Linear(16, 16), nn.Tanh(),
                          nn.Linear(16, 3)).double()
    yaten.manual_seed(0)
    reference = nn.Sequential(nn.Linear(5, 16), nn.BatchNorm1d(16), nn.Tanh(), nn.Linear(16, 16), nn.Tanh(),
                              nn.Linear(16, 3)).double()
    reference.load_state_dict(model.state_dict()) if rank == 0 else None
    states = [reference.state_dict()]
    dist.broadcast_object_list(states, src=0)
    reference.load_state_dict(states[0])
    net = DDP(model, bucket_cap_mb=0.0005)  # 512-byte buckets: several, launched as backward goes
    assert len(net._buckets) >= 3, len(net._buckets)
    opt = yaten.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
    ref_opt = yaten.optim.SGD(reference.parameters(), lr=0.1, momentum=0.9)
    g = np.random.default_rng(7)
    for step in range(6):
        x = yaten.tensor(g.standard_normal((8 * n, 5)).tolist(), dtype=yaten.float64)
        y = yaten.tensor(g.standard_normal((8 * n, 3)).tolist(), dtype=yaten.float64)
        mine = slice(8 * rank, 8 * rank + 8)
        accumulate = step % 3 == 1  # this step and the next: two half-batches, the first under no_sync
        opt.zero_grad()
        if accumulate:
            with net.no_sync():
                ((net(x[mine][:4]) - y[mine][:4]) ** 2).sum().div(8).backward()
            ((net(x[mine][4:]) - y[mine][4:]) ** 2).sum().div(8).backward()
        else:
            ((net(x[mine]) - y[mine]) ** 2).mean().backward()
        opt.step()
        # every bucket was reduced while backward ran, none left for the end (all parameters are used)
        assert net._get_ddp_logging_data()["buckets_launched_in_backward"] == len(net._buckets)
        ref_opt.zero_grad()
        if accumulate:
            # the reference sees the same per-rank micro-batches (BatchNorm's statistics are per batch)
            total = 0
            for r in range(n):
                rows = slice(8 * r, 8 * r + 8)
                total = total + ((reference(x[rows][:4]) - y[rows][:4]) ** 2).sum().div(8 * n)
                total = total + ((reference(x[rows][4:]) - y[rows][4:]) ** 2).sum().div(8 * n)
        else:
            total = sum(((reference(x[8 * r:8 * r + 8]) - y[8 * r:8 * r + 8]) ** 2).mean() for r in range(n)) / n
        total.backward()
        ref_opt.step()
        # BatchNorm's running statistics are rank 0's (broadcast each forward) in DDP, the last micro-batch's here
        for (name, p), q in zip(model.named_parameters(), reference.parameters()):
            err = float((p - q).abs().max())
            assert err < 1e-12, (step, name, err)
    # find_unused_parameters: a branch used on some ranks only
    class Branchy(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.a = nn.Linear(3, 3).double()
            self.b = nn.Linear(3, 3).double()

        def forward(self, x: yaten.Tensor, use_b: bool) -> yaten.Tensor:
            return self.b(self.a(x)) if use_b else self.a(x)

    yaten.manual_seed(3)
    branchy = Branchy()
    plain = copy.deepcopy(branchy)
    net = DDP(branchy, find_unused_parameters=True)
    x = yaten.ones(2, 3, dtype=yaten.float64) * (rank + 1)
    net(x, rank == 0).sum().backward()
    grads = [None] * n
    for r in range(n):
        plain.zero_grad(set_to_none=True)
        plain(yaten.ones(2, 3, dtype=yaten.float64) * (r + 1), r == 0).sum().backward()
        grads[r] = {k: v.grad.clone() if v.grad is not None else yaten.zeros_like(v) for k, v in
                    plain.named_parameters()}
    for k, p in branchy.named_parameters():
        want = sum(grads[r][k] for r in range(n)) / n
        assert float((p.grad - want).abs().max()) < 1e-12, k
    strict = DDP(Branchy())
    try:
        strict(x, False).sum().backward()
        raise AssertionError("an unused parameter without find_unused_parameters must raise")
    except RuntimeError as e:
        assert "find_unused_parameters=True" in str(e) and "b.weight" in str(e), e
    print(f"rank {rank}: DDP checks passed", flush=True)


def interop() -> None:
    """torch.distributed (gloo) reduces a yaten tensor in place through DLPack."""
    import torch
    import torch.distributed as tdist

    tdist.init_process_group("gloo", timeout=TIMEOUT)
    rank = tdist.get_rank()
    t = yaten.arange(6, dtype=yaten.float32) * (rank + 1)
    view = torch.from_dlpack(t)
    tdist.all_reduce(view)
    n = tdist.get_world_size()
    same(t, np.arange(6) * sum(range(1, n + 1)), "torch.distributed all_reduce of a yaten tensor")
    tdist.destroy_process_group()
    print(f"rank {rank}: interop passed", flush=True)


def environment() -> None:
    rank = dist.get_rank()
    env = {k: os.environ.get(k) for k in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "GROUP_RANK",
                                          "MASTER_ADDR", "MASTER_PORT")}
    t = yaten.tensor([float(rank)])
    dist.all_reduce(t)
    n = dist.get_world_size()
    same(t, np.array([n * (n - 1) / 2]), "all_reduce across nodes")
    print(f"ENV {rank} {env['RANK']} {env['WORLD_SIZE']} {env['LOCAL_RANK']} {env['LOCAL_WORLD_SIZE']} "
          f"{env['GROUP_RANK']} {env['MASTER_ADDR']};", flush=True)


def syncbn() -> None:
    """SyncBatchNorm with unequal batch slices per rank equals BatchNorm over the whole batch in one process: outputs,
    input gradients, running statistics, and the weight and bias gradients summed over the ranks."""
    import yaten.nn as nn

    rank, n = dist.get_rank(), dist.get_world_size()
    sizes = [3 + 2 * r for r in range(n)]
    start = sum(sizes[:rank])
    g = np.random.default_rng(11)
    for shape in ((sum(sizes), 4), (sum(sizes), 4, 3, 2)):
        x = yaten.tensor((g.standard_normal(shape) * 3 + 1).tolist(), dtype=yaten.float64)
        w = yaten.tensor(g.standard_normal(shape).tolist(), dtype=yaten.float64)
        yaten.manual_seed(5)
        reference = nn.BatchNorm1d(4) if len(shape) == 2 else nn.BatchNorm2d(4)
        reference = reference.double()
        with yaten.no_grad():
            reference.weight.uniform_(0.5, 1.5)
            reference.bias.uniform_(-1, 1)
        synced = nn.SyncBatchNorm.convert_sync_batchnorm(nn.Sequential(reference.__class__(4).double()))[0]
        synced.load_state_dict(reference.state_dict())
        whole = x.clone().requires_grad_()
        expected = reference(whole)
        (expected * w).sum().backward()
        part = x[start:start + sizes[rank]].clone().requires_grad_()
        out = synced(part)
        (out * w[start:start + sizes[rank]]).sum().backward()
        assert float((out - expected[start:start + sizes[rank]]).abs().max()) < 1e-12
        assert float((part.grad - whole.grad[start:start + sizes[rank]]).abs().max()) < 1e-12
        for name in ("weight", "bias"):
            local = getattr(synced, name).grad.clone()
            dist.all_reduce(local)
            assert float((local - getattr(reference, name).grad).abs().max()) < 1e-12, name
        for name in ("running_mean", "running_var"):
            assert float((getattr(synced, name) - getattr(reference, name)).abs().max()) < 1e-12, name
        synced.eval()
        assert float((synced(part) - reference.eval()(part)).abs().max()) < 1e-12
    print(f"rank {rank}: SyncBatchNorm checks passed", flush=True)


def nccl() -> None:
    """CUDA tensors through NCCL (one GPU: the ranks share it)."""
    rank, n = dist.get_rank(), dist.get_world_size()
    for dtype in ("float32", "float16", "bfloat16", "int64", "complex64"):
        inputs = [source(r, (4, 3), dtype) for r in range(n)]
        for op in [o for o in ops_for(dtype) if o in ("sum", "max", "min", "avg", "product")]:
            t = tensor(inputs[rank], dtype).cuda()
            dist.all_reduce(t, op=getattr(dist.ReduceOp, op.upper()))
            same(t.cpu(), reduce_ref(inputs, op, dtype).astype(inputs[0].dtype) if dtype not in ("int64",) else
                 reduce_ref(inputs, op, dtype), f"nccl all_reduce {op} {dtype}")
        t = tensor(inputs[rank], dtype).cuda()
        dist.broadcast(t, src=n - 1)
        same(t.cpu(), inputs[n - 1], f"nccl broadcast {dtype}")
        flat = yaten.empty(4 * n, 3, dtype=getattr(yaten, dtype), device="cuda")
        dist.all_gather_into_tensor(flat, tensor(inputs[rank], dtype).cuda())
        same(flat.cpu(), np.concatenate(inputs), f"nccl all_gather {dtype}")
    if n > 1:
        out = yaten.empty(3, device="cuda")
        reqs = dist.batch_isend_irecv([dist.P2POp(dist.isend, yaten.full((3,), float(rank), device="cuda"),
                                                  (rank + 1) % n),
                                       dist.P2POp(dist.irecv, out, (rank - 1) % n)])
        for r in reqs:
            r.wait()
        same(out.cpu(), np.full(3, float((rank - 1) % n)), "nccl ring")
    big = yaten.ones(64 * 1024 * 1024, device="cuda")  # 256 MB of float32
    import time

    for _ in range(2):
        dist.all_reduce(big)
    yaten.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(5):
        dist.all_reduce(big)
    yaten.cuda.synchronize()
    seconds = (time.perf_counter() - start) / 5
    bus = 2 * (n - 1) / n * big.numel() * 4 / seconds / 1e9 if n > 1 else big.numel() * 4 / seconds / 1e9
    print(f"rank {rank}: nccl checks passed; all_reduce 256 MB {seconds * 1e3:.2f} ms, bus bandwidth {bus:.1f} GB/s",
          flush=True)


if __name__ == "__main__":
    scenario = sys.argv[1]
    if scenario == "interop":
        interop()
        sys.exit(0)
    if scenario == "nccl":
        yaten.cuda.set_device(int(os.environ.get("LOCAL_RANK", "0")) % yaten.cuda.device_count())
        dist.init_process_group(None, timeout=TIMEOUT)
    else:
        dist.init_process_group("mpi", timeout=TIMEOUT)
    {"collectives": collectives, "p2p": point_to_point, "groups": groups, "errors": errors, "ddp": ddp,
     "env": environment, "nccl": nccl, "syncbn": syncbn, "raise": lambda: failure("raise"),
     "kill": lambda: failure("kill")}[scenario]()
    dist.destroy_process_group()
