"""yaten.autograd.Function (torch.autograd.Function): custom forward/backward pairs, beside the same classes written
for torch: values, first and second derivatives, ctx's API (saved_tensors with its version check,
needs_input_grad, mark_non_differentiable, mark_dirty, setup_context), and torch's errors. Skipped without torch."""

from __future__ import annotations

import gc
import warnings
import weakref

import pytest

import yaten
from helpers import from_torch, to_torch

torch = pytest.importorskip("torch")


def _make(lib):
    F = lib.autograd.Function

    class ScaledExp(F):
        @staticmethod
        def forward(ctx, x, scale, bias=None):
            y = (x * scale).exp()
            if bias is not None:
                y = y + bias
            ctx.scale = scale
            ctx.save_for_backward(x, y if bias is None else None)
            return y

        @staticmethod
        def backward(ctx, grad):
            x, y = ctx.saved_tensors
            e = (x * ctx.scale).exp() if y is None else y
            return grad * e * ctx.scale, None, grad if ctx.needs_input_grad[2:] == (True,) else None

    class SortWithIndex(F):
        @staticmethod
        def forward(ctx, x):
            values, indices = x.sort()
            ctx.mark_non_differentiable(indices)
            ctx.save_for_backward(indices)
            return values, indices

        @staticmethod
        def backward(ctx, grad_values, grad_indices):
            (indices,) = ctx.saved_tensors
            return lib.zeros_like(grad_values).scatter(0, indices, grad_values)

    class MulAdd(F):  # new style: forward without ctx, setup_context apart
        @staticmethod
        def forward(a, b):
            return a * b + a

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(*inputs)

        @staticmethod
        def backward(ctx, grad):
            a, b = ctx.saved_tensors
            return grad * (b + 1), grad * a

    class Double_(F):  # in place
        @staticmethod
        def forward(ctx, x):
            x.mul_(2)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, grad):
            return grad * 2

    return ScaledExp, SortWithIndex, MulAdd, Double_


def _pair(seed, *shape):
    t = torch.rand(*shape, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)
    return t.clone().requires_grad_(), from_torch(t).requires_grad_()


def _close(got, expected):
    torch.testing.assert_close(to_torch(torch, got), expected)


def test_values_and_gradients_match_torch():
    T, Y = _make(torch), _make(yaten)
    xt, xy = _pair(0, 4)
    bt, by = _pair(1, 4)
    out_t = T[0].apply(xt * 1.5, 0.7, bt)
    out_y = Y[0].apply(xy * 1.5, 0.7, by)
    assert out_y.grad_fn.name() == "ScaledExpBackward"
    _close(out_y, out_t)
    (out_t * out_t).sum().backward()
    (out_y * out_y).sum().backward()
    _close(xy.grad, xt.grad)
    _close(by.grad, bt.grad)
    at, ay = _pair(2, 3)
    ct, cy = _pair(3, 3)
    T[2].apply(at, ct).pow(2).sum().backward()
    Y[2].apply(ay, cy).pow(2).sum().backward()
    _close(ay.grad, at.grad)
    _close(cy.grad, ct.grad)


def test_second_derivatives_through_a_saved_output():
    T, Y = _make(torch), _make(yaten)
    xt, xy = _pair(4, 5)
    (gt,) = torch.autograd.grad(T[0].apply(xt * 2, 0.5).sum(), xt, create_graph=True)
    (gy,) = yaten.autograd.grad(Y[0].apply(xy * 2, 0.5).sum(), xy, create_graph=True)
    _close(gy, gt)
    (gt * gt).sum().backward()
    (gy * gy).sum().backward()
    _close(xy.grad, xt.grad)


def test_non_differentiable_outputs_and_returned_tuples():
    T, Y = _make(torch), _make(yaten)
    xt, xy = _pair(5, 6)
    vt, it = T[1].apply(xt)
    vy, iy = Y[1].apply(xy)
    assert not iy.requires_grad and vy.requires_grad
    _close(iy, it)
    (vt * torch.arange(6.0, dtype=torch.float64)).sum().backward()
    (vy * yaten.arange(6.0, dtype=yaten.float64)).sum().backward()
    _close(xy.grad, xt.grad)


def test_mark_dirty_moves_the_history():
    T, Y = _make(torch), _make(yaten)
    xt, xy = _pair(6, 3)
    at, ay = xt * 3, xy * 3
    rt, ry = T[3].apply(at), Y[3].apply(ay)
    assert ry is ay and ry.grad_fn.name() == "Double_Backward"
    rt.sum().backward()
    ry.sum().backward()
    _close(xy.grad, xt.grad)
    with pytest.raises(RuntimeError, match="leaf Variable"):
        Y[3].apply(yaten.ones(2, requires_grad=True))


def test_no_node_without_grad_and_ctx_checks():
    _, Y = _make(yaten), _make(yaten)
    x = yaten.rand(3)
    assert Y[0].apply(x, 2.0).grad_fn is None
    with yaten.no_grad():
        assert Y[0].apply(yaten.rand(3, requires_grad=True), 2.0).grad_fn is None

    class Saves(yaten.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * 2

    leaf = yaten.rand(3, requires_grad=True)
    a = leaf * 1
    out = Saves.apply(a)
    a.add_(1)  # the saved input changes
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()


def test_backward_errors_are_torchs():
    class WrongCount(yaten.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            return x + y

        @staticmethod
        def backward(ctx, grad):
            return grad

    class WrongShape(yaten.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.sum()

        @staticmethod
        def backward(ctx, grad):
            return yaten.ones(7)

    x = yaten.rand(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="incorrect number of gradients"):
        WrongCount.apply(x, x).sum().backward()
    with pytest.raises(RuntimeError, match="invalid gradient"):
        WrongShape.apply(x).backward()

    class Raises(yaten.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, grad):
            raise ValueError("from backward")

    with pytest.raises(ValueError, match="from backward"):
        Raises.apply(x).sum().backward()


def test_once_differentiable_and_no_leak():
    contexts = []

    class Square(yaten.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            contexts.append(weakref.ref(ctx))
            y = x * x
            ctx.save_for_backward(x, y)
            return y

        @staticmethod
        @yaten.autograd.function.once_differentiable
        def backward(ctx, grad):
            x, _ = ctx.saved_tensors
            return 2 * x * grad

    x = yaten.rand(4, requires_grad=True)
    Square.apply(x).sum().backward()
    _close(x.grad, 2 * to_torch(torch, x.detach()))
    y = Square.apply(x)
    assert contexts[-1]() is not None
    del y
    gc.collect()
    assert contexts[-1]() is None  # the saved output made no cycle through its node: all of it went


def test_anomaly_mode_names_the_node_and_shows_the_forward_call():
    x = yaten.tensor([0.0, 1.0], requires_grad=True)
    xt = torch.tensor([0.0, 1.0], requires_grad=True)
    with pytest.warns(UserWarning, match="Anomaly Detection has been enabled"):
        region = yaten.autograd.detect_anomaly()
    with region:
        assert yaten.is_anomaly_enabled() and yaten.is_anomaly_check_nan_enabled()
        y = (x / x).sum()  # the forward line the warning must show
        with pytest.warns(UserWarning, match=r"Error detected in DivBackward0(.|\n)*y = \(x / x\)\.sum\(\)"):
            with pytest.raises(RuntimeError) as ours:
                y.backward()
    with torch.autograd.detect_anomaly(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(RuntimeError) as theirs:
            (xt / xt).sum().backward()
    assert str(ours.value) == str(theirs.value)  # "Function 'DivBackward0' returned nan values in its 1th output."
    assert not yaten.is_anomaly_enabled()
    with yaten.autograd.set_detect_anomaly(True, check_nan=False):
        assert yaten.is_anomaly_enabled() and not yaten.is_anomaly_check_nan_enabled()
        (x / x).sum().backward()  # NaN passes without the check
    assert not yaten.is_anomaly_enabled()


def test_anomaly_mode_reports_a_failing_backward():
    class Fails(yaten.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            raise ValueError("broken backward")

    x = yaten.rand(3, requires_grad=True)
    try:
        yaten.set_anomaly_enabled(True)
        out = Fails.apply(x)  # recorded here
        with pytest.warns(UserWarning, match=r"Error detected in FailsBackward(.|\n)*out = Fails\.apply"):
            with pytest.raises(ValueError, match="broken backward"):
                out.sum().backward()
    finally:
        yaten.set_anomaly_enabled(False)
