"""Which ops run on CUDA, written down and kept true: every op with a CPU kernel also has a CUDA kernel, or is named
below. CompositeImplicit ops run wherever the ops they call do. No GPU needed: this reads ops.yaml."""

from __future__ import annotations

from pathlib import Path

from codegen import parse

OPS = parse.load(Path(__file__).resolve().parent.parent / "ops.yaml").ops
BY_NAME = {op.schema.full_name: op for op in OPS}

# Ops that cannot run on a GPU. (from_numpy and numpy() are CPU-only by nature, but they are not ops of ops.yaml.)
CPU_ONLY: set[str] = set()

# Ops whose CUDA kernel is still to be written. Remove a name when its kernel lands.
# _layer_norm_fused, _group_norm_fused: layer_norm and group_norm on CUDA compose CUDA ops (kernels/composite/norm.h)
# until fused kernels exist; _sum_of_squares: linalg.vector_norm's 2-norm on CUDA is mul and sum
# (kernels/composite/reductions.h); _unique_consecutive: unique_consecutive on CUDA composes CUDA ops
# (yaten/_torch_functions.py), and _bincount_counts bincount likewise.
# _flash_attention(_backward): scaled_dot_product_attention on CUDA composes CUDA ops (kernels/composite/attention.h)
# until cuDNN's fused attention is wired (the attention issue).
# _softmax_backward_fused: softmax's and log_softmax's gradients on CUDA compose CUDA ops (autograd/formulas.cpp).
# The LAPACK factorizations that cuSOLVER does not cover here yet (kernels/cuda/solver.cuh has the others): on a CUDA
# tensor they raise NotImplementedError naming the op (no silent copy to the CPU).
LAPACK = {"_linalg_eig", "linalg_ldl_factor_ex", "linalg_ldl_solve"}
NOT_YET_ON_CUDA: set[str] = {"_layer_norm_fused", "_layer_norm_backward_fused", "_group_norm_fused", "_sum_of_squares",
                              "_unique_consecutive", "_bincount_counts", "_flash_attention",
                              "_flash_attention_backward", "_softmax_backward_fused"} | LAPACK


def test_every_op_with_a_cpu_kernel_has_a_cuda_kernel_or_is_listed():
    missing = {op.schema.full_name for op in OPS if "CPU" in op.dispatch and "CUDA" not in op.dispatch}
    unlisted = missing - CPU_ONLY - NOT_YET_ON_CUDA
    assert not unlisted, f"give these ops a CUDA kernel in ops.yaml, or list them in {__file__}: {sorted(unlisted)}"


def test_listed_ops_exist_and_still_lack_a_cuda_kernel():
    for name in CPU_ONLY | NOT_YET_ON_CUDA:
        assert name in BY_NAME, f"{name} is not an op of ops.yaml"
        assert "CUDA" not in BY_NAME[name].dispatch, f"{name} has a CUDA kernel now: take it off the list"
