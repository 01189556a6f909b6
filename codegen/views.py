"""The typed middle layer: what the C++ templates consume, made from the model (model.py).

gen.py assembles files from these; the templates only read their fields. Every class is frozen and documented field
by field, so a template's needs are written down here rather than discovered in a dict. The Python side (bindings,
stubs, the reference) has its own module, python_views.py.

  OpView            one overload: its C++ API, its kernels (a Kernel each), its autograd plan
  Kernel            CompositeKernel | PointwiseKernel | TypedKernel: one backend's wrapper and the kernel it calls
  AutogradPlan      OutPlan | NondifferentiablePlan | FallbackPlan | FormulaPlan: what the Autograd kernel does
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar, TypedDict, Union

from . import cpp
from .model import AUTOCAST_POLICIES, CPP_DTYPE, DTYPE_SETS, DTYPES, Op, dtype_rule

KERNEL_NAMESPACE = {"CPU": "native::cpu", "CUDA": "native::cuda", "CompositeImplicit": "native"}


def site(op: Op) -> str:
    """Where the entry is, `ops.yaml:97` (for files nothing compiles, and the op_sites table)."""
    return f"{Path(op.location.file).name}:{op.location.line}"


def source(op: Op) -> str:
    """How a compiled file names the entry it came from: by file and schema, never by line (Note [ops.yaml line
    numbers live in one compiled file], gen.py); a `forms:` overload names the entry it was derived from."""
    name = Path(op.location.file).name
    return f"{name} (a form of {op.derived_from})" if op.derived_from else name


# ------------------------------------------------------------------------------------------------ kernels


@dataclass(frozen=True)
class DtypeCase:
    enum: str  # the ScalarType enumerator of one case of the dtype switch: "ScalarType::Float"
    ctype: str  # the C++ type the kernel is instantiated with in that case: "float"


@dataclass(frozen=True)
class KernelBase:
    backend: str  # "CPU", "CUDA" or "CompositeImplicit"
    key: str | None  # the dispatch key it registers under (None for a composite, which registers under all)
    wrapper: str  # the generated wrapper's C++ name: add_Tensor_cpu
    kernel: str  # the hand-written kernel it calls: add_kernel
    namespace: str  # where that kernel lives: native::cpu
    header: str | None  # the header that declares it (found in csrc/), None when not found
    contract: str  # the kernel's type as a function type: "void(const TensorIterator& iter, const Scalar& alpha)"
    call_args: str  # the arguments the wrapper passes it: "iter, alpha"
    declaration: str  # the declaration a kernel author writes: "void add_kernel(const TensorIterator& iter, ...);"


@dataclass(frozen=True)
class CompositeKernel(KernelBase):
    kind: ClassVar[str] = "composite"
    forward_to: str | None  # a generated form that calls another overload (out=, in-place) instead of a kernel


@dataclass(frozen=True)
class DtypedKernel(KernelBase):
    dtypes: tuple[DtypeCase, ...]  # the cases of the dtype switch: the dtypes ops.yaml declares for the backend
    dtype_names: str  # the same, for messages: "float32, float64"
    rule_name: str | None  # the op's dtype rule as ops.yaml spells it (None: the default)


@dataclass(frozen=True)
class PointwiseKernel(DtypedKernel):
    kind: ClassVar[str] = "pointwise"
    rule: str  # the TensorIterator rule enumerator: Promote, PromoteFloat or Compare
    output: str | None  # the argument written (out=, or self in place), None for a new result
    output_is_input: bool  # the op is in place: its output is also an input
    inputs: str  # the input tensors, comma-separated, as TensorIterator takes them


@dataclass(frozen=True)
class TypedKernel(DtypedKernel):
    kind: ClassVar[str] = "typed"
    dtype_expr: str  # the C++ expression for the dtype to switch on: "promoted_dtype({self, other})"


Kernel = Union[CompositeKernel, PointwiseKernel, TypedKernel]


class _KernelFields(TypedDict):  # KernelBase's fields that do not depend on the kind (for mypy's ** checks)
    backend: str
    key: str | None
    wrapper: str
    kernel: str
    namespace: str
    header: str | None


class _DtypeFields(TypedDict):  # DtypedKernel's own fields
    dtypes: tuple[DtypeCase, ...]
    dtype_names: str
    rule_name: str | None


def _dtype_cases(dtypes: tuple[str, ...]) -> tuple[DtypeCase, ...]:
    return tuple(DtypeCase(CPP_DTYPE[d][0], CPP_DTYPE[d][1]) for d in DTYPES if d in dtypes)


def kernel_view(op: Op, backend: str) -> Kernel:
    """What the wrapper of `op` on `backend` does and what its kernel must look like."""
    schema = op.schema
    ref = op.dispatch[backend]
    args = schema.arguments
    common = _KernelFields(backend=backend, key=backend if backend != "CompositeImplicit" else None,
                           wrapper=cpp.wrapper_name(schema, "composite" if backend == "CompositeImplicit" else backend),
                           kernel=ref.name, namespace=KERNEL_NAMESPACE[backend], header=ref.header)
    if backend == "CompositeImplicit":
        contract = f"{cpp.return_type(schema.returns)}({cpp.parameters(schema, False)})"
        return CompositeKernel(**common, contract=contract, call_args=", ".join(a.name for a in args),
                               declaration=f"{cpp.return_type(schema.returns)} {ref.name}({cpp.parameters(schema, False)});",
                               forward_to=op.forward_to)
    dtyped = _DtypeFields(dtypes=_dtype_cases(op.dtypes[backend]), rule_name=op.dtype_rule,
                          dtype_names=", ".join(d for d in DTYPES if d in op.dtypes[backend]))
    if op.is_pointwise:
        extra = [a for a in args if a.type.base != "Tensor"]
        out = next((a for a in args if a.type.is_mutable and a.keyword_only), None)
        inputs = [a.name for a in args if a.type.base == "Tensor" and not (a.keyword_only and a.type.is_mutable)]
        contract = "void(" + ", ".join(["const TensorIterator& iter"] +
                                       [f"{cpp.arg_type(a.type)} {a.name}" for a in extra]) + ")"
        return PointwiseKernel(**common, **dtyped, contract=contract, declaration=_declaration(ref.name, contract),
                               call_args=", ".join(["iter"] + [a.name for a in extra]),
                               rule=str(dtype_rule(op.dtype_rule).iterator_enum),
                               output=out.name if out else ("self" if schema.is_inplace else None),
                               output_is_input=schema.is_inplace, inputs=", ".join(inputs))
    rule = op.dtype_rule
    if rule == "self" and schema.arguments and schema.arguments[0].type.list_size is not None:
        # a multi-tensor op: its first tensor's
        dtype_expr = f'detail::list_dtype("{schema.full_name}", {schema.arguments[0].name})'
    elif rule == "self":  # self's, or without one the first argument's (the query of _flash_attention)
        dtype_expr = f"{'self' if schema.argument('self') else schema.arguments[0].name}.dtype()"
    elif rule == "self_or_dtype":
        dtype_expr = "dtype.value_or(self.dtype())"
    elif rule == "factory":
        scalars = [a.name for a in args if a.type.base == "Scalar"]
        dtype_expr = f"factory_dtype(dtype, {{{', '.join(scalars)}}})"
    else:  # promote
        dtype_expr = "promoted_dtype({" + ", ".join(a.name for a in args if a.type.base == "Tensor") + "})"
    contract = f"{cpp.return_type(schema.returns)}({cpp.parameters(schema, False)})"
    return TypedKernel(**common, **dtyped, contract=contract, declaration=_declaration(ref.name, contract),
                       call_args=", ".join(a.name for a in args), dtype_expr=dtype_expr)


def _declaration(name: str, contract: str) -> str:
    ret, params = contract.split("(", 1)
    return f"{ret} {name}({params};"


# ------------------------------------------------------------------------------------------------ autograd


@dataclass(frozen=True)
class Output:
    name: str  # the C++ name of the result: result, result0, or the schema's return name
    index: int  # its position among the returns
    differentiable: bool  # whether it carries a gradient (output_differentiability)


@dataclass(frozen=True)
class Grad:
    input: str  # the differentiable input
    position: int  # its position among the node's next edges
    formula: str | None  # its C++ gradient expression, None when ops.yaml gives none or a JointGrad computes it
    joint: bool = False  # its gradient comes from a JointGrad (formula is then None)


@dataclass(frozen=True)
class JointGrad:
    """One formula for several inputs (`input, weight, bias: "..."` in ops.yaml): a std::tuple of their gradients,
    computed once when any of them is wanted, with `grad_input_mask` (a std::array<bool, N>) saying which are."""
    grads: tuple[Grad, ...]  # the inputs, in the key's order (the tuple's order)
    formula: str

    @property
    def mask(self) -> str:
        """grad_input_mask's values: whether each input's edge wants a gradient."""
        return ", ".join(f"next_edges[{g.position}].valid()" for g in self.grads)


@dataclass(frozen=True)
class ListGrad:
    input: str  # a Tensor[] input
    formula: str  # its gradient expression, a std::vector<Tensor>


@dataclass(frozen=True)
class SavedValue:
    name: str  # a non-tensor argument the formulas read
    type: str  # the C++ type it is saved as


@dataclass(frozen=True)
class PlanBase:
    wrapper: str  # the Autograd kernel's C++ name: add_Tensor_autograd
    op_name: str  # the overload: add.Tensor
    inputs: tuple[str, ...]  # the differentiable Tensor inputs
    list_inputs: tuple[str, ...]  # the Tensor[] inputs
    num_outputs: int  # how many results the op returns
    inplace: bool  # the op is in place (its result is self, rebased on the new node)
    need_expression: str  # the C++ condition for recording: any input (or list element) requires grad
    view_call: str | None  # a view op: the call that makes the view again from its base (view tracking), else None
    view_captures: tuple[str, ...]  # what that call captures besides the base
    converts: bool  # a dtype conversion (_to_copy): an integer result stays plain instead of raising as torch's
    # "Autograd not support dtype" (autograd::set_differentiable_history)


# The ops whose integer or bool results of inputs that require grad are plain tensors, not an error.
CONVERSIONS = frozenset({"_to_copy"})


@dataclass(frozen=True)
class OutPlan(PlanBase):
    kind: ClassVar[str] = "out"  # out=: refuses inputs that require grad, as torch does


@dataclass(frozen=True)
class NondifferentiablePlan(PlanBase):
    kind: ClassVar[str] = "nondifferentiable"  # no output carries a gradient: just redispatch


@dataclass(frozen=True)
class FallbackPlan(PlanBase):
    kind: ClassVar[str] = "fallback"  # no formula: record a node whose backward raises, naming the op
    outputs: tuple[Output, ...]


@dataclass(frozen=True)
class FormulaPlan(PlanBase):
    kind: ClassVar[str] = "formula"  # a generated node from `derivatives:`
    node: str  # the node's class name, torch's: AddBackward0
    defines_node: bool  # False for an in-place form derived from its functional: it records the functional's node
    outputs: tuple[Output, ...]
    grads: tuple[Grad, ...]  # one per differentiable input, in order
    joint_grads: tuple[JointGrad, ...]  # the formulas shared by several inputs
    list_grads: tuple[ListGrad, ...]  # one per Tensor[] input with a formula
    clone_self: bool  # an in-place op whose formula reads self's old value saves a copy, made before the op
    saved_tensors: tuple[str, ...]  # the inputs the formulas read (saved as SavedVariables)
    saved_lists: tuple[str, ...]  # the Tensor[] inputs the formulas read
    saved_values: tuple[SavedValue, ...]  # the non-tensor arguments the formulas read
    saved_outputs: tuple[str, ...]  # the results the formulas read
    source: str  # the entry, for the node's comment


@dataclass(frozen=True)
class MultiTensorPlan(PlanBase):
    kind: ClassVar[str] = "multi_tensor"  # a Tensor[] op with a kernel (_foreach_add_): refuses to be recorded


AutogradPlan = Union[OutPlan, NondifferentiablePlan, FallbackPlan, FormulaPlan, MultiTensorPlan]


class _PlanFields(TypedDict):  # PlanBase's fields (for mypy's ** checks)
    wrapper: str
    op_name: str
    inputs: tuple[str, ...]
    list_inputs: tuple[str, ...]
    num_outputs: int
    inplace: bool
    need_expression: str
    view_call: str | None
    view_captures: tuple[str, ...]
    converts: bool


def _camel(name: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in name.strip("_").split("_"))


def _functional_of(op: Op, family: list[Op]) -> Op | None:
    """The functional entry an out= overload belongs to: the one it was derived from, else the overload of the same
    name without `out` (`round.decimals_out` -> `round.decimals`)."""
    if op.derived_from:
        return next((o for o in family if o.schema.full_name == op.derived_from), None)
    overload = op.schema.overload.removesuffix("out").removesuffix("_") if op.schema.overload else ""
    return next((o for o in family if not o.schema.is_out and not o.schema.is_inplace
                 and o.schema.name == op.schema.name and (o.schema.overload or "") == overload), None)


def autograd_plan(op: Op, family: list[Op]) -> AutogradPlan | None:
    """What the Autograd kernel of `op` does: record a generated backward node (`derivatives:`), record a node that
    refuses to differentiate (no formula), refuse out= with inputs that require grad, just redispatch (no output is
    differentiable), or nothing (None: composites, which get autograd from the ops they call, and ops without Tensor
    results)."""
    schema = op.schema
    if op.is_composite and not op.derivatives:
        return None
    tensor_returns = [r for r in schema.returns if r.type.is_tensor and r.type.list_size is None]
    inputs = [a for a in schema.arguments if a.type.is_tensor and a.type.list_size is None and
              not (a.keyword_only and a.type.is_mutable)]
    list_inputs = [a for a in schema.arguments if a.type.base == "Tensor" and a.type.list_size is not None]
    multi_tensor = bool(list_inputs) and not op.derivatives and \
        all(r.type.base == "Tensor" and r.type.list_size is not None for r in schema.returns)
    if not multi_tensor and (not tensor_returns or len(tensor_returns) != len(schema.returns) or
                             (not inputs and not list_inputs)):
        return None
    is_view = any(r.type.alias and not r.type.is_mutable for r in schema.returns)
    # Whether to record: any tensor argument, then any tensor of a list, requires grad.
    terms = [f"autograd::compute_requires_grad({{{', '.join('&' + a.name for a in inputs)}}})"] if inputs else []
    terms += [f"autograd::compute_requires_grad({a.name})" for a in list_inputs]
    view_call: str | None = None
    view_captures: tuple[str, ...] = ()
    if is_view and inputs and inputs[0].name == "self":
        view_call = (f"{op.namespace}::{cpp.cpp_name(schema)}(" +
                     ", ".join("base_" if a.name == "self" else a.name for a in schema.arguments) + ")")
        view_captures = tuple(a.name for a in schema.arguments if a.name != "self")
    base = _PlanFields(wrapper=cpp.wrapper_name(schema, "autograd"), inputs=tuple(a.name for a in inputs),
                       list_inputs=tuple(a.name for a in list_inputs), op_name=schema.full_name,
                       num_outputs=len(schema.returns), inplace=schema.is_inplace,
                       need_expression=" || ".join(terms), view_call=view_call, view_captures=view_captures,
                       converts=schema.name in CONVERSIONS)
    if multi_tensor:
        # Note [Multi-tensor ops and autograd]: the _foreach and _fused ops with kernels of their own run under
        # no_grad, as optimizers and clipping call them; given a tensor that requires grad with grad mode on they
        # raise, so that no result silently lacks its history.
        return MultiTensorPlan(**base)
    if schema.is_out:
        functional = _functional_of(op, family)
        if functional is not None and functional.output_differentiability and \
                not any(functional.output_differentiability) and \
                any(d in DTYPE_SETS["floating"] for ds in functional.dtypes.values() for d in ds):
            # torch: out= of logical_xor and eq runs whatever requires grad. An op of integers only (the bitwise
            # ops) has no derivatives entry in torch, whose out= then refuses an out= that requires grad.
            return NondifferentiablePlan(**base)
        # torch refuses when any argument requires grad, the out= tensors too
        outs = [a for a in schema.arguments if a.type.is_tensor and a.type.list_size is None and a.keyword_only
                and a.type.is_mutable]
        fields = base.copy()
        fields["inputs"] = base["inputs"] + tuple(a.name for a in outs)
        return OutPlan(**fields)
    formulas = dict(op.derivatives)
    differentiability = list(op.output_differentiability)
    if schema.is_inplace and not formulas and op.derived_from:
        functional = next((o for o in family if o.schema.full_name == op.derived_from), None)
        formulas = dict(functional.derivatives) if functional else {}
        differentiability = differentiability or (list(functional.output_differentiability) if functional else [])
    outputs = tuple(Output(r.name or ("result" if len(schema.returns) == 1 else f"result{i}"), i,
                           differentiability[i] if differentiability else True)
                    for i, r in enumerate(schema.returns))
    if not any(o.differentiable for o in outputs):
        return NondifferentiablePlan(**base)
    if not formulas:
        return FallbackPlan(**base, outputs=outputs)
    # Node classes are numbered per name over the entries with their own formulas, as torch numbers them; a derived
    # in-place form records its functional's node (mul_.Tensor: MulBackward0, like mul.Tensor).
    by_name = {o.schema.full_name: o for o in family}

    def shares_node(o: Op) -> bool:  # an in-place form whose formulas are its functional's
        functional = by_name.get(o.derived_from or "")
        return o.schema.is_inplace and functional is not None and dict(functional.derivatives) == dict(o.derivatives)

    owners = [o.schema.full_name for o in family if o.derivatives and not o.schema.is_out and not shares_node(o)]
    shares = shares_node(op)
    index = owners.index(op.derived_from if shares and op.derived_from else schema.full_name)
    rewritten = {}
    for name, formula in formulas.items():
        f = formula
        for t in inputs:  # shapes and dtypes come from the inputs' metadata, saved without the tensors
            f = re.sub(rf"\b{t.name}\.sizes\(\)", f"{t.name}_info.sizes", f)
            f = re.sub(rf"\b{t.name}\.dtype\(\)", f"{t.name}_info.dtype", f)
            f = re.sub(rf"\b{t.name}\.dim\(\)", f"int64_t({t.name}_info.sizes.size())", f)
        rewritten[name] = f
    text = " ".join(rewritten.values())

    def used(n: str) -> bool:  # an argument, not a qualified call of the same name (`yaten::real(grad)`)
        return re.search(rf"(?<!::)\b{n}\b(?!_info)", text) is not None

    saved_tensors = tuple(a.name for a in inputs if used(a.name))
    joint = [key for key in rewritten if ", " in key]  # parse.py writes a shared key as "input, weight, bias"
    in_joint = {name for key in joint for name in key.split(", ")}
    grads = tuple(Grad(a.name, k, rewritten.get(a.name), a.name in in_joint) for k, a in enumerate(inputs))
    by_input = {g.input: g for g in grads}
    return FormulaPlan(
        **base, node=f"{_camel(schema.name)}Backward{index}", defines_node=not shares, outputs=outputs,
        grads=grads,
        joint_grads=tuple(JointGrad(tuple(by_input[name] for name in key.split(", ")), rewritten[key])
                          for key in joint),
        list_grads=tuple(ListGrad(a.name, rewritten[a.name]) for a in list_inputs if a.name in rewritten),
        clone_self=schema.is_inplace and "self" in saved_tensors,
        saved_tensors=saved_tensors, saved_lists=tuple(a.name for a in list_inputs if used(a.name)),
        saved_values=tuple(SavedValue(a.name, cpp.arg_type(a.type).replace("const ", "").replace("&", ""))
                           for a in schema.arguments if a.type.base != "Tensor" and used(a.name)),
        saved_outputs=tuple(o.name for o in outputs if used(o.name)), source=source(op))


# ------------------------------------------------------------------------------------------------ one overload


@dataclass(frozen=True)
class AutocastPlan:
    """What an op's Autocast kernel does (Note [Autocast], csrc/dispatch/autocast.h): cast, then call the op again
    below Autocast."""
    wrapper: str  # its C++ name: mm_autocast
    cpu: str  # the autocast::Policy enumerator on the CPU (None, Lower, Fp32, Promote)
    cuda: str  # and on CUDA
    tensors: str  # "&self, &mat2": the Tensor arguments, among which promote picks the widest dtype
    lists: str  # "&tensors": the Tensor[] arguments, likewise
    dtype_given: str  # "dtype.has_value()" for an op with a `dtype=` argument (fp32 leaves it alone), else "false"
    call_args: str  # the arguments of the call below Autocast, its tensors cast: "cast_(self), cast_(mat2)"
    summary: str  # "CPU lower, CUDA lower", for comments and the registration's site


def autocast_plan(op: Op) -> AutocastPlan | None:
    if not op.autocast:
        return None
    args = op.schema.arguments
    policy = {b: AUTOCAST_POLICIES[p] for b, p in op.autocast.items()}
    dtype_arg = next((a for a in args if a.name == "dtype" and a.type.base == "ScalarType" and a.type.optional), None)
    return AutocastPlan(
        wrapper=cpp.wrapper_name(op.schema, "autocast"), cpu=policy.get("CPU", "None"),
        cuda=policy.get("CUDA", "None"),
        tensors=", ".join(f"&{a.name}" for a in args if a.type.base == "Tensor" and a.type.list_size is None),
        lists=", ".join(f"&{a.name}" for a in args if a.type.base == "Tensor" and a.type.list_size is not None),
        dtype_given="dtype.has_value()" if dtype_arg else "false",
        call_args=", ".join(f"cast_({a.name})" if a.type.base == "Tensor" else a.name for a in args),
        summary=", ".join(f"{b} {p}" for b, p in op.autocast.items()))


@dataclass(frozen=True)
class OpView:
    full_name: str  # add.Tensor
    qualified_name: str  # yaten::add.Tensor, the dispatcher's name
    trampoline: str  # the C++ name of the Python-key trampoline
    arg_names: tuple[str, ...]  # the schema's argument names
    func: str  # the schema as ops.yaml writes it
    line: int  # its ops.yaml line (for `show` and the pieces, never compiled)
    source: str  # how compiled files name the entry (see source())
    site: str  # the ops file's name, for registrations (the dispatcher completes it from op_sites.cpp)
    cpp_name: str  # the C++ API's function name: add, add_, add_out
    ret: str  # its C++ return type
    params_decl: str  # its parameters with defaults, for the declaration
    params: str  # its parameters, for the definition
    param_types: str  # its parameter types, for the typed kernel pointer
    call_args: str  # the argument names, comma-separated
    keyset: str  # the C++ expression for the call's dispatch key set
    kernels: tuple[Kernel, ...]  # its composite, CPU and CUDA wrappers, in that order, as declared
    mutated: tuple[str, ...]  # the arguments it writes (their version counters are bumped)
    autograd: AutogradPlan | None  # what its Autograd kernel does, None when it has none
    autocast: AutocastPlan | None  # what its Autocast kernel does, None when it has no `autocast:` policy


def _keyset_expression(op: Op) -> str:
    tensors = [a.name for a in op.schema.arguments if a.type.base == "Tensor"]
    if tensors:
        return f"dispatch_key_set({', '.join(tensors)})"
    if op.schema.argument("device"):
        return "DispatchKeySet(backend_key(device.value_or(Device(DeviceType::CPU))))"
    return "DispatchKeySet(DispatchKey::CPU)"


def op_view(op: Op, family: list[Op] | None = None) -> OpView:
    schema = op.schema
    first_default = cpp.unambiguous_first_default(schema, [o.schema for o in family or [op]])
    return OpView(
        full_name=schema.full_name, qualified_name=f"{op.namespace}::{schema.full_name}",
        trampoline=cpp.wrapper_name(schema, "python"), arg_names=tuple(a.name for a in schema.arguments),
        func=str(schema), line=op.location.line, source=source(op), site=Path(op.location.file).name,
        cpp_name=cpp.cpp_name(schema), ret=cpp.return_type(schema.returns),
        params_decl=cpp.parameters(schema, True, first_default), params=cpp.parameters(schema, False),
        param_types=cpp.parameter_types(schema), call_args=", ".join(a.name for a in schema.arguments),
        keyset=_keyset_expression(op),
        kernels=tuple(kernel_view(op, b) for b in ("CompositeImplicit", "CPU", "CUDA") if b in op.dispatch),
        mutated=tuple(a.name for a in schema.arguments if a.type.is_mutable),
        autograd=autograd_plan(op, family or [op]), autocast=autocast_plan(op))


# ------------------------------------------------------------------------------------------------ registrations


@dataclass(frozen=True)
class Registration:
    name: str  # the overload registered: add.Tensor
    wrapper: str  # the function registered for it
    site: str  # where it was declared, as the dispatcher prints it


def _c_string(text: str) -> str:  # the text inside a C++ string literal
    return text.replace("\\", "\\\\").replace('"', '\\"')


def _header_text(header: str | None) -> str:
    return f" in csrc/{header}" if header else ""


def impl_blocks(views: list[OpView], keys: tuple[str, ...], cuda_file: bool) -> dict[str, list[Registration]]:
    """What each YATEN_LIBRARY_IMPL block of a file registers: CUDA kernels in the .cu file, the rest (CPU kernels,
    and composites for every backend) in the .cpp file."""
    blocks: dict[str, list[Registration]] = {key: [] for key in keys + (("Autograd",) if "CPU" in keys else ())}
    for v in views:
        for k in v.kernels:
            # the site names the wrapper and the kernel it runs, for _dispatch_dump and the dispatcher's messages
            if isinstance(k, CompositeKernel) and not cuda_file:
                runs = f"generated: {_c_string(k.forward_to)}" if k.forward_to else \
                    f"{k.namespace}::{k.kernel}{_header_text(k.header)}"
                for key in keys + (("Autograd",) if "CPU" in keys and not v.autograd else ()):
                    blocks[key].append(Registration(v.full_name, k.wrapper,
                                                    f"{v.site} (CompositeImplicit: {k.wrapper} -> {runs})"))
            elif k.backend in keys and (k.backend == "CUDA") == cuda_file:
                blocks[k.backend].append(Registration(
                    v.full_name, k.wrapper,
                    f"{v.site} ({k.wrapper} -> {k.namespace}::{k.kernel}<scalar_t>{_header_text(k.header)})"))
        if v.autograd and not cuda_file:
            blocks.setdefault("Autograd", []).append(Registration(v.full_name, v.autograd.wrapper,
                                                                  f"{v.site} (Autograd: {v.autograd.wrapper})"))
        if v.autocast and not cuda_file:
            blocks.setdefault("Autocast", []).append(Registration(
                v.full_name, v.autocast.wrapper, f"{v.site} (Autocast: {v.autocast.wrapper}, {v.autocast.summary})"))
    return {key: impls for key, impls in blocks.items() if impls}
