"""F.embedding_bag and the Core ATen operator under it, _embedding_bag, against torch: every mode, offsets with
empty bags, include_last_offset, padding_idx, per_sample_weights, 2-D inputs, max_norm and scale_grad_by_freq,
with gradients; the auxiliary results where torch's CPU kernel computes them; torch's errors."""

from __future__ import annotations

import pytest

import yaten
from helpers import from_torch, to_torch

F = yaten.nn.functional


def cases(torch):
    g = torch.Generator().manual_seed(0)
    weight = torch.randn(10, 3, dtype=torch.float64, generator=g)
    idx = torch.tensor([1, 2, 4, 5, 4, 3, 2, 0, 9, 9])
    return weight, idx, g


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("include_last_offset", [False, True])
@pytest.mark.parametrize("padding_idx", [None, 4, -1])
def test_bags_match_torch_with_gradients(torch, mode, include_last_offset, padding_idx):
    weight, idx, g = cases(torch)
    offsets = torch.tensor([0, 2, 2, 5, 10] if include_last_offset else [0, 2, 2, 5])
    psw = torch.randn(10, dtype=torch.float64, generator=g) if mode == "sum" else None
    for use_psw in ([False, True] if psw is not None else [False]):
        tw = weight.clone().requires_grad_()
        yw = from_torch(weight).requires_grad_()
        tp = psw.clone().requires_grad_() if use_psw else None
        yp = from_torch(psw).requires_grad_() if use_psw else None
        expected = torch.nn.functional.embedding_bag(idx, tw, offsets, mode=mode, per_sample_weights=tp,
                                                     include_last_offset=include_last_offset, padding_idx=padding_idx)
        got = F.embedding_bag(from_torch(idx), yw, from_torch(offsets), mode=mode, per_sample_weights=yp,
                              include_last_offset=include_last_offset, padding_idx=padding_idx)
        torch.testing.assert_close(to_torch(torch, got), expected)
        seed = torch.randn(expected.shape, dtype=torch.float64, generator=g)
        expected.backward(seed)
        got.backward(from_torch(seed))
        torch.testing.assert_close(to_torch(torch, yw.grad), tw.grad)
        if use_psw:
            torch.testing.assert_close(to_torch(torch, yp.grad), tp.grad)


def test_two_dimensional_inputs_max_norm_and_frequency_scaling(torch):
    weight, _, g = cases(torch)
    idx2 = torch.tensor([[1, 2, 3], [3, 3, 9]])
    for mode in ("sum", "mean", "max"):
        expected = torch.nn.functional.embedding_bag(idx2, weight, mode=mode)
        torch.testing.assert_close(to_torch(torch, F.embedding_bag(from_torch(idx2), from_torch(weight), mode=mode)),
                                   expected)
    # scale_grad_by_freq divides each row's gradient by how often the batch names it, as torch documents and as its
    # F.embedding does; torch's embedding_bag divides some rows by another row's count (row 9 here gets 1/3:
    # docs/torch-differences.md), so the reference is F.embedding's gradient
    tw, yw = weight.clone().requires_grad_(), from_torch(weight).requires_grad_()
    torch.nn.functional.embedding(idx2, tw, scale_grad_by_freq=True).sum().backward()
    F.embedding_bag(from_torch(idx2), yw, mode="sum", scale_grad_by_freq=True).sum().backward()
    torch.testing.assert_close(to_torch(torch, yw.grad), tw.grad)
    assert yw.grad[9].tolist() == [1.0, 1.0, 1.0] and yw.grad[3].tolist() == [1.0, 1.0, 1.0]
    tw2, yw2 = weight.clone() * 5, from_torch(weight * 5)
    expected = torch.nn.functional.embedding_bag(idx2, tw2, mode="mean", max_norm=1.0)
    got = F.embedding_bag(from_torch(idx2), yw2, mode="mean", max_norm=1.0)
    torch.testing.assert_close(to_torch(torch, got), expected)
    torch.testing.assert_close(to_torch(torch, yw2), tw2)  # renormalized in place, as torch


def test_auxiliary_results_match_torch_where_it_computes_them(torch):
    weight, idx, _ = cases(torch)
    offsets = torch.tensor([0, 2, 2, 5])
    for mode, padding in ((1, -1), (1, 4), (2, -1), (2, 9)):
        expected = torch.ops.aten._embedding_bag(weight, idx, offsets, False, mode, False, None, False, padding)
        got = yaten.ops.yaten._embedding_bag(from_torch(weight), from_torch(idx), from_torch(offsets), False, mode,
                                             False, None, False, padding)
        for e, y in zip(expected, got):
            torch.testing.assert_close(to_torch(torch, y), e)
    # sum mode: torch's CPU fast path leaves them empty or zero; yaten fills them (docs/torch-differences.md)
    got = yaten.ops.yaten._embedding_bag(from_torch(weight), from_torch(idx), from_torch(offsets))
    assert got[1].tolist() == [0, 0, 2, 2, 2, 3, 3, 3, 3, 3] and got[2].tolist() == [2, 0, 3, 5]


def test_errors_match_torch(torch):
    weight, idx, _ = cases(torch)
    w, i = from_torch(weight), from_torch(idx)
    with pytest.raises(RuntimeError, match="offsets\\[0\\] has to be 0"):
        F.embedding_bag(i, w, yaten.tensor([1, 3]))
    with pytest.raises(RuntimeError, match="can not be greater than input's length"):
        F.embedding_bag(i, w, yaten.tensor([0, 11]))
    with pytest.raises(RuntimeError, match="must not decrease"):
        F.embedding_bag(i, w, yaten.tensor([0, 5, 3]))
    with pytest.raises(NotImplementedError, match="only supported for mode='sum'"):
        F.embedding_bag(i, w, yaten.tensor([0, 5]), mode="max", per_sample_weights=yaten.ones(10, dtype=w.dtype))
    with pytest.raises(ValueError, match="offsets has to be None"):
        F.embedding_bag(i.reshape(2, 5), w, yaten.tensor([0, 5]))
    with pytest.raises(ValueError, match="mode has to be one of"):
        F.embedding_bag(i, w, yaten.tensor([0, 5]), mode="min")
    with pytest.raises(IndexError):
        F.embedding_bag(yaten.tensor([0, 10]), w, yaten.tensor([0]))
    with pytest.raises(NotImplementedError, match="sparse"):
        F.embedding_bag(i, w, yaten.tensor([0, 5]), sparse=True)
