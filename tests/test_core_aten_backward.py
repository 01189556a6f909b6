"""torch's Core ATen backward ops by their own names and arguments (convolution_backward, native_batch_norm_backward,
native_group_norm_backward, native_layer_norm_backward, embedding_dense_backward) and native_dropout, against
torch.ops.aten; and the `bool[3] output_mask` argument they take, through both call paths."""

from __future__ import annotations

import pytest

import yaten
from helpers import assert_close_to, from_torch, seeded_randn

rand = seeded_randn
close = assert_close_to
MASKS = [(True, True, True), (True, False, False), (False, True, False), (False, False, True), (False, True, True)]


def y(t):
    return None if t is None else from_torch(t)


def check_masked(torch, actual, expected, mask):
    assert len(actual) == 3
    for a, e, wanted in zip(actual, expected, mask):
        if wanted:
            close(torch, a, e)
        else:
            assert a is None


# ------------------------------------------------------------------------------------------------ convolution

CONVS = [
    # input, weight, stride, padding, dilation, transposed, output_padding, groups
    ((2, 4, 9, 8), (6, 4, 3, 3), [1, 1], [1, 1], [1, 1], False, [0, 0], 1),
    ((2, 4, 11, 10), (6, 2, 3, 2), [2, 1], [1, 0], [1, 2], False, [0, 0], 2),
    ((3, 4, 13), (4, 1, 5), [2], [2], [1], False, [0], 4),
    ((1, 2, 5, 4, 6), (3, 2, 2, 3, 2), [1, 2, 1], [0, 1, 1], [1, 1, 2], False, [0, 0, 0], 1),
    ((2, 4, 5, 6), (4, 3, 3, 3), [2, 2], [1, 0], [1, 1], True, [1, 0], 1),
    ((2, 4, 7), (4, 2, 3), [3], [1], [2], True, [2], 2),
]


@pytest.mark.parametrize("case", range(len(CONVS)))
@pytest.mark.parametrize("mask", MASKS)
def test_convolution_backward_matches_torch(torch, case, mask):
    shape, wshape, stride, padding, dilation, transposed, output_padding, groups = CONVS[case]
    x, w = rand(torch, shape, 1), rand(torch, wshape, 2)
    out = torch.ops.aten.convolution(x, w, None, stride, padding, dilation, transposed, output_padding, groups)
    g = rand(torch, tuple(out.shape), 3)
    cout = out.shape[1]
    expected = torch.ops.aten.convolution_backward(g, x, w, [cout], stride, padding, dilation, transposed,
                                                   output_padding, groups, list(mask))
    actual = yaten.convolution_backward(y(g), y(x), y(w), [cout], stride, padding, dilation, transposed,
                                        output_padding, groups, list(mask))
    check_masked(torch, actual, expected, mask)
    by_name = yaten.ops.yaten.convolution_backward(y(g), y(x), y(w), None, stride, padding, dilation, transposed,
                                                   output_padding, groups, mask)  # a tuple, and no bias_sizes
    check_masked(torch, by_name, expected, mask)


def test_convolution_backward_agrees_with_autograd():
    x = yaten.randn(2, 3, 8, 8, dtype=yaten.float64, requires_grad=True)
    w = yaten.randn(5, 3, 3, 3, dtype=yaten.float64, requires_grad=True)
    b = yaten.randn(5, dtype=yaten.float64, requires_grad=True)
    out = yaten.nn.functional.conv2d(x, w, b, stride=2, padding=1)
    g = yaten.randn(*out.shape, dtype=yaten.float64)
    out.backward(g)
    gi, gw, gb = yaten.convolution_backward(g, x.detach(), w.detach(), [5], [2, 2], [1, 1], [1, 1], False, [0, 0],
                                            1, [True, True, True])
    for a, e in [(gi, x.grad), (gw, w.grad), (gb, b.grad)]:
        assert yaten.allclose(a, e, rtol=1e-12, atol=1e-12)


def test_convolution_backward_refuses_bad_arguments():
    x, w = yaten.randn(1, 2, 5, 5), yaten.randn(3, 2, 3, 3)
    g = yaten.randn(1, 3, 3, 3)
    args = ([1, 1], [0, 0], [1, 1], False, [0, 0], 1)
    with pytest.raises(RuntimeError, match=r"convolution_backward: expected grad_output of size \[1, 3, 3, 3\]"):
        yaten.convolution_backward(yaten.randn(1, 3, 4, 3), x, w, [3], *args, [True, True, True])
    with pytest.raises(RuntimeError, match="convolution_backward: expected bias_sizes"):
        yaten.convolution_backward(g, x, w, [4], *args, [True, True, True])
    with pytest.raises(RuntimeError, match="convolution_backward: expected grad_output of the input's dtype"):
        yaten.convolution_backward(g.double(), x, w, [3], *args, [True, True, True])
    # output_mask is exactly three bools, on both call paths
    for call in (yaten.convolution_backward, yaten.ops.yaten.convolution_backward):
        for bad in ([True, True], [True, True, True, True], [1, 0, 1], True, None):
            with pytest.raises(TypeError, match="output_mask"):
                call(g, x, w, [3], *args, bad)


# ------------------------------------------------------------------------------------------------ normalization

@pytest.mark.parametrize("shape", [(6, 3), (4, 3, 7), (2, 3, 5, 6)])
@pytest.mark.parametrize("train", [True, False])
@pytest.mark.parametrize("affine", [True, False])
@pytest.mark.parametrize("mask", MASKS[:3])
def test_native_batch_norm_backward_matches_torch(torch, shape, train, affine, mask):
    x, g = rand(torch, shape, 1) * 2 + 1, rand(torch, shape, 2)
    w = rand(torch, (3,), 3) if affine else None
    rm, rv = rand(torch, (3,), 4), rand(torch, (3,), 5).abs() + 0.5
    _, save_mean, save_invstd = torch.ops.aten.native_batch_norm(x, w, None, rm.clone(), rv.clone(), train, 0.1, 1e-5)
    if not train:
        save_mean = save_invstd = None
    expected = torch.ops.aten.native_batch_norm_backward(g, x, w, rm, rv, save_mean, save_invstd, train, 1e-5,
                                                         list(mask))
    actual = yaten.native_batch_norm_backward(y(g), y(x), y(w), y(rm), y(rv), y(save_mean), y(save_invstd), train,
                                              1e-5, list(mask))
    check_masked(torch, actual, expected, mask)


@pytest.mark.parametrize("shape,group", [((2, 6, 5), 3), ((3, 4, 2, 3), 2), ((2, 4), 4)])
@pytest.mark.parametrize("mask", MASKS)
def test_native_group_norm_backward_matches_torch(torch, shape, group, mask):
    n, c = shape[:2]
    hxw = 1
    for s in shape[2:]:
        hxw *= s
    x, g, w = rand(torch, shape, 1) * 3 - 1, rand(torch, shape, 2), rand(torch, (c,), 3)
    _, mean, rstd = torch.ops.aten.native_group_norm(x, w, None, n, c, hxw, group, 1e-5)
    expected = torch.ops.aten.native_group_norm_backward(g, x, mean, rstd, w, n, c, hxw, group, list(mask))
    actual = yaten.native_group_norm_backward(y(g), y(x), y(mean), y(rstd), y(w), n, c, hxw, group, list(mask))
    check_masked(torch, actual, expected, mask)


@pytest.mark.parametrize("shape,normalized", [((4, 7), [7]), ((2, 3, 5), [3, 5]), ((2, 3, 4), [4]), ((5,), [5])])
@pytest.mark.parametrize("mask", MASKS)
def test_native_layer_norm_backward_matches_torch(torch, shape, normalized, mask):
    x, g = rand(torch, shape, 1) * 2 + 0.5, rand(torch, shape, 2)
    w, b = rand(torch, tuple(normalized), 3), rand(torch, tuple(normalized), 4)
    _, mean, rstd = torch.ops.aten.native_layer_norm(x, normalized, w, b, 1e-5)
    expected = torch.ops.aten.native_layer_norm_backward(g, x, normalized, mean, rstd, w, b, list(mask))
    actual = yaten.native_layer_norm_backward(y(g), y(x), normalized, y(mean), y(rstd), y(w), y(b), list(mask))
    check_masked(torch, actual, expected, mask)


def test_norm_backwards_agree_with_autograd_and_take_yatens_statistics():
    # the statistics native_layer_norm/native_group_norm/native_batch_norm return are what the backwards read
    x = yaten.randn(3, 4, 5, dtype=yaten.float64, requires_grad=True)
    w = yaten.randn(4, 5, dtype=yaten.float64, requires_grad=True)
    out, mean, rstd = yaten.native_layer_norm(x, [4, 5], w, None, 1e-5)
    g = yaten.randn(3, 4, 5, dtype=yaten.float64)
    out.backward(g)
    gi, gw, gb = yaten.native_layer_norm_backward(g, x.detach(), [4, 5], mean, rstd, w.detach(), None,
                                                  [True, True, True])
    assert yaten.allclose(gi, x.grad, rtol=1e-10, atol=1e-12) and yaten.allclose(gw, w.grad, rtol=1e-10, atol=1e-12)
    assert gb is None  # no bias, no bias gradient (torch raises here)

    x.grad = None
    wc = yaten.randn(4, dtype=yaten.float64, requires_grad=True)
    out, mean, rstd = yaten.native_group_norm(x, wc, None, 3, 4, 5, 2, 1e-5)
    out.backward(g)
    gi, gw, gb = yaten.native_group_norm_backward(g, x.detach(), mean, rstd, wc.detach(), 3, 4, 5, 2,
                                                  [True, True, True])
    assert yaten.allclose(gi, x.grad, rtol=1e-10, atol=1e-12) and yaten.allclose(gw, wc.grad, rtol=1e-10, atol=1e-12)
    assert yaten.allclose(gb, g.sum([0, 2]), rtol=1e-12)

    x.grad = wc.grad = None
    out, mean, invstd = yaten.native_batch_norm(x, wc, None, None, None, True, 0.1, 1e-5)
    out.backward(g)
    gi, gw, _ = yaten.native_batch_norm_backward(g, x.detach(), wc.detach(), None, None, mean, invstd, True, 1e-5,
                                                 [True, True, False])
    assert yaten.allclose(gi, x.grad, rtol=1e-10, atol=1e-12) and yaten.allclose(gw, wc.grad, rtol=1e-10, atol=1e-12)


def test_norm_backwards_of_reduced_precision_compute_in_float(torch):
    x, g, w = rand(torch, (4, 3, 6), 1), rand(torch, (4, 3, 6), 2), rand(torch, (6,), 3)
    _, mean, rstd = torch.ops.aten.native_layer_norm(x, [6], w, None, 1e-5)
    expected = torch.ops.aten.native_layer_norm_backward(g, x, [6], mean, rstd, w, None, [True, True, False])
    for dtype in (yaten.float16, yaten.bfloat16):
        gi, gw, _ = yaten.native_layer_norm_backward(y(g).to(dtype), y(x).to(dtype), [6], y(mean), y(rstd),
                                                     y(w).to(dtype), None, [True, True, False])
        assert gi.dtype == dtype and gw.dtype == dtype
        tol = 2e-2 if dtype == yaten.bfloat16 else 4e-3
        assert yaten.allclose(gi.double(), y(expected[0]), rtol=tol, atol=tol)
        assert yaten.allclose(gw.double(), y(expected[1]), rtol=tol, atol=tol)


def test_norm_backwards_refuse_bad_statistics():
    x, g = yaten.randn(2, 4, 3), yaten.randn(2, 4, 3)
    with pytest.raises(RuntimeError, match=r"native_layer_norm_backward: expected mean of 8 elements"):
        yaten.native_layer_norm_backward(g, x, [3], yaten.zeros(7), yaten.ones(8), None, None, [True, False, False])
    with pytest.raises(RuntimeError, match="native_layer_norm_backward: expected grad_out of the input's size"):
        yaten.native_layer_norm_backward(g[:1], x, [3], yaten.zeros(8), yaten.ones(8), None, None,
                                         [True, False, False])
    with pytest.raises(RuntimeError, match="native_batch_norm_backward: expected save_mean of 4 elements"):
        yaten.native_batch_norm_backward(g, x, None, None, None, None, None, True, 1e-5, [True, False, False])
    with pytest.raises(RuntimeError, match="native_group_norm_backward: expected rstd of 4 elements"):
        yaten.native_group_norm_backward(g, x, yaten.zeros(4), yaten.ones(3), None, 2, 4, 3, 2, [True, True, True])
    with pytest.raises(RuntimeError, match="divisible by num_groups"):
        yaten.native_group_norm_backward(g, x, yaten.zeros(6), yaten.ones(6), None, 2, 4, 3, 3, [True, True, True])


# ------------------------------------------------------------------------------------------------ embedding, dropout

@pytest.mark.parametrize("padding_idx", [-1, 0, 3])
@pytest.mark.parametrize("scale", [False, True])
def test_embedding_dense_backward_matches_torch(torch, padding_idx, scale):
    idx = torch.tensor([[0, 3, 3, 1], [5, 3, 0, 0]])
    g = rand(torch, (2, 4, 3), 1)
    expected = torch.ops.aten.embedding_dense_backward(g, idx, 7, padding_idx, scale)
    close(torch, yaten.embedding_dense_backward(y(g), y(idx), 7, padding_idx, scale), expected)
    close(torch, yaten.embedding_dense_backward(y(g), y(idx).int(), 7, padding_idx, scale), expected)


def test_embedding_dense_backward_refuses_bad_arguments():
    g = yaten.randn(2, 3)
    with pytest.raises(RuntimeError, match=r"expected grad_output of size \[2, 3\]"):
        yaten.embedding_dense_backward(yaten.randn(3, 3), yaten.tensor([0, 1]), 4, -1, False)
    with pytest.raises(TypeError, match="embedding_dense_backward: expected the indices to be int64 or int32"):
        yaten.embedding_dense_backward(g, yaten.tensor([0.0, 1.0]), 4, -1, False)
    with pytest.raises(IndexError):
        yaten.embedding_dense_backward(g, yaten.tensor([0, 4]), 4, -1, False)


@pytest.mark.parametrize("p", [0.0, 0.3, 1.0])
def test_native_dropout_keeps_what_its_mask_says_and_dropout_draws_the_same(p):
    x = yaten.randn(50, 40, dtype=yaten.float64)
    yaten.manual_seed(7)
    out, mask = yaten.native_dropout(x, p, True)
    assert mask.dtype == yaten.bool and mask.shape == x.shape
    scale = 0.0 if p == 1 else 1 / (1 - p)
    assert yaten.equal(out, x * mask * scale)
    if p == 0:
        assert bool(mask.all())
    elif p == 1:
        assert not bool(mask.any())
    else:
        assert 0.6 < float(mask.double().mean()) < 0.8
    yaten.manual_seed(7)
    if 0 < p < 1:
        assert yaten.equal(yaten.dropout(x, p, True), out)
    out, mask = yaten.native_dropout(x, p, None)  # train=None trains, as torch
    assert mask.dtype == yaten.bool


def test_native_dropout_in_evaluation_and_its_gradient(torch):
    x = yaten.randn(5, 6, requires_grad=True)
    out, mask = yaten.native_dropout(x, 0.4, False)
    tout, tmask = torch.ops.aten.native_dropout(torch.ones(5, 6), 0.4, False)
    assert yaten.equal(out, x) and out.data_ptr() != x.data_ptr() and bool(mask.all()) and tmask.dtype == torch.bool
    out, mask = yaten.native_dropout(x, 0.4, True)
    out.sum().backward()
    assert yaten.allclose(x.grad, mask.float() / 0.6)
    with pytest.raises(ValueError, match="native_dropout: dropout probability has to be between 0 and 1"):
        yaten.native_dropout(x, 1.5, True)


# ------------------------------------------------------------------------------------------------ bool[N] in ops.yaml

def test_bool_lists_in_schemas():
    from codegen import parse
    from codegen.model import Type

    schema = parse.parse_schema("f(Tensor self, bool[3] output_mask=[True, False, True]) -> Tensor")
    assert schema.arguments[1].type == Type("bool", None, 3, False)
    for bad, message in [("f(bool[] m) -> Tensor", "needs its length"), ("f(bool[2]? m) -> Tensor", "cannot be "
                         "optional"), ("f(bool[2] m=[True]) -> Tensor", "bad default"),
                         ("f(float[2] m) -> Tensor", "lists of 'float' are not supported")]:
        with pytest.raises(parse._SchemaSyntaxError, match=message):
            parse.parse_schema(bad)


@pytest.mark.skipif(not yaten.cuda.is_available(), reason="no CUDA GPU")
def test_backward_ops_on_cuda_match_the_cpu():
    g = yaten.Generator().manual_seed(5)
    x, w = yaten.randn(2, 4, 9, 8, generator=g), yaten.randn(6, 2, 3, 3, generator=g)
    go = yaten.randn(2, 6, 5, 8, generator=g)
    args = ([2, 1], [1, 1], [1, 1], False, [0, 0], 2, [True, True, True])
    cpu = yaten.convolution_backward(go, x, w, [6], *args)
    gpu = yaten.convolution_backward(go.cuda(), x.cuda(), w.cuda(), [6], *args)
    for a, b in zip(gpu, cpu):
        assert a.is_cuda and yaten.allclose(a.cpu(), b, rtol=1e-4, atol=1e-4)
    wl, bl, gl = yaten.randn(9, 8, generator=g), yaten.randn(9, 8, generator=g), yaten.randn(2, 4, 9, 8, generator=g)
    _, mean, rstd = yaten.native_layer_norm(x, [9, 8], wl, bl, 1e-5)
    cpu = yaten.native_layer_norm_backward(gl, x, [9, 8], mean, rstd, wl, bl, [True, True, True])
    gpu = yaten.native_layer_norm_backward(gl.cuda(), x.cuda(), [9, 8], mean.cuda(), rstd.cuda(), wl.cuda(),
                                           bl.cuda(), [True, True, True])
    for a, b in zip(gpu, cpu):
        assert a.is_cuda and yaten.allclose(a.cpu(), b, rtol=1e-4, atol=1e-4)
    idx = yaten.tensor([[0, 3, 3], [5, 0, 1]])
    ge = yaten.randn(2, 3, 4, generator=g)
    assert yaten.allclose(yaten.embedding_dense_backward(ge.cuda(), idx.cuda(), 7, 0, True).cpu(),
                          yaten.embedding_dense_backward(ge, idx, 7, 0, True), rtol=1e-5, atol=1e-6)
    yaten.manual_seed(3)
    out, mask = yaten.native_dropout(x.cuda(), 0.25, True)
    assert out.is_cuda and mask.dtype == yaten.bool
    assert yaten.allclose(out.cpu(), x * mask.cpu() / 0.75, rtol=1e-6, atol=0)
