"""model -> generated files, through the templates in templates/.

Layout (one op family = `add`, `add_`, `add.out`, ... = one set of files, so adding or editing an op recompiles
only its own files; DESIGN.md section 9):
  yaten/ops/<family>.h        the C++ API (one function per overload) and the kernel contract (the signature each
                              kernel named in dispatch must have)
  ops/<family>.cpp            C++ API definitions, CPU and composite wrappers, registrations, Python bindings
  ops/cuda/<header>.cu        CUDA wrappers and registrations, one file per CUDA kernel header (nvcc is slow)
  yaten/functions.h           every op header, for code outside yaten

  ops/op_sites.cpp            where each op is declared (ops.yaml:LINE), for the dispatcher's messages

Every file is a list of pieces, each tagged with the ops.yaml entry it came from, so `show OP` can print exactly
what one entry produced, and where. Writing is deterministic and skips files whose text is unchanged.

Note [ops.yaml line numbers live in one compiled file]: an op's own files name their entry by its schema
(`// ops.yaml  add.Tensor(...)`), never by line, so an entry inserted mid-file changes only its own files and
ops/op_sites.cpp, a table of strings with no heavy includes that the dispatcher reads when it prints where an op or
kernel was declared. Files nothing compiles (stubs, docs) and `codegen show` keep the line numbers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
import functools
import re
from pathlib import Path

import jinja2

from . import cpp
from .model import CPP_DTYPE, DTYPES, Op, OpsFile

TEMPLATES = Path(__file__).parent / "templates"
KERNEL_NAMESPACE = {"CPU": "native::cpu", "CUDA": "native::cuda", "CompositeImplicit": "native"}
RULE_ENUM = {"promote": "Promote", "promote_float": "PromoteFloat", "compare": "Compare"}


def _site(op: Op) -> str:
    """Where the entry is, `ops.yaml:97` (for files nothing compiles, and the op_sites table)."""
    return f"{Path(op.location.file).name}:{op.location.line}"


def _source(op: Op) -> str:
    """How a compiled file names the entry it came from: by file and schema, never by line (Note [ops.yaml line
    numbers live in one compiled file]); a `forms:` overload names the entry it was derived from."""
    name = Path(op.location.file).name
    return f"{name} (a form of {op.derived_from})" if op.derived_from else name


@dataclass
class Piece:
    ops: tuple[str, ...]  # full names of the ops.yaml entries it came from; () for file framing
    line: int | None
    text: str


@dataclass
class GeneratedFile:
    path: str  # relative to the output directory
    template: str
    pieces: list[Piece] = field(default_factory=list)

    @property
    def text(self) -> str:
        return "".join(p.text for p in self.pieces)


COLUMN_LIMIT = 120  # as .clang-format says for the hand-written code


def wrap_cpp(text: str) -> str:
    """Breaks code lines longer than COLUMN_LIMIT after a comma outside string literals, continuing 4 spaces
    deeper. Comment lines stay whole: they quote ops.yaml, which is easier to grep on one line. Deterministic and
    needs no clang-format, whose output would vary with its version."""
    out = []
    for line in text.split("\n"):
        while len(line) > COLUMN_LIMIT and not line.lstrip().startswith("//"):
            cut = _last_comma_outside_strings(line, COLUMN_LIMIT)
            if cut is None:
                break
            indent = len(line) - len(line.lstrip()) + 4
            out.append(line[: cut + 1].rstrip())
            line = " " * indent + line[cut + 1 :].lstrip()
        out.append(line)
    return "\n".join(out)


def _last_comma_outside_strings(line: str, limit: int) -> int | None:
    """Where to break: after the last comma outside string literals that keeps the line within `limit`, else after
    the last opening parenthesis."""
    comma, paren, quoted, escaped = None, None, False, False
    indent = len(line) - len(line.lstrip())
    head = line[:limit]
    if '"' not in head:  # most lines: no string literal to step over, so str.rfind does it (2,500 lines a generate)
        found = head.rfind(",", indent + 9)
        if found >= 0:
            return found
        found = head.rfind("(", indent + 9)
        while found >= 0 and line[found + 1 : found + 2] in (")", ""):
            found = head.rfind("(", indent + 9, found)
        return found if found >= 0 else None
    for i, ch in enumerate(head):
        if quoted:
            escaped = ch == "\\" and not escaped
            if ch == '"' and not escaped:
                quoted = False
        elif ch == '"':
            quoted = True
        elif ch == "," and i > indent + 8:
            comma = i
        elif ch == "(" and i > indent + 8 and i + 1 < len(line) and line[i + 1] != ")":
            paren = i
    return comma if comma is not None else paren


def _bytecode_cache() -> jinja2.BytecodeCache | None:
    try:
        return jinja2.FileSystemBytecodeCache()
    except (OSError, RuntimeError):  # no writable temporary directory: compile every run, as before
        return None


@functools.lru_cache(maxsize=8)
def _environment(ns: str = "yaten", module: str = "yaten") -> jinja2.Environment:
    """One environment per namespace (its globals: ns, ext, module_name, also seen by imported macros), kept so
    that templates compile once per process rather than once per generate()."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        auto_reload=False,  # templates do not change within a process: no stat per render
        # Compiled templates kept between runs (in the temporary directory, keyed by each template's text): a
        # generate no longer compiles them all again (0.15 s of its 0.6 s).
        bytecode_cache=_bytecode_cache(),
    )
    env.globals.update(ns=ns, ext=ns != "yaten", module_name=module)
    # The shared macros as a global, made once: an `{% import %}` in each template would instantiate them again on
    # every render (one per piece: thousands per generate).
    env.globals["w"] = env.get_template("_wrappers.j2").module
    return env


# ----------------------------------------------------------------------------------------------- views


def _dtype_cases(dtypes: tuple[str, ...]) -> list[dict[str, str]]:
    return [{"enum": CPP_DTYPE[d][0], "ctype": CPP_DTYPE[d][1]} for d in DTYPES if d in dtypes]


def _keyset_expression(op: Op) -> str:
    tensors = [a.name for a in op.schema.arguments if a.type.base == "Tensor"]
    if tensors:
        return f"dispatch_key_set({', '.join(tensors)})"
    if op.schema.argument("device"):
        return "DispatchKeySet(backend_key(device.value_or(Device(DeviceType::CPU))))"
    return "DispatchKeySet(DispatchKey::CPU)"


def _kernel_view(op: Op, backend: str) -> dict:
    """What the wrapper of `op` on `backend` does and what its kernel must look like."""
    schema = op.schema
    kernel = op.dispatch[backend]
    view: dict = {
        "backend": backend,
        "key": backend if backend != "CompositeImplicit" else None,
        "wrapper": cpp.wrapper_name(schema, "composite" if backend == "CompositeImplicit" else backend),
        "kernel": kernel.name,
        "namespace": KERNEL_NAMESPACE[backend],
        "header": kernel.header,
    }
    args = schema.arguments
    if backend == "CompositeImplicit":
        view["kind"] = "composite"
        view["forward_to"] = op.forward_to
        view["contract"] = f"{cpp.return_type(schema.returns)}({cpp.parameters(schema, False)})"
        view["call_args"] = ", ".join(a.name for a in args)
        view["declaration"] = f"{cpp.return_type(schema.returns)} {kernel.name}({cpp.parameters(schema, False)});"
        return view
    view["dtypes"] = _dtype_cases(op.dtypes[backend])
    view["rule_name"] = op.dtype_rule
    view["dtype_names"] = ", ".join(d for d in DTYPES if d in op.dtypes[backend])
    if op.is_pointwise:
        extra = [a for a in args if a.type.base != "Tensor"]
        out = next((a for a in args if a.type.is_mutable and a.keyword_only), None)
        inputs = [a.name for a in args if a.type.base == "Tensor" and not (a.keyword_only and a.type.is_mutable)]
        view.update(
            kind="pointwise",
            rule=RULE_ENUM[op.dtype_rule or "promote"],
            output=(out.name if out else ("self" if schema.is_inplace else None)),
            output_is_input=schema.is_inplace,
            inputs=", ".join(inputs),
            contract="void(" + ", ".join(["const TensorIterator& iter"] +
                                         [f"{cpp.arg_type(a.type)} {a.name}" for a in extra]) + ")",
            call_args=", ".join(["iter"] + [a.name for a in extra]),
        )
    else:
        rule = op.dtype_rule
        if rule == "self":
            dtype_expr = "self.dtype()"
        elif rule == "self_or_dtype":
            dtype_expr = "dtype.value_or(self.dtype())"
        elif rule == "factory":
            scalars = [a.name for a in args if a.type.base == "Scalar"]
            dtype_expr = f"factory_dtype(dtype, {{{', '.join(scalars)}}})"
        else:  # promote
            dtype_expr = "promoted_dtype({" + ", ".join(a.name for a in args if a.type.base == "Tensor") + "})"
        view.update(
            kind="typed",
            dtype_expr=dtype_expr,
            contract=f"{cpp.return_type(schema.returns)}({cpp.parameters(schema, False)})",
            call_args=", ".join(a.name for a in args),
        )
    ret, params = view["contract"].split("(", 1)
    view["declaration"] = f"{ret} {kernel.name}({params};"
    return view


def _op_view(op: Op, family: list[Op] | None = None) -> dict:
    schema = op.schema
    first_default = cpp.unambiguous_first_default(schema, [o.schema for o in family or [op]])
    return {
        "full_name": schema.full_name,
        "qualified_name": f"{op.namespace}::{schema.full_name}",
        "trampoline": cpp.wrapper_name(schema, "python"),
        "arg_names": [a.name for a in schema.arguments],
        "func": str(schema),
        "line": op.location.line,
        "source": _source(op),
        "site": Path(op.location.file).name,
        "cpp_name": cpp.cpp_name(schema),
        "ret": cpp.return_type(schema.returns),
        "params_decl": cpp.parameters(schema, True, first_default),
        "params": cpp.parameters(schema, False),
        "param_types": cpp.parameter_types(schema),
        "call_args": ", ".join(a.name for a in schema.arguments),
        "keyset": _keyset_expression(op),
        "kernels": [_kernel_view(op, b) for b in ("CompositeImplicit", "CPU", "CUDA") if b in op.dispatch],
        "mutated": [a.name for a in schema.arguments if a.type.is_mutable],
        "autograd": _autograd_view(op, family or [op]),
    }


def _camel(name: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in name.strip("_").split("_"))


def _autograd_view(op: Op, family: list[Op]) -> dict | None:
    """What the Autograd kernel of `op` does: record a generated backward node (`derivatives:`), record a node that
    refuses to differentiate (no formula), refuse out= with inputs that require grad, just redispatch (no output is
    differentiable), or nothing (composites, which get autograd from the ops they call, and ops without Tensor
    results)."""
    schema = op.schema
    if op.is_composite and not op.derivatives:
        return None
    tensor_returns = [r for r in schema.returns if r.type.is_tensor and r.type.list_size is None]
    inputs = [a for a in schema.arguments if a.type.is_tensor and a.type.list_size is None and
              not (a.keyword_only and a.type.is_mutable)]
    list_inputs = [a for a in schema.arguments if a.type.base == "Tensor" and a.type.list_size is not None]
    if not tensor_returns or len(tensor_returns) != len(schema.returns) or (not inputs and not list_inputs):
        return None
    is_view = any(r.type.alias and not r.type.is_mutable for r in schema.returns)
    # Whether to record: any tensor argument, then any tensor of a list, requires grad.
    terms = [f"autograd::compute_requires_grad({{{', '.join('&' + a.name for a in inputs)}}})"] if inputs else []
    terms += [f"autograd::compute_requires_grad({a.name})" for a in list_inputs]
    base = {"wrapper": cpp.wrapper_name(schema, "autograd"), "inputs": [a.name for a in inputs],
            "list_inputs": [a.name for a in list_inputs], "op_name": schema.full_name,
            "num_outputs": len(schema.returns), "inplace": schema.is_inplace, "need_expression": " || ".join(terms)}
    if is_view and inputs and inputs[0].name == "self":
        # how the view is made again from its base (view tracking): the op with self replaced
        base["view_call"] = (f"{op.namespace}::{cpp.cpp_name(schema)}(" +
                             ", ".join("base_" if a.name == "self" else a.name for a in schema.arguments) + ")")
        base["view_captures"] = [a.name for a in schema.arguments if a.name != "self"]
    if schema.is_out:
        return {**base, "kind": "out"}
    formulas = dict(op.derivatives)
    differentiability = list(op.output_differentiability)
    if schema.is_inplace and not formulas and op.derived_from:
        functional = next((o for o in family if o.schema.full_name == op.derived_from), None)
        formulas = dict(functional.derivatives) if functional else {}
        differentiability = differentiability or (list(functional.output_differentiability) if functional else [])
    outputs = []
    for i, r in enumerate(schema.returns):
        name = r.name or ("result" if len(schema.returns) == 1 else f"result{i}")
        differentiable = differentiability[i] if differentiability else True
        outputs.append({"name": name, "index": i, "differentiable": differentiable})
    if not any(o["differentiable"] for o in outputs):
        return {**base, "kind": "nondifferentiable"}
    index = [o.schema.full_name for o in family].index(schema.full_name)
    node = f"{_camel(schema.name)}Backward{index}"
    if not formulas:
        return {**base, "kind": "fallback", "outputs": outputs}
    rewritten = {}
    for name, formula in formulas.items():
        f = formula
        for t in inputs:
            f = re.sub(rf"\b{t.name}\.sizes\(\)", f"{t.name}_info.sizes", f)
            f = re.sub(rf"\b{t.name}\.dtype\(\)", f"{t.name}_info.dtype", f)
            f = re.sub(rf"\b{t.name}\.dim\(\)", f"int64_t({t.name}_info.sizes.size())", f)
        rewritten[name] = f
    text = " ".join(rewritten.values())
    used = lambda n: re.search(rf"\b{n}\b(?!_info)", text) is not None  # noqa: E731
    saved_tensors = [a.name for a in inputs if used(a.name)]
    saved_lists = [a.name for a in list_inputs if used(a.name)]
    saved_values = [{"name": a.name, "type": cpp.arg_type(a.type).replace("const ", "").replace("&", "")}
                    for a in schema.arguments if a.type.base != "Tensor" and used(a.name)]
    saved_outputs = [o["name"] for o in outputs if used(o["name"])]
    return {**base, "kind": "formula", "node": node, "outputs": outputs,
            "grads": [{"input": a.name, "position": k, "formula": rewritten.get(a.name)}
                      for k, a in enumerate(inputs)],
            "list_grads": [{"input": a.name, "formula": rewritten[a.name]} for a in list_inputs if a.name in rewritten],
            # an in-place op whose formula reads self's old value saves a copy of it, made before the op
            "clone_self": schema.is_inplace and "self" in saved_tensors,
            "saved_tensors": saved_tensors, "saved_lists": saved_lists, "saved_values": saved_values,
            "saved_outputs": saved_outputs, "source": _source(op)}


def _impl_blocks(views: list[dict], keys: tuple[str, ...], cuda_file: bool) -> dict[str, list[dict]]:
    """What each YATEN_LIBRARY_IMPL block of a file registers: CUDA kernels in the .cu file, the rest (CPU kernels,
    and composites for every backend) in the .cpp file."""
    blocks: dict[str, list[dict]] = {key: [] for key in keys + (("Autograd",) if "CPU" in keys else ())}
    for v in views:
        for k in v["kernels"]:
            if k["kind"] == "composite" and not cuda_file:
                for key in keys + (("Autograd",) if "CPU" in keys and not v.get("autograd") else ()):
                    blocks[key].append({"name": v["full_name"], "wrapper": k["wrapper"],
                                        "site": f"{v['site']} (CompositeImplicit)"})
            elif k["backend"] in keys and (k["backend"] == "CUDA") == cuda_file:
                blocks[k["backend"]].append({"name": v["full_name"], "wrapper": k["wrapper"], "site": v["site"]})
        ag = v.get("autograd")
        if ag and not cuda_file:
            blocks.setdefault("Autograd", []).append({"name": v["full_name"], "wrapper": ag["wrapper"],
                                                      "site": f"{v['site']} (Autograd)"})
    return {key: impls for key, impls in blocks.items() if impls}


def _python_overload(op: Op, method: bool) -> dict:
    schema = op.schema
    specs = []
    accessors = []
    index = 0
    self_object = None
    for a in schema.arguments:
        if method and a.name == "self":
            accessors.append("self_tensor")
            continue
        kind = cpp.py_arg_type(a.type)
        specs.append({
            "name": "input" if a.name == "self" else a.name, "type": kind, "keyword_only": "true" if a.keyword_only else "false",
            "optional": "true" if a.default is not None else "false",
            "size": a.type.list_size or 0,
        })
        accessors.append(cpp.py_accessor(a, index))
        index += 1
    # An op that returns one of its mutable arguments returns that very Python object, like torch.
    ret = schema.returns
    if len(ret) == 1 and ret[0].type.is_mutable:
        aliased = next(a for a in schema.arguments if a.type.alias == ret[0].type.alias)
        if method and aliased.name == "self":
            self_object = "self"
        else:
            position = [a.name for a in schema.arguments if not (method and a.name == "self")].index(aliased.name)
            self_object = f"p.object({position})"
    ident = schema.full_name.replace(".", "_")
    named = [r.name for r in ret] if len(ret) > 1 and all(r.name for r in ret) else None
    call = f"{op.namespace}::{cpp.cpp_name(schema)}({', '.join(accessors)})"
    signature = cpp.py_signature_text(schema, method)
    stub_parameters = cpp.py_stub_parameters(schema, method)
    if _makes_tensors(op) and not method:
        # torch's factories take requires_grad=: the new tensor is a leaf that requires grad
        specs.append({"name": "requires_grad", "type": "Bool", "keyword_only": "true", "optional": "true", "size": 0})
        call = (f"[&] {{ Tensor made_ = {call}; if (p.boolean({index})) autograd::set_requires_grad(made_, true); "
                "return made_; }()")
        signature = signature[:-1] + (", " if "*" in signature else ", *, ") + "bool requires_grad=False)"
        stub_parameters += (", " if "*" in stub_parameters else ", *, ") + "requires_grad: _bool = False"
    return {
        "ident": ("method_" if method else "function_") + ident,
        "full_name": schema.full_name,
        "func": str(schema),
        "line": op.location.line,
        "source": _source(op),
        "site": _site(op),
        "signature": signature,
        "args": specs,
        "call": call,
        "returns_object": self_object,
        "named_tuple": f"return_type_{schema.name}" if named else None,
        "named_fields": named,
        "stub": f"def {python_name(op) if not method else schema.name}({stub_parameters}) -> "
                f"{cpp.py_return_type(schema, schema.name if named else None)}: ...",
    }


def _makes_tensors(op: Op) -> bool:
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


def _python_bindings(ops: list[Op]) -> list[dict]:
    """One Python callable per (name, function-or-method), with its overloads in ops.yaml order."""
    bindings: dict[tuple[str, bool, str], dict] = {}
    for op in ops:
        for method in (False, True):
            variant = "method" if method else "function"
            # out= overloads join the functional name as `out=`; they are never methods.
            if variant not in op.variants and not (op.schema.is_out and not method and not op.schema.is_inplace):
                continue
            name = python_name(op) if not method else op.schema.name
            module = "" if method else op.python_module
            entry = bindings.setdefault((name, method, module), {
                "name": name,
                "method": method,
                "module": module,
                "ident": ("py_Tensor_" if method else "py_") + op.schema.name,
                "doc": op.doc,
                "overloads": [],
                "line": op.location.line,
            })
            entry["overloads"].append(_python_overload(op, method))
    return list(bindings.values())


# ----------------------------------------------------------------------------------------------- files


def _check_kernel_signatures(family: list[Op], views: list[dict]) -> None:
    seen: dict[tuple[str, str], tuple[str, str]] = {}
    for op, view in zip(family, views):
        for k in view["kernels"]:
            key = (k["backend"], k["kernel"])
            if key in seen and seen[key][0] != k["contract"]:
                raise ValueError(f"{op.location}: error: kernel '{k['kernel']}' for {k['backend']} is used by "
                                 f"{seen[key][1]} and {op.schema.full_name} with different signatures")
            seen[key] = (k["contract"], op.schema.full_name)


def _check_argument_types(families: dict[str, list[Op]]) -> None:
    for family in families.values():  # types without a binding yet, reported at their entry
        for op in family:
            for a in op.schema.arguments:
                try:
                    cpp.py_arg_type(a.type)
                    cpp.arg_type(a.type)
                except (ValueError, KeyError):
                    raise ValueError(f"{op.location}: error: {op.schema.full_name}: arguments of type {a.type} are "
                                     "not supported by the generator yet") from None


def check(ops_file: OpsFile) -> None:
    """What generate() verifies beyond the parser, without rendering a file (`codegen check`): every argument type
    has a binding, and the overloads that share a kernel agree on its signature. ValueError with a position."""
    families = ops_file.groups()
    _check_argument_types(families)
    for family in families.values():
        _check_kernel_signatures(family, [_op_view(op, family) for op in family])


def generate(ops_file: OpsFile, module: str | None = None) -> list[GeneratedFile]:
    """Every generated file of `ops_file`. For an extension's ops file (`- namespace: myext`), `module` is the
    Python module its bindings form (default: the namespace)."""
    ns = ops_file.namespace
    ext = ns != "yaten"
    module = module or ns
    env = _environment(ns, module)
    files: list[GeneratedFile] = []

    def render(template: str, **context) -> str:
        text = env.get_template(template).render(**context)
        return wrap_cpp(text) if not template.endswith((".pyi.j2", ".md.j2")) else text

    families = ops_file.groups()
    cuda_groups: dict[str, dict] = {}
    bindings_of: dict[str, list[dict]] = {}  # each family's Python bindings, for its source and the stubs
    _check_argument_types(families)
    for family_name, family in families.items():
        views = [_op_view(op, family) for op in family]
        _check_kernel_signatures(family, views)
        headers = sorted({k["header"] for v in views for k in v["kernels"]
                          if k["header"] and k["backend"] != "CUDA"})
        cuda_headers = sorted({k["header"] for v in views for k in v["kernels"] if k["header"] and
                               k["backend"] == "CUDA"})
        formulas = [g["formula"] for v in views if v["autograd"]
                    for g in v["autograd"].get("grads", []) + v["autograd"].get("list_grads", []) if g["formula"]]
        formulas += ["yaten::clone(self)" for v in views if v["autograd"] and v["autograd"].get("clone_self")]
        called = sorted({m.rstrip("_") for f in formulas for m in re.findall(r"yaten::(\w+)\(", f)} - {family_name})
        headers = headers + [f"yaten/ops/{name}.h" for name in called]  # what the derivative formulas call
        if ext:
            own = sorted({m.rstrip("_") for f in formulas for m in re.findall(ns + r"::(\w+)\(", f)} - {family_name})
            headers += [f"{ns}/ops/{name}.h" for name in own]
        framing = {"family": family_name, "headers": headers, "cuda_headers": cuda_headers}

        # The op's header: its C++ API, then the contract of each kernel it names (the declaration to implement).
        header = GeneratedFile(f"{ns}/ops/{family_name}.h", "op_header.h.j2")
        header.pieces.append(Piece((), None, render("op_header.h.j2", part="begin", **framing)))
        for op, v in zip(family, views):
            header.pieces.append(Piece((op.schema.full_name,), op.location.line,
                                       render("op_header.h.j2", part="op", op=v)))
        header.pieces.append(Piece((), None, render("op_header.h.j2", part="contracts", **framing)))
        declared: set[tuple[str, str]] = set()
        for op, v in zip(family, views):
            fresh = [k for k in v["kernels"] if (k["backend"], k["kernel"]) not in declared]
            declared.update((k["backend"], k["kernel"]) for k in fresh)
            if fresh:
                header.pieces.append(Piece((op.schema.full_name,), op.location.line,
                                           render("op_header.h.j2", part="contract", op=v, kernels=fresh)))
        header.pieces.append(Piece((), None, render("op_header.h.j2", part="end", **framing)))
        files.append(header)

        source = GeneratedFile(f"ops/{family_name}.cpp", "op_source.cpp.j2")
        source.pieces.append(Piece((), None, render("op_source.cpp.j2", part="begin", **framing)))
        for op, v in zip(family, views):
            source.pieces.append(Piece((op.schema.full_name,), op.location.line, render("op_source.cpp.j2", part="op", op=v)))
        source.pieces.append(Piece(tuple(op.schema.full_name for op in family), family[0].location.line,
                                   render("op_source.cpp.j2", part="registration", defs=views,
                                          impl_blocks=_impl_blocks(views, ("CPU", "CUDA"), cuda_file=False))))
        bindings = bindings_of[family_name] = _python_bindings(family)
        named_tuples = {o["named_tuple"]: o for b in bindings for o in b["overloads"] if o["named_tuple"]}
        source.pieces.append(Piece((), None, render("op_source.cpp.j2", part="python_begin",
                                                    named_tuples=list(named_tuples.values()), **framing)))
        for b in bindings:
            for o in b["overloads"]:
                source.pieces.append(Piece((o["full_name"],), o["line"],
                                           render("op_source.cpp.j2", part="python_signature", o=o)))
            source.pieces.append(Piece(tuple(o["full_name"] for o in b["overloads"]), b["line"],
                                       render("op_source.cpp.j2", part="python_binding", b=b)))
        source.pieces.append(Piece((), None, render("op_source.cpp.j2", part="end", **framing)))
        files.append(source)

        if any("CUDA" in op.dispatch for op in family):
            group = cuda_groups.setdefault(_cuda_group(family), {"families": [], "headers": set(), "pieces": []})
            group["families"].append(family_name)
            group["headers"].update(cuda_headers)
            for op, v in zip(family, views):
                if "CUDA" in op.dispatch:
                    group["pieces"].append(Piece((op.schema.full_name,), op.location.line,
                                                 render("op_cuda.cu.j2", part="op", op=v)))
            cuda_ops = tuple(op.schema.full_name for op in family if "CUDA" in op.dispatch)
            blocks = _impl_blocks(views, ("CUDA",), cuda_file=True)
            group["pieces"].append(Piece(cuda_ops, family[0].location.line,
                                         render("op_cuda.cu.j2", part="registration", family=family_name,
                                                impls=blocks["CUDA"])))

    # One nvcc translation unit per CUDA kernel header (an op family group), not per op: nvcc is slow and its
    # per-file overhead large (DESIGN.md 5a).
    for group_name, group in sorted(cuda_groups.items()):
        cuda = GeneratedFile(f"ops/cuda/{group_name}.cu", "op_cuda.cu.j2")
        framing = {"group": group_name, "families": group["families"], "cuda_headers": sorted(group["headers"])}
        cuda.pieces.append(Piece((), None, render("op_cuda.cu.j2", part="begin", **framing)))
        cuda.pieces += group["pieces"]
        cuda.pieces.append(Piece((), None, render("op_cuda.cu.j2", part="end", **framing)))
        files.append(cuda)

    sites = GeneratedFile("ops/op_sites.cpp", "op_sites.cpp.j2")
    sites.pieces.append(Piece((), None, render("op_sites.cpp.j2", sites=[
        {"op": f"{op.namespace}::{op.schema.full_name}", "site": _site(op)} for op in ops_file.ops])))
    files.append(sites)
    functions = GeneratedFile(f"{ns}/functions.h", "functions.h.j2")
    functions.pieces.append(Piece((), None, render("functions.h.j2", families=list(families))))
    files.append(functions)
    if ext:
        init = GeneratedFile("module.cpp", "ext_module.cpp.j2")
        init.pieces.append(Piece((), None, render("ext_module.cpp.j2", families=list(families))))
        files.append(init)
        files += _extension_stub_files(bindings_of, render, module)
    else:
        files += _stub_files(bindings_of, render)
    reference = GeneratedFile("docs/ops-reference.md", "ops_reference.md.j2")
    reference.pieces.append(Piece((), None, render("ops_reference.md.j2", ops=[_reference_view(op) for op in ops_file.ops])))
    files.append(reference)
    return files


def _reference_view(op: Op) -> dict:
    module = f"yaten.{op.python_module}." if op.python_module else "yaten."
    python = []
    if "function" in op.variants:
        python.append(f"`{module}{python_name(op)}`")
    if "method" in op.variants:
        python.append(f"`Tensor.{op.schema.name}`")
    if op.schema.is_out:
        python = [f"`{module}{python_name(op)}(..., out=)`"]
    kernels = ", ".join(f"{key}: `{ref.name}`" for key, ref in op.dispatch.items())
    dtypes = "; ".join(f"{b}: {', '.join(d)}" for b, d in op.dtypes.items())
    return {
        "python": python_name(op) if op.schema.overload == "" else op.schema.full_name,
        "func": str(op.schema),
        "doc": op.doc,
        "source": _site(op),
        "derived_from": op.derived_from,
        "variants": ", ".join(python),
        "kernels": kernels,
        "dtypes": dtypes,
        "rule": op.dtype_rule,
    }


# A package of stubs for yaten._C (as torch/_C/): each python_module's functions live in the submodule
# _C._linalg, ..., which yaten/linalg.py re-exports; typing them there lets mypy read those modules as source, with
# their hand-written functions (yaten/nn/functional.py's relu, conv2d, ...).
STUB_MODULES = {"": "stubs/_C/__init__.pyi", "linalg": "stubs/_C/_linalg.pyi", "special": "stubs/_C/_special.pyi",
                "fft": "stubs/_C/_fft.pyi", "nn.functional": "stubs/_C/_nn_functional.pyi"}


def _stub_files(bindings_of: dict[str, list[dict]], render) -> list[GeneratedFile]:
    """Type stubs: yaten._C (every function and Tensor method), each python_module, and yaten.return_types."""
    bindings = [b for family in bindings_of.values() for b in family]
    files = []
    for module, path in STUB_MODULES.items():
        f = GeneratedFile(path, "stubs.pyi.j2")
        functions = [b for b in bindings if not b["method"] and b["module"] == module]
        methods = [b for b in bindings if b["method"]] if module == "" else []
        f.pieces.append(Piece((), None, render("stubs.pyi.j2", part="begin", module=module)))
        for b in functions:
            f.pieces.append(Piece(tuple(o["full_name"] for o in b["overloads"]), b["line"],
                                  render("stubs.pyi.j2", part="binding", b=b)))
        if module == "":
            f.pieces.append(Piece((), None, render("stubs.pyi.j2", part="tensor_class")))
            for b in methods:
                f.pieces.append(Piece(tuple(o["full_name"] for o in b["overloads"]), b["line"],
                                      render("stubs.pyi.j2", part="binding", b=b)))
        files.append(f)
    named = {o["named_tuple"][12:]: o for b in bindings for o in b["overloads"] if o["named_tuple"]}
    rt = GeneratedFile("stubs/return_types.pyi", "return_types.pyi.j2")
    rt.pieces.append(Piece((), None, render("return_types.pyi.j2", named=named)))
    files.append(rt)
    return files


def _extension_stub_files(bindings_of: dict[str, list[dict]], render, module: str) -> list[GeneratedFile]:
    """The stub of an extension's module: its functions, typed as yaten's own are."""
    bindings = [b for family in bindings_of.values() for b in family]
    f = GeneratedFile(f"stubs/{module}.pyi", "stubs.pyi.j2")
    f.pieces.append(Piece((), None, render("stubs.pyi.j2", part="begin", module=module)))
    for b in bindings:
        f.pieces.append(Piece(tuple(o["full_name"] for o in b["overloads"]), b["line"],
                              render("stubs.pyi.j2", part="binding", b=b)))
    return [f]


def _cuda_group(family: list[Op]) -> str:
    """The CUDA translation unit of a family: named after the header of its first CUDA kernel
    (kernels/cuda/binary_ops.cuh -> binary_ops)."""
    header = next(op.dispatch["CUDA"].header for op in family if "CUDA" in op.dispatch)
    return Path(header).name.split(".")[0] if header else family[0].schema.name


def output_paths(ops_file: OpsFile, module: str | None = None) -> list[str]:
    """The files `generate` writes, without rendering them (CMake asks at configure time)."""
    ns = ops_file.namespace
    paths = []
    for family_name, family in ops_file.groups().items():
        paths += [f"{ns}/ops/{family_name}.h", f"ops/{family_name}.cpp"]
    paths += sorted({f"ops/cuda/{_cuda_group(family)}.cu" for family in ops_file.groups().values()
                     if any("CUDA" in op.dispatch for op in family)})
    paths.append("ops/op_sites.cpp")
    if ns != "yaten":
        return paths + [f"{ns}/functions.h", "module.cpp", f"stubs/{module or ns}.pyi", "docs/ops-reference.md"]
    return paths + ["yaten/functions.h", *STUB_MODULES.values(), "stubs/return_types.pyi", "docs/ops-reference.md"]


def remove_stale(files: list[GeneratedFile], out_dir: Path) -> list[str]:
    """Deletes what an earlier run generated into out_dir and this one did not (a removed op's sources, stubs that
    moved), so that installing the directory never ships them. Only files that carry the generator's mark go."""
    produced = {f.path for f in files}
    removed = []
    for path in sorted(p for p in out_dir.rglob("*") if p.is_file()) if out_dir.is_dir() else []:
        relative = path.relative_to(out_dir).as_posix()
        if relative in produced:
            continue
        try:
            with path.open() as f:
                head = f.read(200)
        except (OSError, UnicodeDecodeError):
            continue
        if "@generated from ops.yaml by codegen" in head.split("\n", 1)[0]:
            path.unlink()
            removed.append(relative)
            parent = path.parent
            while parent != out_dir and not any(parent.iterdir()):
                parent.rmdir()
                parent = parent.parent
    return removed


def write(files: list[GeneratedFile], out_dir: Path) -> list[str]:
    """Writes each file whose text changed; returns the paths written. Unchanged files keep their timestamps."""
    written = []
    for f in files:
        path = out_dir / f.path
        text = f.text
        if path.exists() and path.read_text() == text:
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(path.suffix + ".tmp")
        tmp.write_text(text)
        tmp.replace(path)
        written.append(f.path)
    return written
