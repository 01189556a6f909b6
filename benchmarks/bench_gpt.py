"""Training speed of examples/gpt.py's model, yaten beside torch eager in one process: tokens per second of full
steps (forward, backward, clipping, AdamW), and the yaten.profiler table of one step so the slowest ops are named.

    python benchmarks/bench_gpt.py [--threads N] [--size cpu|default|gpt2] [--device cpu|cuda] [--steps N]

cpu: 4 layers, 4 heads, 128 wide, batch 12, context 64 (the CPU target of the attention issue); default: 6 x 6 x 384,
batch 64, context 256; gpt2: 12 x 12 x 768, context 1024, vocabulary 50,304, random tokens. Dropout is off in both
(the comparison is of arithmetic, not of random streams); float32 on the CPU, bfloat16 autocast on CUDA.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import median_of_calls  # noqa: E402

SIZES = {"cpu": dict(layers=4, heads=4, width=128, context=64, batch=12, vocab=65),
         "default": dict(layers=6, heads=6, width=384, context=256, batch=64, vocab=65),
         "gpt2": dict(layers=12, heads=12, width=768, context=1024, batch=8, vocab=50304)}


def load_example():
    spec = importlib.util.spec_from_file_location("gpt_example", ROOT / "examples" / "gpt.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def step_fn(lib, model, optimizer, x, y, device, autocast):
    def step():
        with autocast():
            _, loss = model(x, y)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        lib.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        if device == "cuda":
            lib.cuda.synchronize()
        return loss
    return step


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--size", choices=sorted(SIZES), default="cpu")
    p.add_argument("--device", default="cpu")
    p.add_argument("--steps", type=int, default=10)
    p.add_argument("--profile", action="store_true", help="print yaten's profiler table of one step")
    args = p.parse_args()
    import torch

    import yaten

    yaten.set_num_threads(args.threads)
    torch.set_num_threads(args.threads)
    cfg = SIZES[args.size]
    gpt = load_example()
    rng = np.random.default_rng(0)
    x = rng.integers(0, cfg["vocab"], size=(cfg["batch"], cfg["context"]))
    y = rng.integers(0, cfg["vocab"], size=(cfg["batch"], cfg["context"]))
    yaten.manual_seed(0)
    ymodel = gpt.model_classes(yaten)(cfg["vocab"], cfg["context"], cfg["layers"], cfg["heads"], cfg["width"], 0.0)
    tmodel = gpt.model_classes(torch)(cfg["vocab"], cfg["context"], cfg["layers"], cfg["heads"], cfg["width"], 0.0)
    tmodel.load_state_dict({k: torch.from_numpy(v.detach().numpy().copy()) for k, v in ymodel.state_dict().items()})
    ymodel.to(args.device)
    tmodel.to(args.device)
    cuda = args.device == "cuda"
    yopt = ymodel.optimizer(1e-3, 0.1, (0.9, 0.95))
    topt = tmodel.optimizer(1e-3, 0.1, (0.9, 0.95))
    yx, yy = yaten.from_numpy(x).to(args.device), yaten.from_numpy(y).to(args.device)
    tx, ty = torch.from_numpy(x).to(args.device), torch.from_numpy(y).to(args.device)

    def yac():
        return yaten.autocast("cuda", dtype=yaten.bfloat16, enabled=cuda)

    def tac():
        return torch.autocast("cuda", dtype=torch.bfloat16, enabled=cuda) if cuda else \
            torch.autocast("cpu", enabled=False)

    ystep = step_fn(yaten, ymodel, yopt, yx, yy, args.device, yac)
    tstep = step_fn(torch, tmodel, topt, tx, ty, args.device, tac)
    tokens = cfg["batch"] * cfg["context"]
    params = sum(p.numel() for p in ymodel.parameters())
    print(f"GPT {args.size}: {cfg['layers']} layers, {cfg['heads']} heads, {cfg['width']} wide, context "
          f"{cfg['context']}, batch {cfg['batch']}, {params / 1e6:.2f}M parameters; {args.device}, "
          f"{args.threads} thread(s); median of {args.steps} steps")
    results = {}
    for name, step in (("yaten", ystep), ("torch eager", tstep)):
        results[name] = median_of_calls(step, args.steps)  # one untimed step: the optimizer's state, caches
    base = results["torch eager"]
    for name, seconds in results.items():
        print(f"  {name:<12} {seconds * 1e3:8.1f} ms/step  {tokens / seconds:10,.0f} tokens/s  "
              f"{base / seconds:5.2f}x torch eager's tokens/s")
    if args.profile:
        from yaten.profiler import ProfilerActivity, profile

        with profile(activities=[ProfilerActivity.CPU]) as prof:
            ystep()
        print(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=25))


if __name__ == "__main__":
    main()
