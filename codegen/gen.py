"""model -> generated files: gen.py assembles the files, from the typed views (views.py, python_views.py) rendered
through the templates in templates/.

Layout (one op family = `add`, `add_`, `add.out`, ... = one set of files, so adding or editing an op recompiles
only its own files; Design rule [Measured facts]):
  yaten/ops/<family>.h        the C++ API (one function per overload) and the kernel contract (the signature each
                              kernel named in dispatch must have)
  ops/<family>.cpp            C++ API definitions, CPU and composite wrappers, registrations, Python bindings
  ops/cuda/<header>.cu        CUDA wrappers and registrations, one file per CUDA kernel header (nvcc is slow; yaten's
                              small headers share ops/cuda/small_kernels.cu)
  yaten/functions.h           every op header, for code outside yaten

  ops/units/<group>_<i>.cpp   what the compiler compiles: the op sources of one kernel header, a few to a unit
                              (Note [Op units])
  ops/op_sites.cpp            where each op is declared (ops.yaml:LINE), for the dispatcher's messages
  ops/op_docs.cpp             the Python bindings' docstrings (yaten's own ops)

Every file is a list of pieces, each tagged with the ops.yaml entry it came from, so `show OP` can print exactly
what one entry produced, and where. Writing is deterministic and skips files whose text is unchanged.

Note [ops.yaml line numbers live in one compiled file]: an op's own files name their entry by its schema
(`// ops.yaml  add.Tensor(...)`), never by line, so an entry inserted mid-file changes only its own files and
ops/op_sites.cpp, a table of strings with no heavy includes that the dispatcher reads when it prints where an op or
kernel was declared. Files nothing compiles (stubs, docs) and `codegen show` keep the line numbers.

Note [Docstrings live in one compiled file]: likewise the bindings' docstrings (each entry's `doc:`) are in
ops/op_docs.cpp, a table the module's init reads (python/binding_docs.h), not in each op's source: an edit to an op's
doc recompiled its unit (isnan's, 3.3 of the 6.5 s from edit to importable with CUDA on); now this small file. An
extension's bindings keep their docstrings inline (its sources are few).

Note [Op units]: each op family keeps its own source (ops/<family>.cpp, what `codegen show` points to), but the
compiler sees them a few at a time: ops/units/<group>_<i>.cpp includes the sources of families whose kernels live
in one header (kernels/cpu/softmax.h, kernels/composite/views.h, ...), each family in the unit that a hash
of its name picks among the header's units: the smallest power of two of them that is at least families / N (N =
OPS_PER_UNIT below). Compiled one by one, every family paid again for its header's templates and the wrappers' and
bindings' inline code: the 326 sources took 358 core-seconds (the 9 sort ops 22 s apart, 12 s in one unit; the 169
composite families 115 s apart, 36 s in one unit per header). In units they take about 250. N is small for the
families with CPU kernels (1-2 s of compiling each, of which units save about a third) so that the unit an edit
recompiles stays within a few seconds (3 since the pointwise families got lighter: 117 units took 275 core-seconds
at N = 2, 95 took 227 at N = 3, and the slowest unit, reduce_ops_5, 8.8 and 7.8 s), and large for the composites
(0.2 s each, units save two thirds). Tried and left: N = 4 with a unit count of 2^k or 3 * 2^k (57 units, the
composites pooled across headers) compiled the units in 7% less time, measured side by side, but made sum's unit
8.4 s and an edit of sum 10.3 s to importable; the pooled composites alone took as long as one unit per header.
The hash keeps a family's unit when others are edited or added; only when a header's families outgrow N times its power
of two of units are they dealt out again (at N = 3, a header's 49th family doubles its 16 units). Where a family keeps a
header per op (the binary, unary, activation, compare, _foreach, reduction, sorting, indexing and special-function
families: Note [A header per op], kernels/binary_math.h), the folder counts as the header (kernels/cpu/binary/ ->
binary_<i>), and an edit to one op's header recompiles the one unit its family is in (pow's or atan2's kernel: 10.5-10.9
s to importable here, CUDA off). With `--unit-per-op` (CMake's YATEN_UNIT_PER_OP, which the README's developer loop
sets) each such header makes a unit of its own families instead (kernels/cpu/binary/pow.h -> binary_pow_0): atan2's edit
4.4 s, pow's 9.2. A one-time build keeps the pooled units: the per-op units compile those families in 22% more
core-seconds (230 against 188 for the 42 units they replace, +42 of a clean build's 1,060 with CUDA here). As no edit
waits on a one-time build's units, it pools twice as many families a unit (OPS_PER_UNIT_POOLED): 92 units instead of
141, 456 core-seconds instead of 494 and 236 s instead of 258 on 2 cores at -O3 (CUDA off, this machine), 137 instead of
166 core-seconds at -O0 (the README test's build of a copy). Only yaten's own build uses units; an extension compiles
its few sources directly.
"""

from __future__ import annotations

from dataclasses import dataclass, field
import functools
import math
import re
import zlib
from pathlib import Path
from typing import TYPE_CHECKING

from . import cpp
from .model import DTYPE_RULE_TABLE, Op, OpsFile
from .python_views import PythonBinding, python_bindings, reference_entry
from .views import FormulaPlan, OpView, impl_blocks, op_view, site

if TYPE_CHECKING:
    import jinja2

TEMPLATES = Path(__file__).parent / "templates"


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
    the last opening parenthesis (not one of an empty pair)."""
    indent = len(line) - len(line.lstrip())
    head = line[:limit]
    if '"' in head:  # the string literals blanked out, so that str.rfind steps over them (one a line ends in too)
        head = _STRING_LITERAL.sub(lambda m: "\0" * len(m.group()), line)[:limit]
    found = head.rfind(",", indent + 9)
    if found >= 0:
        return found
    found = head.rfind("(", indent + 9)
    while found >= 0 and line[found + 1 : found + 2] in (")", ""):
        found = head.rfind("(", indent + 9, found)
    return found if found >= 0 else None


_STRING_LITERAL = re.compile(r'"(?:[^"\\]|\\.)*(?:"|\\?$)')


def _bytecode_cache() -> jinja2.BytecodeCache | None:
    import jinja2

    try:
        return jinja2.FileSystemBytecodeCache()
    except (OSError, RuntimeError):  # no writable temporary directory: compile every run, as before
        return None


@functools.lru_cache(maxsize=8)
def _environment(ns: str = "yaten", module: str = "yaten") -> jinja2.Environment:
    """One environment per namespace (its globals: ns, ext, module_name, also seen by imported macros), kept so
    that templates compile once per process rather than once per generate()."""
    import jinja2  # here, not at the top: `outputs` (each CMake configure) and `check` render nothing (35 ms)

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


# ----------------------------------------------------------------------------------------------- files


def _check_kernel_signatures(family: list[Op], views: list[OpView]) -> None:
    seen: dict[tuple[str, str], tuple[str, str]] = {}
    for op, view in zip(family, views):
        for k in view.kernels:
            key = (k.backend, k.kernel)
            if key in seen and seen[key][0] != k.contract:
                raise ValueError(f"{op.location}: error: kernel '{k.kernel}' for {k.backend} is used by "
                                 f"{seen[key][1]} and {op.schema.full_name} with different signatures")
            seen[key] = (k.contract, op.schema.full_name)


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
        _check_kernel_signatures(family, [op_view(op, family) for op in family])


def generate(ops_file: OpsFile, module: str | None = None, unit_per_op: bool = False) -> list[GeneratedFile]:
    """Every generated file of `ops_file`. For an extension's ops file (`- namespace: myext`), `module` is the
    Python module its bindings form (default: the namespace). `unit_per_op`: Note [Op units]."""
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
    bindings_of: dict[str, list[PythonBinding]] = {}  # each family's Python bindings, for its source and the stubs
    _check_argument_types(families)
    for family_name, family in families.items():
        views = [op_view(op, family) for op in family]
        _check_kernel_signatures(family, views)
        headers = sorted({k.header for v in views for k in v.kernels if k.header and k.backend != "CUDA"})
        cuda_headers = sorted({k.header for v in views for k in v.kernels if k.header and k.backend == "CUDA"})
        plans = [v.autograd for v in views if isinstance(v.autograd, FormulaPlan)]
        formulas = [g.formula for p in plans for g in p.grads if g.formula]
        formulas += [g.formula for p in plans for g in p.list_grads]
        formulas += [g.formula for p in plans for g in p.joint_grads]
        formulas += ["yaten::clone(self)" for p in plans if p.clone_self]
        called = sorted({m.rstrip("_") for f in formulas for m in re.findall(r"yaten::(\w+)\(", f)} - {family_name})
        headers = headers + [f"yaten/ops/{name}.h" for name in called]  # what the derivative formulas call
        if ext:
            own = sorted({m.rstrip("_") for f in formulas for m in re.findall(ns + r"::(\w+)\(", f)} - {family_name})
            headers += [f"{ns}/ops/{name}.h" for name in own]
        if any(v.autocast for v in views):
            headers = ["dispatch/autocast.h"] + headers  # its Autocast kernels (Note [Autocast])
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
            fresh = [k for k in v.kernels if (k.backend, k.kernel) not in declared]
            declared.update((k.backend, k.kernel) for k in fresh)
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
                                          impl_blocks=impl_blocks(views, ("CPU", "CUDA"), cuda_file=False))))
        bindings = bindings_of[family_name] = python_bindings(family)
        named_tuples = {o.named_tuple: o for b in bindings for o in b.overloads if o.named_tuple}
        source.pieces.append(Piece((), None, render("op_source.cpp.j2", part="python_begin",
                                                    named_tuples=list(named_tuples.values()), **framing)))
        for b in bindings:
            for o in b.overloads:
                source.pieces.append(Piece((o.full_name,), o.line,
                                           render("op_source.cpp.j2", part="python_signature", o=o)))
            source.pieces.append(Piece(tuple(o.full_name for o in b.overloads), b.line,
                                       render("op_source.cpp.j2", part="python_binding", b=b)))
        source.pieces.append(Piece((), None, render("op_source.cpp.j2", part="end", **framing)))
        files.append(source)

        if any("CUDA" in op.dispatch for op in family):
            group = cuda_groups.setdefault(_cuda_group(family, own=not ext),
                                           {"families": [], "headers": set(), "pieces": []})
            group["families"].append(family_name)
            group["headers"].update(cuda_headers)
            for op, v in zip(family, views):
                if "CUDA" in op.dispatch:
                    group["pieces"].append(Piece((op.schema.full_name,), op.location.line,
                                                 render("op_cuda.cu.j2", part="op", op=v)))
            cuda_ops = tuple(op.schema.full_name for op in family if "CUDA" in op.dispatch)
            blocks = impl_blocks(views, ("CUDA",), cuda_file=True)
            group["pieces"].append(Piece(cuda_ops, family[0].location.line,
                                         render("op_cuda.cu.j2", part="registration", family=family_name,
                                                impls=blocks["CUDA"])))

    # One nvcc translation unit per CUDA kernel header (an op family group), not per op: nvcc is slow and its
    # per-file overhead large (Design rule [Shared element math]).
    for group_name, group in sorted(cuda_groups.items()):
        cuda = GeneratedFile(f"ops/cuda/{group_name}.cu", "op_cuda.cu.j2")
        framing = {"group": group_name, "families": group["families"], "cuda_headers": sorted(group["headers"])}
        cuda.pieces.append(Piece((), None, render("op_cuda.cu.j2", part="begin", **framing)))
        cuda.pieces += group["pieces"]
        cuda.pieces.append(Piece((), None, render("op_cuda.cu.j2", part="end", **framing)))
        files.append(cuda)

    if not ext:
        for path, (kernel_header, names) in op_units(families, unit_per_op).items():
            unit = GeneratedFile(path, "op_unit.cpp.j2")
            unit.pieces.append(Piece((), None, render("op_unit.cpp.j2", header=kernel_header, families=names)))
            files.append(unit)

    if not ext:
        docs = GeneratedFile("ops/op_docs.cpp", "op_docs.cpp.j2")
        docs.pieces.append(Piece((), None, render("op_docs.cpp.j2", ns=ns, docs=[
            b for family in bindings_of.values() for b in family])))
        files.append(docs)
    sites = GeneratedFile("ops/op_sites.cpp", "op_sites.cpp.j2")
    sites.pieces.append(Piece((), None, render("op_sites.cpp.j2", sites=[
        {"op": f"{op.namespace}::{op.schema.full_name}", "site": site(op)} for op in ops_file.ops])))
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
    reference.pieces.append(Piece((), None, render("ops_reference.md.j2", ops=[reference_entry(op) for op in ops_file.ops],
                                                                   rules=list(DTYPE_RULE_TABLE.values()))))
    files.append(reference)
    return files


# A package of stubs for yaten._C (as torch/_C/): each python_module's functions live in the submodule
# _C._linalg, ..., which yaten/linalg.py re-exports; typing them there lets mypy read those modules as source, with
# their hand-written functions (yaten/nn/functional.py's relu, conv2d, ...).
STUB_MODULES = {"": "stubs/_C/__init__.pyi", "linalg": "stubs/_C/_linalg.pyi", "special": "stubs/_C/_special.pyi",
                "fft": "stubs/_C/_fft.pyi", "nn.functional": "stubs/_C/_nn_functional.pyi"}


def _stub_files(bindings_of: dict[str, list[PythonBinding]], render) -> list[GeneratedFile]:
    """Type stubs: yaten._C (every function and Tensor method), each python_module, and yaten.return_types."""
    bindings = [b for family in bindings_of.values() for b in family]
    files = []
    for module, path in STUB_MODULES.items():
        f = GeneratedFile(path, "stubs.pyi.j2")
        functions = [b for b in bindings if not b.method and b.module == module]
        methods = [b for b in bindings if b.method] if module == "" else []
        f.pieces.append(Piece((), None, render("stubs.pyi.j2", part="begin", module=module)))
        for b in functions:
            f.pieces.append(Piece(tuple(o.full_name for o in b.overloads), b.line,
                                  render("stubs.pyi.j2", part="binding", b=b)))
        if module == "":
            f.pieces.append(Piece((), None, render("stubs.pyi.j2", part="tensor_class")))
            for b in methods:
                f.pieces.append(Piece(tuple(o.full_name for o in b.overloads), b.line,
                                      render("stubs.pyi.j2", part="binding", b=b)))
        files.append(f)
    named = {o.named_tuple[12:]: o for b in bindings for o in b.overloads if o.named_tuple}
    rt = GeneratedFile("stubs/return_types.pyi", "return_types.pyi.j2")
    rt.pieces.append(Piece((), None, render("return_types.pyi.j2", named=named)))
    files.append(rt)
    return files


def _extension_stub_files(bindings_of: dict[str, list[PythonBinding]], render, module: str) -> list[GeneratedFile]:
    """The stub of an extension's module: its functions, typed as yaten's own are."""
    bindings = [b for family in bindings_of.values() for b in family]
    f = GeneratedFile(f"stubs/{module}.pyi", "stubs.pyi.j2")
    f.pieces.append(Piece((), None, render("stubs.pyi.j2", part="begin", module=module)))
    for b in bindings:
        f.pieces.append(Piece(tuple(o.full_name for o in b.overloads), b.line,
                              render("stubs.pyi.j2", part="binding", b=b)))
    return [f]


# yaten's small CUDA kernel headers, whose wrappers share one nvcc unit (ops/cuda/small_kernels.cu). Alone, each
# took 2.6-4.7 s of nvcc, about 2.5 s of it a unit's fixed cost (preprocessing twice, cudafe++, parsing the headers
# for host and device); the seven took 24.3 s as seven units and 9.1 s as one. The large headers keep a unit each,
# so that a clean build spreads them over the cores and an edit to one recompiles only its own.
SMALL_CUDA_HEADERS = frozenset({"conv", "fft", "fill", "linalg", "loss_ops", "norm", "pool", "softmax", "special_ops",
                                "upsample"})


def _cuda_group(family: list[Op], own: bool) -> str:
    """The CUDA translation unit of a family: named after the header of its first CUDA kernel
    (kernels/cuda/binary_ops.cuh -> binary_ops), or small_kernels for yaten's (`own`) SMALL_CUDA_HEADERS."""
    header = next(op.dispatch["CUDA"].header for op in family if "CUDA" in op.dispatch)
    name = Path(header).name.split(".")[0] if header else family[0].schema.name
    return "small_kernels" if own and name in SMALL_CUDA_HEADERS else name


# Families per unit, on average (Note [Op units]): in the developer loop (`unit_per_op`), where an edit recompiles a
# unit, and in a one-time build, where only the total counts.
OPS_PER_UNIT = {"kernels": 3, "composite": 16}
OPS_PER_UNIT_POOLED = {"kernels": 6, "composite": 32}


def op_units(families: dict[str, list[Op]], unit_per_op: bool = False) -> dict[str, tuple[str, list[str]]]:
    """Note [Op units]: unit path -> (the kernel header its families share, or the folder of their headers, their
    names), for yaten's own ops."""
    groups: dict[str, list[str]] = {}
    for name, family in families.items():
        groups.setdefault(unit_group(family, unit_per_op), []).append(name)
    units: dict[str, tuple[str, list[str]]] = {}
    for header, names in sorted(groups.items()):
        if not header:  # kernels not written yet: a unit per family
            for name in names:
                units[f"ops/units/unwritten_{name}.cpp"] = ("", [name])
            continue
        kind = "composite" if "/composite/" in header else "kernels"
        # A power of two, so that adding a family changes it (and deals the header's families out again) only when
        # the count of families crosses N times a power of two.
        per_unit = (OPS_PER_UNIT if unit_per_op else OPS_PER_UNIT_POOLED)[kind]
        count = 1 << math.ceil(math.log2(math.ceil(len(names) / per_unit)))
        # kernels/cpu/softmax.h -> softmax, kernels/composite/views.h -> composite_views, the folder kernels/cpu/binary/
        # -> binary, and with a unit per op kernels/cpu/binary/pow.h -> binary_pow (Note [A header per op])
        where, base = Path(header), "kernels/cpu" if kind == "kernels" else "kernels"
        below = where.relative_to(base) if where.is_relative_to(base) else Path(where.name)
        stem = "_".join(below.with_suffix("").parts)
        for name in sorted(names):
            path = f"ops/units/{stem}_{zlib.crc32(name.encode()) % count}.cpp"
            units.setdefault(path, (header, []))[1].append(name)
    return dict(sorted(units.items()))


def unit_group(family: list[Op], unit_per_op: bool = False) -> str:
    """What a family shares its unit by: its kernel header; a header in a family's folder of headers per op
    (kernels/cpu/binary/pow.h) counts as that folder (kernels/cpu/binary/) unless `unit_per_op`."""
    header = _unit_header(family) or ""
    folder = Path(header).parent
    if not unit_per_op and folder.parent == Path("kernels/cpu"):
        return f"{folder.as_posix()}/"
    return header


def _unit_header(family: list[Op]) -> str | None:
    """The header whose templates a family's source instantiates: its CPU kernels', else its composite's."""
    for backend in ("CPU", "CompositeImplicit"):
        for op in family:
            if backend in op.dispatch and op.dispatch[backend].header:
                return op.dispatch[backend].header
    return None


def output_paths(ops_file: OpsFile, module: str | None = None, unit_per_op: bool = False) -> list[str]:
    """The files `generate` writes, without rendering them (CMake asks at configure time)."""
    ns = ops_file.namespace
    paths = []
    for family_name, family in ops_file.groups().items():
        paths += [f"{ns}/ops/{family_name}.h", f"ops/{family_name}.cpp"]
    paths += sorted({f"ops/cuda/{_cuda_group(family, own=ns == 'yaten')}.cu" for family in ops_file.groups().values()
                     if any("CUDA" in op.dispatch for op in family)})
    if ns == "yaten":
        paths += list(op_units(ops_file.groups(), unit_per_op))
        paths.append("ops/op_docs.cpp")
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
