"""yaten.vmap / yaten.func.vmap beside torch.vmap: in_dims and out_dims (ints, None, nested structures), nested vmap,
gradients through it, the randomness modes, and torch's errors. Skipped without torch."""

from __future__ import annotations

import pytest

import yaten
from helpers import from_torch, to_torch

torch = pytest.importorskip("torch")


def _rand(*shape, seed=0):
    return torch.rand(*shape, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)


def _close(got, expected):
    if isinstance(expected, (tuple, list)):
        for g, e in zip(got, expected):
            _close(g, e)
        return
    torch.testing.assert_close(to_torch(torch, got), expected)


CASES = [
    ("matmul relu", lambda lib: lambda a, b: (a @ b).relu(), ((4, 3), (3, 2)), dict(in_dims=(0, None))),
    ("two outputs", lambda lib: lambda a: (a.sum(), a * 2), ((4, 3),), dict(out_dims=(0, 1))),
    ("dim 1", lambda lib: lambda a, b: a * b, ((3, 5), (3, 5)), dict(in_dims=1)),
    ("negative dims", lambda lib: lambda a: lib.outer(a, a), ((2, 3),), dict(in_dims=-2, out_dims=-1)),
    ("softmax rows", lambda lib: lambda a: lib.softmax(a, 0), ((6, 4),), dict()),
]


@pytest.mark.parametrize("name,make,shapes,kwargs", CASES, ids=[c[0] for c in CASES])
def test_vmap_matches_torch(name, make, shapes, kwargs):
    inputs = [_rand(*s, seed=i) for i, s in enumerate(shapes)]
    expected = torch.vmap(make(torch), **kwargs)(*inputs)
    got = yaten.vmap(make(yaten), **kwargs)(*[from_torch(t) for t in inputs])
    _close(got, expected)
    assert yaten.func.vmap is yaten.vmap


def test_vmap_nested_structures_and_gradients():
    x, w = _rand(4, 3), _rand(3, seed=1)
    in_dims = ({"a": 1, "b": None},)
    fn = lambda d: d["a"] * d["b"]  # noqa: E731
    _close(yaten.vmap(fn, in_dims=in_dims)({"a": from_torch(x).T, "b": from_torch(w)}),
           torch.vmap(fn, in_dims=in_dims)({"a": x.T, "b": w}))
    _close(yaten.vmap(yaten.vmap(lambda a, b: a * b))(from_torch(x), from_torch(x)),
           torch.vmap(torch.vmap(lambda a, b: a * b))(x, x))
    # per-sample losses, differentiated through the map
    xt = x.clone().requires_grad_()
    torch.vmap(lambda r: (r * r).sum())(xt).sum().backward()
    xy = from_torch(x).requires_grad_()
    yaten.vmap(lambda r: (r * r).sum())(xy).sum().backward()
    _close(xy.grad, xt.grad)


def test_vmap_randomness_and_errors():
    x = from_torch(_rand(4, 3))
    with pytest.raises(RuntimeError, match="randomness"):
        yaten.vmap(lambda a: a + yaten.rand(3, dtype=yaten.float64))(x)
    same = yaten.vmap(lambda a: a * 0 + yaten.rand(3, dtype=yaten.float64), randomness="same")(x)
    assert bool((same[0] == same[3]).all())
    different = yaten.vmap(lambda a: a * 0 + yaten.rand(3, dtype=yaten.float64), randomness="different")(x)
    assert not bool((different[0] == different[1]).all())
    with pytest.raises(ValueError, match="same size in the mapped dimension"):
        yaten.vmap(lambda a, b: a + b)(x, x[:2])
    with pytest.raises(ValueError):
        yaten.vmap(lambda a: a, in_dims=2)(x)
    with pytest.raises(ValueError, match="non-Tensor"):
        yaten.vmap(lambda a, n: a * n, in_dims=(0, 0))(x, 3)
    with pytest.raises(RuntimeError, match="randomness"):
        yaten.vmap(lambda a: a, randomness="sometimes")
