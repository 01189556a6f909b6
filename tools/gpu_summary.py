"""The machine-readable record of a GPU check (tools/gpu_check.sh): commit, device, build time, each test file's
result, the examples' last lines and every benchmark ratio, as one JSON file. The session that ran the check commits
it under benchmarks/results/gpu/, so the GPU state of every landing is known without a GPU.

    python tools/gpu_summary.py OUT_DIR --commit SHA --device "NVIDIA H100 ..." --build-seconds 180

reads OUT_DIR/junit-*.xml (pytest --junitxml), OUT_DIR/examples.log and OUT_DIR/bench.log, and writes
OUT_DIR/summary.json.
"""

from __future__ import annotations

import argparse
import json
import re
import time
import xml.etree.ElementTree as ET
from pathlib import Path

# bench_cuda.py's rows: "<title>   yaten <time> ...   torch <time> ...   yaten/torch throughput 1.23x"
_BENCH_ROW = re.compile(r"^(?P<title>\S.*?)\s+yaten\s+(?P<ours>[\d.]+ (?:ms|us)).*?"
                        r"(?:yaten/torch throughput\s+(?P<ratio>[\d.]+)x)?\s*$")


def test_files(junit_paths: list[Path]) -> dict[str, dict[str, int]]:
    """Per test file: how many of its tests passed, failed, errored and were skipped."""
    files: dict[str, dict[str, int]] = {}
    for path in junit_paths:
        try:
            root = ET.parse(path).getroot()
        except (OSError, ET.ParseError):
            continue
        for case in root.iter("testcase"):
            name = (case.get("file") or case.get("classname", "").replace(".", "/") + ".py").split("::")[0]
            counts = files.setdefault(name, {"passed": 0, "failed": 0, "errors": 0, "skipped": 0})
            if case.find("failure") is not None:
                counts["failed"] += 1
            elif case.find("error") is not None:
                counts["errors"] += 1
            elif case.find("skipped") is not None:
                counts["skipped"] += 1
            else:
                counts["passed"] += 1
    return dict(sorted(files.items()))


def bench_rows(text: str) -> list[dict[str, object]]:
    rows = []
    for line in text.splitlines():
        m = _BENCH_ROW.match(line)
        if m and "failed:" not in line:
            ratio = m.group("ratio")
            rows.append({"case": m.group("title").strip(), "yaten": m.group("ours"),
                         "torch_time_over_yaten": float(ratio) if ratio else None})
    return rows


def summary(out: Path, commit: str, device: str, build_seconds: float | None) -> dict[str, object]:
    files = test_files(sorted(out.glob("junit-*.xml")))
    totals = {k: sum(c[k] for c in files.values()) for k in ("passed", "failed", "errors", "skipped")}
    examples = (out / "examples.log").read_text(errors="replace").splitlines()[-8:] \
        if (out / "examples.log").exists() else []
    bench = bench_rows((out / "bench.log").read_text(errors="replace")) if (out / "bench.log").exists() else []
    return {"commit": commit, "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "device": device,
            "build_seconds": build_seconds, "tests": totals, "test_files": files, "examples": examples,
            "benchmarks": bench}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", type=Path)
    parser.add_argument("--commit", default="unknown")
    parser.add_argument("--device", default="unknown")
    parser.add_argument("--build-seconds", type=float)
    args = parser.parse_args()
    record = summary(args.out, args.commit, args.device, args.build_seconds)
    (args.out / "summary.json").write_text(json.dumps(record, indent=1) + "\n")
    t = record["tests"]
    print(f"summary.json: {t['passed']} passed, {t['failed']} failed, {t['errors']} errors, {t['skipped']} skipped "
          f"in {len(record['test_files'])} files; {len(record['benchmarks'])} benchmark rows")


if __name__ == "__main__":
    main()
