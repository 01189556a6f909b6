"""The typed middle layer of the Python side: the bindings, the stubs and the ops reference, made from the model.

  PythonBinding     one Python callable (a function of a module, or a Tensor method) and its overloads
  PythonOverload    one overload of it: the argument table the parser matches, the C++ call, the stub line
  ReferenceEntry    one row of docs/ops-reference.md
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from . import cpp
from .model import Op
from .views import site, source


@dataclass(frozen=True)
class PythonArg:
    name: str  # as Python spells it (self is `input` in a function, as torch's)
    type: str  # the ArgType enumerator the parser checks: Tensor, IntList, OptionalScalar, ...
    keyword_only: str  # "true" or "false", as the C++ table takes it
    optional: str  # "true" when it has a default and may be omitted
    size: int  # int[N]: N; otherwise 0


@dataclass(frozen=True)
class PythonOverload:
    ident: str  # the C++ name of its Signature table: function_add_Tensor
    full_name: str  # add.Tensor
    func: str  # the schema as ops.yaml writes it
    line: int  # its ops.yaml line, for `show` (never compiled)
    source: str  # how compiled files name the entry
    site: str  # ops.yaml:LINE, for the stubs
    signature: str  # as the TypeError prints it: "add(Tensor input, Tensor other, *, Number alpha=1)"
    args: tuple[PythonArg, ...]  # the table the parser matches, self excluded for a method
    call: str  # the C++ expression that calls the op with the parsed arguments
    returns_object: str | None  # an op returning a mutable argument returns that very object: a C++ expression
    # giving a new reference to it
    named_tuple: str | None  # the C++ name of its named-tuple type (torch's return_types), when it has one
    named_fields: tuple[str, ...] | None  # that tuple's fields
    stub: str  # its line in the .pyi stub


@dataclass(frozen=True)
class PythonBinding:
    name: str  # the Python name: add, or norm for linalg_norm in yaten.linalg
    method: bool  # a Tensor method (else a module function)
    module: str  # its python_module ("" for yaten itself)
    ident: str  # the C++ function's name: py_add, py_Tensor_add
    doc: str  # its docstring (the first overload's doc)
    overloads: tuple[PythonOverload, ...]  # in ops.yaml order, as the parser tries them
    line: int  # the first overload's ops.yaml line
    numbers_as_tensors: bool  # a Python number may stand for a Tensor argument (Note [Numbers given for tensors])


# torch's should_allow_numbers_as_tensors (python_arg_parser.cpp), by Python name; in-place and out= forms follow.
NUMBERS_AS_TENSORS = frozenset({"add", "sub", "subtract", "mul", "multiply", "div", "divide", "true_divide",
                                "floor_divide", "copy"})


def makes_tensors(op: Op) -> bool:
    """Factories (tag `factory`) and the `_like` ops: they take requires_grad= in Python, as in torch."""
    schema = op.schema
    returns_one = len(schema.returns) == 1 and schema.returns[0].type.is_tensor
    return returns_one and not schema.is_out and not schema.is_inplace and (
        "factory" in op.tags or schema.name.endswith("_like"))


def python_name(op: Op) -> str:
    """The function's name in its Python module: `linalg_norm` with python_module linalg is yaten.linalg.norm."""
    name = op.schema.name
    prefix = op.python_module.split(".")[0] + "_"
    return name[len(prefix):] if op.python_module and name.startswith(prefix) else name


def python_overload(op: Op, method: bool) -> PythonOverload:
    schema = op.schema
    specs = []
    accessors = []
    index = 0
    self_object = None
    # a factory (no Tensor argument) given no device= makes its tensor on yaten.set_default_device's device
    factory = not any(a.type.base == "Tensor" for a in schema.arguments)
    for a in schema.arguments:
        if method and a.name == "self":
            accessors.append("self_tensor")
            continue
        specs.append(PythonArg(cpp.python_arg_name(a), cpp.py_arg_type(a.type),
                               "true" if a.keyword_only else "false", "true" if a.default is not None else "false",
                               a.type.list_size or 0))
        accessor = cpp.py_accessor(a, index)
        if factory and a.type.base == "Device" and a.type.optional:
            accessor = accessor.replace("p.device(", "p.factory_device(")
        accessors.append(accessor)
        index += 1
    # An op that returns one of its mutable arguments returns that very Python object, like torch.
    ret = schema.returns
    if len(ret) == 1 and ret[0].type.is_mutable:
        aliased = next(a for a in schema.arguments if a.type.alias == ret[0].type.alias)
        if method and aliased.name == "self":
            self_object = "Py_NewRef(self)"
        else:
            position = [a.name for a in schema.arguments if not (method and a.name == "self")].index(aliased.name)
            self_object = f"p.returned({position})"
    if not ret:  # `-> ()`: None, but a _foreach op in place returns its list, that very object, as torch's binding
        foreach_self = schema.is_inplace and schema.name.startswith("_foreach_")
        self_object = "p.returned(0)" if foreach_self and not method else "Py_NewRef(Py_None)"
    named = tuple(r.name for r in ret if r.name) if len(ret) > 1 and all(r.name for r in ret) else None
    call = f"{op.namespace}::{cpp.cpp_name(schema)}({', '.join(accessors)})"
    signature = cpp.py_signature_text(schema, method)
    stub_parameters = cpp.py_stub_parameters(schema, method)
    if makes_tensors(op) and not method:
        # torch's factories take requires_grad= (the new tensor is a leaf that requires grad) and pin_memory= (it is
        # made in page-locked memory, for fast copies to a GPU)
        specs.append(PythonArg("requires_grad", "Bool", "true", "true", 0))
        specs.append(PythonArg("pin_memory", "Bool", "true", "true", 0))
        call = (f"[&] {{ Tensor made_ = {call}; if (p.boolean({index + 1})) {{ made_ = python::pin_memory(made_); }} "
                f"if (p.boolean({index})) {{ autograd::set_requires_grad(made_, true); }} return made_; }}()")
        signature = (signature[:-1] + (", " if "*" in signature else ", *, ") +
                     "bool requires_grad=False, bool pin_memory=False)")
        stub_parameters += ((", " if "*" in stub_parameters else ", *, ") +
                            "requires_grad: _bool = False, pin_memory: _bool = False")
    return PythonOverload(
        ident=("method_" if method else "function_") + schema.full_name.replace(".", "_"),
        full_name=schema.full_name, func=str(schema), line=op.location.line, source=source(op), site=site(op),
        signature=signature, args=tuple(specs), call=call, returns_object=self_object,
        named_tuple=f"return_type_{schema.name}" if named else None, named_fields=named,
        stub=f"def {python_name(op) if not method else schema.name}({stub_parameters}) -> "
             f"{cpp.py_return_type(schema, schema.name if named else None)}: ...")


def alias_names(op: Op, method: bool) -> list[tuple[str, str]]:
    """(module, Python name) of each of the op's `aliases:` for its function (method=False) or Tensor method: an
    in-place overload's alias ends in `_` as its own name does; a module alias has no method."""
    names = []
    for alias in op.aliases:
        module, _, name = alias.rpartition(".")
        if method and module:
            continue
        names.append((module, name + "_" if op.schema.is_inplace and not name.endswith("_") else name))
    return names


def python_bindings(ops: list[Op]) -> list[PythonBinding]:
    """One Python callable per (name, function-or-method, module), with its overloads in ops.yaml order; an alias is
    one more callable with the same overloads (its stub line under its own name)."""
    found: dict[tuple[str, bool, str], tuple[Op, list[PythonOverload], bool]] = {}
    for op in ops:
        for method in (False, True):
            variant = "method" if method else "function"
            # out= overloads join the functional name as `out=`; they are never methods.
            if variant not in op.variants and not (op.schema.is_out and not method and not op.schema.is_inplace):
                continue
            name = python_name(op) if not method else op.schema.name
            module = "" if method else op.python_module
            overload = python_overload(op, method)
            found.setdefault((name, method, module), (op, [], False))[1].append(overload)
            for alias_module, alias in alias_names(op, method):
                tag = (alias_module.replace(".", "_") + "_" if alias_module else "") + alias
                renamed = replace(overload, ident=f"alias_{tag}_{overload.ident}",
                                  signature=overload.signature.replace(f"{overload.signature.split('(')[0]}(",
                                                                       f"{alias}(", 1),
                                  stub=overload.stub.replace(f"def {name}(", f"def {alias}(", 1))
                found.setdefault((alias, method, alias_module), (op, [], True))[1].append(renamed)
    return [PythonBinding(name=name, method=method, module=module,
                          ident=("py_Tensor_" if method else "py_") + (
                              "alias_" + (module.replace(".", "_") + "_" if module else "") + name if is_alias
                              else first.schema.name),
                          doc=first.doc + (f" (an alias of {python_name(first)})" if is_alias else ""),
                          overloads=tuple(overloads), line=first.location.line,
                          numbers_as_tensors=name.rstrip("_") in NUMBERS_AS_TENSORS)
            for (name, method, module), (first, overloads, is_alias) in found.items()]


@dataclass(frozen=True)
class ReferenceEntry:
    python: str  # the name a reader looks up: add, or add.out for a named overload
    func: str  # the schema
    doc: str
    source: str  # ops.yaml:LINE
    derived_from: str | None  # the entry a `forms:` overload was made from
    variants: str  # how Python reaches it: "`yaten.add`, `Tensor.add`"
    kernels: str  # "CPU: `add_kernel`, CUDA: `add_kernel`"
    dtypes: str  # "CPU: float32, ...; CUDA: ..."
    rule: str | None  # its dtype rule


def reference_entry(op: Op) -> ReferenceEntry:
    module = f"yaten.{op.python_module}." if op.python_module else "yaten."
    python = []
    if "function" in op.variants:
        python.append(f"`{module}{python_name(op)}`")
    if "method" in op.variants:
        python.append(f"`Tensor.{op.schema.name}`")
    if op.schema.is_out:
        python = [f"`{module}{python_name(op)}(..., out=)`"]
    for alias in op.aliases:
        if not op.schema.is_out and not op.schema.is_inplace:
            python.append(f"`yaten.{alias}` (alias)")
    return ReferenceEntry(
        python=python_name(op) if op.schema.overload == "" else op.schema.full_name, func=str(op.schema),
        doc=op.doc, source=site(op), derived_from=op.derived_from, variants=", ".join(python),
        kernels=", ".join(f"{key}: `{ref.name}`" for key, ref in op.dispatch.items()),
        dtypes="; ".join(f"{b}: {', '.join(d)}" for b, d in op.dtypes.items()), rule=op.dtype_rule)
