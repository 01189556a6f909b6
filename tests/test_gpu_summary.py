"""tools/gpu_summary.py, the GPU check's record: each test file's counts from pytest's JUnit XML and the ratios of
bench_cuda.py's rows. (It runs on the GPU machine; its parsing is checked here, where there is no GPU.)"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def load():
    spec = importlib.util.spec_from_file_location("gpu_summary", ROOT / "tools" / "gpu_summary.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_summary_counts_each_file_and_reads_the_benchmark_ratios(tmp_path):
    (tmp_path / "junit-1.xml").write_text(
        '<testsuites><testsuite name="pytest">'
        '<testcase classname="tests.test_cuda_ops" name="a" file="tests/test_cuda_ops.py"/>'
        '<testcase classname="tests.test_cuda_ops" name="b" file="tests/test_cuda_ops.py"><failure message="x"/>'
        '</testcase><testcase classname="tests.test_norm" name="c"><skipped message="no GPU"/></testcase>'
        '</testsuite></testsuites>')
    (tmp_path / "junit-2.xml").write_text(
        '<testsuites><testsuite><testcase classname="tests.test_norm" name="d"><error message="e"/></testcase>'
        '</testsuite></testsuites>')
    (tmp_path / "bench.log").write_text(
        "device: NVIDIA H100; torch 2.13.0\n"
        "add 16M float32                    yaten     0.120 ms   1598 GB/s   torch     0.125 ms   1534 GB/s"
        "   yaten/torch throughput  1.04x\n"
        "mm 4096 float16                    yaten     0.180 ms  763.6 TFLOP/s   torch     0.171 ms"
        "  803.7 TFLOP/s   yaten/torch throughput  0.95x\n"
        "    failed: RuntimeError: boom\n")
    result = subprocess.run([sys.executable, str(ROOT / "tools" / "gpu_summary.py"), str(tmp_path), "--commit",
                             "abc1234", "--device", "GPU 0: NVIDIA H100", "--build-seconds", "201"],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    record = json.loads((tmp_path / "summary.json").read_text())
    assert record["commit"] == "abc1234" and record["device"] == "GPU 0: NVIDIA H100"
    assert record["test_files"] == {
        "tests/test_cuda_ops.py": {"passed": 1, "failed": 1, "errors": 0, "skipped": 0},
        "tests/test_norm.py": {"passed": 0, "failed": 0, "errors": 1, "skipped": 1}}
    assert record["tests"] == {"passed": 1, "failed": 1, "errors": 1, "skipped": 1}
    assert [(r["case"], r["torch_time_over_yaten"]) for r in record["benchmarks"]] == [
        ("add 16M float32", 1.04), ("mm 4096 float16", 0.95)]
    assert load().bench_rows("no rows here\n") == []
