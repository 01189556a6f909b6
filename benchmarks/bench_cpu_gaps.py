"""The cases of the CPU-speed issue (22), where torch or NumPy were ahead: reductions, max with indices, basic
indexing, tensor(list) and the generator, yaten beside NumPy and torch as medians and ratios.

    python benchmarks/bench_cpu_gaps.py [--threads N]     (1 by default, for yaten and torch alike)

Each library runs in a process of its own: on a machine with few cores, torch's OpenMP workers spin for a while
after each call, and in one process they take the core that yaten's worker (or NumPy) needs next.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import median_seconds  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
LIBRARIES = ("yaten", "numpy", "torch")


def _fmt(seconds: float) -> str:
    return f"{seconds * 1e3:8.3f} ms" if seconds >= 1e-4 else f"{seconds * 1e9:8.0f} ns"


def cases(lib: str, threads: int) -> dict[str, Callable[[], Any]]:
    """The issue's cases written for one library (NumPy's reductions are single-threaded whatever `threads` is)."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal(10_000_000).astype(np.float32)
    m = rng.standard_normal((4000, 4000)).astype(np.float32)
    a = rng.standard_normal((10, 10)).astype(np.float32)
    values = [1.0, 2.0, 3.0, 4.0]
    if lib == "numpy":
        out: dict[str, Callable[[], Any]] = {
            "a.sum(), 1e7 float32": lambda: x.sum(),
            "a.sum(1), 4000x4000": lambda: m.sum(1),
            "a.amax(1), 4000x4000": lambda: m.max(1),
            "a.max(1) values + indices, 4000x4000": lambda: (m.max(1), m.argmax(1)),
            "a.argmax(1), 4000x4000": lambda: m.argmax(1),
        }
        t, build = a, np.array
    else:
        mod: Any = __import__(lib)
        mod.set_num_threads(threads)
        tx, tm = mod.from_numpy(x), mod.from_numpy(m)
        out = {
            "a.sum(), 1e7 float32": lambda: tx.sum(),
            "a.sum(1), 4000x4000": lambda: tm.sum(1),
            "a.amax(1), 4000x4000": lambda: tm.amax(1),
            "a.max(1) values + indices, 4000x4000": lambda: tm.max(1),
            "a.argmax(1), 4000x4000": lambda: tm.argmax(1),
        }
        t, build = mod.from_numpy(a), mod.tensor
    for expr in ("[3]", "[0]", "[1, 2]", "[1:3]", "[:, 0]", "[..., None]"):
        out[f"a{expr} on 10x10"] = eval(f"lambda: t{expr}", {"t": t})
    out["tensor([4 floats])"] = lambda: build(values)
    return out


def measure(lib: str, threads: int) -> dict[str, float]:
    return {title: median_seconds(fn, min_time=0.02) for title, fn in cases(lib, threads).items()}


def generator_times() -> None:
    """Wall time of `python -m codegen check` and of a full generate into a scratch folder (process included)."""
    import tempfile

    with tempfile.TemporaryDirectory() as out:
        for title, args in (("codegen check", ["check"]),
                            ("codegen generate (fresh)", ["generate", "--out", out]),
                            ("codegen generate (up to date)", ["generate", "--out", out])):
            start = time.perf_counter()
            subprocess.run([sys.executable, "-m", "codegen", *args], cwd=ROOT, check=True, capture_output=True)
            print(f"{title:<40} {time.perf_counter() - start:6.2f} s (one process, interpreter start included)")


def main() -> None:
    threads = int(sys.argv[sys.argv.index("--threads") + 1]) if "--threads" in sys.argv else 1
    if "--only" in sys.argv:  # a child: one library's medians as JSON
        print(json.dumps(measure(sys.argv[sys.argv.index("--only") + 1], threads)))
        return
    results: dict[str, dict[str, float]] = {}
    for lib in LIBRARIES:
        child = subprocess.run([sys.executable, __file__, "--only", lib, "--threads", str(threads)],
                               capture_output=True, text=True)
        if child.returncode != 0:
            if lib == "torch" and "No module named 'torch'" in child.stderr:
                continue
            raise RuntimeError(f"{lib}: {child.stderr}")
        results[lib] = json.loads(child.stdout)
    print(f"threads: yaten {threads}, torch {threads} (NumPy's reductions are single-threaded); "
          "each library in its own process; medians")
    for title, base in results["yaten"].items():
        cells = "  ".join(f"{lib} {_fmt(r[title])} ({r[title] / base:5.2f}x)" for lib, r in results.items())
        print(f"{title:<40} {cells}")
    if threads == 1:
        generator_times()


if __name__ == "__main__":
    main()
