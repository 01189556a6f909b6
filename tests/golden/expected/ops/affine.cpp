// @generated from ops.yaml by codegen (templates/op_source.cpp.j2): edit those, not this
// The affine family: C++ API -> dispatcher -> backend wrapper (dtype switch) -> kernel, its registrations, and
// its Python bindings. See docs/trip-of-a-call.md for the whole trip.
#include "yaten/ops/affine.h"

#include "autograd/autograd.h"
#include "dispatch/library.h"
#include "iter/tensor_iterator.h"
#include "kernels/wrapper_support.h"
#include "python/arg_parser.h"
#include "python/python_kernel.h"

namespace yaten {

// ------------------------------------------------------------------------------------------------
// ops.yaml  affine(Tensor input, Tensor weight, Tensor? bias) -> (Tensor, Tensor)
std::tuple<Tensor, Tensor> affine(const Tensor& input, const Tensor& weight, const Tensor& bias) {
  using Kernel = std::tuple<Tensor, Tensor> (*)(DispatchKeySet, const Tensor&, const Tensor&, const Tensor&);
  static OperatorEntry& op = Dispatcher::singleton().operator_entry("yaten::affine");
  const DispatchKeySet ks = dispatch_key_set(input, weight, bias);
  detail::CallGuard call_(op, ks, input, weight, bias);  // trace and profiler hook
  return op.lookup<Kernel>(ks)(ks, input, weight, bias);
}

namespace redispatch {
std::tuple<Tensor, Tensor> affine(DispatchKeySet ks, const Tensor& input, const Tensor& weight, const Tensor& bias) {
  using Kernel = std::tuple<Tensor, Tensor> (*)(DispatchKeySet, const Tensor&, const Tensor&, const Tensor&);
  static OperatorEntry& op = Dispatcher::singleton().operator_entry("yaten::affine");
  return op.lookup_exact<Kernel>(ks)(ks, input, weight, bias);
}
}  // namespace redispatch

namespace {
// ops.yaml  affine(Tensor input, Tensor weight, Tensor? bias) -> (Tensor, Tensor)  [CPU]
std::tuple<Tensor, Tensor> affine_cpu(DispatchKeySet, const Tensor& input, const Tensor& weight, const Tensor& bias) {
  namespace kernels = native::cpu;
  const ScalarType dtype_ = promoted_dtype({input, weight, bias});
  switch (dtype_) {
    case ScalarType::Half:
      return static_cast<kernels::affine_kernel_t<Half>*>(&kernels::affine_kernel<Half>)(input, weight, bias);
    case ScalarType::Float:
      return static_cast<kernels::affine_kernel_t<float>*>(&kernels::affine_kernel<float>)(input, weight, bias);
    case ScalarType::Double:
      return static_cast<kernels::affine_kernel_t<double>*>(&kernels::affine_kernel<double>)(input, weight, bias);
    case ScalarType::BFloat16:
      return static_cast<kernels::affine_kernel_t<BFloat16>*>(&kernels::affine_kernel<BFloat16>)(input, weight, bias);
    default:
      detail::dtype_not_supported("affine", "CPU", dtype_, "float16, float32, float64, bfloat16");
  }
}

// ops.yaml  the backward of affine: its `derivatives:` formulas
struct AffineBackward0 final : autograd::Node {
  std::string name() const override { return "AffineBackward0"; }
  autograd::OutputInfo input_info;
  autograd::OutputInfo weight_info;
  autograd::OutputInfo bias_info;
  autograd::SavedVariable input_;
  autograd::SavedVariable weight_;
  autograd::SavedVariable result1_;
  autograd::variable_list apply(autograd::variable_list&& grads) override {
    const std::shared_ptr<autograd::Node> self_node = shared_from_this();
    [[maybe_unused]] const Tensor& grad = grads[0];
    const Tensor input = input_.unpack(self_node);
    const Tensor weight = weight_.unpack(self_node);
    const Tensor result1 = result1_.unpack(self_node);
    autograd::variable_list out(next_edges.size());
    if (next_edges[0].valid() || next_edges[1].valid() || next_edges[2].valid()) {
      const std::array<bool, 3> grad_input_mask = {
          next_edges[0].valid(), next_edges[1].valid(), next_edges[2].valid()};
      const auto joint = native::affine_backward(grad, input, weight, result1, grad_input_mask);
      if (grad_input_mask[0]) out[0] = autograd::finish_grad(std::get<0>(joint), input_info);
      if (grad_input_mask[1]) out[1] = autograd::finish_grad(std::get<1>(joint), weight_info);
      if (grad_input_mask[2]) out[2] = autograd::finish_grad(std::get<2>(joint), bias_info);
    }
    return out;
  }
  void release_variables() override {
    input_.reset();
    weight_.reset();
    result1_.reset();
  }
  std::vector<std::string> saved_names() const override {
    return {"_saved_input", "_saved_weight", "_saved_result1"};
  }
  PyObject* saved_attribute(const std::string& name) const override {
    if (name == "_saved_input") return autograd::saved_to_python(input_.data());
    if (name == "_saved_weight") return autograd::saved_to_python(weight_.data());
    if (name == "_saved_result1") return autograd::saved_to_python(result1_.data());
    return nullptr;
  }
};

// ops.yaml  affine(Tensor input, Tensor weight, Tensor? bias) -> (Tensor, Tensor)  [Autograd: formula]
std::tuple<Tensor, Tensor> affine_autograd(DispatchKeySet ks, const Tensor& input, const Tensor& weight,
    const Tensor& bias) {
  const bool need = autograd::compute_requires_grad({&input, &weight, &bias});
  std::shared_ptr<AffineBackward0> node;
  if (need) {
    node = std::make_shared<AffineBackward0>();
    node->next_edges.push_back(autograd::gradient_edge(input));
    node->input_info = autograd::info_of(input);
    node->next_edges.push_back(autograd::gradient_edge(weight));
    node->weight_info = autograd::info_of(weight);
    node->next_edges.push_back(autograd::gradient_edge(bias));
    node->bias_info = autograd::info_of(bias);
    node->input_ = autograd::SavedVariable(input, false);
    node->weight_ = autograd::SavedVariable(weight, false);
  }
  auto result_ = [&] {
    ExcludeDispatchKeyGuard below_autograd(DispatchKey::Autograd);
    return redispatch::affine(ks.below(DispatchKey::Autograd), input, weight, bias);
  }();
  if (node) {
    autograd::set_differentiable_history(std::get<0>(result_), node, 0);
    node->result1_ = autograd::SavedVariable(std::get<1>(result_), true);
  }
  return result_;
}

// Runs a kernel registered from Python (yaten.library.impl) with this op's typed arguments.
std::tuple<Tensor, Tensor> affine_python(DispatchKeySet ks, const Tensor& input, const Tensor& weight,
    const Tensor& bias) {
  if (python::PythonKernelCall call("yaten::affine", ks); call.found()) {
    call.arg(input);
    call.arg(weight);
    call.arg(bias);
    return call.result<std::tuple<Tensor, Tensor>>();
  }
  // Removed by another thread since this call was dispatched here: the kernel registered now runs.
  using Kernel = std::tuple<Tensor, Tensor> (*)(DispatchKeySet, const Tensor&, const Tensor&, const Tensor&);
  return Dispatcher::singleton().operator_entry("yaten::affine").lookup<Kernel>(ks)(ks, input, weight, bias);
}
}  // namespace

// ------------------------------------------------------------------------------------------------ registration
YATEN_LIBRARY(yaten, m) {
  m.def("affine(Tensor input, Tensor weight, Tensor? bias) -> (Tensor, Tensor)", "ops.yaml");
  m.python_trampoline("affine", affine_python);
}

YATEN_LIBRARY_IMPL(yaten, CPU, m) {
  m.impl("affine", &affine_cpu, "ops.yaml (affine_cpu -> native::cpu::affine_kernel<scalar_t>)");
}

YATEN_LIBRARY_IMPL(yaten, Autograd, m) {
  m.impl("affine", &affine_autograd, "ops.yaml (Autograd: affine_autograd)");
}

// ------------------------------------------------------------------------------------------------ Python
namespace python {
namespace {

// ops.yaml  affine(Tensor input, Tensor weight, Tensor? bias) -> (Tensor, Tensor)
constexpr ArgSpec function_affine_args[] = {
    {"input", ArgType::Tensor, /*keyword_only=*/false, /*optional=*/false, /*size=*/0},
    {"weight", ArgType::Tensor, /*keyword_only=*/false, /*optional=*/false, /*size=*/0},
    {"bias", ArgType::OptionalTensor, /*keyword_only=*/false, /*optional=*/false, /*size=*/0},
};
constexpr Signature function_affine{"affine(Tensor input, Tensor weight, Tensor? bias)", function_affine_args, 3};

// yaten.affine
PyObject* py_affine(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  YATEN_PY_BEGIN
  ParsedArgs p;
  // Note [Numbers given as tensors]: a 0-dim tensor stands for a number only when no overload takes it as it is.
  for (const bool numbers_from_tensors : {false, true}) {
    if (p.parse(function_affine, args, nargs, kwnames, nullptr, numbers_from_tensors)) {
      return to_python(yaten::affine(p.tensor(0), p.tensor(1), p.optional_tensor(2)));
    }
  }
  static const Signature* const overloads[] = {&function_affine};
  raise_no_match("affine", overloads, 1, args, nargs, kwnames);
  YATEN_PY_END
}
const BindingRegistration register_py_affine{"affine", py_affine, /*method=*/false, /*doc: ops/op_docs.cpp*/ nullptr};

}  // namespace
}  // namespace python
}  // namespace yaten
