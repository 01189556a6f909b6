"""The model of ops.yaml: frozen dataclasses built by parse.py.

The classes that stand for text (Location, Type, Argument, Return, Schema) print back to it (`str(schema)` is the
`func:` line), so golden tests and `show` can quote the source exactly. Invariants that span fields live in parse.py's checks, not here.
"""

from __future__ import annotations

from dataclasses import dataclass, field

# Scalar types by their Python names, in the order of yaten::ScalarType.
DTYPES = ("uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64", "complex64", "complex128",
          "bool", "bfloat16", "uint16", "uint32", "uint64")
CPP_DTYPE = {
    "uint8": ("Byte", "uint8_t"),
    "int8": ("Char", "int8_t"),
    "int16": ("Short", "int16_t"),
    "int32": ("Int", "int32_t"),
    "int64": ("Long", "int64_t"),
    "float16": ("Half", "Half"),
    "float32": ("Float", "float"),
    "float64": ("Double", "double"),
    "complex64": ("ComplexFloat", "Complex<float>"),
    "complex128": ("ComplexDouble", "Complex<double>"),
    "bool": ("Bool", "bool"),
    "bfloat16": ("BFloat16", "BFloat16"),
    "uint16": ("UInt16", "uint16_t"),
    "uint32": ("UInt32", "uint32_t"),
    "uint64": ("UInt64", "uint64_t"),
}
# `all` is the ten real dtypes, as torch's AT_DISPATCH_ALL_TYPES: an op takes complex numbers, and the unsigned
# integers wider than a byte, only where its entry names them (`dtypes: [all, complex, unsigned]`).
DTYPE_SETS = {
    "all": ("uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64", "bool", "bfloat16"),
    "floating": ("float16", "bfloat16", "float32", "float64"),
    "reduced": ("float16", "bfloat16"),
    "integral": ("uint8", "int8", "int16", "int32", "int64"),
    "bool": ("bool",),
    "complex": ("complex64", "complex128"),
    "unsigned": ("uint16", "uint32", "uint64"),  # uint8 is in `integral` (and `all`), as in torch
}
BACKENDS = ("CPU", "CUDA")
DISPATCH_KEYS = BACKENDS + ("CompositeImplicit",)
BASE_TYPES = ("Tensor", "int", "float", "bool", "str", "Scalar", "ScalarType", "Device", "Generator")
TAGS = ("pointwise", "reduction", "view", "inplace", "factory")
# `autocast:` policies (csrc/dispatch/autocast.h Note [Autocast]): the C++ enumerator of each
AUTOCAST_POLICIES = {"lower": "Lower", "fp32": "Fp32", "promote": "Promote"}
# `forms:` on a functional pointwise entry: the overloads the generator derives from it (same kernels and dtypes).
# `scalar` adds `<name>.Scalar` (and `<name>_.Scalar` with `inplace`): the last Tensor input becomes a Scalar, and
# the generated body wraps it as a zero-dim tensor for the Tensor overload, so promotion treats it as torch does.
# `scalar_self` does the same for the first Tensor input (`<name>.Scalar_Tensor`, pow's `pow.Scalar`), a function.
FORMS = ("inplace", "out", "scalar", "scalar_self")
# `python_module:` places the Python function in a namespace instead of `yaten`.
PYTHON_MODULES = ("linalg", "special", "fft", "nn.functional")
VARIANTS = ("function", "method")


@dataclass(frozen=True)
class DtypeRule:
    """How the dtype an op computes in, and its result's dtype, follow from its arguments (`dtype_rule:`; an entry
    without one follows `promote`). Declared once, in DTYPE_RULE_TABLE: the parser, the generated wrappers
    (views.py), `codegen explain`, the generated reference and the tests read it; csrc/iter/tensor_iterator.cpp
    implements the pointwise ones, by the enumerator named here."""

    name: str
    iterator_enum: str | None  # the TensorIterator rule of a pointwise op (Promote, ...); None: not for pointwise ops
    integral_to_float: bool  # integral and bool inputs compute in the default float dtype
    compute: str  # the dtype the kernel runs in, in words (docs, explain)
    result: str  # the result's dtype, in words

    def compute_dtype(self, dtype: str, default_float: str = "float32") -> str:
        """The dtype a kernel runs in for inputs of `dtype` (and the default float dtype `default_float`)."""
        return default_float if self.integral_to_float and dtype not in DTYPE_SETS["floating"] else dtype

    def explain(self, dtype: str) -> str:
        """Why the kernel runs in compute_dtype(dtype), for `codegen explain`."""
        if self.integral_to_float and dtype not in DTYPE_SETS["floating"]:
            return (f"the rule {self.name} turns {dtype} inputs into the default float dtype (float32 unless "
                    "yaten.set_default_dtype changed it)")
        return f"the rule {self.name} computes in {self.compute}: {dtype} here; the result is {self.result}"


DTYPE_RULE_TABLE = {r.name: r for r in (
    DtypeRule("promote", "Promote", False, "the promoted dtype of the inputs (torch.result_type)",
              "the same (pointwise), or the kernel's choice"),
    DtypeRule("promote_float", "PromoteFloat", True, "the promoted dtype, integral and bool made the default float "
              "dtype", "the same"),
    DtypeRule("compare", "Compare", False, "the promoted dtype of the inputs", "bool"),
    DtypeRule("to_real", "ToReal", False, "the promoted dtype of the inputs", "its real dtype (float32 for complex64)"),
    DtypeRule("self", None, False, "self's dtype", "the kernel's choice"),
    DtypeRule("self_or_dtype", None, False, "the dtype= argument if given, else self's dtype", "the kernel's choice"),
    DtypeRule("factory", None, False, "the dtype= argument, else the one the Scalar arguments infer (torch.full's "
              "rule)", "the same"),
)}
DTYPE_RULES = tuple(DTYPE_RULE_TABLE)
POINTWISE_RULES = tuple(name for name, rule in DTYPE_RULE_TABLE.items() if rule.iterator_enum)


def dtype_rule(name: str | None) -> DtypeRule:
    """An entry's rule: `promote` when it names none."""
    return DTYPE_RULE_TABLE[name or "promote"]


@dataclass(frozen=True)
class Location:
    file: str
    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


@dataclass(frozen=True)
class Type:
    base: str  # one of BASE_TYPES
    alias: str | None = None  # "a" for a view, "a!" for a mutation (Tensor only)
    list_size: int | None = None  # None: not a list; 0: `[]`; N: `[N]`
    optional: bool = False

    @property
    def is_tensor(self) -> bool:
        return self.base == "Tensor" and self.list_size is None

    @property
    def is_mutable(self) -> bool:
        return self.alias is not None and self.alias.endswith("!")

    def __str__(self) -> str:
        text = self.base
        if self.alias is not None:
            text += f"({self.alias})"
        if self.list_size is not None:
            text += f"[{self.list_size}]" if self.list_size else "[]"
        return text + ("?" if self.optional else "")


@dataclass(frozen=True)
class Argument:
    type: Type
    name: str
    default: str | None = None  # the default as written in ops.yaml
    keyword_only: bool = False

    def __str__(self) -> str:
        text = f"{self.type} {self.name}"
        return text + (f"={self.default}" if self.default is not None else "")


@dataclass(frozen=True)
class Return:
    type: Type
    name: str | None = None

    def __str__(self) -> str:
        return f"{self.type} {self.name}" if self.name else str(self.type)


@dataclass(frozen=True)
class Schema:
    name: str  # "add", "add_"
    overload: str  # "Tensor", "out", "" when there is none
    arguments: tuple[Argument, ...]
    returns: tuple[Return, ...]

    @property
    def full_name(self) -> str:
        return f"{self.name}.{self.overload}" if self.overload else self.name

    @property
    def base_name(self) -> str:
        """The op family: `add` for add, add_ and add.out."""
        return self.name[:-1] if self.is_inplace else self.name

    @property
    def is_inplace(self) -> bool:
        return self.name.endswith("_") and not self.name.startswith("__")

    @property
    def is_out(self) -> bool:
        return any(a.keyword_only and a.type.is_mutable for a in self.arguments)

    def argument(self, name: str) -> Argument | None:
        return next((a for a in self.arguments if a.name == name), None)

    def __str__(self) -> str:
        parts: list[str] = []
        star = False
        for a in self.arguments:
            if a.keyword_only and not star:
                parts.append("*")
                star = True
            parts.append(str(a))
        if len(self.returns) == 1 and self.returns[0].name is None:
            ret = str(self.returns[0])
        else:
            ret = "(" + ", ".join(str(r) for r in self.returns) + ")"
        return f"{self.full_name}({', '.join(parts)}) -> {ret}"


@dataclass(frozen=True)
class KernelRef:
    """A kernel named in `dispatch:`, and the file under csrc/ that defines it."""

    name: str
    header: str | None  # path relative to csrc/, e.g. "kernels/cpu/binary/add.h"


@dataclass(frozen=True)
class Op:
    schema: Schema
    location: Location
    variants: tuple[str, ...] = ("function",)
    tags: tuple[str, ...] = ()
    dispatch: dict[str, KernelRef] = field(default_factory=dict)
    dtypes: dict[str, tuple[str, ...]] = field(default_factory=dict)  # backend -> dtypes, in DTYPES order
    dtype_rule: str | None = None
    doc: str = ""
    forms: tuple[str, ...] = ()
    python_module: str = ""  # "" for yaten itself
    derived_from: str | None = None  # the functional entry this overload was derived from through `forms:`
    forward_to: str | None = None  # scalar form: the C++ expression its generated CompositeImplicit body returns
    # autograd: (input name, C++ formula) pairs, and which outputs are differentiable (all when empty)
    derivatives: tuple[tuple[str, str], ...] = ()
    output_differentiability: tuple[bool, ...] = ()
    # the C++ and dispatcher namespace: "yaten" for yaten's own ops.yaml, an extension's own (`- namespace: myext`)
    namespace: str = "yaten"
    # `autocast:`: backend -> casting policy inside autocast regions (AUTOCAST_POLICIES; Note [Autocast])
    autocast: dict[str, str] = field(default_factory=dict)
    # `aliases:`: other Python names of the op, "name" (yaten and Tensor) or "module.name" (yaten.module)
    aliases: tuple[str, ...] = ()

    @property
    def is_extension(self) -> bool:
        return self.namespace != "yaten"

    @property
    def is_composite(self) -> bool:
        return "CompositeImplicit" in self.dispatch

    @property
    def is_pointwise(self) -> bool:
        return "pointwise" in self.tags

    @property
    def backends(self) -> tuple[str, ...]:
        return tuple(b for b in BACKENDS if b in self.dispatch)


@dataclass(frozen=True)
class OpsFile:
    path: str
    ops: tuple[Op, ...]
    namespace: str = "yaten"

    def groups(self) -> dict[str, list[Op]]:
        """Ops by family (add, add_, add.out -> "add"), in file order. One family = one set of generated files."""
        out: dict[str, list[Op]] = {}
        for op in self.ops:
            out.setdefault(op.schema.base_name, []).append(op)
        return out
