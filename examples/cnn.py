"""Trains a small ResNet-style CNN on synthetic images with SGD and momentum: convolutions, batch norm (training,
then evaluation with the running statistics), relu, max pooling, residual blocks (one downsampling with a strided
1x1 convolution), global average pooling, a linear classifier and cross_entropy.

    python examples/cnn.py                        # the loss every 5 steps, then the test accuracy
    python examples/cnn.py --device cuda          # the same on the GPU (the same data and initial weights)
    python examples/cnn.py --compare-torch        # also trains the same network in torch, from the same weights
                                                  # and data, and prints the largest difference of the losses
                                                  # (with cuDNN's TF32 off: torch runs float32 on the CPU)

The images are 16x16 with 3 channels: noise, plus a bright 4x4 square whose quadrant is the class (4 classes), so
the network must find where the square is. The model is written once, over a library argument (`yaten` or
`torch`), since yaten's functional API is torch's. tests/test_conv.py runs it beside torch.
"""

from __future__ import annotations

import math

import yaten


def make_data(n: int, g: yaten.Generator, device: str) -> tuple[yaten.Tensor, yaten.Tensor]:
    labels = yaten.randint(0, 4, (n,), generator=g)
    images = yaten.randn(n, 3, 16, 16, generator=g) * 0.5
    for i, label in enumerate(labels.tolist()):
        row, col = 2 + 8 * (label // 2), 2 + 8 * (label % 2)
        images[i, :, row:row + 4, col:col + 4] += 1.5
    return images.to(device), labels.to(device)


def init_params(g: yaten.Generator, device: str) -> dict[str, yaten.Tensor]:
    """Kaiming-normal convolutions, zero biases, unit batch-norm weights."""
    def conv(cout: int, cin: int, k: int) -> yaten.Tensor:
        return yaten.randn(cout, cin, k, k, generator=g) * math.sqrt(2.0 / (cin * k * k))

    p = {"stem": conv(16, 3, 3), "b1c1": conv(16, 16, 3), "b1c2": conv(16, 16, 3),
         "b2c1": conv(32, 16, 3), "b2c2": conv(32, 32, 3), "b2down": conv(32, 16, 1),
         "fc_w": yaten.randn(4, 32, generator=g) * math.sqrt(1.0 / 32), "fc_b": yaten.zeros(4)}
    for name, c in [("stem", 16), ("b1c1", 16), ("b1c2", 16), ("b2c1", 32), ("b2c2", 32), ("b2down", 32)]:
        p[name + "_bn_w"], p[name + "_bn_b"] = yaten.ones(c), yaten.zeros(c)
    return {k: v.to(device).requires_grad_() for k, v in p.items()}


def forward(lib, p: dict, stats: dict, x, training: bool):
    """The network, for lib = yaten or torch: stats holds the batch norms' running statistics."""
    F = lib.nn.functional

    def conv_bn(name: str, h, stride: int = 1, padding: int = 1):
        h = F.conv2d(h, p[name], stride=stride, padding=padding)
        return F.batch_norm(h, stats[name + "_mean"], stats[name + "_var"], p[name + "_bn_w"], p[name + "_bn_b"],
                            training=training, momentum=0.1)

    h = F.relu(conv_bn("stem", x))
    h = F.max_pool2d(h, 2)  # 8x8
    h = F.relu(h + conv_bn("b1c2", F.relu(conv_bn("b1c1", h))))
    h = F.relu(conv_bn("b2down", h, stride=2, padding=0) + conv_bn("b2c2", F.relu(conv_bn("b2c1", h, stride=2))))
    h = F.adaptive_avg_pool2d(h, 1).flatten(1)  # 4x4 -> 1x1
    return F.linear(h, p["fc_w"], p["fc_b"])


def init_stats(lib, device: str) -> dict:
    stats = {}
    for name, c in [("stem", 16), ("b1c1", 16), ("b1c2", 16), ("b2c1", 32), ("b2c2", 32), ("b2down", 32)]:
        stats[name + "_mean"], stats[name + "_var"] = lib.zeros(c, device=device), lib.ones(c, device=device)
    return stats


def train(lib, params: dict, data, device: str, steps: int, lr: float = 0.05, momentum: float = 0.9,
          verbose: bool = False) -> tuple[list[float], float]:
    """SGD with momentum on lib's tensors; returns the losses and the test accuracy (with running statistics)."""
    F = lib.nn.functional
    (x, y), (x_test, y_test) = data
    stats = init_stats(lib, device)
    velocity = {k: lib.zeros_like(v) for k, v in params.items()}
    losses = []
    for step in range(steps):
        loss = F.cross_entropy(forward(lib, params, stats, x, True), y)
        for v in params.values():
            v.grad = None
        loss.backward()
        with lib.no_grad():
            for k, v in params.items():
                velocity[k].mul_(momentum).add_(v.grad)
                v.sub_(velocity[k] * lr)
        losses.append(loss.item())
        if verbose and step % 5 == 0:
            print(f"step {step:3d}  loss {loss.item():.4f}")
    with lib.no_grad():
        accuracy = (forward(lib, params, stats, x_test, False).argmax(1) == y_test).float().mean().item()
    return losses, accuracy


def run(device: str = "cpu", steps: int = 30, compare_torch: bool = False, verbose: bool = True
        ) -> tuple[list[float], float, list[float] | None]:
    g = yaten.Generator().manual_seed(0)
    data = (make_data(64, g, device), make_data(256, g, device))
    params = init_params(g, device)
    torch_losses = None
    if compare_torch:
        import torch

        def to_torch(t):
            return torch.from_numpy(t.detach().cpu().numpy().copy())

        tparams = {k: to_torch(v).requires_grad_() for k, v in params.items()}
        tdata = tuple((to_torch(a), to_torch(b)) for a, b in data)
        torch_losses, torch_accuracy = train(torch, tparams, tdata, "cpu", steps)
    # the comparison is with torch's float32 on the CPU: cuDNN's TF32 (on by default, as in torch) off for it
    with yaten.backends.cudnn.flags(allow_tf32=not compare_torch):
        losses, accuracy = train(yaten, params, data, device, steps, verbose=verbose)
    if verbose:
        print(f"test accuracy {accuracy:.3f} after {steps} steps (loss {losses[0]:.4f} -> {losses[-1]:.4f})")
        if torch_losses is not None:
            worst = max(abs(a - b) for a, b in zip(losses, torch_losses))
            print(f"torch: loss {torch_losses[0]:.4f} -> {torch_losses[-1]:.4f}, test accuracy {torch_accuracy:.3f}; "
                  f"largest difference of the losses {worst:.2e}")
    return losses, accuracy, torch_losses


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", default="cpu", help="cpu (the default), cuda or cuda:N")
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--compare-torch", action="store_true")
    args = parser.parse_args()
    run(args.device, args.steps, args.compare_torch)
