"""The update rules: torch's single-tensor algorithms (torch/optim/*.py), written with the same ops in the same
order, so that yaten's parameters follow torch's to rounding. Each walks its parameters one tensor at a time; the
multi-tensor (_foreach) and fused kernels that run a whole list per call are the optimizer issue's next step.
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


def _not_supported(options: dict[str, Any]) -> None:
    """foreach/fused/capturable/differentiable: yaten runs the single-tensor algorithm, which gives the same numbers;
    asking for a path yaten does not have is said, not ignored."""
    if options.get("fused"):
        raise NotImplementedError("yaten.optim: fused=True is not available yet (the fused kernels are the optimizer "
                                  "issue's next step); leave fused unset")
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
        _not_supported(defaults)
        super().__init__(params, defaults)

    def _update(self, group: dict[str, Any], params: list[Tensor]) -> None:
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
        _not_supported(defaults)
        super().__init__(params, defaults)

    def _update(self, group: dict[str, Any], params: list[Tensor]) -> None:
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
