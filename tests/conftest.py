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

