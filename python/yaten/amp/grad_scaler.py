"""GradScaler: dynamic loss scaling with torch's API and rules.

scale(loss) multiplies by the current scale; unscale_(optimizer) multiplies the gradients by its inverse and records
whether any was inf or NaN (one _amp_foreach_non_finite_check_and_unscale_ per device and dtype); step(optimizer)
skips the update when one was; update() backs the scale off after such a step and grows it after growth_interval
steps without one (_amp_update_scale_). A fused optimizer (`_step_supports_amp_scaling`) is handed the scale and the
found-inf flag instead, and its kernel unscales and skips on the device, as with torch's.
"""

from __future__ import annotations

from collections import defaultdict
from enum import Enum
from typing import Any

from .. import _C

Tensor = _C.Tensor


class OptState(Enum):
    READY = 0
    UNSCALED = 1
    STEPPED = 2


def _refresh_per_optimizer_state() -> dict[str, Any]:
    return {"stage": OptState.READY, "found_inf_per_device": {}}


class GradScaler:
    def __init__(self, device: str = "cuda", init_scale: float = 2.0 ** 16, growth_factor: float = 2.0,
                 backoff_factor: float = 0.5, growth_interval: int = 2000, enabled: bool = True) -> None:
        self._device = str(device)
        self._enabled = enabled
        if enabled:
            if growth_factor <= 1.0:
                raise AssertionError("The growth factor must be > 1.0.")
            if backoff_factor >= 1.0:
                raise AssertionError("The backoff factor must be < 1.0.")
        self._init_scale = init_scale
        self._scale: Tensor | None = None
        self._growth_factor = growth_factor
        self._backoff_factor = backoff_factor
        self._growth_interval = growth_interval
        self._init_growth_tracker = 0
        self._growth_tracker: Tensor | None = None
        self._per_optimizer_states: defaultdict = defaultdict(_refresh_per_optimizer_state)

    def is_enabled(self) -> bool:
        return self._enabled

    def _lazy_init(self, device: Any) -> None:
        self._scale = _C.full([], self._init_scale, dtype=_C.float32, device=device)
        self._growth_tracker = _C.full([], self._init_growth_tracker, dtype=_C.int32, device=device)

    def scale(self, outputs: Any) -> Any:
        """outputs (a tensor, or lists/tuples of them) times the scale; as they are when disabled."""
        if not self._enabled:
            return outputs
        if isinstance(outputs, Tensor):
            if self._scale is None:
                self._lazy_init(outputs.device)
            return outputs * self._scale.to(outputs.device)
        if isinstance(outputs, (list, tuple)):
            scaled = [self.scale(o) for o in outputs]
            return type(outputs)(scaled) if isinstance(outputs, tuple) else scaled
        raise ValueError("outputs must be a Tensor or an iterable of Tensors")

    def _unscale_grads_(self, optimizer: Any, inv_scale: Tensor, found_inf: Tensor,
                        allow_fp16: bool = False) -> dict[Any, Tensor]:
        """torch's: the gradients grouped by device and dtype, each group unscaled by one
        _amp_foreach_non_finite_check_and_unscale_; returns each device's found-inf flag."""
        from ..autograd import no_grad

        grouped: dict[str, dict[Any, list[Tensor]]] = defaultdict(lambda: defaultdict(list))
        devices: dict[str, Any] = {}
        for group in optimizer.param_groups:
            for param in group["params"]:
                if param.grad is None:
                    continue
                if not allow_fp16 and param.grad.dtype == _C.float16:
                    raise ValueError("Attempting to unscale FP16 gradients.")
                grouped[str(param.grad.device)][param.grad.dtype].append(param.grad)
                devices[str(param.grad.device)] = param.grad.device
        per_device: dict[Any, Tensor] = {}
        with no_grad():
            for key, per_dtype in grouped.items():
                device = devices[key]
                per_device[device] = found_inf.to(device).clone() if found_inf.device != device else found_inf
                device_inv_scale = inv_scale.to(device)
                for grads in per_dtype.values():
                    _C._amp_foreach_non_finite_check_and_unscale_(grads, per_device[device], device_inv_scale)
        return per_device

    def unscale_(self, optimizer: Any) -> None:
        """Divides optimizer's gradients by the scale (once per step), noting whether any is inf or NaN."""
        if not self._enabled:
            return
        if self._scale is None:
            raise AssertionError("Attempted unscale_ but _scale is None.  This may indicate your script did not use "
                                 "scaler.scale(loss or outputs) earlier in the iteration.")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since the last update().")
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        inv_scale = self._scale.double().reciprocal().float()
        found_inf = _C.full([], 0.0, dtype=_C.float32, device=self._scale.device)
        state["found_inf_per_device"] = self._unscale_grads_(optimizer, inv_scale, found_inf)
        state["stage"] = OptState.UNSCALED

    def step(self, optimizer: Any, *args: Any, **kwargs: Any) -> Any:
        """optimizer.step() unless the (unscaled) gradients held an inf or NaN."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if getattr(optimizer, "_step_supports_amp_scaling", False):
            # a fused optimizer unscales (unless unscale_ already did) and skips on the device, in its kernel
            if state["stage"] is OptState.READY:  # only the check here: multiplied by 1
                one = _C.full([], 1.0, dtype=_C.float32, device=self._scale.device)
                zero = _C.full([], 0.0, dtype=_C.float32, device=self._scale.device)
                state["found_inf_per_device"] = self._unscale_grads_(optimizer, one, zero, allow_fp16=True)
            found_inf = sum(f.to(self._scale.device) for f in state["found_inf_per_device"].values())
            optimizer.grad_scale = None if state["stage"] is OptState.UNSCALED else self._scale
            optimizer.found_inf = found_inf
            try:
                retval = optimizer.step(*args, **kwargs)
            finally:
                del optimizer.grad_scale
                del optimizer.found_inf
            state["stage"] = OptState.STEPPED
            return retval
        if state["stage"] is OptState.READY:
            self.unscale_(optimizer)
        if len(state["found_inf_per_device"]) == 0:
            raise AssertionError("No inf checks were recorded for this optimizer.")
        retval = None
        if not sum(v.item() for v in state["found_inf_per_device"].values()):
            retval = optimizer.step(*args, **kwargs)
        state["stage"] = OptState.STEPPED
        return retval

    def update(self, new_scale: float | Tensor | None = None) -> None:
        """The next scale: backoff after a step with infs, growth after growth_interval clean steps."""
        if not self._enabled:
            return
        if new_scale is not None:
            if isinstance(new_scale, float):
                self._scale.fill_(new_scale)
            else:
                self._scale.copy_(new_scale)
        else:
            found_infs = [found for state in self._per_optimizer_states.values()
                          for found in state["found_inf_per_device"].values()]
            if len(found_infs) == 0:
                raise AssertionError("No inf checks were recorded prior to update.")
            found_inf = found_infs[0].to(self._scale.device)
            for other in found_infs[1:]:
                found_inf = found_inf + other.to(self._scale.device)
            _C._amp_update_scale_(self._scale, self._growth_tracker, found_inf, self._growth_factor,
                                  self._backoff_factor, self._growth_interval)
        self._per_optimizer_states = defaultdict(_refresh_per_optimizer_state)

    def get_scale(self) -> float:
        if not self._enabled:
            return 1.0
        return self._init_scale if self._scale is None else self._scale.item()

    def get_growth_factor(self) -> float:
        return self._growth_factor

    def set_growth_factor(self, new_factor: float) -> None:
        self._growth_factor = new_factor

    def get_backoff_factor(self) -> float:
        return self._backoff_factor

    def set_backoff_factor(self, new_factor: float) -> None:
        self._backoff_factor = new_factor

    def get_growth_interval(self) -> int:
        return self._growth_interval

    def set_growth_interval(self, new_interval: int) -> None:
        self._growth_interval = new_interval

    def state_dict(self) -> dict[str, Any]:
        if not self._enabled:
            return {}
        return {"scale": self.get_scale(), "growth_factor": self._growth_factor,
                "backoff_factor": self._backoff_factor, "growth_interval": self._growth_interval,
                "_growth_tracker": self._init_growth_tracker if self._growth_tracker is None
                else self._growth_tracker.item()}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved from a disabled "
                               "instance of GradScaler.")
        self._init_scale = state_dict["scale"]
        if self._scale is not None:
            self._scale.fill_(state_dict["scale"])
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        self._init_growth_tracker = state_dict["_growth_tracker"]
        if self._growth_tracker is not None:
            self._growth_tracker.fill_(state_dict["_growth_tracker"])
