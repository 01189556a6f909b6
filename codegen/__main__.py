"""The generator's command line: `python -m yaten.codegen COMMAND` (or `python -m codegen` in the source tree).

  generate --out DIR   write the generated sources (only the files whose text changed)
  outputs              list the files generate would write (CMake asks this at configure time)
  check [YAML]         validate; exit 1 with `ops.yaml:LINE:COL: error: ...` lines on bad input
  list                 every op with its variants, backends and dtypes
  show OP              every generated piece for OP, with the file it lands in and the ops.yaml line it came from
  explain OP --device cuda --dtype float16
                       which kernel a call would reach, or exactly why none
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from . import gen, parse
from .model import dtype_rule
from .model import DTYPE_SETS

HERE = Path(__file__).resolve().parent


def default_yaml() -> Path:
    # The source tree (codegen/../ops.yaml) and the installed package (yaten/codegen/../ops.yaml) look alike.
    return HERE.parent / "ops.yaml"


def default_csrc(yaml_path: Path) -> Path | None:
    csrc = yaml_path.resolve().parent / "csrc"
    return csrc if csrc.is_dir() else None


def _load(args: argparse.Namespace, missing: list | None = None):
    yaml_path = Path(args.yaml) if args.yaml else default_yaml()
    if getattr(args, "kernels", None):  # an extension: its kernels are in the headers it names
        root = Path(args.root) if getattr(args, "root", None) else yaml_path.resolve().parent
        kernels = parse.find_kernels_in_files([Path(k) for k in args.kernels], root)
        return parse.load(yaml_path, kernels=kernels, missing=missing), yaml_path
    csrc = Path(args.csrc) if getattr(args, "csrc", None) else default_csrc(yaml_path)
    return parse.load(yaml_path, csrc, missing=missing), yaml_path


def cmd_generate(args: argparse.Namespace) -> int:
    start = time.perf_counter()
    ops_file, _ = _load(args)
    files = gen.generate(ops_file, args.module, args.unit_per_op)
    written = gen.write(files, Path(args.out))
    removed = gen.remove_stale(files, Path(args.out))
    elapsed = time.perf_counter() - start
    if args.verbose or written or removed:
        print(f"codegen: {len(ops_file.ops)} ops, {len(files)} files, {len(written)} rewritten"
              f"{f', {len(removed)} removed' if removed else ''} in {elapsed:.3f} s")
        for w in written + removed if args.verbose else []:
            print(f"  {w}")
    return _check_expected_outputs(args.expect, [f.path for f in files])


def _check_expected_outputs(expect: str | None, paths: list[str]) -> int:
    """The build compiles the files CMake listed at configure time (`outputs`, saved in the file `expect`). When
    this run wrote another set (an op's kernel moved to another header, so its unit did; a template writes a new
    file), the build graph is stale: rewrite `expect`, which CMake watches, so that the next build reconfigures, and
    stop this one with that message."""
    if not expect:
        return 0
    listed = Path(expect).read_text().split(";") if Path(expect).exists() else []
    if sorted(listed) == sorted(paths):
        return 0
    Path(expect).write_text(";".join(paths))
    added, gone = sorted(set(paths) - set(listed)), sorted(set(listed) - set(paths))
    print(f"codegen: the generated files changed since CMake configured (new: {', '.join(added) or 'none'}; gone: "
          f"{', '.join(gone) or 'none'}); run the build again: it reconfigures first", file=sys.stderr)
    return 1


def cmd_outputs(args: argparse.Namespace) -> int:
    ops_file, _ = _load(args)
    print(";".join(gen.output_paths(ops_file, args.module, args.unit_per_op)))
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    ops_file, yaml_path = _load(args)
    gen.check(ops_file)  # what generating would find, without rendering
    print(f"{yaml_path}: {len(ops_file.ops)} ops, no errors")
    return 0


def cmd_list(args: argparse.Namespace) -> int:
    ops_file, _ = _load(args)
    rows = []
    for op in ops_file.ops:
        backends = ", ".join(op.dispatch) if op.dispatch else "-"
        dtypes = "; ".join(f"{b}: {_dtype_summary(d)}" for b, d in op.dtypes.items()) or "(from the ops it calls)"
        rows.append((op.schema.full_name, ",".join(op.variants), backends, dtypes))
    widths = [max(len(r[i]) for r in rows) for i in range(3)]
    for r in rows:
        print(f"{r[0]:<{widths[0]}}  {r[1]:<{widths[1]}}  {r[2]:<{widths[2]}}  {r[3]}")
    return 0


def _dtype_summary(dtypes: tuple[str, ...]) -> str:
    return "all" if set(dtypes) == set(DTYPE_SETS["all"]) else ", ".join(dtypes)


def _find_ops(ops_file, name: str, command: str) -> list:
    """The entries `name` means (add -> add.Tensor, add.Scalar, add_, add.out, ...); prints a suggestion if none."""
    wanted = [op for op in ops_file.ops if name in (op.schema.full_name, op.schema.name, op.schema.base_name)]
    if not wanted:
        names = sorted({n for op in ops_file.ops for n in (op.schema.full_name, op.schema.name)})
        print(f"{command}: no op named '{name}'{parse.suggest(name, names)}", file=sys.stderr)
    return wanted


def cmd_show(args: argparse.Namespace) -> int:
    # Kernels not written yet are no error here: the contract is what their author needs to read first.
    missing: list[tuple[str, parse.Diagnostic]] = []
    ops_file, _ = _load(args, missing)
    wanted = _find_ops(ops_file, args.op, "show")
    if not wanted:
        return 1
    full_names = {op.schema.full_name for op in wanted}
    for op in wanted:
        origin = f"  (derived from {op.derived_from} by forms:)" if op.derived_from else ""
        print(f"== {op.location}  {op.schema}{origin}")
    for op_name, d in missing:
        if op_name in full_names:
            print(f"{d.location}: note: {d.message}; write it with the declaration in the kernel contract below")
    for f in gen.generate(ops_file):
        line = 1
        for piece in f.pieces:
            if full_names.intersection(piece.ops):
                source = ", ".join(sorted(full_names.intersection(piece.ops)))
                print(f"\n--- {f.path}:{line}  (from {Path(ops_file.path).name}:{piece.line} {source}, "
                      f"template {f.template})")
                print(piece.text.rstrip("\n"))
            line += piece.text.count("\n")
    return 0


def _compute_dtype(op, dtype: str) -> tuple[str, str]:
    """The dtype the kernel runs in for inputs of `dtype`, under the op's rule (model.DTYPE_RULE_TABLE), and why."""
    rule = dtype_rule(op.dtype_rule)
    return rule.compute_dtype(dtype), rule.explain(dtype)


def _generated_line(files, op, needle: str) -> str:
    for f in files:
        line = 1
        for piece in f.pieces:
            if op.schema.full_name in piece.ops and needle in piece.text:
                offset = piece.text[: piece.text.index(needle)].count("\n")
                return f"{f.path}:{line + offset}"
            line += piece.text.count("\n")
    return "?"


def cmd_explain(args: argparse.Namespace) -> int:
    from .model import CPP_DTYPE

    ops_file, _ = _load(args)
    wanted = _find_ops(ops_file, args.op, "explain")
    if not wanted:
        return 1
    dtypes = []
    for given in args.dtype or ["float32"]:
        name = given.split(".")[-1]  # torch.float16, yaten.half
        name = DTYPE_ALIASES.get(name, name)
        if name not in CPP_DTYPE:
            print(f"explain: unknown dtype '{given}'{parse.suggest(name, list(CPP_DTYPE) + list(DTYPE_ALIASES))}",
                  file=sys.stderr)
            return 1
        dtypes.append(name)
    if args.device.split(":")[0] not in ("cpu", "cuda"):
        print(f"explain: unknown device '{args.device}' (expected cpu or cuda)", file=sys.stderr)
        return 1
    key = "CUDA" if args.device.startswith("cuda") else "CPU"
    files = gen.generate(ops_file)
    config = installed_build_config()
    if key == "CUDA" and config is not None and not config.get("cuda"):
        print("note: the installed yaten was built without CUDA (YATEN_CUDA=OFF, or no nvcc at build time): on it, "
              "every CUDA call raises before reaching a kernel. What a CUDA build would run:")
    for op in wanted:
        for dtype in dtypes:
            _explain_one(op, key, dtype, files)
    return 0


# torch's other names for dtypes (yaten has them too: yaten.half is yaten.float16)
DTYPE_ALIASES = {"half": "float16", "float": "float32", "double": "float64", "long": "int64", "int": "int32",
                 "short": "int16", "cfloat": "complex64", "cdouble": "complex128"}


def installed_build_config() -> dict | None:
    """The configuration of the installed yaten build (build_config.json, which CMake writes beside the compiled
    module), found without importing yaten (Note [The generator needs no build]); None when there is none."""
    import importlib.util
    import json

    try:
        spec = importlib.util.find_spec("yaten")
    except (ImportError, ValueError):
        return None
    for folder in (spec.submodule_search_locations or []) if spec else []:
        path = Path(folder) / "build_config.json"
        if path.is_file():
            try:
                return json.loads(path.read_text())
            except (OSError, ValueError):
                return None
    return None


def _explain_one(op, key: str, dtype: str, files) -> None:
    """The path of one call of `op` on `key` with inputs of `dtype`, down to the kernel, or why it stops."""
    from . import cpp
    from .model import CPP_DTYPE

    name = op.schema.full_name
    where = f"{Path(op.location.file).name}:{op.location.line}"
    print(f"yaten::{name} on {key} with {dtype} inputs ({where})")
    if op.is_composite:
        kernel = op.dispatch["CompositeImplicit"].name
        wrapper = cpp.wrapper_name(op.schema, "composite")
        print(f"  runs native::{kernel} (CompositeImplicit, registered for every backend) through {wrapper} at "
              f"{_generated_line(files, op, wrapper + '(')}; it calls other ops, whose kernels decide the rest.")
        return
    if key not in op.dispatch:
        registered = ", ".join(op.dispatch) or "nothing"
        print(f"  no kernel: {where} registers {registered} only, so the call raises NotImplementedError.")
        print(f"  fix: move the tensors to a device it supports, or add `{key}: <kernel>` under dispatch in {where}.")
        return
    compute, why = _compute_dtype(op, dtype)
    declared = op.dtypes.get(key, ())
    if compute not in declared:
        print(f"  {why}; {compute} is not among the declared {key} dtypes ({', '.join(declared)}), so the call "
              "raises NotImplementedError.")
        print(f"  fix: convert the input with .to(dtype), or add {compute} to dtypes in {where} if the kernel "
              "supports it.")
        return
    if op.schema.is_inplace and compute != dtype:
        print(f"  {why}, but an in-place op cannot write {compute} into its {dtype} self: the call raises "
              "RuntimeError (result type can't be cast to the desired output type), as in torch.")
        return
    kernel = op.dispatch[key].name
    ctype = CPP_DTYPE[compute][1]
    wrapper = cpp.wrapper_name(op.schema, key)
    namespace = "native::cuda" if key == "CUDA" else "native::cpu"
    header = op.dispatch[key].header or "(no kernel header found)"
    print(f"  {why}; the wrapper {wrapper} ({_generated_line(files, op, wrapper + '(')}) switches to "
          f"{namespace}::{kernel}<{ctype}>, defined in csrc/{header}.")
    if compute in ("float16", "bfloat16"):
        print("  the kernel loads and stores " + compute + " and computes in float (opmath_t).")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m yaten.codegen", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)

    def add(name: str, fn, help_text: str) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help_text)
        p.add_argument("--yaml", help="the ops file (default: the ops.yaml beside the generator)")
        p.add_argument("--csrc", help="where kernels are defined (default: csrc/ beside the ops file)")
        p.add_argument("--kernels", nargs="*", metavar="HEADER",
                       help="an extension's kernel headers (.h: CPU and composite, .cuh: CUDA), instead of --csrc")
        p.add_argument("--root", help="the directory the generated code includes kernel headers from (default: the "
                       "ops file's)")
        p.add_argument("--module", help="an extension's Python module name (default: its namespace)")
        p.set_defaults(fn=fn)
        return p

    g = add("generate", cmd_generate, "write the generated sources")
    g.add_argument("--out", required=True, help="output directory")
    g.add_argument("-v", "--verbose", action="store_true")
    g.add_argument("--expect", help="a file holding the ';'-separated list of files the build expects (CMake writes "
                   "it); exit 1 after rewriting it when the list differs")
    o = add("outputs", cmd_outputs, "list the generated files, ';'-separated")
    for p in (g, o):
        p.add_argument("--unit-per-op", action="store_true", help="compile each op whose kernel has a header of its "
                       "own in a unit of its own (the developer loop; Note [Op units] in codegen/gen.py)")
    c = add("check", cmd_check, "validate an ops file")
    c.add_argument("file", nargs="?", help="the ops file (same as --yaml)")
    add("list", cmd_list, "list every op")
    s = add("show", cmd_show, "show everything generated for one op")
    s.add_argument("op", help="an op name: add, add.Tensor, add_")
    e = add("explain", cmd_explain, "which kernel a call would reach, or exactly why none")
    e.add_argument("op", help="an op name: add, add.Tensor, add_")
    e.add_argument("--device", default="cpu", help="cpu or cuda (default cpu)")
    e.add_argument("--dtype", action="extend", nargs="+", help="the inputs' dtype, or several (`--dtype half "
                   "bfloat16`; torch's aliases too; default float32)")
    args = parser.parse_args(argv)
    if getattr(args, "file", None):
        args.yaml = args.file
    try:
        return args.fn(args)
    except BrokenPipeError:  # `show add | head`
        sys.stderr.close()
        return 0
    except parse.ParseError as e:
        for d in e.diagnostics:
            print(d, file=sys.stderr)
        n = len(e.diagnostics)
        print(f"{n} error{'s' if n != 1 else ''}", file=sys.stderr)
        return 1
    except ValueError as e:  # generation-time checks (conflicting kernel signatures, unsupported types)
        print(e, file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
