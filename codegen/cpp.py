"""How schema types and defaults are spelled in C++ and in the Python bindings' parser."""

from __future__ import annotations

import keyword
import re

from .model import Argument, Return, Schema, Type


def arg_type(t: Type) -> str:
    """The C++ parameter type of an argument."""
    if t.base == "Tensor":
        return "const std::vector<Tensor>&" if t.list_size is not None else "const Tensor&"
    if t.base == "int" and t.list_size is not None:
        return "const std::optional<std::vector<int64_t>>&" if t.optional else "const std::vector<int64_t>&"
    if t.base == "Scalar" and t.list_size is not None:  # Scalar[]: torch's ScalarList (one number per tensor)
        return "const std::vector<Scalar>&"
    if t.base == "bool" and t.list_size is not None:  # bool[N]: torch's output_mask, std::array<bool, N> as in ATen
        return f"std::array<bool, {t.list_size}>"
    plain = {
        "int": "int64_t",
        "float": "double",
        "bool": "bool",
        "str": "std::string",
        "Scalar": "Scalar",
        "ScalarType": "ScalarType",
        "Device": "Device",
        "Generator": "Generator",
    }[t.base]
    if t.base == "Generator" and not t.optional:
        raise ValueError("a Generator argument must be optional (Generator?): None means the default generator")
    if t.optional:  # passed like the plain type: by const reference when that is not a small value
        by_ref = ("str", "Scalar", "Generator")
        return f"const std::optional<{plain}>&" if t.base in by_ref else f"std::optional<{plain}>"
    return f"const {plain}&" if t.base in ("str", "Scalar") else plain


def return_type(returns: tuple[Return, ...]) -> str:
    def one(r: Return) -> str:
        if r.type.base == "Tensor":
            return "std::vector<Tensor>" if r.type.list_size is not None else "Tensor"
        return {"int": "int64_t", "float": "double", "bool": "bool", "Scalar": "Scalar"}[r.type.base]

    if not returns:  # `-> ()`: the multi-tensor in-place ops
        return "void"
    if len(returns) == 1:
        return one(returns[0])
    return "std::tuple<" + ", ".join(one(r) for r in returns) + ">"


def default_value(a: Argument) -> str | None:
    """The C++ expression of an argument's default, or None."""
    d, t = a.default, a.type
    if d is None:
        return None
    if d == "None":
        return "Tensor()" if t.base == "Tensor" else "std::nullopt"
    if t.base == "int" and t.list_size is not None:
        values = re.findall(r"-?\d+", d)
        if not d.startswith("["):
            values = values * max(t.list_size or 1, 1)
        return "std::vector<int64_t>{" + ", ".join(values) + "}"
    if t.base == "int":
        return f"int64_t({d})"
    if t.base == "float":
        return d if any(c in d for c in ".eE") else d + ".0"
    if t.base == "bool" and t.list_size is not None:
        values = ["true" if v == "True" else "false" for v in re.findall(r"True|False", d)]
        return f"std::array<bool, {t.list_size}>{{" + ", ".join(values) + "}"
    if t.base == "bool":
        return "true" if d == "True" else "false"
    if t.base == "str":
        return f'std::string("{d[1:-1]}")'
    if t.base == "Scalar":
        if d in ("True", "False"):
            return f"Scalar({'true' if d == 'True' else 'false'})"
        if any(c in d for c in ".eE"):
            return f"Scalar({d})"
        return f"Scalar(int64_t({d}))"
    raise AssertionError(f"unhandled default {d} for {t}")


def cpp_name(schema: Schema) -> str:
    """add.Tensor -> add, add_.Scalar -> add_, add.out -> add_out."""
    return schema.name + "_out" if schema.is_out and not schema.is_inplace else schema.name


def wrapper_name(schema: Schema, backend: str) -> str:
    overload = f"_{schema.overload}" if schema.overload else ""
    return f"{schema.name}{overload}_{backend.lower()}"


def first_default(schema: Schema) -> int:
    """Where the trailing run of defaulted arguments starts."""
    args = schema.arguments
    first = len(args)
    while first > 0 and args[first - 1].default is not None:
        first -= 1
    return first


def unambiguous_first_default(schema: Schema, family: list[Schema]) -> int:
    """Where C++ defaults may start without making a call ambiguous with another overload of the family: all(t)
    must not match both `all(const Tensor&)` and `all(const Tensor&, optional dims = nullopt, ...)`."""
    first = first_default(schema)
    types = [arg_type(a.type) for a in schema.arguments]
    for other in family:
        if other is schema or other.name != schema.name:
            continue
        other_types = [arg_type(a.type) for a in other.arguments]
        for k in range(first_default(other), len(other_types) + 1):
            if first <= k < len(types) and types[:k] == other_types[:k]:
                first = k + 1
    return first


def parameters(schema: Schema, with_defaults: bool, first_default_at: int | None = None) -> str:
    """The C++ parameter list; defaults only for the trailing run of defaulted arguments (from
    `first_default_at` when given)."""
    start = first_default_at if first_default_at is not None else first_default(schema)
    parts = []
    for i, a in enumerate(schema.arguments):
        text = f"{arg_type(a.type)} {a.name}"
        if with_defaults and i >= start:
            text += f" = {default_value(a)}"
        parts.append(text)
    return ", ".join(parts)


def parameter_types(schema: Schema) -> str:
    return ", ".join(arg_type(a.type) for a in schema.arguments)


# --------------------------------------------------------------------------------------------- Python parser

PY_ARG_TYPE = {
    ("Tensor", False, False): "Tensor",
    ("Tensor", False, True): "OptionalTensor",
    ("Tensor", True, False): "TensorList",
    ("int", False, False): "Int",
    ("int", False, True): "OptionalInt",
    ("int", True, False): "IntList",
    ("int", True, True): "OptionalIntList",
    ("str", False, True): "OptionalString",
    ("float", False, False): "Float",
    ("float", False, True): "OptionalFloat",
    ("bool", False, False): "Bool",
    ("bool", False, True): "OptionalBool",
    ("bool", True, False): "BoolList",
    ("str", False, False): "String",
    ("Scalar", False, False): "Scalar",
    ("Scalar", False, True): "OptionalScalar",
    ("Scalar", True, False): "ScalarList",
    ("ScalarType", False, True): "DType",
    ("ScalarType", False, False): "DType",
    ("Device", False, True): "Device",
    ("Device", False, False): "Device",
    ("Generator", False, True): "Generator",
}

PY_ACCESSOR = {
    "Tensor": "tensor",
    "OptionalTensor": "optional_tensor",
    "TensorList": "tensor_list",
    "Int": "int64",
    "OptionalInt": "optional_int64",
    "IntList": "int_list",
    "OptionalIntList": "optional_int_list",
    "OptionalString": "optional_string",
    "Float": "float64",
    "OptionalFloat": "optional_float64",
    "Bool": "boolean",
    "OptionalBool": "optional_boolean",
    "BoolList": "bool_list",
    "String": "string",
    "Scalar": "scalar",
    "OptionalScalar": "optional_scalar",
    "ScalarList": "scalar_list",
    "DType": "dtype",
    "Device": "device",
    "Generator": "generator",
}


def py_arg_type(t: Type) -> str:
    key = (t.base, t.list_size is not None, t.optional)
    if key not in PY_ARG_TYPE:
        raise ValueError(f"type {t} has no Python binding yet")
    return PY_ARG_TYPE[key]


def py_accessor(a: Argument, index: int) -> str:
    """The expression that converts parsed argument `index` to its C++ value."""
    kind = py_arg_type(a.type)
    accessor = PY_ACCESSOR[kind]
    default = default_value(a)
    if kind in ("DType", "Device") and not a.type.optional:
        return f"*p.{accessor}({index})"
    if kind == "BoolList":
        return f"p.{accessor}<{a.type.list_size}>({index}" + (f", {default})" if default is not None else ")")
    if default is not None and not a.type.optional and kind not in ("Tensor", "TensorList"):
        return f"p.{accessor}({index}, {default})"
    return f"p.{accessor}({index})"


def python_arg_name(a: Argument) -> str:
    """An argument's Python keyword: a Tensor `self` is `input`, as in torch (`torch.add(input=t, other=2)`); a number
    `self` keeps its name (`torch.pow(self=2, exponent=t)`)."""
    return "input" if a.name == "self" and a.type.base == "Tensor" else a.name


def py_signature_text(schema: Schema, method: bool) -> str:
    """torch's way of showing a signature in a TypeError: `add(Tensor input, Tensor other, *, Number alpha=1)`."""
    parts: list[str] = []
    star = False
    for a in schema.arguments:
        if method and a.name == "self":
            continue
        if a.keyword_only and not star:
            parts.append("*")
            star = True
        type_text = str(Type(a.type.base, None, a.type.list_size, a.type.optional))
        type_text = type_text.replace("ScalarType", "dtype").replace("Scalar", "Number").replace("Device", "device")
        name = python_arg_name(a)
        parts.append(f"{type_text} {name}" + (f"={a.default}" if a.default is not None else ""))
    return f"{schema.name}({', '.join(parts)})"


# --------------------------------------------------------------------------------------------- .pyi stubs

def py_type(t: Type) -> str:
    """The Python type of an argument in the generated stubs."""
    if t.base == "Tensor":
        base = "Sequence[Tensor]" if t.list_size is not None else "Tensor"
    elif t.base == "int" and t.list_size is not None:
        base = "Sequence[_int] | _int"
    elif t.base == "bool" and t.list_size is not None:
        base = "Sequence[_bool]"
    elif t.base == "Scalar" and t.list_size is not None:
        base = "Sequence[Number | _complex]"
    else:
        # The _aliases: inside class Tensor, `int`, `float`, `bool` and `dtype` name its own members.
        base = {"int": "_int", "float": "_float", "bool": "_bool", "str": "str", "Scalar": "Number | _complex",
                "ScalarType": "_dtype", "Device": "str | _device", "Generator": "Generator"}[t.base]
    return f"{base} | None" if t.optional else base


def py_return_type(schema: Schema, named_tuple: str | None) -> str:
    if named_tuple:
        return f"return_types.{named_tuple}"
    def one(r: Return) -> str:
        if r.type.base == "Tensor":
            return "list[Tensor]" if r.type.list_size is not None else "Tensor"
        return {"int": "_int", "float": "_float", "bool": "_bool", "Scalar": "Number"}[r.type.base]
    if not schema.returns:
        return "None"
    if len(schema.returns) == 1:
        return one(schema.returns[0])
    return "tuple[" + ", ".join(one(r) for r in schema.returns) + "]"


def py_stub_parameters(schema: Schema, method: bool) -> str:
    """`input: Tensor, other: Tensor, *, alpha: Number = ...` (`self` for methods)."""
    args = [a for a in schema.arguments if not (method and a.name == "self")]
    positional = [a for a in args if not a.keyword_only]
    parts: list[str] = ["self"] if method else []
    if len(positional) == 1 and positional[0].type.base == "int" and positional[0].type.list_size is not None:
        # zeros(2, 3) as well as zeros((2, 3)): the list may be spread out.
        parts.append(f"*{positional[0].name}: _int | Sequence[_int]")
        star = True
        args = args[1:]
    else:
        star = False
    for a in args:
        if a.keyword_only and not star:
            parts.append("*")
            star = True
        name = python_arg_name(a)
        if keyword.iskeyword(name):  # uniform_(from, to): positional only in Python, spelled from_ in the stub
            parts.append(f"{name}_: {py_type(a.type)}" + (" = ..." if a.default is not None else ""))
            parts.append("/")
            continue
        parts.append(f"{name}: {py_type(a.type)}" + (" = ..." if a.default is not None else ""))
    return ", ".join(parts)
