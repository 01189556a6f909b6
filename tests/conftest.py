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
