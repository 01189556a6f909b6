"""Every pointwise op of ops.yaml beside torch (and NumPy where it has the op): the CPU-math issue's sweep.

    python benchmarks/bench_pointwise_sweep.py [--threads N] [--dtype float32|float64] [--size N] [--ops a,b,c]

Unary ops `(Tensor self) -> Tensor` and binary ops `(Tensor self, Tensor other) -> Tensor` tagged `pointwise` (any
further arguments at their defaults, or ARGS's values), with a torch function of the same name (torch.*,
torch.special.*, torch.nn.functional.*), run out of place on inputs in (0.05, 0.95) (and (0.5, 1.5) for a second
operand), inside every op's domain; the activations (nn.functional) on (-3, 3), both sides of their selects. Medians
of repeated runs in one process, the libraries' runs taken in turn (yaten, torch, NumPy, yaten, ...: a change in the
machine's speed meanwhile falls on all three), torch at the same thread count; the table gives each op's time and its
ratio to torch's (and NumPy's), and the last line the summary: how many ops are at or below torch's time, and the
median ratio. The default size, 1M elements (4 MB of float32), stays in a large cache; --size 10000000 measures out of
cache.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(ROOT))
from common import interleaved_median_seconds  # noqa: E402

NUMPY = {"exp": np.exp, "exp2": np.exp2, "expm1": np.expm1, "log": np.log, "log2": np.log2, "log10": np.log10,
         "log1p": np.log1p, "sqrt": np.sqrt, "sin": np.sin, "cos": np.cos, "tan": np.tan, "asin": np.arcsin,
         "acos": np.arccos, "atan": np.arctan, "sinh": np.sinh, "cosh": np.cosh, "tanh": np.tanh,
         "asinh": np.arcsinh, "acosh": np.arccosh, "atanh": np.arctanh, "floor": np.floor, "ceil": np.ceil,
         "trunc": np.trunc, "round": np.round, "abs": np.abs, "neg": np.negative, "reciprocal": np.reciprocal,
         "square": np.square, "sign": np.sign, "add": np.add, "sub": np.subtract, "mul": np.multiply,
         "div": np.divide, "pow": np.power, "atan2": np.arctan2, "hypot": np.hypot, "fmod": np.fmod,
         "remainder": np.remainder, "maximum": np.maximum, "minimum": np.minimum, "copysign": np.copysign,
         "floor_divide": np.floor_divide, "logaddexp": np.logaddexp, "logaddexp2": np.logaddexp2}
# a domain of their own: acosh takes x >= 1
SHIFT = {"acosh": 1.0}


# Required non-tensor arguments of an op that has no default for them (in the order of its schema).
ARGS = {"threshold": (0.1, -2.0)}


def pointwise_ops() -> list[tuple[str, int, str]]:
    """(name, tensor arity, python module) of ops.yaml's pointwise ops with one or two plain tensor arguments and
    any number of others that have a default (hardtanh's bounds, softplus's beta) or a value in ARGS."""
    from codegen import parse

    out = []
    for op in parse.load(ROOT / "ops.yaml").ops:
        s = op.schema
        if s.overload not in ("", None, "Tensor") or "pointwise" not in op.tags or s.name.endswith("_") or s.is_out:
            continue
        tensors = [a for a in s.arguments if a.type.base == "Tensor"]
        others = [a for a in s.arguments if a.type.base != "Tensor"]
        if len(s.returns) != 1 or not all(t.type.list_size is None and not t.type.optional and not t.type.is_mutable
                                          for t in tensors):
            continue
        if s.arguments[:len(tensors)] != tuple(tensors):  # the tensors first, as the sweep passes them
            continue
        if any(a.default is None for a in others) and s.name not in ARGS:
            continue
        if len(tensors) in (1, 2) and all(s.name != name for name, _, _ in out):
            out.append((s.name, len(tensors), op.python_module))
    return out


def yaten_function(yaten, name: str, module: str):
    owner = {"": yaten, "special": yaten.special, "nn.functional": yaten.nn.functional}.get(module, yaten)
    return getattr(owner, name.removeprefix("special_") if module == "special" else name, None)


def with_args(fn, extra: tuple):
    return lambda *tensors: fn(*tensors, *extra)


def torch_function(torch, name: str, module: str = ""):
    if module == "nn.functional":
        return getattr(torch.nn.functional, name, None)
    for owner in (torch, torch.special, torch.nn.functional):
        fn = getattr(owner, name, None)
        if callable(fn):
            return fn
    return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--dtype", default="float32", choices=("float32", "float64"))
    parser.add_argument("--size", type=int, default=1_000_000)
    parser.add_argument("--ops", default="")
    args = parser.parse_args()
    import torch

    import yaten

    yaten.set_num_threads(args.threads)
    torch.set_num_threads(args.threads)
    rng = np.random.default_rng(0)
    a = rng.uniform(0.05, 0.95, args.size).astype(args.dtype)
    b = rng.uniform(0.5, 1.5, args.size).astype(args.dtype)
    signed = rng.uniform(-3.0, 3.0, args.size).astype(args.dtype)
    chosen = set(args.ops.split(",")) if args.ops else None
    rows = []
    print(f"{args.size} {args.dtype} elements, {args.threads} thread(s); times per call, ratios: yaten's time / theirs")
    print(f"{'op':<22}{'yaten':>11}{'torch':>11}{'numpy':>11}{'/torch':>9}{'/numpy':>9}")
    import yaten.nn.functional  # noqa: F401 (the activations' module)

    for name, arity, module in pointwise_ops():
        if chosen is not None and name not in chosen:
            continue
        ours, theirs = yaten_function(yaten, name, module), torch_function(torch, name, module)
        if ours is None or theirs is None:
            continue
        if module == "nn.functional":  # activations: both signs, so that no select is decided in advance
            xs = [signed, b][:arity]
        else:
            xs = [a + SHIFT.get(name, 0.0), b][:arity]
        if name in ARGS:
            ours, theirs = with_args(ours, ARGS[name]), with_args(theirs, ARGS[name])
        try:
            y_in = [yaten.from_numpy(x) for x in xs]
            t_in = [torch.from_numpy(x) for x in xs]
            ours(*y_in)
            result = theirs(*t_in)
        except Exception:  # noqa: BLE001 (an op that takes other inputs, e.g. only integers)
            continue
        if result.data_ptr() == t_in[0].data_ptr():  # torch returns its input (conj_physical of reals): no work
            continue
        fns = [lambda: ours(*y_in), lambda: theirs(*t_in)]
        if name in NUMPY:
            fns.append(lambda: NUMPY[name](*xs))
        with np.errstate(all="ignore"):
            t_y, t_t, *t_n = interleaved_median_seconds(fns, repeat=9, min_time=0.02)
        t_n = t_n[0] if t_n else None
        rows.append((name, t_y, t_t, t_n))
        numpy_text = f"{t_n * 1e3:9.3f}ms{t_y / t_n:9.2f}" if t_n else f"{'':>11}{'':>9}"
        print(f"{name:<22}{t_y * 1e3:9.3f}ms{t_t * 1e3:9.3f}ms{numpy_text[:11]}{t_y / t_t:9.2f}{numpy_text[11:]}")
        sys.stdout.flush()
    ratios = [t_y / t_t for _, t_y, t_t, _ in rows]
    at_or_below = sum(r <= 1.0 for r in ratios)
    print(f"summary: {at_or_below} of {len(rows)} ops at or below torch's time; median ratio "
          f"{statistics.median(ratios):.2f}x; worst {max(ratios):.2f}x "
          f"({rows[ratios.index(max(ratios))][0]})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
