// @generated from ops.yaml by codegen (templates/op_cuda.cu.j2): edit those, not this
// The CUDA wrappers of scale: dtype switch -> CUDA kernel, and their registrations.
// One nvcc translation unit per CUDA kernel header (scale), not one per op.
#include "dispatch/library.h"
#include "iter/tensor_iterator.h"
#include "kernels/wrapper_support.h"
#include "yaten/ops/scale.h"

namespace yaten {
namespace {
// ops.yaml  scale.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor  [CUDA]
Tensor scale_Tensor_cuda(DispatchKeySet, const Tensor& self, const Tensor& other, const Scalar& alpha) {
  namespace kernels = native::cuda;
  TensorIteratorConfig config;
  config.op_name = "scale.Tensor";
  config.rule = DtypeRule::Promote;
  config.inputs = {self, other};
  TensorIterator iter(std::move(config));
  [&] {
    switch (iter.compute_dtype()) {
      case ScalarType::Float:
        return static_cast<kernels::scale_kernel_t<float>*>(&kernels::scale_kernel<float>)(iter, alpha);
      default:
        detail::dtype_not_supported("scale.Tensor", "CUDA", iter.compute_dtype(), "float32");
    }
  }();
  return iter.finish();
}
}  // namespace
namespace {
// ops.yaml (a form of scale.Tensor)  scale_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)  [CUDA]
Tensor scale__Tensor_cuda(DispatchKeySet, const Tensor& self, const Tensor& other, const Scalar& alpha) {
  namespace kernels = native::cuda;
  TensorIteratorConfig config;
  config.op_name = "scale_.Tensor";
  config.rule = DtypeRule::Promote;
  config.output = self;
  config.output_is_input = true;
  config.inputs = {self, other};
  TensorIterator iter(std::move(config));
  [&] {
    switch (iter.compute_dtype()) {
      case ScalarType::Float:
        return static_cast<kernels::scale_kernel_t<float>*>(&kernels::scale_kernel<float>)(iter, alpha);
      default:
        detail::dtype_not_supported("scale_.Tensor", "CUDA", iter.compute_dtype(), "float32");
    }
  }();
  return iter.finish();
}
}  // namespace
namespace {
// ops.yaml (a form of scale.Tensor)  scale.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)  [CUDA]
Tensor scale_out_cuda(DispatchKeySet, const Tensor& self, const Tensor& other, const Scalar& alpha, const Tensor& out) {
  namespace kernels = native::cuda;
  TensorIteratorConfig config;
  config.op_name = "scale.out";
  config.rule = DtypeRule::Promote;
  config.output = out;
  config.inputs = {self, other};
  TensorIterator iter(std::move(config));
  [&] {
    switch (iter.compute_dtype()) {
      case ScalarType::Float:
        return static_cast<kernels::scale_kernel_t<float>*>(&kernels::scale_kernel<float>)(iter, alpha);
      default:
        detail::dtype_not_supported("scale.out", "CUDA", iter.compute_dtype(), "float32");
    }
  }();
  return iter.finish();
}
}  // namespace

YATEN_LIBRARY_IMPL(yaten, CUDA, m) {
  m.impl("scale.Tensor", &scale_Tensor_cuda, "ops.yaml (scale_Tensor_cuda -> native::cuda::scale_kernel<scalar_t>)");
  m.impl("scale_.Tensor", &scale__Tensor_cuda, "ops.yaml (scale__Tensor_cuda -> native::cuda::scale_kernel<scalar_t>)");
  m.impl("scale.out", &scale_out_cuda, "ops.yaml (scale_out_cuda -> native::cuda::scale_kernel<scalar_t>)");
}

}  // namespace yaten
