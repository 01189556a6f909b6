"""The generator: parsing, round trips, every check's diagnostic, generated layout, the CLI. No compiler needed."""

from __future__ import annotations

import math
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from codegen import gen, parse
from codegen.model import DTYPES

ROOT = Path(__file__).resolve().parent.parent
OPS_YAML = ROOT / "ops.yaml"
CSRC = ROOT / "csrc"


def diagnostics(text: str, csrc: Path | None = None) -> list[str]:
    with pytest.raises(parse.ParseError) as info:
        parse.loads(textwrap.dedent(text), "ops.yaml", csrc)
    return [str(d) for d in info.value.diagnostics]


def test_every_entry_of_ops_yaml_prints_back_to_its_func_line():
    import yaml

    ops_file = parse.load(OPS_YAML, CSRC)
    raw = yaml.safe_load(OPS_YAML.read_text())
    declared = [op for op in ops_file.ops if op.derived_from is None]
    assert [str(op.schema) for op in declared] == [entry["func"] for entry in raw]


def test_schema_grammar_round_trips_every_type_and_default():
    text = ("foo.bar(Tensor(a!) self, Tensor? weight, Tensor[] xs, int[2] stride=1, int[] dims=[0, 1], int? n=None, "
            "float eps=1e-05, bool flag=True, str mode='sum', *, Scalar alpha=1, ScalarType? dtype=None, "
            "Device? device=None) -> (Tensor values, Tensor indices)")
    schema = parse.parse_schema(text)
    assert str(schema) == text
    assert schema.arguments[3].type.list_size == 2
    assert [a.name for a in schema.arguments if a.keyword_only] == ["alpha", "dtype", "device"]
    assert [r.name for r in schema.returns] == ["values", "indices"]


def test_unknown_key_is_reported_with_line_column_and_suggestion():
    errors = diagnostics("""
        - func: neg(Tensor self) -> Tensor
          dispach:
            CPU: neg_kernel
    """)
    assert len(errors) == 1  # not also "no dispatch": that follows from the typo
    assert errors[0] == "ops.yaml:3:3: error: unknown key 'dispach' (did you mean 'dispatch'?)"


def test_unknown_type_points_at_the_type_inside_func():
    errors = diagnostics("""
        - func: neg(Tensr self) -> Tensor
          dispatch: {CompositeImplicit: x}
    """)
    assert errors == ["ops.yaml:2:13: error: unknown type 'Tensr' (did you mean 'Tensor'?)"]


def test_bad_default_is_reported():
    errors = diagnostics("""
        - func: f(Tensor self, int n=abc) -> Tensor
          dispatch: {CompositeImplicit: x}
    """)
    assert len(errors) == 1 and "bad default 'abc' for an argument of type int" in errors[0]


def test_all_errors_are_reported_in_one_pass():
    errors = diagnostics("""
        - func: a(Tensor self) -> Tensor
          variant: method
          dispatch: {CompositeImplicit: x}
        - func: b(Tensor self) -> Tensor
          dispatch: {GPU: y}
        - func: c(int n) -> Tensor
          variants: method
          dispatch: {CompositeImplicit: z}
    """)
    assert len(errors) == 3
    assert errors[0].startswith("ops.yaml:3:3: error: unknown key 'variant' (did you mean 'variants'?)")
    assert errors[1].startswith("ops.yaml:6:14: error: unknown dispatch key 'GPU'")
    assert "a method variant needs a first argument 'Tensor self'" in errors[2]


def test_derivative_formulas_are_checked_for_ops_helpers_and_argument_names():
    errors = diagnostics("""
        - func: f(Tensor self, Tensor other, Scalar alpha=1) -> Tensor
          derivatives:
            self: "yaten::exp3(grad)"
            other: "autograd::conj_if_complexx(yaten::g(grad, alphaa))"
          dispatch: {CompositeImplicit: f_impl}
        - func: g(Tensor self) -> (Tensor values, Tensor indices)
          derivatives:
            self: "yaten::f(grads[0], indices) + at::zeros_like(values)"
          dispatch: {CompositeImplicit: g_impl}
    """, CSRC)
    errors = [e for e in errors if "is not defined in any header" not in e]  # f_impl, g_impl: no kernel here
    assert errors == [
        "ops.yaml:4:19: error: f: the derivative for 'self' calls yaten::exp3, which is not an op (did you mean "
        "'exp'?)",
        "ops.yaml:5:23: error: f: the derivative for 'other' calls autograd::conj_if_complexx, which no header under "
        "autograd/ declares (did you mean 'conj_if_complex'?)",
        "ops.yaml:5:55: error: f: the derivative for 'other' uses 'alphaa', which is not an argument of the op, "
        "`grad` or `result` (did you mean 'alpha'?)",
        "ops.yaml:9:42: error: g: the derivative for 'self' names the namespace 'at', which formulas cannot reach "
        "(expected one of: autograd, native, std, yaten)",
    ]
    # Every formula of ops.yaml passes (no false alarm): the whole file loads.
    parse.load(OPS_YAML, CSRC)


def test_check_reports_five_planted_mistakes_at_once_without_building(tmp_path):
    """`python -m yaten.codegen check` (the installed generator, as the README spells it) on ops.yaml with a schema,
    a key, a kernel and two derivative mistakes: all five located, no traceback, and yaten's compiled module never
    imported (in the editable developer loop that import would start a rebuild, Note [The generator needs no
    build])."""
    pytest.importorskip("yaten")
    text = OPS_YAML.read_text()
    plants = [("- func: abs(Tensor self) -> Tensor\n", "- func: abs(Tensor self) -> Tensr\n"),
              ("  doc: ", "  docs: "),
              ("    CPU: neg_kernel\n", "    CPU: neg_kernell\n"),
              ('    self: "yaten::neg(grad)"\n', '    self: "yaten::negg(grad)"\n'),
              ('yaten::neg(!alpha.is_complex()', 'yaten::neg(!alphaa.is_complex()')]
    for old, new in plants:
        assert old in text, old
        text = text.replace(old, new, 1)
    bad = tmp_path / "ops.yaml"
    bad.write_text(text)
    result = subprocess.run([sys.executable, "-X", "importtime", "-m", "yaten.codegen", "check", str(bad), "--csrc",
                             str(CSRC)], capture_output=True, text=True, cwd=tmp_path)
    assert result.returncode == 1
    errors = [line for line in result.stderr.splitlines() if ": error: " in line]
    assert len(errors) == 5, errors
    for needle in ("unknown type 'Tensr'", "unknown key 'docs'", "kernel 'neg_kernell'", "yaten::negg",
                   "uses 'alphaa'"):
        assert sum(needle in e for e in errors) == 1, needle
    assert all(re.match(r"ops\.yaml:\d+:\d+: error: ", e) for e in errors)
    assert "Traceback" not in result.stderr
    imported = [line.split("|")[-1].strip() for line in result.stderr.splitlines() if line.startswith("import time:")]
    assert "yaten.codegen.parse" in imported and "yaten._C" not in imported


def test_duplicate_overload_is_reported_with_first_line():
    errors = diagnostics("""
        - func: f(Tensor self) -> Tensor
          dispatch: {CompositeImplicit: x}
        - func: f(Tensor self) -> Tensor
          dispatch: {CompositeImplicit: x}
    """)
    assert errors == ["ops.yaml:4:3: error: duplicate overload 'f' (first at line 2); give one of them another "
                      "overload name"]


def test_a_shared_derivative_names_tensor_inputs_once_each():
    errors = diagnostics("""
        - func: f(Tensor input, Tensor weight, int n) -> Tensor
          derivatives:
            input, wieght: "native::f_backward(grad, grad_input_mask)"
            weight, n: "native::g(grad)"
            input: "grad"
          dispatch: {CompositeImplicit: x}
    """)
    assert errors == [
        "ops.yaml:4:5: error: f: 'wieght' is not a Tensor input of the op (did you mean 'weight'?)",
        "ops.yaml:5:5: error: f: 'n' is not a Tensor input of the op (expected one of: input, weight)",
        "ops.yaml:6:5: error: f: 'input' has two derivative formulas",
    ]


def test_inplace_op_must_mutate_and_return_self():
    errors = diagnostics("""
        - func: f_(Tensor self) -> Tensor
          dispatch: {CompositeImplicit: x}
    """)
    assert "an in-place op (name ending in '_') takes 'Tensor(a!) self' (or, over many tensors, " in errors[0]


def test_multi_tensor_ops_mutate_lists_and_return_nothing():
    errors = diagnostics("""
        - func: _foreach_f_(Tensor(a!)[] self, Scalar[] scalars) -> Tensor[]
          dispatch: {CompositeImplicit: x}
        - func: _foreach_g(Tensor(a!)[] self) -> ()
          dispatch: {CompositeImplicit: x}
        - func: _foreach_h_(Tensor(a!)[] self, Scalar[] s=[1]) -> ()
          dispatch: {CompositeImplicit: x}
        - func: _foreach_k_(Tensor(a!)[] self, Scalar[3] s) -> ()
          dispatch: {CompositeImplicit: x}
    """)
    assert "an in-place op over a list of tensors returns nothing: '-> ()'" in errors[0]
    assert "only an in-place op (name ending in '_') or keyword-only out tensors may be mutated" in errors[1]
    assert "bad default '[1]' for an argument of type Scalar[]" in errors[2]
    assert "a list of Scalars has no fixed length" in errors[3]
    ops = parse.loads(textwrap.dedent("""
        - func: _fused_f_(Tensor(a!)[] self, Tensor(b!)[] moments, Scalar[] scalars, *, float lr) -> ()
          dispatch: {CompositeImplicit: x}
    """))
    assert [str(a.type) for a in ops.ops[0].schema.arguments] == ["Tensor(a!)[]", "Tensor(b!)[]", "Scalar[]", "float"]
    assert ops.ops[0].schema.returns == ()


def test_out_overload_needs_keyword_only_mutable_out():
    errors = diagnostics("""
        - func: f.out(Tensor self, Tensor out) -> Tensor
          dispatch: {CompositeImplicit: x}
    """)
    assert "an out= overload takes a keyword-only 'Tensor(a!) out'" in errors[0]


def test_backend_kernel_needs_dtypes_and_known_dtype_names():
    errors = diagnostics("""
        - func: f(Tensor self) -> Tensor
          dispatch: {CPU: f_kernel}
        - func: g(Tensor self) -> Tensor
          dtypes: [float32, flaot64]
          dispatch: {CPU: g_kernel}
    """)
    assert "a CPU kernel needs 'dtypes:'" in errors[0]
    assert "'flaot64' is no dtype or dtype set (did you mean 'float64'?)" in errors[1]


def test_kernel_that_no_source_defines_is_an_error_not_a_link_error():
    errors = diagnostics("""
        - func: neg(Tensor self) -> Tensor
          tags: [pointwise]
          dtypes: all
          dispatch: {CPU: negg_kernel}
    """, CSRC)
    assert errors == ["ops.yaml:5:19: error: kernel 'negg_kernel' for CPU is not defined in any header under "
                      "csrc/kernels/cpu/ (did you mean 'neg_kernel'?)"]


def test_invalid_yaml_is_a_diagnostic_not_a_traceback():
    errors = diagnostics("- func: f(Tensor self) -> Tensor\n  doc: a: b: c\n")
    assert errors[0].startswith("ops.yaml:2:") and "invalid YAML" in errors[0]


def test_generation_is_deterministic_and_writes_only_changed_files(tmp_path):
    ops_file = parse.load(OPS_YAML, CSRC)
    first = gen.write(gen.generate(ops_file), tmp_path)
    assert sorted(first) == sorted(gen.output_paths(ops_file))
    assert gen.write(gen.generate(ops_file), tmp_path) == []


def test_every_family_compiles_in_one_unit_with_families_of_its_kernel_header():
    # Note [Op units]: each family's source is included by exactly one unit, beside families whose kernels live in
    # the same header, and no unit holds more than a few families with CPU kernels.
    ops_file = parse.load(OPS_YAML, CSRC)
    families = ops_file.groups()
    seen: list[str] = []
    for path, (header, names) in gen.op_units(families).items():
        seen += names
        assert all(gen.unit_group(families[n]) == header for n in names), path
        assert len(names) <= gen.OPS_PER_UNIT_POOLED["composite" if "/composite/" in header else "kernels"] * 4, path
    assert sorted(seen) == sorted(families)
    # The unit a family lands in depends on its name and its header's count of units, a power of two: adding a
    # few families to the CPU kernel header (or folder of headers per op) that holds the most (kernels/cpu/unary/: 38
    # of them, 8 units) moves none of the others.
    def unit_of(fams):
        return {n: path for path, (_, names) in gen.op_units(fams).items() for n in names}

    before = unit_of(families)
    by_header: dict[str, list[str]] = {}
    for n in families:
        by_header.setdefault(gen.unit_group(families[n]), []).append(n)
    grouped = max((names for header, names in by_header.items() if header.startswith("kernels/cpu/")), key=len)
    per_unit = gen.OPS_PER_UNIT_POOLED["kernels"]
    count = 1 << math.ceil(math.log2(math.ceil(len(grouped) / per_unit)))
    assert count >= 8 and len({before[n] for n in grouped}) > count // 2 and len(grouped) + 3 <= count * per_unit
    for added in (1, 2, 3):
        extra = dict(families, **{f"zz_new{i}": families[grouped[0]] for i in range(added)})
        after = unit_of(extra)
        assert [n for n in families if after[n] != before[n]] == [], added


def test_the_developer_loop_compiles_each_op_with_a_kernel_header_of_its_own_alone():
    # Note [A header per op]: with a unit per op (YATEN_UNIT_PER_OP, the README's developer loop), a family whose
    # kernel has a header of its own (kernels/cpu/binary/pow.h) shares its unit only with families of that header,
    # so an edit to it recompiles that unit alone; the one-time build pools the folder's families a few to a unit.
    families = parse.load(OPS_YAML, CSRC).groups()
    per_op, pooled = gen.op_units(families, unit_per_op=True), gen.op_units(families)
    unit_of = {n: path for path, (_, names) in per_op.items() for n in names}
    assert unit_of["pow"] == "ops/units/binary_pow_0.cpp" and per_op[unit_of["pow"]] == ("kernels/cpu/binary/pow.h",
                                                                                         ["pow"])
    assert sorted(per_op[unit_of["maximum"]][1]) == ["clamp_min", "maximum"]  # clamp_min runs maximum_kernel
    in_folders = [n for n in families if gen.unit_group(families[n]) != gen.unit_group(families[n], True)]
    assert {gen.unit_group(families[n]) for n in in_folders} == {
        "kernels/cpu/activation/", "kernels/cpu/binary/", "kernels/cpu/compare/", "kernels/cpu/foreach/",
        "kernels/cpu/indexing/", "kernels/cpu/pool/", "kernels/cpu/reduce/", "kernels/cpu/sort/",
        "kernels/cpu/special/", "kernels/cpu/unary/"}
    # Note [A pooling op per header]: max_pool's 2-d and 3-d kernels share a header, and no other pooling op's
    assert per_op[unit_of["max_pool2d_with_indices"]][0] == "kernels/cpu/pool/max_pool.h"
    assert set(per_op[unit_of["max_pool2d_with_indices"]][1]) <= {"max_pool2d_with_indices", "max_pool3d_with_indices"}
    # Note [A foreach op per header]: _foreach_add's kernels have a header of their own, so an edit to add's functor
    # recompiles add's unit and _foreach_add's, no other _foreach op's
    assert per_op[unit_of["_foreach_add"]] == ("kernels/cpu/foreach/add.h", ["_foreach_add"])
    assert len({unit_of[n] for n in in_folders}) > 2 * len({path for path, (h, _) in pooled.items() if h.endswith("/")})
    # the other families share a unit with families of their own header either way, a one-time build's units
    # pooling more of them (OPS_PER_UNIT_POOLED)
    pooled_unit_of = {n: path for path, (_, names) in pooled.items() for n in names}
    others = [n for n in families if n not in in_folders and gen.unit_group(families[n])]
    assert {n: per_op[unit_of[n]][0] for n in others} == {n: pooled[pooled_unit_of[n]][0] for n in others}
    assert len({pooled_unit_of[n] for n in others}) < len({unit_of[n] for n in others})


def test_generate_stops_when_the_configured_file_list_is_stale(tmp_path):
    # CMake lists the generated files at configure time; a generate step that writes another set rewrites the list
    # (which CMake watches) and fails with a message, so that the next build reconfigures instead of failing on a
    # missing unit.
    expect = tmp_path / "outputs.txt"
    ops_file = parse.load(OPS_YAML, CSRC)
    paths = gen.output_paths(ops_file)
    expect.write_text(";".join(p for p in paths if p != "ops/units/binary_0.cpp") + ";ops/units/gone_0.cpp")
    cmd = [sys.executable, "-m", "codegen", "generate", "--yaml", str(OPS_YAML), "--csrc", str(CSRC), "--out",
           str(tmp_path / "out"), "--expect", str(expect)]
    first = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    assert first.returncode == 1
    assert "new: ops/units/binary_0.cpp; gone: ops/units/gone_0.cpp" in first.stderr
    assert "run the build again" in first.stderr
    assert sorted(expect.read_text().split(";")) == sorted(paths)
    again = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    assert again.returncode == 0, again.stderr


@pytest.mark.parametrize("where", ["end", "middle"])
def test_adding_one_op_rewrites_only_its_own_files_and_the_site_table(tmp_path, where):
    # Note [ops.yaml line numbers live in one compiled file]: an entry inserted mid-file shifts the lines of every
    # entry after it, and still only its own files and ops/op_sites.cpp change among those that compile.
    text = OPS_YAML.read_text()
    gen.write(gen.generate(parse.loads(text, "ops.yaml", CSRC)), tmp_path)
    entry = textwrap.dedent("""
        - func: twice(Tensor self) -> Tensor
          dispatch:
            CompositeImplicit: clone_impl
    """)
    if where == "end":
        extra = text + entry
    else:
        at = text.index("\n- func: hypot(")
        extra = text[:at] + "\n" + entry.strip("\n") + "\n" + text[at:]
    written = gen.write(gen.generate(parse.loads(extra, "ops.yaml", CSRC)), tmp_path)
    compiled = [w for w in written if w.endswith((".h", ".cpp", ".cu"))]
    # Note [Op units]: and the one unit that compiles the new op's source (the other families keep theirs).
    units = [w for w in compiled if w.startswith("ops/units/")]
    assert len(units) == 1 and '#include "ops/twice.cpp"' in (tmp_path / units[0]).read_text()
    assert sorted(set(compiled) - set(units)) == ["ops/op_docs.cpp", "ops/op_sites.cpp", "ops/twice.cpp",
                                                  "yaten/functions.h", "yaten/ops/twice.h"]
    # Plus files nothing compiles: the op reference and the stubs (whose comments keep the shifted lines).
    rest = sorted(set(written) - set(compiled))
    assert rest[:2] == ["docs/ops-reference.md", "stubs/_C/__init__.pyi"]
    assert all(p.startswith("stubs/") for p in rest[1:])


def test_editing_an_ops_doc_rewrites_only_the_docstring_table(tmp_path):
    # Note [Docstrings live in one compiled file]: an edit to a `doc:` recompiles ops/op_docs.cpp, not the op's unit.
    text = OPS_YAML.read_text()
    gen.write(gen.generate(parse.loads(text, "ops.yaml", CSRC)), tmp_path)
    old = "  doc: Whether each element is NaN.\n"
    assert old in text
    edited = text.replace(old, "  doc: Whether each element is NaN (edited).\n", 1)
    written = gen.write(gen.generate(parse.loads(edited, "ops.yaml", CSRC)), tmp_path)
    assert sorted(w for w in written if w.endswith((".h", ".cpp", ".cu"))) == ["ops/op_docs.cpp"]
    assert '"Whether each element is NaN (edited)."' in (tmp_path / "ops" / "op_docs.cpp").read_text()
    assert "docs/ops-reference.md" in written


def test_generate_removes_what_it_no_longer_writes_and_nothing_else(tmp_path):
    text = OPS_YAML.read_text() + "\n- func: twice(Tensor self) -> Tensor\n  dispatch:\n    CompositeImplicit: clone_impl\n"
    yaml = tmp_path / "ops.yaml"
    yaml.write_text(text)
    out = tmp_path / "out"
    assert run_cli("generate", "--yaml", str(yaml), "--csrc", str(CSRC), "--out", str(out)).returncode == 0
    (out / "ops" / "notes.txt").write_text("not generated: stays")
    yaml.write_text(OPS_YAML.read_text())
    result = run_cli("generate", "--yaml", str(yaml), "--csrc", str(CSRC), "--out", str(out), "-v")
    assert result.returncode == 0, result.stderr
    assert ", 2 removed in " in result.stdout
    assert not (out / "ops" / "twice.cpp").exists() and not (out / "yaten" / "ops" / "twice.h").exists()
    assert (out / "ops" / "notes.txt").exists() and (out / "ops" / "add.cpp").exists()


def test_generated_files_carry_provenance_comments_and_lines_only_in_the_site_table():
    ops_file = parse.load(OPS_YAML, CSRC)
    files = {f.path: f.text for f in gen.generate(ops_file)}
    source = files["ops/add.cpp"]
    assert source.startswith("// @generated from ops.yaml by codegen (templates/op_source.cpp.j2)")
    assert "// ops.yaml  add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor\n" in source
    assert "// ops.yaml (a form of add.Tensor)  add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1)" in source
    assert 'm.def("add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor", "ops.yaml");' in source
    compiled = {path: text for path, text in files.items() if path.endswith((".h", ".cpp", ".cu"))}
    with_lines = sorted(path for path, text in compiled.items() if re.search(r"ops\.yaml:\d", text))
    assert with_lines == ["ops/op_sites.cpp"]
    add_line = next(op.location.line for op in ops_file.ops if op.schema.full_name == "add.Tensor")
    assert f'{{"yaten::add.Tensor", "ops.yaml:{add_line}"}},' in files["ops/op_sites.cpp"]
    assert f'{{"yaten::add_.Tensor", "ops.yaml:{add_line}"}},' in files["ops/op_sites.cpp"]
    # Files nothing compiles keep the lines.
    assert f"# ops.yaml:{add_line}  add.Tensor(" in files["stubs/_C/__init__.pyi"]


def test_dtype_switch_lists_exactly_the_declared_dtypes():
    ops_file = parse.load(OPS_YAML, CSRC)
    source = next(f.text for f in gen.generate(ops_file) if f.path == "ops/sub.cpp")
    wrapper = source[source.index("Tensor sub_Tensor_cpu"):]
    wrapper = wrapper[: wrapper.index("\n}\n")]
    sub = next(op for op in ops_file.ops if op.schema.full_name == "sub.Tensor")
    cases = [line.split("ScalarType::")[1].rstrip(":") for line in wrapper.splitlines() if "case ScalarType::" in line]
    from codegen.model import CPP_DTYPE

    assert cases == [CPP_DTYPE[d][0] for d in DTYPES if d in sub.dtypes["CPU"]]
    assert "Bool" not in cases


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "codegen", *args], cwd=ROOT, capture_output=True, text=True)


def test_cli_check_exits_nonzero_with_positions(tmp_path):
    bad = tmp_path / "ops.yaml"
    bad.write_text("- func: f(Tensor self) -> Tensor\n  dispatch: {CompositeImplicit: nope_impl}\n  tag: [x]\n")
    result = run_cli("check", str(bad), "--csrc", str(CSRC))
    assert result.returncode == 1
    assert "ops.yaml:3:3: error: unknown key 'tag' (did you mean 'tags'?)" in result.stderr
    assert "ops.yaml:2:33: error: kernel 'nope_impl' for CompositeImplicit is not defined" in result.stderr
    assert "Traceback" not in result.stderr
    assert run_cli("check").returncode == 0


def test_cli_show_prints_every_piece_with_file_and_source_line():
    result = run_cli("show", "add")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    for piece in ("--- yaten/ops/add.h:", "--- ops/add.cpp:", "--- ops/cuda/binary_ops.cu:"):
        assert piece in out
    assert "Tensor add_Tensor_cpu(DispatchKeySet" in out
    assert "PyObject* py_add(" in out
    # The line numbers point into the files as generated.
    ops_file = parse.load(OPS_YAML, CSRC)
    files = {f.path: f.text.splitlines() for f in gen.generate(ops_file)}
    header_line = int(out.split("--- yaten/ops/add.h:")[1].split()[0])
    assert files["yaten/ops/add.h"][header_line - 1].startswith("// ops.yaml  add.Tensor(")
    add_line = next(op.location.line for op in ops_file.ops if op.schema.full_name == "add.Tensor")
    assert f"(from ops.yaml:{add_line} add.Tensor," in out


def test_cli_show_prints_the_contract_before_the_kernel_is_written(tmp_path):
    ops = tmp_path / "ops.yaml"
    ops.write_text("- func: cube(Tensor self) -> Tensor\n  tags: [pointwise]\n  dtypes: floating\n  dispatch:\n"
                   "    CPU: cube_kernel\n")
    result = run_cli("show", "cube", "--yaml", str(ops), "--csrc", str(CSRC))
    assert result.returncode == 0, result.stderr
    assert ("ops.yaml:5:10: note: kernel 'cube_kernel' for CPU is not defined in any header under csrc/kernels/cpu/"
            in result.stdout)
    assert "template <typename scalar_t>\n//   void cube_kernel(const TensorIterator& iter);" in result.stdout
    # Everything else still refuses the missing kernel.
    check = run_cli("check", str(ops), "--csrc", str(CSRC))
    assert check.returncode == 1 and "ops.yaml:5:10: error: kernel 'cube_kernel'" in check.stderr


def test_cli_show_unknown_op_suggests():
    result = run_cli("show", "ad")
    assert result.returncode == 1 and "did you mean 'add'?" in result.stderr


def test_cli_list_names_every_op():
    result = run_cli("list")
    assert result.returncode == 0
    names = [line.split()[0] for line in result.stdout.splitlines()]
    assert names == [op.schema.full_name for op in parse.load(OPS_YAML).ops]


def test_forms_derive_inplace_and_out_overloads_from_the_functional_entry():
    ops_file = parse.loads(textwrap.dedent("""
        - func: add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
          variants: function, method
          tags: [pointwise]
          forms: [inplace, out]
          dtypes: all
          dispatch: {CPU: add_kernel}
    """), "ops.yaml", CSRC)
    assert [str(op.schema) for op in ops_file.ops] == [
        "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
        "add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)",
        "add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)",
    ]
    inplace, out = ops_file.ops[1:]
    assert inplace.variants == ("method",) and out.variants == ("function",)
    assert inplace.derived_from == out.derived_from == "add.Tensor"
    assert inplace.dispatch == out.dispatch == ops_file.ops[0].dispatch
    assert inplace.location.line == 2


def test_number_forms_take_torchs_overload_names():
    ops_file = parse.loads(textwrap.dedent("""
        - func: pow.Tensor_Tensor(Tensor self, Tensor exponent) -> Tensor
          variants: function, method
          tags: [pointwise]
          forms: [inplace, out, scalar, scalar_self]
          dtypes: all
          dispatch: {CPU: pow_kernel}
        - func: bitwise_and.Tensor(Tensor self, Tensor other) -> Tensor
          variants: function, method
          tags: [pointwise]
          forms: [out, scalar_self]
          dtypes: integral
          dispatch: {CPU: bitwise_and_kernel}
    """), "ops.yaml", CSRC)
    schemas = {op.schema.full_name: op for op in ops_file.ops}
    assert sorted(schemas) == sorted([
        "pow.Tensor_Tensor", "pow_.Tensor_Tensor", "pow.Tensor_Tensor_out", "pow.Tensor_Scalar",
        "pow_.Tensor_Scalar", "pow.Tensor_Scalar_out", "pow.Scalar", "pow.Scalar_out",
        "bitwise_and.Tensor", "bitwise_and.out", "bitwise_and.Scalar_Tensor", "bitwise_and.Scalar_Tensor_out"])
    assert str(schemas["pow.Scalar"].schema) == "pow.Scalar(Scalar self, Tensor exponent) -> Tensor"
    assert str(schemas["bitwise_and.Scalar_Tensor_out"].schema) == \
        "bitwise_and.Scalar_Tensor_out(Scalar self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)"
    # a number for self: functions only, each calling the Tensor overload with the number wrapped
    assert schemas["pow.Scalar"].variants == ("function",)
    assert schemas["pow.Scalar"].forward_to == "yaten::pow(detail::wrapped_scalar_tensor(self), exponent)"
    assert schemas["pow.Scalar_out"].forward_to == \
        "yaten::pow_out(detail::wrapped_scalar_tensor(self), exponent, out)"


def test_forms_need_a_functional_pointwise_entry():
    errors = diagnostics("""
        - func: f(Tensor self) -> Tensor
          forms: [inplace, outt]
          dispatch: {CompositeImplicit: x}
    """)
    assert len(errors) == 2
    assert any("unknown form 'outt' (did you mean 'out'?)" in e for e in errors)
    assert any("'forms' derives overloads from a functional pointwise entry" in e for e in errors)


def test_forms_clash_with_an_explicit_entry():
    errors = diagnostics("""
        - func: neg(Tensor self) -> Tensor
          tags: [pointwise]
          forms: [inplace]
          dtypes: all
          dispatch: {CPU: neg_kernel}
        - func: neg_(Tensor(a!) self) -> Tensor(a!)
          dispatch: {CompositeImplicit: x}
    """)
    assert any("neg_" in e and "line" in e for e in errors)


def test_python_module_must_be_known():
    errors = diagnostics("""
        - func: linalg_f(Tensor self) -> Tensor
          python_module: linalgg
          dispatch: {CompositeImplicit: x}
    """)
    assert errors == ["ops.yaml:3:18: error: unknown python_module 'linalgg' (did you mean 'linalg'?)"]


def test_the_generator_type_checks():
    pytest.importorskip("mypy")
    result = subprocess.run([sys.executable, "-m", "mypy", "--no-incremental", "--python-version", "3.11",
                             "--ignore-missing-imports", "codegen"], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


GOOD_PROGRAM = """
import yaten
import yaten.nn.functional as F
from yaten import Tensor

a: Tensor = yaten.tensor([1.0, 2.0])
b: Tensor = yaten.add(a, a, alpha=2)
c: Tensor = a + 1 - b * 2.5 / a
d: int = a.numel()
e = yaten.zeros(2, 3, dtype=yaten.float32)
f = yaten.arange(0, 10, 2, device="cpu")
g: Tensor = a.add_(b).mul_(2)
h: Tensor = yaten.neg(a, out=yaten.empty(2))
shape: tuple[int, ...] = e.shape
flag: bool = e.dtype.is_floating_point

# A torch-style training step: operators, indexing, autograd attributes and methods, nn.functional.
x = yaten.randn(8, 4, requires_grad=True)
w = yaten.randn(4, 3)
w.requires_grad_()
bias = yaten.zeros(3, requires_grad=True)
y = F.relu(x @ w + bias) ** 2
z = -y / 2.0 - 1 + 3 * y % 2 + 2 ** y.mean() - y // 3 + abs(y)
loss: Tensor = z.sum()
loss.backward()
grad: Tensor | None = w.grad
if w.grad is not None:
    w.grad.zero_()
print(x.grad_fn, x.is_leaf, x.requires_grad, w.T.shape, w.mT.shape)
rows = x[0], x[1:3, ::2], x[..., None], x[x > 0], x[[0, 2]]
x2 = x.detach()
x2[0] = 1.0
x2[x2 < 0] = yaten.tensor(0.0)
mask = (x2 > 0.5) & (x2 < 0.7) | ~(x2 == 1) ^ (x2 != x2)
for row in x2:
    print(row.shape[0], len(x2), x2.size(0), x2.size())
with yaten.no_grad():
    w -= 0.1 * w
w.data -= 0.1 * w.data
item: float = float(x2.sum().item())
values, indices = x2.max(dim=1)
result = x2.max(1)
print(result.values, result.indices, f"{x2.sum():.2f}", 1.0 in x2, x2.nelement(), x2.new_zeros(2, 3))

# Complex numbers and FFTs, as a torch user writes them.
spectrum: Tensor = yaten.fft.rfft(x2[0], norm="ortho")
power = spectrum.abs() ** 2 + yaten.view_as_real(spectrum * 2j - 1j).sum() + yaten.fft.rfftfreq(4, 0.5)
phase = yaten.angle(yaten.complex(x2[0], x2[1]) * (1 + 2j)) + yaten.fft.irfft(spectrum, n=4)
is_c: bool = spectrum.dtype.is_complex and spectrum.dtype == yaten.complex64 and spectrum.is_complex()
parts: Tensor = spectrum.real + spectrum.imag
spectrum.imag = yaten.zeros(3)
spectrum.real = 1.0
"""

BAD_PROGRAM = """
import yaten

a = yaten.tensor([1.0])
yaten.add(a, "x")
n: str = a.numel()
yaten.zeros(2, dtype="float32")
a.grad.zero_()
a.backward(retain_graph="yes")
"""


def test_generated_stubs_type_check_programs(tmp_path):
    pytest.importorskip("mypy")
    import shutil

    package = tmp_path / "yaten"
    shutil.copytree(ROOT / "python" / "yaten", package)
    for f in gen.generate(parse.load(OPS_YAML, CSRC)):
        if f.path.startswith("stubs/"):
            target = package / f.path[len("stubs/"):]
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(f.text)
    (tmp_path / "good.py").write_text(GOOD_PROGRAM)
    (tmp_path / "bad.py").write_text(BAD_PROGRAM)
    args = [sys.executable, "-m", "mypy", "--follow-imports=silent", "--no-incremental", "--python-version", "3.11"]
    good = subprocess.run([*args, "good.py"], cwd=tmp_path, capture_output=True, text=True)
    assert good.returncode == 0, good.stdout + good.stderr
    # ... and it runs: the stubs describe what exists.
    ran = subprocess.run([sys.executable, "-c", GOOD_PROGRAM], capture_output=True, text=True)
    assert ran.returncode == 0, ran.stderr
    modules = ["-p", "yaten._C", "-m", "yaten.return_types", "-m", "yaten.linalg", "-m", "yaten.nn.functional"]
    stubs = subprocess.run([*args, *modules], cwd=tmp_path,
                           capture_output=True, text=True)
    assert stubs.returncode == 0, stubs.stdout + stubs.stderr
    bad = subprocess.run([*args, "bad.py"], cwd=tmp_path, capture_output=True, text=True)
    assert bad.returncode == 1
    assert 'bad.py:5: error: No overload variant of "add" matches argument types "Tensor", "str"' in bad.stdout
    assert "bad.py:6: error: Incompatible types in assignment" in bad.stdout
    assert "bad.py:7: error:" in bad.stdout
    assert 'bad.py:8: error: Item "None" of "Tensor | None" has no attribute "zero_"' in bad.stdout
    assert ('bad.py:9: error: Argument "retain_graph" to "backward" of "Tensor" has incompatible type "str"'
            in bad.stdout)


GOLDEN = ROOT / "tests" / "golden"


def test_generated_code_matches_the_golden_files():
    """A template or generator change shows up here as a diff of tests/golden/expected/ (regenerate with
    YATEN_UPDATE_GOLDEN=1)."""
    import os

    ops_file = parse.loads((GOLDEN / "ops.yaml").read_text(), "ops.yaml", None)
    files = {f.path: f.text for f in gen.generate(ops_file)}
    expected_dir = GOLDEN / "expected"
    if os.environ.get("YATEN_UPDATE_GOLDEN"):
        import shutil

        shutil.rmtree(expected_dir, ignore_errors=True)
        gen.write(gen.generate(ops_file), expected_dir)
    expected = {str(p.relative_to(expected_dir)): p.read_text() for p in expected_dir.rglob("*") if p.is_file()}
    assert sorted(files) == sorted(expected)
    for path, text in files.items():
        assert text == expected[path], f"{path} differs from tests/golden/expected/{path}"


def test_cli_explain_reports_kernel_or_reason():
    result = run_cli("explain", "div.Tensor", "--dtype", "int32")
    assert result.returncode == 0, result.stderr
    assert "promote_float turns int32 inputs into the default float dtype (float32 unless" in result.stdout
    assert "native::cpu::div_kernel<float>, defined in csrc/kernels/cpu/binary/div.h" in result.stdout
    cuda = run_cli("explain", "mm", "--device", "cuda", "--dtype", "int64")  # cuBLAS has no integer matmul
    assert "int64 is not among the declared CUDA dtypes (float16, float32, float64, complex64, complex128, bfloat16)" in cuda.stdout
    cuda = run_cli("explain", "mm", "--device", "cuda", "--dtype", "float32")
    assert "native::cuda::mm_kernel<float>, defined in csrc/kernels/cuda/linalg.cuh" in cuda.stdout
    undeclared = run_cli("explain", "arange.start", "--dtype", "bool")
    assert "bool is not among the declared CPU dtypes" in undeclared.stdout
    inplace = run_cli("explain", "div_.Tensor", "--dtype", "int64")
    assert "cannot write float32 into its int64 self" in inplace.stdout
    half = run_cli("explain", "add.Tensor", "--dtype", "float16")
    assert "add_kernel<Half>" in half.stdout and "computes in float" in half.stdout
    # several dtypes at once, torch's names for them, and a typo
    several = run_cli("explain", "add.Tensor", "--dtype", "half", "torch.bfloat16", "--dtype", "long")
    assert several.returncode == 0, several.stderr
    assert [line.split(" with ")[1].split()[0] for line in several.stdout.splitlines()
            if line.startswith("yaten::add.Tensor on CPU")] == ["float16", "bfloat16", "int64"]
    assert "add_kernel<BFloat16>" in several.stdout and "add_kernel<int64_t>" in several.stdout
    typo = run_cli("explain", "add.Tensor", "--dtype", "hlaf")
    assert typo.returncode == 1 and "unknown dtype 'hlaf' (did you mean 'half'?)" in typo.stderr


def test_cli_explain_says_when_the_installed_build_has_no_cuda():
    """The installed build's configuration (build_config.json, beside the compiled module) is read without importing
    yaten; on a build without CUDA, explain says so before what a CUDA build would run."""
    yaten = pytest.importorskip("yaten")
    result = run_cli("explain", "add.Tensor", "--device", "cuda", "--dtype", "float32")
    assert result.returncode == 0, result.stderr
    assert "native::cuda::add_kernel<float>" in result.stdout
    note = "the installed yaten was built without CUDA"
    assert (note in result.stdout) == (not yaten._C._build_config["cuda"])


def test_generated_code_lines_fit_the_column_limit():
    files = gen.generate(parse.load(OPS_YAML, CSRC))
    for f in files:
        if not f.path.endswith((".h", ".cpp", ".cu")):
            continue
        for number, line in enumerate(f.text.splitlines(), 1):
            if len(line) > gen.COLUMN_LIMIT:
                # Only comments quoting ops.yaml and single string literals may run longer (and a binding's
                # registration whose op name, twice, leaves no comma within the limit: _amp_foreach_...).
                assert line.lstrip().startswith(("//", '"', "constexpr Signature", "m.def(", "const BindingRegistration")), \
                    f"{f.path}:{number}: {line}"


def test_python_signatures_in_errors_use_python_type_names():
    source = next(f.text for f in gen.generate(parse.load(OPS_YAML, CSRC)) if f.path == "ops/full.cpp")
    assert '"full(int[] size, Number fill_value, *, dtype? dtype=None, device? device=None, bool requires_grad=False, bool pin_memory=False)"' in source


def test_kernel_lookup_ignores_comments(tmp_path):
    kernels = tmp_path / "kernels" / "cpu"
    kernels.mkdir(parents=True)
    (kernels / "k.h").write_text("// fake_kernel(int x) {\n/* other_kernel(int y) { */\n"
                                 "// keeps NaN (x < 0)\ntemplate <typename T>\nvoid real_kernel(int z) {\n}\n")
    found = parse.find_kernel_definitions(tmp_path)["CPU"]
    assert "real_kernel" in found and "fake_kernel" not in found and "other_kernel" not in found


def test_kernel_lookup_reads_fragments_the_backend_header_includes(tmp_path):
    # Note [Kernels written once for both backends]: a kernel defined in an included .inc counts as the includer's
    (tmp_path / "kernels" / "cpu").mkdir(parents=True)
    (tmp_path / "kernels" / "cuda").mkdir()
    (tmp_path / "kernels" / "both.inc").write_text("template <typename scalar_t>\nvoid both_kernel(int x) {\n}\n")
    (tmp_path / "kernels" / "unused.inc").write_text("void unused_kernel(int x) {\n}\n")
    (tmp_path / "kernels" / "cpu" / "k.h").write_text(
        'namespace cpu {\n#include "kernels/both.inc"\n}\n// #include "kernels/unused.inc"\n')
    (tmp_path / "kernels" / "cuda" / "k.cuh").write_text('namespace cuda {\n#include "kernels/both.inc"  // shared\n}\n')
    found = parse.find_kernel_definitions(tmp_path)
    assert found["CPU"] == {"both_kernel": "kernels/cpu/k.h"}
    assert found["CUDA"] == {"both_kernel": "kernels/cuda/k.cuh"}
