// parallel_for: splits a range over yaten's worker threads (Design rule [Measured facts]).
//
// The pool holds get_num_threads() - 1 workers; the calling thread takes a share too. Workers sleep on a condition
// variable between jobs, so an idle yaten costs nothing and does not fight the BLAS or the user's own threads; just
// after a job they poll for 40 µs first (waking a sleeper costs about as much as a small op's chunk). A parallel_for
// inside a worker runs serially. The first exception thrown by any chunk is rethrown on the caller once every chunk
// has finished, so kernels may use YATEN_CHECK inside their loops.
#pragma once

#include <cstdint>
#include <type_traits>
#include <utility>

namespace yaten {

// The number of threads parallel_for uses (the caller included). Starts at YATEN_NUM_THREADS, OMP_NUM_THREADS,
// or the number of cores available to the process, in that order.
int get_num_threads();
// Sets it (ValueError when n < 1); resizes the pool.
void set_num_threads(int n);

// torch.set_flush_denormal: subnormal floats read and written as zero (the SSE control bits FTZ and DAZ), on the
// calling thread and on the pool's threads before their next job. False where the CPU has no such mode (then
// nothing changes).
bool set_flush_denormal(bool on);
// set_num_threads's upper bound: more threads than this only contend (ValueError beyond it).
constexpr int kMaxThreads = 1024;
// True while running inside a parallel_for chunk.
bool in_parallel_region();
// Whether `units` independent pieces of work (images, matrices) share out over the threads well enough for each
// thread to take whole ones: they divide evenly, or there are at least four per thread. Kernels that could instead
// split every piece over the threads (a product, Note [One pool for the BLAS]) choose between the two with it.
inline bool shares_out_evenly(int64_t units) {
  const int64_t threads = get_num_threads();
  return units % threads == 0 || units >= 4 * threads;
}

namespace detail {
using RangeFn = void (*)(void* ctx, int64_t begin, int64_t end);
void parallel_run(int64_t n, int64_t grain, RangeFn fn, void* ctx);
}  // namespace detail

// Calls f(begin, end) over disjoint pieces of [0, n), each (but the last) at least `grain` long, on up to
// get_num_threads() threads. Below 2 * grain, or with one thread, it is one call on the caller.
template <typename F>
void parallel_for(int64_t n, int64_t grain, F&& f) {
  if (n <= 0) return;
  if (n < 2 * grain || in_parallel_region() || get_num_threads() == 1) {
    f(int64_t(0), n);
    return;
  }
  using Fn = std::remove_reference_t<F>;
  detail::parallel_run(n, grain, [](void* ctx, int64_t b, int64_t e) { (*static_cast<Fn*>(ctx))(b, e); },
                       const_cast<void*>(static_cast<const void*>(&f)));
}

// Elements of cheap pointwise work per chunk: ~30 µs, well above the cost of waking a worker.
constexpr int64_t kGrainSize = 32768;
// Bytes per chunk of a contiguous copy or fill (memcpy, std::fill): from twice this, the threads share it.
constexpr int64_t kParallelCopyBytes = int64_t(256) << 10;

}  // namespace yaten
