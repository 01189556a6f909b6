"""The README's add-an-op walk-through, followed literally on a copy of the repository: its ops.yaml entry placed
mid-file, its kernel header written where it says, a build (CUDA off, as the README suggests without a GPU), then the
tests the README names, which derive their inputs from the entry; tests/test_add_op.py's ops are built in the same
copy and called from it. The build takes minutes, so it runs in CI
(`CI=true`, as .ci/run has it) or with YATEN_TEST_README=1; the README's text is parsed here in every run."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import test_add_op

ROOT = Path(__file__).resolve().parent.parent


def walkthrough(readme: str) -> dict[str, str]:
    """The pieces of README.md's "Add an op": the op's name, its ops.yaml entry, the kernel header's path and text,
    and the test command of its last step."""
    section = readme[readme.index("## Add an op"):readme.index("## The fast developer loop")]
    blocks = {lang: textwrap.dedent(code) for lang, code in re.findall(r"```(\w+)\n(.*?)```", section, re.S)}
    header = re.search(r"a header of its own, `(csrc/kernels/cpu/\w+\.h)`", section)
    test = re.search(r"Test it: `pytest ([^`]+)`", section)
    assert {"yaml", "cpp"} <= set(blocks) and header and test, "the walk-through's shape changed: update this test"
    name = re.match(r"- func: (\w+)\(", blocks["yaml"])
    assert name
    return {"op": name.group(1), "yaml": blocks["yaml"], "header": header.group(1), "cpp": blocks["cpp"],
            "test": test.group(1)}


def test_the_walkthrough_parses_and_its_entry_checks():
    """The entry is valid ops.yaml (the generator's check passes on ops.yaml with it), names a kernel the header
    defines, and the op is not already in ops.yaml (a user following the README would hit a duplicate)."""
    sys.path.insert(0, str(ROOT))
    from codegen import parse

    steps = walkthrough((ROOT / "README.md").read_text())
    ops_yaml = (ROOT / "ops.yaml").read_text()
    assert f"- func: {steps['op']}(" not in ops_yaml
    assert f"{steps['op']}_kernel" in steps["cpp"]
    ops = parse.loads(ops_yaml + "\n" + steps["yaml"], "ops.yaml").ops
    assert any(op.schema.name == steps["op"] for op in ops)


def _copy_checkout(dest: Path) -> None:
    files = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                           capture_output=True, check=True).stdout.decode().split("\0")
    for name in filter(None, files):
        src = ROOT / name
        if src.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / name)


@pytest.mark.skipif(not (os.environ.get("CI") or os.environ.get("YATEN_TEST_README")),
                    reason="builds a copy of yaten (minutes): runs in CI, or with YATEN_TEST_README=1")
def test_the_readme_walkthrough_passes_the_tests_it_names(tmp_path):
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("needs a git checkout to copy")
    pybind11 = pytest.importorskip("pybind11")
    pytest.importorskip("torch")
    steps = walkthrough((ROOT / "README.md").read_text())
    repo = tmp_path / "repo"
    _copy_checkout(repo)
    # Step 1: the entry, mid-file ("anywhere in the file").
    ops_yaml = (repo / "ops.yaml").read_text()
    at = ops_yaml.index("- func: mul.Tensor(")
    (repo / "ops.yaml").write_text(ops_yaml[:at] + steps["yaml"] + "\n" + ops_yaml[at:])
    # Step 2: the contract, before the kernel exists.
    show = subprocess.run([sys.executable, "-m", "codegen", "show", steps["op"]], cwd=repo, capture_output=True,
                          text=True)
    assert show.returncode == 0, show.stderr
    assert f"void {steps['op']}_kernel(const TensorIterator& iter" in show.stdout
    # Step 3: the kernel header.
    (repo / steps["header"]).write_text(steps["cpp"])
    check = subprocess.run([sys.executable, "-m", "codegen", "check"], cwd=repo, capture_output=True, text=True)
    assert check.returncode == 0, check.stderr
    # The ops of tests/test_add_op.py join the README's in this copy, so one build serves both.
    test_add_op.prepare(repo)
    # Step 4: build (what `pip install -e .` runs, CUDA off, but unoptimized as in test_add_op.py: -O0 compiles in
    # a third of -O3's time, and the walk-through's tests check values, not speed), and lay the package out as the
    # wheel does.
    build, prefix = tmp_path / "build", tmp_path / "site"
    env = {k: v for k, v in os.environ.items() if not k.startswith("SKBUILD")}
    configure = subprocess.run(
        ["cmake", "-S", str(repo), "-B", str(build), "-G", "Ninja", "-DYATEN_CUDA=OFF", "-DCMAKE_BUILD_TYPE=None",
         "-DCMAKE_CXX_FLAGS=-O0",
         f"-DPython_EXECUTABLE={sys.executable}", f"-Dpybind11_DIR={pybind11.get_cmake_dir()}"],
        capture_output=True, text=True, env=env)
    assert configure.returncode == 0, configure.stdout[-3000:] + configure.stderr[-3000:]
    compiled = subprocess.run(["cmake", "--build", str(build)], capture_output=True, text=True, env=env)
    assert compiled.returncode == 0, compiled.stdout[-5000:] + compiled.stderr[-3000:]
    installed = subprocess.run(["cmake", "--install", str(build), "--prefix", str(prefix)], capture_output=True,
                               text=True)
    assert installed.returncode == 0, installed.stderr
    shutil.copytree(repo / "python" / "yaten", prefix / "yaten", dirs_exist_ok=True)
    shutil.copytree(repo / "codegen", prefix / "yaten" / "codegen", dirs_exist_ok=True)
    # Step 5: the tests the README names, on the copy, importing the copy's yaten (the import hooks of an editable
    # install of this checkout are taken out of the child's import system first).
    runner = ("import sys; sys.meta_path[:] = [f for f in sys.meta_path if 'ScikitBuild' not in type(f).__name__]; "
              "import pytest; sys.exit(pytest.main(sys.argv[1:]))")
    args = steps["test"].split()
    result = subprocess.run([sys.executable, "-c", runner, "-q", "-p", "no:cacheprovider", *args], cwd=repo,
                            capture_output=True, text=True, env={**env, "PYTHONPATH": str(prefix)})
    assert result.returncode == 0, result.stdout[-5000:] + result.stderr[-2000:]
    passed = re.search(r"(\d+) passed", result.stdout)
    assert passed and int(passed.group(1)) >= 10, result.stdout[-2000:]
    test_add_op.verify(prefix, tmp_path)
    assert str(prefix) in subprocess.run(
        [sys.executable, "-c", runner.replace("import pytest; sys.exit(pytest.main(sys.argv[1:]))",
                                              "import yaten; print(yaten.__file__)")],
        cwd=repo, capture_output=True, text=True, env={**env, "PYTHONPATH": str(prefix)}).stdout
