"""A small ResNet written as torch users write it, trained with plain SGD on random images.

Run it with torch, or unchanged on yaten: `python -m yaten.as_torch examples/torch_style/resnet.py`.
tests/test_programs.py runs both from one saved state_dict and checks that their losses agree step by step.
"""

import argparse
import json
import os

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class BasicBlock(nn.Module):
    expansion = 1

    def __init__(self, in_planes, planes, stride=1):
        super().__init__()
        self.conv1 = nn.Conv2d(in_planes, planes, kernel_size=3, stride=stride, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.conv2 = nn.Conv2d(planes, planes, kernel_size=3, stride=1, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.shortcut = nn.Sequential()
        if stride != 1 or in_planes != planes:
            self.shortcut = nn.Sequential(
                nn.Conv2d(in_planes, planes, kernel_size=1, stride=stride, bias=False),
                nn.BatchNorm2d(planes),
            )

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        out += self.shortcut(x)
        return F.relu(out)


class ResNet(nn.Module):
    def __init__(self, num_blocks=(1, 1), num_classes=10, width=8):
        super().__init__()
        self.in_planes = width
        self.conv1 = nn.Conv2d(3, width, kernel_size=3, stride=1, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(width)
        self.layer1 = self._make_layer(width, num_blocks[0], stride=1)
        self.layer2 = self._make_layer(2 * width, num_blocks[1], stride=2)
        self.pool = nn.AdaptiveAvgPool2d((1, 1))
        self.linear = nn.Linear(2 * width, num_classes)
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
            elif isinstance(m, nn.BatchNorm2d):
                nn.init.constant_(m.weight, 1)
                nn.init.constant_(m.bias, 0)

    def _make_layer(self, planes, num_blocks, stride):
        layers = []
        for s in [stride] + [1] * (num_blocks - 1):
            layers.append(BasicBlock(self.in_planes, planes, s))
            self.in_planes = planes
        return nn.Sequential(*layers)

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.layer2(self.layer1(out))
        out = torch.flatten(self.pool(out), 1)
        return self.linear(out)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--state", default=None)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--lr", type=float, default=0.05)
    parser.add_argument("--dtype", default="float64")
    args = parser.parse_args()

    torch.manual_seed(0)
    torch.set_default_dtype(getattr(torch, args.dtype))
    model = ResNet()
    if args.state:
        if os.path.exists(args.state):
            model.load_state_dict(torch.load(args.state))
        else:
            torch.save(model.state_dict(), args.state)
    criterion = nn.CrossEntropyLoss(label_smoothing=0.1)
    rng = np.random.default_rng(0)
    images = torch.from_numpy(rng.standard_normal((64, 3, 12, 12)).astype(args.dtype))
    labels = torch.from_numpy(rng.integers(0, 10, size=64))
    losses = []
    model.train()
    for step in range(args.steps):
        idx = torch.from_numpy(rng.integers(0, 64, size=args.batch_size))
        x, y = images[idx], labels[idx]
        loss = criterion(model(x), y)
        model.zero_grad()
        loss.backward()
        with torch.no_grad():
            for p in model.parameters():
                p.add_(p.grad, alpha=-args.lr)
        losses.append(loss.item())
    model.eval()
    with torch.no_grad():
        accuracy = (model(images).argmax(dim=1) == labels).float().mean().item()
    print("losses " + json.dumps(losses))
    print(f"accuracy {accuracy:.4f}")


if __name__ == "__main__":
    main()
