"""PyTorch's own OpInfo samples (torch.testing._internal's op_db) through tools/opinfo_parity.py, for the ops whose
disagreements the reliability issue fixed at their root: integer max_pool, bool and complex scatter_add, arange's
int64 length, masked_scatter's broadcast, integer addmv, complex norms, var/std, lerp and logical ops, the
complex forms of the data-movement ops, circular padding with a negative side, tensordot's size-1 contractions and
sums of 0-d complex tensors over dim 0. Every runnable case must agree. The whole comparison (every op yaten shares
with torch, some 100,000 cases, minutes) is `python tools/opinfo_parity.py`."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PINNED = ["arange", "scatter_add", "scatter", "nn.functional.max_pool2d", "nn.functional.unfold", "linalg.vector_norm",
          "lerp", "var", "std", "logical_and", "addmv", "masked_scatter", "cumsum", "cumprod", "index_select", "topk",
          "gather", "nonzero", "all", "any", "addcmul", "addcdiv", "isclose", "allclose", "isfinite", "square",
          "linalg.vecdot", "prod", "tensordot", "sum", "mean", "nn.functional.pad", "logspace", "acos", "acosh", "asin",
          "asinh", "atan", "atanh", "cosh", "sinh", "tan", "tanh", "log10", "log2", "exp2", "rsqrt", "sigmoid",
          "nn.functional.l1_loss", "native_group_norm", "isnan", "isinf", "vdot", "var_mean", "std_mean",
          "logsumexp", "nn.functional.bilinear", "native_batch_norm", "nn.functional.batch_norm", "log1p", "expm1",
          "nn.functional.silu", "nn.functional.rms_norm", "histc", "nn.functional.conv1d"]


def test_pinned_ops_agree_with_torch_on_every_opinfo_sample():
    pytest.importorskip("torch")
    pytest.importorskip("expecttest")  # torch's OpInfo database imports it
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "opinfo_parity.py"), *PINNED], capture_output=True,
                          text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    summary = re.search(r"(\d+) op names shared; (\d+) runnable cases, (\d+) agree", done.stdout)
    assert summary, done.stdout[-3000:]
    shared, runnable, agree = map(int, summary.groups())
    assert shared == len(PINNED)
    assert runnable > 10000 and agree == runnable, done.stdout[-5000:]
