"""The add-an-op flow, end to end, without touching the repository: copy the tree, declare `logaddexp_demo` (torch's
logaddexp under a name of its own), an op with named returns and one in yaten.special in ops.yaml, write their
kernels, build the copy (unoptimized), and call the new ops from a fresh interpreter. The build is the one
tests/test_readme.py makes of a copy holding the README's op and these (prepare, then verify): one build of the
project instead of two, in CI."""

from __future__ import annotations

import math
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

LOGADDEXP_DEMO_ENTRY = """
- func: logaddexp_demo(Tensor self, Tensor other) -> Tensor
  variants: function, method
  tags: [pointwise]
  dtype_rule: promote_float
  dtypes: floating
  dispatch:
    CPU: logaddexp_demo_kernel
  doc: log(exp(self) + exp(other)), elementwise, without overflow.
"""

# Two more: named returns become a yaten.return_types named tuple; python_module places a function in a namespace.
EXTRA_ENTRIES = """
- func: add_sub(Tensor self, Tensor other) -> (Tensor sum, Tensor difference)
  dispatch:
    CompositeImplicit: add_sub_impl
  doc: self + other and self - other.

- func: special_twice(Tensor self) -> Tensor
  python_module: special
  dispatch:
    CompositeImplicit: twice_impl
  doc: 2 * self.
"""

EXTRA_COMPOSITES = """
#pragma once
#include <tuple>
#include "yaten/ops/add.h"
#include "yaten/ops/sub.h"

namespace yaten::native {
inline std::tuple<Tensor, Tensor> add_sub_impl(const Tensor& self, const Tensor& other) {
  return {yaten::add(self, other), yaten::sub(self, other)};
}
inline Tensor twice_impl(const Tensor& self) { return yaten::add(self, self); }
}  // namespace yaten::native
"""

LOGADDEXP_DEMO_KERNEL = """#pragma once

#include <algorithm>
#include <cmath>

#include "iter/cpu_loops.h"

namespace yaten::native::cpu {
template <typename scalar_t>
void logaddexp_demo_kernel(const TensorIterator& iter) {
  using opmath = opmath_t<scalar_t>;
  cpu_kernel(iter, [](scalar_t a, scalar_t b) -> scalar_t {
    const opmath x = static_cast<opmath>(a), y = static_cast<opmath>(b);
    return std::max(x, y) + std::log1p(std::exp(-std::abs(x - y)));
  });
}
}  // namespace yaten::native::cpu
"""

CALL = textwrap.dedent("""
    import yaten
    a = yaten.tensor([[3.0, 5.0], [8.0, 0.0]])
    b = yaten.tensor([4.0, 12.0])
    print(yaten.logaddexp_demo(a, b).tolist())
    print(a.logaddexp_demo(b).dtype)
    print(yaten.logaddexp_demo(yaten.tensor([3, 6]), yaten.tensor([4, 8])).tolist())
    print(yaten.logaddexp_demo(a.half(), b.half()).dtype)
    print(yaten._C._dispatch_dump("logaddexp_demo"))
    r = yaten.add_sub(yaten.tensor([5, 7]), yaten.tensor([1, 2]))
    print(type(r).__module__, type(r).__name__, r.sum.tolist(), r.difference.tolist(), r[1].tolist())
    print(yaten.special.twice(yaten.tensor([1.5])).tolist(), hasattr(yaten, "special_twice"))
""")


def copy_tree(dst: Path) -> None:
    ignore = shutil.ignore_patterns("build", ".git", ".venv*", "__pycache__", "*.so", ".pytest_cache", ".hypothesis")
    shutil.copytree(ROOT, dst, ignore=ignore)


def prepare(src: Path) -> None:
    """The add-an-op steps before the build, on the copy `src`: the entries, the contract shown before the kernel
    exists (and `check` naming the missing kernel), then the kernel and the composites."""
    (src / "ops.yaml").write_text((src / "ops.yaml").read_text() + LOGADDEXP_DEMO_ENTRY + EXTRA_ENTRIES)
    # README's order: the entry first, then the contract, shown before the kernel exists and before any build.
    show = subprocess.run([sys.executable, "-m", "codegen", "show", "logaddexp_demo"], cwd=src, capture_output=True,
                          text=True)
    assert show.returncode == 0, show.stderr
    assert ("note: kernel 'logaddexp_demo_kernel' for CPU is not defined in any header under csrc/kernels/cpu/"
            in show.stdout)
    assert "void logaddexp_demo_kernel(const TensorIterator& iter)" in show.stdout
    check = subprocess.run([sys.executable, "-m", "codegen", "check"], cwd=src, capture_output=True, text=True)
    assert check.returncode == 1 and "error: kernel 'logaddexp_demo_kernel' for CPU is not defined" in check.stderr
    (src / "csrc" / "kernels" / "composite" / "extra.h").write_text(EXTRA_COMPOSITES)
    (src / "csrc" / "kernels" / "cpu" / "logaddexp_demo.h").write_text(LOGADDEXP_DEMO_KERNEL)
    check = subprocess.run([sys.executable, "-m", "codegen", "check"], cwd=src, capture_output=True, text=True)
    assert check.returncode == 0, check.stderr


def verify(package_root: Path, cwd: Path) -> None:
    """The new ops, called from a fresh interpreter that imports the yaten built from the prepared copy (its package
    directory under `package_root`)."""
    # -S: no site-packages, so the yaten installed in this environment cannot shadow the one just built.
    run = subprocess.run([sys.executable, "-S", "-c", CALL], env={"PYTHONPATH": str(package_root)},
                         capture_output=True, text=True, cwd=cwd)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    expected = [math.log(math.exp(x) + math.exp(y)) for x, y in ((3, 4), (5, 12), (8, 4), (0, 12))]
    assert sum(eval(lines[0]), []) == pytest.approx(expected)
    assert lines[1] == "yaten.float32"
    assert eval(lines[2]) == pytest.approx([math.log(math.exp(3) + math.exp(4)), math.log(math.exp(6) + math.exp(8))])
    assert lines[3] == "yaten.float16"
    assert "CPU: ops.yaml:" in run.stdout
    assert lines[-2] == "yaten.return_types add_sub [6, 9] [4, 5] [4, 5]"
    assert lines[-1] == "[3.0] False"


def test_the_contract_comes_before_the_kernel_and_check_names_what_is_missing(tmp_path):
    """The steps before the build, every run; the build and the calls (verify) run in tests/test_readme.py's build
    of a copy, which holds these ops beside the README's (one build of the project for both: minutes of CI)."""
    src = tmp_path / "src"
    copy_tree(src)
    prepare(src)
