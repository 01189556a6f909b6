"""Optimizer: the state an update rule keeps, in torch's layout.

param_groups is a list of dicts (each with "params" and the group's options); state maps each parameter to a dict
of its tensors and counters. state_dict() numbers the parameters in group order, as torch's does, so a checkpoint
of either library's optimizer loads into the other's.
"""

from __future__ import annotations

import copy
from collections import OrderedDict, defaultdict
from itertools import chain
from typing import Any, Callable

from .. import _C
from ..autograd import no_grad
from ..nn.modules.module import RemovableHandle

Tensor = _C.Tensor


class _RequiredParameter:
    def __repr__(self) -> str:
        return "<required parameter>"


required = _RequiredParameter()

_global_step_pre_hooks: dict[int, Callable] = OrderedDict()
_global_step_post_hooks: dict[int, Callable] = OrderedDict()


def register_optimizer_step_pre_hook(hook: Callable) -> RemovableHandle:
    return RemovableHandle.add(_global_step_pre_hooks, hook)


def register_optimizer_step_post_hook(hook: Callable) -> RemovableHandle:
    return RemovableHandle.add(_global_step_post_hooks, hook)


def _scalar_tensor(value: float) -> Tensor:
    """torch's per-parameter "step": a 0-dim tensor of the default float dtype (float32 unless set otherwise)."""
    return _C.tensor(float(value), dtype=_C.float64 if _C.get_default_dtype() == _C.float64 else _C.float32)


class Optimizer:
    """Base class of the optimizers: subclasses set `defaults` and write step()."""

    def __init__(self, params: Any, defaults: dict[str, Any]) -> None:
        self.defaults = defaults
        self._optimizer_step_pre_hooks: dict[int, Callable] = OrderedDict()
        self._optimizer_step_post_hooks: dict[int, Callable] = OrderedDict()
        self.state: defaultdict = defaultdict(dict)
        self.param_groups: list[dict[str, Any]] = []
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of Tensors or dicts, but "
                            f"got {type(params).__name__}")
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for group in param_groups:
            self.add_param_group(group)

    def __getstate__(self) -> dict:
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self.__dict__.setdefault("_optimizer_step_pre_hooks", OrderedDict())
        self.__dict__.setdefault("_optimizer_step_post_hooks", OrderedDict())

    def __repr__(self) -> str:
        text = self.__class__.__name__ + " ("
        for i, group in enumerate(self.param_groups):
            text += "\n" f"Parameter Group {i}\n"
            for key in sorted(group.keys()):
                if key != "params":
                    text += f"    {key}: {group[key]}\n"
        return text + ")"

    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Adds a group of parameters with its own options (the defaults fill the rest)."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group).__name__}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, but the ordering of "
                            "tensors in sets will change between runs. Please use a list instead.")
        else:
            param_group["params"] = list(params)
        for param in param_group["params"]:
            if not isinstance(param, Tensor):
                raise TypeError(f"optimizer can only optimize Tensors, but one of the params is "
                                f"{type(param).__name__}")
            if not param.is_leaf:
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(f"parameter group didn't specify a value of required optimization parameter {name}")
            param_group.setdefault(name, default)
        seen = {id(p) for group in self.param_groups for p in group["params"]}
        if any(id(p) in seen for p in param_group["params"]):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    def zero_grad(self, set_to_none: bool = True) -> None:
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                if set_to_none:
                    p.grad = None
                else:
                    grad = p.grad
                    if grad.grad_fn is not None:
                        grad = grad.detach()
                        p.grad = grad
                    grad.zero_()

    # ------------------------------------------------------------------------------------------ hooks and step

    def register_step_pre_hook(self, hook: Callable) -> RemovableHandle:
        return RemovableHandle.add(self._optimizer_step_pre_hooks, hook)

    def register_step_post_hook(self, hook: Callable) -> RemovableHandle:
        return RemovableHandle.add(self._optimizer_step_post_hooks, hook)

    def step(self, closure: Callable | None = None) -> Any:
        """One update of every parameter with a gradient; closure (re-evaluating the loss) is called first."""
        for hook in chain(_global_step_pre_hooks.values(), self._optimizer_step_pre_hooks.values()):
            result = hook(self, (), {})
            if result is not None:
                raise RuntimeError("yaten.optim: a step pre-hook that returns new arguments is not supported")
        loss = None
        if closure is not None:
            from ..autograd import enable_grad

            with enable_grad():
                loss = closure()
        with no_grad():
            for group in self.param_groups:
                params = [p for p in group["params"] if p.grad is not None]
                if params:
                    self._update(group, params)
        for hook in chain(self._optimizer_step_post_hooks.values(), _global_step_post_hooks.values()):
            hook(self, (), {})
        return loss

    def _update(self, group: dict[str, Any], params: list[Tensor]) -> None:
        raise NotImplementedError

    @staticmethod
    def _gradient(p: Tensor, maximize: bool) -> Tensor:
        grad = p.grad
        if grad.is_complex() or p.is_complex():
            raise NotImplementedError("yaten.optim: complex parameters are not supported yet")
        return -grad if maximize else grad

    # ------------------------------------------------------------------------------------------ state_dict

    def state_dict(self) -> dict[str, Any]:
        """{"state": {index: per-parameter state}, "param_groups": [options with "params" as indices]}: torch's
        layout, parameters numbered in group order."""
        mapping: dict[int, int] = {}
        index = 0

        def pack_group(group: dict[str, Any]) -> dict[str, Any]:
            nonlocal index
            packed = {k: v for k, v in group.items() if k != "params"}
            for p in group["params"]:
                if id(p) not in mapping:
                    mapping[id(p)] = index
                    index += 1
            packed["params"] = [mapping[id(p)] for p in group["params"]]
            return packed

        param_groups = [pack_group(g) for g in self.param_groups]
        packed_state = {mapping[id(p)]: v for p, v in self.state.items()}
        return {"state": packed_state, "param_groups": param_groups}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Loads a state_dict of this optimizer's kind (from yaten or torch): the options of each group and the
        state of each parameter, its floating tensors cast to the parameter's dtype and device (not "step")."""
        state_dict = copy.deepcopy({"state": state_dict["state"], "param_groups": state_dict["param_groups"]})
        groups = self.param_groups
        saved_groups = state_dict["param_groups"]
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match the size of optimizer's "
                             "group")
        id_map = dict(zip(chain.from_iterable(g["params"] for g in saved_groups),
                          chain.from_iterable(g["params"] for g in groups)))

        def cast(param: Tensor, value: Any, key: Any = None) -> Any:
            if isinstance(value, Tensor):
                value = _as_yaten(value)
                if key != "step":
                    if value.is_floating_point():
                        value = value.to(param.dtype)
                    return value.to(param.device)
                return value
            if hasattr(value, "__dlpack__") and type(value).__module__.startswith("torch"):
                return cast(param, _as_yaten(value), key)
            if isinstance(value, dict):
                return {k: cast(param, v, key=k) for k, v in value.items()}
            return value

        state: defaultdict = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                state[id_map[k]] = cast(id_map[k], v)
            else:
                state[k] = v
        self.state = state
        self.param_groups = [dict(saved, params=group["params"]) for group, saved in zip(groups, saved_groups)]


def _as_yaten(value: Any) -> Tensor:
    if isinstance(value, Tensor):
        return value
    from ..nn.modules.module import _to_yaten_tensor

    converted = _to_yaten_tensor(value)
    if converted is None:
        raise TypeError(f"load_state_dict: cannot use a {type(value).__name__} as optimizer state")
    return converted
