"""The update rules, each on three paths as torch's: the single-tensor algorithm (torch/optim/*.py), written with the
same ops in the same order, so that yaten's parameters follow torch's to rounding; for SGD, Adam and AdamW the
multi-tensor one (`foreach=True`, the default when every parameter is on a GPU: _foreach ops, one call per list of
tensors of one device and dtype, as torch's _multi_tensor_* functions) and the fused one (`fused=True`: one
_fused_*_ kernel pass per list, kernels/optim_math.h). The other optimizers run their single-tensor algorithm for
any `foreach`, which gives the same numbers.
"""

from __future__ import annotations

import math
from typing import Any

from .. import _C
from .optimizer import Optimizer, _scalar_tensor, required

Tensor = _C.Tensor


def _check(name: str, value: float, low: float = 0.0, strict: bool = False) -> None:
    if value < low or (strict and value == low):
        raise ValueError(f"Invalid {name} value: {value}")


def _not_supported(options: dict[str, Any], fused: bool = False) -> None:
    """capturable/differentiable, and fused for an optimizer without a fused kernel (`fused`: it has one): asking
    for a path yaten does not have is said, not ignored."""
    if options.get("fused") and options.get("foreach"):
        raise RuntimeError("`fused` and `foreach` cannot be `True` together.")
    if options.get("fused") and not fused:
        raise NotImplementedError("yaten.optim: fused=True is available for SGD, Adam and AdamW; leave fused unset")
    if options.get("capturable"):
        raise NotImplementedError("yaten.optim: capturable=True (CUDA graphs) is not supported")
    if options.get("differentiable"):
        raise NotImplementedError("yaten.optim: differentiable=True is not supported")


def _step_value(state: dict[str, Any]) -> float:
    state["step"].add_(1)
    return state["step"].item()


def _init_state(state: dict[str, Any], p: Tensor, *names: str) -> None:
    """A parameter's first step: "step" (a 0-dim tensor, as torch's) and zeroed moments, in torch's key order."""
    if len(state) == 0:
        state["step"] = _scalar_tensor(0.0)
        for name in names:
            state[name] = _C.zeros_like(p)


def _path(group: dict[str, Any], params: list[Tensor]) -> str:
    """"fused", "foreach" or "single": torch's choice (_default_to_fused_or_foreach): fused only when asked; foreach
    when asked, or by default when every parameter is on a GPU."""
    if group.get("fused"):
        for p in params:
            if not (p.is_floating_point() and p.device.type in ("cpu", "cuda")):
                raise RuntimeError("`fused=True` requires all the params to be floating point Tensors of supported "
                                   "devices: ['cpu', 'cuda'].")
        return "fused"
    foreach = group.get("foreach")
    if foreach is None:
        foreach = all(p.is_cuda for p in params)
    return "foreach" if foreach else "single"


def _by_device_and_dtype(params: list[Tensor]) -> list[list[int]]:
    """The parameters' indices grouped by device and dtype, in order (torch's _group_tensors_by_device_and_dtype):
    a _foreach or _fused call takes one such group."""
    groups: dict[tuple[str, Any], list[int]] = {}
    for i, p in enumerate(params):
        groups.setdefault((str(p.device), p.dtype), []).append(i)
    return list(groups.values())


def _amp_scaling(optimizer: Any, device: Any) -> dict[str, Any]:
    """The grad_scale and found_inf a GradScaler set on a fused optimizer for this step, on `device` (None when no
    scaler is stepping it)."""
    out = {}
    for name in ("grad_scale", "found_inf"):
        value = getattr(optimizer, name, None)
        out[name] = None if value is None else value.to(device)
    return out


def _weight_decay(p: Tensor, grad: Tensor, lr: float, weight_decay: float, decoupled: bool) -> Tensor:
    """L2 weight decay added to the gradient, or (decoupled, AdamW's) the parameter shrunk before the update."""
    if weight_decay == 0:
        return grad
    if decoupled:
        p.mul_(1 - lr * weight_decay)
        return grad
    return grad.add(p, alpha=weight_decay)


class SGD(Optimizer):

    def __init__(self, params: Any, lr: float = 1e-3, momentum: float = 0, dampening: float = 0,
                 weight_decay: float = 0, nesterov: bool = False, *, maximize: bool = False, foreach: Any = None,
                 differentiable: bool = False, fused: Any = None) -> None:
        if isinstance(lr, Tensor):
            lr = lr.item()
        _check("learning rate", lr)
        _check("momentum", momentum)
        _check("weight_decay", weight_decay)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay, nesterov=nesterov,
                        maximize=maximize, foreach=foreach, differentiable=differentiable, fused=fused)
        _not_supported(defaults, fused=True)
        super().__init__(params, defaults)
        if fused:
            self._step_supports_amp_scaling = True  # GradScaler hands the fused kernel grad_scale and found_inf

    def _update(self, group: dict[str, Any], params: list[Tensor]) -> None:
        path = _path(group, params)
        if path == "foreach":
            return self._update_foreach(group, params)
        if path == "fused":
            return self._update_fused(group, params)
        lr, momentum, dampening = group["lr"], group["momentum"], group["dampening"]
        weight_decay, nesterov = group["weight_decay"], group["nesterov"]
        for p in params:
            grad = self._gradient(p, group["maximize"])
            if weight_decay != 0:
                grad = grad.add(p, alpha=weight_decay)
            if momentum != 0:
                state = self.state[p]
                buf = state.get("momentum_buffer")
                if buf is None:
                    buf = grad.clone().detach()
                    state["momentum_buffer"] = buf
                else:
                    buf.mul_(momentum).add_(grad, alpha=1 - dampening)
                grad = grad.add(buf, alpha=momentum) if nesterov else buf
            p.add_(grad, alpha=-lr)

    def _update_foreach(self, group: dict[str, Any], params: list[Tensor]) -> None:
        """torch's _multi_tensor_sgd, step for step."""
        lr, momentum, dampening = group["lr"], group["momentum"], group["dampening"]
        weight_decay, nesterov, maximize = group["weight_decay"], group["nesterov"], group["maximize"]
        for indices in _by_device_and_dtype(params):
            ps = [params[i] for i in indices]
            grads = [p.grad for p in ps]
            if maximize:
                grads = list(_C._foreach_neg(grads))
            if weight_decay != 0:
                if maximize:
                    _C._foreach_add_(grads, ps, alpha=weight_decay)
                else:
                    grads = list(_C._foreach_add(grads, ps, alpha=weight_decay))
            if momentum != 0:
                states = [self.state[p] for p in ps]
                if all("momentum_buffer" in st for st in states):
                    bufs = [st["momentum_buffer"] for st in states]
                    _C._foreach_mul_(bufs, momentum)
                    _C._foreach_add_(bufs, grads, alpha=1 - dampening)
                else:
                    bufs = []
                    for st, g in zip(states, grads):
                        if "momentum_buffer" not in st:
                            st["momentum_buffer"] = g.clone().detach()
                        else:
                            st["momentum_buffer"].mul_(momentum).add_(g, alpha=1 - dampening)
                        bufs.append(st["momentum_buffer"])
                if nesterov:
                    _C._foreach_add_(grads, bufs, alpha=momentum)
                else:
                    grads = bufs
            _C._foreach_add_(ps, grads, alpha=-lr)

    def _update_fused(self, group: dict[str, Any], params: list[Tensor]) -> None:
        """torch's _fused_sgd: one _fused_sgd_ per device and dtype; the buffers start as the gradients."""
        momentum = group["momentum"]
        states = [self.state[p] for p in params] if momentum != 0 else []  # no state without momentum, as torch
        first = momentum != 0 and all("momentum_buffer" not in st for st in states)
        if first:
            for st, p in zip(states, params):
                st["momentum_buffer"] = _C.empty_like(p.grad)
        for indices in _by_device_and_dtype(params):
            ps = [params[i] for i in indices]
            bufs = [states[i]["momentum_buffer"] for i in indices] if momentum != 0 else []
            _C._fused_sgd_(ps, [p.grad for p in ps], bufs, weight_decay=group["weight_decay"], momentum=momentum,
                           lr=group["lr"], dampening=group["dampening"], nesterov=group["nesterov"],
                           maximize=group["maximize"], is_first_step=first, **_amp_scaling(self, ps[0].device))


class Adam(Optimizer):
    _decoupled = False


    def __init__(self, params: Any, lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, amsgrad: bool = False, *, foreach: Any = None, maximize: bool = False,
                 capturable: bool = False, differentiable: bool = False, fused: Any = None,
                 decoupled_weight_decay: bool | None = None) -> None:
        if isinstance(lr, Tensor):
            lr = lr.item()
        _check("learning rate", lr)
        _check("epsilon", eps)
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        _check("weight_decay", weight_decay)
        decoupled = self._decoupled if decoupled_weight_decay is None else decoupled_weight_decay
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad, maximize=maximize,
                        foreach=foreach, capturable=capturable, differentiable=differentiable, fused=fused,
                        decoupled_weight_decay=decoupled)
        _not_supported(defaults, fused=True)
        super().__init__(params, defaults)
        if fused:
            self._step_supports_amp_scaling = True  # GradScaler hands the fused kernel grad_scale and found_inf

    def _update(self, group: dict[str, Any], params: list[Tensor]) -> None:
        path = _path(group, params)
        if path == "foreach":
            return self._update_foreach(group, params)
        if path == "fused":
            return self._update_fused(group, params)
        beta1, beta2 = group["betas"]
        lr, eps, weight_decay = group["lr"], group["eps"], group["weight_decay"]
        for p in params:
            grad = self._gradient(p, group["maximize"])
            state = self.state[p]
            _init_state(state, p, "exp_avg", "exp_avg_sq", *(("max_exp_avg_sq",) if group["amsgrad"] else ()))
            exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
            step = _step_value(state)
            grad = _weight_decay(p, grad, lr, weight_decay, group["decoupled_weight_decay"])
            exp_avg.lerp_(grad, 1 - beta1)
            exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
            bias_correction1 = 1 - beta1 ** step
            bias_correction2 = 1 - beta2 ** step
            step_size = lr / bias_correction1
            bias_correction2_sqrt = bias_correction2 ** 0.5
            if group["amsgrad"]:
                max_exp_avg_sq = state["max_exp_avg_sq"]
                _C.maximum(max_exp_avg_sq, exp_avg_sq, out=max_exp_avg_sq)
                denom = (max_exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)
            else:
                denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)
            p.addcdiv_(exp_avg, denom, value=-step_size)

    def _states(self, group: dict[str, Any], params: list[Tensor], fused: bool) -> list[dict[str, Any]]:
        """Each parameter's state, made on its first step (a fused step counts on the parameter's device in float32,
        as torch's)."""
        names = ("exp_avg", "exp_avg_sq") + (("max_exp_avg_sq",) if group["amsgrad"] else ())
        states = []
        for p in params:
            state = self.state[p]
            if len(state) == 0 and fused:
                state["step"] = _C.zeros((), dtype=_C.float32, device=p.device)
                for name in names:
                    state[name] = _C.zeros_like(p)
            _init_state(state, p, *names)
            states.append(state)
        return states

    def _update_foreach(self, group: dict[str, Any], params: list[Tensor]) -> None:
        """torch's _multi_tensor_adam, step for step."""
        beta1, beta2 = group["betas"]
        lr, eps, weight_decay = group["lr"], group["eps"], group["weight_decay"]
        amsgrad, maximize = group["amsgrad"], group["maximize"]
        states = self._states(group, params, fused=False)
        for indices in _by_device_and_dtype(params):
            ps = [params[i] for i in indices]
            grads = [p.grad for p in ps]
            avgs = [states[i]["exp_avg"] for i in indices]
            sqs = [states[i]["exp_avg_sq"] for i in indices]
            steps = [states[i]["step"] for i in indices]
            if maximize:
                grads = list(_C._foreach_neg(grads))
            if steps[0].device.type == "cpu":
                _C._foreach_add_(steps, _C.tensor(1.0), alpha=1.0)
            else:
                _C._foreach_add_(steps, 1)
            if weight_decay != 0:
                if group["decoupled_weight_decay"]:
                    _C._foreach_mul_(ps, 1 - lr * weight_decay)
                elif maximize:
                    _C._foreach_add_(grads, ps, alpha=weight_decay)
                else:
                    grads = list(_C._foreach_add(grads, ps, alpha=weight_decay))
            _C._foreach_lerp_(avgs, grads, 1 - beta1)
            _C._foreach_mul_(sqs, beta2)
            _C._foreach_addcmul_(sqs, grads, grads, 1 - beta2)
            counts = [step.item() for step in steps]
            step_size = [(lr / (1 - beta1 ** n)) * -1 for n in counts]
            bias_correction2_sqrt = [(1 - beta2 ** n) ** 0.5 for n in counts]
            if amsgrad:
                maxes = [states[i]["max_exp_avg_sq"] for i in indices]
                _C._foreach_maximum_(maxes, sqs)
                denom = list(_C._foreach_sqrt(maxes))
            else:
                denom = list(_C._foreach_sqrt(sqs))
            _C._foreach_div_(denom, bias_correction2_sqrt)
            _C._foreach_add_(denom, eps)
            _C._foreach_addcdiv_(ps, avgs, denom, step_size)

    def _update_fused(self, group: dict[str, Any], params: list[Tensor]) -> None:
        """torch's _fused_adam: the steps counted, then one _fused_adam_ (_fused_adamw_) per device and dtype."""
        beta1, beta2 = group["betas"]
        states = self._states(group, params, fused=True)
        fused_step = _C._fused_adamw_ if group["decoupled_weight_decay"] else _C._fused_adam_
        for indices in _by_device_and_dtype(params):
            ps = [params[i] for i in indices]
            steps = [states[i]["step"] for i in indices]
            _C._foreach_add_(steps, 1)
            maxes = [states[i]["max_exp_avg_sq"] for i in indices] if group["amsgrad"] else []
            scaling = _amp_scaling(self, ps[0].device)
            fused_step(ps, [p.grad for p in ps], [states[i]["exp_avg"] for i in indices],
                       [states[i]["exp_avg_sq"] for i in indices], maxes, steps, lr=group["lr"], beta1=beta1,
                       beta2=beta2, weight_decay=group["weight_decay"], eps=group["eps"], amsgrad=group["amsgrad"],
                       maximize=group["maximize"], **scaling)
            if scaling["found_inf"] is not None:  # a skipped step does not count, as torch's
                _C._foreach_sub_(steps, [scaling["found_inf"]] * len(steps))


class AdamW(Adam):
    """Adam with decoupled weight decay (p <- p * (1 - lr * weight_decay) before the update), default 1e-2."""

    _decoupled = True

    def __init__(self, params: Any, lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 1e-2, amsgrad: bool = False, *, maximize: bool = False, foreach: Any = None,
                 capturable: bool = False, differentiable: bool = False, fused: Any = None) -> None:
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach, maximize=maximize,
                         capturable=capturable, differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)


class RMSprop(Optimizer):
    def __init__(self, params: Any, lr: float = 1e-2, alpha: float = 0.99, eps: float = 1e-8,
                 weight_decay: float = 0, momentum: float = 0, centered: bool = False, capturable: bool = False,
                 foreach: Any = None, maximize: bool = False, differentiable: bool = False) -> None:
        _check("learning rate", lr)
        _check("epsilon", eps)
        _check("momentum", momentum)
        _check("weight_decay", weight_decay)
        _check("alpha", alpha)
        defaults = dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered, weight_decay=weight_decay,
                        capturable=capturable, foreach=foreach, maximize=maximize, differentiable=differentiable)
        _not_supported(defaults)
        super().__init__(params, defaults)

    def _update(self, group: dict[str, Any], params: list[Tensor]) -> None:
        lr, alpha, eps = group["lr"], group["alpha"], group["eps"]
        weight_decay, momentum = group["weight_decay"], group["momentum"]
        for p in params:
            grad = self._gradient(p, group["maximize"])
            state = self.state[p]
            if len(state) == 0:
                state["step"] = _scalar_tensor(0.0)
                state["square_avg"] = _C.zeros_like(p)
                if momentum > 0:
                    state["momentum_buffer"] = _C.zeros_like(p)
                if group["centered"]:
                    state["grad_avg"] = _C.zeros_like(p)
            square_avg = state["square_avg"]
            _step_value(state)
            if weight_decay != 0:
                grad = grad.add(p, alpha=weight_decay)
            square_avg.mul_(alpha).addcmul_(grad, grad, value=1 - alpha)
            if group["centered"]:
                grad_avg = state["grad_avg"]
                grad_avg.lerp_(grad, 1 - alpha)
                avg = square_avg.addcmul(grad_avg, grad_avg, value=-1).sqrt_()
            else:
                avg = square_avg.sqrt()
            avg = avg.add_(eps)
            if momentum > 0:
                buf = state["momentum_buffer"]
                buf.mul_(momentum).addcdiv_(grad, avg)
                p.add_(buf, alpha=-lr)
            else:
                p.addcdiv_(grad, avg, value=-lr)


class Adagrad(Optimizer):
    def __init__(self, params: Any, lr: float = 1e-2, lr_decay: float = 0, weight_decay: float = 0,
                 initial_accumulator_value: float = 0, eps: float = 1e-10, foreach: Any = None, *,
                 maximize: bool = False, differentiable: bool = False, fused: Any = None) -> None:
        _check("learning rate", lr)
        _check("lr_decay", lr_decay)
        _check("weight_decay", weight_decay)
        _check("initial_accumulator_value", initial_accumulator_value)
        _check("epsilon", eps)
        defaults = dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                        initial_accumulator_value=initial_accumulator_value, foreach=foreach, maximize=maximize,
                        differentiable=differentiable, fused=fused)
        _not_supported(defaults)
        super().__init__(params, defaults)
        for group in self.param_groups:  # torch makes Adagrad's state at construction
            for p in group["params"]:
                state = self.state[p]
                state["step"] = _scalar_tensor(0.0)
                state["sum"] = _C.full(list(p.shape), group["initial_accumulator_value"], dtype=p.dtype,
                                       device=p.device)

    def _update(self, group: dict[str, Any], params: list[Tensor]) -> None:
        for p in params:
            grad = self._gradient(p, group["maximize"])
            state = self.state[p]
            step = _step_value(state)
            if group["weight_decay"] != 0:
                grad = grad.add(p, alpha=group["weight_decay"])
            clr = group["lr"] / (1 + (step - 1) * group["lr_decay"])
            state["sum"].addcmul_(grad, grad, value=1)
            std = state["sum"].sqrt().add_(group["eps"])
            p.addcdiv_(grad, std, value=-clr)


class Adamax(Optimizer):
    def __init__(self, params: Any, lr: float = 2e-3, betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, foreach: Any = None, *, maximize: bool = False,
                 differentiable: bool = False, capturable: bool = False) -> None:
        _check("learning rate", lr)
        _check("epsilon", eps)
        _check("weight_decay", weight_decay)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, foreach=foreach, maximize=maximize,
                        differentiable=differentiable, capturable=capturable)
        _not_supported(defaults)
        super().__init__(params, defaults)

    def _update(self, group: dict[str, Any], params: list[Tensor]) -> None:
        beta1, beta2 = group["betas"]
        for p in params:
            grad = self._gradient(p, group["maximize"])
            state = self.state[p]
            _init_state(state, p, "exp_avg", "exp_inf")
            exp_avg, exp_inf = state["exp_avg"], state["exp_inf"]
            step = _step_value(state)
            if group["weight_decay"] != 0:
                grad = grad.add(p, alpha=group["weight_decay"])
            exp_avg.lerp_(grad, 1 - beta1)
            _C.maximum(exp_inf.mul_(beta2), grad.abs().add_(group["eps"]), out=exp_inf)
            clr = group["lr"] / (1 - beta1 ** step)
            p.addcdiv_(exp_avg, exp_inf, value=-clr)


class NAdam(Optimizer):
    def __init__(self, params: Any, lr: float = 2e-3, betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, momentum_decay: float = 4e-3, decoupled_weight_decay: bool = False, *,
                 foreach: Any = None, maximize: bool = False, capturable: bool = False,
                 differentiable: bool = False) -> None:
        _check("learning rate", lr)
        _check("epsilon", eps)
        _check("weight_decay", weight_decay)
        _check("momentum_decay", momentum_decay)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, momentum_decay=momentum_decay,
                        decoupled_weight_decay=decoupled_weight_decay, maximize=maximize, foreach=foreach,
                        capturable=capturable, differentiable=differentiable)
        _not_supported(defaults)
        super().__init__(params, defaults)

    def _update(self, group: dict[str, Any], params: list[Tensor]) -> None:
        beta1, beta2 = group["betas"]
        lr, eps, weight_decay, momentum_decay = group["lr"], group["eps"], group["weight_decay"], \
            group["momentum_decay"]
        for p in params:
            grad = self._gradient(p, group["maximize"])
            state = self.state[p]
            if len(state) == 0:
                state["step"] = _scalar_tensor(0.0)
                state["mu_product"] = _scalar_tensor(1.0)
                state["exp_avg"] = _C.zeros_like(p)
                state["exp_avg_sq"] = _C.zeros_like(p)
            exp_avg, exp_avg_sq, mu_product = state["exp_avg"], state["exp_avg_sq"], state["mu_product"]
            step = _step_value(state)
            bias_correction2 = 1 - beta2 ** step
            grad = _weight_decay(p, grad, lr, weight_decay, group["decoupled_weight_decay"])
            mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * momentum_decay)))
            mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * momentum_decay)))
            mu_product.mul_(mu)
            exp_avg.lerp_(grad, 1 - beta1)
            exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
            denom = exp_avg_sq.div(bias_correction2).sqrt().add_(eps)
            product = mu_product.item()
            p.addcdiv_(grad, denom, value=(-lr * (1.0 - mu) / (1.0 - product)))
            p.addcdiv_(exp_avg, denom, value=(-lr * mu_next) / (1.0 - product * mu_next))


class RAdam(Optimizer):
    def __init__(self, params: Any, lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, decoupled_weight_decay: bool = False, *, foreach: Any = None,
                 maximize: bool = False, capturable: bool = False, differentiable: bool = False) -> None:
        _check("learning rate", lr)
        _check("epsilon", eps)
        _check("weight_decay", weight_decay)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, maximize=maximize, foreach=foreach,
                        capturable=capturable, decoupled_weight_decay=decoupled_weight_decay,
                        differentiable=differentiable)
        _not_supported(defaults)
        super().__init__(params, defaults)

    def _update(self, group: dict[str, Any], params: list[Tensor]) -> None:
        beta1, beta2 = group["betas"]
        lr, eps, weight_decay = group["lr"], group["eps"], group["weight_decay"]
        for p in params:
            grad = self._gradient(p, group["maximize"])
            state = self.state[p]
            _init_state(state, p, "exp_avg", "exp_avg_sq")
            exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
            step = _step_value(state)
            grad = _weight_decay(p, grad, lr, weight_decay, group["decoupled_weight_decay"])
            exp_avg.lerp_(grad, 1 - beta1)
            exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
            bias_correction1 = 1 - beta1 ** step
            bias_correction2 = 1 - beta2 ** step
            bias_corrected_exp_avg = exp_avg / bias_correction1
            rho_inf = 2 / (1 - beta2) - 1
            rho_t = rho_inf - 2 * step * (beta2 ** step) / bias_correction2
            if rho_t > 5.0:
                rect = math.sqrt((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t))
                adaptive_lr = (bias_correction2 ** 0.5) / exp_avg_sq.sqrt().add_(eps)
                p.add_(bias_corrected_exp_avg * lr * adaptive_lr * rect, alpha=-1.0)
            else:
                p.add_(bias_corrected_exp_avg * lr, alpha=-1.0)


__all__ = ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adamax", "NAdam", "RAdam", "required"]
