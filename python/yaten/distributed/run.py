"""python -m yaten.distributed.run: torchrun's command line over MPI's launcher.

    python -m yaten.distributed.run --nproc-per-node 4 train.py --lr 3e-4
    python -m yaten.distributed.run --nnodes 2 --nproc-per-node 8 --hosts node0,node1 train.py

starts nnodes x nproc-per-node copies of the script through `mpiexec` (MPICH's Hydra, from the `mpich` wheel or the
system) and gives each torchrun's variables: RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, GROUP_RANK (the node's
index), MASTER_ADDR, MASTER_PORT, TORCHELASTIC_RUN_ID. Every rank joins one MPI world, which `init_process_group`
uses for CPU tensors and to send NCCL its unique id. Several hosts are one command on the first host (`--hosts`,
reached by MPI's launcher over ssh); `--launcher fork` starts every "host" here, which is how the tests run two
nodes on one machine over loopback addresses. When a rank dies, mpiexec stops the others and exits non-zero, as
torchrun does."""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import uuid


def find_mpiexec() -> str:
    """The mpiexec beside this Python (the mpich wheel's), then the PATH's; a RuntimeError saying what to install."""
    for candidate in (os.path.join(os.path.dirname(sys.executable), "mpiexec"),
                      os.path.join(sys.prefix, "bin", "mpiexec"), shutil.which("mpiexec") or ""):
        if candidate and os.path.exists(candidate):
            return candidate
    raise RuntimeError("yaten.distributed.run: no mpiexec found; install an MPI launcher: pip install mpich "
                       "(or `pip install yaten[distributed]`)")


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m yaten.distributed.run",
                                description="Start a script on several processes (torchrun's flags, MPI's launcher).")
    p.add_argument("--nproc-per-node", "--nproc_per_node", default="1",
                   help="processes per node: a number, or 'cpu' for one per core")
    p.add_argument("--nnodes", default="1", help="number of nodes (give their names with --hosts)")
    p.add_argument("--hosts", default=None, help="comma-separated host names, one per node (default: this host)")
    p.add_argument("--launcher", default=None, help="mpiexec's -launcher (ssh, fork, ...)")
    p.add_argument("--master-addr", "--master_addr", default=None, help="MASTER_ADDR (default: the first host)")
    p.add_argument("--master-port", "--master_port", type=int, default=29500, help="MASTER_PORT (NCCL's bootstrap)")
    p.add_argument("--standalone", action="store_true", help="one node (accepted for torchrun's command lines)")
    p.add_argument("--node-rank", "--node_rank", type=int, default=None,
                   help="torchrun's per-node launch is not how MPI starts ranks: give every host in --hosts instead")
    p.add_argument("--run-id", "--rdzv-id", "--rdzv_id", default=None, help="TORCHELASTIC_RUN_ID")
    p.add_argument("-m", "--module", action="store_true", help="run the script as a module (python -m)")
    p.add_argument("--no-python", "--no_python", action="store_true", help="run the script as an executable")
    p.add_argument("script", help="the script (or module with -m) to run")
    p.add_argument("script_args", nargs=argparse.REMAINDER)
    return p


def command(args: argparse.Namespace) -> tuple[list[str], dict[str, str]]:
    """The mpiexec command line and environment for the parsed arguments."""
    nproc = (os.cpu_count() or 1) if args.nproc_per_node in ("cpu", "auto") else int(args.nproc_per_node)
    nnodes = int(str(args.nnodes).split(":")[-1])
    if nproc < 1 or nnodes < 1:
        raise SystemExit("yaten.distributed.run: --nproc-per-node and --nnodes must be at least 1")
    if args.node_rank not in (None, 0) or (nnodes > 1 and not args.hosts):
        raise SystemExit("yaten.distributed.run: several nodes are started by one command on the first node, with "
                         "--hosts naming every node (MPI's launcher reaches the others); torchrun's per-node "
                         "--node-rank launch is not supported")
    hosts = args.hosts.split(",") if args.hosts else []
    if hosts and len(hosts) != nnodes:
        raise SystemExit(f"yaten.distributed.run: --hosts names {len(hosts)} host(s), --nnodes says {nnodes}")
    cmd = [find_mpiexec()]
    if args.launcher:
        cmd += ["-launcher", args.launcher]
    if hosts:
        cmd += ["-hosts", ",".join(f"{h}:{nproc}" for h in hosts)]
    cmd += ["-n", str(nproc * nnodes)]
    if args.no_python:
        cmd += [sys.executable, "-m", "yaten.distributed._rank", "--exec", args.script]
    else:
        cmd += [sys.executable, "-m", "yaten.distributed._rank"] + (["-m"] if args.module else []) + [args.script]
    cmd += list(args.script_args)
    env = dict(os.environ)
    env.update({"MASTER_ADDR": args.master_addr or (hosts[0] if hosts else "127.0.0.1"),
                "MASTER_PORT": str(args.master_port), "LOCAL_WORLD_SIZE": str(nproc),
                "TORCHELASTIC_RUN_ID": args.run_id or uuid.uuid4().hex[:12], "YATEN_DISTRIBUTED_MPI": "1"})
    return cmd, env


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    cmd, env = command(args)
    import subprocess

    try:
        return subprocess.call(cmd, env=env)
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
