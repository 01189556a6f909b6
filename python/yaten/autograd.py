"""yaten.autograd: reverse-mode differentiation of the ops whose ops.yaml entries declare `derivatives:`.

Tensor.backward and autograd.grad run the graph that the generated Autograd kernels record; no_grad / enable_grad /
set_grad_enabled / inference_mode switch recording off and on (thread-local); gradcheck and gradgradcheck compare
the analytical gradients with finite differences in float64.
"""

from __future__ import annotations

import functools
import threading
from typing import Any, Callable, Sequence

from . import _C

Tensor = _C.Tensor
Node = _C.Node


def _as_list(x: Any) -> list:
    if x is None:
        return []
    if isinstance(x, Tensor):
        return [x]
    return list(x)


def backward(tensors: Any, grad_tensors: Any = None, retain_graph: bool | None = None,
             create_graph: bool = False, inputs: Any = None) -> None:
    """Accumulates the gradients of `tensors` into the .grad of the leaves that require grad."""
    roots = _as_list(tensors)
    grads = _as_list(grad_tensors) or [None] * len(roots)
    if len(grads) != len(roots):
        raise RuntimeError(f"got {len(grads)} gradients for {len(roots)} tensors")
    keep = create_graph if retain_graph is None else retain_graph
    if inputs is not None:
        leaves = _as_list(inputs)
        result = _C._run_backward(roots, grads, keep, create_graph, leaves, True)
        for leaf, g in zip(leaves, result):
            if g is not None:
                leaf.grad = g if leaf.grad is None else leaf.grad + g
        return
    _C._run_backward(roots, grads, keep, create_graph, [], False)


def grad(outputs: Any, inputs: Any, grad_outputs: Any = None, retain_graph: bool | None = None,
         create_graph: bool = False, allow_unused: bool = False) -> tuple[Tensor | None, ...]:
    """The gradients of `outputs` with respect to `inputs`, returned rather than accumulated."""
    roots = _as_list(outputs)
    grads = _as_list(grad_outputs) or [None] * len(roots)
    keep = create_graph if retain_graph is None else retain_graph
    return tuple(_C._run_backward(roots, grads, keep, create_graph, _as_list(inputs), allow_unused))


class _GradMode:
    """Base of the grad-mode context managers; also usable as decorators."""

    mode: bool

    def __enter__(self) -> None:
        self.previous = _C._is_grad_enabled()
        _C._set_grad_enabled(self.mode)

    def __exit__(self, *exc: Any) -> None:
        _C._set_grad_enabled(self.previous)

    def __call__(self, fn: Callable) -> Callable:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with type(self)() if not isinstance(self, set_grad_enabled) else set_grad_enabled(self.mode):
                return fn(*args, **kwargs)
        return wrapper


class no_grad(_GradMode):
    """Ops run inside record nothing: results do not require grad."""

    mode = False


class enable_grad(_GradMode):
    """Recording on again inside a no_grad block."""

    mode = True


class set_grad_enabled(_GradMode):
    def __init__(self, mode: bool) -> None:
        self.mode = bool(mode)
        self.previous = _C._is_grad_enabled()
        _C._set_grad_enabled(self.mode)  # effective at once, as torch's function form is

    def __enter__(self) -> None:
        pass


class inference_mode(_GradMode):
    """no_grad under torch's other name (yaten has no separate inference tensors); is_inference_mode_enabled() says
    whether the innermost region on this thread enabled it."""

    def __init__(self, mode: bool = True) -> None:
        self.mode = not mode

    def __enter__(self) -> None:
        super().__enter__()
        _inference_regions().append(not self.mode)

    def __exit__(self, *exc: Any) -> None:
        _inference_regions().pop()
        super().__exit__(*exc)


_thread_state = threading.local()


def _inference_regions() -> list[bool]:
    if not hasattr(_thread_state, "inference"):
        _thread_state.inference = []
    return _thread_state.inference


def is_inference_mode_enabled() -> bool:
    """Whether this thread runs inside an enabled inference_mode region (torch.is_inference_mode_enabled)."""
    regions = _inference_regions()
    return bool(regions and regions[-1])


class _ExecutionEngine:
    """torch's `Variable._execution_engine`: what DistributedDataParallel-style code reaches for."""

    @staticmethod
    def queue_callback(callback: Callable[[], None]) -> None:
        """callback() runs once the backward pass running now has finished every node (RuntimeError outside one)."""
        _C._queue_callback(callback)


class Variable:
    """torch.autograd.Variable's one remaining use: `Variable._execution_engine.queue_callback`."""

    _execution_engine = _ExecutionEngine()


def is_grad_enabled() -> bool:
    return _C._is_grad_enabled()


def _flat_inputs(inputs: Any) -> list[Tensor]:
    return [inputs] if isinstance(inputs, Tensor) else list(inputs)


def _numerical_jacobian(fn: Callable, inputs: list[Tensor], output_index: int, eps: float) -> list[list[list[float]]]:
    """d output / d input by central differences: per input, a list (one row per input element) of output rows."""
    jac = []
    for x in inputs:
        rows = []
        if not (isinstance(x, Tensor) and x.requires_grad):
            jac.append(rows)
            continue
        flat = x.detach().reshape(-1)
        for k in range(flat.numel()):
            orig = float(flat[k].item())
            # flat is a detached view: writing it records nothing, and fn runs as it normally would (gradgradcheck's
            # fn itself differentiates)
            flat[k] = orig + eps
            plus = _outputs(fn, inputs)[output_index].detach().reshape(-1).tolist()
            flat[k] = orig - eps
            minus = _outputs(fn, inputs)[output_index].detach().reshape(-1).tolist()
            flat[k] = orig
            rows.append([(p - m) / (2 * eps) for p, m in zip(plus, minus)])
        jac.append(rows)
    return jac


def _outputs(fn: Callable, inputs: list[Tensor]) -> list[Tensor]:
    out = fn(*inputs)
    return [out] if isinstance(out, Tensor) else [o for o in out if isinstance(o, Tensor)]


def gradcheck(fn: Callable, inputs: Any, eps: float = 1e-6, atol: float = 1e-5, rtol: float = 1e-3,
              raise_exception: bool = True) -> bool:
    """Compares the gradients autograd computes for fn(*inputs) with central finite differences. Inputs that
    require grad should be float64."""
    inputs = _flat_inputs(inputs)
    diff_positions = [i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]
    diff_inputs = [inputs[i] for i in diff_positions]
    # finite differences first: they write into the inputs, which would make a recorded graph stale
    numericals = [_numerical_jacobian(fn, inputs, oi, eps) for oi in range(len(_outputs(fn, inputs)))]
    outputs = _outputs(fn, inputs)
    for oi, out in enumerate(outputs):
        if not out.dtype.is_floating_point:
            continue
        numerical = numericals[oi]
        n_out = out.numel()
        for j in range(n_out):  # one backward per output element: a row of the analytical Jacobian
            if out.requires_grad:
                seed = _C.zeros(tuple(out.shape), dtype=out.dtype)
                seed.reshape(-1)[j] = 1.0
                grads = grad([out], diff_inputs, [seed], retain_graph=True, allow_unused=True)
            else:  # no graph: autograd says the output does not depend on the inputs
                grads = [None] * len(diff_inputs)
            for x, g, num in zip(diff_inputs, grads, [numerical[i] for i in diff_positions]):
                analytical = [0.0] * x.numel() if g is None else g.reshape(-1).tolist()
                for k in range(x.numel()):
                    a, n = analytical[k], num[k][j]
                    if abs(a - n) > atol + rtol * abs(n):
                        if raise_exception:
                            raise RuntimeError(f"gradcheck: Jacobian mismatch for output {oi} element {j} with "
                                               f"respect to input element {k}: numerical {n}, analytical {a}")
                        return False
    return True


def gradgradcheck(fn: Callable, inputs: Any, grad_outputs: Any = None, eps: float = 1e-6, atol: float = 1e-5,
                  rtol: float = 1e-3, raise_exception: bool = True) -> bool:
    """gradcheck of (inputs, grad_outputs) -> gradients of fn computed with create_graph=True: the second
    derivatives, with respect to the inputs and to the incoming gradients (random ones unless given), as torch's
    gradgradcheck checks them."""
    inputs = _flat_inputs(inputs)
    outputs = _outputs(fn, inputs)
    if grad_outputs is None:
        generator = _C.Generator().manual_seed(0)
        seeds = [_C.randn(list(o.shape), generator=generator, dtype=o.dtype) for o in outputs]
    else:
        seeds = _as_list(grad_outputs)
    seeds = [s.detach().requires_grad_() if s.dtype.is_floating_point else s for s in seeds]
    count = len(inputs)

    def first_grads(*xs: Tensor) -> tuple:
        values, gs_in = list(xs[:count]), list(xs[count:])
        outs = _outputs(fn, values)
        wrt = [x for x in values if isinstance(x, Tensor) and x.requires_grad]
        gs = grad(outs, wrt, gs_in, create_graph=True, allow_unused=True)
        return tuple(g for g in gs if g is not None)

    return gradcheck(first_grads, inputs + seeds, eps=eps, atol=atol, rtol=rtol, raise_exception=raise_exception)


__all__ = ["Node", "backward", "enable_grad", "grad", "gradcheck", "gradgradcheck", "inference_mode",
           "is_grad_enabled", "no_grad", "set_grad_enabled"]
