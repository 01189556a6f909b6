"""yaten.nn.utils: parameters_to_vector / vector_to_parameters, gradient clipping."""

from __future__ import annotations

from typing import Any, Iterable

from ... import _C
from . import rnn  # noqa: F401

Tensor = _C.Tensor


def parameters_to_vector(parameters: Iterable[Tensor]) -> Tensor:
    """The parameters flattened and concatenated into one vector (a copy, in the graph)."""
    params = list(parameters)
    device = None
    for p in params:
        if device is None:
            device = p.device
        elif p.device != device:
            raise TypeError("Found two parameters on different devices, this is currently not supported.")
    return _C.cat([p.reshape(-1) for p in params])


def vector_to_parameters(vec: Tensor, parameters: Iterable[Tensor]) -> None:
    """Copies consecutive slices of vec into the parameters, in order (each parameter keeps its identity)."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    pointer = 0
    prev = _C._is_grad_enabled()
    _C._set_grad_enabled(False)
    try:
        for param in parameters:
            n = param.numel()
            param.copy_(vec[pointer:pointer + n].view(list(param.shape)))
            pointer += n
    finally:
        _C._set_grad_enabled(prev)


def clip_grad_norm_(parameters: Any, max_norm: float, norm_type: float = 2.0, error_if_nonfinite: bool = False,
                    foreach: Any = None) -> Tensor:
    """Scales the gradients in place so that their joint norm is at most max_norm; returns the norm before.

    As torch's, per device and dtype: each gradient's norm (one _foreach_norm per group unless foreach=False), the
    norm of those norms, and one _foreach_mul_ by min(1, max_norm / (norm + 1e-6)) per group. yaten's CPU has the
    multi-tensor kernels too, so foreach=None takes them on every device (torch's takes them on GPUs only); they give
    the per-tensor ops' very values."""
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    grads = [p.grad for p in parameters if p.grad is not None]
    if not grads:
        return _C.tensor(0.0)
    import yaten

    from ...optim.algorithms import _by_device_and_dtype

    norm_type = float(norm_type)
    groups = [[grads[i].detach() for i in indices] for indices in _by_device_and_dtype(grads)]
    norms: list[Tensor] = []
    for group in groups:
        if foreach is False:
            norms.extend(yaten.linalg.vector_norm(g, norm_type) for g in group)
        else:
            norms.extend(_C._foreach_norm(group, norm_type))
    first_device = grads[0].device
    total = yaten.linalg.vector_norm(yaten.stack([n.to(first_device) for n in norms]), norm_type)
    if error_if_nonfinite and not bool(yaten.isfinite(total).item()):
        raise RuntimeError(f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, so "
                           "it cannot be clipped. To disable this error and scale the gradients by the non-finite "
                           "norm anyway, set `error_if_nonfinite=False`")
    coef = (max_norm / (total + 1e-6)).clamp(max=1.0)
    for group in groups:
        device_coef = coef.to(group[0].device)
        if foreach is False:
            for g in group:
                g.mul_(device_coef)
        else:
            with yaten.no_grad():
                _C._foreach_mul_(group, device_coef)
    return total


def clip_grad_value_(parameters: Any, clip_value: float, foreach: Any = None) -> None:
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    for p in parameters:
        if p.grad is not None:
            p.grad.detach().clamp_(min=-clip_value, max=clip_value)
