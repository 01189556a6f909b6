// TensorAccessor<T, N>: indexed access to an N-D tensor's elements through its strides, for kernels whose access
// pattern is not elementwise (matrix products, gathers, scans): `auto a = accessor<float, 2>(t); a[i][j] = 0;`.
// It holds raw pointers into the tensor's metadata, so the tensor must outlive it. Indexing costs one multiply-add
// per dim and is not bounds-checked (the kernel checks shapes once, up front).
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "core/tensor.h"

namespace yaten {

template <typename T, size_t N>
class TensorAccessor {
  static_assert(N > 0, "TensorAccessor needs at least one dim");

 public:
  TensorAccessor(T* data, const int64_t* sizes, const int64_t* strides)
      : data_(data), sizes_(sizes), strides_(strides) {}

  int64_t size(size_t d) const { return sizes_[d]; }
  int64_t stride(size_t d) const { return strides_[d]; }
  T* data() const { return data_; }

  // An element (N == 1) or the (N-1)-D accessor of slice `i` along the first dim.
  decltype(auto) operator[](int64_t i) const {
    if constexpr (N == 1) {
      return static_cast<T&>(data_[i * strides_[0]]);
    } else {
      return TensorAccessor<T, N - 1>(data_ + i * strides_[0], sizes_ + 1, strides_ + 1);
    }
  }

 private:
  T* data_;
  const int64_t* sizes_;
  const int64_t* strides_;
};

// The accessor of `t`, whose dim count and dtype must be N and T's (RuntimeError otherwise).
template <typename T, size_t N>
TensorAccessor<T, N> accessor(const Tensor& t) {
  using Element = std::remove_const_t<T>;
  YATEN_CHECK(t.dim() == static_cast<int64_t>(N), RuntimeError, "accessor: expected a ", N, "-D tensor, but got ",
              t.dim(), "-D");
  YATEN_CHECK(t.dtype() == scalar_type_of<Element>, RuntimeError, "accessor: expected dtype ",
              dtype_name(scalar_type_of<Element>), ", but got ", dtype_name(t.dtype()));
  return TensorAccessor<T, N>(static_cast<T*>(t.data_ptr()), t.sizes().data(), t.strides().data());
}

}  // namespace yaten
