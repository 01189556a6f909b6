// @generated from ops.yaml by codegen (templates/op_source.cpp.j2): edit those, not this
// The scale family: C++ API -> dispatcher -> backend wrapper (dtype switch) -> kernel, its registrations, and
// its Python bindings. See docs/trip-of-a-call.md for the whole trip.
#include "yaten/ops/scale.h"

#include "autograd/autograd.h"
#include "dispatch/library.h"
#include "iter/tensor_iterator.h"
#include "kernels/wrapper_support.h"
#include "python/arg_parser.h"
#include "python/python_kernel.h"
#include "yaten/ops/clone.h"
#include "yaten/ops/mul.h"

namespace yaten {

// ------------------------------------------------------------------------------------------------
// ops.yaml  scale.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
Tensor scale(const Tensor& self, const Tensor& other, const Scalar& alpha) {
  using Kernel = Tensor (*)(DispatchKeySet, const Tensor&, const Tensor&, const Scalar&);
  static OperatorEntry& op = Dispatcher::singleton().operator_entry("yaten::scale.Tensor");
  const DispatchKeySet ks = dispatch_key_set(self, other);
  detail::CallGuard call_(op, ks, self, other, alpha);  // trace and profiler hook
  return op.lookup<Kernel>(ks)(ks, self, other, alpha);
}

namespace redispatch {
Tensor scale(DispatchKeySet ks, const Tensor& self, const Tensor& other, const Scalar& alpha) {
  using Kernel = Tensor (*)(DispatchKeySet, const Tensor&, const Tensor&, const Scalar&);
  static OperatorEntry& op = Dispatcher::singleton().operator_entry("yaten::scale.Tensor");
  return op.lookup_exact<Kernel>(ks)(ks, self, other, alpha);
}
}  // namespace redispatch

namespace {
// ops.yaml  scale.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor  [CPU]
Tensor scale_Tensor_cpu(DispatchKeySet, const Tensor& self, const Tensor& other, const Scalar& alpha) {
  namespace kernels = native::cpu;
  TensorIteratorConfig config;
  config.op_name = "scale.Tensor";
  config.rule = DtypeRule::Promote;
  config.inputs = {self, other};
  TensorIterator iter(std::move(config));
  [&] {
    switch (iter.compute_dtype()) {
      case ScalarType::Half:
        return static_cast<kernels::scale_kernel_t<Half>*>(&kernels::scale_kernel<Half>)(iter, alpha);
      case ScalarType::Float:
        return static_cast<kernels::scale_kernel_t<float>*>(&kernels::scale_kernel<float>)(iter, alpha);
      case ScalarType::Double:
        return static_cast<kernels::scale_kernel_t<double>*>(&kernels::scale_kernel<double>)(iter, alpha);
      case ScalarType::BFloat16:
        return static_cast<kernels::scale_kernel_t<BFloat16>*>(&kernels::scale_kernel<BFloat16>)(iter, alpha);
      default:
        detail::dtype_not_supported("scale.Tensor", "CPU", iter.compute_dtype(), "float16, float32, float64, bfloat16");
    }
  }();
  return iter.finish();
}

// ops.yaml  the backward of scale.Tensor: its `derivatives:` formulas
struct ScaleBackward0 final : autograd::Node {
  std::string name() const override { return "ScaleBackward0"; }
  autograd::OutputInfo self_info;
  autograd::OutputInfo other_info;
  autograd::SavedVariable self_;
  autograd::SavedVariable other_;
  Scalar alpha;
  autograd::variable_list apply(autograd::variable_list&& grads) override {
    const std::shared_ptr<autograd::Node> self_node = shared_from_this();
    [[maybe_unused]] const Tensor& grad = grads[0];
    const Tensor self = self_.unpack(self_node);
    const Tensor other = other_.unpack(self_node);
    autograd::variable_list out(next_edges.size());
    if (next_edges[0].valid()) {
      out[0] = autograd::finish_grad(yaten::mul(yaten::mul(grad, other), alpha), self_info);
    }
    if (next_edges[1].valid()) {
      out[1] = autograd::finish_grad(yaten::mul(yaten::mul(grad, self), alpha), other_info);
    }
    return out;
  }
  void release_variables() override {
    self_.reset();
    other_.reset();
  }
  std::vector<std::string> saved_names() const override {
    return {"_saved_self", "_saved_other", "_saved_alpha"};
  }
  PyObject* saved_attribute(const std::string& name) const override {
    if (name == "_saved_self") return autograd::saved_to_python(self_.data());
    if (name == "_saved_other") return autograd::saved_to_python(other_.data());
    if (name == "_saved_alpha") return autograd::saved_to_python(alpha);
    return nullptr;
  }
};

// ops.yaml  scale.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor  [Autograd: formula]
Tensor scale_Tensor_autograd(DispatchKeySet ks, const Tensor& self, const Tensor& other, const Scalar& alpha) {
  const bool need = autograd::compute_requires_grad({&self, &other});
  std::shared_ptr<ScaleBackward0> node;
  if (need) {
    node = std::make_shared<ScaleBackward0>();
    node->next_edges.push_back(autograd::gradient_edge(self));
    node->self_info = autograd::info_of(self);
    node->next_edges.push_back(autograd::gradient_edge(other));
    node->other_info = autograd::info_of(other);
    node->self_ = autograd::SavedVariable(self, false);
    node->other_ = autograd::SavedVariable(other, false);
    node->alpha = alpha;
  }
  auto result_ = [&] {
    ExcludeDispatchKeyGuard below_autograd(DispatchKey::Autograd);
    return redispatch::scale(ks.below(DispatchKey::Autograd), self, other, alpha);
  }();
  if (node) {
    autograd::set_differentiable_history(result_, node, 0);
  }
  return result_;
}

// Runs a kernel registered from Python (yaten.library.impl) with this op's typed arguments.
Tensor scale_Tensor_python(DispatchKeySet ks, const Tensor& self, const Tensor& other, const Scalar& alpha) {
  if (python::PythonKernelCall call("yaten::scale.Tensor", ks); call.found()) {
    call.arg(self);
    call.arg(other);
    call.arg(alpha);
    return call.result<Tensor>();
  }
  // Removed by another thread since this call was dispatched here: the kernel registered now runs.
  using Kernel = Tensor (*)(DispatchKeySet, const Tensor&, const Tensor&, const Scalar&);
  return Dispatcher::singleton().operator_entry("yaten::scale.Tensor").lookup<Kernel>(ks)(ks, self, other, alpha);
}
}  // namespace

// ------------------------------------------------------------------------------------------------
// ops.yaml (a form of scale.Tensor)  scale_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)
Tensor scale_(const Tensor& self, const Tensor& other, const Scalar& alpha) {
  using Kernel = Tensor (*)(DispatchKeySet, const Tensor&, const Tensor&, const Scalar&);
  static OperatorEntry& op = Dispatcher::singleton().operator_entry("yaten::scale_.Tensor");
  const DispatchKeySet ks = dispatch_key_set(self, other);
  detail::CallGuard call_(op, ks, self, other, alpha);  // trace and profiler hook
  detail::check_writable(self, "yaten::scale_.Tensor");  // read-only memory raises here
  auto result_ = op.lookup<Kernel>(ks)(ks, self, other, alpha);
  detail::mark_written(self);  // saved tensors over this memory are now stale
  return result_;
}

namespace redispatch {
Tensor scale_(DispatchKeySet ks, const Tensor& self, const Tensor& other, const Scalar& alpha) {
  using Kernel = Tensor (*)(DispatchKeySet, const Tensor&, const Tensor&, const Scalar&);
  static OperatorEntry& op = Dispatcher::singleton().operator_entry("yaten::scale_.Tensor");
  return op.lookup_exact<Kernel>(ks)(ks, self, other, alpha);
}
}  // namespace redispatch

namespace {
// ops.yaml (a form of scale.Tensor)  scale_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)  [CPU]
Tensor scale__Tensor_cpu(DispatchKeySet, const Tensor& self, const Tensor& other, const Scalar& alpha) {
  namespace kernels = native::cpu;
  TensorIteratorConfig config;
  config.op_name = "scale_.Tensor";
  config.rule = DtypeRule::Promote;
  config.output = self;
  config.output_is_input = true;
  config.inputs = {self, other};
  TensorIterator iter(std::move(config));
  [&] {
    switch (iter.compute_dtype()) {
      case ScalarType::Half:
        return static_cast<kernels::scale_kernel_t<Half>*>(&kernels::scale_kernel<Half>)(iter, alpha);
      case ScalarType::Float:
        return static_cast<kernels::scale_kernel_t<float>*>(&kernels::scale_kernel<float>)(iter, alpha);
      case ScalarType::Double:
        return static_cast<kernels::scale_kernel_t<double>*>(&kernels::scale_kernel<double>)(iter, alpha);
      case ScalarType::BFloat16:
        return static_cast<kernels::scale_kernel_t<BFloat16>*>(&kernels::scale_kernel<BFloat16>)(iter, alpha);
      default:
        detail::dtype_not_supported("scale_.Tensor", "CPU", iter.compute_dtype(),
            "float16, float32, float64, bfloat16");
    }
  }();
  return iter.finish();
}

// ops.yaml (a form of scale.Tensor)  scale_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)  [Autograd: formula]
Tensor scale__Tensor_autograd(DispatchKeySet ks, const Tensor& self, const Tensor& other, const Scalar& alpha) {
  autograd::check_inplace("scale_.Tensor", self);
  const bool need = autograd::compute_requires_grad({&self, &other});
  if (need) autograd::check_inplace_into_part("scale_.Tensor", self);
  std::shared_ptr<ScaleBackward0> node;
  if (need) {
    node = std::make_shared<ScaleBackward0>();
    node->next_edges.push_back(autograd::gradient_edge(self));
    node->self_info = autograd::info_of(self);
    node->next_edges.push_back(autograd::gradient_edge(other));
    node->other_info = autograd::info_of(other);
    node->self_ = autograd::SavedVariable(yaten::clone(self), false);  // self's value before the op
    node->other_ = autograd::SavedVariable(other, false);
    node->alpha = alpha;
  }
  auto result_ = [&] {
    ExcludeDispatchKeyGuard below_autograd(DispatchKey::Autograd);
    return redispatch::scale_(ks.below(DispatchKey::Autograd), self, other, alpha);
  }();
  if (node) {
    autograd::rebase_history(result_, node);
  }
  return result_;
}

// Runs a kernel registered from Python (yaten.library.impl) with this op's typed arguments.
Tensor scale__Tensor_python(DispatchKeySet ks, const Tensor& self, const Tensor& other, const Scalar& alpha) {
  if (python::PythonKernelCall call("yaten::scale_.Tensor", ks); call.found()) {
    call.arg(self);
    call.arg(other);
    call.arg(alpha);
    return call.result<Tensor>();
  }
  // Removed by another thread since this call was dispatched here: the kernel registered now runs.
  using Kernel = Tensor (*)(DispatchKeySet, const Tensor&, const Tensor&, const Scalar&);
  return Dispatcher::singleton().operator_entry("yaten::scale_.Tensor").lookup<Kernel>(ks)(ks, self, other, alpha);
}
}  // namespace

// ------------------------------------------------------------------------------------------------
// ops.yaml (a form of scale.Tensor)  scale.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)
Tensor scale_out(const Tensor& self, const Tensor& other, const Scalar& alpha, const Tensor& out) {
  using Kernel = Tensor (*)(DispatchKeySet, const Tensor&, const Tensor&, const Scalar&, const Tensor&);
  static OperatorEntry& op = Dispatcher::singleton().operator_entry("yaten::scale.out");
  const DispatchKeySet ks = dispatch_key_set(self, other, out);
  detail::CallGuard call_(op, ks, self, other, alpha, out);  // trace and profiler hook
  detail::check_writable(out, "yaten::scale.out");  // read-only memory raises here
  auto result_ = op.lookup<Kernel>(ks)(ks, self, other, alpha, out);
  detail::mark_written(out);  // saved tensors over this memory are now stale
  return result_;
}

namespace redispatch {
Tensor scale_out(DispatchKeySet ks, const Tensor& self, const Tensor& other, const Scalar& alpha, const Tensor& out) {
  using Kernel = Tensor (*)(DispatchKeySet, const Tensor&, const Tensor&, const Scalar&, const Tensor&);
  static OperatorEntry& op = Dispatcher::singleton().operator_entry("yaten::scale.out");
  return op.lookup_exact<Kernel>(ks)(ks, self, other, alpha, out);
}
}  // namespace redispatch

namespace {
// ops.yaml (a form of scale.Tensor)  scale.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)  [CPU]
Tensor scale_out_cpu(DispatchKeySet, const Tensor& self, const Tensor& other, const Scalar& alpha, const Tensor& out) {
  namespace kernels = native::cpu;
  TensorIteratorConfig config;
  config.op_name = "scale.out";
  config.rule = DtypeRule::Promote;
  config.output = out;
  config.inputs = {self, other};
  TensorIterator iter(std::move(config));
  [&] {
    switch (iter.compute_dtype()) {
      case ScalarType::Half:
        return static_cast<kernels::scale_kernel_t<Half>*>(&kernels::scale_kernel<Half>)(iter, alpha);
      case ScalarType::Float:
        return static_cast<kernels::scale_kernel_t<float>*>(&kernels::scale_kernel<float>)(iter, alpha);
      case ScalarType::Double:
        return static_cast<kernels::scale_kernel_t<double>*>(&kernels::scale_kernel<double>)(iter, alpha);
      case ScalarType::BFloat16:
        return static_cast<kernels::scale_kernel_t<BFloat16>*>(&kernels::scale_kernel<BFloat16>)(iter, alpha);
      default:
        detail::dtype_not_supported("scale.out", "CPU", iter.compute_dtype(), "float16, float32, float64, bfloat16");
    }
  }();
  return iter.finish();
}

// ops.yaml (a form of scale.Tensor)  scale.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)  [Autograd: out]
Tensor scale_out_autograd(DispatchKeySet ks, const Tensor& self, const Tensor& other, const Scalar& alpha,
    const Tensor& out) {
  YATEN_CHECK(!autograd::compute_requires_grad({&self, &other, &out}), RuntimeError,
              "scale.out(): functions with out=... arguments don't support automatic differentiation, but one "
              "of the arguments requires grad.");
  ExcludeDispatchKeyGuard below_autograd(DispatchKey::Autograd);
  return redispatch::scale_out(ks.below(DispatchKey::Autograd), self, other, alpha, out);
}

// Runs a kernel registered from Python (yaten.library.impl) with this op's typed arguments.
Tensor scale_out_python(DispatchKeySet ks, const Tensor& self, const Tensor& other, const Scalar& alpha,
    const Tensor& out) {
  if (python::PythonKernelCall call("yaten::scale.out", ks); call.found()) {
    call.arg(self);
    call.arg(other);
    call.arg(alpha);
    call.arg(out);
    return call.result<Tensor>();
  }
  // Removed by another thread since this call was dispatched here: the kernel registered now runs.
  using Kernel = Tensor (*)(DispatchKeySet, const Tensor&, const Tensor&, const Scalar&, const Tensor&);
  return Dispatcher::singleton().operator_entry("yaten::scale.out").lookup<Kernel>(ks)(ks, self, other, alpha, out);
}
}  // namespace

// ------------------------------------------------------------------------------------------------
// ops.yaml  scale.Scalar(Tensor self, Scalar other) -> Tensor
Tensor scale(const Tensor& self, const Scalar& other) {
  using Kernel = Tensor (*)(DispatchKeySet, const Tensor&, const Scalar&);
  static OperatorEntry& op = Dispatcher::singleton().operator_entry("yaten::scale.Scalar");
  const DispatchKeySet ks = dispatch_key_set(self);
  detail::CallGuard call_(op, ks, self, other);  // trace and profiler hook
  return op.lookup<Kernel>(ks)(ks, self, other);
}

namespace redispatch {
Tensor scale(DispatchKeySet ks, const Tensor& self, const Scalar& other) {
  using Kernel = Tensor (*)(DispatchKeySet, const Tensor&, const Scalar&);
  static OperatorEntry& op = Dispatcher::singleton().operator_entry("yaten::scale.Scalar");
  return op.lookup_exact<Kernel>(ks)(ks, self, other);
}
}  // namespace redispatch

namespace {
// ops.yaml  scale.Scalar(Tensor self, Scalar other) -> Tensor  [CompositeImplicit]
Tensor scale_Scalar_composite(DispatchKeySet, const Tensor& self, const Scalar& other) {
  return static_cast<native::scale_scalar_impl_t*>(&native::scale_scalar_impl)(self, other);
}

// Runs a kernel registered from Python (yaten.library.impl) with this op's typed arguments.
Tensor scale_Scalar_python(DispatchKeySet ks, const Tensor& self, const Scalar& other) {
  if (python::PythonKernelCall call("yaten::scale.Scalar", ks); call.found()) {
    call.arg(self);
    call.arg(other);
    return call.result<Tensor>();
  }
  // Removed by another thread since this call was dispatched here: the kernel registered now runs.
  using Kernel = Tensor (*)(DispatchKeySet, const Tensor&, const Scalar&);
  return Dispatcher::singleton().operator_entry("yaten::scale.Scalar").lookup<Kernel>(ks)(ks, self, other);
}
}  // namespace

// ------------------------------------------------------------------------------------------------ registration
YATEN_LIBRARY(yaten, m) {
  m.def("scale.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor", "ops.yaml");
  m.python_trampoline("scale.Tensor", scale_Tensor_python);
  m.def("scale_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)", "ops.yaml");
  m.python_trampoline("scale_.Tensor", scale__Tensor_python);
  m.def("scale.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)", "ops.yaml");
  m.python_trampoline("scale.out", scale_out_python);
  m.def("scale.Scalar(Tensor self, Scalar other) -> Tensor", "ops.yaml");
  m.python_trampoline("scale.Scalar", scale_Scalar_python);
}

YATEN_LIBRARY_IMPL(yaten, CPU, m) {
  m.impl("scale.Tensor", &scale_Tensor_cpu, "ops.yaml (scale_Tensor_cpu -> native::cpu::scale_kernel<scalar_t>)");
  m.impl("scale_.Tensor", &scale__Tensor_cpu, "ops.yaml (scale__Tensor_cpu -> native::cpu::scale_kernel<scalar_t>)");
  m.impl("scale.out", &scale_out_cpu, "ops.yaml (scale_out_cpu -> native::cpu::scale_kernel<scalar_t>)");
  m.impl("scale.Scalar", &scale_Scalar_composite,
      "ops.yaml (CompositeImplicit: scale_Scalar_composite -> native::scale_scalar_impl)");
}

YATEN_LIBRARY_IMPL(yaten, CUDA, m) {
  m.impl("scale.Scalar", &scale_Scalar_composite,
      "ops.yaml (CompositeImplicit: scale_Scalar_composite -> native::scale_scalar_impl)");
}

YATEN_LIBRARY_IMPL(yaten, Autograd, m) {
  m.impl("scale.Tensor", &scale_Tensor_autograd, "ops.yaml (Autograd: scale_Tensor_autograd)");
  m.impl("scale_.Tensor", &scale__Tensor_autograd, "ops.yaml (Autograd: scale__Tensor_autograd)");
  m.impl("scale.out", &scale_out_autograd, "ops.yaml (Autograd: scale_out_autograd)");
  m.impl("scale.Scalar", &scale_Scalar_composite,
      "ops.yaml (CompositeImplicit: scale_Scalar_composite -> native::scale_scalar_impl)");
}

// ------------------------------------------------------------------------------------------------ Python
namespace python {
namespace {

// ops.yaml  scale.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
constexpr ArgSpec function_scale_Tensor_args[] = {
    {"input", ArgType::Tensor, /*keyword_only=*/false, /*optional=*/false, /*size=*/0},
    {"other", ArgType::Tensor, /*keyword_only=*/false, /*optional=*/false, /*size=*/0},
    {"alpha", ArgType::Scalar, /*keyword_only=*/true, /*optional=*/true, /*size=*/0},
};
constexpr Signature function_scale_Tensor{"scale(Tensor input, Tensor other, *, Number alpha=1)",
    function_scale_Tensor_args, 3};

// ops.yaml (a form of scale.Tensor)  scale.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)
constexpr ArgSpec function_scale_out_args[] = {
    {"input", ArgType::Tensor, /*keyword_only=*/false, /*optional=*/false, /*size=*/0},
    {"other", ArgType::Tensor, /*keyword_only=*/false, /*optional=*/false, /*size=*/0},
    {"alpha", ArgType::Scalar, /*keyword_only=*/true, /*optional=*/true, /*size=*/0},
    {"out", ArgType::Tensor, /*keyword_only=*/true, /*optional=*/false, /*size=*/0},
};
constexpr Signature function_scale_out{"scale(Tensor input, Tensor other, *, Number alpha=1, Tensor out)",
    function_scale_out_args, 4};

// ops.yaml  scale.Scalar(Tensor self, Scalar other) -> Tensor
constexpr ArgSpec function_scale_Scalar_args[] = {
    {"input", ArgType::Tensor, /*keyword_only=*/false, /*optional=*/false, /*size=*/0},
    {"other", ArgType::Scalar, /*keyword_only=*/false, /*optional=*/false, /*size=*/0},
};
constexpr Signature function_scale_Scalar{"scale(Tensor input, Number other)", function_scale_Scalar_args, 2};

// yaten.scale
PyObject* py_scale(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  YATEN_PY_BEGIN
  ParsedArgs p;
  // Note [Numbers given as tensors]: a 0-dim tensor stands for a number only when no overload takes it as it is.
  for (const bool numbers_from_tensors : {false, true}) {
    if (p.parse(function_scale_Tensor, args, nargs, kwnames, nullptr, numbers_from_tensors)) {
      return to_python(yaten::scale(p.tensor(0), p.tensor(1), p.scalar(2, Scalar(int64_t(1)))));
    }
    if (p.parse(function_scale_out, args, nargs, kwnames, nullptr, numbers_from_tensors)) {
      yaten::scale_out(p.tensor(0), p.tensor(1), p.scalar(2, Scalar(int64_t(1))), p.tensor(3));
      return p.returned(3);
    }
    if (p.parse(function_scale_Scalar, args, nargs, kwnames, nullptr, numbers_from_tensors)) {
      return to_python(yaten::scale(p.tensor(0), p.scalar(1)));
    }
  }
  static const Signature* const overloads[] = {&function_scale_Tensor, &function_scale_out, &function_scale_Scalar};
  raise_no_match("scale", overloads, 3, args, nargs, kwnames);
  YATEN_PY_END
}
const BindingRegistration register_py_scale{"scale", py_scale, /*method=*/false, /*doc: ops/op_docs.cpp*/ nullptr};

// ops.yaml  scale.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
constexpr ArgSpec method_scale_Tensor_args[] = {
    {"other", ArgType::Tensor, /*keyword_only=*/false, /*optional=*/false, /*size=*/0},
    {"alpha", ArgType::Scalar, /*keyword_only=*/true, /*optional=*/true, /*size=*/0},
};
constexpr Signature method_scale_Tensor{"scale(Tensor other, *, Number alpha=1)", method_scale_Tensor_args, 2};

// ops.yaml  scale.Scalar(Tensor self, Scalar other) -> Tensor
constexpr ArgSpec method_scale_Scalar_args[] = {
    {"other", ArgType::Scalar, /*keyword_only=*/false, /*optional=*/false, /*size=*/0},
};
constexpr Signature method_scale_Scalar{"scale(Number other)", method_scale_Scalar_args, 1};

// Tensor.scale
PyObject* py_Tensor_scale(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  YATEN_PY_BEGIN
  const Tensor& self_tensor = unwrap(self);
  ParsedArgs p;
  // Note [Numbers given as tensors]: a 0-dim tensor stands for a number only when no overload takes it as it is.
  for (const bool numbers_from_tensors : {false, true}) {
    if (p.parse(method_scale_Tensor, args, nargs, kwnames, nullptr, numbers_from_tensors)) {
      return to_python(yaten::scale(self_tensor, p.tensor(0), p.scalar(1, Scalar(int64_t(1)))));
    }
    if (p.parse(method_scale_Scalar, args, nargs, kwnames, nullptr, numbers_from_tensors)) {
      return to_python(yaten::scale(self_tensor, p.scalar(0)));
    }
  }
  static const Signature* const overloads[] = {&method_scale_Tensor, &method_scale_Scalar};
  raise_no_match("scale", overloads, 2, args, nargs, kwnames);
  YATEN_PY_END
}
const BindingRegistration register_py_Tensor_scale{"scale", py_Tensor_scale, /*method=*/true,
    /*doc: ops/op_docs.cpp*/ nullptr};

// ops.yaml (a form of scale.Tensor)  scale_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)
constexpr ArgSpec method_scale__Tensor_args[] = {
    {"other", ArgType::Tensor, /*keyword_only=*/false, /*optional=*/false, /*size=*/0},
    {"alpha", ArgType::Scalar, /*keyword_only=*/true, /*optional=*/true, /*size=*/0},
};
constexpr Signature method_scale__Tensor{"scale_(Tensor other, *, Number alpha=1)", method_scale__Tensor_args, 2};

// Tensor.scale_
PyObject* py_Tensor_scale_(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  YATEN_PY_BEGIN
  const Tensor& self_tensor = unwrap(self);
  ParsedArgs p;
  // Note [Numbers given as tensors]: a 0-dim tensor stands for a number only when no overload takes it as it is.
  for (const bool numbers_from_tensors : {false, true}) {
    if (p.parse(method_scale__Tensor, args, nargs, kwnames, nullptr, numbers_from_tensors)) {
      yaten::scale_(self_tensor, p.tensor(0), p.scalar(1, Scalar(int64_t(1))));
      return Py_NewRef(self);
    }
  }
  static const Signature* const overloads[] = {&method_scale__Tensor};
  raise_no_match("scale_", overloads, 1, args, nargs, kwnames);
  YATEN_PY_END
}
const BindingRegistration register_py_Tensor_scale_{"scale_", py_Tensor_scale_, /*method=*/true,
    /*doc: ops/op_docs.cpp*/ nullptr};

}  // namespace
}  // namespace python
}  // namespace yaten
