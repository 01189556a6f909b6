"""Whole torch programs on yaten: examples/torch_style/{gpt,resnet}.py, written as torch users write them, run under
torch and unchanged under `python -m yaten.as_torch`, from one saved state_dict, for 20 steps of SGD: the losses
must agree step by step (float64)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")

ROOT = Path(__file__).resolve().parent.parent
PROGRAMS = ROOT / "examples" / "torch_style"
ENV = {**os.environ, "SKBUILD_EDITABLE_VERBOSE": "0", "OMP_NUM_THREADS": "1"}


def run(args: list[str]) -> str:
    done = subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=600, env=ENV, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def losses(output: str) -> list[float]:
    line = next(line for line in output.splitlines() if line.startswith("losses "))
    return json.loads(line[len("losses "):])


@pytest.mark.parametrize("program,options", [("gpt.py", []), ("gpt.py", ["--optimizer", "adamw"]), ("resnet.py", [])])
def test_torch_program_trains_on_yaten_with_torchs_losses(program, options, tmp_path):
    state = tmp_path / "state.pt"
    script = str(PROGRAMS / program)
    under_torch = run([script, "--state", str(state), "--steps", "20", *options])
    assert state.exists()
    under_yaten = run(["-m", "yaten.as_torch", script, "--state", str(state), "--steps", "20", *options])
    expected, got = losses(under_torch), losses(under_yaten)
    assert len(got) == 20
    assert got == pytest.approx(expected, rel=1e-9, abs=1e-12)
    assert got[-1] < got[0]  # it learns


def test_as_torch_maps_submodules_and_names_what_is_missing(tmp_path):
    script = tmp_path / "probe.py"
    script.write_text(
        "import torch, torch.nn as nn, torch.nn.functional as F\n"
        "from torch.utils.data import DataLoader, TensorDataset\n"
        "import torch.nn.parallel\n"
        "print(torch.__name__, nn.Linear.__module__, F.__name__, DataLoader.__module__)\n"
        "print(torch.backends.cuda.matmul.allow_tf32, torch.tensor([1, 2]).shape, torch.backends.mps.is_available())\n"
        "try:\n    import torch.nonexistent_module\nexcept ImportError as e:\n    print('ImportError', e)\n")
    out = run(["-m", "yaten.as_torch", str(script)])
    assert "yaten yaten.nn.modules.linear yaten.nn.functional yaten.utils.data.dataloader" in out
    assert "yaten.Size([2]) False" in out
    assert "ImportError No module named 'torch.nonexistent_module'" in out


def test_a_nanogpt_style_training_script_runs_on_yaten(tmp_path):
    """examples/torch_style/train_gpt.py, written for torch (memmap data, AdamW groups, GradScaler, torch.compile,
    checkpoint and resume, sampling), runs unchanged under yaten.as_torch, and its loss falls."""
    out = run(["-m", "yaten.as_torch", str(PROGRAMS / "train_gpt.py"), "--out-dir", str(tmp_path), "--max-iters",
               "20"])
    evals = [float(line.split("val loss ")[1]) for line in out.splitlines() if line.startswith("step ")]
    assert len(evals) == 3 and evals[-1] < evals[0] - 0.3, out
    assert "resumed at 20" in out and (tmp_path / "ckpt.pt").exists()
