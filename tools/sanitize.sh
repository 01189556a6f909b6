#!/usr/bin/env bash
# Builds yaten under a sanitizer and runs the tests and the op fuzzer against that build (the reliability issue).
#
#   tools/sanitize.sh                      AddressSanitizer + UndefinedBehaviorSanitizer: the test suite, then the
#                                          fuzzer (YATEN_FUZZ_CALLS calls, 20,000 by default) and its hostile
#                                          classes (YATEN_FUZZ_HOSTILE_CALLS, 6,000)
#   tools/sanitize.sh tests/test_views.py  the same, with these pytest arguments instead of the whole suite
#   SANITIZE=thread tools/sanitize.sh      ThreadSanitizer, on the threaded tests (the thread pool's parallel
#                                          kernels, registrations racing calls, the profiler's threads) unless given
#                                          pytest arguments
#
# The build is CPU only (-DYATEN_CUDA=OFF) at -O1, in build/sanitize-<kind>, and is staged with the Python sources
# in build/sanitize-<kind>/stage, which a virtual environment imports (see below). The sanitizer runtime is
# preloaded into the (uninstrumented) interpreter. Leak detection is off: CPython frees little at exit by design
# (tests/test_leaks.py measures leaks instead). The first sanitizer report fails the run.
set -euo pipefail
cd "$(dirname "$0")/.."

kind=${SANITIZE:-address}
case "$kind" in
  address) flags="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-sanitize=vptr"
           runtime=libasan.so ;;
  thread)  flags="-fsanitize=thread"; runtime=libtsan.so ;;
  *) echo "SANITIZE must be address or thread, not '$kind'" >&2; exit 2 ;;
esac
build=build/sanitize-$kind
stage=$build/stage
python=${PYTHON:-python3}
cxx=${CXX:-g++}

site=$("$python" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")
pybind11_dir=$("$python" -c "import pybind11; print(pybind11.get_cmake_dir())")
cmake -S . -B "$build" -G Ninja -DYATEN_CUDA=OFF -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_COMPILER="$cxx" \
  -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g1 -fno-omit-frame-pointer $flags" \
  -DCMAKE_SHARED_LINKER_FLAGS="$flags" -DCMAKE_MODULE_LINKER_FLAGS="$flags" \
  -DPython_EXECUTABLE="$(command -v "$python")" -Dpybind11_DIR="$pybind11_dir" > "$build.configure.log"
cmake --build "$build"
rm -rf "$stage"
cmake --install "$build" --prefix "$stage" > /dev/null
cp -r python/yaten/. "$stage/yaten/"   # the wheel's layout (pyproject.toml: wheel.packages)
cp -r codegen "$stage/yaten/codegen"

# A virtual environment without the system's site-packages: its interpreter (which the tests' child processes run
# too, as sys.executable) does not process the .pth file of the editable install, whose import hook would load the
# normal build. The site-packages directory is on PYTHONPATH behind the stage, for the test dependencies.
[ -x "$build/venv/bin/python" ] || "$python" -m venv --without-pip "$build/venv"
python=$build/venv/bin/python
# libstdc++ is preloaded beside the sanitizer runtime: its __cxa_throw interceptor needs it at start-up (the
# interpreter does not link it), or the first C++ exception aborts.
preload="$("$cxx" -print-file-name="$runtime") $("$cxx" -print-file-name=libstdc++.so)"
export PYTHONPATH="$PWD/$stage:$site" LD_PRELOAD="$preload"
# allocator_may_return_null and max_allocation_size_mb: a huge allocation is yaten's out-of-memory error, as the
# fuzzer's memory limit makes it without a sanitizer (which reserves too much address space for that limit)
# Reports go to files as well as to stderr (which pytest captures): build/sanitize-<kind>/report.<pid>, printed
# at the end.
reports=$PWD/$build/report
rm -f "$reports".*
trap 'for f in "$reports".*; do [ -e "$f" ] && { echo "== $f"; cat "$f"; }; done' EXIT
export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:halt_on_error=1:allocator_may_return_null=1"
ASAN_OPTIONS+=":max_allocation_size_mb=3072:log_path=$reports"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:log_path=$reports"
export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:report_signal_unsafe=0:log_path=$reports"
# The interpreter and the suite check that they run the sanitized build, not the installed one.
"$python" -c "import yaten; assert yaten._C.__file__.startswith('$PWD/$stage'), yaten._C.__file__"

if [ "$kind" = thread ]; then
  tests=("$@")
  [ ${#tests[@]} -gt 0 ] || tests=(tests/test_reliability.py tests/test_library.py tests/test_reductions.py
                                    tests/test_random.py tests/test_shape_ops.py tests/test_sorting.py
                                    tests/test_profiler.py -k "thread or race or parallel")
  "$python" -m pytest -q -p no:cacheprovider "${tests[@]}"
  exit
fi
if [ $# -gt 0 ]; then
  "$python" -m pytest -q -p no:cacheprovider "$@"
else
  # The add-an-op and extension tests build other copies of the project, uninstrumented: they prove the workflow,
  # not memory safety, and would double the run. The fuzzer runs below, on its own, with its counts.
  "$python" -m pytest -q -p no:cacheprovider tests --ignore=tests/test_add_op.py --ignore=tests/test_extensions.py \
    --ignore=tests/test_fuzz.py
fi
"$python" tests/op_fuzzer.py --calls "${YATEN_FUZZ_CALLS:-20000}"
# the hostile classes (foreign memory, misbehaving objects, thread counts) drawn for most arguments
"$python" tests/op_fuzzer.py --calls "${YATEN_FUZZ_HOSTILE_CALLS:-6000}" --hostile 40
