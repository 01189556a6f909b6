#!/usr/bin/env bash
# Builds yaten under a sanitizer and runs the tests and the op fuzzer against that build (the reliability issue).
#
#   tools/sanitize.sh                      AddressSanitizer + UndefinedBehaviorSanitizer: the test suite, then the
#                                          fuzzer (YATEN_FUZZ_CALLS calls, 20,000 by default)
#   tools/sanitize.sh tests/test_views.py  the same, with these pytest arguments instead of the whole suite
#   SANITIZE=thread tools/sanitize.sh      ThreadSanitizer, on the threaded tests (the thread pool, the GIL-free
#                                          dispatcher race, DataLoader-style sharing) unless given pytest arguments
#
# The build is CPU only (-DYATEN_CUDA=OFF) at -O1, in build/sanitize-<kind>, and is staged with the Python sources
# in build/sanitize-<kind>/stage. Python runs with -S so that the editable install's import hook (which would load
# the normal build) is not installed; the site-packages directory is put on PYTHONPATH behind the stage instead.
# The sanitizer runtime is preloaded into the (uninstrumented) interpreter. Leak detection is off: CPython frees
# little at exit by design (tests/test_leaks.py measures leaks instead). The first sanitizer report fails the run.
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
cp -r python/yaten/. "$stage/yaten/"

preload=$("$cxx" -print-file-name="$runtime")
export PYTHONPATH="$stage:$site" LD_PRELOAD="$preload"
# allocator_may_return_null: a huge allocation is yaten's out-of-memory error, as without the sanitizer
export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:halt_on_error=1:allocator_may_return_null=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:report_signal_unsafe=0"
# The interpreter and the suite check that they run the sanitized build, not the installed one.
"$python" -S -c "import yaten, sys; assert yaten._C.__file__.startswith('$PWD/$stage'), yaten._C.__file__"

if [ "$kind" = thread ]; then
  tests=("$@")
  [ ${#tests[@]} -gt 0 ] || tests=(tests/test_reliability.py tests/test_backends.py -k "thread or race or parallel")
  "$python" -S -m pytest -q -p no:cacheprovider "${tests[@]}"
  exit
fi
if [ $# -gt 0 ]; then
  "$python" -S -m pytest -q -p no:cacheprovider "$@"
else
  # The add-an-op and extension tests build other copies of the project, uninstrumented: they prove the workflow,
  # not memory safety, and would double the run.
  "$python" -S -m pytest -q -p no:cacheprovider tests --ignore=tests/test_add_op.py --ignore=tests/test_extensions.py
fi
"$python" -S tests/op_fuzzer.py --calls "${YATEN_FUZZ_CALLS:-20000}" --memory-limit 0
