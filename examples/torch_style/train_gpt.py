"""A nanoGPT-style training script (its train.py's habits: config globals, np.memmap data files, AdamW with
weight-decay groups, a warmup-cosine rate set by hand, GradScaler, torch.compile, checkpoints with the optimizer's
state, resuming, sampling with topk and multinomial), written for torch.

    python examples/torch_style/train_gpt.py --out-dir /tmp/out                     # under torch
    python -m yaten.as_torch examples/torch_style/train_gpt.py --out-dir /tmp/out   # the same file on yaten
"""
import argparse
import inspect
import math
import os
import pickle
import sys
import time
from contextlib import nullcontext

import numpy as np
import torch
from torch.nn import functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gpt import GPT  # noqa: E402

parser = argparse.ArgumentParser()
parser.add_argument("--out-dir", default="out-shakespeare-char")
parser.add_argument("--data", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                                                    "shared", "data", "tinyshakespeare.txt"))
parser.add_argument("--max-iters", type=int, default=30)
cli = parser.parse_args()
out_dir = cli.out_dir
eval_interval = 10; eval_iters = 5; log_interval = 5
batch_size = 8; block_size = 32
learning_rate = 1e-3; max_iters = cli.max_iters; weight_decay = 1e-1
beta1 = 0.9; beta2 = 0.95; grad_clip = 1.0
warmup_iters = 5; lr_decay_iters = max_iters; min_lr = 1e-4
device = 'cpu'; dtype = 'float32'; compile = True
os.makedirs(out_dir, exist_ok=True)
torch.manual_seed(1337)
torch.backends.cuda.matmul.allow_tf32 = True
torch.backends.cudnn.allow_tf32 = True
device_type = 'cuda' if 'cuda' in device else 'cpu'
ptdtype = {'float32': torch.float32, 'bfloat16': torch.bfloat16, 'float16': torch.float16}[dtype]
ctx = nullcontext() if device_type == 'cpu' else torch.amp.autocast(device_type=device_type, dtype=ptdtype)

if os.path.exists(cli.data):
    text = open(cli.data, encoding="utf-8").read()
else:
    text = "First Citizen:\nBefore we proceed any further, hear me speak.\n\nAll:\nSpeak, speak.\n" * 400
chars = sorted(set(text)); stoi = {c: i for i, c in enumerate(chars)}
arr = np.array([stoi[c] for c in text], dtype=np.uint16)
n = int(0.9 * len(arr))
arr[:n].tofile(os.path.join(out_dir, 'train.bin')); arr[n:].tofile(os.path.join(out_dir, 'val.bin'))
with open(os.path.join(out_dir, 'meta.pkl'), 'wb') as f:
    pickle.dump({'vocab_size': len(chars)}, f)

def get_batch(split):
    data = np.memmap(os.path.join(out_dir, f'{split}.bin'), dtype=np.uint16, mode='r')
    ix = torch.randint(len(data) - block_size, (batch_size,))
    x = torch.stack([torch.from_numpy((data[i:i+block_size]).astype(np.int64)) for i in ix])
    y = torch.stack([torch.from_numpy((data[i+1:i+1+block_size]).astype(np.int64)) for i in ix])
    if device_type == 'cuda':
        x, y = x.pin_memory().to(device, non_blocking=True), y.pin_memory().to(device, non_blocking=True)
    else:
        x, y = x.to(device), y.to(device)
    return x, y

model = GPT(len(chars), block_size, n_layer=2, n_head=2, n_embd=64)
model.to(device)
scaler = torch.cuda.amp.GradScaler(enabled=(dtype == 'float16'))
param_dict = {pn: p for pn, p in model.named_parameters()}
param_dict = {pn: p for pn, p in param_dict.items() if p.requires_grad}
decay_params = [p for n, p in param_dict.items() if p.dim() >= 2]
nodecay_params = [p for n, p in param_dict.items() if p.dim() < 2]
optim_groups = [{'params': decay_params, 'weight_decay': weight_decay}, {'params': nodecay_params, 'weight_decay': 0.0}]
print(f"num decayed parameter tensors: {len(decay_params)}, with {sum(p.numel() for p in decay_params):,} parameters")
fused_available = 'fused' in inspect.signature(torch.optim.AdamW).parameters
use_fused = fused_available and device_type == 'cuda'
extra_args = dict(fused=True) if use_fused else dict()
optimizer = torch.optim.AdamW(optim_groups, lr=learning_rate, betas=(beta1, beta2), **extra_args)
if compile:
    model = torch.compile(model)

@torch.no_grad()
def estimate_loss():
    out = {}
    model.eval()
    for split in ['train', 'val']:
        losses = torch.zeros(eval_iters)
        for k in range(eval_iters):
            X, Y = get_batch(split)
            with ctx:
                logits, loss = model(X, Y)
            losses[k] = loss.item()
        out[split] = losses.mean()
    model.train()
    return out

def get_lr(it):
    if it < warmup_iters:
        return learning_rate * (it + 1) / (warmup_iters + 1)
    if it > lr_decay_iters:
        return min_lr
    decay_ratio = (it - warmup_iters) / (lr_decay_iters - warmup_iters)
    coeff = 0.5 * (1.0 + math.cos(math.pi * decay_ratio))
    return min_lr + coeff * (learning_rate - min_lr)

X, Y = get_batch('train')
t0 = time.time()
iter_num = 0; best_val_loss = 1e9
while True:
    lr = get_lr(iter_num)
    for param_group in optimizer.param_groups:
        param_group['lr'] = lr
    if iter_num % eval_interval == 0:
        losses = estimate_loss()
        print(f"step {iter_num}: train loss {losses['train']:.4f}, val loss {losses['val']:.4f}")
        if losses['val'] < best_val_loss:
            best_val_loss = losses['val']
            checkpoint = {'model': model.state_dict(), 'optimizer': optimizer.state_dict(), 'iter_num': iter_num,
                          'best_val_loss': best_val_loss, 'config': {'lr': learning_rate}}
            torch.save(checkpoint, os.path.join(out_dir, 'ckpt.pt'))
    with ctx:
        logits, loss = model(X, Y)
    X, Y = get_batch('train')
    scaler.scale(loss).backward()
    if grad_clip != 0.0:
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), grad_clip)
    scaler.step(optimizer)
    scaler.update()
    optimizer.zero_grad(set_to_none=True)
    t1 = time.time(); dt = t1 - t0; t0 = t1
    if iter_num % log_interval == 0:
        print(f"iter {iter_num}: loss {loss.item():.4f}, time {dt*1000:.2f}ms")
    iter_num += 1
    if iter_num > max_iters:
        break

ckpt = torch.load(os.path.join(out_dir, 'ckpt.pt'), map_location=device)
model.load_state_dict(ckpt['model'])
optimizer.load_state_dict(ckpt['optimizer'])
print("resumed at", ckpt['iter_num'], float(ckpt['best_val_loss']))
# sampling
model.eval()
idx = torch.zeros((1, 1), dtype=torch.long, device=device)
with torch.no_grad():
    for _ in range(20):
        idx_cond = idx if idx.size(1) <= block_size else idx[:, -block_size:]
        logits, _ = model(idx_cond)
        logits = logits[:, -1, :] / 0.8
        v, _ = torch.topk(logits, min(10, logits.size(-1)))
        logits[logits < v[:, [-1]]] = -float('Inf')
        probs = F.softmax(logits, dim=-1)
        idx_next = torch.multinomial(probs, num_samples=1)
        idx = torch.cat((idx, idx_next), dim=1)
print(''.join(chars[i] for i in idx[0].tolist()))
