#!/usr/bin/env bash
# The CUDA check of a session lent the GPU machine, in one device call (../shared/gpu/README.md): build and install
# yaten there, run every test file with CUDA cases, then benchmarks/bench_cuda.py beside torch. What comes back
# under $OUT: build.log (on a failed build), tests.log, bench.log.
#
#   run(command="bash tools/gpu_check.sh", carry=[".whl"], timeout_s=540)
#   run(command="bash tools/gpu_check.sh tests/test_cuda_ops.py -k softmax", ...)   # chosen tests, no benchmark
#
# Needs .whl/ with the scipy-openblas32 wheel for Python 3.12 (the README says how to fetch it once).
set -u
out=${OUT:-/tmp/gpu_check}
mkdir -p "$out"
root=$(cd "$(dirname "$0")/.." && pwd)
python3 -m pip install -q --no-index --no-deps --target /tmp/site "$root"/.whl/*.whl || exit 1
export PYTHONPATH=/tmp/site
start=$(date +%s)
if ! CMAKE_BUILD_PARALLEL_LEVEL=16 python3 -m pip install --no-build-isolation --no-deps "$root" > "$out/build.log" 2>&1; then
  tail -40 "$out/build.log"
  exit 1
fi
echo "build: $(( $(date +%s) - start )) s"
rm -f "$out/build.log"
cd "$root"
if [ $# -gt 0 ]; then
  python3 -m pytest -q -p no:cacheprovider "$@" 2>&1 | tee "$out/tests.log" | tail -30
  exit "${PIPESTATUS[0]}"
fi
# Every test file with CUDA cases: the CUDA files whole, the others' CUDA cases by name.
python3 -m pytest -q -p no:cacheprovider tests/test_cuda*.py 2>&1 | tee "$out/tests.log" | tail -15 \
  || true
python3 -m pytest -q -p no:cacheprovider -k "cuda or CUDA" tests/test_backends.py tests/test_conv.py \
  tests/test_core_aten_backward.py tests/test_extensions.py tests/test_grid_sample.py tests/test_norm.py \
  tests/test_padding.py tests/test_pool.py tests/test_profiler.py tests/test_upsample.py 2>&1 | tee -a "$out/tests.log" \
  | tail -15
cd /tmp && timeout 200 python3 "$root/benchmarks/bench_cuda.py" 2>&1 | tee "$out/bench.log" | tail -40
