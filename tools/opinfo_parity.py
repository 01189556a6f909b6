"""yaten beside torch on PyTorch's own OpInfo samples: for every OpInfo of torch's op_db whose function, method or
in-place variant yaten has by name, every sample torch's sample_inputs gives on the CPU for every dtype both
libraries support (the float32 ones also made non-contiguous, kind "function-nc" etc.), called on both and compared (values with torch.testing.assert_close's tolerances for the dtype,
dtypes, shapes, and whether each raises).

    python tools/opinfo_parity.py                   # every shared op; a summary and the worst ops
    python tools/opinfo_parity.py add sum softmax   # chosen op names, each disagreement printed
    python tools/opinfo_parity.py --json out.json   # the per-op counts as JSON

A case is runnable when torch computes it; it agrees when yaten returns the same dtype, shape and values (NaNs in the
same places). The samples run in a worker process: a crash there is counted against its op, and the run goes on in a
new worker. Needs torch (with its test-only dependency expecttest).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import multiprocessing.connection
import sys
import time
import traceback
from collections import Counter

# Ops whose results are random (samples can't agree) or that torch's samples call with torch-only objects.
SKIP = {"bernoulli", "multinomial", "normal", "rand_like", "randn_like", "randint_like", "uniform", "dropout",
        "nn.functional.dropout", "nn.functional.dropout2d", "nn.functional.dropout3d", "nn.functional.alpha_dropout",
        "nn.functional.feature_alpha_dropout", "exponential", "geometric", "log_normal", "cauchy", "randint",
        "empty", "empty_like", "empty_strided", "new_empty", "new_empty_strided", "empty_permuted",
        "nn.functional.rrelu", "item", "to_sparse", "sparse.sampled_addmm", "sparse.mm", "randn", "rand",
        "bfloat16", "bool", "byte", "char", "double", "float", "half", "int", "long", "short", "cfloat", "cdouble",
        "chalf", "resize_", "resize_as_", "nonzero_static", "torch._scaled_mm", "equal"}

# Ops that return the positions of values: where values tie, torch promises no particular position, so only the
# values are compared (for argsort, the values its positions pick).
TIES = {"topk", "kthvalue", "mode", "sort", "argsort", "msort", "median", "nanmedian", "max", "min", "cummax",
        "cummin", "max_pool2d_with_indices", "nn.functional.max_pool1d", "nn.functional.max_pool2d",
        "nn.functional.max_pool3d"}

REDUCED_TOLERANCE = {"torch.float16": {"rtol": 2e-3, "atol": 1e-3}, "torch.bfloat16": {"rtol": 1.6e-2, "atol": 1e-2}}

DTYPES = ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64", "complex64",
          "complex128")


def _resolve(module, dotted: str):
    obj = module
    for part in dotted.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def variants(yaten, opinfo):
    """(kind, yaten callable, torch callable) for each variant both have."""
    import torch

    out = []
    name = opinfo.name
    # only where the OpInfo calls torch's function of that name (some wrap it: einsum's takes a list first)
    if opinfo.op is not None and opinfo.op is _resolve(torch, name):
        ours = _resolve(yaten, name)
        if ours is not None and callable(ours):
            out.append(("function", ours, opinfo.op))
    if opinfo.method_variant is not None and "." not in name:
        ours = getattr(yaten.Tensor, name, None)
        if ours is not None:
            out.append(("method", lambda x, *a, _n=name, **k: getattr(x, _n)(*a, **k), opinfo.method_variant))
    if opinfo.inplace_variant is not None and "." not in name:
        ours = getattr(yaten.Tensor, name + "_", None)
        if ours is not None:
            out.append(("inplace", lambda x, *a, _n=name + "_", **k: getattr(x, _n)(*a, **k),
                        opinfo.inplace_variant))
    return out


class Unconvertible(Exception):
    pass


def strided_zeros(zeros, t, dtype):
    """Zeros laid out as `t` is (its shape and strides, over one buffer that spans them), from `zeros` of either
    library: the gaps between the elements are zero in both libraries, because as_strided may read them."""
    extent = 1 + sum((n - 1) * st for n, st in zip(t.shape, t.stride()))
    return zeros(extent, dtype=dtype).as_strided(tuple(t.shape), tuple(t.stride()))


def to_yaten(yaten, torch, value):
    if isinstance(value, torch.Tensor):
        if value.layout != torch.strided or value.is_quantized or value.is_neg() or value.is_conj():
            raise Unconvertible("layout")
        t = value.detach()
        ours = yaten.from_dlpack(t.clone()) if t.dtype != torch.bool else yaten.from_numpy(t.clone().numpy())
        if tuple(ours.stride()) != tuple(t.stride()) and t.numel() > 1:  # the same layout, gaps zeroed as in clone_torch
            ours = strided_zeros(yaten.zeros, t, ours.dtype).copy_(ours)
        return ours
    if isinstance(value, torch.dtype):
        name = str(value).split(".")[-1]
        if name not in DTYPES:
            raise Unconvertible(name)
        return getattr(yaten, name)
    if isinstance(value, torch.device):
        return "cpu"
    if isinstance(value, torch.Size):
        return tuple(value)
    if isinstance(value, (torch.memory_format, torch.layout, torch.Generator)):
        raise Unconvertible(type(value).__name__)
    if isinstance(value, (list, tuple)):
        items = [to_yaten(yaten, torch, v) for v in value]
        return type(value)(items) if type(value) in (list, tuple) else tuple(items)
    if isinstance(value, dict):
        return {k: to_yaten(yaten, torch, v) for k, v in value.items()}
    if callable(value) and not isinstance(value, type):
        raise Unconvertible("callable")
    return value


def clone_torch(torch, value):
    """A copy torch may write into, with the same strides (a non-contiguous sample stays non-contiguous, as yaten's
    copy in to_yaten does, so both libraries see the same layout)."""
    if isinstance(value, torch.Tensor):
        t = value.detach()
        if t.layout == torch.strided and not t.is_contiguous() and t.numel() > 1:
            return strided_zeros(torch.zeros, t, t.dtype).copy_(t)
        return t.clone()
    if isinstance(value, (list, tuple)) and type(value) in (list, tuple):
        return type(value)(clone_torch(torch, v) for v in value)
    if isinstance(value, dict):
        return {k: clone_torch(torch, v) for k, v in value.items()}
    return value


def to_torch(yaten, torch, value):
    if isinstance(value, yaten.Tensor):
        if value.dtype == yaten.bool:
            return torch.from_numpy(value.numpy().copy())
        return torch.from_dlpack(value.contiguous().clone())
    if isinstance(value, (list, tuple)):
        return [to_torch(yaten, torch, v) for v in value]
    return value


def compare(torch, ours, theirs) -> str | None:
    """None when they agree, else what differs."""
    if isinstance(theirs, torch.Tensor):
        if not isinstance(ours, torch.Tensor):
            return f"returned {type(ours).__name__}, torch a Tensor"
        if ours.dtype != theirs.dtype:
            return f"dtype {str(ours.dtype)[6:]}, torch {str(theirs.dtype)[6:]}"
        if tuple(ours.shape) != tuple(theirs.shape):
            return f"shape {tuple(ours.shape)}, torch {tuple(theirs.shape)}"
        # float16 and bfloat16 results may differ in their last bit or two where the float accumulations run in
        # another order (torch's own CPU-CUDA comparisons allow as much)
        theirs = theirs.detach().resolve_conj().resolve_neg()
        if torch.equal(ours, theirs):  # the same values (most cases): no tolerance to work out (NaNs never equal)
            return None
        tolerance = REDUCED_TOLERANCE.get(str(theirs.dtype), {})
        try:
            torch.testing.assert_close(ours, theirs, equal_nan=True, check_stride=False, **tolerance)
        except AssertionError as e:
            lines = [line for line in str(e).splitlines() if "Greatest" in line or "Mismatched" in line]
            return "values: " + "; ".join(line.strip() for line in lines[:2])
        return None
    if isinstance(theirs, (list, tuple)):
        if not isinstance(ours, (list, tuple)) or len(ours) != len(theirs):
            return f"returned {type(ours).__name__}, torch {type(theirs).__name__} of {len(theirs)}"
        for o, t in zip(ours, theirs):
            why = compare(torch, o, t)
            if why:
                return why
        return None
    if isinstance(theirs, (bool, int, float, complex)) or theirs is None:
        if isinstance(ours, torch.Tensor) and ours.dim() == 0:
            ours = ours.item()
        if theirs is None:
            return None if ours is None else f"returned {ours!r}, torch None"
        try:
            torch.testing.assert_close(torch.tensor(ours), torch.tensor(theirs), equal_nan=True, check_dtype=False)
        except (AssertionError, TypeError, RuntimeError):
            return f"returned {ours!r}, torch {theirs!r}"
        return None
    return None  # other return types (torch.dtype, str, ...) are not compared


def _lighter_sampling(torch) -> None:
    """Two costs of torch's sample generators that this tool does not need, removed without changing a sample.
    They reseed before every sample (torch.manual_seed), which also queues a seed for each accelerator module not yet
    initialized, recording the Python stack each time (traceback.format_stack: three per sample, over half of this
    tool's time); the samples are made on the CPU, whose generator manual_seed still seeds, so the accelerators'
    seeding is skipped where none is present. And each sample_inputs call crawls the stack for a unittest.TestCase
    (extract_test_fn, to apply a test's skips), which finds none here: it returns None at once."""
    from torch.testing._internal import common_utils
    from torch.testing._internal.opinfo import core

    for module in (torch.cuda, torch.xpu, torch.mtia):
        if not module.is_available():
            module.manual_seed_all = lambda seed: None
    common_utils.extract_test_fn = core.extract_test_fn = lambda: None


def run_op(name: str, variant_filter: str | None, verbose: bool) -> dict:
    import torch
    import yaten
    from torch.testing._internal.common_methods_invocations import op_db

    counts: Counter = Counter()
    examples: dict[str, list[str]] = {}
    torch.manual_seed(0)
    for opinfo in op_db:
        if opinfo.name != name:
            continue
        tag = name + (f".{opinfo.variant_test_name}" if opinfo.variant_test_name else "")
        for kind, ours_fn, torch_fn in variants(yaten, opinfo):
            if variant_filter and kind != variant_filter:
                continue
            for dtype in sorted(opinfo.supported_dtypes("cpu"), key=str):
                dname = str(dtype).split(".")[-1]
                if dname not in DTYPES:
                    continue
                try:
                    samples = list(opinfo.sample_inputs("cpu", dtype, requires_grad=False))
                except Exception:  # noqa: BLE001 (torch's own sample generator)
                    continue
                # the float32 samples (or the first dtype's, for ops without float32) once more with every
                # tensor non-contiguous (torch's SampleInput.noncontiguous(): the same values in strided views)
                strided = dtype == (torch.float32 if torch.float32 in opinfo.supported_dtypes("cpu") else
                                    sorted(opinfo.supported_dtypes("cpu"), key=str)[0])
                runs = [(sample, kind) for sample in samples]
                if strided:
                    for sample in samples:
                        try:
                            runs.append((sample.noncontiguous(), kind + "-nc"))
                        except Exception:  # noqa: BLE001 (a sample torch cannot make non-contiguous)
                            pass
                for sample, run_kind in runs:
                    args = (sample.input, *sample.args)
                    try:
                        expected = torch_fn(*clone_torch(torch, args), **clone_torch(torch, sample.kwargs))
                    except Exception:  # noqa: BLE001 (not runnable: torch refuses it)
                        continue
                    try:
                        y_args = to_yaten(yaten, torch, args)
                        y_kwargs = to_yaten(yaten, torch, sample.kwargs)
                    except Unconvertible:
                        counts["unconvertible"] += 1
                        continue
                    counts["runnable"] += 1
                    key = f"{tag} {run_kind} {dname}"
                    try:
                        got = to_torch(yaten, torch, ours_fn(*y_args, **y_kwargs))
                        if name in TIES:
                            got, expected = tie_free(torch, name, got, expected, args, sample.kwargs)
                        why = compare(torch, got, expected)
                    except Exception as e:  # noqa: BLE001
                        why = f"raised {type(e).__name__}: {str(e).splitlines()[0][:160] if str(e) else ''}"
                    if why is None:
                        counts["agree"] += 1
                    else:
                        counts["differ"] += 1
                        examples.setdefault(key, []).append(why)
                        if verbose:
                            print(f"  {key}: {why}   [{_describe(torch, args, sample.kwargs)}]")
    return {"counts": dict(counts), "examples": {k: v[:3] + ([f"... {len(v)} in all"] if len(v) > 3 else [])
                                                   for k, v in examples.items()}}


def tie_free(torch, name, got, expected, args, kwargs):
    """The parts of a result that ties cannot change: the values of (values, indices), the values argsort picks."""
    if isinstance(expected, (tuple, list)) and len(expected) == 2 and isinstance(got, (tuple, list)):
        return got[0], expected[0]
    if name == "argsort" and isinstance(expected, torch.Tensor) and isinstance(got, torch.Tensor):
        x = args[0]
        dim = kwargs.get("dim", args[1] if len(args) > 1 and isinstance(args[1], int) else -1)
        if x.dim() == 0:
            return got, expected
        return torch.take_along_dim(x, got, dim), torch.take_along_dim(x, expected, dim)
    return got, expected


def _describe(torch, args, kwargs) -> str:
    def one(v):
        if isinstance(v, torch.Tensor):
            return f"T{tuple(v.shape)}{'' if v.is_contiguous() else 'nc'}"
        if isinstance(v, (list, tuple)):
            return "[" + ", ".join(one(x) for x in v) + "]"
        return repr(v)[:40]
    return ", ".join([one(a) for a in args] + [f"{k}={one(v)}" for k, v in kwargs.items()])


def _worker(conn, variant_filter, verbose):
    import torch

    _lighter_sampling(torch)  # once per worker process: it patches torch's modules
    while True:
        name = conn.recv()
        if name is None:
            return
        try:
            conn.send(run_op(name, variant_filter, verbose))
        except Exception:  # noqa: BLE001
            conn.send({"counts": {"runner_error": 1}, "examples": {name: [traceback.format_exc()[-300:]]}})


def shared_names() -> list[str]:
    import yaten
    from torch.testing._internal.common_methods_invocations import op_db

    names = []
    for opinfo in op_db:
        if opinfo.name in SKIP or opinfo.name.startswith(("_", "sparse.", "masked.", "jiterator")):
            continue
        if variants(yaten, opinfo) and opinfo.name not in names:
            names.append(opinfo.name)
    return names


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("ops", nargs="*")
    parser.add_argument("--variant", choices=("function", "method", "inplace"))
    parser.add_argument("--json")
    parser.add_argument("--worst", type=int, default=40)
    parser.add_argument("--jobs", type=int, default=2, help="worker processes (ops run in parallel)")
    args = parser.parse_args()
    names = args.ops or shared_names()
    verbose = bool(args.ops)
    ctx = mp.get_context("spawn")
    totals: Counter = Counter()
    per_op: dict[str, dict] = {}
    pending = list(names)
    busy: dict = {}  # connection -> (process, op name, start time)

    def start_worker():
        conn, child = ctx.Pipe()
        proc = ctx.Process(target=_worker, args=(child, args.variant, verbose), daemon=True)
        proc.start()
        return conn, proc

    idle = [start_worker() for _ in range(max(1, min(args.jobs, len(names))))]
    while pending or busy:
        while pending and idle:
            conn, proc = idle.pop()
            name = pending.pop(0)
            conn.send(name)
            busy[conn] = (proc, name, time.monotonic())
        ready = mp.connection.wait(list(busy), timeout=5)
        for conn in ready:
            proc, name, _ = busy.pop(conn)
            try:
                result = conn.recv()
            except (EOFError, ConnectionResetError):  # the worker died: a crash on this op
                proc.join(1)
                result = {"counts": {"crash": 1}, "examples": {name: [f"worker exit code {proc.exitcode}"]}}
                idle.append(start_worker())
            else:
                idle.append((conn, proc))
            per_op[name] = result
            totals.update(result["counts"])
        for conn, (proc, name, began) in list(busy.items()):  # an op that hangs counts as a crash
            if time.monotonic() - began > 600:
                proc.kill()
                busy.pop(conn)
                per_op[name] = {"counts": {"crash": 1}, "examples": {name: ["no answer in 600 s"]}}
                totals.update(per_op[name]["counts"])
                idle.append(start_worker())
    for conn, proc in idle:
        conn.send(None)
    per_op = {name: per_op[name] for name in names}  # the report in op_db's order, however the workers finished
    runnable = totals["runnable"]
    agree = totals["agree"]
    print(f"{len(names)} op names shared; {runnable} runnable cases, {agree} agree "
          f"({100 * agree / max(1, runnable):.2f}%), {totals['differ']} differ, {totals['crash']} crashes, "
          f"{totals['unconvertible']} not convertible, {totals['runner_error']} runner errors")
    fully = sum(1 for r in per_op.values() if r["counts"].get("runnable") and
                r["counts"].get("agree", 0) == r["counts"]["runnable"] and not r["counts"].get("crash"))
    print(f"{fully} op names agree on every case")
    worst = sorted(per_op.items(), key=lambda kv: -(kv[1]["counts"].get("differ", 0) + 1000 * kv[1]["counts"].get(
        "crash", 0)))
    for name, r in worst[:args.worst]:
        c = r["counts"]
        if not (c.get("differ") or c.get("crash") or c.get("runner_error")):
            break
        print(f"{name:40s} differ {c.get('differ', 0):5d} of {c.get('runnable', 0):5d}"
              f"{'  CRASH' if c.get('crash') else ''}")
        for key, whys in list(r["examples"].items())[:3]:
            print(f"    {key}: {whys[0][:200]}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"totals": dict(totals), "ops": per_op}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
