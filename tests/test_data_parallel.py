"""yaten.nn.DataParallel and torch.nn.parallel's scatter, replicate, parallel_apply and gather. Without a GPU,
DataParallel runs its module as it is (torch's behaviour); the multi-device steps run here on CPU devices, which the
functions accept: split, replicated, applied on threads and gathered, they give the whole batch's outputs and,
through the replicas' differentiable copies, its gradients."""

from __future__ import annotations

import numpy as np
import pytest

import yaten
import yaten.nn as nn
from yaten.nn.parallel import gather, parallel_apply, replicate, scatter, scatter_kwargs


def _model():
    yaten.manual_seed(0)
    return nn.Sequential(nn.Linear(5, 7), nn.ReLU(), nn.Linear(7, 3)).double()


def test_without_cuda_data_parallel_is_the_module():
    model = _model()
    dp = nn.DataParallel(model)
    assert dp.module is model and dp.device_ids == [] and "module.0.weight" in dp.state_dict()
    x = yaten.randn(4, 5, dtype=yaten.float64)
    assert yaten.equal(dp(x), model(x))
    assert yaten.equal(nn.parallel.data_parallel(model, x), model(x))


def test_scatter_replicate_apply_gather_is_the_whole_batch_with_its_gradients():
    model = _model()
    x = yaten.randn(10, 5, dtype=yaten.float64)
    expected = model(x)
    expected.pow(2).sum().backward()
    expected_grads = [p.grad.clone() for p in model.parameters()]
    model.zero_grad()

    devices = ["cpu", "cpu", "cpu"]
    inputs = scatter((x,), devices)
    assert [piece[0].shape[0] for piece in inputs] == [4, 4, 2]  # chunks, as torch's
    replicas = replicate(model, devices)
    assert all(r is not model and isinstance(r, nn.Sequential) for r in replicas)
    assert replicas[0][0].weight is not model[0].weight and replicas[0][0].weight.grad_fn is not None
    outputs = parallel_apply(replicas, inputs, None, devices)
    joined = gather(outputs, "cpu")
    np.testing.assert_allclose(joined.detach().numpy(), expected.detach().numpy(), rtol=1e-12, atol=1e-12)
    joined.pow(2).sum().backward()
    for p, g in zip(model.parameters(), expected_grads):
        np.testing.assert_allclose(p.grad.numpy(), g.numpy(), rtol=1e-12, atol=1e-12)
    # detach=True: the replicas' parameters are cut off from the module's
    assert replicate(model, devices[:1], detach=True)[0][0].weight.grad_fn is None


def test_scatter_kwargs_containers_and_gather_of_tuples_dicts_and_scalars():
    x = yaten.arange(12.0).reshape(6, 2)
    args, kwargs = scatter_kwargs((x, 3), {"mask": x > 4, "name": "a"}, ["cpu", "cpu"])
    assert len(args) == 2 and args[0][1] == 3 and args[1][0].shape == (3, 2)
    assert kwargs[1]["name"] == "a" and yaten.equal(kwargs[1]["mask"], x[3:] > 4)
    pieces = [(x[:3], {"s": x[:3].sum()}), (x[3:], {"s": x[3:].sum()})]
    with pytest.warns(UserWarning, match="all input tensors were scalars"):
        out = gather(pieces, "cpu")
    assert yaten.equal(out[0], x) and out[1]["s"].tolist() == [x[:3].sum().item(), x[3:].sum().item()]
    # a batch smaller than the device count gives fewer pieces
    assert len(scatter((x[:1],), ["cpu", "cpu", "cpu"])) == 1


def test_parallel_apply_raises_the_replicas_error():
    class Fails(nn.Module):
        def forward(self, x):
            raise ValueError("bad input")

    with pytest.raises(ValueError, match="replica 1 on device cpu: bad input"):
        parallel_apply([nn.Identity(), Fails()], [(yaten.ones(1),), (yaten.ones(1),)], None, ["cpu", "cpu"])
