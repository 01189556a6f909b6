"""Trains a small ResNet-style CNN on synthetic images with SGD and momentum: convolutions, batch norm (training,
then evaluation with the running statistics), relu, max pooling, residual blocks (one downsampling with a strided
1x1 convolution), global average pooling, a linear classifier and cross_entropy.

    python examples/cnn.py                        # the loss every 5 steps, then the test accuracy
    python examples/cnn.py --device cuda          # the same on the GPU (the same data and initial weights)
    python examples/cnn.py --compare-torch        # also trains the same network in torch, from the same weights
                                                  # and data, and prints the largest difference of the losses
                                                  # (with cuDNN's TF32 off: torch runs float32 on the CPU)

The images are 16x16 with 3 channels: noise, plus a bright 4x4 square whose quadrant is the class (4 classes), so
the network must find where the square is. The model is written once, as torch users write it (nn.Module,
Conv2d, BatchNorm2d, ...), over a library argument (`yaten` or `torch`), since yaten.nn is torch.nn; torch's copy
loads yaten's state_dict. tests/test_conv.py runs it beside torch.
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


def make_model(lib):
    """The network as torch users write it, over lib = yaten or torch (their nn modules are the same)."""
    nn = lib.nn
    F = nn.functional

    class ConvBN(nn.Module):
        def __init__(self, cin: int, cout: int, k: int, stride: int = 1, padding: int = 1) -> None:
            super().__init__()
            self.conv = nn.Conv2d(cin, cout, k, stride=stride, padding=padding, bias=False)
            self.bn = nn.BatchNorm2d(cout)

        def forward(self, x):
            return self.bn(self.conv(x))

    class Block(nn.Module):
        """Two 3x3 convolutions and a residual; a strided 1x1 convolution on the residual when downsampling."""

        def __init__(self, cin: int, cout: int, stride: int) -> None:
            super().__init__()
            self.c1 = ConvBN(cin, cout, 3, stride)
            self.c2 = ConvBN(cout, cout, 3)
            self.down = ConvBN(cin, cout, 1, stride, padding=0) if stride != 1 else None

        def forward(self, x):
            shortcut = x if self.down is None else self.down(x)
            return F.relu(shortcut + self.c2(F.relu(self.c1(x))))

    class Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.stem = ConvBN(3, 16, 3)
            self.pool = nn.MaxPool2d(2)  # 16x16 -> 8x8
            self.block1 = Block(16, 16, 1)
            self.block2 = Block(16, 32, 2)  # 8x8 -> 4x4
            self.head = nn.Linear(32, 4)

        def forward(self, x):
            h = self.pool(F.relu(self.stem(x)))
            h = self.block2(self.block1(h))
            return self.head(F.adaptive_avg_pool2d(h, 1).flatten(1))

    return Net()


def init_weights(model, g: yaten.Generator) -> None:
    """Kaiming-normal convolutions and linear weight drawn from yaten's generator `g` (so torch's copy, loaded from
    this state_dict, starts from the same numbers), zero bias, unit batch-norm weights."""
    with yaten.no_grad():
        for conv in (model.stem.conv, model.block1.c1.conv, model.block1.c2.conv, model.block2.c1.conv,
                     model.block2.c2.conv, model.block2.down.conv):
            cout, cin, k, _ = conv.weight.shape
            conv.weight.copy_(yaten.randn(cout, cin, k, k, generator=g) * math.sqrt(2.0 / (cin * k * k)))
        model.head.weight.copy_(yaten.randn(4, 32, generator=g) * math.sqrt(1.0 / 32))
        model.head.bias.zero_()


def train(lib, model, data, steps: int, lr: float = 0.05, momentum: float = 0.9,
          verbose: bool = False) -> tuple[list[float], float]:
    """SGD with momentum, written in the loop; returns the losses and the test accuracy (in eval mode, with the
    batch norms' running statistics)."""
    F = lib.nn.functional
    (x, y), (x_test, y_test) = data
    velocity = [lib.zeros_like(p) for p in model.parameters()]
    losses = []
    model.train()
    for step in range(steps):
        loss = F.cross_entropy(model(x), y)
        model.zero_grad()
        loss.backward()
        with lib.no_grad():
            for v, p in zip(velocity, model.parameters()):
                v.mul_(momentum).add_(p.grad)
                p.sub_(v * lr)
        losses.append(loss.item())
        if verbose and step % 5 == 0:
            print(f"step {step:3d}  loss {loss.item():.4f}")
    model.eval()
    with lib.no_grad():
        accuracy = (model(x_test).argmax(1) == y_test).float().mean().item()
    return losses, accuracy


def run(device: str = "cpu", steps: int = 30, compare_torch: bool = False, verbose: bool = True
        ) -> tuple[list[float], float, list[float] | None]:
    g = yaten.Generator().manual_seed(0)
    data = (make_data(64, g, device), make_data(256, g, device))
    model = make_model(yaten)
    init_weights(model, g)
    model.to(device)
    torch_losses = None
    if compare_torch:
        import torch

        def to_torch(t):
            return torch.from_numpy(t.detach().cpu().numpy().copy())

        reference = make_model(torch)
        reference.load_state_dict({k: to_torch(v) for k, v in model.state_dict().items()})
        tdata = tuple((to_torch(a), to_torch(b)) for a, b in data)
        torch_losses, torch_accuracy = train(torch, reference, tdata, steps)
    # the comparison is with torch's float32 on the CPU: cuDNN's TF32 (on by default, as in torch) off for it
    with yaten.backends.cudnn.flags(allow_tf32=not compare_torch):
        losses, accuracy = train(yaten, model, data, steps, verbose=verbose)
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
