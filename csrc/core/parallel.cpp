// The thread pool behind parallel_for. See parallel.h.
#include "core/parallel.h"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <system_error>
#include <new>
#include <thread>
#include <vector>

#include "core/error.h"

#if defined(__SSE__)
#include <xmmintrin.h>
#endif

namespace yaten {
namespace {

thread_local bool t_in_region = false;

// set_flush_denormal's mode (-1: never set: the threads keep what they started with), and the mode a thread applied
std::atomic<int> g_flush_denormal{-1};
thread_local int t_flush_denormal = -1;

void apply_flush_denormal() {
#if defined(__SSE__)
  const int mode = g_flush_denormal.load(std::memory_order_relaxed);
  if (mode == t_flush_denormal || mode < 0) return;
  constexpr unsigned kFtzDaz = 0x8040;  // MXCSR: flush to zero (bit 15), denormals are zero (bit 6)
  const unsigned csr = _mm_getcsr();
  _mm_setcsr(mode ? (csr | kFtzDaz) : (csr & ~kFtzDaz));
  t_flush_denormal = mode;
#endif
}

// Waking a thread blocked on a condition variable costs ~10 µs here, as much as a whole chunk of a small op; so a
// worker that just finished a job, and a caller waiting for the last chunks, first poll for a short while. The
// poll is bounded in time: an idle yaten still sleeps, and a busy one spends at most this long per job spinning.
constexpr auto kSpin = std::chrono::microseconds(40);

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

template <typename Ready>
bool spin_until(Ready ready) {
  const auto until = std::chrono::steady_clock::now() + kSpin;
  for (int i = 0;; ++i) {
    if (ready()) return true;
    for (int k = 0; k < 16; ++k) cpu_relax();
    if ((i & 15) == 15 && std::chrono::steady_clock::now() > until) return ready();
  }
}

int default_threads() {
  for (const char* var : {"YATEN_NUM_THREADS", "OMP_NUM_THREADS"}) {
    if (const char* v = std::getenv(var)) {
      const int n = std::atoi(v);
      if (n > 0) return n;
    }
  }
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) return std::max(1, CPU_COUNT(&set));
  return std::max(1u, std::thread::hardware_concurrency());
}

struct Job {
  detail::RangeFn fn;
  void* ctx;
  int64_t n, chunk, nchunks;
  std::atomic<int64_t> next{0};
  std::atomic<int64_t> done{0};
  std::mutex error_mu;
  std::exception_ptr error;

  // Takes chunks until none are left.
  void work() {
    const bool was = t_in_region;
    t_in_region = true;
    for (int64_t c; (c = next.fetch_add(1)) < nchunks;) {
      const int64_t begin = c * chunk, end = std::min(n, begin + chunk);
      try {
        fn(ctx, begin, end);
      } catch (...) {
        std::lock_guard<std::mutex> g(error_mu);
        if (!error) error = std::current_exception();
      }
      done.fetch_add(1);
    }
    t_in_region = was;
  }
};

class Pool {
 public:
  static Pool& get() {
    static Pool* pool = [] {
      auto* p = new Pool();  // never destroyed: workers may outlive static destruction at exit
      pthread_atfork(nullptr, nullptr, [] { Pool::get().after_fork_in_child(); });
      return p;
    }();
    return *pool;
  }

  int threads() const { return threads_.load(std::memory_order_relaxed); }

  // Note [A pool made whole or not at all]: set_num_threads(n) starts its n - 1 workers at once, and when the
  // system refuses one (a limit on processes, or the address space for its stack under RLIMIT_AS), stops those it
  // started, keeps the previous count and raises, so no later op finds a pool half made. Workers have 2 MiB stacks
  // instead of the default 8 MiB (kernels keep little on the stack): 1000 threads reserve 2 GB of address space,
  // not 8. A pool restarted later (after a fork) takes the threads it can get.
  void resize(int n) {
    std::lock_guard<std::mutex> run(run_mu_);  // not while a job runs
    stop_workers();
    const int previous = threads_.load();
    threads_.store(n);
    if (n < 2) return;
    int error = 0;
    const int started = start_workers(n - 1, &error);
    if (started == n - 1) return;
    stop_workers();
    threads_.store(previous);
    YATEN_FAIL(RuntimeError, "set_num_threads(", n, "): the system refused to start thread ", started + 2, " of ", n,
               " (", std::system_category().message(error), "; a limit on processes, `ulimit -u`, or on memory, "
               "`ulimit -v`): yaten keeps ", previous, " thread", previous == 1 ? "" : "s");
  }

  void run(int64_t n, int64_t grain, detail::RangeFn fn, void* ctx) {
    // One job at a time; a second user thread arriving meanwhile runs its range itself.
    std::unique_lock<std::mutex> run(run_mu_, std::try_to_lock);
    const int64_t nthreads = threads();
    if (!run.owns_lock() || nthreads < 2) {
      fn(ctx, 0, n);
      return;
    }
    start_workers(static_cast<int>(nthreads) - 1);
    Job job;
    job.fn = fn;
    job.ctx = ctx;
    job.n = n;
    job.nchunks = std::max<int64_t>(1, std::min<int64_t>(nthreads, n / grain));
    job.chunk = (n + job.nchunks - 1) / job.nchunks;
    {
      std::lock_guard<std::mutex> g(mu_);
      job_ = &job;
      ++generation_;
    }
    work_cv_.notify_all();
    job.work();
    spin_until([&] { return job.done.load() == job.nchunks && users_.load() == 0; });
    {
      std::unique_lock<std::mutex> g(mu_);  // the last word under the lock: a late worker may still hold the job
      done_cv_.wait(g, [&] { return job.done.load() == job.nchunks && users_.load() == 0; });
      job_ = nullptr;
    }
    if (job.error) std::rethrow_exception(job.error);
  }

 private:
  Pool() : threads_(default_threads()) {}

  static constexpr size_t kWorkerStack = size_t{2} << 20;

  static void* worker_main(void* pool) {
    static_cast<Pool*>(pool)->worker_loop();
    return nullptr;
  }

  // Starts workers until there are `count`; returns how many run. With `error`, a refused thread stops there and
  // its errno lands in *error (resize decides); without, the pool runs with those that started (chunks are
  // claimed, so fewer workers only means more for each) and asks for no more than that from now on.
  int start_workers(int count, int* error = nullptr) {
    if (static_cast<int>(workers_->size()) == count) return count;
    stop_workers();
    stop_ = false;
    stop_flag_ = false;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, kWorkerStack);
    for (int i = 0; i < count; ++i) {
      pthread_t thread;
      const int rc = pthread_create(&thread, &attr, &Pool::worker_main, this);
      if (rc != 0) {
        if (error != nullptr) {
          *error = rc;
        } else {
          threads_.store(static_cast<int>(workers_->size()) + 1);
        }
        break;
      }
      workers_->push_back(thread);
    }
    pthread_attr_destroy(&attr);
    return static_cast<int>(workers_->size());
  }

  void stop_workers() {
    {
      std::lock_guard<std::mutex> g(mu_);
      stop_ = true;
      stop_flag_ = true;
    }
    work_cv_.notify_all();
    for (pthread_t t : *workers_) pthread_join(t, nullptr);
    workers_->clear();
  }

  void worker_loop() {
    uint64_t seen = 0;
    {
      std::lock_guard<std::mutex> g(mu_);
      seen = generation_;
    }
    for (;;) {
      Job* job = nullptr;
      spin_until([&] { return generation_.load(std::memory_order_acquire) != seen || stop_flag_.load(); });
      {
        std::unique_lock<std::mutex> g(mu_);
        work_cv_.wait(g, [&] { return stop_ || generation_ != seen; });
        if (stop_) return;
        seen = generation_;
        job = job_;
        if (job == nullptr) continue;
        ++users_;
      }
      apply_flush_denormal();
      job->work();
      {
        std::lock_guard<std::mutex> g(mu_);
        --users_;
      }
      done_cv_.notify_all();
    }
  }

  // The child of a fork has none of the parent's threads: forget them (without joining) and start afresh.
  void after_fork_in_child() {
    workers_ = new std::vector<pthread_t>();  // the old vector's threads do not exist here; leak it
    new (&mu_) std::mutex();
    new (&run_mu_) std::mutex();
    new (&work_cv_) std::condition_variable();
    new (&done_cv_) std::condition_variable();
    job_ = nullptr;
    users_ = 0;
    stop_ = false;
    stop_flag_ = false;
  }

  std::atomic<int> threads_;
  std::mutex run_mu_;
  std::mutex mu_;
  std::condition_variable work_cv_, done_cv_;
  std::vector<pthread_t>* workers_ = new std::vector<pthread_t>();
  Job* job_ = nullptr;
  std::atomic<uint64_t> generation_{0};  // changed under mu_; read without it while spinning
  std::atomic<int> users_{0};
  bool stop_ = false;
  std::atomic<bool> stop_flag_{false};
};

}  // namespace

int get_num_threads() { return Pool::get().threads(); }

void set_num_threads(int n) {
  YATEN_CHECK(n >= 1, ValueError, "set_num_threads: expected a positive number of threads, but got ", n);
  YATEN_CHECK(n <= kMaxThreads, ValueError, "set_num_threads: at most ", kMaxThreads, " threads, but got ", n);
  Pool::get().resize(n);
}

bool in_parallel_region() { return t_in_region; }

bool set_flush_denormal(bool on) {
#if defined(__SSE__)
  g_flush_denormal.store(on ? 1 : 0, std::memory_order_relaxed);
  apply_flush_denormal();  // this thread now; the workers before their next job
  return true;
#else
  (void)on;
  return false;
#endif
}

namespace detail {
void parallel_run(int64_t n, int64_t grain, RangeFn fn, void* ctx) { Pool::get().run(n, grain, fn, ctx); }
}  // namespace detail

}  // namespace yaten
