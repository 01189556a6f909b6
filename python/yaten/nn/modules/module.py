"""nn.Module: the base class of every layer, with torch's semantics.

Attributes that are Parameters, Modules or registered buffers are kept in three ordered dicts (`_parameters`,
`_modules`, `_buffers`), not in the instance's __dict__, exactly as torch keeps them, so that the names a program
assigns become the state_dict's keys ("layers.0.weight") and a checkpoint moves between torch and yaten.
"""

from __future__ import annotations

import itertools
from collections import OrderedDict, namedtuple
from typing import Any, Callable, Iterator

from ... import _C
from ...autograd import no_grad as _no_grad
from ..parameter import Buffer, Parameter

Tensor = _C.Tensor

_IncompatibleKeys = namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])


class _IncompatibleKeysResult(_IncompatibleKeys):
    __slots__ = ()

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


class RemovableHandle:
    """What register_*_hook returns: remove() takes the hook out again."""

    _next_id = 0

    def __init__(self, *hook_dicts: dict) -> None:
        self.hook_dicts = hook_dicts
        self.id = RemovableHandle._next_id
        RemovableHandle._next_id += 1

    @classmethod
    def add(cls, hooks: dict, hook: Callable) -> "RemovableHandle":
        """Registers hook in hooks (by a new id) and returns its handle."""
        handle = cls(hooks)
        hooks[handle.id] = hook
        return handle

    def remove(self) -> None:
        for hooks in self.hook_dicts:
            hooks.pop(self.id, None)

    def __enter__(self) -> "RemovableHandle":
        return self

    def __exit__(self, *args: Any) -> None:
        self.remove()


def _addindent(text: str, spaces: int) -> str:
    lines = text.split("\n")
    if len(lines) == 1:
        return text
    return lines[0] + "\n" + "\n".join(" " * spaces + line for line in lines[1:])


# Hooks on every module (torch.nn.modules.module.register_module_forward_hook and friends).
_global_forward_pre_hooks: dict[int, Callable] = OrderedDict()
_global_forward_hooks: dict[int, Callable] = OrderedDict()


def register_module_forward_pre_hook(hook: Callable) -> RemovableHandle:
    return RemovableHandle.add(_global_forward_pre_hooks, hook)


def register_module_forward_hook(hook: Callable) -> RemovableHandle:
    return RemovableHandle.add(_global_forward_hooks, hook)


class Module:
    """Base class for all neural-network modules: subclass it, assign layers and Parameters as attributes in
    __init__, and write forward()."""

    training: bool
    _version = 1  # state_dict metadata version, as torch's Module

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if args or kwargs:
            raise TypeError(f"{type(self).__name__}.__init__() got unexpected arguments: Module.__init__ takes none")
        setattr_ = object.__setattr__
        setattr_(self, "training", True)
        setattr_(self, "_parameters", OrderedDict())
        setattr_(self, "_buffers", OrderedDict())
        setattr_(self, "_non_persistent_buffers_set", set())
        setattr_(self, "_modules", OrderedDict())
        setattr_(self, "_forward_pre_hooks", OrderedDict())
        setattr_(self, "_forward_pre_hooks_with_kwargs", set())
        setattr_(self, "_forward_hooks", OrderedDict())
        setattr_(self, "_forward_hooks_with_kwargs", set())
        setattr_(self, "_forward_hooks_always_called", set())
        setattr_(self, "_backward_hooks", OrderedDict())
        setattr_(self, "_state_dict_hooks", OrderedDict())
        setattr_(self, "_state_dict_pre_hooks", OrderedDict())
        setattr_(self, "_load_state_dict_pre_hooks", OrderedDict())
        setattr_(self, "_load_state_dict_post_hooks", OrderedDict())

    forward: Callable[..., Any]

    def _forward_unimplemented(self, *input: Any) -> None:
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')

    forward = _forward_unimplemented  # type: ignore[assignment]

    # ---------------------------------------------------------------------------------------------- calling

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if not (self._forward_pre_hooks or self._forward_hooks or _global_forward_pre_hooks
                or _global_forward_hooks):
            return self.forward(*args, **kwargs)
        return self._call_with_hooks(args, kwargs)

    def _call_with_hooks(self, args: tuple, kwargs: dict) -> Any:
        for hook_id, hook in itertools.chain(_global_forward_pre_hooks.items(), self._forward_pre_hooks.items()):
            if hook_id in self._forward_pre_hooks_with_kwargs:
                result = hook(self, args, kwargs)
                if result is not None:
                    if not (isinstance(result, tuple) and len(result) == 2):
                        raise RuntimeError("forward pre-hook must return None or a tuple of (new_args, new_kwargs), "
                                           f"but got {result}.")
                    args, kwargs = result
            else:
                result = hook(self, args)
                if result is not None:
                    args = result if isinstance(result, tuple) else (result,)
        output = self.forward(*args, **kwargs)
        for hook_id, hook in itertools.chain(_global_forward_hooks.items(), self._forward_hooks.items()):
            if hook_id in self._forward_hooks_with_kwargs:
                result = hook(self, args, kwargs, output)
            else:
                result = hook(self, args, output)
            if result is not None:
                output = result
        return output

    def register_forward_pre_hook(self, hook: Callable, *, prepend: bool = False,
                                  with_kwargs: bool = False) -> RemovableHandle:
        """hook(module, args) -> None or new args (with_kwargs: hook(module, args, kwargs) -> None or (args,
        kwargs)), run before forward."""
        handle = RemovableHandle.add(self._forward_pre_hooks, hook)
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs.add(handle.id)
        if prepend:
            self._forward_pre_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_forward_hook(self, hook: Callable, *, prepend: bool = False, with_kwargs: bool = False,
                              always_call: bool = False) -> RemovableHandle:
        """hook(module, args, output) -> None or a new output (with_kwargs: hook(module, args, kwargs, output)),
        run after forward."""
        handle = RemovableHandle.add(self._forward_hooks, hook)
        if with_kwargs:
            self._forward_hooks_with_kwargs.add(handle.id)
        if always_call:
            self._forward_hooks_always_called.add(handle.id)
        if prepend:
            self._forward_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_full_backward_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        raise NotImplementedError("register_full_backward_hook: yaten has no module backward hooks yet; register a "
                                  "hook on the output tensor (output.register_hook) instead")

    register_backward_hook = register_full_backward_hook

    def register_full_backward_pre_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        raise NotImplementedError("register_full_backward_pre_hook: yaten has no module backward hooks yet; register "
                                  "a hook on the output tensor (output.register_hook) instead")

    # ---------------------------------------------------------------------------------------------- registration

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        """Adds a parameter (or None, a declared but absent one such as a Linear's bias=False) under `name`."""
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        _check_name(name, "parameter")
        if hasattr(self, name) and name not in self._parameters:
            raise KeyError(f"attribute '{name}' already exists")
        if param is None:
            self._parameters[name] = None
            return
        if not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{type(param).__name__}' object to parameter '{name}' "
                            "(yaten.nn.Parameter or None required)")
        if param.grad_fn is not None:
            raise ValueError(f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must be created "
                             "explicitly. To express '{name}' as a function of another Tensor, compute the value in "
                             "the forward() method.")
        self._parameters[name] = param

    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        """Adds a tensor that is state but not a parameter (BatchNorm's running_mean): it moves with to() and is in
        state_dict() unless persistent=False."""
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        _check_name(name, "buffer")
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError(f"attribute '{name}' already exists")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{type(tensor).__name__}' object to buffer '{name}' (Tensor or None "
                            "required)")
        if isinstance(tensor, Buffer):
            persistent = tensor.persistent
            tensor = tensor.detach()
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def add_module(self, name: str, module: "Module | None") -> None:
        """Adds a submodule under `name` (module.name then reaches it)."""
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{type(module).__name__} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {type(name).__name__}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        self._modules[name] = module

    register_module = add_module

    def __getattr__(self, name: str) -> Any:
        # Reached only when normal lookup fails: parameters, buffers and submodules live in their dicts.
        d = self.__dict__
        if "_parameters" in d and name in d["_parameters"]:
            return d["_parameters"][name]
        if "_buffers" in d and name in d["_buffers"]:
            return d["_buffers"][name]
        if "_modules" in d and name in d["_modules"]:
            return d["_modules"][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name: str, value: Any) -> None:
        d = self.__dict__
        params = d.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            _remove_from(d, self._buffers, self._modules, self._non_persistent_buffers_set, name=name)
            self.register_parameter(name, value)
            return
        if params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{type(value).__name__}' as parameter '{name}' (yaten.nn.Parameter "
                                "or None expected)")
            self.register_parameter(name, value)
            return
        modules = d.get("_modules")
        if isinstance(value, Module):
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            _remove_from(d, self._parameters, self._buffers, self._non_persistent_buffers_set, name=name)
            modules[name] = value
            return
        if modules is not None and name in modules:
            if value is not None:
                raise TypeError(f"cannot assign '{type(value).__name__}' as child module '{name}' (yaten.nn.Module "
                                "or None expected)")
            modules[name] = value
            return
        buffers = d.get("_buffers")
        if isinstance(value, Buffer) or (buffers is not None and name in buffers):
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{type(value).__name__}' as buffer '{name}' (Tensor or None "
                                "expected)")
            if isinstance(value, Buffer):
                persistent = value.persistent
            else:
                persistent = name not in self._non_persistent_buffers_set
            self.register_buffer(name, value, persistent)
            return
        object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        if name in self._parameters:
            del self._parameters[name]
        elif name in self._buffers:
            del self._buffers[name]
            self._non_persistent_buffers_set.discard(name)
        elif name in self._modules:
            del self._modules[name]
        else:
            object.__delattr__(self, name)

    def __dir__(self) -> list[str]:
        keys = list(object.__dir__(self)) + list(self._parameters) + list(self._modules) + list(self._buffers)
        return sorted(k for k in set(keys) if not k[0].isdigit())

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)

    def get_submodule(self, target: str) -> "Module":
        """The submodule at a dotted path ("encoder.layers.0")."""
        if target == "":
            return self
        module: Module = self
        for item in target.split("."):
            if not hasattr(module, item):
                raise AttributeError(f"{module._get_name()} has no attribute `{item}`")
            module = getattr(module, item)
            if not isinstance(module, Module):
                raise AttributeError(f"`{item}` is not an nn.Module")
        return module

    def get_parameter(self, target: str) -> Parameter:
        module_path, _, name = target.rpartition(".")
        module = self.get_submodule(module_path)
        if not hasattr(module, name):
            raise AttributeError(f"{module._get_name()} has no attribute `{name}`")
        param = getattr(module, name)
        if not isinstance(param, Parameter):
            raise AttributeError(f"`{name}` is not an nn.Parameter")
        return param

    def get_buffer(self, target: str) -> Tensor:
        module_path, _, name = target.rpartition(".")
        module = self.get_submodule(module_path)
        if name not in module._buffers:
            raise AttributeError(f"`{name}` is not a buffer")
        return module._buffers[name]

    # ---------------------------------------------------------------------------------------------- traversal

    def _named_members(self, get_members: Callable, prefix: str = "", recurse: bool = True,
                       remove_duplicate: bool = True) -> Iterator[tuple[str, Any]]:
        memo: set[int] = set()
        modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse else \
            [(prefix, self)]
        for module_prefix, module in modules:
            for k, v in get_members(module):
                if v is None or (remove_duplicate and id(v) in memo):
                    continue
                if remove_duplicate:
                    memo.add(id(v))
                yield (module_prefix + ("." if module_prefix else "") + k, v)

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        """Every parameter of this module and (recurse) its submodules, each once even when shared."""
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_parameters(self, prefix: str = "", recurse: bool = True,
                         remove_duplicate: bool = True) -> Iterator[tuple[str, Parameter]]:
        yield from self._named_members(lambda m: m._parameters.items(), prefix, recurse, remove_duplicate)

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        for _, buf in self.named_buffers(recurse=recurse):
            yield buf

    def named_buffers(self, prefix: str = "", recurse: bool = True,
                      remove_duplicate: bool = True) -> Iterator[tuple[str, Tensor]]:
        yield from self._named_members(lambda m: m._buffers.items(), prefix, recurse, remove_duplicate)

    def children(self) -> Iterator["Module"]:
        for _, module in self.named_children():
            yield module

    def named_children(self) -> Iterator[tuple[str, "Module"]]:
        memo: set[int] = set()
        for name, module in self._modules.items():
            if module is not None and id(module) not in memo:
                memo.add(id(module))
                yield name, module

    def modules(self) -> Iterator["Module"]:
        for _, module in self.named_modules():
            yield module

    def named_modules(self, memo: set | None = None, prefix: str = "",
                      remove_duplicate: bool = True) -> Iterator[tuple[str, "Module"]]:
        if memo is None:
            memo = set()
        if remove_duplicate and id(self) in memo:
            return
        if remove_duplicate:
            memo.add(id(self))
        yield prefix, self
        for name, module in self._modules.items():
            if module is None:
                continue
            yield from module.named_modules(memo, prefix + ("." if prefix else "") + name, remove_duplicate)

    # ---------------------------------------------------------------------------------------------- modes

    def train(self, mode: bool = True) -> "Module":
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self) -> "Module":
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> "Module":
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Clears every parameter's gradient: to None (the default, as torch), or to zeros."""
        for p in self.parameters():
            if p.grad is None:
                continue
            if set_to_none:
                p.grad = None
            else:
                grad = p.grad
                if grad.grad_fn is not None:
                    grad = grad.detach()
                grad.zero_()
                p.grad = grad

    def apply(self, fn: Callable[["Module"], None]) -> "Module":
        """fn(module) on every submodule, children first, then on self (as init code uses it)."""
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    def share_memory(self) -> "Module":
        return self._apply(lambda t: t.share_memory_())

    # ---------------------------------------------------------------------------------------------- conversion

    def _apply(self, fn: Callable[[Tensor], Tensor], recurse: bool = True) -> "Module":
        """fn on every parameter, gradient and buffer, in place: a parameter keeps its identity (optimizers and
        tied modules holding it see the new data), as torch's `param.data = fn(param)`."""
        if recurse:
            for module in self.children():
                module._apply(fn)
        for key, param in self._parameters.items():
            if param is None:
                continue
            with _no_grad():
                applied = fn(param)
            if applied is not param:
                _C._set_data(param, applied)
            grad = param.grad
            if grad is not None:
                with _no_grad():
                    grad_applied = fn(grad)
                if grad_applied is not grad:
                    param.grad = None
                    param.grad = grad_applied.detach()
        for key, buf in self._buffers.items():
            if buf is not None:
                self._buffers[key] = fn(buf)
        return self

    def to(self, *args: Any, **kwargs: Any) -> "Module":
        """to(device), to(dtype), to(device, dtype), to(tensor), with non_blocking=: floating-point (and complex)
        parameters and buffers take the dtype; all take the device. In place; returns self."""
        device, dtype, non_blocking, memory_format = _parse_to(*args, **kwargs)
        if dtype is not None and not (dtype.is_floating_point or dtype.is_complex):
            raise TypeError(f"nn.Module.to only accepts floating point or complex dtypes, but got desired "
                            f"dtype={dtype}")

        def convert(t: Tensor) -> Tensor:
            target = dtype if (dtype is not None and (t.is_floating_point() or t.is_complex())) else None
            if target is not None and t.is_complex() and not target.is_complex:
                target = None  # torch: complex tensors keep their dtype when given a real one (with a warning)
            if device is None:
                moved = t.to(target, non_blocking=non_blocking) if target is not None else t
            elif target is None:
                moved = t.to(device, non_blocking=non_blocking)
            else:
                moved = t.to(device, target, non_blocking=non_blocking)
            # torch's memory_format applies to the 4-D (5-D for channels_last_3d) parameters and buffers only
            if memory_format is not None and moved.dim() in (4, 5) and int(memory_format) in (2, 3):
                if moved.dim() == (4 if int(memory_format) == 2 else 5):
                    moved = moved.contiguous(memory_format=memory_format)
            return moved

        return self._apply(convert)

    def cuda(self, device: Any = None) -> "Module":
        return self._apply(lambda t: t.cuda(device))

    def cpu(self) -> "Module":
        return self._apply(lambda t: t.cpu())

    def type(self, dst_type: Any) -> "Module":
        return self._apply(lambda t: t.to(dst_type))

    def float(self) -> "Module":
        return self._apply(lambda t: t.float() if t.is_floating_point() else t)

    def double(self) -> "Module":
        return self._apply(lambda t: t.double() if t.is_floating_point() else t)

    def half(self) -> "Module":
        return self._apply(lambda t: t.half() if t.is_floating_point() else t)

    def bfloat16(self) -> "Module":
        return self._apply(lambda t: t.bfloat16() if t.is_floating_point() else t)

    def to_empty(self, *, device: Any, recurse: bool = True) -> "Module":
        return self._apply(lambda t: _C.empty(list(t.shape), dtype=t.dtype, device=device), recurse)

    # ---------------------------------------------------------------------------------------------- state

    def _save_to_state_dict(self, destination: dict, prefix: str, keep_vars: bool) -> None:
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if keep_vars else buf.detach()
        extra = type(self).get_extra_state
        if extra is not Module.get_extra_state:
            destination[prefix + "_extra_state"] = self.get_extra_state()

    def state_dict(self, *args: Any, destination: dict | None = None, prefix: str = "",
                   keep_vars: bool = False) -> dict[str, Any]:
        """Every parameter and persistent buffer by its dotted name ("layers.0.weight"), detached, in
        registration order: torch's keys, so a checkpoint moves between the two libraries."""
        if args:  # torch's deprecated positional form state_dict(destination, prefix, keep_vars)
            destination = args[0]
            if len(args) > 1:
                prefix = args[1]
            if len(args) > 2:
                keep_vars = args[2]
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()  # type: ignore[attr-defined]
        metadata = getattr(destination, "_metadata", None)
        if metadata is not None:
            metadata[prefix[:-1]] = {"version": self._version}
        for hook in self._state_dict_pre_hooks.values():
            hook(self, prefix, keep_vars)
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars)
        for hook in self._state_dict_hooks.values():
            result = hook(self, destination, prefix, {})
            if result is not None:
                destination = result
        return destination

    def get_extra_state(self) -> Any:
        raise RuntimeError("Reached a code path in Module.get_extra_state() that should never be called.")

    def set_extra_state(self, state: Any) -> None:
        raise RuntimeError("Reached a code path in Module.set_extra_state() that should never be called.")

    def register_state_dict_pre_hook(self, hook: Callable) -> RemovableHandle:
        return RemovableHandle.add(self._state_dict_pre_hooks, hook)

    def register_state_dict_post_hook(self, hook: Callable) -> RemovableHandle:
        return RemovableHandle.add(self._state_dict_hooks, hook)

    def register_load_state_dict_pre_hook(self, hook: Callable) -> RemovableHandle:
        return RemovableHandle.add(self._load_state_dict_pre_hooks, hook)

    def register_load_state_dict_post_hook(self, hook: Callable) -> RemovableHandle:
        return RemovableHandle.add(self._load_state_dict_post_hooks, hook)

    def _load_from_state_dict(self, state_dict: dict, prefix: str, local_metadata: dict, strict: bool,
                              missing_keys: list, unexpected_keys: list, error_msgs: list,
                              assign: bool = False) -> None:
        for hook in self._load_state_dict_pre_hooks.values():
            hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs)
        persistent_buffers = {k: v for k, v in self._buffers.items() if k not in self._non_persistent_buffers_set}
        local_state = {k: v for k, v in itertools.chain(self._parameters.items(), persistent_buffers.items())
                       if v is not None}
        for name, param in local_state.items():
            key = prefix + name
            if key not in state_dict:
                if strict:
                    missing_keys.append(key)
                continue
            input_param = state_dict[key]
            if not isinstance(input_param, Tensor):
                input_param = _to_yaten_tensor(input_param)
                if input_param is None:
                    error_msgs.append(f'While copying the parameter named "{key}", expected torch.Tensor or '
                                      f"Tensor-like object from checkpoint but received {type(state_dict[key])}")
                    continue
            if tuple(input_param.shape) != tuple(param.shape):
                error_msgs.append(f"size mismatch for {key}: copying a param with shape "
                                  f"{_shape_text(input_param.shape)} from checkpoint, the shape in current model is "
                                  f"{_shape_text(param.shape)}.")
                continue
            try:
                if assign:
                    if name in self._parameters:
                        new = input_param if isinstance(input_param, Parameter) else \
                            Parameter(input_param, requires_grad=param.requires_grad)
                        self._parameters[name] = new
                    else:
                        self._buffers[name] = input_param
                else:
                    with _no_grad():
                        param.copy_(input_param)
            except Exception as exc:  # noqa: BLE001 - reported as torch reports it, with the key
                error_msgs.append(f'While copying the parameter named "{key}", whose dimensions in the model are '
                                  f"{_shape_text(param.shape)} and whose dimensions in the checkpoint are "
                                  f"{_shape_text(input_param.shape)}, an exception occurred : {exc.args}.")
        extra_key = prefix + "_extra_state"
        if type(self).set_extra_state is not Module.set_extra_state:
            if extra_key in state_dict:
                self.set_extra_state(state_dict[extra_key])
            elif strict:
                missing_keys.append(extra_key)
        elif strict and extra_key in state_dict:
            unexpected_keys.append(extra_key)
        if strict:
            for key in state_dict.keys():
                if key.startswith(prefix) and key != extra_key:
                    input_name = key[len(prefix):].split(".", 1)
                    if input_name[0] not in self._modules and input_name[0] not in local_state:
                        unexpected_keys.append(key)

    def load_state_dict(self, state_dict: Any, strict: bool = True, assign: bool = False) -> Any:
        """Copies parameters and buffers from state_dict (a yaten or torch state dict, or a safetensors mapping)
        into this module; with strict, missing and unexpected keys are an error, listed as torch lists them.
        assign=True takes the checkpoint's tensors themselves instead of copying into the module's."""
        if not hasattr(state_dict, "keys") or not hasattr(state_dict, "__getitem__"):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing_keys: list[str] = []
        unexpected_keys: list[str] = []
        error_msgs: list[str] = []
        metadata = getattr(state_dict, "_metadata", None)
        state_dict = OrderedDict(state_dict)
        if metadata is not None:
            state_dict._metadata = metadata  # type: ignore[attr-defined]

        def load(module: Module, local_state_dict: dict, prefix: str = "") -> None:
            local_metadata = {} if metadata is None else metadata.get(prefix[:-1], {})
            module._load_from_state_dict(local_state_dict, prefix, local_metadata, True, missing_keys,
                                         unexpected_keys, error_msgs, assign)
            for name, child in module._modules.items():
                if child is not None:
                    child_prefix = prefix + name + "."
                    child_state = {k: v for k, v in local_state_dict.items() if k.startswith(child_prefix)}
                    load(child, child_state, child_prefix)
            incompatible = _IncompatibleKeysResult(missing_keys, unexpected_keys)
            for hook in module._load_state_dict_post_hooks.values():
                hook(module, incompatible)

        load(self, state_dict)
        if strict:
            if unexpected_keys:
                error_msgs.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in unexpected_keys)))
            if missing_keys:
                error_msgs.insert(0, "Missing key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in missing_keys)))
        if error_msgs:
            raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
                type(self).__name__, "\n\t".join(error_msgs)))
        return _IncompatibleKeysResult(missing_keys, unexpected_keys)

    # ---------------------------------------------------------------------------------------------- printing

    def extra_repr(self) -> str:
        """The text inside this module's parentheses in repr (a layer's sizes and options)."""
        return ""

    def _get_name(self) -> str:
        return type(self).__name__

    def __repr__(self) -> str:
        extra_lines = []
        extra = self.extra_repr()
        if extra:
            extra_lines = extra.split("\n")
        child_lines = []
        for key, module in self._modules.items():
            mod_str = _addindent(repr(module), 2)
            child_lines.append("(" + key + "): " + mod_str)
        lines = extra_lines + child_lines
        main = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                main += extra_lines[0]
            else:
                main += "\n  " + "\n  ".join(lines) + "\n"
        return main + ")"

    def __getstate__(self) -> dict:
        return self.__dict__.copy()


def _check_name(name: Any, kind: str) -> None:
    if not isinstance(name, str):
        raise TypeError(f"{kind} name should be a string. Got {type(name).__name__}")
    if "." in name:
        raise KeyError(f'{kind} name can\'t contain "."')
    if name == "":
        raise KeyError(f'{kind} name can\'t be empty string ""')


def _remove_from(instance_dict: dict, *containers: Any, name: str) -> None:
    if name in instance_dict:
        del instance_dict[name]
    for c in containers:
        if name in c:
            if isinstance(c, dict):
                del c[name]
            else:
                c.discard(name)


def _shape_text(shape: Any) -> str:
    return f"torch.Size([{', '.join(str(int(s)) for s in shape)}])"


def _to_yaten_tensor(value: Any) -> Tensor | None:
    """A torch tensor or NumPy array in a state dict, as a yaten tensor (shared memory where possible)."""
    if type(value).__module__.startswith("torch") and hasattr(value, "__dlpack__"):
        import numpy as np

        t = value.detach().cpu()
        if str(t.dtype) == "torch.bfloat16":
            return _C.tensor(t.float().numpy()).to(_C.bfloat16)
        return _C.tensor(np.ascontiguousarray(t.numpy()))
    if type(value).__module__ == "numpy":
        from ... import from_numpy

        return from_numpy(value)
    return None


def _parse_to(*args: Any, **kwargs: Any) -> tuple[Any, Any, bool, Any]:
    """(device, dtype, non_blocking, memory_format) from Module.to's arguments, as torch._C._nn._parse_to."""
    from ..._device import device as device_class

    device = kwargs.pop("device", None)
    dtype = kwargs.pop("dtype", None)
    non_blocking = kwargs.pop("non_blocking", False)
    memory_format = kwargs.pop("memory_format", None)
    if kwargs:
        raise TypeError(f"to() received an invalid combination of arguments: {sorted(kwargs)}")
    for a in args:
        if isinstance(a, _C.dtype):
            dtype = a
        elif isinstance(a, Tensor):
            device, dtype = a.device, a.dtype
        elif isinstance(a, bool):
            non_blocking = a
        elif isinstance(a, (str, int, device_class)):
            device = a
        else:
            raise TypeError(f"to() received an invalid argument of type {type(a).__name__}")
    if isinstance(device, int):
        device = f"cuda:{device}"
    if device is not None:
        device = device_class(device)
    return device, dtype, non_blocking, memory_format
