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


# ------------------------------------------------------------------------------------------------ custom Functions
class FunctionCtx:
    """What a Function's forward (or setup_context) leaves for its backward: save_for_backward / saved_tensors,
    needs_input_grad, mark_dirty, mark_non_differentiable, set_materialize_grads, and any attribute it sets."""

    def __init__(self) -> None:
        self._saved: tuple = ()
        self._dirty: tuple = ()
        self._non_differentiable: tuple = ()
        self.materialize_grads = True
        self.needs_input_grad: tuple[bool, ...] = ()
        self._saved_entries: list = []
        self._node_in_backward: Any = None

    def save_for_backward(self, *tensors: Any) -> None:
        for t in tensors:
            if t is not None and not isinstance(t, Tensor):
                raise TypeError("save_for_backward can only save variables, but argument "
                                f"{tensors.index(t)} is of type {type(t).__name__}")
        self._saved = tensors

    def save_for_forward(self, *tensors: Any) -> None:
        self.save_for_backward(*tensors)

    @property
    def saved_tensors(self) -> tuple:
        """The tensors save_for_backward kept; RuntimeError if one was modified in place since (its version moved)."""
        out = []
        for entry in self._saved_entries:
            if entry is None:
                out.append(None)
                continue
            tensor, version, output_nr = entry
            if tensor._version != version:
                raise RuntimeError("one of the variables needed for gradient computation has been modified by an "
                                   f"inplace operation: [{tensor.dtype}, {list(tensor.shape)}] is at version "
                                   f"{tensor._version}; expected version {version} instead.")
            if output_nr is not None and self._node_in_backward is not None:
                tensor = _C._with_history(tensor, self._node_in_backward, output_nr)
            out.append(tensor)
        return tuple(out)

    def mark_dirty(self, *tensors: Tensor) -> None:
        """Tensors the forward modified in place (and returns): their history moves onto this Function's node."""
        self._dirty = tensors

    def mark_non_differentiable(self, *tensors: Tensor) -> None:
        self._non_differentiable = tensors

    def set_materialize_grads(self, value: bool) -> None:
        """With False, backward may see None for an output whose gradient did not flow (yaten passes zeros either
        way, which a backward written for None handles too)."""
        self.materialize_grads = bool(value)


class _FunctionMeta(type):
    def __init__(cls, name: str, bases: tuple, namespace: dict) -> None:
        super().__init__(name, bases, namespace)
        cls._backward_cls = type(f"{name}Backward", (), {"_forward_cls": cls})


class Function(metaclass=_FunctionMeta):
    """torch.autograd.Function: an operation with a forward and a backward of your own.

        class Exp(Function):
            @staticmethod
            def forward(ctx, x):
                y = x.exp()
                ctx.save_for_backward(y)
                return y

            @staticmethod
            def backward(ctx, grad):
                (y,) = ctx.saved_tensors
                return grad * y

        Exp.apply(x)

    forward runs without recording; its tensor outputs get a node named `<Name>Backward` whose backward is yours, one
    gradient (or None) per forward argument. The new style (forward without ctx plus setup_context(ctx, inputs,
    output)) works too. Written with differentiable ops, backward differentiates again (create_graph=True), saved
    outputs included: one is kept without its history (so the graph holds no cycle) and given back with it while the
    backward runs. A returned input that was not marked dirty comes back as an alias of it."""

    @staticmethod
    def forward(ctx: Any, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def setup_context(ctx: Any, inputs: tuple, output: Any) -> None:
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx: Any, *grad_outputs: Any) -> Any:
        raise NotImplementedError("You must implement either the backward or vjp method for your custom "
                                  "autograd.Function to use it with backward mode AD.")

    vjp = backward

    @staticmethod
    def jvp(ctx: Any, *grad_inputs: Any) -> Any:
        raise NotImplementedError("jvp: yaten has no forward-mode automatic differentiation")

    @classmethod
    def apply(cls, *args: Any, **kwargs: Any) -> Any:
        ctx = FunctionCtx()
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)
        record = _C._is_grad_enabled() and any(ctx.needs_input_grad)
        new_style = cls.setup_context is not Function.setup_context
        with no_grad():
            if new_style:
                output = cls.forward(*args, **kwargs)
            else:
                output = cls.forward(ctx, *args, **kwargs)
        if new_style:
            cls.setup_context(ctx, args, output)
        if not record:
            ctx._saved_entries = [None if t is None else (t, t._version, None) for t in ctx._saved]
            return output
        single = not isinstance(output, tuple)
        outputs = list((output,) if single else output)
        inputs = {id(a): a for a in args if isinstance(a, Tensor)}
        dirty = {id(t) for t in ctx._dirty}
        for t in ctx._dirty:
            if t.is_leaf and t.requires_grad:
                raise RuntimeError("a leaf Variable that requires grad has been used in an in-place operation.")
        for i, o in enumerate(outputs):
            if isinstance(o, Tensor) and id(o) in inputs and id(o) not in dirty:
                outputs[i] = _C._detach(o)  # an alias of the input, which gets this node as its history
        tensor_outputs = [o for o in outputs if isinstance(o, Tensor)]
        non_diff = {id(t) for t in ctx._non_differentiable}
        differentiable = [id(o) not in non_diff and (o.dtype.is_floating_point or o.dtype.is_complex)
                          for o in tensor_outputs]
        produced = {id(o): nr for nr, o in enumerate(tensor_outputs)}
        # saving an output (or the dirty input it is) would make a cycle through its node: it is kept without its
        # history, which saved_tensors gives back (the node's output) while the node's backward runs
        ctx._saved_entries = []
        for t in ctx._saved:
            if t is None:
                ctx._saved_entries.append(None)
                continue
            nr = produced.get(id(t))
            kept = _C._detach(t) if nr is not None else t
            ctx._saved_entries.append((kept, kept._version, nr if nr is not None and differentiable[nr] else None))
        arg_positions = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        edges = [a if ctx.needs_input_grad[i] else None for i, a in enumerate(args) if isinstance(a, Tensor)]
        name = cls._backward_cls.__name__

        def run_backward(grads: tuple, node: Any) -> list:
            ctx._node_in_backward = node
            try:
                result = cls.backward(ctx, *grads)
            finally:
                ctx._node_in_backward = None
            result = result if isinstance(result, tuple) else (result,)
            if len(result) < len(args):
                raise RuntimeError(f"function {name} returned an incorrect number of gradients (expected "
                                   f"{len(args)}, got {len(result)})")
            extra = result[len(args):]
            if any(g is not None for g in extra):
                raise RuntimeError(f"function {name} returned an incorrect number of gradients (expected "
                                   f"{len(args)}, got {len(result)})")
            out = []
            for position in arg_positions:
                grad = result[position]
                if grad is not None:
                    if not isinstance(grad, Tensor):
                        raise TypeError(f"function {name} returned a gradient of type {type(grad).__name__} at "
                                        f"index {position}; expected a Tensor or None")
                    target = args[position]
                    if tuple(grad.shape) != tuple(target.shape):
                        if grad.numel() == target.numel() or _broadcastable(list(target.shape), list(grad.shape)):
                            grad = grad.sum_to_size(list(target.shape)) if grad.numel() != target.numel() else \
                                grad.reshape(list(target.shape))
                        else:
                            raise RuntimeError(f"Function {name} returned an invalid gradient at index {position} - "
                                               f"got {list(grad.shape)} but expected shape compatible with "
                                               f"{list(target.shape)}")
                out.append(grad if ctx.needs_input_grad[position] else None)
            return out

        _C._function_node(name, run_backward, edges, tensor_outputs, differentiable)
        ctx._saved = ctx._dirty = ctx._non_differentiable = ()  # outputs among them would hold their node: a cycle
        if single:
            return outputs[0]
        return tuple(outputs)


def _broadcastable(target: list[int], shape: list[int]) -> bool:
    """Whether a gradient of `shape` sums down to `target` (target broadcasts to it)."""
    if len(target) > len(shape):
        return False
    return all(t == 1 or t == s for t, s in zip(target, shape[len(shape) - len(target):]))


def once_differentiable(fn: Callable) -> Callable:
    """A Function's backward that is not itself differentiable: it runs without recording."""

    @functools.wraps(fn)
    def wrapper(ctx: Any, *args: Any) -> Any:
        with no_grad():
            return fn(ctx, *args)
    return wrapper


class _FunctionModule:
    pass


function = _FunctionModule()
function.Function = Function  # type: ignore[attr-defined]
function.FunctionCtx = FunctionCtx  # type: ignore[attr-defined]
function.once_differentiable = once_differentiable  # type: ignore[attr-defined]


# ------------------------------------------------------------------------------------------------ anomaly mode
def set_anomaly_enabled(enabled: bool, check_nan: bool = True) -> None:
    """Anomaly mode on or off (for every thread): each node records the Python traceback of the forward call that
    made it, and when its backward raises (or, with check_nan, returns NaN: a RuntimeError naming the node and
    output) that traceback is shown as a warning first."""
    _C._set_anomaly(0 if not enabled else (2 if check_nan else 1))


def is_anomaly_enabled() -> bool:
    return _C._anomaly() != 0


def is_anomaly_check_nan_enabled() -> bool:
    return _C._anomaly() == 2


class set_detect_anomaly:  # noqa: N801 (torch's name)
    """set_detect_anomaly(mode, check_nan=True): switches anomaly mode at once; as a context manager, restores the
    previous mode on exit."""

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self.previous = _C._anomaly()
        set_anomaly_enabled(mode, check_nan)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc: Any) -> None:
        _C._set_anomaly(self.previous)


class detect_anomaly:  # noqa: N801
    """A region (or, as a decorator, a function) run in anomaly mode (set_anomaly_enabled)."""

    def __init__(self, check_nan: bool = True) -> None:
        import warnings

        self.check_nan = check_nan
        self.previous = 0
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime and should only be "
                      "enabled for debugging.", stacklevel=2)

    def __enter__(self) -> None:
        self.previous = _C._anomaly()
        set_anomaly_enabled(True, self.check_nan)

    def __exit__(self, *exc: Any) -> None:
        _C._set_anomaly(self.previous)

    def __call__(self, fn: Callable) -> Callable:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with self:
                return fn(*args, **kwargs)
        return wrapper
