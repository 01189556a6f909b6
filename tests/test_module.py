"""The built extension module as a shared object: it exports its init function alone (the reliability issue's link
hygiene), so that a C++ runtime linked into it statically can neither interpose on nor be interposed by another
copy in the process, and its error paths work after numpy has loaded the system's libstdc++."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

import yaten


@pytest.mark.skipif(not sys.platform.startswith("linux") or shutil.which("nm") is None, reason="needs Linux and nm")
def test_module_exports_only_its_init_function():
    out = subprocess.run(["nm", "-D", "--defined-only", yaten._C.__file__], capture_output=True, text=True,
                         check=True).stdout
    exported = {line.split()[-1] for line in out.splitlines() if line.strip()}
    assert exported == {"PyInit__C"}, f"{len(exported)} symbols exported, e.g. {sorted(exported - {'PyInit__C'})[:5]}"


def test_errors_from_cpp_after_numpy_loaded_the_system_runtime():
    # The crash of the reliability issue: with libstdc++ linked statically and its symbols exported, the first C++
    # exception after `import numpy` crashed inside std::ostream. In a child process, so a crash fails this test.
    code = ("import numpy, yaten\n"
            "try:\n    yaten.zeros(-1)\nexcept RuntimeError as e:\n    print('RuntimeError', e)\n"
            "yaten.ones(2).sum()\n"
            "x = yaten.ones(2, requires_grad=True)\n(x * 3).sum().backward()\nprint(x.grad.tolist())\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("RuntimeError") and "[3.0, 3.0]" in done.stdout
