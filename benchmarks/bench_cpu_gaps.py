"""The cases of the CPU-speed issue (22), where torch or NumPy were ahead: reductions, max with indices, basic
indexing, tensor(list) and the generator, yaten beside NumPy and torch as medians and ratios.

    python benchmarks/bench_cpu_gaps.py [--threads N]     (1 by default, for yaten and torch alike)
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402

import yaten  # noqa: E402
from common import median_seconds, threads_from_argv  # noqa: E402

try:
    import torch
except ImportError:
    torch = None

ROOT = Path(__file__).resolve().parent.parent


def _fmt(seconds: float) -> str:
    return f"{seconds * 1e3:8.3f} ms" if seconds >= 1e-4 else f"{seconds * 1e9:8.0f} ns"


def case(title: str, y, n, t=None, repeat: int = 9) -> None:
    results = {"yaten": median_seconds(y, repeat=repeat, min_time=0.1),
               "numpy": median_seconds(n, repeat=repeat, min_time=0.1)}
    if torch is not None and t is not None:
        results["torch"] = median_seconds(t, repeat=repeat, min_time=0.1)
    base = results["yaten"]
    cells = "  ".join(f"{k} {_fmt(v)} ({v / base:5.2f}x)" for k, v in results.items())
    print(f"{title:<40} {cells}")


def generator_times() -> None:
    """Wall time of `python -m yaten.codegen check` and of a full generate into a scratch folder (process included)."""
    import tempfile

    with tempfile.TemporaryDirectory() as out:
        for title, args in (("codegen check", ["check"]),
                            ("codegen generate (fresh)", ["generate", "--out", out]),
                            ("codegen generate (up to date)", ["generate", "--out", out])):
            start = time.perf_counter()
            subprocess.run([sys.executable, "-m", "codegen", *args], cwd=ROOT, check=True, capture_output=True)
            print(f"{title:<40} {time.perf_counter() - start:6.2f} s (one process, interpreter start included)")


def main() -> None:
    threads = threads_from_argv(yaten, torch)
    print(f"threads: yaten {yaten.get_num_threads()}, torch {torch.get_num_threads() if torch else '-'} "
          "(NumPy's reductions are single-threaded)")
    rng = np.random.default_rng(0)
    x = rng.standard_normal(10_000_000).astype(np.float32)
    yx, tx = yaten.from_numpy(x), (torch.from_numpy(x) if torch else None)
    case("a.sum(), 1e7 float32", lambda: yx.sum(), lambda: x.sum(), (lambda: tx.sum()) if torch else None)
    m = rng.standard_normal((4000, 4000)).astype(np.float32)
    ym, tm = yaten.from_numpy(m), (torch.from_numpy(m) if torch else None)
    case("a.sum(1), 4000x4000", lambda: ym.sum(1), lambda: m.sum(1), (lambda: tm.sum(1)) if torch else None)
    case("a.amax(1), 4000x4000", lambda: ym.amax(1), lambda: m.max(1), (lambda: tm.amax(1)) if torch else None)
    case("a.max(1) values + indices, 4000x4000", lambda: ym.max(1), lambda: (m.max(1), m.argmax(1)),
         (lambda: tm.max(1)) if torch else None, repeat=5)
    case("a.argmax(1), 4000x4000", lambda: ym.argmax(1), lambda: m.argmax(1),
         (lambda: tm.argmax(1)) if torch else None, repeat=5)
    a = rng.standard_normal((10, 10)).astype(np.float32)
    ya, ta = yaten.from_numpy(a), (torch.from_numpy(a) if torch else None)
    names = {"ya": ya, "a": a, "ta": ta}
    for expr in ("[3]", "[0]", "[1, 2]", "[1:3]", "[:, 0]", "[..., None]"):
        case(f"a{expr} on 10x10", eval(f"lambda: ya{expr}", names), eval(f"lambda: a{expr}", names),
             eval(f"lambda: ta{expr}", names) if torch else None)
    values = [1.0, 2.0, 3.0, 4.0]
    case("tensor([4 floats])", lambda: yaten.tensor(values), lambda: np.array(values),
         (lambda: torch.tensor(values)) if torch else None)
    if threads == 1:
        generator_times()


if __name__ == "__main__":
    main()
