"""all_reduce and DDP beside torch.distributed, in the same processes.

    python -m yaten.distributed.run --nproc-per-node 2 benchmarks/bench_distributed.py

Each rank initializes yaten.distributed (MPI) and torch.distributed (gloo, torch's CPU backend) and times, for each
message size, the median of many blocking all_reduce calls of float32 tensors of that size, yaten's on MPI, torch's on
gloo, and the raw mpi4py call on a NumPy array (the floor yaten's MPI backend stands on). Then one DDP training step
(forward, backward with bucketed reduction, no optimizer) of the same MLP in each library. Rank 0 prints the medians
and the ratios (yaten / torch: lower is faster)."""

from __future__ import annotations

import os

import numpy as np

import yaten
import yaten.distributed as dist
from common import median_of_calls


def main() -> None:
    import torch
    import torch.distributed as tdist
    from mpi4py import MPI

    yaten.set_num_threads(1)
    torch.set_num_threads(1)
    dist.init_process_group("mpi")
    tdist.init_process_group("gloo")
    rank, n = dist.get_rank(), dist.get_world_size()
    comm = MPI.COMM_WORLD
    rows = []
    for size in (1, 256, 16 * 1024, 256 * 1024, 4 * 1024 * 1024):
        y = yaten.ones(size)
        t = torch.ones(size)
        a = np.ones(size, dtype=np.float32)
        repeat = 200 if size <= 16 * 1024 else 20
        comm.Barrier()
        ours = median_of_calls(lambda: dist.all_reduce(y), repeat, warmup=3)
        comm.Barrier()
        theirs = median_of_calls(lambda: tdist.all_reduce(t), repeat, warmup=3)
        comm.Barrier()
        raw = median_of_calls(lambda: comm.Allreduce(MPI.IN_PLACE, a), repeat, warmup=3)
        rows.append((size * 4, ours, theirs, raw))
    # one DDP step of an MLP (4 x 1024 wide, batch 64), gradient reduction included
    width, batch = 1024, 64

    def mlp(lib):
        nn = lib.nn
        return nn.Sequential(*[m for _ in range(4) for m in (nn.Linear(width, width), nn.ReLU())])

    ym = yaten.nn.parallel.DistributedDataParallel(mlp(yaten))
    tm = torch.nn.parallel.DistributedDataParallel(mlp(torch))
    xy, xt = yaten.randn(batch, width), torch.randn(batch, width)

    def step_y():
        ym(xy).sum().backward()

    def step_t():
        tm(xt).sum().backward()

    comm.Barrier()
    ddp_ours = median_of_calls(step_y, 10, warmup=3)
    comm.Barrier()
    ddp_theirs = median_of_calls(step_t, 10, warmup=3)
    if rank == 0:
        print(f"{n} processes, 1 thread each; medians, yaten on MPI / torch on gloo (lower is faster)")
        print(f"{'bytes':>10} {'yaten us':>10} {'torch us':>10} {'mpi4py us':>10} {'ratio':>7}")
        for nbytes, ours, theirs, raw in rows:
            print(f"{nbytes:>10} {ours * 1e6:>10.1f} {theirs * 1e6:>10.1f} {raw * 1e6:>10.1f} {ours / theirs:>7.2f}")
        print(f"DDP step (4 x Linear({width}), batch {batch}): yaten {ddp_ours * 1e3:.2f} ms, torch "
              f"{ddp_theirs * 1e3:.2f} ms, ratio {ddp_ours / ddp_theirs:.2f}; yaten launched "
              f"{ym._get_ddp_logging_data()['buckets_launched_in_backward']} of {len(ym._buckets)} buckets during "
              "backward")
    tdist.destroy_process_group()
    dist.destroy_process_group()


if __name__ == "__main__":
    os.environ.setdefault("MASTER_PORT", "29555")
    main()
