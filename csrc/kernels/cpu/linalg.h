// CPU matrix products: mm and bmm. float32/float64/complex64/complex128 go to the BLAS (core/blas.h) with each operand passed as it is
// laid out (row-major or transposed) when one of its strides is 1, else as a contiguous copy (the checks and that
// choice are shared with CUDA in kernels/linalg_support.h); the other dtypes use an i-k-j loop through
// TensorAccessors that accumulates in opmath_t (float for float16/bfloat16).
#pragma once

#include <algorithm>
#include <type_traits>
#include <vector>

#include "core/blas.h"
#include "core/parallel.h"
#include "core/memory_format.h"
#include "core/tensor_accessor.h"
#include "iter/vec.h"
#include "kernels/linalg_support.h"
#include "yaten/ops/contiguous.h"
#include "yaten/ops/empty.h"
#include "yaten/ops/empty_strided.h"
#include "yaten/ops/select.h"
#include "yaten/ops/_to_copy.h"
#include "yaten/ops/zeros.h"

namespace yaten::native::cpu {

namespace linalg_detail {
using linalg::blas_operand;
using linalg::check_mm;
using linalg::Operand;

template <typename scalar_t>
constexpr bool kBlasType = std::is_same_v<scalar_t, float> || std::is_same_v<scalar_t, double> ||
                           is_complex_v<scalar_t>;

// out (n x m, contiguous) = x (n x k) @ y (k x m) on the BLAS, the operands as blas_operand describes them with
// their data at xd and yd (a matrix of a batch).
template <typename scalar_t>
void blas_gemm(const Operand& x, const void* xd, const Operand& y, const void* yd, int64_t n, int64_t m, int64_t k,
               scalar_t* out) {
  const auto ta = x.transposed ? blas::Trans : blas::NoTrans, tb = y.transposed ? blas::Trans : blas::NoTrans;
  if constexpr (std::is_same_v<scalar_t, Complex<float>>) {
    blas::cgemm(ta, tb, n, m, k, xd, x.ld, yd, y.ld, out, std::max<int64_t>(1, m));
  } else if constexpr (std::is_same_v<scalar_t, Complex<double>>) {
    blas::zgemm(ta, tb, n, m, k, xd, x.ld, yd, y.ld, out, std::max<int64_t>(1, m));
  } else if constexpr (std::is_same_v<scalar_t, float>) {
    blas::sgemm(ta, tb, n, m, k, 1.0f, static_cast<const float*>(xd), x.ld, static_cast<const float*>(yd), y.ld, 0.0f,
                out, std::max<int64_t>(1, m));
  } else {
    blas::dgemm(ta, tb, n, m, k, 1.0, static_cast<const double*>(xd), x.ld, static_cast<const double*>(yd), y.ld, 0.0,
                out, std::max<int64_t>(1, m));
  }
}

// out (n x m, contiguous) = a (n x k) @ b (k x m).
template <typename scalar_t>
void gemm(const Tensor& a, const Tensor& b, scalar_t* out) {
  const int64_t n = a.sizes()[0], k = a.sizes()[1], m = b.sizes()[1];
  if (n == 0 || m == 0) return;
  if (k == 0) {
    std::fill(out, out + n * m, scalar_t(0));
    return;
  }
  if constexpr (kBlasType<scalar_t>) {
    const Operand x = blas_operand(a), y = blas_operand(b);
    blas_gemm<scalar_t>(x, x.data, y, y.data, n, m, k, out);
  } else {
    // i-k-j order through accessors (any strides, no copies), accumulating a row of out in opmath_t.
    using acc_t = opmath_t<scalar_t>;
    const auto A = accessor<const scalar_t, 2>(a);
    const auto B = accessor<const scalar_t, 2>(b);
    parallel_for(n, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, k * m)), [&](int64_t i0, int64_t i1) {
      std::vector<acc_t> row(m);
      for (int64_t i = i0; i < i1; ++i) {
        std::fill(row.begin(), row.end(), acc_t(0));
        const auto a_row = A[i];
        for (int64_t p = 0; p < k; ++p) {
          const acc_t av = static_cast<acc_t>(a_row[p]);
          const auto b_row = B[p];
          for (int64_t j = 0; j < m; ++j) row[j] += av * static_cast<acc_t>(b_row[j]);
        }
        for (int64_t j = 0; j < m; ++j) out[i * m + j] = static_cast<scalar_t>(row[j]);
      }
    });
  }
}

}  // namespace linalg_detail

namespace linalg_detail {
// float16 and bfloat16 products as torch's CPU computes them: in float32 (the operands widened, one sgemm, the
// result rounded once), where the i-k-j loop took 9.8x torch's time for a bfloat16 matmul. A dense operand (contiguous
// or transposed, what products mostly get) is widened as the block of memory it is, keeping its strides, by the
// kernel itself: through _to_copy, each product showed two casts more to the profiler (and to autocast's count).
template <typename scalar_t>
Tensor widened(const Tensor& t) {
  if (!non_overlapping_and_dense(t)) return yaten::_to_copy(t, ScalarType::Float, std::nullopt);
  Tensor out = yaten::empty_strided(t.sizes(), t.strides(), ScalarType::Float, t.device());
  vec::widen_row(t.data<scalar_t>(), out.data<float>(), t.numel());
  return out;
}
template <typename scalar_t>
Tensor narrowed(const Tensor& t) {  // t contiguous float: a product's result, rounded once
  Tensor out = yaten::empty(t.sizes(), scalar_type_of<scalar_t>, t.device());
  vec::narrow_row(t.data<float>(), out.data<scalar_t>(), t.numel());
  return out;
}
}  // namespace linalg_detail

template <typename scalar_t>
Tensor mm_kernel(const Tensor& self, const Tensor& mat2) {
  linalg_detail::check_mm("mm", self, mat2, 2);
  if constexpr (vec::kSixteenBit<scalar_t>) {
    return linalg_detail::narrowed<scalar_t>(
        mm_kernel<float>(linalg_detail::widened<scalar_t>(self), linalg_detail::widened<scalar_t>(mat2)));
  }
  Tensor out = yaten::empty({self.sizes()[0], mat2.sizes()[1]}, self.dtype(), self.device());
  yaten::detail::ScopedGilRelease release_gil(true);
  linalg_detail::gemm<scalar_t>(self, mat2, out.data<scalar_t>());
  return out;
}

// _addmm_bias: the bias copied into every row of the result, then the BLAS adds mat1 @ mat2 onto it (beta = 1).
template <typename scalar_t>
Tensor _addmm_bias_kernel(const Tensor& bias, const Tensor& mat1, const Tensor& mat2) {
  linalg_detail::check_mm("_addmm_bias", mat1, mat2, 2);
  const int64_t n = mat1.sizes()[0], k = mat1.sizes()[1], m = mat2.sizes()[1];
  YATEN_CHECK(bias.dim() == 1 && bias.sizes()[0] == m && bias.dtype() == mat1.dtype() &&
                  bias.device() == mat1.device(),
              RuntimeError, "_addmm_bias: expected a 1-D bias of ", m, " elements of the matrices' dtype and device");
  Tensor out = yaten::empty({n, m}, mat1.dtype(), mat1.device());
  if (n == 0 || m == 0) return out;
  const Tensor b = yaten::contiguous(bias);
  scalar_t* o = out.data<scalar_t>();
  const scalar_t* bd = b.data<scalar_t>();
  yaten::detail::ScopedGilRelease release_gil(true);
  parallel_for(n, std::max<int64_t>(1, kGrainSize / m), [&](int64_t i0, int64_t i1) {
    for (int64_t i = i0; i < i1; ++i) std::copy(bd, bd + m, o + i * m);
  });
  if (k == 0) return out;
  const linalg_detail::Operand x = linalg_detail::blas_operand(mat1), y = linalg_detail::blas_operand(mat2);
  const auto ta = x.transposed ? blas::Trans : blas::NoTrans, tb = y.transposed ? blas::Trans : blas::NoTrans;
  if constexpr (std::is_same_v<scalar_t, float>) {
    blas::sgemm(ta, tb, n, m, k, 1.0f, static_cast<const float*>(x.data), x.ld, static_cast<const float*>(y.data),
                y.ld, 1.0f, o, m);
  } else {
    static_assert(std::is_same_v<scalar_t, double>, "_addmm_bias is declared for float32 and float64");
    blas::dgemm(ta, tb, n, m, k, 1.0, static_cast<const double*>(x.data), x.ld, static_cast<const double*>(y.data),
                y.ld, 1.0, o, m);
  }
  return out;
}

template <typename scalar_t>
Tensor bmm_kernel(const Tensor& self, const Tensor& mat2) {
  linalg_detail::check_mm("bmm", self, mat2, 3);
  if constexpr (vec::kSixteenBit<scalar_t>) {
    return linalg_detail::narrowed<scalar_t>(
        bmm_kernel<float>(linalg_detail::widened<scalar_t>(self), linalg_detail::widened<scalar_t>(mat2)));
  }
  const int64_t batch = self.sizes()[0], n = self.sizes()[1], k = self.sizes()[2], m = mat2.sizes()[2];
  Tensor out = yaten::empty({batch, n, m}, self.dtype(), self.device());
  scalar_t* o = out.data<scalar_t>();
  yaten::detail::ScopedGilRelease release_gil(true);
  if constexpr (linalg_detail::kBlasType<scalar_t>) {
    if (n * m == 0) return out;
    if (k == 0) {
      std::fill(o, o + batch * n * m, scalar_t(0));
      return out;
    }
    const linalg::Operand x = linalg::blas_operand(self), y = linalg::blas_operand(mat2);
    const int64_t size = static_cast<int64_t>(sizeof(scalar_t));
    const auto* xd = static_cast<const char*>(x.data);
    const auto* yd = static_cast<const char*>(y.data);
    const auto product = [&](int64_t i) {
      linalg_detail::blas_gemm<scalar_t>(x, xd + i * x.batch_stride * size, y, yd + i * y.batch_stride * size, n, m, k,
                                         o + i * n * m);
    };
    // The matrices shared out over the threads, each product single-threaded, when they share out evenly (or
    // nearly); otherwise one at a time, each split over the threads (Note [One pool for the BLAS]). Small products
    // are grouped so that a thread's share is worth waking it for.
    if (shares_out_evenly(batch)) {
      parallel_for(batch, std::max<int64_t>(1, blas::kParallelWork / (n * m * k)), [&](int64_t b0, int64_t b1) {
        for (int64_t i = b0; i < b1; ++i) product(i);
      });
    } else {
      for (int64_t i = 0; i < batch; ++i) product(i);
    }
    return out;
  }
  for (int64_t i = 0; i < batch; ++i) {
    linalg_detail::gemm<scalar_t>(yaten::select(self, 0, i), yaten::select(mat2, 0, i), o + i * n * m);
  }
  return out;
}

}  // namespace yaten::native::cpu
