// What the CPU (kernels/cpu/indexing/) and CUDA (kernels/cuda/indexing.cuh) indexing kernels share: the argument
// rules of gather/scatter and of advanced indexing, with one set of messages.
#pragma once

#include <algorithm>
#include <string>
#include <type_traits>
#include <vector>

#include "core/error.h"
#include "core/scalar_type.h"
#include "core/tensor.h"
#include "core/wrap_dim.h"

namespace yaten::native::indexing {

// gather and the scatters: index has self's number of dims (or both are at most 1-D), is int64 or int32 (the
// kernels read int64, so an int32 index is converted first, as torch takes either), and is no larger than self in
// any dim but `dim`. Returns the wrapped dim.
inline int64_t check_scatter_gather_index(const char* op, const Tensor& self, int64_t dim, const Tensor& index) {
  const int64_t d = wrap_dim(op, dim, self.dim());
  if (index.numel() == 0) return d;  // torch checks nothing more for an empty index (its dtype, dims or sizes)
  YATEN_CHECK(index.dtype() == ScalarType::Long || index.dtype() == ScalarType::Int,
              RuntimeError, op, ": expected dtype int64 (or int32) for index, got ", dtype_name(index.dtype()));
  YATEN_CHECK(index.dim() == self.dim() || (index.dim() <= 1 && self.dim() <= 1), RuntimeError, op,
              ": index tensor must have the same number of dimensions as input tensor");
  for (int64_t k = 0; k < index.dim(); ++k) {
    YATEN_CHECK(k == d || index.sizes()[k] <= self.sizes()[k], RuntimeError, op, ": size of index (",
                index.sizes()[k], ") must not exceed the size of the input (", self.sizes()[k], ") at dimension ", k);
  }
  return d;
}

// index_copy_: an int64 index (torch takes no other here) and a source of self's dtype (nothing is converted).
inline void check_index_copy_args(const Tensor& self, const Tensor& index, const Tensor& source) {
  YATEN_CHECK(index.dtype() == ScalarType::Long, RuntimeError, "index_copy_(): Expected a long tensor for index, but "
              "got ", dtype_name(index.dtype()));
  YATEN_CHECK(source.dtype() == self.dtype(), RuntimeError, "index_copy_(): self and source expected to have the same "
              "dtype, but got (self) ", dtype_name(self.dtype()), " and (source) ", dtype_name(source.dtype()));
}

// index_select's index: at most 1-D, int64 or int32 (torch's checks, in its order).
inline void check_index_select_index(const Tensor& index) {
  YATEN_CHECK(index.dim() <= 1, IndexError, "index_select: index should have at most 1 dimension, got ", index.dim());
  YATEN_CHECK(index.dtype() == ScalarType::Long || index.dtype() == ScalarType::Int, RuntimeError,
              "index_select(): Expected dtype int32 or int64 for index, got ", dtype_name(index.dtype()));
}

// scatter_ and scatter_add_: src has self's dtype (torch converts nothing), index's number of dims, and is at
// least as large in each.
inline void check_scatter_src(const char* op, const Tensor& self, const Tensor& index, const Tensor& src) {
  YATEN_CHECK(src.dtype() == self.dtype(), RuntimeError, op, ": expected self.dtype to be equal to src.dtype (got ",
              dtype_name(self.dtype()), " and ", dtype_name(src.dtype()), "); convert src with .to(self.dtype)");
  if (index.numel() == 0) return;  // nothing is read, and torch checks no shapes
  YATEN_CHECK(src.dim() == index.dim() || (src.dim() <= 1 && index.dim() <= 1), RuntimeError, op,
              ": src must have as many dimensions as index");
  // A 0-dim index or src counts as one element in one dim (a 0-dim index with an empty src read past src).
  for (int64_t k = 0; k < std::max<int64_t>(index.dim(), 1); ++k) {
    const int64_t from_index = index.dim() ? index.sizes()[k] : 1, from_src = src.dim() ? src.sizes()[k] : 1;
    YATEN_CHECK(from_index <= from_src, RuntimeError, op, ": size of index (", from_index,
                ") must not exceed the size of src (", from_src, ") at dimension ", k);
  }
}

// _scatter_reduce_'s reductions (sum and mean go through scatter_add_, which has a derivative).
enum class ScatterReduce : int { Prod, Amax, Amin };

inline ScatterReduce scatter_reduce_kind(const char* op, const std::string& reduce) {
  if (reduce == "prod") return ScatterReduce::Prod;
  if (reduce == "amax") return ScatterReduce::Amax;
  YATEN_CHECK(reduce == "amin", RuntimeError, op, ": reduce argument must be either sum, prod, mean, amax or amin, "
              "got ", reduce);
  return ScatterReduce::Amin;
}

// One step of a scatter reduction, on both devices: the product, or the larger/smaller value with NaN winning (as
// torch's amax/amin do); bool: and, or, and.
template <typename T>
YATEN_HOST_DEVICE inline T scatter_combine(ScatterReduce kind, T a, T b) {
  if constexpr (std::is_same_v<T, bool>) {
    return kind == ScatterReduce::Amax ? (a || b) : (a && b);
  } else {
    using acc_t = opmath_t<T>;
    const acc_t x = static_cast<acc_t>(a), y = static_cast<acc_t>(b);
    if (kind == ScatterReduce::Prod) {
      if constexpr (std::is_integral_v<acc_t>) {  // wraps, as torch's products do (unsigned: no overflow UB)
        const uint64_t product = static_cast<uint64_t>(static_cast<int64_t>(x)) *
                                 static_cast<uint64_t>(static_cast<int64_t>(y));
        return static_cast<T>(product);
      } else {
        return static_cast<T>(x * y);
      }
    }
    if (x != x) return a;  // NaN (never for integers)
    if (y != y) return b;
    return (kind == ScatterReduce::Amax ? y > x : y < x) ? b : a;
  }
}

// Advanced indexing (_index_front, _index_put_front_): one index tensor per dim of `dims`, all of one shape, no dim
// twice. Returns the wrapped dims.
inline std::vector<int64_t> check_advanced(const char* op, const Tensor& self, const std::vector<Tensor>& indices,
                                           const std::vector<int64_t>& dims) {
  YATEN_CHECK(!indices.empty() && indices.size() == dims.size(), RuntimeError, op, ": one index tensor per dim");
  std::vector<bool> indexed(self.dim(), false);
  std::vector<int64_t> wrapped;
  for (size_t k = 0; k < indices.size(); ++k) {
    YATEN_CHECK(indices[k].sizes() == indices[0].sizes(), RuntimeError, op, ": index tensors must share one shape");
    const int64_t d = wrap_real_dim(op, dims[k], self.dim());
    YATEN_CHECK(!indexed[d], RuntimeError, op, ": dim ", d, " indexed twice");
    indexed[d] = true;
    wrapped.push_back(d);
  }
  return wrapped;
}

// The shape of self[indices at dims] in the "front" layout: the indices' shape, then self's dims not indexed.
inline std::vector<int64_t> front_shape(const Tensor& self, const std::vector<Tensor>& indices,
                                        const std::vector<int64_t>& dims) {
  std::vector<int64_t> shape = indices[0].sizes();
  std::vector<bool> indexed(self.dim(), false);
  for (int64_t d : dims) indexed[wrap_dim("index", d, self.dim())] = true;
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (!indexed[d]) shape.push_back(self.sizes()[d]);
  }
  return shape;
}

}  // namespace yaten::native::indexing
