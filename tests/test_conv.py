"""Convolution against torch: conv1d/2d/3d and conv_transpose1d/2d/3d with stride, padding (numbers, tuples, 'same',
'valid'), dilation, groups (depthwise too), bias, unbatched and non-contiguous inputs, their gradients, unfold/fold
(im2col/col2im), the chunked path, errors; and on CUDA, equal to the CPU (skipped without a GPU)."""

from __future__ import annotations

import pytest

import yaten
from helpers import assert_close_to, from_torch, seeded_randn, to_torch

F = yaten.nn.functional
rand = seeded_randn
close = assert_close_to


# (spatial dims, input shape, weight shape, keyword arguments)
CONV_CASES = [
    (1, (2, 4, 11), (6, 4, 3), {}),
    (1, (3, 4, 12), (6, 2, 4), dict(stride=2, padding=3, dilation=2, groups=2)),
    (1, (2, 3, 9), (5, 3, 3), dict(padding="same", dilation=3)),
    (2, (2, 3, 8, 7), (5, 3, 3, 3), dict(padding=1)),
    (2, (2, 4, 9, 10), (6, 2, 3, 2), dict(stride=(2, 1), padding=(1, 0), dilation=(1, 2), groups=2)),
    (2, (1, 6, 7, 7), (6, 1, 3, 3), dict(padding=1, groups=6)),  # depthwise
    (2, (2, 8, 5, 6), (4, 8, 1, 1), {}),  # 1x1: the columns are the image
    (2, (2, 3, 6, 5), (4, 3, 2, 2), dict(padding="same")),  # an even kernel: the extra row after the input
    (2, (2, 3, 6, 5), (4, 3, 3, 3), dict(padding="valid", stride=3)),
    (2, (3, 7, 7), (2, 3, 3, 3), dict(stride=2)),  # unbatched
    (3, (2, 2, 5, 6, 4), (3, 2, 2, 3, 2), dict(stride=(1, 2, 1), padding=(1, 0, 1), dilation=(2, 1, 1))),
]


@pytest.mark.parametrize("dims,xs,ws,kw", CONV_CASES)
@pytest.mark.parametrize("with_bias", [True, False])
def test_conv_matches_torch(torch, dims, xs, ws, kw, with_bias):
    x, w, b = rand(torch, xs, 1), rand(torch, ws, 2), rand(torch, (ws[0],), 3)
    ours = getattr(F, f"conv{dims}d")
    theirs = getattr(torch.nn.functional, f"conv{dims}d")
    bias = b if with_bias else None
    close(torch, ours(from_torch(x), from_torch(w), from_torch(bias) if with_bias else None, **kw),
          theirs(x, w, bias, **kw))


# (spatial dims, input shape, weight shape, keyword arguments)
TRANSPOSE_CASES = [
    (1, (2, 4, 7), (4, 3, 3), {}),
    (1, (2, 4, 7), (4, 2, 4), dict(stride=3, padding=2, output_padding=1, groups=2)),
    (2, (2, 3, 5, 4), (3, 5, 3, 3), dict(stride=2, padding=1, output_padding=1)),
    (2, (2, 4, 4, 5), (4, 3, 3, 2), dict(stride=(2, 1), padding=(0, 1), dilation=(2, 3), groups=2)),
    (2, (1, 2, 3, 3), (2, 2, 3, 3), dict(stride=1, dilation=3, output_padding=2)),  # output_padding >= stride
    (2, (3, 4, 4), (3, 2, 2, 2), dict(stride=2)),  # unbatched
    (3, (1, 2, 3, 4, 3), (2, 3, 2, 3, 2), dict(stride=(2, 1, 2), padding=(0, 1, 1), output_padding=(1, 0, 1))),
]


@pytest.mark.parametrize("dims,xs,ws,kw", TRANSPOSE_CASES)
def test_conv_transpose_matches_torch(torch, dims, xs, ws, kw):
    groups = kw.get("groups", 1)
    x, w, b = rand(torch, xs, 4), rand(torch, ws, 5), rand(torch, (ws[1] * groups,), 6)
    ours = getattr(F, f"conv_transpose{dims}d")
    theirs = getattr(torch.nn.functional, f"conv_transpose{dims}d")
    close(torch, ours(from_torch(x), from_torch(w), from_torch(b), **kw), theirs(x, w, b, **kw))
    close(torch, ours(from_torch(x), from_torch(w), **kw), theirs(x, w, **kw))


# Note [A transposed convolution at stride 1 is a forward one]: these run as forward convolutions on the CPU (the
# padding within dilation * (kernel - 1)), but the one padded further, which takes col2im.
STRIDE_ONE_TRANSPOSE_CASES = [
    ((2, 6, 9), (6, 4, 3), dict(padding=1, groups=2)),
    ((2, 4, 7, 8), (4, 3, 3, 2), dict(padding=(1, 0), dilation=(2, 1))),
    ((2, 3, 6, 6), (3, 2, 3, 3), dict(padding=(3, 1))),  # padded beyond the kernel's reach: col2im
    ((1, 2, 4, 5, 4), (2, 3, 2, 3, 2), dict(padding=(1, 1, 0))),
    ((2, 64, 16, 16), (64, 64, 3, 3), dict(padding=1)),  # a forward in Winograd's form
]


@pytest.mark.parametrize("xs,ws,kw", STRIDE_ONE_TRANSPOSE_CASES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_stride_one_transposed_convolution_and_the_input_gradient_match_torch(torch, xs, ws, kw, dtype):
    dims = len(xs) - 2
    x, w = rand(torch, xs, 11, dtype), rand(torch, ws, 12, dtype)
    tol = 1e-4 if dtype == "float32" else 1e-10
    theirs = getattr(torch.nn.functional, f"conv_transpose{dims}d")(x, w, **kw)
    close(torch, getattr(F, f"conv_transpose{dims}d")(from_torch(x), from_torch(w), **kw), theirs, tol=tol)
    # the same convolution as the input's gradient of the forward one at stride 1 (its output is x's shape)
    expected = x.new_zeros(tuple(theirs.shape)).requires_grad_()
    getattr(torch.nn.functional, f"conv{dims}d")(expected, w, **kw).backward(x)
    ours = from_torch(x.new_zeros(tuple(theirs.shape))).requires_grad_()
    getattr(F, f"conv{dims}d")(ours, from_torch(w), **kw).backward(from_torch(x))
    close(torch, ours.grad, expected.grad, tol=tol)


GRAD_CASES = [
    ("conv", 1, (2, 4, 10), (6, 2, 3), dict(stride=2, padding=1, dilation=2, groups=2)),
    ("conv", 2, (2, 3, 7, 8), (4, 3, 3, 2), dict(stride=(2, 3), padding=(1, 2), dilation=(2, 1))),
    ("conv", 2, (2, 4, 6, 6), (4, 1, 3, 3), dict(padding="same", groups=4)),
    ("conv", 3, (1, 2, 4, 5, 4), (2, 2, 2, 2, 3), dict(stride=2, padding=1)),
    ("conv_transpose", 1, (2, 4, 5), (4, 3, 3), dict(stride=2, padding=1, output_padding=1, groups=2)),
    ("conv_transpose", 2, (2, 3, 4, 3), (3, 2, 3, 2), dict(stride=(2, 1), padding=(1, 0), dilation=(1, 2))),
    ("conv_transpose", 2, (1, 2, 3, 3), (2, 2, 2, 2), dict(dilation=3, output_padding=2)),
]


@pytest.mark.parametrize("kind,dims,xs,ws,kw", GRAD_CASES)
def test_conv_gradients_match_torch(torch, kind, dims, xs, ws, kw):
    groups = kw.get("groups", 1)
    out_channels = ws[1] * groups if kind == "conv_transpose" else ws[0]
    made = [rand(torch, xs, 7), rand(torch, ws, 8), rand(torch, (out_channels,), 9)]
    for t in made:
        t.requires_grad_()
    ours = [from_torch(t.detach()).requires_grad_() for t in made]
    name = f"{kind}{dims}d"
    expected = getattr(torch.nn.functional, name)(*made, **kw)
    out = getattr(F, name)(*ours, **kw)
    seed = rand(torch, tuple(expected.shape), 10)
    expected.backward(seed)
    out.backward(from_torch(seed))
    for t, y in zip(made, ours):
        close(torch, y.grad, t.grad)


def test_second_derivatives_of_conv_match_torch(torch):
    """Gradients of gradients (create_graph): the backward formulas are convolutions themselves."""
    x, w = rand(torch, (2, 2, 6, 5), 11).requires_grad_(), rand(torch, (4, 1, 3, 2), 12).requires_grad_()
    xs, ws = from_torch(x.detach()).requires_grad_(), from_torch(w.detach()).requires_grad_()
    kw = dict(stride=(2, 1), padding=1, groups=2)
    gx, gw = torch.autograd.grad(torch.nn.functional.conv2d(x, w, **kw).pow(2).sum(), (x, w), create_graph=True)
    ox, ow = yaten.autograd.grad(F.conv2d(xs, ws, **kw).pow(2).sum(), (xs, ws), create_graph=True)
    close(torch, ox, gx)
    close(torch, ow, gw)
    (gx.sin().sum() + gw.cos().sum()).backward()
    (ox.sin().sum() + ow.cos().sum()).backward()
    close(torch, xs.grad, x.grad)
    close(torch, ws.grad, w.grad)


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_conv_in_float32_and_reduced_precision(torch, dtype):
    x, w, b = (rand(torch, s, i, dtype) for i, s in enumerate([(2, 3, 9, 9), (4, 3, 3, 3), (4,)]))
    expected = torch.nn.functional.conv2d(x.double(), w.double(), b.double(), padding=1, stride=2)
    out = F.conv2d(from_torch(x), from_torch(w), from_torch(b), padding=1, stride=2)
    assert repr(out.dtype) == f"yaten.{dtype}"
    close(torch, out, expected, tol={"float32": 1e-5, "float16": 2e-2, "bfloat16": 1e-1}[dtype])


@pytest.mark.parametrize("transposed", [False, True])
@pytest.mark.parametrize("dims", [1, 2, 3])
def test_int64_convolution_matches_torch_exactly(torch, dims, transposed):
    # torch's CPU build convolves int64 (no gradients); integer sums are exact, so the results are equal
    gen = torch.Generator().manual_seed(dims)
    x = torch.randint(-9, 9, (2, 4) + (6,) * dims, generator=gen)
    w = torch.randint(-9, 9, ((4, 3) if transposed else (6, 2)) + (3,) * dims, generator=gen)
    b = torch.randint(-9, 9, (6 if transposed else 6,), generator=gen)
    name = f"conv_transpose{dims}d" if transposed else f"conv{dims}d"
    kw = dict(stride=2, padding=1, groups=2, dilation=1 if transposed else 2)
    if transposed:
        kw["output_padding"] = 1
    expected = getattr(torch.nn.functional, name)(x, w, b, **kw)
    out = getattr(F, name)(from_torch(x), from_torch(w), from_torch(b), **kw)
    assert repr(out.dtype) == "yaten.int64" and out.tolist() == expected.tolist()


def test_non_contiguous_inputs_and_weights(torch):
    bx, bw = rand(torch, (2, 9, 8, 3), 13), rand(torch, (3, 3, 5, 4), 14)
    view_x = lambda t: t.permute(0, 3, 1, 2)[:, :, 1:]  # noqa: E731  (channels last in memory, sliced)
    view_w = lambda t: t.transpose(0, 3)[:, :3, ::2]  # noqa: E731  (4, 3, 3, 3), strided
    expected = torch.nn.functional.conv2d(view_x(bx), view_w(bw), stride=(1, 2))
    ours = F.conv2d(view_x(from_torch(bx)), view_w(from_torch(bw)), stride=(1, 2))
    close(torch, ours, expected)


def test_batches_larger_than_one_chunk_are_computed_in_pieces(torch):
    """float32 columns of 2.4 MB per image: the CPU runs 3 images per matrix product, so 7 images take three
    products; the output and the weight's gradient are assembled from the pieces."""
    x, w = rand(torch, (7, 16, 64, 64), 15, "float32"), rand(torch, (8, 16, 3, 3), 16, "float32")
    x.requires_grad_()
    w.requires_grad_()
    xs, ws = from_torch(x.detach()).requires_grad_(), from_torch(w.detach()).requires_grad_()
    expected = torch.nn.functional.conv2d(x, w, padding=1)
    out = F.conv2d(xs, ws, padding=1)
    close(torch, out, expected, tol=1e-4)
    seed = rand(torch, tuple(expected.shape), 17, "float32")
    expected.backward(seed)
    out.backward(from_torch(seed))
    close(torch, ws.grad, w.grad, tol=1e-3)
    close(torch, xs.grad, x.grad, tol=1e-4)


# Cases for each way the CPU computes a forward (Note [Convolution on the CPU]): at one thread and stride 1, shifted
# products over the padded image (in pieces of positions, or straight into the output), Winograd's form for 3x3
# kernels, the ops' form for small deep planes; otherwise the ops' form.
CPU_PATH_CASES = [
    ((8, 16, 20, 20), (24, 16, 3, 3), dict(padding=1)),
    ((1, 64, 40, 40), (32, 64, 3, 3), dict(padding=1, dilation=2)),  # several pieces of positions
    ((6, 32, 17, 19), (16, 32, 1, 1), {}),  # the padded grid is the output's: products straight into the output
    ((5, 24, 300), (8, 24, 5), {}),  # likewise, a 1-D kernel along the only dim
    ((4, 12, 9, 11), (12, 3, 3, 2), dict(padding=(2, 1), groups=4)),
    ((2, 12, 9, 11), (12, 1, 3, 3), dict(padding=1, groups=12)),  # depthwise
    ((2, 4, 5, 6, 7), (3, 4, 3, 2, 3), dict(padding=(1, 0, 2))),
    ((2, 6, 11, 12, 9), (4, 3, 2, 3, 2), dict(padding=1, dilation=(1, 2, 1), groups=2)),
    ((3, 64, 30, 30), (16, 64, 3, 3), dict(stride=2, padding=1)),  # the ops' form at any thread count
    ((2, 256, 5, 6), (32, 256, 3, 3), dict(padding=1)),  # a small plane, deep: the ops' form (takes_columns)
] + [  # Note [Winograd's F(2x2, 3x3)]: 3x3 kernels at stride 1 with 16 channels and more
    ((3, 64, 15, 17), (64, 64, 3, 3), dict(padding=1)),  # odd sizes: half tiles; a tile column after the vectors'
    ((8, 64, 7, 8), (64, 64, 3, 3), dict(padding=1)),  # small planes: several images a unit, side by side
    ((2, 128, 20, 20), (96, 64, 3, 3), dict(groups=2)),  # no padding, groups
    ((2, 64, 14, 14), (64, 64, 3, 3), dict(padding=2)),
    ((4, 256, 4, 4), (32, 256, 3, 3), dict(padding=1)),  # a small deep plane, images enough for Winograd's form
]
WINOGRAD_CASES = CPU_PATH_CASES[-5:]


@pytest.mark.parametrize("xs,ws,kw", CPU_PATH_CASES)
@pytest.mark.parametrize("threads", [1, 2, 3])  # 3: images that do not share out evenly take the ops' form
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_each_cpu_forward_path_matches_torch(torch, xs, ws, kw, threads, dtype):
    x, w, b = rand(torch, xs, 30, dtype), rand(torch, ws, 31, dtype), rand(torch, (ws[0],), 32, dtype)
    dims = len(xs) - 2
    expected = getattr(torch.nn.functional, f"conv{dims}d")(x, w, b, **kw)
    before = yaten.get_num_threads()
    yaten.set_num_threads(threads)
    try:
        out = getattr(F, f"conv{dims}d")(from_torch(x), from_torch(w), from_torch(b), **kw)
    finally:
        yaten.set_num_threads(before)
    close(torch, out, expected, tol=1e-4 if dtype == "float32" else 1e-10)


@pytest.mark.parametrize("xs,ws,kw", WINOGRAD_CASES)
def test_winograd_forward_is_as_accurate_as_torchs(torch, xs, ws, kw):
    # Winograd's transforms reorder the sums: float32 results, measured against torch's float64 convolution, stay
    # within a few times the error of torch's own float32 result (its direct form), and float64 within 1e-14
    x, w = rand(torch, xs, 40, "float64"), rand(torch, ws, 41, "float64")
    exact = torch.nn.functional.conv2d(x, w, **kw)
    scale = exact.abs().max().item()
    theirs = (torch.nn.functional.conv2d(x.float(), w.float(), **kw).double() - exact).abs().max().item() / scale
    ours = (to_torch(torch, F.conv2d(from_torch(x.float()), from_torch(w.float()), **kw)).double() - exact)
    assert ours.abs().max().item() / scale <= 3 * theirs + 1e-7, (ours.abs().max().item() / scale, theirs)
    ours64 = to_torch(torch, F.conv2d(from_torch(x), from_torch(w), **kw)) - exact
    assert ours64.abs().max().item() / scale <= 1e-14


@pytest.mark.parametrize("threads", [1, 2])
def test_an_empty_image_dim_is_refused_like_torch(torch, threads):
    before = yaten.get_num_threads()
    yaten.set_num_threads(threads)
    try:
        for xs in [(1, 2, 0, 3), (1, 2, 3, 0)]:
            with pytest.raises(RuntimeError, match="Only zero batch or zero channel inputs are supported"):
                torch.nn.functional.conv2d(torch.ones(xs), torch.ones(4, 2, 1, 1), padding=1)
            with pytest.raises(RuntimeError, match="Only zero batch or zero channel inputs are supported"):
                F.conv2d(yaten.ones(*xs), yaten.ones(4, 2, 1, 1), padding=1)
    finally:
        yaten.set_num_threads(before)


def test_empty_batch_and_zero_channels(torch):
    x, w = rand(torch, (0, 3, 5, 5), 18), rand(torch, (4, 3, 3, 3), 19)
    close(torch, F.conv2d(from_torch(x), from_torch(w)), torch.nn.functional.conv2d(x, w))
    # no input channels: every output is the empty sum, 0 (torch returns a (2, 0, 3, 3) tensor here)
    out = F.conv2d(yaten.ones(2, 0, 5, 5), yaten.ones(4, 0, 3, 3), yaten.tensor([1.0, 2.0, 3.0, 4.0]))
    assert out.shape == (2, 4, 3, 3) and out.sum().item() == 2 * 9 * 10
    # no output channels (torch refuses this empty weight for a transposed convolution)
    assert F.conv_transpose2d(yaten.ones(1, 3, 2, 2), yaten.ones(3, 0, 3, 3)).shape == (1, 0, 4, 4)


UNFOLD_CASES = [
    ((2, 3, 6, 7), dict(kernel_size=(2, 3))),
    ((2, 3, 6, 7), dict(kernel_size=3, dilation=(1, 2), padding=1, stride=(2, 1))),
    ((3, 5, 5), dict(kernel_size=2, stride=2)),
]


@pytest.mark.parametrize("shape,kw", UNFOLD_CASES)
def test_unfold_and_fold_match_torch(torch, shape, kw):
    x = rand(torch, shape, 22)
    cols = torch.nn.functional.unfold(x, **kw)
    close(torch, F.unfold(from_torch(x), **kw), cols)
    y = rand(torch, tuple(cols.shape), 23)
    close(torch, F.fold(from_torch(y), shape[-2:], **kw), torch.nn.functional.fold(y, shape[-2:], **kw))


def test_im2col_and_col2im_take_one_to_three_image_dims(torch):
    """The ops are N-d (torch's are 2-D): the 1-D and 3-D forms agree with unfold of a padded 2-D image."""
    x = rand(torch, (2, 3, 9), 24)
    one = yaten.im2col(from_torch(x), [3], [2], [1], [2])
    close(torch, one, torch.nn.functional.unfold(x.unsqueeze(2), (1, 3), dilation=(1, 2), padding=(0, 1),
                                                 stride=(1, 2)))
    x3 = rand(torch, (1, 2, 3, 4, 5), 25)
    cols = yaten.im2col(from_torch(x3), [1, 2, 2], [1], [0], [1])
    # a 3-D kernel of depth 1 is a 2-D unfold of each depth slice
    expected = torch.stack([torch.nn.functional.unfold(x3[:, :, d], 2) for d in range(3)], -1)
    assert tuple(cols.shape) == (1, 8, 3 * 3 * 4)
    close(torch, cols.reshape(1, 8, 3, 12), expected.permute(0, 1, 3, 2))
    back = yaten.col2im(cols, [3, 4, 5], [1, 2, 2], [1], [0], [1])
    ones = yaten.col2im(yaten.ones(1, 8, 36, dtype=yaten.float64), [3, 4, 5], [1, 2, 2], [1], [0], [1])
    close(torch, back, (x3 * to_torch(torch, ones)))


def test_bad_arguments_raise_like_torch(torch):
    x, w = yaten.ones(1, 3, 5, 5), yaten.ones(4, 3, 3, 3)
    with pytest.raises(RuntimeError, match="expected input.* to have 3 channels, but got 2 channels"):
        F.conv2d(yaten.ones(1, 2, 5, 5), w)
    with pytest.raises(RuntimeError, match="divisible by 3"):
        F.conv2d(yaten.ones(1, 6, 5, 5), yaten.ones(4, 2, 3, 3), groups=3)
    with pytest.raises(RuntimeError, match="bias to be 1-dimensional with 4 elements"):
        F.conv2d(x, w, yaten.ones(3))
    with pytest.raises(RuntimeError, match="should be the same"):
        F.conv2d(x, w.double())
    with pytest.raises(NotImplementedError, match="convolution: not implemented for int32"):
        F.conv2d(x.int(), w.int())  # torch's CPU build convolves int64 only among the integers
    with pytest.raises(RuntimeError, match="smaller than the dilated kernel"):
        F.conv2d(yaten.ones(1, 3, 2, 2), w)
    with pytest.raises(RuntimeError, match="negative padding"):
        F.conv2d(x, w, padding=-1)
    with pytest.raises(RuntimeError, match="non-positive stride"):
        F.conv2d(x, w, stride=0)
    with pytest.raises(RuntimeError, match="non-positive groups"):
        F.conv2d(x, w, groups=0)
    with pytest.raises(ValueError, match="strided"):
        F.conv2d(x, w, padding="same", stride=2)
    with pytest.raises(ValueError, match="Invalid padding string"):
        F.conv2d(x, w, padding="full")
    with pytest.raises(RuntimeError, match="Expected 3D .unbatched. or 4D .batched. input"):
        F.conv2d(yaten.ones(3, 5), w)
    with pytest.raises(RuntimeError, match="output padding must be smaller than either stride or dilation"):
        F.conv_transpose2d(yaten.ones(1, 4, 3, 3), w, output_padding=1)
    with pytest.raises(RuntimeError, match="expected stride to be a single integer value or a list of 2 values"):
        F.conv2d(x, w, stride=(1, 1, 1))
    with pytest.raises(TypeError, match="stride"):
        F.conv2d(x, w, stride=1.5)
    with pytest.raises(RuntimeError, match="calculated number of sliding blocks"):
        F.fold(yaten.ones(1, 12, 5), (4, 5), (2, 2))
    with pytest.raises(RuntimeError, match="divisible by the product of kernel_size"):
        F.fold(yaten.ones(1, 10, 12), (4, 5), (2, 2))
    with pytest.raises(RuntimeError, match="kernel size should be greater than zero"):
        yaten.im2col(x, [0, 2], [1], [0], [1])
    # sizes whose products overflow int64 are refused, never wrapped into a small buffer
    with pytest.raises(RuntimeError, match="too large"):
        yaten.im2col(yaten.ones(1, 1, 1, 1, 1), [1, 1, 1], [1], [2**39], [1])
    with pytest.raises(RuntimeError, match="too large"):
        F.conv_transpose2d(yaten.ones(1, 1, 2**20, 1), yaten.ones(1, 1, 1, 1), stride=2**30)
    with pytest.raises(RuntimeError, match="too large"):
        F.pad(yaten.ones(1, 1, 5), (2**63 - 1, 2**63 - 1), mode="replicate")


@pytest.mark.skipif(not yaten.cuda.is_available(), reason="no CUDA GPU")
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_conv_on_cuda_equals_the_cpu(dtype):
    """im2col/col2im on CUDA read the CPU's element math: exact; the matrix products differ by rounding order."""
    g = yaten.Generator().manual_seed(5)
    x = yaten.randn(3, 4, 9, 8, generator=g).to(getattr(yaten, dtype))
    w = yaten.randn(6, 2, 3, 3, generator=g).to(getattr(yaten, dtype))
    b = yaten.randn(6, generator=g).to(getattr(yaten, dtype))
    cols = F.unfold(x, 3, padding=1, stride=2)
    assert yaten.equal(F.unfold(x.cuda(), 3, padding=1, stride=2).cpu(), cols)
    assert yaten.equal(F.fold(cols.cuda(), (9, 8), 3, padding=1, stride=2).cpu().float(),
                       F.fold(cols, (9, 8), 3, padding=1, stride=2).float())
    tol = {"float32": 1e-4, "float64": 1e-10, "float16": 1e-2, "bfloat16": 5e-2}[dtype]
    wt = yaten.randn(4, 3, 3, 3, generator=g).to(getattr(yaten, dtype))  # transposed: (C_in, C_out/groups, k)
    for fn, weight, kw in [(F.conv2d, w, dict(stride=(2, 1), padding=1, groups=2)),
                           (F.conv_transpose2d, wt, dict(stride=2, padding=1, output_padding=1, groups=2))]:
        bias = b
        xs, ws, bs = (t.clone().requires_grad_() for t in (x, weight, bias))
        xc, wc, bc = (t.cuda().requires_grad_() for t in (x, weight, bias))
        out, outc = fn(xs, ws, bs, **kw), fn(xc, wc, bc, **kw)
        assert outc.is_cuda
        assert yaten.allclose(outc.cpu().double(), out.double(), rtol=tol, atol=tol)
        out.float().square().sum().backward()
        outc.float().square().sum().backward()
        for a, c in [(xs, xc), (ws, wc), (bs, bc)]:
            scale = a.grad.double().abs().max().item() + 1
            assert yaten.allclose(c.grad.cpu().double() / scale, a.grad.double() / scale, rtol=tol, atol=tol)


def test_cnn_example_trains_and_matches_torch(torch):
    """examples/cnn.py: the same network and data in yaten and torch give the same losses step by step, and the
    network learns the task."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "examples"))
    import cnn

    losses, accuracy, torch_losses = cnn.run(steps=12, compare_torch=True, verbose=False)
    assert max(abs(a - b) for a, b in zip(losses, torch_losses)) < 1e-4
    assert losses[-1] < 0.5 * losses[0] and accuracy > 0.6
