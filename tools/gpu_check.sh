#!/usr/bin/env bash
# The CUDA check of a session lent the GPU machine, in one device call (../shared/gpu/README.md): build and install
# yaten there, run every test file with CUDA cases, the examples on CUDA beside torch, then benchmarks/bench_cuda.py.
# What comes back under $OUT: build.log (on a failed build), tests.log, examples.log, bench.log, and summary.json
# (tools/gpu_summary.py: commit, device, each test file's result, the benchmark ratios), which the session commits as
# benchmarks/results/gpu/<date>-<commit>.json. The device copy has no .git: pass the commit as COMMIT=$(git rev-parse
# --short HEAD).
#
#   run(command="bash tools/gpu_check.sh", carry=[".whl"], timeout_s=540)
#   run(command="bash tools/gpu_check.sh tests/test_cuda_ops.py -k softmax", ...)   # chosen tests, no benchmark
#   run(command="JOBS=12 TEST_TIMEOUT=240 MORE_TESTS='tests/test_optim.py -k cuda' BENCH=--linalg bash tools/gpu_check.sh \
#       tests/test_cuda_ops.py", ...)   # a second batch, each stopped in time, then chosen benchmark rows
#   AFTER="python3 benchmarks/bench_optim.py --device cuda; python3 benchmarks/bench_gpt.py --device cuda --profile"
#       runs more benchmarks after those (AFTER_TIMEOUT s, default 120), into after.log
#
# Tests run in 6 processes (pytest-xdist, on that machine): a test that kills its process is reported as failed and
# the others go on; each test has 120 s (pytest-timeout). Needs .whl/ with the scipy-openblas32 wheel for Python 3.12
# (the README says how to fetch it once); tests/test_distributed.py's NCCL cases also need the mpi4py, mpich and
# nvidia-nccl-cu13 wheels there (`pip download --no-deps -d .whl --python-version 3.12 --only-binary=:all: mpi4py
# mpich nvidia-nccl-cu13`), and skip without them.
set -u
out=${OUT:-/tmp/gpu_check}
mkdir -p "$out"
root=$(cd "$(dirname "$0")/.." && pwd)
python3 -m pip install -q --no-index --no-deps --target /tmp/site "$root"/.whl/*.whl || exit 1
export PYTHONPATH=/tmp/site PYTHONUNBUFFERED=1
device=$(nvidia-smi -L 2>/dev/null | head -1)
echo "$device"
commit=${COMMIT:-$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)}
start=$(date +%s)
if ! CMAKE_BUILD_PARALLEL_LEVEL=16 python3 -m pip install --no-build-isolation --no-deps "$root" > "$out/build.log" 2>&1; then
  tail -40 "$out/build.log"
  exit 1
fi
build_s=$(( $(date +%s) - start ))
echo "build: $build_s s"
python3 -c "import yaten; c = yaten.backends.cudnn; print('cuDNN:', c.is_available(), c.version(), \
yaten._C._cudnn_path() if c.is_available() else '')" 2>&1 | tail -1
rm -f "$out/build.log"
cd "$root"
# Each test process gets its share of the cores: 12 processes of 16 OpenMP threads each made torch's CPU comparisons
# in tests/test_foreach.py take 72 s a case instead of 1 (the 2026-11-30 record).
jobs=${JOBS:-6}
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-$(( $(nproc) / jobs > 0 ? $(nproc) / jobs : 1 ))}
pytest=(python3 -m pytest -q -p no:cacheprovider -n "$jobs" --timeout 120 -rfE --tb=short)
summarize() { python3 "$root/tools/gpu_summary.py" "$out" --commit "$commit" --device "$device" --build-seconds "$build_s"; }
# One batch of tests, stopped by SIGINT (pytest then still reports and writes its junit file) after TEST_TIMEOUT s.
batch() {
  local n=$1; shift
  timeout -s INT -k 30 "${TEST_TIMEOUT:-100000}" "${pytest[@]}" --junitxml="$out/junit-$n.xml" "$@" 2>&1 \
    | tee -a "$out/tests.log" | grep -E "^(FAILED|ERROR)|passed|failed" | tail -60
  return "${PIPESTATUS[0]}"
}
if [ $# -gt 0 ]; then  # chosen tests; MORE_TESTS a second batch, BENCH bench_cuda.py's arguments (--linalg, --nn)
  batch 1 "$@"; status=$?
  if [ -n "${MORE_TESTS:-}" ]; then batch 2 $MORE_TESTS || status=$?; fi
  if [ -n "${BENCH:-}" ]; then
    (cd /tmp && timeout "${BENCH_TIMEOUT:-180}" python3 "$root/benchmarks/bench_cuda.py" $BENCH 2>&1 | tee "$out/bench.log")
  fi
  if [ -n "${AFTER:-}" ]; then  # more figures: a command run in the checkout, its output in after.log
    timeout "${AFTER_TIMEOUT:-120}" bash -c "$AFTER" 2>&1 | tee "$out/after.log" | tail -40
  fi
  summarize
  exit "$status"
fi
# Every test file with CUDA cases: the CUDA files whole, the others' CUDA cases by name.
start=$(date +%s)
"${pytest[@]}" --junitxml="$out/junit-1.xml" tests/test_cuda*.py tests/test_cudnn.py 2>&1 | tee "$out/tests.log" | grep -E "^(FAILED|ERROR)|passed|failed" | tail -60
"${pytest[@]}" --junitxml="$out/junit-2.xml" -k "cuda or CUDA" tests/test_backends.py tests/test_conv.py tests/test_core_aten_backward.py \
  tests/test_grid_sample.py tests/test_norm.py tests/test_padding.py tests/test_pool.py tests/test_profiler.py \
  tests/test_upsample.py tests/test_random.py tests/test_tensor.py tests/test_dispatch.py tests/test_library.py \
  tests/test_coverage.py tests/test_fuzz.py tests/test_extensions.py tests/test_foreach.py tests/test_autocast.py \
  tests/test_optim.py tests/test_distributed.py tests/test_attention.py tests/test_array_api.py 2>&1 \
  | tee -a "$out/tests.log" \
  | grep -E "^(FAILED|ERROR)|passed|failed" | tail -40
echo "tests: $(( $(date +%s) - start )) s"
(timeout 60 python3 examples/mlp.py --device cuda --steps 100 && timeout 60 python3 examples/cnn.py --device cuda \
  --steps 10 --compare-torch) > "$out/examples.log" 2>&1; tail -8 "$out/examples.log"
cd /tmp && timeout 180 python3 "$root/benchmarks/bench_cuda.py" 2>&1 | tee "$out/bench.log"
summarize
