from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# The generator tests import `codegen` from the source tree, as the build does.
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

HAVE_TORCH = importlib.util.find_spec("torch") is not None
requires_torch = pytest.mark.skipif(not HAVE_TORCH, reason="torch is not installed (pip install -e '.[test]')")


@pytest.fixture
def torch():
    if not HAVE_TORCH:
        pytest.skip("torch is not installed")
    import torch as t

    return t


@pytest.fixture(autouse=True, scope="session")
def _float32_convolutions_without_tf32():
    """The CUDA tests compare float32 convolutions with the CPU's to ~1e-4, and TF32 (yaten.backends.cudnn's default,
    as torch's) rounds inputs to 10 bits of mantissa: off for the session, as torch's own tests do per test.
    tests/test_cudnn.py checks the default and TF32's accuracy."""
    try:
        import yaten.backends.cudnn as cudnn
    except ImportError:  # the generator's tests run without a built yaten
        yield
        return
    with cudnn.flags(allow_tf32=False):
        yield


# The longest tests (each 0.5-4 minutes of a CI run) start first: `pytest -n 2` hands each worker its first tests in
# collection order and the rest as workers free up, so a long test collected late (test_readme.py's build of a copy)
# ran on while the other worker had finished. Longest first, so the two workers take one each.
LONG_FIRST = (
    "tests/test_readme.py::test_the_readme_walkthrough_passes_the_tests_it_names",
    "tests/test_opinfo_parity.py::test_torch_opinfo_samples_agree_but_for_the_listed_differences",
    "tests/test_codegen_fuzz.py::test_mutated_ops_yaml_gives_diagnostics_never_a_traceback",
    "tests/test_fuzz.py::test_every_op_survives_foreign_memory_hostile_objects_and_resource_limits",
)


def pytest_collection_modifyitems(config, items):
    rank = {nodeid: i for i, nodeid in enumerate(LONG_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid, len(LONG_FIRST)))  # stable: the others keep their order
