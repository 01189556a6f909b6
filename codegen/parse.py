"""ops.yaml -> model, checking everything before anything is generated.

All problems are collected in one pass and reported as `ops.yaml:LINE:COL: error: message (did you mean ...?)`.
Bad input never raises a Python traceback: every failure becomes a Diagnostic, and `load` raises ParseError with
all of them at the end.
"""

from __future__ import annotations

import difflib
import functools
import os
import re
from dataclasses import dataclass
from pathlib import Path

import yaml

from .model import (
    AUTOCAST_POLICIES,
    BACKENDS,
    BASE_TYPES,
    DISPATCH_KEYS,
    DTYPE_RULES,
    DTYPE_SETS,
    DTYPES,
    FORMS,
    POINTWISE_RULES,
    PYTHON_MODULES,
    TAGS,
    VARIANTS,
    Argument,
    KernelRef,
    Location,
    Op,
    OpsFile,
    Return,
    Schema,
    Type,
)

KNOWN_KEYS = ("func", "variants", "tags", "dtypes", "dtype_rule", "dispatch", "forms", "python_module", "aliases",
              "derivatives", "output_differentiability", "autocast", "doc")
NOT_YET: dict[str, str] = {}
KERNEL_DIRS = {"CPU": "kernels/cpu", "CUDA": "kernels/cuda", "CompositeImplicit": "kernels/composite"}


@dataclass(frozen=True)
class Diagnostic:
    location: Location
    message: str

    def __str__(self) -> str:
        return f"{self.location}: error: {self.message}"


class ParseError(Exception):
    def __init__(self, diagnostics: list[Diagnostic]):
        self.diagnostics = diagnostics
        super().__init__("\n".join(str(d) for d in diagnostics))


def suggest(word: str, choices: tuple[str, ...] | list[str]) -> str:
    if not choices:
        return ""
    close = difflib.get_close_matches(word, list(choices), n=3, cutoff=0.6)
    if close:
        # among equally close names, one with the same first letter ('ad': add, not pad) is the likelier intent
        best = max(close, key=lambda c: (difflib.SequenceMatcher(None, word, c).ratio(), c[:1] == word[:1]))
        return f" (did you mean '{best}'?)"
    if len(choices) > 12:
        return ""
    return f" (expected one of: {', '.join(choices)})"


class _SchemaSyntaxError(Exception):
    def __init__(self, message: str, offset: int):
        super().__init__(message)
        self.offset = offset


_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_TYPE = re.compile(r"(?P<base>[A-Za-z_]+)(\((?P<alias>[a-z]!?)\))?(\[(?P<size>\d*)\])?(?P<opt>\?)?$")


def _split_top_level(text: str, start: int) -> list[tuple[str, int]]:
    """Splits on commas outside brackets and quotes; returns (piece, offset of piece) pairs."""
    pieces, depth, quote, begin = [], 0, None, 0
    for i, ch in enumerate(text):
        if quote:
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif ch == "," and depth == 0:
            pieces.append((text[begin:i], start + begin))
            begin = i + 1
    if text[begin:].strip() or pieces:
        pieces.append((text[begin:], start + begin))
    return [(p.strip(), off + len(p) - len(p.lstrip())) for p, off in pieces]


def parse_type(text: str, offset: int) -> Type:
    m = _TYPE.match(text)
    if not m:
        raise _SchemaSyntaxError(f"cannot parse type '{text}'", offset)
    base = m.group("base")
    if base not in BASE_TYPES:
        raise _SchemaSyntaxError(f"unknown type '{base}'{suggest(base, BASE_TYPES)}", offset)
    alias = m.group("alias")
    if alias and base != "Tensor":
        raise _SchemaSyntaxError(f"only Tensor takes an alias annotation, not '{base}'", offset)
    size = m.group("size")
    list_size = None if size is None else int(size or 0)
    if list_size is not None and base not in ("int", "Tensor", "bool", "Scalar"):
        raise _SchemaSyntaxError(f"lists of '{base}' are not supported (use int[], bool[N], Scalar[] or Tensor[])",
                                 offset)
    if base == "Scalar" and list_size is not None and (list_size or m.group("opt")):
        raise _SchemaSyntaxError(f"a list of Scalars has no fixed length and cannot be optional: Scalar[], not "
                                 f"'{text}' (torch's ScalarList)", offset)
    if base == "bool" and list_size is not None and (not list_size or m.group("opt")):
        raise _SchemaSyntaxError(f"a list of bools needs its length and cannot be optional: bool[3], not '{text}' "
                                 "(torch's output_mask)", offset)
    return Type(base, alias, list_size, bool(m.group("opt")))


_INT = re.compile(r"-?\d+$")
_FLOAT = re.compile(r"-?(\d+\.\d*|\.\d+|\d+)([eE]-?\d+)?$")


def check_default(t: Type, text: str, offset: int) -> None:
    ok = False
    if text == "None":
        ok = t.optional
    elif t.list_size is not None and t.base == "int":
        ok = bool(_INT.match(text)) or bool(re.match(r"\[\s*(-?\d+\s*(,\s*-?\d+\s*)*)?\]$", text))
    elif t.base == "int":
        ok = bool(_INT.match(text))
    elif t.list_size is not None and t.base == "Scalar":
        ok = False  # a ScalarList has no default, as in torch
    elif t.base in ("float", "Scalar"):
        ok = bool(_FLOAT.match(text)) or (t.base == "Scalar" and text in ("True", "False"))
    elif t.base == "bool" and t.list_size is not None:
        values = re.fullmatch(r"\[\s*((True|False)\s*(,\s*(True|False)\s*)*)?\]", text)
        ok = bool(values) and len(re.findall(r"True|False", text)) == t.list_size
    elif t.base == "bool":
        ok = text in ("True", "False")
    elif t.base == "str":
        ok = len(text) >= 2 and text[0] == text[-1] and text[0] in "'\""
    if not ok:
        raise _SchemaSyntaxError(f"bad default '{text}' for an argument of type {t}", offset)


def parse_schema(text: str) -> Schema:
    """Parses a `func:` string. Raises _SchemaSyntaxError with the character offset of the problem."""
    m = re.match(r"\s*([A-Za-z_][A-Za-z0-9_]*)(\.([A-Za-z_][A-Za-z0-9_]*))?\(", text)
    if not m:
        raise _SchemaSyntaxError("expected 'name[.overload](arguments) -> returns'", 0)
    name, overload = m.group(1), m.group(3) or ""
    depth, close = 1, -1
    for i in range(m.end(), len(text)):
        depth += {"(": 1, ")": -1}.get(text[i], 0)
        if depth == 0:
            close = i
            break
    if close < 0:
        raise _SchemaSyntaxError("unbalanced parentheses in the argument list", m.end() - 1)
    arguments: list[Argument] = []
    keyword_only = False
    seen: set[str] = set()
    for piece, off in _split_top_level(text[m.end() : close], m.end()):
        if piece == "*":
            if keyword_only:
                raise _SchemaSyntaxError("'*' appears twice", off)
            keyword_only = True
            continue
        decl, _, default = piece.partition("=")
        parts = decl.split()
        if len(parts) != 2 or not _IDENT.fullmatch(parts[1]):
            raise _SchemaSyntaxError(f"expected 'Type name[=default]', got '{piece}'", off)
        arg_type = parse_type(parts[0], off)
        if parts[1] in seen:
            raise _SchemaSyntaxError(f"argument '{parts[1]}' appears twice", off)
        seen.add(parts[1])
        default_text = default.strip() if default else None
        if default_text is not None:
            check_default(arg_type, default_text, off + len(decl) + 1)
        elif arguments and arguments[-1].default is not None and not keyword_only:
            raise _SchemaSyntaxError(f"argument '{parts[1]}' without a default follows one with a default", off)
        arguments.append(Argument(arg_type, parts[1], default_text, keyword_only))
    rest = text[close + 1 :]
    arrow = re.match(r"\s*->\s*", rest)
    if not arrow:
        raise _SchemaSyntaxError("expected '->' and the return type after the arguments", close + 1)
    ret_text = rest[arrow.end() :].strip()
    ret_off = close + 1 + arrow.end()
    returns: list[Return] = []
    if ret_text.startswith("("):
        if not ret_text.endswith(")"):
            raise _SchemaSyntaxError("unbalanced parentheses in the returns", ret_off)
        for piece, off in _split_top_level(ret_text[1:-1], ret_off + 1):
            parts = piece.split()
            if len(parts) not in (1, 2):
                raise _SchemaSyntaxError(f"expected 'Type [name]', got '{piece}'", off)
            returns.append(Return(parse_type(parts[0], off), parts[1] if len(parts) == 2 else None))
    else:
        if not ret_text or " " in ret_text:
            raise _SchemaSyntaxError(f"expected a return type, got '{ret_text}'", ret_off)
        returns.append(Return(parse_type(ret_text, ret_off)))
    return Schema(name, overload, tuple(arguments), tuple(returns))


# ------------------------------------------------------------------------------------------------ kernel lookup


def find_kernel_definitions(csrc: Path) -> dict[str, dict[str, str]]:
    """For each dispatch key, kernel name -> the header (relative to csrc/) that defines it."""
    found: dict[str, dict[str, str]] = {key: {} for key in KERNEL_DIRS}
    for key, sub in KERNEL_DIRS.items():
        folder = csrc / sub
        if not folder.is_dir():
            continue
        # a family may keep a header per op in a folder of its own (Note [A header per op], kernels/binary_math.h)
        for path in sorted(folder.rglob("*")):
            if path.suffix not in (".h", ".cuh"):
                continue
            header = f"{sub}/{path.relative_to(folder).as_posix()}"
            for name in _defined_functions(path, (csrc,)):
                found[key].setdefault(name, header)
    return found


# A definition: the name followed by its parameter list and, after it, a body.
_DEFINITION = re.compile(r"^[^\n;{}()]*?\b([A-Za-z_]\w*)\s*\([^;{]*\)\s*\{", re.M)
# Note [Kernels written once for both backends]: where a family's kernels read the same on the CPU and on CUDA (each
# forwards to its backend's helpers of the same name: pool_detail::avg_pool, random_detail::fill_random,
# ForeachBackend::apply, norm_detail::Channels), their text is written once, as a fragment (norm_kernels.inc,
# random_kernels.inc, and a fragment per pooling op and per _foreach op, kernels/pool/<op>.inc,
# kernels/foreach/<op>.inc) that the CPU header (kernels/cpu/<family>.h, kernels/cpu/pool/<op>.h) and
# kernels/cuda/<family>.cuh each include in their own namespace; the names in it resolve to that backend's helpers. The
# generator reads a fragment's definitions as the including header's, which is what the generated code includes.
_FRAGMENT = re.compile(r'^\s*#\s*include\s+"([^"]+\.inc)"', re.M)


def _defined_functions(path: Path, include_dirs: tuple[Path, ...] = ()) -> list[str]:
    own, fragments = _scan_definitions(path.read_text())
    names = list(own)
    for included in fragments:
        fragment = next((d / included for d in (path.parent, *include_dirs) if (d / included).is_file()), None)
        if fragment is not None:
            names += _defined_functions(fragment, include_dirs)
    return names


@functools.lru_cache(maxsize=4096)
def _scan_definitions(text: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The functions a header's text defines and the fragments it includes. Kept by text, so a process that parses
    ops.yaml again and again (`check` in a loop, the generator's fuzz test) reads the headers but scans each once."""
    code = re.sub(r"/\*.*?\*/|//[^\n]*", "", text, flags=re.S)  # comments define nothing
    return (tuple(m.group(1) for m in _DEFINITION.finditer(code)),
            tuple(m.group(1) for m in _FRAGMENT.finditer(code)))


def find_kernels_in_files(files: list[Path], root: Path) -> dict[str, dict[str, str] | None]:
    """An extension's kernels: the functions defined in the headers it names (.h: CPU and CompositeImplicit,
    .cuh: CUDA), each known by its path relative to `root`, the directory the generated code includes from.
    Without any .cuh file (a build without CUDA), CUDA kernels are not looked up: their wrappers are not built."""
    found: dict[str, dict[str, str] | None] = {key: {} for key in KERNEL_DIRS}
    if not any(Path(f).suffix == ".cuh" for f in files):
        found["CUDA"] = None
    for path in files:
        path = Path(path)
        if path.suffix not in (".h", ".hpp", ".cuh"):
            continue
        keys = ("CUDA",) if path.suffix == ".cuh" else ("CPU", "CompositeImplicit")
        relative = Path(os.path.relpath(path.resolve(), root.resolve())).as_posix()
        for name in _defined_functions(path, (root,)):
            for key in keys:
                table = found[key]
                if table is not None:
                    table.setdefault(name, relative)
    return found


# ------------------------------------------------------------------------------------------------ entries


class _Parser:
    def __init__(self, path: str, text: str, csrc: Path | None,
                 kernels: dict[str, dict[str, str] | None] | None = None,
                 missing: list[tuple[str, Diagnostic]] | None = None):
        self.path = path
        self.text = text
        self.diagnostics: list[Diagnostic] = []
        self.missing = missing  # where kernels not written yet go, instead of errors (`show` before the kernel)
        self.kernels: dict[str, dict[str, str] | None] | None = (
            kernels if kernels is not None else dict(find_kernel_definitions(csrc)) if csrc else None)
        self.kernel_files = kernels is not None
        self.csrc = csrc
        self.namespace = "yaten"
        self.formulas: list[tuple[Schema, list[str], str, yaml.ScalarNode]] = []  # checked once every op is known

    def error(self, node: yaml.Node | None, message: str, offset: int = 0) -> None:
        if node is None:
            loc = Location(self.path, 1, 1)
        else:
            loc = Location(self.path, node.start_mark.line + 1, node.start_mark.column + 1 + offset)
        self.diagnostics.append(Diagnostic(loc, message))

    def scalar(self, node: yaml.Node, what: str) -> str | None:
        if not isinstance(node, yaml.ScalarNode):
            self.error(node, f"{what} must be a single value")
            return None
        return str(node.value)

    def names(self, node: yaml.Node, what: str) -> list[tuple[str, yaml.Node]]:
        """A list given as `[a, b]` or as `a, b`."""
        if isinstance(node, yaml.SequenceNode):
            out = []
            for item in node.value:
                value = self.scalar(item, what)
                if value is not None:
                    out.append((value, item))
            return out
        value = self.scalar(node, what)
        return [(v.strip(), node) for v in (value or "").split(",") if v.strip()]

    def dtype_list(self, node: yaml.Node) -> tuple[str, ...] | None:
        if isinstance(node, yaml.ScalarNode) and "," not in node.value:
            if node.value in DTYPE_SETS:
                return DTYPE_SETS[node.value]
            if node.value in DTYPES:
                return (node.value,)
            self.error(node, f"'{node.value}' is no dtype or dtype set{suggest(node.value, list(DTYPE_SETS) + list(DTYPES))}")
            return None
        chosen: set[str] = set()
        for name, item in self.names(node, "dtypes"):
            if name in DTYPE_SETS:
                chosen.update(DTYPE_SETS[name])
            elif name in DTYPES:
                chosen.add(name)
            else:
                self.error(item, f"'{name}' is no dtype or dtype set{suggest(name, list(DTYPE_SETS) + list(DTYPES))}")
        return tuple(d for d in DTYPES if d in chosen)

    def entry(self, node: yaml.Node) -> Op | None:
        if not isinstance(node, yaml.MappingNode):
            self.error(node, "each entry must be a mapping that starts with 'func:'")
            return None
        fields: dict[str, tuple[yaml.Node, yaml.Node]] = {}
        misspelled: set[str] = set()  # known keys that an unknown key was probably meant to be
        for key_node, value_node in node.value:
            key = str(key_node.value)
            if key in NOT_YET:
                self.error(key_node, f"'{key}' is not supported yet: {NOT_YET[key]}")
            elif key not in KNOWN_KEYS:
                self.error(key_node, f"unknown key '{key}'{suggest(key, KNOWN_KEYS)}")
                misspelled.update(difflib.get_close_matches(key, KNOWN_KEYS, n=1, cutoff=0.6))
            elif key in fields:
                self.error(key_node, f"'{key}' appears twice in this entry")
            else:
                fields[key] = (key_node, value_node)
        if "func" not in fields:
            self.error(node, "entry has no 'func:' (every entry starts with `- func: name(args) -> returns`)")
            return None
        func_node = fields["func"][1]
        func_text = self.scalar(func_node, "func")
        if func_text is None:
            return None
        # Columns inside the func string: exact for plain scalars, the value's start otherwise.
        plain = not func_node.style  # None (PyYAML) or "" (libyaml) for a plain scalar
        try:
            schema = parse_schema(func_text)
        except _SchemaSyntaxError as e:
            self.error(func_node, str(e), e.offset if plain else 0)
            return None

        variants: tuple[str, ...] = ("function",)
        if "variants" in fields:
            vs = []
            for v, vnode in self.names(fields["variants"][1], "variants"):
                if v not in VARIANTS:
                    self.error(vnode, f"unknown variant '{v}'{suggest(v, VARIANTS)}")
                else:
                    vs.append(v)
            variants = tuple(vs)
            if "method" in variants and self.namespace != "yaten":
                self.error(fields["variants"][1], f"{schema.full_name}: an extension's op is a function of its "
                           "module (Tensor methods are yaten's own); use `variants: function`")
                variants = ("function",)
            elif "method" in variants:
                self_arg = schema.argument("self")
                if self_arg is None or not self_arg.type.is_tensor or schema.arguments[0].name != "self":
                    self.error(fields["variants"][1], f"{schema.full_name}: a method variant needs a first "
                               "argument 'Tensor self'")

        tags: list[str] = []
        if "tags" in fields:
            for t, tnode in self.names(fields["tags"][1], "tags"):
                if t not in TAGS:
                    self.error(tnode, f"unknown tag '{t}'{suggest(t, TAGS)}")
                else:
                    tags.append(t)

        dispatch: dict[str, KernelRef] = {}
        if "dispatch" not in fields:
            if "dispatch" not in misspelled:
                self.error(fields["func"][0], f"{schema.full_name}: no 'dispatch:' (name a CPU/CUDA kernel or "
                           "a CompositeImplicit one)")
        else:
            dnode = fields["dispatch"][1]
            if not isinstance(dnode, yaml.MappingNode):
                self.error(dnode, "dispatch must map keys to kernel names, e.g. {CPU: add_kernel}")
            else:
                for key_node, value_node in dnode.value:
                    key = str(key_node.value)
                    kernel = self.scalar(value_node, "a kernel name")
                    if key not in DISPATCH_KEYS:
                        self.error(key_node, f"unknown dispatch key '{key}'{suggest(key, DISPATCH_KEYS)}")
                        continue
                    if kernel is None:
                        continue
                    if not _IDENT.fullmatch(kernel):
                        self.error(value_node, f"'{kernel}' is not a C++ identifier")
                        continue
                    header = None
                    known = self.kernels.get(key) if self.kernels is not None else None  # None: not looked up
                    if known is not None:
                        header = known.get(kernel)
                        if header is None:
                            where = ("the extension's " + (".cuh" if key == "CUDA" else ".h") + " files"
                                     if self.kernel_files else f"csrc/{KERNEL_DIRS[key]}/")
                            message = (f"kernel '{kernel}' for {key} is not defined in any header under "
                                       f"{where}{suggest(kernel, list(known))}")
                            if self.missing is None:
                                self.error(value_node, message)
                            else:
                                self.error(value_node, message)
                                self.missing.append((schema.full_name, self.diagnostics.pop()))
                    dispatch[key] = KernelRef(kernel, header)
                if "CompositeImplicit" in dispatch and len(dispatch) > 1:
                    self.error(dnode, f"{schema.full_name}: CompositeImplicit serves every backend; it cannot be "
                               "combined with CPU or CUDA kernels")

        dtypes: dict[str, tuple[str, ...]] = {}
        backends = [b for b in BACKENDS if b in dispatch]
        if "dtypes" in fields:
            dnode = fields["dtypes"][1]
            if not backends:
                self.error(fields["dtypes"][0], f"{schema.full_name}: 'dtypes' applies to CPU/CUDA kernels; a "
                           "CompositeImplicit op takes the dtypes of the ops it calls")
            elif isinstance(dnode, yaml.MappingNode):
                for key_node, value_node in dnode.value:
                    key = str(key_node.value)
                    if key not in BACKENDS:
                        self.error(key_node, f"unknown backend '{key}'{suggest(key, BACKENDS)}")
                        continue
                    if key not in dispatch:
                        self.error(key_node, f"{schema.full_name}: dtypes given for {key}, which has no kernel")
                    parsed = self.dtype_list(value_node)
                    if parsed is not None:
                        dtypes[key] = parsed
                for b in backends:
                    if b not in dtypes:
                        self.error(dnode, f"{schema.full_name}: no dtypes given for the {b} kernel")
            else:
                parsed = self.dtype_list(dnode)
                if parsed is not None:
                    dtypes = {b: parsed for b in backends}
        elif backends:
            self.error(fields["dispatch"][0], f"{schema.full_name}: a {backends[0]} kernel needs 'dtypes:' (e.g. "
                       "`dtypes: all` or `dtypes: [float32, float64]`)")

        rule = None
        pointwise = "pointwise" in tags
        if "dtype_rule" in fields:
            rule = self.scalar(fields["dtype_rule"][1], "dtype_rule")
            if rule is not None and rule not in DTYPE_RULES:
                self.error(fields["dtype_rule"][1], f"unknown dtype rule '{rule}'{suggest(rule, DTYPE_RULES)}")
                rule = None
            elif rule is not None and not backends:
                self.error(fields["dtype_rule"][0], f"{schema.full_name}: 'dtype_rule' applies to CPU/CUDA kernels")
        if backends:
            if rule is None:
                rule = "promote" if pointwise else ("self" if schema.argument("self") else "factory")
            if pointwise and rule not in POINTWISE_RULES:
                self.error(fields.get("dtype_rule", fields["func"])[1], f"{schema.full_name}: a pointwise op's "
                           f"dtype rule is one of {', '.join(POINTWISE_RULES)}, not '{rule}'")
            if not pointwise and rule in ("promote_float", "compare"):
                self.error(fields["dtype_rule"][1], f"{schema.full_name}: '{rule}' needs the pointwise tag")
            if rule == "factory" and not schema.argument("dtype"):
                self.error(fields["func"][1], f"{schema.full_name}: the factory dtype rule needs a "
                           "'ScalarType? dtype' argument")
            if rule == "self_or_dtype" and not (schema.argument("self") and schema.argument("dtype")):
                self.error(fields["func"][1], f"{schema.full_name}: the 'self_or_dtype' dtype rule needs 'self' and "
                           "'ScalarType? dtype' arguments")
            if rule == "self" and not schema.argument("self") and \
                    not (schema.arguments and schema.arguments[0].type.base == "Tensor"):
                self.error(fields["func"][1], f"{schema.full_name}: the 'self' dtype rule reads self's dtype, or "
                           "without a self the first argument's, which must be a Tensor (the query of "
                           "_flash_attention)")
            if pointwise and not any(a.type.is_tensor and not a.type.is_mutable for a in schema.arguments):
                if not schema.is_inplace:
                    self.error(fields["func"][1], f"{schema.full_name}: a pointwise op needs a Tensor input")

        self.check_mutation_rules(schema, func_node)
        doc = ""
        if "doc" in fields:
            doc = self.scalar(fields["doc"][1], "doc") or ""
        forms: list[str] = []
        if "forms" in fields:
            fnode = fields["forms"][1]
            for f, item in self.names(fnode, "forms"):
                if f not in FORMS:
                    self.error(item, f"unknown form '{f}'{suggest(f, FORMS)}")
                else:
                    forms.append(f)
            if not pointwise or schema.is_inplace or schema.is_out:
                self.error(fields["forms"][0], f"{schema.full_name}: 'forms' derives overloads from a functional "
                           "pointwise entry; declare other in-place and out= overloads as entries of their own")
                forms = []
            elif len(schema.returns) != 1 or not schema.returns[0].type.is_tensor:
                self.error(fields["forms"][0], f"{schema.full_name}: 'forms' needs a single Tensor return")
                forms = []
            elif ("scalar" in forms or "scalar_self" in forms) and \
                    len([a for a in schema.arguments if a.type.is_tensor]) < 2:
                form = "scalar" if "scalar" in forms else "scalar_self"
                which = "last" if form == "scalar" else "first"
                self.error(fields["forms"][0], f"{schema.full_name}: the {form} form replaces the {which} of two or "
                           "more Tensor inputs by a Scalar")
                forms = []
            elif "inplace" in forms and (not schema.arguments or schema.arguments[0].name != "self"):
                self.error(fields["forms"][0], f"{schema.full_name}: the inplace form needs a first argument "
                           "'Tensor self'")
                forms = []
        module = ""
        if "python_module" in fields:
            module = self.scalar(fields["python_module"][1], "python_module") or ""
            if self.namespace != "yaten":
                self.error(fields["python_module"][0], f"{schema.full_name}: python_module places yaten's own ops; "
                           "an extension's ops live in the extension's module")
                module = ""
            elif module not in PYTHON_MODULES:
                self.error(fields["python_module"][1],
                           f"unknown python_module '{module}'{suggest(module, PYTHON_MODULES)}")
                module = ""
        aliases: list[str] = []
        if "aliases" in fields:
            # other Python names of the same op (torch's arccos for acos, special.expm1 for expm1): NAME in yaten (and
            # Tensor, where the op is a method), MODULE.NAME in yaten.MODULE
            for alias, anode in self.names(fields["aliases"][1], "aliases"):
                alias_module, _, alias_name = alias.rpartition(".")
                if self.namespace != "yaten":
                    self.error(anode, f"{schema.full_name}: aliases name yaten's own ops; an extension's ops live in "
                               "the extension's module")
                elif alias_module and alias_module not in PYTHON_MODULES:
                    self.error(anode, f"{schema.full_name}: unknown module '{alias_module}' in alias '{alias}'"
                               f"{suggest(alias_module, PYTHON_MODULES)}")
                elif not alias_name.isidentifier():
                    self.error(anode, f"{schema.full_name}: alias '{alias}' is not a Python name")
                else:
                    aliases.append(alias)
        derivatives, differentiability = self.derivatives(schema, fields)
        autocast = self.autocast(schema, fields)
        location = Location(self.path, node.start_mark.line + 1, node.start_mark.column + 1)
        return Op(schema, location, variants, tuple(tags), dispatch, dtypes, rule, doc, tuple(forms), module,
                  derivatives=derivatives, output_differentiability=differentiability, namespace=self.namespace,
                  autocast=autocast, aliases=tuple(aliases))

    def autocast(self, schema: Schema, fields: dict) -> dict[str, str]:
        """`autocast: lower` (both backends) or `autocast: {CPU: fp32, CUDA: lower}`: the op's casting policy inside
        autocast regions (Note [Autocast]), on a functional op with Tensor arguments."""
        if "autocast" not in fields:
            return {}
        key_node, value = fields["autocast"]
        if isinstance(value, yaml.MappingNode):
            pairs = [(str(k.value), v) for k, v in value.value]
        else:
            pairs = [(backend, value) for backend in BACKENDS]
        policies: dict[str, str] = {}
        for backend, node in pairs:
            if backend not in BACKENDS:
                self.error(node, f"autocast names the backends {', '.join(BACKENDS)}, not '{backend}'"
                           f"{suggest(backend, BACKENDS)}")
                continue
            policy = self.scalar(node, "autocast")
            if policy not in AUTOCAST_POLICIES:
                self.error(node, f"unknown autocast policy '{policy}'{suggest(str(policy), tuple(AUTOCAST_POLICIES))}"
                           f" (one of {', '.join(AUTOCAST_POLICIES)})")
                continue
            policies[backend] = policy
        if schema.is_inplace or schema.is_out or any(a.type.is_mutable for a in schema.arguments):
            self.error(key_node, f"{schema.full_name}: autocast applies to functional ops; in-place and out= forms "
                       "run in their tensors' dtypes")
            return {}
        if not any(a.type.base == "Tensor" for a in schema.arguments):
            self.error(key_node, f"{schema.full_name}: autocast casts Tensor arguments, and this op takes none")
            return {}
        return policies

    def directive(self, node: yaml.MappingNode) -> None:
        """`- namespace: myext`, the first entry of an extension's ops.yaml: the namespace of its C++ API and of its
        operators in the dispatcher (myext::myop), instead of yaten."""
        for key_node, value_node in node.value:
            key = str(key_node.value)
            if key != "namespace":
                self.error(key_node, f"unknown key '{key}' in the namespace entry (it holds `namespace:` alone)")
                continue
            value = self.scalar(value_node, "namespace")
            if value is None:
                continue
            if not re.fullmatch(r"[a-z_][a-z0-9_]*", value):
                self.error(value_node, f"namespace '{value}' must be a lower-case C++ identifier, e.g. myext")
            elif value in ("yaten", "std", "native", "detail", "python", "autograd", "aten", "torch"):
                self.error(value_node, f"namespace '{value}' is taken; name the extension's own, e.g. myext")
            else:
                self.namespace = value

    def derivatives(self, schema: Schema, fields: dict) -> tuple[tuple[tuple[str, str], ...], tuple[bool, ...]]:
        """`derivatives:` maps differentiable Tensor inputs to C++ formulas; `output_differentiability:` lists a
        bool per output."""
        formulas: list[tuple[str, str]] = []
        if "derivatives" in fields:
            key_node, value = fields["derivatives"]
            if not isinstance(value, yaml.MappingNode):
                self.error(value, "'derivatives' maps input names to C++ formulas, e.g. 'self: grad * other'")
                return (), ()
            tensors = [a.name for a in schema.arguments if a.type.base == "Tensor" and not a.type.is_mutable
                       or (a.type.is_tensor and a.name == "self")]
            if schema.is_out:
                self.error(key_node, f"{schema.full_name}: out= overloads have no derivatives (torch refuses "
                           "autograd through out=)")
            seen: set[str] = set()
            for k, v in value.value:
                # one input, or several sharing one formula ("input, weight, bias": a tuple of their gradients)
                names = [n.strip() for n in str(k.value).split(",")]
                bad = [n for n in names if n not in tensors]
                for name in bad:
                    self.error(k, f"{schema.full_name}: '{name}' is not a Tensor input of the op"
                               f"{suggest(name, tensors)}")
                for name in names:
                    if name in seen:
                        self.error(k, f"{schema.full_name}: '{name}' has two derivative formulas")
                    seen.add(name)
                if bad:
                    continue
                formula = v.value if isinstance(v, yaml.ScalarNode) else None
                if not formula or not isinstance(formula, str):
                    self.error(v, f"{schema.full_name}: the derivative for '{k.value}' must be a C++ expression")
                    continue
                formulas.append((", ".join(names), formula.strip()))
                assert isinstance(v, yaml.ScalarNode)
                self.formulas.append((schema, names, formula, v))
        differentiability: list[bool] = []
        if "output_differentiability" in fields:
            node = fields["output_differentiability"][1]
            items = node.value if isinstance(node, yaml.SequenceNode) else []
            for item in items:
                if item.value not in ("True", "False", "true", "false"):
                    self.error(item, "output_differentiability lists True or False per output")
                differentiability.append(item.value in ("True", "true"))
            if len(differentiability) != len(schema.returns):
                self.error(node, f"{schema.full_name}: output_differentiability needs one bool per output "
                           f"({len(schema.returns)})")
        return tuple(formulas), tuple(differentiability)

    def check_mutation_rules(self, schema: Schema, func_node: yaml.Node) -> None:
        name = schema.full_name
        returns = schema.returns
        if schema.is_inplace:
            first = schema.arguments[0] if schema.arguments else None
            tensor_first = first is not None and first.name == "self" and first.type.base == "Tensor" and \
                not first.type.optional and first.type.is_mutable
            if first is None or not tensor_first:
                self.error(func_node, f"{name}: an in-place op (name ending in '_') takes 'Tensor(a!) self' (or, "
                           "over many tensors, 'Tensor(a!)[] self') first")
            elif first.type.list_size is not None:  # a multi-tensor op (_foreach_add_): returns nothing, as torch's
                if returns:
                    self.error(func_node, f"{name}: an in-place op over a list of tensors returns nothing: '-> ()'")
            elif len(returns) != 1 or returns[0].type.alias != first.type.alias:
                self.error(func_node, f"{name}: an in-place op returns its self: '-> Tensor({first.type.alias})'")
        outs = [a for a in schema.arguments if a.type.is_mutable and a.keyword_only]
        if schema.overload == "out" or outs:
            if not outs:
                self.error(func_node, f"{name}: an out= overload takes a keyword-only 'Tensor(a!) out'")
            elif len(returns) != len(outs) or any(r.type.alias != o.type.alias for r, o in zip(returns, outs)):
                self.error(func_node, f"{name}: an out= overload returns its out tensors, e.g. '-> Tensor(a!)'")
        for a in schema.arguments:
            # an in-place op may write more than its self (an optimizer's fused step writes its moments too)
            if a.type.is_mutable and not a.keyword_only and not schema.is_inplace:
                self.error(func_node, f"{name}: only an in-place op (name ending in '_') or keyword-only out tensors "
                           "may be mutated")
        for r in returns:
            if r.type.alias and not any(a.type.alias == r.type.alias for a in schema.arguments):
                self.error(func_node, f"{name}: the return alias '{r.type.alias}' names no argument")


# libyaml's parser where PyYAML was built with it: composing ops.yaml takes 0.03 s instead of 0.3 s.
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def loads(text: str, path: str = "ops.yaml", csrc: Path | None = None,
          kernels: dict[str, dict[str, str] | None] | None = None,
          missing: list[tuple[str, Diagnostic]] | None = None) -> OpsFile:
    """Parses ops.yaml text. With `csrc` (or an extension's `kernels`, from find_kernels_in_files), also checks
    that every kernel named in dispatch is defined there; given a list `missing`, a kernel not written yet is
    recorded there as (op, diagnostic) instead of raising (its entry is still generated, without its header)."""
    parser = _Parser(path, text, csrc, kernels, missing)
    try:
        root = yaml.compose(text, Loader=_LOADER)
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        line, col = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        problem = e.problem or e.context or "invalid YAML"
        raise ParseError([Diagnostic(Location(path, line, col), f"invalid YAML: {problem} (check the indentation "
                                     "and quote values that contain ': ' or start with a backquote)")]) from None
    except yaml.YAMLError as e:
        raise ParseError([Diagnostic(Location(path, 1, 1), f"invalid YAML: {e}")]) from None
    ops: list[Op] = []
    if root is None:
        pass
    elif not isinstance(root, yaml.SequenceNode):
        parser.error(root, "ops.yaml must be a list of entries, each starting with '- func:'")
    else:
        seen: dict[str, Op] = {}
        for i, node in enumerate(root.value):
            if isinstance(node, yaml.MappingNode) and any(str(k.value) == "namespace" for k, _ in node.value):
                if i != 0:
                    parser.error(node, "`- namespace: NAME` must be the first entry of the file")
                else:
                    parser.directive(node)
                continue
            op = parser.entry(node)
            if op is None:
                continue
            previous = seen.get(op.schema.full_name)
            if previous is not None:
                parser.error(node, f"duplicate overload '{op.schema.full_name}' (first at line "
                             f"{previous.location.line}); give one of them another overload name")
                continue
            for member in (op, *derive_forms(op)):
                previous = seen.get(member.schema.full_name)
                if previous is not None and member is not op:
                    parser.error(node, f"the {member.derived_from and 'derived'} overload "
                                 f"'{member.schema.full_name}' is also declared at line {previous.location.line}; "
                                 "drop it from 'forms' or remove that entry")
                    continue
                seen[member.schema.full_name] = member
                ops.append(member)
        check_groups(parser, ops, root)
        check_formulas(parser, ops)
    if parser.diagnostics:
        raise ParseError(sorted(parser.diagnostics, key=lambda d: (d.location.line, d.location.column)))
    return OpsFile(path, tuple(ops), parser.namespace)


def derive_forms(op: Op) -> list[Op]:
    """The in-place and out= overloads that `forms:` asks for, built from the functional entry."""
    from dataclasses import replace

    schema = op.schema
    derived = []
    if "inplace" in op.forms:
        self_type = Type("Tensor", "a!")
        args = (Argument(self_type, "self"),) + schema.arguments[1:]
        inplace = Schema(schema.name + "_", schema.overload, args, (Return(self_type),))
        derived.append(replace(op, schema=inplace, variants=("function",) if op.is_extension else ("method",), forms=(), derived_from=schema.full_name,
                               autocast={}, doc=f"In-place form of `{schema.name}`: {op.doc}"))
    if "out" in op.forms:
        out_type = Type("Tensor", "a!")
        overload = "out" if schema.overload in ("", "Tensor") else f"{schema.overload}_out"
        args = schema.arguments + (Argument(out_type, "out", keyword_only=True),)
        out = Schema(schema.name, overload, args, (Return(out_type),))
        derived.append(replace(op, schema=out, variants=("function",), forms=(), derived_from=schema.full_name,
                               derivatives=(), output_differentiability=(), autocast={},
                               doc=f"`{schema.name}` writing into `out`: {op.doc}"))
    def number_forms(arg: str, overload: str, members_of) -> None:
        """The overloads taking a number for the Tensor argument `arg`: each wraps it as a zero-dim tensor and calls
        the Tensor overload of the same C++ name."""
        args = tuple(Argument(Type("Scalar"), a.name, a.default, a.keyword_only) if a.name == arg else a
                     for a in schema.arguments)
        names = [f"detail::wrapped_scalar_tensor({a.name})" if a.name == arg else a.name for a in schema.arguments]
        for name, member_args, variants in members_of(args):
            is_out = member_args[-1].name == "out"
            ret = (Return(member_args[0].type),) if name.endswith("_") else schema.returns
            if is_out:
                ret = (Return(Type("Tensor", "a!")),)
            # C++ overloads share the name, so the wrapped tensor picks the Tensor overload of `name`.
            call = f"{op.namespace}::{name}_out({', '.join(names + ['out'])})" if is_out else \
                f"{op.namespace}::{name}({', '.join(names)})"
            derived.append(replace(
                op, schema=Schema(name, f"{overload}_out" if is_out else overload, member_args, ret),
                variants=variants, forms=(), tags=tuple(t for t in op.tags if t != "pointwise"), dtype_rule=None,
                dtypes={}, derivatives=(), output_differentiability=(), autocast={},
                dispatch={"CompositeImplicit": KernelRef(
                    f"{name}(..., Scalar {arg}{', *, Tensor out' if is_out else ''})", None)},
                derived_from=schema.full_name, forward_to=call,
                doc=f"`{name}` with the number `{arg}`{' writing into `out`' if is_out else ''}: {op.doc}"))

    out_arg = Argument(Type("Tensor", "a!"), "out", keyword_only=True)
    if "scalar" in op.forms:
        # torch's names: add.Tensor -> add.Scalar, pow.Tensor_Tensor -> pow.Tensor_Scalar
        if schema.overload in ("", "Tensor"):
            overload = "Scalar"
        elif schema.overload.endswith("_Tensor"):
            overload = schema.overload.removesuffix("Tensor") + "Scalar"
        else:
            overload = f"{schema.overload}_Scalar"

        def last_members(args):
            members = [(schema.name, args, op.variants)]
            if "inplace" in op.forms:
                inplace_args = (Argument(Type("Tensor", "a!"), "self"),) + args[1:]
                members.append((schema.name + "_", inplace_args, ("function",) if op.is_extension else ("method",)))
            if "out" in op.forms:  # torch's Scalar_out overloads: eq(t, 0, out=buf)
                members.append((schema.name, args + (out_arg,), ("function",)))
            return members
        number_forms([a.name for a in schema.arguments if a.type.is_tensor][-1], overload, last_members)
    if "scalar_self" in op.forms:
        # a number for self (torch's bitwise_and.Scalar_Tensor, pow.Scalar): functions only, and out= with "out"
        overload = "Scalar" if schema.overload == "Tensor_Tensor" else "Scalar_Tensor"
        number_forms([a.name for a in schema.arguments if a.type.is_tensor][0], overload,
                     lambda args: [(schema.name, args, ("function",))] +
                     ([(schema.name, args + (out_arg,), ("function",))] if "out" in op.forms else []))
    return derived


def check_groups(parser: _Parser, ops: list[Op], root: yaml.Node) -> None:
    """Overloads of one Python name must be distinguishable by the bindings' parser."""
    by_cpp: dict[tuple[str, tuple[str, ...]], Op] = {}
    for op in ops:
        key = (op.schema.name + ("_out" if op.schema.is_out else ""),
               tuple(str(a.type).replace("(a!)", "").replace("(a)", "") for a in op.schema.arguments))
        if key in by_cpp:
            first = by_cpp[key]
            parser.diagnostics.append(Diagnostic(op.location, f"{op.schema.full_name} has the same C++ signature "
                                                 f"as {first.schema.full_name} (line {first.location.line})"))
        by_cpp[key] = op


# ------------------------------------------------------------------------------------------------ derivative formulas
# A formula is C++ that the generated autograd node compiles. The build would reject a name that is not there; so
# does `check`, with the formula's line and column: yaten::NAME must be an op (an extension's NAME::op one of its own,
# yaten's ops being read from the ops.yaml beside the generator), autograd::NAME and native::...::NAME a function
# of the headers (csrc/, or the installed include/ for an extension), and a bare name an argument of the op, `grad`
# (`grads` with several outputs), `result` (`result0`, ... or the return's name), `grad_input_mask` where several
# inputs share one formula, `LIST_info` for a Tensor[] argument, or a C++ keyword or type.

_CPP_WORDS = frozenset(
    "true false nullptr Scalar Tensor int64_t int32_t uint8_t int double float bool char size_t auto const "
    "static_cast reinterpret_cast sizeof std IntArrayRef ScalarType Device optional nullopt".split())
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'')
_NAME = re.compile(r"(?<![\w.])((?:[A-Za-z_]\w*::)*)([A-Za-z_]\w*)")
_CALLED = re.compile(r"\b([A-Za-z_]\w*)\s*(?:<[^;(){}]*>)?\s*\(")
_header_texts_cache: dict[tuple[str, ...], list[str]] = {}
_called_cache: dict[tuple[str, ...], dict[str, bool]] = {}  # per set of folders: whether a name is called in them
_op_names_cache: dict[str, frozenset[str]] = {}


class _Vocabulary:
    """The names followed by `(` (a function declared, defined or called) in the headers under `folders`, plus
    `extra`. A name is looked for alone, in the headers whose text holds it: what a formula calls is checked without
    scanning every header for every name (0.15 s a parse); the whole set is made only for an error's suggestion."""

    def __init__(self, folders: tuple[Path, ...], extra: frozenset[str] = frozenset()):
        self.folders = folders
        self.extra = extra
        # kept for the process as the header texts are: a parse looks up some 190 names, 0.05 s of regex searches
        # that parsing again (`check` in a loop, the generator's fuzz test) would repeat
        self.known = _called_cache.setdefault(tuple(str(f) for f in folders), {})

    def texts(self) -> list[str]:
        key = tuple(str(f) for f in self.folders)
        if key not in _header_texts_cache:
            _header_texts_cache[key] = [path.read_text(errors="replace") for folder in self.folders if folder.is_dir()
                                        for path in sorted(folder.rglob("*")) if path.suffix in (".h", ".cuh", ".hpp")]
        return _header_texts_cache[key]

    def __contains__(self, name: str) -> bool:
        if name in self.extra:
            return True
        if name not in self.known:
            called = re.compile(r"\b" + re.escape(name) + r"\s*(?:<[^;(){}]*>)?\s*\(")
            self.known[name] = any(name in text and called.search(text) for text in self.texts())
        return self.known[name]

    def words(self) -> list[str]:
        return sorted(self.extra.union(*(_CALLED.findall(text) for text in self.texts())))


def _yaten_op_names() -> frozenset[str]:
    """The C++ names of yaten's own ops, for an extension's formulas: from the ops.yaml beside the generator (the
    source tree's, or the installed package's)."""
    path = Path(__file__).resolve().parent.parent / "ops.yaml"
    if str(path) not in _op_names_cache:
        try:
            ops = loads(path.read_text(), path.name).ops
        except (OSError, ParseError):
            ops = ()
        _op_names_cache[str(path)] = frozenset(_cpp_function_name(o.schema) for o in ops)
    return _op_names_cache[str(path)]


def _cpp_function_name(schema: Schema) -> str:
    return schema.name + "_out" if schema.is_out and not schema.is_inplace else schema.name


def check_formulas(parser: _Parser, ops: list[Op]) -> None:
    if not parser.formulas:
        return
    own_ops = frozenset(_cpp_function_name(o.schema) for o in ops)
    namespaces: dict[str, frozenset[str]] = {parser.namespace: own_ops, "yaten": own_ops}

    def is_op(namespace: str, name: str) -> bool:
        # yaten's own ops, read from the ops.yaml beside the generator only when needed: an extension's formulas
        # call them, and so do files holding a few of yaten's entries (the generator's tests)
        if name in namespaces[namespace]:
            return True
        if namespace == "yaten" and namespaces["yaten"] is own_ops:
            namespaces["yaten"] = own_ops | _yaten_op_names()
            return name in namespaces["yaten"]
        return False
    include = Path(__file__).resolve().parent.parent / "include"  # the installed package's headers
    roots = (parser.csrc,) if parser.csrc else (include,) if include.is_dir() else ()
    autograd_words = _Vocabulary(tuple(r / "autograd" for r in roots)) if roots else None
    kernel_names = frozenset(n for table in parser.kernels.values() if table for n in table) if (
        parser.kernel_files and parser.kernels) else frozenset()
    native_words = _Vocabulary(tuple(roots), kernel_names) if roots else None
    for schema, names, formula, node in parser.formulas:
        returns = schema.returns
        results = [r.name or ("result" if len(returns) == 1 else f"result{i}") for i, r in enumerate(returns)]
        bare = {a.name for a in schema.arguments} | {"grad", "grads", *results}
        bare |= {f"{a.name}_info" for a in schema.arguments if a.type.base == "Tensor" and a.type.list_size is not None}
        if len(names) > 1:
            bare.add("grad_input_mask")
        where = f"{schema.full_name}: the derivative for '{', '.join(names)}'"
        quoted = 1 if node.style in ('"', "'") else 0
        text = _STRING.sub(lambda m: " " * len(m.group(0)), formula)
        for m in _NAME.finditer(text):
            prefix, name = m.group(1), m.group(2)
            offset = quoted + m.start(2)  # the column of the name itself
            if text[max(0, m.start() - 2):m.start()] == "->":
                continue  # a member
            if not prefix:
                if name in bare or name in _CPP_WORDS or text[m.end():m.end() + 2] == "::":
                    continue
                parser.error(node, f"{where} uses '{name}', which is not an argument of the op, `grad` or "
                             f"`{results[0]}`{suggest(name, sorted(bare))}", offset)
                continue
            first = prefix.split("::")[0]
            if first == "std":
                continue
            if first in namespaces:
                if not is_op(first, name):
                    parser.error(node, f"{where} calls {first}::{name}, which is not an op"
                                 f"{suggest(name, sorted(namespaces[first]))}", offset)
            elif first == "autograd":
                if autograd_words is not None and name not in autograd_words:
                    parser.error(node, f"{where} calls autograd::{name}, which no header under autograd/ declares"
                                 f"{suggest(name, autograd_words.words())}", offset)
            elif first == "native":
                if native_words is not None and name not in native_words:
                    parser.error(node, f"{where} calls {prefix}{name}, which no kernel header declares"
                                 f"{suggest(name, native_words.words())}", offset)
            else:
                known = sorted({*namespaces, "autograd", "native", "std"})
                parser.error(node, f"{where} names the namespace '{first}', which formulas cannot reach"
                             f"{suggest(first, known)}", quoted + m.start(1))


def load(path: str | Path, csrc: Path | None = None, kernels: dict[str, dict[str, str] | None] | None = None,
         missing: list[tuple[str, Diagnostic]] | None = None) -> OpsFile:
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as e:
        raise ParseError([Diagnostic(Location(str(path), 1, 1), f"cannot read: {e.strerror}")]) from None
    return loads(text, path.name, csrc, kernels, missing)
