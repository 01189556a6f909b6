// The one translation unit that compiles pocketfft (see pocketfft.h). pocketfft's own threads are off: a batch of
// transforms is split over yaten's threads (over_batch), with the GIL released, and its plan cache is on, as
// NumPy's is.
#define POCKETFFT_NO_MULTITHREADING
#define POCKETFFT_CACHE_SIZE 16
#include "pocketfft_hdronly.h"

#include <algorithm>
#include <complex>
#include <exception>
#include <new>

#include "core/error.h"
#include "core/gil.h"
#include "core/parallel.h"
#include "kernels/cpu/pocketfft.h"

namespace yaten::native::pocketfft_backend {

namespace {

::pocketfft::shape_t to_shape(const Dims& d) { return {d.begin(), d.end()}; }

::pocketfft::stride_t to_byte_strides(const Dims& strides, int64_t element_bytes) {
  ::pocketfft::stride_t out(strides.size());
  for (size_t i = 0; i < strides.size(); ++i) out[i] = static_cast<ptrdiff_t>(strides[i] * element_bytes);
  return out;
}

int64_t numel(const Dims& shape) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return n;
}

// pocketfft reports failures (memory, bad arguments) by exception; yaten's are RuntimeErrors naming the call.
template <typename Fn>
void guarded(const char* what, int64_t n, Fn&& fn) {
  detail::ScopedGilRelease nogil(n >= detail::kGilReleaseElements);
  try {
    fn();
  } catch (const std::bad_alloc&) {
    YATEN_FAIL(RuntimeError, what, ": out of memory in pocketfft");
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    YATEN_FAIL(RuntimeError, what, ": pocketfft failed: ", e.what());
  }
}

template <typename T>
void c2c_typed(const Dims& shape, const Dims& in_strides, const Dims& out_strides, const Dims& axes, bool forward,
               const void* in, void* out, double fct) {
  constexpr int64_t bytes = sizeof(std::complex<T>);
  ::pocketfft::c2c<T>(to_shape(shape), to_byte_strides(in_strides, bytes), to_byte_strides(out_strides, bytes),
                      to_shape(axes), forward, static_cast<const std::complex<T>*>(in),
                      static_cast<std::complex<T>*>(out), static_cast<T>(fct));
}

template <typename T>
void r2c_typed(const Dims& shape_in, const Dims& in_strides, const Dims& out_strides, const Dims& axes,
               const void* in, void* out, double fct) {
  ::pocketfft::r2c<T>(to_shape(shape_in), to_byte_strides(in_strides, sizeof(T)),
                      to_byte_strides(out_strides, sizeof(std::complex<T>)), to_shape(axes), /*forward=*/true,
                      static_cast<const T*>(in), static_cast<std::complex<T>*>(out), static_cast<T>(fct));
}

template <typename T>
void c2r_typed(const Dims& shape_out, const Dims& in_strides, const Dims& out_strides, const Dims& axes,
               const void* in, void* out, double fct) {
  ::pocketfft::c2r<T>(to_shape(shape_out), to_byte_strides(in_strides, sizeof(std::complex<T>)),
                      to_byte_strides(out_strides, sizeof(T)), to_shape(axes), /*forward=*/false,
                      static_cast<const std::complex<T>*>(in), static_cast<T*>(out), static_cast<T>(fct));
}

// Batches in parallel: pocketfft's own threads are off, so the transforms of a batch are split along the outermost
// dim that is not transformed (the same dim of input and output), a slice of it per yaten thread.
template <typename Fn>
void over_batch(const Dims& shape, const Dims& axes, const Dims& in_strides, const Dims& out_strides,
                int64_t in_bytes, int64_t out_bytes, const void* in, void* out, Fn&& transform) {
  int64_t split = -1;
  for (size_t d = 0; d < shape.size() && split < 0; ++d) {
    if (shape[d] > 1 && std::find(axes.begin(), axes.end(), static_cast<int64_t>(d)) == axes.end()) {
      split = static_cast<int64_t>(d);
    }
  }
  if (split < 0 || get_num_threads() == 1) return transform(shape, in, out);
  const int64_t per_index = numel(shape) / shape[split];
  parallel_for(shape[split], std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, per_index)),
               [&](int64_t begin, int64_t end) {
                 Dims part = shape;
                 part[split] = end - begin;
                 transform(part, static_cast<const char*>(in) + begin * in_strides[split] * in_bytes,
                           static_cast<char*>(out) + begin * out_strides[split] * out_bytes);
               });
}

// The float or double instantiation, by the data's real dtype, under guarded().
template <typename Fn>
void by_precision(const char* what, ScalarType real_dtype, int64_t n, Fn&& fn) {
  guarded(what, n, [&] {
    if (real_dtype == ScalarType::Double) {
      fn(double{});
    } else {
      fn(float{});
    }
  });
}

}  // namespace

void c2c(ScalarType real_dtype, const Dims& shape, const Dims& in_strides, const Dims& out_strides, const Dims& axes,
         bool forward, const void* in, void* out, double fct) {
  by_precision("_fft_c2c", real_dtype, numel(shape), [&](auto tag) {
    using T = decltype(tag);
    constexpr int64_t bytes = sizeof(std::complex<T>);
    over_batch(shape, axes, in_strides, out_strides, bytes, bytes, in, out, [&](const Dims& s, const void* i, void* o) {
      c2c_typed<T>(s, in_strides, out_strides, axes, forward, i, o, fct);
    });
  });
}

void r2c(ScalarType real_dtype, const Dims& shape_in, const Dims& in_strides, const Dims& out_strides,
         const Dims& axes, const void* in, void* out, double fct) {
  by_precision("_fft_r2c", real_dtype, numel(shape_in), [&](auto tag) {
    using T = decltype(tag);
    over_batch(shape_in, axes, in_strides, out_strides, sizeof(T), sizeof(std::complex<T>), in, out,
               [&](const Dims& s, const void* i, void* o) {
                 r2c_typed<T>(s, in_strides, out_strides, axes, i, o, fct);
               });
  });
}

void c2r(ScalarType real_dtype, const Dims& shape_out, const Dims& in_strides, const Dims& out_strides,
         const Dims& axes, const void* in, void* out, double fct) {
  by_precision("_fft_c2r", real_dtype, numel(shape_out), [&](auto tag) {
    using T = decltype(tag);
    over_batch(shape_out, axes, in_strides, out_strides, sizeof(std::complex<T>), sizeof(T), in, out,
               [&](const Dims& s, const void* i, void* o) {
                 c2r_typed<T>(s, in_strides, out_strides, axes, i, o, fct);
               });
  });
}

}  // namespace yaten::native::pocketfft_backend
