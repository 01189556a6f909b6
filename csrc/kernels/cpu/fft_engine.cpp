// yaten's own CPU FFT (kernels/cpu/fft_engine.h): mixed-radix Cooley-Tukey over the factors 4, 2, 3 and small odd
// primes, Bluestein's chirp-z for lengths with a prime factor above kMaxDirectPrime, real transforms through the
// complex one, and any number of axes over any strides. Each 1-D line is gathered into a contiguous buffer,
// transformed there and scattered out; the lines of a call are split over yaten's threads, with the GIL released.
//
// Note [FFT accuracy]
// ~~~~~~~~~~~~~~~~~~~
// The twiddles exp(-2 pi i j / n) are computed once per call in long double and rounded, never by recurrence, and
// Bluestein's chirp exp(-i pi k^2 / n) from k^2 mod 2n, so the error stays that of the butterflies' arithmetic:
// tests/test_fft.py compares every transform with NumPy's at the same tolerances as before.
#include "kernels/cpu/fft_engine.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <memory>
#include <mutex>
#include <new>
#include <vector>

#include "core/error.h"
#include "core/gil.h"
#include "core/parallel.h"

namespace yaten::native::fft_engine {

namespace {

// A prime factor above this is not a radix (its butterfly costs p operations per element): Bluestein instead.
constexpr int64_t kMaxDirectPrime = 37;

template <typename T>
using C = std::complex<T>;

int64_t numel(const Dims& shape) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return n;
}

// The radices of n, 4s first (kissfft's order), or an empty list when a prime factor is too large.
std::vector<int64_t> radices(int64_t n) {
  std::vector<int64_t> out;
  while (n % 4 == 0) {
    out.push_back(4);
    n /= 4;
  }
  if (n % 2 == 0) {
    out.push_back(2);
    n /= 2;
  }
  for (int64_t p = 3; p * p <= n; p += 2) {
    while (n % p == 0) {
      if (p > kMaxDirectPrime) return {};
      out.push_back(p);
      n /= p;
    }
  }
  if (n > kMaxDirectPrime) return {};
  if (n > 1) out.push_back(n);
  return out;
}

// The smallest 2^a 3^b 5^c at least n: Bluestein's convolution length.
int64_t smooth_length(int64_t n) {
  for (int64_t m = n;; ++m) {
    int64_t r = m;
    for (int64_t p : {2, 3, 5}) {
      while (r % p == 0) r /= p;
    }
    if (r == 1) return m;
  }
}

template <typename T>
std::vector<C<T>> unit_roots(int64_t n, int64_t count);

// A forward complex FFT of one length; backward transforms conjugate around it.
template <typename T>
class Plan {
 public:
  explicit Plan(int64_t n) : n_(n), factors_(radices(n)) {
    if (n <= 1) return;
    if (factors_.empty()) {
      make_bluestein();
      return;
    }
    twiddles_ = unit_roots<T>(n, n);
  }

  int64_t size() const { return n_; }
  // Scratch elements forward() needs beside its data.
  int64_t scratch_size() const { return sub_ ? 2 * sub_->size() + sub_->scratch_size() : n_; }

  // data[0..n) <- its DFT (sign -1); scratch holds scratch_size() elements.
  void forward(C<T>* data, C<T>* scratch) const {
    if (n_ <= 1) return;
    if (sub_) return bluestein(data, scratch);
    std::copy(data, data + n_, scratch);
    work(data, scratch, 1, 0, 1);
  }

 private:
  // out[0..p*m) <- the DFT of in[0], in[stride], ... (the length that the factors from `f` on multiply to).
  void work(C<T>* out, const C<T>* in, int64_t stride, size_t f, int64_t fstride) const {
    const int64_t p = factors_[f];
    const int64_t m = remaining(f + 1);
    if (m == 1) {
      for (int64_t k = 0; k < p; ++k) out[k] = in[k * stride];
    } else {
      for (int64_t q = 0; q < p; ++q) work(out + q * m, in + q * stride, stride * p, f + 1, fstride * p);
    }
    switch (p) {
      case 2: return butterfly2(out, fstride, m);
      case 3: return butterfly3(out, fstride, m);
      case 4: return butterfly4(out, fstride, m);
      default: return butterfly_generic(out, fstride, p, m);
    }
  }

  int64_t remaining(size_t f) const {
    int64_t m = 1;
    for (size_t i = f; i < factors_.size(); ++i) m *= factors_[i];
    return m;
  }

  void butterfly2(C<T>* F, int64_t fstride, int64_t m) const {
    for (int64_t k = 0; k < m; ++k) {
      const C<T> t = F[k + m] * twiddles_[k * fstride];
      F[k + m] = F[k] - t;
      F[k] += t;
    }
  }

  void butterfly3(C<T>* F, int64_t fstride, int64_t m) const {
    const T sin3 = twiddles_[fstride * m].imag();  // -sqrt(3)/2
    for (int64_t k = 0; k < m; ++k) {
      const C<T> s1 = F[k + m] * twiddles_[k * fstride];
      const C<T> s2 = F[k + 2 * m] * twiddles_[2 * k * fstride];
      const C<T> sum = s1 + s2;
      const C<T> diff = (s1 - s2) * sin3;
      const C<T> mid = F[k] - sum * T(0.5);
      F[k] += sum;
      F[k + m] = C<T>(mid.real() - diff.imag(), mid.imag() + diff.real());
      F[k + 2 * m] = C<T>(mid.real() + diff.imag(), mid.imag() - diff.real());
    }
  }

  void butterfly4(C<T>* F, int64_t fstride, int64_t m) const {
    for (int64_t k = 0; k < m; ++k) {
      const C<T> s0 = F[k + m] * twiddles_[k * fstride];
      const C<T> s1 = F[k + 2 * m] * twiddles_[2 * k * fstride];
      const C<T> s2 = F[k + 3 * m] * twiddles_[3 * k * fstride];
      const C<T> s5 = F[k] - s1;
      const C<T> s4 = s0 - s2;
      const C<T> s3 = s0 + s2;
      const C<T> f0 = F[k] + s1;
      F[k + 2 * m] = f0 - s3;
      F[k] = f0 + s3;
      F[k + m] = C<T>(s5.real() + s4.imag(), s5.imag() - s4.real());
      F[k + 3 * m] = C<T>(s5.real() - s4.imag(), s5.imag() + s4.real());
    }
  }

  // Any radix p: out[u + q1 m] = sum_q F[u + q m] w^(q (u + q1 m)), twiddles folded in (p operations each).
  void butterfly_generic(C<T>* F, int64_t fstride, int64_t p, int64_t m) const {
    C<T> scratch[kMaxDirectPrime];
    for (int64_t u = 0; u < m; ++u) {
      for (int64_t q = 0; q < p; ++q) scratch[q] = F[u + q * m];
      for (int64_t q1 = 0; q1 < p; ++q1) {
        const int64_t k = u + q1 * m;
        const int64_t step = fstride * k;  // < n
        int64_t index = 0;
        C<T> acc = scratch[0];
        for (int64_t q = 1; q < p; ++q) {
          index += step;
          if (index >= n_) index -= n_;
          acc += scratch[q] * twiddles_[index];
        }
        F[k] = acc;
      }
    }
  }

  // Bluestein: X_k = c_k sum_j (x_j c_j) conj(c_(k-j)) with c_k = exp(-i pi k^2 / n), a circular convolution of
  // a smooth length done by FFTs.
  void make_bluestein() {
    const int64_t m = smooth_length(2 * n_ - 1);
    sub_ = std::make_unique<Plan>(m);
    chirp_.resize(n_);
    const long double pi = 3.14159265358979323846264338327950288L;
    for (int64_t k = 0; k < n_; ++k) {
      const int64_t k2 = static_cast<int64_t>((static_cast<unsigned __int128>(k) * k) % (2 * n_));
      const long double angle = -pi * static_cast<long double>(k2) / static_cast<long double>(n_);
      chirp_[k] = C<T>(static_cast<T>(std::cos(angle)), static_cast<T>(std::sin(angle)));
    }
    kernel_.assign(m, C<T>(0));
    for (int64_t k = 0; k < n_; ++k) {
      kernel_[k] = std::conj(chirp_[k]);
      if (k > 0) kernel_[m - k] = kernel_[k];
    }
    std::vector<C<T>> scratch(sub_->scratch_size());
    sub_->forward(kernel_.data(), scratch.data());
    const T inv = T(1) / static_cast<T>(m);
    for (auto& v : kernel_) v *= inv;  // the inverse transform's 1/m, once
  }

  void bluestein(C<T>* data, C<T>* scratch) const {
    const int64_t m = sub_->size();
    C<T>* a = scratch;
    C<T>* rest = scratch + m;
    for (int64_t k = 0; k < n_; ++k) a[k] = data[k] * chirp_[k];
    std::fill(a + n_, a + m, C<T>(0));
    sub_->forward(a, rest);
    for (int64_t k = 0; k < m; ++k) a[k] = std::conj(a[k] * kernel_[k]);  // inverse FFT = conj(FFT(conj))
    sub_->forward(a, rest);
    for (int64_t k = 0; k < n_; ++k) data[k] = std::conj(a[k]) * chirp_[k];
  }

  int64_t n_;
  std::vector<int64_t> factors_;
  std::vector<C<T>> twiddles_;
  std::unique_ptr<Plan> sub_;
  std::vector<C<T>> chirp_, kernel_;
};

// Plans by length, a few of each kind and precision (as pocketfft's and NumPy's caches): a batch of calls of one
// length pays for its twiddles once.
template <typename P>
std::shared_ptr<const P> cached(int64_t n) {
  static std::mutex mutex;
  static std::vector<std::shared_ptr<const P>> cache;  // most recently used last
  constexpr size_t kCached = 16;
  {
    std::lock_guard<std::mutex> lock(mutex);
    for (size_t i = 0; i < cache.size(); ++i) {
      if (cache[i]->size() == n) {
        auto plan = cache[i];
        cache.erase(cache.begin() + static_cast<ptrdiff_t>(i));
        cache.push_back(plan);
        return plan;
      }
    }
  }
  auto plan = std::make_shared<const P>(n);
  std::lock_guard<std::mutex> lock(mutex);
  if (cache.size() == kCached) cache.erase(cache.begin());
  cache.push_back(plan);
  return plan;
}

template <typename T>
std::shared_ptr<const Plan<T>> plan_for(int64_t n) {
  return cached<Plan<T>>(n);
}

// exp(-2 pi i k / n) for k < count, rounded from long double (Note [FFT accuracy]).
template <typename T>
std::vector<C<T>> unit_roots(int64_t n, int64_t count) {
  std::vector<C<T>> out(count);
  const long double step = -2.0L * 3.14159265358979323846264338327950288L / static_cast<long double>(n);
  for (int64_t k = 0; k < count; ++k) {
    const long double angle = step * static_cast<long double>(k);
    out[k] = C<T>(static_cast<T>(std::cos(angle)), static_cast<T>(std::sin(angle)));
  }
  // the quarter turns exactly (1, -i, -1, i), so that no rounding of cos(pi/2) leaks into a real result
  const C<T> quarter[4] = {C<T>(1, 0), C<T>(0, -1), C<T>(-1, 0), C<T>(0, 1)};
  for (int64_t k = 0; k < count; ++k) {
    if ((4 * k) % n == 0) out[k] = quarter[(4 * k / n) % 4];
  }
  return out;
}

// The lines of `shape` along `axis`: for line i, the offsets (in elements) of its first element in two arrays.
struct Lines {
  Lines(const Dims& shape, int64_t axis, const Dims& a_strides, const Dims& b_strides) {
    for (size_t d = 0; d < shape.size(); ++d) {
      if (static_cast<int64_t>(d) == axis) continue;
      sizes.push_back(shape[d]);
      a.push_back(a_strides[d]);
      b.push_back(b_strides[d]);
    }
    count = numel(sizes);
  }
  void offsets(int64_t line, int64_t& a_offset, int64_t& b_offset) const {
    a_offset = b_offset = 0;
    for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d) {
      const int64_t i = line % sizes[d];
      line /= sizes[d];
      a_offset += i * a[d];
      b_offset += i * b[d];
    }
  }
  Dims sizes, a, b;
  int64_t count = 0;
};

// fn(first_line, end_line) over the lines, split over yaten's threads (about kGrainSize elements a chunk).
template <typename Fn>
void over_lines(int64_t lines, int64_t length, Fn&& fn) {
  parallel_for(lines, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, length)), fn);
}

// One complex axis: out's line <- the DFT of in's line (forward or backward), times fct. in may be out.
template <typename T>
void c2c_axis(const Dims& shape, int64_t axis, const C<T>* in, const Dims& in_strides, C<T>* out,
              const Dims& out_strides, bool forward, T fct) {
  const int64_t n = shape[axis];
  const auto plan = plan_for<T>(n);
  const Lines lines(shape, axis, in_strides, out_strides);
  const int64_t si = in_strides[axis], so = out_strides[axis];
  over_lines(lines.count, n, [&](int64_t begin, int64_t end) {
    std::vector<C<T>> buffer(n + plan->scratch_size());
    C<T>* line = buffer.data();
    for (int64_t l = begin; l < end; ++l) {
      int64_t oi, oo;
      lines.offsets(l, oi, oo);
      for (int64_t k = 0; k < n; ++k) line[k] = forward ? in[oi + k * si] : std::conj(in[oi + k * si]);
      plan->forward(line, line + n);
      for (int64_t k = 0; k < n; ++k) out[oo + k * so] = (forward ? line[k] : std::conj(line[k])) * fct;
    }
  });
}

// Note [Real FFTs by half-length complex ones]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// A real line of even length n = 2h is h complex numbers z_j = x_2j + i x_2j+1; with Z = DFT_h(z), the even and
// odd samples' transforms are E_k = (Z_k + conj(Z_h-k)) / 2 and O_k = (Z_k - conj(Z_h-k)) / 2i, and
// X_k = E_k + w^k O_k (w = exp(-2 pi i / n)) for k = 0..h. The inverse runs the same steps backwards. Odd lengths
// transform the line as complex numbers.
template <typename T>
struct RealPlan {
  explicit RealPlan(int64_t n)
      : n(n), even(n % 2 == 0 && n > 0), half(plan_for<T>(even ? n / 2 : n)),
        roots(even ? unit_roots<T>(n, n / 2 + 1) : std::vector<C<T>>{}) {}
  int64_t size() const { return n; }
  int64_t buffer_size() const { return half->size() + 1 + half->scratch_size(); }
  int64_t n;
  bool even;
  std::shared_ptr<const Plan<T>> half;
  std::vector<C<T>> roots;
};

// The last axis, real -> one-sided complex.
template <typename T>
void r2c_axis(const Dims& shape, int64_t axis, const T* in, const Dims& in_strides, C<T>* out,
              const Dims& out_strides, T fct) {
  const int64_t n = shape[axis], onesided = n / 2 + 1;
  const auto held = cached<RealPlan<T>>(n);  // held for the call: the cache may drop it meanwhile
  const RealPlan<T>& plan = *held;
  const Lines lines(shape, axis, in_strides, out_strides);
  const int64_t si = in_strides[axis], so = out_strides[axis];
  over_lines(lines.count, n, [&](int64_t begin, int64_t end) {
    std::vector<C<T>> buffer(plan.buffer_size());
    C<T>* line = buffer.data();
    const int64_t m = plan.half->size();
    C<T>* scratch = line + m + 1;
    for (int64_t l = begin; l < end; ++l) {
      int64_t oi, oo;
      lines.offsets(l, oi, oo);
      if (!plan.even) {
        for (int64_t k = 0; k < n; ++k) line[k] = C<T>(in[oi + k * si], T(0));
        plan.half->forward(line, scratch);
        for (int64_t k = 0; k < onesided; ++k) out[oo + k * so] = line[k] * fct;
        continue;
      }
      for (int64_t j = 0; j < m; ++j) line[j] = C<T>(in[oi + 2 * j * si], in[oi + (2 * j + 1) * si]);
      plan.half->forward(line, scratch);
      line[m] = line[0];
      // the zero and Nyquist terms are real: x_even sums plus and minus x_odd sums, with no rounding in between
      out[oo] = C<T>((line[0].real() + line[0].imag()) * fct, T(0));
      out[oo + m * so] = C<T>((line[0].real() - line[0].imag()) * fct, T(0));
      for (int64_t k = 1; k < m; ++k) {
        const C<T> z = line[k], zc = std::conj(line[m - k]);
        const C<T> e = (z + zc) * T(0.5);
        const C<T> o = (z - zc) * C<T>(T(0), T(-0.5));  // / 2i
        out[oo + k * so] = (e + plan.roots[k] * o) * fct;
      }
    }
  });
}

// The last axis, one-sided complex -> real (the imaginary parts of the zero and Nyquist terms drop out, as in
// pocketfft and cuFFT).
template <typename T>
void c2r_axis(const Dims& shape_out, int64_t axis, const C<T>* in, const Dims& in_strides, T* out,
              const Dims& out_strides, T fct) {
  const int64_t n = shape_out[axis], onesided = n / 2 + 1;
  const auto held = cached<RealPlan<T>>(n);  // held for the call: the cache may drop it meanwhile
  const RealPlan<T>& plan = *held;
  const Lines lines(shape_out, axis, in_strides, out_strides);
  const int64_t si = in_strides[axis], so = out_strides[axis];
  over_lines(lines.count, n, [&](int64_t begin, int64_t end) {
    std::vector<C<T>> buffer(plan.buffer_size());
    C<T>* line = buffer.data();
    const int64_t m = plan.half->size();
    C<T>* scratch = line + m + 1;
    for (int64_t l = begin; l < end; ++l) {
      int64_t oi, oo;
      lines.offsets(l, oi, oo);
      if (!plan.even) {  // the Hermitian spectrum completed, conjugated (a backward transform), its real part
        for (int64_t k = 0; k < onesided; ++k) line[k] = std::conj(in[oi + k * si]);
        for (int64_t k = onesided; k < n; ++k) line[k] = in[oi + (n - k) * si];
        plan.half->forward(line, scratch);
        for (int64_t k = 0; k < n; ++k) out[oo + k * so] = line[k].real() * fct;
        continue;
      }
      for (int64_t k = 0; k < m; ++k) {
        C<T> x = in[oi + k * si], xc = std::conj(in[oi + (m - k) * si]);
        if (k == 0) {  // only the real parts of the zero and Nyquist terms count
          x = C<T>(x.real(), T(0));
          xc = C<T>(xc.real(), T(0));
        }
        const C<T> e = x + xc;
        const C<T> o = (x - xc) * std::conj(plan.roots[k]);
        line[k] = std::conj(e + C<T>(-o.imag(), o.real()));  // conj(E + iO): the backward transform by conj
      }
      plan.half->forward(line, scratch);
      for (int64_t j = 0; j < m; ++j) {
        out[oo + 2 * j * so] = line[j].real() * fct;
        out[oo + (2 * j + 1) * so] = -line[j].imag() * fct;
      }
    }
  });
}

Dims contiguous(const Dims& shape) {
  Dims strides(shape.size(), 1);
  for (int64_t d = static_cast<int64_t>(shape.size()) - 2; d >= 0; --d) strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

// Failures (memory) are RuntimeErrors naming the call; the GIL is released for large inputs.
template <typename Fn>
void guarded(const char* what, ScalarType real_dtype, int64_t n, Fn&& fn) {
  detail::ScopedGilRelease nogil(n >= detail::kGilReleaseElements);
  try {
    if (real_dtype == ScalarType::Double) {
      fn(double{});
    } else {
      fn(float{});
    }
  } catch (const std::bad_alloc&) {
    YATEN_FAIL(RuntimeError, what, ": out of memory in the FFT");
  }
}

}  // namespace

void c2c(ScalarType real_dtype, const Dims& shape, const Dims& in_strides, const Dims& out_strides, const Dims& axes,
         bool forward, const void* in, void* out, double fct) {
  guarded("_fft_c2c", real_dtype, numel(shape), [&](auto tag) {
    using T = decltype(tag);
    const auto* src = static_cast<const C<T>*>(in);
    auto* dst = static_cast<C<T>*>(out);
    for (size_t i = 0; i < axes.size(); ++i) {  // the first axis reads the input, the others work in the output
      const T scale = i + 1 == axes.size() ? static_cast<T>(fct) : T(1);
      if (i == 0) {
        c2c_axis<T>(shape, axes[i], src, in_strides, dst, out_strides, forward, scale);
      } else {
        c2c_axis<T>(shape, axes[i], dst, out_strides, dst, out_strides, forward, scale);
      }
    }
  });
}

void r2c(ScalarType real_dtype, const Dims& shape_in, const Dims& in_strides, const Dims& out_strides,
         const Dims& axes, const void* in, void* out, double fct) {
  guarded("_fft_r2c", real_dtype, numel(shape_in), [&](auto tag) {
    using T = decltype(tag);
    auto* dst = static_cast<C<T>*>(out);
    Dims shape_out = shape_in;
    shape_out[axes.back()] = shape_in[axes.back()] / 2 + 1;
    r2c_axis<T>(shape_in, axes.back(), static_cast<const T*>(in), in_strides, dst, out_strides,
                axes.size() == 1 ? static_cast<T>(fct) : T(1));
    for (size_t i = 0; i + 1 < axes.size(); ++i) {
      c2c_axis<T>(shape_out, axes[i], dst, out_strides, dst, out_strides, /*forward=*/true,
                  i + 2 == axes.size() ? static_cast<T>(fct) : T(1));
    }
  });
}

void c2r(ScalarType real_dtype, const Dims& shape_out, const Dims& in_strides, const Dims& out_strides,
         const Dims& axes, const void* in, void* out, double fct) {
  guarded("_fft_c2r", real_dtype, numel(shape_out), [&](auto tag) {
    using T = decltype(tag);
    const auto* src = static_cast<const C<T>*>(in);
    Dims shape_in = shape_out;
    shape_in[axes.back()] = shape_out[axes.back()] / 2 + 1;
    Dims strides = in_strides;
    std::vector<C<T>> staged;
    if (axes.size() > 1) {  // the other axes first, into a copy (the input is read-only)
      strides = contiguous(shape_in);
      staged.resize(numel(shape_in));
      for (size_t i = 0; i + 1 < axes.size(); ++i) {
        if (i == 0) {
          c2c_axis<T>(shape_in, axes[i], src, in_strides, staged.data(), strides, /*forward=*/false, T(1));
        } else {
          c2c_axis<T>(shape_in, axes[i], staged.data(), strides, staged.data(), strides, false, T(1));
        }
      }
      src = staged.data();
    }
    c2r_axis<T>(shape_out, axes.back(), src, strides, static_cast<T*>(out), out_strides, static_cast<T>(fct));
  });
}

}  // namespace yaten::native::fft_engine
