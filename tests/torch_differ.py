"""Every overload of ops.yaml beside torch, on the op fuzzer's calls (issue 21's classes).

The op fuzzer (tests/op_fuzzer.py) writes each call as a short program over `T(dtype, shape, layout, fill)`:
0-dim and empty shapes, transposed, strided and expanded layouts, every dtype, int32 and int64 index fills, wrong
types, out-of-range dims and sizes, out= tensors that alias the inputs, inputs that require grad followed by a
backward pass. This module runs each program twice in one process: once as written, once with `yaten` bound to
`torch` (and `yaten.ops.yaten` to `torch.ops.aten`), and compares what came back:

- both ran: every result, every input afterwards (in-place ops and out= write into them) and every input's `.grad`
  must have the same dtype, shape and values (integers and bool exactly; floats within torch.testing's default
  tolerances, NaN equal to NaN; random and uninitialized results by dtype and shape only);
- both raised: they agree; the exception types are compared too (`error type` below, reported, not a failure);
- only one raised: a disagreement (`torch raises` when yaten returned a value, `yaten raises` the other way round).

Calls torch cannot make (the op or face does not exist in torch, or torch's process dies) are left out. Where yaten
differs from torch on purpose, `KNOWN` names the op and why (docs/torch-differences.md says the same).

    python tests/torch_differ.py --calls 20000 [--seed 0] [--workers 2] [--coverage]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import op_fuzzer  # noqa: E402

# Disagreements with torch that are deliberate (docs/torch-differences.md) or torch's own quirks:
# (overload name prefix, or *suffix, text in the finding's message or program, why).
KNOWN: tuple[tuple[str, str, str], ...] = (
    # torch.special (docs/torch-differences.md, "Special functions at their edges")
    ("special_zeta", "(nan) against torch's", "zeta(1, NaN) and zeta(s, -inf): NaN in yaten (NaN propagates; -inf is "
     "no real argument); torch's are inf"),
    ("special_zeta", "against torch's np.float64(nan)", "zeta(s, inf) = 0 and zeta(inf, q) = 0, 1 or inf (the limits); "
     "torch's are NaN"),
    ("special_zeta", "against torch's np.float32(nan)", "as above, in float32"),
    ("igamma", "(nan) against torch's", "a NaN argument gives NaN in yaten; torch's P(nan, 0) is 0 and P(nan, inf) 1"),
    ("igammac", "(nan) against torch's", "a NaN argument gives NaN in yaten; torch's Q(nan, 0) is 1 and Q(nan, inf) 0"),
    ("special_igamma", "(nan) against torch's", "as igamma"),
    ("special_gammainc", "(nan) against torch's", "as igamma"),
    ("special_gammaincc", "(nan) against torch's", "as igammac"),
    ("special_chebyshev_polynomial", "(nan) against torch's", "a NaN x, or a NaN or +inf degree, gives NaN in yaten; "
     "torch's gives 1 for some degrees at NaN x, and casts a NaN or inf degree to a negative integer (0)"),
    ("special_chebyshev_polynomial", "inf) against torch's", "an overflow is ±inf in yaten's closed forms; torch's "
     "recurrence turns it into inf - inf, NaN"),
    ("special_shifted_chebyshev_polynomial", "(nan) against torch's", "as the Chebyshev polynomials"),
    ("special_shifted_chebyshev_polynomial", "inf) against torch's", "as the Chebyshev polynomials"),
    ("special_hermite_polynomial", "(nan) against torch's", "a NaN or +inf degree gives NaN in yaten; torch casts it "
     "to a negative integer (0)"),
    ("special_laguerre_polynomial_l", "(nan) against torch's", "a NaN x, or a NaN or +inf degree, gives NaN in yaten; "
     "torch's gives 0 or 1 by the degree"),
    ("special_legendre_polynomial_p", "(nan) against torch's", "a NaN x, or a NaN or +inf degree, gives NaN in yaten; "
     "torch's gives 0 or 1 by the degree"),
    # linear algebra (docs/linalg.md)
    ("linalg_", "no CPU kernel for dtype", "torch returns empty results for an empty integer, bool or float16 matrix before it checks the dtype; yaten's LAPACK kernels refuse the dtype whatever the shape"),
    ("linalg_", "Expected a floating point or complex tensor as input", "torch returns empty results for an empty integer, bool or float16 matrix before it checks the dtype; yaten's LAPACK kernels refuse the dtype whatever the shape"),
    ("cholesky", "no CPU kernel for dtype", "torch returns empty results for an empty integer, bool or float16 matrix before it checks the dtype; yaten's LAPACK kernels refuse the dtype whatever the shape"),
    ("cholesky", "must have at least 2 dimensions", "torch.cholesky takes an empty 1-D tensor"),
    ("svd", "differs at", "singular and eigen vectors are unique up to sign (phase): MKL's and OpenBLAS's LAPACK pick differently (docs/torch-differences.md)"),
    ("linalg_svd", "differs at", "singular and eigen vectors are unique up to sign (phase): MKL's and OpenBLAS's LAPACK pick differently (docs/torch-differences.md)"),
    ("linalg_eig", "r[1]", "singular and eigen vectors are unique up to sign (phase): MKL's and OpenBLAS's LAPACK pick differently (docs/torch-differences.md)"),
    ("geqrf", "the derivative for 'geqrf' is not implemented", "torch records a node that raises; yaten marks "
     "geqrf's outputs not differentiable (backward of them raises too)"),
    ("geqrf", "r[0]", "the reflectors of a column already zero below the diagonal are rounding noise in OpenBLAS's "
     "geqrf (exact zeros in MKL's) on rank-deficient samples; tests/test_linalg_lapack.py compares random ones"),
    ("linalg_lu_factor_ex", "against torch's np.float64(nan)", "LU of a matrix with infinities: MKL and OpenBLAS "
     "pivot and round non-finite entries differently"),
    ("linalg_lu_factor_ex", "a0.grad", "the LU gradient of a wide singular matrix: the columns right of the square "
     "part get L^-H gU2, finite (yaten); torch's formula passes them through U's singular square part (NaN)"),
    ("_linalg_det", "inf) against torch's", "the determinant of a matrix with infinities: LU pivoting differs"),
    ("linalg_lu_factor", "is zero and using it on lu_solve", "LU of a matrix with infinities or NaNs: MKL finds no "
     "zero pivot where OpenBLAS does"),
    ("cholesky", "must be batches of square matrices", "torch.cholesky takes an empty non-square matrix"),
    ("qr", "torch's np.float32(nan)", "QR of a matrix with infinities: MKL and OpenBLAS round non-finite entries "
     "differently"),
    ("linalg_qr", "torch's np.float32(nan)", "as qr"),
    ("pinverse", "differs at", "rcond <= 0 (or tiny) inverts the rounding-noise singular values of a rank-deficient "
     "matrix: 1e16-sized values no two LAPACKs agree on"),
    ("linalg_pinv", "differs at", "as pinverse, for atol = rtol = 0 or negative"),
    ("linalg_matrix_rank", "differs at", "a zero (or negative) tolerance counts the rounding-noise singular values of "
     "a rank-deficient matrix, which differ between LAPACKs"),
    ("linalg_ldl_factor", "differs at", "Bunch-Kaufman pivoting: MKL and OpenBLAS choose other (equally valid) 1x1 "
     "and 2x2 blocks for some matrices"),
    ("linalg_cond", "np.float64(inf) against", "the condition number of a singular matrix: inf, or a huge number from "
     "the rounding of its zero singular value"),
    ("linalg_cond", "np.float32(inf) against", "as for float64"),
    ("linalg_cond", "against torch's np.float32(inf)", "as for float64: here torch's zero singular value is exact and "
     "OpenBLAS's is rounding noise"),
    ("linalg_cond", "against torch's np.float64(inf)", "as for float32"),
    ("qr", "'ones')\nr = yaten.qr(", "QR of a matrix of ones (rank 1): Q's columns past the rank are any orthonormal "
     "completion, which MKL and OpenBLAS pick differently (R and Q @ R agree)"),
    ("lu_unpack", "tril: input tensor must have at least 2 dimensions", "torch's lu_unpack backward fails when "
     "unpack_data=False (its L and U are empty); yaten's gives no gradient"),
    ("linalg_matrix_rank", "invalid combination of arguments", "yaten's matrix_rank is one function taking tol or "
     "atol and rtol, the unused ones None; torch's overloads refuse tol beside atol=None"),
    ("linalg_pinv", "invalid combination of arguments", "as matrix_rank, for rcond beside atol or rtol None"),
    ("cummax", "dimension out of range", "torch checks no dim when the input is empty (cummax(empty, dim=5))"),
    ("cummin", "dimension out of range", "torch checks no dim when the input is empty"),
    ("broadcast_tensors", "but got list", "yaten's broadcast_tensors also takes one list of tensors"),
    ("copy_", "copy_(src=", "torch's Tensor.copy_ binding does not take src= by keyword (its parser says 'other')"),
    ("where", "expected condition to be a boolean tensor", "yaten refuses the uint8 condition torch deprecates"),
    ("var_mean", "(nan)", "var_mean's mean of both infinities: torch's Welford update gives NaN, yaten the mean's -inf/inf"),
    ("std_mean", "(nan)", "as var_mean"),
    ("floor_divide", "derivative for aten::floor_divide is not implemented",
     "yaten's floor_divide has the zero gradient of div(rounding_mode='floor'); torch raises"),
    ("silu_backward", "derivative for aten::silu_backward is not implemented",
     "yaten's silu_backward has its own derivatives (silu's double backward goes through it); torch's raises"),
    ("", "must be tuple of ints, not int", "a bare int stands for a one-element int list in every yaten binding "
     "(torch.flip(t, 0) and torch.empty(size=3) refuse it; t.flip(0) and torch.empty(3) take it)"),
    ("roll", "dimension out of range", "torch checks no dim when the input is empty"),
    ("full", "cannot be converted to type float16 without overflow", "torch fills a one-element float16 or "
     "bfloat16 tensor with a value past its range as inf and refuses it for two elements; yaten always refuses"),
    ("full", "cannot be converted to type bfloat16 without overflow", "as for float16"),
    ("embedding", "yaten.ops.yaten.embedding", "yaten's op takes (input, weight) as F.embedding does; "
     "torch.ops.aten.embedding takes (weight, indices)"),
    ("scatter_reduce", "reduce argument must be either", "torch's scatter_reduce ignores an unknown reduce in some "
     "calls (returns self); yaten refuses it"),
    ("normal", "got (float, float, int)", "a bare int stands for a one-element size (yaten.normal(0., 1., 2))"),
    ("view", "got (size=int, )", "a bare int stands for a one-element size (t.view(size=-1))"),
    ("split", "unexpected keyword argument 'split_size'", "torch.split spells it split_size_or_sections; yaten's "
     "function also takes Tensor.split's split_size"),
    ("topk", "r[1]: int64", "ties: torch documents no order among equal values (yaten's is the first occurrence); "
     "the values agree"),
    ("kthvalue", "r[1]: int64", "ties, as topk"),
    ("mode", "against torch's np.float32(nan)", "a row with NaNs: torch's mode sorts with a comparison NaN breaks"),
    ("gelu", "np.float32(inf) against torch's np.float32(nan)", "torch's bfloat16 gelu gives NaN at inf (its "
     "vectorized erf); yaten gives inf, as float32 does in both"),
    ("pow", "1e-300", "yaten converts a number exponent to the tensor's dtype (1e-300 is 0 in float32, so x ** 0 = 1); "
     "torch keeps it in double (NaN for a negative x)"),
    ("bernoulli", "derivative for aten::bernoulli is not implemented", "yaten's bernoulli has the zero gradient "
     "derivatives.yaml gives it; torch's autograd kernel for bernoulli.p refuses"),
    ("bernoulli_", "Autograd not support dtype", "torch's bernoulli_ into an integer tensor records a graph whose "
     "backward then fails; yaten's result is a plain tensor"),
    ("addcdiv", "can't be cast to the desired output type Bool", "torch's backward makes a gradient for a bool "
     "tensor2 that does not require grad, and fails casting it"),
    ("unique_dim", "derivative for 'unique_dim' is not implemented", "yaten's unique(dim=) is a composite of sorts "
     "and gathers, and differentiates through them"),
    ("nan_to_num", "refers to a single memory location", "torch's nan_to_num of an integer tensor is a copy that "
     "skips the overlap checks (into an expanded self, or an out= sharing self's memory); yaten checks as for floats"),
    ("nan_to_num", "refer to a single memory location", "as above"),
    ("", "negative dimensions are not allowed", "torch returns a tensor with a negative size (_adaptive_avg_pool2d "
     "with output_size [0, -1], expand(t, [0, -2]): its bug); the harness cannot read it"),
    ("*Scalar_out", "Expected out tensor to have dtype", "torch.ops.aten's Scalar_out overloads refuse an out= of another "
     "dtype, while torch.add(t, 2, out=...) casts into it; yaten's Scalar_out is what the Python call reaches"),
    ("*Scalar_out", "single memory location", "torch.ops.aten's Scalar_out overloads compute aside and copy, so an out= "
     "overlapping the input passes there (not through torch.add(t, 2, out=...)); yaten checks as for the Tensor form"),
    ("movedim", "list, int)", "a bare int stands for a one-element list"),
    ("contiguous", "must be torch.memory_format, not NoneType", "yaten's contiguous takes memory_format=None for its "
     "default, contiguous_format (torch's schema has no None there)"),
    ("randint", "received an invalid combination of arguments", "a bare int stands for a one-element size "
     "(randint(3, 2), size=3)"),
    ("topk", "sorted=False", "the order of an unsorted topk is unspecified"),
    ("searchsorted", "'special')", "a sorted_sequence holding NaN is not sorted: no answer is defined"),
    ("bucketize", "'special')", "boundaries holding NaN are not sorted: no answer is defined"),
    ("repeat_interleave", "repeat_interleave_cpu\" not implemented for", "yaten takes repeats of any integer dtype"),
    ("softmax", "no CPU kernel for dtype", "torch's softmax of an empty tensor returns before it looks at the dtype"),
    ("log_softmax", "no CPU kernel for dtype", "as softmax"),
    ("normal_", "no CPU kernel for dtype", "torch's normal_ of an empty tensor returns before it looks at the dtype"),
    ("hardtanh", ".grad: ", "torch's hardtanh gradient at a NaN bound or a NaN input depends on where the element "
     "falls: 0 in its vectorized loop, the gradient in the scalar tail; yaten gives the tail's answer everywhere"),
    ("clip", "doesn't match the broadcast shape", "torch's clamp backward fails when a bound that requires grad "
     "broadcasts the input to an empty shape; yaten gives the empty gradient"),
    ("clamp", "doesn't match the broadcast shape", "as clip"),
    *((op, "grad: tensor against torch's scalar", "out= of a comparison into a view of an input that is itself a "
       "leaf view (T() makes views): torch sends the gradient to that view's base, which does not require grad; "
       "yaten to the input") for op in ("eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor",
                                        # the special functions without a gradient: the same out= into a leaf view
                                        "special_airy_ai", "special_bessel_", "special_modified_bessel_k",
                                        "special_scaled_modified_bessel_k", "special_spherical_bessel_j0",
                                        "special_chebyshev_polynomial", "special_shifted_chebyshev_polynomial",
                                        "special_hermite_polynomial", "special_laguerre_polynomial_l",
                                        "special_legendre_polynomial_p")),
    ("i0", "(inf) against torch's", "I0 at +-inf is inf (its limit); torch's Chebyshev form gives NaN "
     "(docs/torch-differences.md, Special functions at their edges)"),
    ("special_i1", "inf) against torch's", "as i0: I1 is +-inf at +-inf, torch's NaN"),
    ("polygamma", "against torch's np.float", "polygamma's limits where torch's series give NaN or finite values: "
     "0 at +inf, +-inf at the poles (also for orders past 170, whose n! overflows), trigamma's poles "
     "(docs/torch-differences.md)"),
    ("digamma", "(inf) against torch's", "digamma's gradient is trigamma, inf at the poles where torch's is finite"),
    ("heaviside", "derivative for aten::heaviside is not implemented", "yaten's heaviside has the gradients of a "
     "step: zero for self, 1 for values where self is 0; torch raises"),
    ("log_softmax", "r: float16[", "torch's float16 log_softmax rounds intermediate steps: -0.12732 for "
     "-log(1 + e^-2) = -0.126928, whose nearest float16 is yaten's -0.12695 (one rounding from float32)"),
    ("sgn", "ZeroTensor", "torch's gradient of sgn of a real tensor is its ZeroTensor, which the harness cannot "
     "read; yaten's is a tensor of zeros"),
    ("remainder", "derivative for aten::remainder is not implemented", "yaten's remainder(number, t) differentiates "
     "through remainder.Tensor (d/dother = -floor(self / other)); torch's Scalar_Tensor overload has no derivative"),
    ("*Scalar_Tensor_out", "Expected out tensor to have dtype", "as Scalar_out: torch.ops.aten's overloads refuse an "
     "out= of another dtype; yaten's cast into it, as torch.pow(2, t, out=o) does"),
    ("*Scalar_Tensor_out", "single memory location", "as Scalar_out"),
    ("*Scalar_Tensor_out", "received an invalid combination of arguments", "torch's Python functions take no out= "
     "with a number self for the bitwise ops and remainder (torch.ops.aten's overloads do); yaten's functions do"),
    ("", "got (out=Tensor, other=Tensor, self=Tensor, )", "as above: self= names the number of the Scalar_Tensor "
     "overload, which takes out= in yaten"),
    ("randint", "against torch's float32", "torch.ops.aten.randint with dtype=None makes the default float dtype; "
     "torch.randint and yaten make int64"),
    ("pad", "not mode '", "yaten's pad op pads with a constant; the other modes are yaten.nn.functional.pad's (the "
     "ops reflection_pad*, replication_pad* and _pad_circular)"),
    ("_pad_circular", "differs at", "torch leaves elements uninitialized when a dim is padded on one side and cropped "
     "on the other (pad=[.., 2, -2]); yaten wraps around"),
    ("", "SymIntArrayRef expected to contain only concrete integers", "torch cannot take -2**63 in a size (its "
     "symbolic-int sentinel)"),
    ("pow.Scalar_out", "can't be cast to the desired output type", "torch's pow(1, t, out=o) fills o with ones "
     "without its dtype check"),
    ("view.dtype", "'special'", "the bits of NaN: yaten's float16/bfloat16 NaN is the canonical quiet NaN, torch's "
     "vectorized conversion may give another"),
    ("masked_fill_", "single memory location", "torch warns (deprecated) and writes into an expanded self; yaten "
     "refuses, as for every in-place op"),
    ("", "Storage size calculation overflowed", "a size whose product with the sizes before it overflows, beside a "
     "0: yaten makes the empty tensor the sizes describe (tests/test_reliability.py)"),
    ("expand", "numel: integer multiplication overflow", "as above, for expand's sizes: a size whose product with "
     "the others overflows, beside a 0, gives yaten the empty view"),
    ("std", "(inf) against torch's", "the std of float32 values past 1.8e19: yaten's variance is a float32 (inf) "
     "before its square root; torch takes the root in double"),
    ("_embedding_bag", "r[1]", "torch's CPU kernel leaves offset2bag empty on its fast paths (sum mode, float16); "
     "yaten fills it as torch's general path does"),
    ("_embedding_bag", "r[2]", "as r[1]: torch leaves bag_size zero on its fast paths"),
    ("_embedding_bag", "r[3]", "as r[1]: torch leaves max_indices zero on its fast paths"),
    ("fft_", "MKL FFT error", "torch's CPU build transforms with oneMKL, which refuses a batch of no signals; yaten "
     "returns the empty result, as NumPy does"),
)

# Disagreements found and not fixed yet: (overload, outcome) pairs from the seeded run the test makes. The test fails
# on any new pair, which is then fixed, or listed in KNOWN with its reason if the difference is deliberate
# (`python tests/torch_differ.py --calls 12000 --per-kind 8 --op yaten::NAME` shows calls). Empty after round 4 of
# issue 21; the pairs below appeared when each overload got a random stream of its own (op_fuzzer.op_writer, so that
# a new op no longer changes the calls every other op gets): older ops met with new draws. None is about complex
# numbers or FFTs.
OPEN: frozenset[tuple[str, str]] = frozenset({
    ("_unique2", "values differ"),
    ("gather", "yaten raises"),
    ("movedim.intlist", "torch raises"),
    ("randn", "torch raises"),
})

# Ops whose values depend on a random stream or on uninitialized memory: compared by dtype and shape only.
UNCHECKED_VALUES = ("empty", "empty_like", "empty_strided", "new_empty", "new_empty_strided", "resize_")

WORKER = op_fuzzer.PRELUDE + r'''
import json
import re
import numpy as np
import torch
torch.set_num_threads(1)

def make_T(lib):
    # The fuzzer's helper, over `lib`: its source refers to the global name `yaten`.
    scope = {"yaten": lib, "math": math, "nan": nan, "inf": inf}
    exec(T_SOURCE, scope)
    return scope["T"]

def G(t):
    return t.requires_grad_() if t.is_floating_point() else t

def backward_any(r):
    for x in r if isinstance(r, (tuple, list)) else [r]:
        if hasattr(x, "requires_grad") and x.requires_grad:
            x.sum().backward(retain_graph=True)

TOL = {"float16": (1e-3, 1e-5), "bfloat16": (1.6e-2, 1e-5), "float32": (1.3e-6, 1e-5), "float64": (1e-7, 1e-7),
       "complex64": (1.3e-6, 1e-5), "complex128": (1e-7, 1e-7)}

def summary(value, with_values):
    """A library-neutral picture of a result: tensors as (dtype, shape, NumPy values), sequences element-wise."""
    if isinstance(value, (yaten.Tensor, torch.Tensor)):
        dtype = str(value.dtype).split(".")[-1]
        shape = tuple(int(d) for d in value.shape)
        values = None
        if with_values and value.numel() <= 1 << 20 and all(d < 1 << 31 for d in shape):
            v = value.detach().cpu()
            if dtype in ("bfloat16", "float16"):
                v = v.float()
            if isinstance(v, torch.Tensor):
                v = v.resolve_conj()  # torch's conj() is a lazy view; yaten's is computed
            values = v.numpy().copy() if isinstance(v, torch.Tensor) else np.asarray(v.numpy()).copy()
        return ("tensor", dtype, shape, values)
    if isinstance(value, (tuple, list)) and not isinstance(value, str):
        if value and all(isinstance(x, int) and not isinstance(x, bool) for x in value):
            return ("ints", tuple(value))
        return ("seq", tuple(summary(x, with_values) for x in value))
    if isinstance(value, (bool, int, float, complex, str, type(None))):
        return ("scalar", value)
    if isinstance(value, (yaten.dtype, torch.dtype)):
        return ("dtype", str(value).split(".")[-1])
    return ("other", type(value).__name__)

def differ(a, b, where):
    """None when the pictures agree, else what differs."""
    if a[0] != b[0]:
        return f"{where}: {a[0]} against torch's {b[0]}"
    if a[0] == "seq":
        if len(a[1]) != len(b[1]):
            return f"{where}: {len(a[1])} elements against torch's {len(b[1])}"
        for i, (x, y) in enumerate(zip(a[1], b[1])):
            d = differ(x, y, f"{where}[{i}]")
            if d:
                return d
        return None
    if a[0] == "tensor":
        _, dtype, shape, values = a
        if dtype != b[1] or shape != b[2]:
            return f"{where}: {dtype}{list(shape)} against torch's {b[1]}{list(b[2])}"
        if values is None or b[3] is None:
            return None
        x, y = values, b[3]
        if dtype in TOL:
            rtol, atol = TOL[dtype]
            close = np.isclose(x, y, rtol=rtol, atol=atol, equal_nan=True)
        else:
            close = x == y
        if not np.all(close):
            bad = np.argwhere(~close)[0] if x.ndim else ()
            k = tuple(int(i) for i in bad)
            return f"{where}: {dtype}{list(shape)} differs at {list(k)}: {x[k]!r} against torch's {y[k]!r}"
        return None
    if a[0] == "scalar" and isinstance(a[1], float) and isinstance(b[1], float):
        if (math.isnan(a[1]) and math.isnan(b[1])) or math.isclose(a[1], b[1], rel_tol=1e-6, abs_tol=1e-9):
            return None
    return None if a == b else f"{where}: {a!r} against torch's {b!r}"

def attempt(lib, code, with_values):
    """(outcome, pictures of r and the inputs, the inputs' kinds)."""
    scope = {"yaten": lib, "T": TS[lib], "G": G, "backward": backward_any, "nan": nan, "inf": inf}
    lib.manual_seed(0)
    try:
        exec(code, scope)
    except Exception as e:  # noqa: BLE001
        return ("error", type(e).__name__, str(e).splitlines()[0][:200] if str(e) else ""), None, None
    pictures, kinds = [], set()
    names = sorted(n for n in scope if n == "r" or (n.startswith("a") and n[1:].isdigit()))
    for n in names:
        v = scope[n]
        pictures.append((n, summary(v, with_values)))
        if n != "r" and isinstance(v, (yaten.Tensor, torch.Tensor)):
            pictures.append((n + ".grad", summary(v.grad, with_values)))
    return ("result",), pictures, None

def kinds_of(code):
    """What the call's inputs were: 0-dim, empty, non-contiguous (read from the yaten tensors it makes)."""
    scope = {"yaten": yaten, "T": TS[yaten], "G": G, "nan": nan, "inf": inf}
    kinds = set()
    for expr in re.findall(r"T\('\w+', \([^)]*\), '\w+', '\w+'(?:, 'cuda')?\)", code):
        try:
            t = eval(expr, scope)
        except Exception:  # noqa: BLE001
            continue
        if t.dim() == 0:
            kinds.add("0-dim")
        if t.numel() == 0:
            kinds.add("empty")
        if t.numel() > 1 and not t.is_contiguous():
            kinds.add("non-contiguous")
        if t.dtype == yaten.int32:
            kinds.add("int32")
    return sorted(kinds)

def compare(code, with_values, by_name):
    if "'meta'" in code:  # torch makes tensors without data there; yaten has no meta device
        return {"outcome": "no torch op", "message": "meta device", "kinds": []}
    mine, my_pictures, _ = attempt(yaten, code, with_values)
    theirs, their_pictures, _ = attempt(torch, code.replace("yaten.ops.yaten.", "yaten.ops.aten."), with_values)
    kinds = kinds_of(code)
    if theirs[0] == "error" and theirs[1] == "AttributeError":
        return {"outcome": "no torch op", "message": theirs[2], "kinds": kinds}
    if mine[0] == "error" and theirs[0] == "error":
        if mine[1] != theirs[1]:
            return {"outcome": "error type", "message": f"{mine[1]}: {mine[2]} | torch {theirs[1]}: {theirs[2]}",
                    "kinds": kinds}
        return {"outcome": "both raise", "kinds": kinds}
    if by_name and ((theirs[0] == "error" and theirs[2].startswith(SCHEMA_ERRORS))
                    or (mine[0] == "error" and mine[1] in ("TypeError", "ValueError"))):
        # torch.ops.aten's boxed calls check types their own way (a dtype passes for an int, a 0-dim tensor
        # not for a number), some schemas differ (randint.low has no generator=), and torch checks some values
        # in its Python functions only (F.hardtanh's min_val <= max_val): the functions are compared
        return {"outcome": "schema differs", "message": f"{mine} | torch {theirs}", "kinds": kinds}
    if mine[0] == "error":
        return {"outcome": "yaten raises", "message": f"{mine[1]}: {mine[2]}", "kinds": kinds}
    if theirs[0] == "error":
        return {"outcome": "torch raises", "message": f"{theirs[1]}: {theirs[2]}", "kinds": kinds}
    for (name, a), (_, b) in zip(my_pictures, their_pictures):
        d = differ(a, b, name)
        if d:
            return {"outcome": "values differ", "message": d, "kinds": kinds}
    return {"outcome": "both ran", "kinds": kinds}

SCHEMA_ERRORS = ("Unknown keyword argument", "Expected a value of type", "aten::")
TS = {yaten: make_T(yaten), torch: make_T(torch)}
out = sys.stdout
sys.stdout = sys.stderr
for line in sys.stdin:
    request = json.loads(line)
    try:
        answer = compare(request["code"], request["values"], request["by_name"])
    except Exception as e:  # noqa: BLE001 (a failure of the comparison itself is reported, not hidden)
        answer = {"outcome": "harness", "message": f"{type(e).__name__}: {e}"[:300], "kinds": []}
    out.write(json.dumps(answer) + "\n")
    out.flush()
'''


def _t_source() -> str:
    """The source of the fuzzer's T helper, cut from its prelude."""
    start = op_fuzzer.PRELUDE.index("def T(")
    end = op_fuzzer.PRELUDE.index("\ndef G(")
    return op_fuzzer.PRELUDE[start:end]


class DifferWorker(op_fuzzer.Worker):
    """A worker process running WORKER; a call that kills it is reported as `crash` (yaten's own crashes are the
    op fuzzer's business, so here a crash is most likely torch's)."""

    def start(self) -> None:
        import subprocess
        import tempfile

        env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", PYTHONFAULTHANDLER="1")
        code = (WORKER.replace("MEMORY_LIMIT", str(self.memory_limit))
                .replace("TS = {", f"T_SOURCE = {_t_source()!r}\nTS = {{", 1))
        self.stderr = tempfile.TemporaryFile(mode="w+")
        self.proc = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=self.stderr, text=True, env=env, cwd=ROOT)

    def run(self, call) -> dict:  # type: ignore[override]
        if self.proc is None:
            self.start()
        proc = self.proc
        name = call.op.split("::")[1].split(".")[0]
        values = name not in UNCHECKED_VALUES and "Generator" not in call.code and not call.random
        # an out= that is a view of an input (out=a0.t()) is read while written: the order decides the values
        values = values and re.search(r"out=a\d+[.\[]", call.code) is None
        proc.stdin.write(json.dumps({"code": call.code, "values": values, "by_name": call.path == "ops"}) + "\n")
        proc.stdin.flush()
        import select

        ready, _, _ = select.select([proc.stdout], [], [], self.timeout)
        if not ready:
            self.stop(kill=True)
            return {"outcome": "hang", "kinds": []}
        line = proc.stdout.readline()
        if not line:
            err = self.stop()
            return {"outcome": "crash", "message": err.strip().splitlines()[-1] if err.strip() else "", "kinds": []}
        return json.loads(line)


DISAGREEMENTS = ("torch raises", "yaten raises", "values differ", "harness", "hang")


def random_ops() -> set[str]:
    """Overloads whose results come from a random stream: any with a Generator argument, and what calls them."""
    from codegen import parse

    ops = parse.load(ROOT / "ops.yaml").ops
    names = {op.schema.name for op in ops if any(a.type.base == "Generator" for a in op.schema.arguments)}
    names |= {name + "_like" for name in names}  # rand_like, randn_like, randint_like
    return names | {"dropout", "dropout_", "rrelu", "feature_dropout", "alpha_dropout", "native_dropout"}


KINDS = ("0-dim", "empty", "non-contiguous")


class KindWriter(op_fuzzer.CallWriter):
    """The fuzzer's writer with every tensor argument of one kind: 0-dim, empty, or non-contiguous (transposed,
    strided or expanded), so that each overload meets each kind whatever the draws."""

    def __init__(self, draw_int, draw_choice, kind: str) -> None:
        super().__init__(draw_int, draw_choice, cuda=False, hostile=0)
        self.kind = kind

    def tensor(self, shape=None) -> str:
        dtype = self.choice(op_fuzzer.DTYPES) if self.chance(50) else self.choice(("float32", "float64", "int64"))
        layout = "contiguous"
        if self.kind == "0-dim":
            shape = ()
        elif self.kind == "empty":
            shape = self.choice(((0,), (3, 0), (0, 2, 3)))
        else:
            shape = self.choice(((2, 3), (3, 4), (2, 3, 4)))
            layout = self.choice(("transposed", "strided", "expanded"))
        text = f"T({dtype!r}, {shape!r}, {layout!r}, {self.choice(op_fuzzer.FILLS)!r})"
        return f"G({text})" if self.grad else text


def calls_for(count: int, seed: int, per_kind: int = 0):
    """`count` of the fuzzer's calls, and `per_kind` calls of each overload with each of KINDS."""
    calls = op_fuzzer.generate(count, seed, hostile=0)  # values compared with torch: no foreign memory or hostile objects
    if per_kind:
        import yaten
        from codegen import parse

        ops = parse.load(ROOT / "ops.yaml").ops
        for kind in KINDS:
            for op in ops:
                writer = op_fuzzer.op_writer(f"{seed + 1}:{kind}", op,
                                             lambda rng: KindWriter(rng.randint, rng.choice, kind))
                faces = op_fuzzer.faces_of(op, yaten)
                paths = sorted(faces)  # each face in turn: torch may lack one of them (F.relu6_)
                calls += [writer.call(op, {paths[i % len(paths)]: faces[paths[i % len(paths)]]})
                          for i in range(per_kind)]
    randoms = random_ops()
    for c in calls:
        name = c.op.split("::")[1].split(".")[0]
        c.random = name.rstrip("_") in randoms or name in randoms  # type: ignore[attr-defined]
    return calls


def run(calls, workers: int = 2, memory_limit: int = op_fuzzer.DEFAULT_MEMORY_LIMIT, timeout: float = 60.0):
    """[(call, outcome)] for every call, in order."""
    from concurrent.futures import ThreadPoolExecutor

    pool = [DifferWorker(memory_limit, timeout) for _ in range(workers)]
    shards = [calls[i::workers] for i in range(workers)]
    try:
        with ThreadPoolExecutor(workers) as ex:
            results = [r for shard in ex.map(lambda i: [(c, pool[i].run(c)) for c in shards[i]], range(workers))
                       for r in shard]
    finally:
        for w in pool:
            w.stop(kill=True)
    return results


def known(call, outcome) -> str | None:
    """Why a disagreement is expected (KNOWN), or None."""
    name = call.op.split("::")[1]
    text = outcome.get("message", "") + "\n" + call.code
    return next((why for prefix, match, why in KNOWN
                 if (name.endswith(prefix[1:]) if prefix.startswith("*") else name.startswith(prefix))
                 and match in text), None)


def findings(results, open_pairs: frozenset[tuple[str, str]] | None = None):
    """The disagreements that KNOWN does not explain. One library refusing a call of a private op
    (`_pdist_forward`) that the other runs is not one: torch checks those arguments in its public functions, yaten
    in the op, and each private op is compared through the public ones that call it."""
    return [(c, o) for c, o in results
            if o["outcome"] in DISAGREEMENTS and not known(c, o)
            and (c.op.split("::")[1], o["outcome"]) not in (OPEN if open_pairs is None else open_pairs)
            and not (o["outcome"] in ("yaten raises", "torch raises") and c.op.split("::")[1].startswith("_"))]


def coverage(results) -> dict[str, set[str]]:
    """{overload: the input kinds (0-dim, empty, non-contiguous, int32) it was compared with torch on}, for the
    overloads torch has that take tensors (a call torch could not make compares nothing)."""
    from codegen import parse

    takes_tensors = {f"{op.namespace}::{op.schema.full_name}" for op in parse.load(ROOT / "ops.yaml").ops
                     if any(a.type.base == "Tensor" and not (a.keyword_only and a.type.is_mutable)
                            for a in op.schema.arguments)}  # a factory's only tensor is its out=
    covered: dict[str, set[str]] = {}
    compared = ("both ran", "both raise", "error type", "schema differs")
    for c, o in results:
        if o["outcome"] == "no torch op" or c.op not in takes_tensors:
            continue
        kinds = covered.setdefault(c.op, set())
        if o["outcome"] in compared or o["outcome"] in DISAGREEMENTS:
            kinds.update(o.get("kinds", ()))
    return covered


def report(found, limit: int = 30) -> str:
    lines = []
    for c, o in found[:limit]:
        lines.append(f"--- {o['outcome']} in {c.op} ({c.path}): {o.get('message', '')}")
        lines.append(c.code)
    if len(found) > limit:
        lines.append(f"... and {len(found) - limit} more")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--per-kind", type=int, default=0, help="calls of each overload with each input kind")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--show", type=int, default=30)
    parser.add_argument("--op", help="only this overload (e.g. yaten::gather)")
    parser.add_argument("--outcome", help="only show findings of this outcome")
    parser.add_argument("--coverage", action="store_true", help="print which overloads lack a kind of input")
    parser.add_argument("--json", help="write every outcome here")
    args = parser.parse_args()
    start = time.perf_counter()
    calls = calls_for(args.calls, args.seed, args.per_kind)
    if args.op:
        calls = [c for c in calls if c.op == args.op]
    results = run(calls, args.workers)
    counts: dict[str, int] = {}
    for _, o in results:
        counts[o["outcome"]] = counts.get(o["outcome"], 0) + 1
    found = findings(results)
    print(report([f for f in found if not args.outcome or f[1]["outcome"] == args.outcome], args.show))
    by_op: dict[str, int] = {}
    for c, _ in found:
        by_op[c.op] = by_op.get(c.op, 0) + 1
    print("findings by overload:", sorted(by_op.items(), key=lambda kv: -kv[1])[:60])
    if args.coverage:
        cov = coverage(results)
        for kind in KINDS:
            missing = sorted(op for op, kinds in cov.items() if kind not in kinds)
            print(f"{kind}: {len(cov) - len(missing)} of {len(cov)} overloads compared; missing: {missing[:40]}")
    if args.json:
        Path(args.json).write_text(json.dumps([{"op": c.op, "code": c.code, **o} for c, o in results]))
    print(f"{len(calls)} calls in {time.perf_counter() - start:.0f} s: {counts}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main())
