"""F.pad's modes against torch: reflect, replicate and circular over 1 to 3 dims (and constant, unchanged), their
gradients, errors; on CUDA, equal to the CPU (skipped without a GPU)."""

from __future__ import annotations

import pytest

import yaten
from helpers import from_torch, to_torch

F = yaten.nn.functional

CASES = [
    ((2, 3, 7), (2, 3)),
    ((3, 7), (0, 6)),
    ((2, 3, 5, 6), (1, 2, 3, 0)),
    ((3, 5, 6), (4, 4, 1, 1)),
    ((1, 2, 3, 4, 5), (1, 1, 2, 0, 2, 1)),
]


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular", "constant"])
@pytest.mark.parametrize("shape,pads", CASES)
def test_pad_modes_and_their_gradients_match_torch(torch, mode, shape, pads):
    x = torch.randn(shape, generator=torch.Generator().manual_seed(1), dtype=torch.float64).requires_grad_()
    xs = from_torch(x.detach()).requires_grad_()
    expected = torch.nn.functional.pad(x, pads, mode=mode)
    out = F.pad(xs, pads, mode=mode)
    torch.testing.assert_close(to_torch(torch, out), expected)
    seed = torch.randn(expected.shape, generator=torch.Generator().manual_seed(2), dtype=torch.float64)
    expected.backward(seed)
    out.backward(from_torch(seed))
    torch.testing.assert_close(to_torch(torch, xs.grad), x.grad)


def test_pad_ops_take_other_dtypes_and_second_derivatives(torch):
    x = torch.arange(12, dtype=torch.int32).reshape(1, 3, 4)
    torch.testing.assert_close(to_torch(torch, F.pad(from_torch(x), (2, 1), mode="reflect")),
                               torch.nn.functional.pad(x.float(), (2, 1), mode="reflect").int())
    xs = yaten.randn(1, 2, 4, 5, dtype=yaten.float64).requires_grad_()
    assert yaten.autograd.gradgradcheck(lambda t: F.pad(t, (1, 2, 2, 1), mode="reflect").square(), [xs])


def test_bad_padding_raises_like_torch():
    x = yaten.ones(1, 2, 3)
    with pytest.raises(RuntimeError, match="Padding size should be less than the corresponding input dimension"):
        F.pad(x, (3, 1), mode="reflect")
    with pytest.raises(RuntimeError, match="doesn't take in value argument"):
        F.pad(x, (1, 1), mode="reflect", value=2.0)
    with pytest.raises(NotImplementedError, match="Unrecognised padding mode"):
        F.pad(x, (1, 1), mode="mirror")
    with pytest.raises(NotImplementedError, match="not supported for 1D input"):
        F.pad(yaten.ones(3), (1, 1), mode="reflect")
    with pytest.raises(RuntimeError, match="wrapping around more than once"):
        F.pad(x, (4, 0), mode="circular")
    with pytest.raises(RuntimeError, match="too small"):  # negative padding crops, but not to nothing
        F.pad(x, (-3, 0), mode="replicate")
    assert F.pad(x, (-1, 1), mode="replicate").tolist() == [[[1.0] * 3] * 2]


@pytest.mark.skipif(not yaten.cuda.is_available(), reason="no CUDA GPU")
@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
def test_pad_modes_on_cuda_equal_the_cpu(mode):
    x = yaten.randn(2, 3, 5, 6, generator=yaten.Generator().manual_seed(3))
    out = F.pad(x.cuda(), (1, 2, 3, 0), mode=mode)
    assert out.is_cuda and yaten.equal(out.cpu(), F.pad(x, (1, 2, 3, 0), mode=mode))
