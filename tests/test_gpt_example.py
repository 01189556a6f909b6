"""examples/gpt.py: the character-level GPT trains beside torch from the same weights and batches (float32, CPU),
its loss stays within 1e-4 of torch's over 50 steps, and a checkpoint resumes where it stopped."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "gpt.py"


def load_example():
    spec = importlib.util.spec_from_file_location("gpt_example", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def text_file(tmp_path):
    lines = ["First Citizen:", "Before we proceed any further, hear me speak.", "All:", "Speak, speak.",
             "You are all resolved rather to die than to famish?", "Resolved. resolved."]
    path = tmp_path / "text.txt"
    path.write_text("\n".join(lines[i % len(lines)] for i in range(600)))
    return path


SMALL = ["--layers", "2", "--heads", "2", "--width", "32", "--context", "16", "--batch", "4", "--warmup", "5",
         "--eval-every", "25", "--eval-batches", "2", "--sample", "0", "--quiet", "--threads", "2"]


def test_gpt_trains_beside_torch_within_1e_4(tmp_path):
    gpt = load_example()
    args = gpt.parse(SMALL + ["--data", str(text_file(tmp_path)), "--steps", "50", "--compare-torch"])
    result = gpt.train(args)
    assert len(result["losses"]) == len(result["torch_losses"]) == 50
    assert result["max_difference"] < 1e-4
    assert result["losses"][-1] < result["losses"][0] - 0.3  # it learns


def test_gpt_checkpoint_resumes(tmp_path):
    gpt = load_example()
    data, checkpoint = str(text_file(tmp_path)), str(tmp_path / "ckpt.pt")
    whole = gpt.train(gpt.parse(SMALL + ["--data", data, "--steps", "20", "--dropout", "0"]))
    gpt.train(gpt.parse(SMALL + ["--data", data, "--steps", "10", "--dropout", "0", "--eval-every", "10",
                                 "--checkpoint", checkpoint]))
    resumed = gpt.train(gpt.parse(SMALL + ["--data", data, "--steps", "20", "--dropout", "0", "--eval-every", "10",
                                           "--checkpoint", checkpoint, "--resume"]))
    assert len(resumed["losses"]) == 10
    # the steps after the checkpoint see other batches (the data stream restarts from the step's seed), so the
    # losses are compared in size, not equal: the resumed run continues from the trained model, not from scratch
    assert resumed["losses"][0] < whole["losses"][0] - 0.1
