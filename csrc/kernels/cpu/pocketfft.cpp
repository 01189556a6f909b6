// The one translation unit that compiles pocketfft (see pocketfft.h). pocketfft's own threads are off: yaten's
// FFTs run on the calling thread, with the GIL released, and its plan cache is on, as NumPy's is.
#define POCKETFFT_NO_MULTITHREADING
#define POCKETFFT_CACHE_SIZE 16
#include "pocketfft_hdronly.h"

#include <complex>
#include <exception>
#include <new>

#include "core/error.h"
#include "core/gil.h"
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
    c2c_typed<decltype(tag)>(shape, in_strides, out_strides, axes, forward, in, out, fct);
  });
}

void r2c(ScalarType real_dtype, const Dims& shape_in, const Dims& in_strides, const Dims& out_strides,
         const Dims& axes, const void* in, void* out, double fct) {
  by_precision("_fft_r2c", real_dtype, numel(shape_in), [&](auto tag) {
    r2c_typed<decltype(tag)>(shape_in, in_strides, out_strides, axes, in, out, fct);
  });
}

void c2r(ScalarType real_dtype, const Dims& shape_out, const Dims& in_strides, const Dims& out_strides,
         const Dims& axes, const void* in, void* out, double fct) {
  by_precision("_fft_c2r", real_dtype, numel(shape_out), [&](auto tag) {
    c2r_typed<decltype(tag)>(shape_out, in_strides, out_strides, axes, in, out, fct);
  });
}

}  // namespace yaten::native::pocketfft_backend
