// The part of gpu_kernel's host side (iter/cuda_loops.cuh) that converts between dtypes, compiled once here rather
// than in every CUDA unit that launches pointwise kernels. Host code only, so g++ compiles it.
#include <cstring>

#include "core/convert.h"
#include "core/dtype_switch.h"
#include "iter/tensor_iterator.h"

namespace yaten::native::cuda_detail {

void read_host_scalar(const TensorIterator& iter, int operand, ScalarType to, void* dst) {
  visit_dtype_and_complex("gpu_kernel", to, [&](auto to_tag) {
    using T = decltype(to_tag);
    const T value = visit_dtype_and_complex("gpu_kernel", iter.dtype(operand), [&](auto src) -> T {
      return convert<T>(*reinterpret_cast<const decltype(src)*>(iter.data(operand)));
    });
    std::memcpy(dst, &value, sizeof(T));
  });
}

}  // namespace yaten::native::cuda_detail
