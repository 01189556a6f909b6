"""The speed cases of the CPU kernels II issue, yaten beside NumPy and torch, as medians and
ratios (1 thread unless --threads N).

    python benchmarks/bench_kernels2.py [--threads N]
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402

import yaten  # noqa: E402
from common import threads_from_argv  # noqa: E402
from bench_kernels import case  # noqa: E402

try:
    import torch
except ImportError:
    torch = None


def main() -> None:
    threads_from_argv(yaten, torch)
    print(f"threads: yaten {yaten.get_num_threads()}, torch {torch.get_num_threads() if torch else '-'}")
    rng = np.random.default_rng(0)
    m = rng.standard_normal((4096, 4096)).astype(np.float32)
    ym, tm = yaten.from_numpy(m), (torch.from_numpy(m) if torch else None)

    def np_softmax(a):
        e = np.exp(a - a.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)

    case("softmax(dim=-1), 4096x4096 float32", lambda: yaten.softmax(ym, -1), lambda: np_softmax(m),
         (lambda: torch.softmax(tm, -1)) if torch else None, repeat=5)
    for n in (1024, 2048):
        a = rng.standard_normal((n, n)).astype(np.float32)
        ya, ta = yaten.from_numpy(a), (torch.from_numpy(a) if torch else None)
        case(f"matmul {n}x{n} float32", lambda: ya @ ya, lambda: a @ a, (lambda: ta @ ta) if torch else None, repeat=5)
    parts = [rng.standard_normal(1_000_000).astype(np.float32) for _ in range(8)]
    yparts, tparts = [yaten.from_numpy(p) for p in parts], ([torch.from_numpy(p) for p in parts] if torch else None)
    case("cat of 8 x 1e6 float32", lambda: yaten.cat(yparts), lambda: np.concatenate(parts),
         (lambda: torch.cat(tparts)) if torch else None)
    v = rng.standard_normal(1_000_000).astype(np.float32)
    yv, tv = yaten.from_numpy(v), (torch.from_numpy(v) if torch else None)
    case("sort of 1e6 float32 (values and indices)", lambda: yaten.sort(yv),
         lambda: (np.sort(v, kind="stable"), np.argsort(v, kind="stable")),
         (lambda: torch.sort(tv)) if torch else None, repeat=5)
    w = rng.standard_normal(10_000_000).astype(np.float32)
    yw, tw = yaten.from_numpy(w), (torch.from_numpy(w) if torch else None)
    case("topk(k=10) of 1e7 float32", lambda: yaten.topk(yw, 10), lambda: np.argpartition(w, -10)[-10:],
         (lambda: torch.topk(tw, 10)) if torch else None, repeat=5)
    case("log_softmax(dim=-1), 4096x4096", lambda: yaten.log_softmax(ym, -1), lambda: np.log(np_softmax(m)),
         (lambda: torch.log_softmax(tm, -1)) if torch else None, repeat=5)


if __name__ == "__main__":
    main()
