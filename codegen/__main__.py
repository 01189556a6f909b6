"""The generator's command line: `python -m yaten.codegen COMMAND` (or `python -m codegen` in the source tree).

  generate --out DIR   write the generated sources (only the files whose text changed)
  outputs              list the files generate would write (CMake asks this at configure time)
  check [YAML]         validate; exit 1 with `ops.yaml:LINE:COL: error: ...` lines on bad input
  list                 every op with its variants, backends and dtypes
  show OP              every generated piece for OP, with the file it lands in and the ops.yaml line it came from
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from . import gen, parse
from .model import DTYPES

HERE = Path(__file__).resolve().parent


def default_yaml() -> Path:
    # The source tree (codegen/../ops.yaml) and the installed package (yaten/codegen/../ops.yaml) look alike.
    return HERE.parent / "ops.yaml"


def default_csrc(yaml_path: Path) -> Path | None:
    csrc = yaml_path.resolve().parent / "csrc"
    return csrc if csrc.is_dir() else None


def _load(args: argparse.Namespace):
    yaml_path = Path(args.yaml) if args.yaml else default_yaml()
    csrc = Path(args.csrc) if getattr(args, "csrc", None) else default_csrc(yaml_path)
    return parse.load(yaml_path, csrc), yaml_path


def cmd_generate(args: argparse.Namespace) -> int:
    start = time.perf_counter()
    ops_file, _ = _load(args)
    files = gen.generate(ops_file)
    written = gen.write(files, Path(args.out))
    elapsed = time.perf_counter() - start
    if args.verbose or written:
        print(f"codegen: {len(ops_file.ops)} ops, {len(files)} files, {len(written)} rewritten in {elapsed:.3f} s")
        for w in written if args.verbose else []:
            print(f"  {w}")
    return 0


def cmd_outputs(args: argparse.Namespace) -> int:
    ops_file, _ = _load(args)
    print(";".join(gen.output_paths(ops_file)))
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    ops_file, yaml_path = _load(args)
    gen.generate(ops_file)  # signature agreement between overloads is checked while generating
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
    return "all" if set(dtypes) == set(DTYPES) else ", ".join(dtypes)


def cmd_show(args: argparse.Namespace) -> int:
    ops_file, _ = _load(args)
    wanted = [op for op in ops_file.ops if args.op in (op.schema.full_name, op.schema.name, op.schema.base_name)]
    if not wanted:
        names = sorted({n for op in ops_file.ops for n in (op.schema.full_name, op.schema.name)})
        print(f"show: no op named '{args.op}'{parse.suggest(args.op, names)}", file=sys.stderr)
        return 1
    full_names = {op.schema.full_name for op in wanted}
    for op in wanted:
        origin = f"  (derived from {op.derived_from} by forms:)" if op.derived_from else ""
        print(f"== {op.location}  {op.schema}{origin}")
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m yaten.codegen", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)

    def add(name: str, fn, help_text: str) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help_text)
        p.add_argument("--yaml", help="the ops file (default: the ops.yaml beside the generator)")
        p.add_argument("--csrc", help="where kernels are defined (default: csrc/ beside the ops file)")
        p.set_defaults(fn=fn)
        return p

    g = add("generate", cmd_generate, "write the generated sources")
    g.add_argument("--out", required=True, help="output directory")
    g.add_argument("-v", "--verbose", action="store_true")
    add("outputs", cmd_outputs, "list the generated files, ';'-separated")
    c = add("check", cmd_check, "validate an ops file")
    c.add_argument("file", nargs="?", help="the ops file (same as --yaml)")
    add("list", cmd_list, "list every op")
    s = add("show", cmd_show, "show everything generated for one op")
    s.add_argument("op", help="an op name: add, add.Tensor, add_")
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
