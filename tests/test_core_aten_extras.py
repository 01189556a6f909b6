"""The Core ATen operators that are compositions (select_scatter, slice_scatter, masked_scatter, split_with_sizes,
alias, empty_strided, scalar_tensor, constant_pad_nd, cdist, pdist) against torch, with gradients; and
docs/core-aten.md, which maps every Core ATen operator (torch.Tag.core) to a yaten op, kept true."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import yaten
from helpers import from_torch, to_torch
from test_ops import OPS

F = yaten.nn.functional
ROOT = Path(__file__).resolve().parent.parent


def rand(torch, shape, seed):
    return torch.randn(shape, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)


def test_scatters_into_slices_match_torch(torch):
    x, src = rand(torch, (3, 4, 5), 1), rand(torch, (3, 5), 2)
    torch.testing.assert_close(to_torch(torch, yaten.select_scatter(from_torch(x), from_torch(src), 1, -2)),
                               torch.select_scatter(x, src, 1, -2))
    src2 = rand(torch, (3, 2, 5), 3)
    torch.testing.assert_close(to_torch(torch, yaten.slice_scatter(from_torch(x), from_torch(src2), 1, 1, None, 2)),
                               torch.slice_scatter(x, src2, 1, 1, None, 2))
    mask = rand(torch, (4, 1), 4) > 0
    source = rand(torch, (60,), 5)
    torch.testing.assert_close(to_torch(torch, from_torch(x).masked_scatter(from_torch(mask), from_torch(source))),
                               x.masked_scatter(mask, source))
    with pytest.raises(RuntimeError, match="expected src to have a size equal to the slice"):
        yaten.select_scatter(from_torch(x), from_torch(src2), 1, 0)
    with pytest.raises(RuntimeError, match="at least"):
        from_torch(x).masked_scatter(yaten.ones(3, 4, 5, dtype=yaten.bool), yaten.ones(3, dtype=yaten.float64))


def test_scatters_pass_gradients_like_torch(torch):
    made = [rand(torch, (3, 4), 6).requires_grad_(), rand(torch, (3,), 7).requires_grad_(),
            rand(torch, (12,), 8).requires_grad_()]
    ours = [from_torch(t.detach()).requires_grad_() for t in made]
    mask = torch.tensor([[True, False, True, False]] * 3)

    def run(lib, x, s, source, m):
        return (lib.select_scatter(x, s, 1, 2) * 2).masked_scatter(m, source)

    expected = run(torch, *made, mask)
    out = run(yaten, *ours, from_torch(mask))
    seed = rand(torch, (3, 4), 9)
    expected.backward(seed)
    out.backward(from_torch(seed))
    for t, y in zip(made, ours):
        torch.testing.assert_close(to_torch(torch, y.grad), t.grad)


def test_small_constructors_and_views_match_torch(torch):
    parts = yaten.split_with_sizes(yaten.arange(10), [3, 7])
    assert [p.tolist() for p in parts] == [list(range(3)), list(range(3, 10))]
    x = yaten.arange(6.0)
    a = yaten.alias(x)
    a.add_(1)
    assert x.tolist() == [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    t = yaten.empty_strided([2, 3], [1, 2])
    assert t.shape == (2, 3) and t.stride() == (1, 2)
    assert yaten.empty_strided([0, 3], [3, 1]).shape == (0, 3)
    with pytest.raises(RuntimeError, match="mismatch in length of strides and shape"):
        yaten.empty_strided([2, 3], [1])
    s = yaten.scalar_tensor(3)
    assert s.dim() == 0 and s.dtype == yaten.float32 and s.item() == 3.0
    assert yaten.scalar_tensor(2, dtype=yaten.int64).dtype == yaten.int64
    y = rand(torch, (2, 3), 10)
    torch.testing.assert_close(to_torch(torch, yaten.constant_pad_nd(from_torch(y), [1, 2, 0, 1], 3.5)),
                               torch.constant_pad_nd(y, [1, 2, 0, 1], 3.5))


@pytest.mark.parametrize("p", [2.0, 1.0, 0.0, 3.0, float("inf")])
def test_cdist_and_pdist_match_torch_with_gradients(torch, p):
    x1, x2 = rand(torch, (2, 4, 3), 11), rand(torch, (2, 5, 3), 12)
    x2[0, 1] = x1[0, 2]  # a zero distance: its gradient is 0, as torch's
    made = [x1.requires_grad_(), x2.requires_grad_()]
    ours = [from_torch(t.detach()).requires_grad_() for t in made]
    expected, out = torch.cdist(*made, p=p), yaten.cdist(*ours, p=p)
    torch.testing.assert_close(to_torch(torch, out), expected)
    if p != 0:
        expected.sum().backward()
        out.sum().backward()
        for t, y in zip(made, ours):
            torch.testing.assert_close(to_torch(torch, y.grad), t.grad)
    z = rand(torch, (5, 3), 13)
    torch.testing.assert_close(to_torch(torch, F.pdist(from_torch(z), p)), torch.nn.functional.pdist(z, p))
    with pytest.raises(RuntimeError, match="same number of columns"):
        yaten.cdist(yaten.ones(2, 3), yaten.ones(2, 4))


@pytest.mark.parametrize("mode", ["use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist",
                                  "donot_use_mm_for_euclid_dist"])
def test_cdist_takes_torchs_product_path_where_torch_does(torch, mode):
    """p = 2 with more than 25 rows (or the mode that asks for it): torch's |a|^2 + |b|^2 - 2 a.b through one
    product, whose values and gradients differ from the differences' in the last bits; both match torch's."""
    x1, x2 = rand(torch, (2, 40, 6), 14).double(), rand(torch, (2, 30, 6), 15).double()
    made = [x1.requires_grad_(), x2.requires_grad_()]
    ours = [from_torch(t.detach()).requires_grad_() for t in made]
    expected = torch.cdist(*made, p=2.0, compute_mode=mode)
    out = yaten.cdist(*ours, p=2.0, compute_mode=mode)
    torch.testing.assert_close(to_torch(torch, out), expected, rtol=1e-12, atol=1e-12)
    (expected * expected).sum().backward()
    (out * out).sum().backward()
    for t, y in zip(made, ours):
        torch.testing.assert_close(to_torch(torch, y.grad), t.grad, rtol=1e-10, atol=1e-10)


# ------------------------------------------------------------------------------------------------ the mapping

def mapping():
    """docs/core-aten.md's table: Core ATen name -> (yaten target or None, note)."""
    rows = {}
    for line in (ROOT / "docs" / "core-aten.md").read_text().splitlines():
        m = re.match(r"\|\s*`([\w.]+)`\s*\|\s*(.*?)\s*\|\s*(.*?)\s*\|$", line)
        if m:
            target = re.match(r"`([\w.]+)`", m.group(2))
            rows[m.group(1)] = (target.group(1) if target else None, m.group(3))
    return rows


def test_every_core_aten_operator_is_mapped_in_the_docs(torch):
    core = set()
    for name in dir(torch.ops.aten):
        packet = getattr(torch.ops.aten, name, None)
        if packet is None or not hasattr(packet, "overloads"):
            continue
        if any(torch.Tag.core in getattr(packet, ov).tags for ov in packet.overloads()):
            core.add(name)
    rows = mapping()
    missing = sorted(core - set(rows))
    assert not missing, f"add these Core ATen operators to docs/core-aten.md: {missing}"


def test_the_mapped_targets_exist_and_the_missing_ones_do_not():
    names = {op.schema.name for op in OPS} | {op.schema.full_name for op in OPS}
    for core_name, (target, note) in mapping().items():
        if target is None:
            assert note.startswith("not yet"), f"{core_name}: no target and no 'not yet' note"
            assert core_name not in names, f"{core_name} is a yaten op now: map it in docs/core-aten.md"
        elif target.startswith("Tensor."):
            assert hasattr(yaten.Tensor, target.split(".", 1)[1]), f"{core_name}: {target} does not exist"
        elif target.startswith("F."):
            assert hasattr(F, target.split(".", 1)[1]), f"{core_name}: {target} does not exist"
        else:
            assert target in names, f"{core_name}: {target} is not an op of ops.yaml"
