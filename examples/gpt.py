"""A character-level GPT on Shakespeare, written with yaten.nn as a torch user writes one.

    python examples/gpt.py                                   # the default model: 6 layers, 6 heads, 384 wide
    python examples/gpt.py --layers 4 --heads 4 --width 128 --context 64 --batch 12 --steps 2000   # a CPU run
    python examples/gpt.py --compare-torch --steps 50 ...    # the same model in torch, same weights and batches
    python -m yaten.distributed.run --nproc-per-node 4 examples/gpt.py ...   # data parallel (--batch per process)

Token and position embeddings, pre-norm blocks (causal self-attention through scaled_dot_product_attention, a GELU
MLP), the output layer tied to the token embedding, dropout; AdamW with weight decay on matrices only, a linear
warm-up and cosine decay, gradient clipping, bfloat16 autocast on CUDA; evaluation on the held-out 10% every
--eval-every steps; a checkpoint (model, optimizer, step) saved with yaten.save and resumed with --resume; a sample
at the end. With --compare-torch the model is built a second time in torch from the same initial weights, both
train on the same batches with dropout off, and the largest difference of their losses is printed. Started by
`python -m yaten.distributed.run` (WORLD_SIZE > 1), each process trains the model wrapped in
DistributedDataParallel on batches of its own (one GPU per process on CUDA, LOCAL_RANK's); rank 0 reports, saves
and samples.
"""

from __future__ import annotations

import argparse
import math
import os
import time

import numpy as np

import yaten

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_DATA = os.path.join(HERE, "..", "..", "shared", "data", "tinyshakespeare.txt")


def model_classes(torch):
    """The model, written against `torch` (yaten, or torch itself for --compare-torch)."""
    nn, F = torch.nn, torch.nn.functional

    class SelfAttention(nn.Module):
        def __init__(self, width, heads, dropout):
            super().__init__()
            self.heads, self.dropout = heads, dropout
            self.qkv = nn.Linear(width, 3 * width)
            self.proj = nn.Linear(width, width)
            self.resid_drop = nn.Dropout(dropout)

        def forward(self, x):
            B, T, C = x.shape
            q, k, v = self.qkv(x).split(C, dim=2)
            q, k, v = (t.view(B, T, self.heads, C // self.heads).transpose(1, 2) for t in (q, k, v))
            y = F.scaled_dot_product_attention(q, k, v, dropout_p=self.dropout if self.training else 0.0,
                                               is_causal=True)
            return self.resid_drop(self.proj(y.transpose(1, 2).contiguous().view(B, T, C)))

    class Block(nn.Module):
        def __init__(self, width, heads, dropout):
            super().__init__()
            self.ln1, self.ln2 = nn.LayerNorm(width), nn.LayerNorm(width)
            self.attn = SelfAttention(width, heads, dropout)
            self.mlp = nn.Sequential(nn.Linear(width, 4 * width), nn.GELU(), nn.Linear(4 * width, width),
                                     nn.Dropout(dropout))

        def forward(self, x):
            x = x + self.attn(self.ln1(x))
            return x + self.mlp(self.ln2(x))

    class GPT(nn.Module):
        def __init__(self, vocab, context, layers, heads, width, dropout):
            super().__init__()
            self.context = context
            self.tok = nn.Embedding(vocab, width)
            self.pos = nn.Embedding(context, width)
            self.drop = nn.Dropout(dropout)
            self.blocks = nn.ModuleList([Block(width, heads, dropout) for _ in range(layers)])
            self.ln = nn.LayerNorm(width)
            self.head = nn.Linear(width, vocab, bias=False)
            self.head.weight = self.tok.weight  # weight tying
            self.apply(self._init)
            for name, p in self.named_parameters():
                if name.endswith("proj.weight") or name.endswith("mlp.2.weight"):
                    nn.init.normal_(p, mean=0.0, std=0.02 / math.sqrt(2 * layers))

        @staticmethod
        def _init(module):
            if isinstance(module, nn.Linear):
                nn.init.normal_(module.weight, mean=0.0, std=0.02)
                if module.bias is not None:
                    nn.init.zeros_(module.bias)
            elif isinstance(module, nn.Embedding):
                nn.init.normal_(module.weight, mean=0.0, std=0.02)

        def forward(self, idx, targets=None):
            T = idx.shape[1]
            x = self.drop(self.tok(idx) + self.pos(torch.arange(T, device=idx.device)))
            for block in self.blocks:
                x = block(x)
            logits = self.head(self.ln(x))
            if targets is None:
                return logits, None
            return logits, F.cross_entropy(logits.view(-1, logits.shape[-1]).float(), targets.view(-1))

        def optimizer(self, lr, weight_decay, betas, fused=None):
            """AdamW, weight decay on the matrices (and embeddings) only."""
            params = [p for p in self.parameters() if p.requires_grad]
            decay = [p for p in params if p.dim() >= 2]
            no_decay = [p for p in params if p.dim() < 2]
            groups = [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]
            return torch.optim.AdamW(groups, lr=lr, betas=betas, fused=fused)

        @torch.no_grad()
        def generate(self, idx, tokens, temperature=1.0, top_k=None):
            for _ in range(tokens):
                logits, _ = self(idx[:, -self.context:])
                logits = logits[:, -1, :] / temperature
                if top_k is not None:
                    v, _ = torch.topk(logits, min(top_k, logits.shape[-1]))
                    logits[logits < v[:, [-1]]] = -float("inf")
                idx = torch.cat((idx, torch.multinomial(F.softmax(logits, dim=-1), num_samples=1)), dim=1)
            return idx

    return GPT


def learning_rate(step, args):
    """Linear warm-up, then cosine decay to a tenth."""
    if step < args.warmup:
        return args.lr * (step + 1) / args.warmup
    progress = min(1.0, (step - args.warmup) / max(1, args.steps - args.warmup))
    return args.lr * (0.1 + 0.9 * 0.5 * (1.0 + math.cos(math.pi * progress)))


def parse(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", default=DEFAULT_DATA, help="a text file (tinyshakespeare.txt)")
    p.add_argument("--layers", type=int, default=6)
    p.add_argument("--heads", type=int, default=6)
    p.add_argument("--width", type=int, default=384)
    p.add_argument("--context", type=int, default=256)
    p.add_argument("--dropout", type=float, default=0.2)
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--steps", type=int, default=5000)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--warmup", type=int, default=100)
    p.add_argument("--weight-decay", type=float, default=0.1)
    p.add_argument("--clip", type=float, default=1.0)
    p.add_argument("--eval-every", type=int, default=250)
    p.add_argument("--eval-batches", type=int, default=20)
    p.add_argument("--device", default="cuda" if yaten.cuda.is_available() else "cpu")
    p.add_argument("--checkpoint", default=None, help="save the model, optimizer and step here after evaluations")
    p.add_argument("--resume", action="store_true", help="start from --checkpoint")
    p.add_argument("--sample", type=int, default=200, help="characters to sample at the end (0: none)")
    p.add_argument("--seed", type=int, default=1337)
    p.add_argument("--threads", type=int, default=None)
    p.add_argument("--compare-torch", action="store_true")
    p.add_argument("--quiet", action="store_true")
    return p.parse_args(argv)


def load_text(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    chars = sorted(set(text))
    stoi = {c: i for i, c in enumerate(chars)}
    data = np.array([stoi[c] for c in text], dtype=np.int64)
    n = int(0.9 * len(data))
    return chars, data[:n], data[n:]


def batches(data, args, rng):
    """Random windows of `context` characters and their next characters, as int64 arrays."""
    starts = rng.integers(0, len(data) - args.context - 1, size=args.batch)
    x = np.stack([data[s:s + args.context] for s in starts])
    y = np.stack([data[s + 1:s + 1 + args.context] for s in starts])
    return x, y


def train(args):
    """Trains (and with --compare-torch, trains torch beside it); returns a dict of what happened."""
    if args.threads:
        yaten.set_num_threads(args.threads)
    rank, distributed = 0, int(os.environ.get("WORLD_SIZE", "1")) > 1
    if distributed:
        import yaten.distributed as dist

        if args.compare_torch:
            raise SystemExit("gpt.py: --compare-torch runs in one process")
        dist.init_process_group()
        rank = dist.get_rank()
        if args.device.startswith("cuda"):
            args.device = f"cuda:{int(os.environ.get('LOCAL_RANK', '0')) % yaten.cuda.device_count()}"
            yaten.cuda.set_device(args.device)
        args.quiet = args.quiet or rank != 0
    chars, train_data, val_data = load_text(args.data)
    yaten.manual_seed(args.seed)
    GPT = model_classes(yaten)
    dropout = 0.0 if args.compare_torch else args.dropout
    model = GPT(len(chars), args.context, args.layers, args.heads, args.width, dropout).to(args.device)
    optimizer = model.optimizer(args.lr, args.weight_decay, (0.9, 0.95))
    step0 = 0
    if args.resume and args.checkpoint and os.path.exists(args.checkpoint):
        saved = yaten.load(args.checkpoint)
        model.load_state_dict(saved["model"])
        optimizer.load_state_dict(saved["optimizer"])
        step0 = saved["step"]
    net = model
    if distributed:
        net = yaten.nn.parallel.DistributedDataParallel(
            model, device_ids=[args.device] if args.device.startswith("cuda") else None)
    twin = t_optimizer = None
    if args.compare_torch:
        import torch

        torch.manual_seed(args.seed)
        twin = model_classes(torch)(len(chars), args.context, args.layers, args.heads, args.width, 0.0)
        twin.load_state_dict({k: torch.from_numpy(v.detach().cpu().numpy().copy())
                              for k, v in model.state_dict().items()})
        t_optimizer = twin.optimizer(args.lr, args.weight_decay, (0.9, 0.95))
    autocast = yaten.autocast("cuda", dtype=yaten.bfloat16) if args.device.startswith("cuda") else \
        yaten.autocast("cpu", enabled=False)
    rng = np.random.default_rng(args.seed + step0 + 1000 * rank)  # each rank its own batches
    result = {"losses": [], "torch_losses": [], "val": [], "max_difference": 0.0}
    start, tokens = time.perf_counter(), 0
    for step in range(step0, args.steps):
        lr = learning_rate(step, args)
        for group in optimizer.param_groups:
            group["lr"] = lr
        x, y = batches(train_data, args, rng)
        xb, yb = yaten.from_numpy(x).to(args.device), yaten.from_numpy(y).to(args.device)
        with autocast:
            _, loss = net(xb, yb)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        yaten.nn.utils.clip_grad_norm_(model.parameters(), args.clip)
        optimizer.step()
        tokens += x.size
        result["losses"].append(loss.item())
        if twin is not None:
            import torch

            for group in t_optimizer.param_groups:
                group["lr"] = lr
            _, t_loss = twin(torch.from_numpy(x), torch.from_numpy(y))
            t_optimizer.zero_grad(set_to_none=True)
            t_loss.backward()
            torch.nn.utils.clip_grad_norm_(twin.parameters(), args.clip)
            t_optimizer.step()
            result["torch_losses"].append(t_loss.item())
            result["max_difference"] = max(result["max_difference"], abs(loss.item() - t_loss.item()))
        last = step + 1 == args.steps
        if (step + 1) % args.eval_every == 0 or last:
            val = evaluate(model, val_data, args, autocast)
            result["val"].append((step + 1, val))
            if not args.quiet:
                rate = tokens / (time.perf_counter() - start)
                print(f"step {step + 1}: train loss {loss.item():.4f}, val loss {val:.4f}, lr {lr:.2e}, "
                      f"{rate:,.0f} tokens/s" + (f", largest difference from torch {result['max_difference']:.2e}"
                                                 if twin is not None else ""))
            if args.checkpoint and rank == 0:
                yaten.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "step": step + 1},
                           args.checkpoint)
    if args.sample and not args.quiet:
        model.eval()
        start_idx = yaten.zeros((1, 1), dtype=yaten.int64, device=args.device)
        out = model.generate(start_idx, args.sample, top_k=20)[0].tolist()
        print("".join(chars[i] for i in out))
    if distributed:
        # DDP keeps the replicas identical: every rank's parameters sum to the same number
        sums = [None] * dist.get_world_size()
        dist.all_gather_object(sums, sum(float(p.detach().double().sum()) for p in model.parameters()))
        result["replicas_agree"] = len(set(sums)) == 1
        if rank == 0:
            print(f"{len(sums)} replicas {'agree' if result['replicas_agree'] else 'DIFFER: ' + str(sums)}")
        dist.destroy_process_group()
    return result


@yaten.no_grad()
def evaluate(model, data, args, autocast):
    model.eval()
    rng = np.random.default_rng(12345)
    losses = []
    for _ in range(args.eval_batches):
        x, y = batches(data, args, rng)
        with autocast:
            _, loss = model(yaten.from_numpy(x).to(args.device), yaten.from_numpy(y).to(args.device))
        losses.append(loss.item())
    model.train()
    return float(np.mean(losses))


if __name__ == "__main__":
    args = parse()
    result = train(args)
    if args.compare_torch:
        print(f"largest loss difference from torch over {len(result['losses'])} steps: "
              f"{result['max_difference']:.3e}")
