"""What each process started by `python -m yaten.distributed.run` runs first: torchrun's variables from MPI's
(PMI_RANK, PMI_SIZE, MPI_LOCALRANKID, MPI_LOCALNRANKS), then the script as __main__."""

from __future__ import annotations

import os
import runpy
import sys


def rank_environment(env: dict[str, str]) -> dict[str, str]:
    """torchrun's variables for this MPI process."""
    rank = int(env.get("PMI_RANK", env.get("OMPI_COMM_WORLD_RANK", "0")))
    size = int(env.get("PMI_SIZE", env.get("OMPI_COMM_WORLD_SIZE", "1")))
    local = int(env.get("MPI_LOCALRANKID", env.get("OMPI_COMM_WORLD_LOCAL_RANK", "0")))
    local_size = int(env.get("MPI_LOCALNRANKS", env.get("OMPI_COMM_WORLD_LOCAL_SIZE", env.get("LOCAL_WORLD_SIZE",
                                                                                            "1"))))
    return {"RANK": str(rank), "WORLD_SIZE": str(size), "LOCAL_RANK": str(local), "LOCAL_WORLD_SIZE": str(local_size),
            "GROUP_RANK": str(rank // max(local_size, 1)), "ROLE_RANK": str(rank), "ROLE_WORLD_SIZE": str(size),
            "GROUP_WORLD_SIZE": str(max(size // max(local_size, 1), 1))}


def main() -> None:
    os.environ.update(rank_environment(dict(os.environ)))
    args = sys.argv[1:]
    if args and args[0] == "--exec":
        os.execvp(args[1], args[1:])
    if args and args[0] == "-m":
        sys.argv = args[1:]
        runpy.run_module(args[1], run_name="__main__", alter_sys=True)
    else:
        sys.argv = args
        sys.path.insert(0, os.path.dirname(os.path.abspath(args[0])))
        runpy.run_path(args[0], run_name="__main__")


if __name__ == "__main__":
    main()
