"""yaten.distributed: collectives on 2 and 4 CPU processes under MPI (tests/distributed_worker.py checks each result
against NumPy over every rank's input), DistributedDataParallel against one process with the whole batch, failures,
the launcher, two "nodes" over loopback addresses, torch.distributed on yaten tensors, NCCL where a GPU is; and in
this process: the autograd hooks DDP stands on, DistributedSampler beside torch's, argument errors."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time

import pytest

import yaten
import yaten.distributed as dist

HERE = os.path.dirname(os.path.abspath(__file__))
WORKER = os.path.join(HERE, "distributed_worker.py")


def _have_mpi() -> bool:
    if not dist.is_mpi_available():
        return False
    from yaten.distributed.run import find_mpiexec

    try:
        find_mpiexec()
        return True
    except RuntimeError:
        return False


needs_mpi = pytest.mark.skipif(not _have_mpi(), reason="needs mpi4py and mpiexec (pip install mpi4py mpich)")


def launch(scenario: str, nproc: int, *extra: str, timeout: float = 120, env: dict | None = None
           ) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "yaten.distributed.run", "--nproc-per-node", str(nproc), *extra, WORKER, scenario]
    full_env = dict(os.environ, YATEN_NUM_THREADS="1", **(env or {}))
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=full_env, cwd=HERE)


def passed(result: subprocess.CompletedProcess, text: str, nproc: int) -> None:
    assert result.returncode == 0, result.stdout + result.stderr
    for r in range(nproc):
        assert f"rank {r}: " in result.stdout and text in result.stdout, result.stdout + result.stderr
    assert result.stdout.count(text) == nproc, result.stdout


@needs_mpi
@pytest.mark.parametrize("nproc", [2, 4])
def test_collectives(nproc: int) -> None:
    """Every collective and ReduceOp over 12 dtypes, 0-d to 2-d, non-contiguous, uneven splits, async_op."""
    passed(launch("collectives", nproc), "808 collective checks passed", nproc)


@needs_mpi
@pytest.mark.parametrize("nproc", [2, 3])
def test_point_to_point_and_objects(nproc: int) -> None:
    passed(launch("p2p", nproc), "point-to-point and object checks passed", nproc)


@needs_mpi
def test_groups() -> None:
    passed(launch("groups", 4), "group checks passed", 4)


@needs_mpi
def test_argument_errors() -> None:
    passed(launch("errors", 2), "10 error checks passed", 2)


@needs_mpi
@pytest.mark.parametrize("nproc", [2, 3])
def test_ddp_matches_one_process(nproc: int) -> None:
    """Parameters after 6 SGD steps (no_sync accumulation included) equal one process's on the whole batch to
    1e-12 in float64; find_unused_parameters; the error without it."""
    passed(launch("ddp", nproc), "DDP checks passed", nproc)


@needs_mpi
@pytest.mark.parametrize("nproc", [2, 3])
def test_sync_batch_norm_matches_one_process(nproc: int) -> None:
    """SyncBatchNorm over unequal per-rank batches equals BatchNorm over the whole batch: values, gradients, running
    statistics (float64, 1e-12)."""
    passed(launch("syncbn", nproc), "SyncBatchNorm checks passed", nproc)


@needs_mpi
def test_gpt_example_data_parallel() -> None:
    """examples/gpt.py under the launcher: two ranks train one model with DDP and end with identical replicas."""
    data = os.path.join(HERE, "..", "..", "shared", "data", "tinyshakespeare.txt")
    if not os.path.exists(data):
        pytest.skip("no ../shared/data/tinyshakespeare.txt")
    cmd = [sys.executable, "-m", "yaten.distributed.run", "--nproc-per-node", "2",
           os.path.join(HERE, "..", "examples", "gpt.py"), "--data", data, "--layers", "1", "--heads", "2",
           "--width", "32", "--context", "16", "--batch", "4", "--steps", "6", "--eval-every", "3",
           "--eval-batches", "2", "--sample", "0", "--threads", "1", "--dropout", "0.1"]
    result = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.count("step 6: train loss") == 1, result.stdout  # rank 0 reports
    assert "2 replicas agree" in result.stdout, result.stdout


@needs_mpi
def test_a_rank_that_raises_makes_the_others_raise() -> None:
    start = time.monotonic()
    result = launch("raise", 3, env={"DIST_TEST_TIMEOUT": "3"}, timeout=60)
    elapsed = time.monotonic() - start
    assert result.returncode != 0
    for r in (0, 2):
        assert f"[rank {r}] all_reduce: timed out after 3 s" in result.stdout, result.stdout + result.stderr
    assert "rank 1 gives up" in result.stderr
    assert elapsed < 30, elapsed


@needs_mpi
def test_a_rank_that_dies_ends_the_job() -> None:
    """mpiexec stops every rank when one dies (as torchrun does) and exits non-zero: no hang."""
    start = time.monotonic()
    result = launch("kill", 2, env={"DIST_TEST_TIMEOUT": "30"}, timeout=60)
    assert result.returncode != 0
    assert time.monotonic() - start < 25


@needs_mpi
def test_two_nodes_over_loopback() -> None:
    """Two "hosts" (127.0.0.1 and 127.0.0.2, MPI's fork launcher) of 2 processes: torchrun's variables per node."""
    result = launch("env", 2, "--nnodes", "2", "--hosts", "127.0.0.1,127.0.0.2", "--launcher", "fork")
    assert result.returncode == 0, result.stdout + result.stderr
    rows = sorted(row.split() for row in re.findall(r"ENV (.*?);", result.stdout))  # ranks' lines may interleave
    assert rows == [["0", "0", "4", "0", "2", "0", "127.0.0.1"], ["1", "1", "4", "1", "2", "0", "127.0.0.1"],
                    ["2", "2", "4", "0", "2", "1", "127.0.0.1"], ["3", "3", "4", "1", "2", "1", "127.0.0.1"]], rows


@needs_mpi
def test_torch_distributed_reduces_a_yaten_tensor() -> None:
    pytest.importorskip("torch")
    passed(launch("interop", 2, "--master-port", str(29400 + os.getpid() % 500)), "interop passed", 2)


@needs_mpi
@pytest.mark.cuda
@pytest.mark.skipif(not yaten.cuda.is_available(), reason="needs a CUDA GPU")
@pytest.mark.skipif(not dist.is_nccl_available(), reason="needs libnccl (pip install nvidia-nccl-cu13)")
@pytest.mark.parametrize("nproc", [1, 2])
def test_nccl(nproc: int) -> None:
    """NCCL collectives on CUDA tensors; two ranks share one GPU where NCCL allows it (NCCL_MULTI_RANK_GPU_ENABLE)."""
    result = launch("nccl", nproc, env={"NCCL_MULTI_RANK_GPU_ENABLE": "1"}, timeout=300)
    print(result.stdout)
    passed(result, "nccl checks passed", nproc)


# ------------------------------------------------------------------------------------------------ in this process


def test_post_accumulate_grad_hook_and_queue_callback_as_torch() -> None:
    torch = pytest.importorskip("torch")
    events = {}
    for lib in (torch, yaten):
        seen: list = []
        w = lib.ones(3, requires_grad=True)
        v = lib.ones(2, requires_grad=True)
        handle = w.register_post_accumulate_grad_hook(lambda p: seen.append(("w", p.grad.tolist())))
        v.register_post_accumulate_grad_hook(lambda p: seen.append(("v", p.grad.tolist())))

        def pre(g: object, lib: object = lib) -> None:
            lib.autograd.Variable._execution_engine.queue_callback(lambda: seen.append("final"))

        y = (w * 2).sum() + (v * 3).sum()
        y.register_hook(pre)
        y.backward()
        (w * 5).sum().backward()  # accumulates: the hook sees the sum
        handle.remove()
        (w * 1).sum().backward()
        events[lib.__name__] = (sorted(seen[:2], key=str) + seen[2:], w.grad.tolist())
    assert events["yaten"] == events["torch"], events
    with pytest.raises(RuntimeError, match="non-leaf"):
        (yaten.ones(2, requires_grad=True) * 2).register_post_accumulate_grad_hook(lambda p: None)
    with pytest.raises(RuntimeError, match="no backward pass is running"):
        yaten.autograd.Variable._execution_engine.queue_callback(lambda: None)


@pytest.mark.parametrize("n,replicas,drop_last", [(10, 3, False), (10, 3, True), (9, 3, False), (2, 5, False),
                                                  (7, 2, True)])
def test_distributed_sampler_as_torch(n: int, replicas: int, drop_last: bool) -> None:
    torch = pytest.importorskip("torch")
    from torch.utils.data.distributed import DistributedSampler as TorchSampler

    from yaten.utils.data.distributed import DistributedSampler

    data = list(range(n))
    shuffled = []
    for rank in range(replicas):
        ours = DistributedSampler(data, num_replicas=replicas, rank=rank, shuffle=False, drop_last=drop_last)
        theirs = TorchSampler(data, num_replicas=replicas, rank=rank, shuffle=False, drop_last=drop_last)
        assert list(ours) == list(theirs) and len(ours) == len(theirs)
        s = DistributedSampler(data, num_replicas=replicas, rank=rank, shuffle=True, seed=3, drop_last=drop_last)
        s.set_epoch(2)
        shuffled.append(list(s))
        assert len(shuffled[-1]) == len(theirs)
    # shuffled: yaten's permutation (its own generator), with torch's padding and striding: the ranks together
    # cover the dataset (or drop the same number), and a new epoch gives a new order
    union = sorted(i for part in shuffled for i in part)
    if drop_last:
        assert len(set(union)) == len(union) == len(shuffled[0]) * replicas
    else:
        assert set(union) == set(data)
    other = DistributedSampler(data, num_replicas=replicas, rank=0, shuffle=True, seed=3, drop_last=drop_last)
    assert list(other) != shuffled[0] or n < 4
    del torch
    with pytest.raises(ValueError, match="Invalid rank"):
        DistributedSampler(data, num_replicas=2, rank=2)


def test_without_a_process_group() -> None:
    assert not dist.is_initialized()
    with pytest.raises(ValueError, match="has not been initialized"):
        dist.get_rank()
    with pytest.raises(ValueError, match="has not been initialized"):
        dist.all_reduce(yaten.ones(2))
    with pytest.raises(ValueError, match="no gloo backend"):
        dist.init_process_group("gloo")
    with pytest.raises(ValueError, match="unknown backend"):
        dist.init_process_group("ucc")
    with pytest.raises(RuntimeError, match="default process group has not been initialized"):
        yaten.nn.parallel.DistributedDataParallel(yaten.nn.Linear(2, 2))
    from yaten.utils.data import DistributedSampler

    with pytest.raises(RuntimeError, match="give num_replicas and rank"):
        DistributedSampler(list(range(4)))
    assert dist.is_available() and not dist.is_gloo_available()
    assert dist.ReduceOp.SUM is not dist.ReduceOp.AVG and repr(dist.ReduceOp.MAX) == "<RedOpType.MAX>"


def test_launcher_command_line() -> None:
    from yaten.distributed import run

    args = run.parser().parse_args(["--nproc-per-node", "2", "--nnodes", "2", "--hosts", "a,b", "--master-port",
                                    "1234", "train.py", "--lr", "3"])
    if not _have_mpi():
        with pytest.raises(RuntimeError, match="pip install mpich"):
            run.command(args)
        return
    cmd, env = run.command(args)
    assert cmd[1:] == ["-hosts", "a:2,b:2", "-n", "4", sys.executable, "-m", "yaten.distributed._rank", "train.py",
                       "--lr", "3"]
    assert env["MASTER_ADDR"] == "a" and env["MASTER_PORT"] == "1234" and env["LOCAL_WORLD_SIZE"] == "2"
    with pytest.raises(SystemExit, match="--hosts"):
        run.command(run.parser().parse_args(["--nnodes", "2", "train.py"]))
    from yaten.distributed._rank import rank_environment

    assert rank_environment({"PMI_RANK": "5", "PMI_SIZE": "8", "MPI_LOCALRANKID": "1", "MPI_LOCALNRANKS": "4"}) == {
        "RANK": "5", "WORLD_SIZE": "8", "LOCAL_RANK": "1", "LOCAL_WORLD_SIZE": "4", "GROUP_RANK": "1",
        "ROLE_RANK": "5", "ROLE_WORLD_SIZE": "8", "GROUP_WORLD_SIZE": "2"}


@pytest.mark.skipif(not dist.is_nccl_available(), reason="needs libnccl (pip install nvidia-nccl-cu13)")
def test_nccl_library_opens() -> None:
    """Without a GPU: libnccl opens from its wheel, reports its version, and NCCL's bootstrap gives every rank the
    same unique id for one NCCL_COMM_ID."""
    from yaten.distributed import _nccl

    assert _nccl.version() >= (2, 18, 0)
    old = os.environ.get("NCCL_COMM_ID")
    os.environ["NCCL_COMM_ID"] = "127.0.0.1:29777"
    try:
        a, b = _nccl.unique_id(), _nccl.unique_id()
        assert len(a) == 128 and a == b
    finally:
        if old is None:
            del os.environ["NCCL_COMM_ID"]
        else:
            os.environ["NCCL_COMM_ID"] = old
    if not yaten.cuda.is_available():
        dist.init_process_group("nccl", rank=0, world_size=1, init_method="tcp://127.0.0.1:29778")
        try:
            with pytest.raises(RuntimeError, match="needs a CUDA GPU|no backend"):
                dist.all_reduce(yaten.ones(2))
        finally:
            dist.destroy_process_group()
