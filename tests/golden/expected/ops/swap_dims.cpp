// @generated from ops.yaml by codegen (templates/op_source.cpp.j2): edit those, not this
// The swap_dims family: C++ API -> dispatcher -> backend wrapper (dtype switch) -> kernel, its registrations, and
// its Python bindings. See docs/trip-of-a-call.md for the whole trip.
#include "yaten/ops/swap_dims.h"

#include "autograd/autograd.h"
#include "dispatch/library.h"
#include "iter/tensor_iterator.h"
#include "kernels/wrapper_support.h"
#include "python/arg_parser.h"
#include "python/python_kernel.h"

namespace yaten {

// ------------------------------------------------------------------------------------------------
// ops.yaml  swap_dims(Tensor(a) self, int dim0, int dim1) -> Tensor(a)
Tensor swap_dims(const Tensor& self, int64_t dim0, int64_t dim1) {
  using Kernel = Tensor (*)(DispatchKeySet, const Tensor&, int64_t, int64_t);
  static OperatorEntry& op = Dispatcher::singleton().operator_entry("yaten::swap_dims");
  const DispatchKeySet ks = dispatch_key_set(self);
  detail::CallGuard call_(op, ks, self, dim0, dim1);  // trace and profiler hook
  return op.lookup<Kernel>(ks)(ks, self, dim0, dim1);
}

namespace redispatch {
Tensor swap_dims(DispatchKeySet ks, const Tensor& self, int64_t dim0, int64_t dim1) {
  using Kernel = Tensor (*)(DispatchKeySet, const Tensor&, int64_t, int64_t);
  static OperatorEntry& op = Dispatcher::singleton().operator_entry("yaten::swap_dims");
  return op.lookup_exact<Kernel>(ks)(ks, self, dim0, dim1);
}
}  // namespace redispatch

namespace {
// ops.yaml  swap_dims(Tensor(a) self, int dim0, int dim1) -> Tensor(a)  [CompositeImplicit]
Tensor swap_dims_composite(DispatchKeySet, const Tensor& self, int64_t dim0, int64_t dim1) {
  return static_cast<native::swap_dims_impl_t*>(&native::swap_dims_impl)(self, dim0, dim1);
}

// ops.yaml  the backward of swap_dims: its `derivatives:` formulas
struct SwapDimsBackward0 final : autograd::Node {
  std::string name() const override { return "SwapDimsBackward0"; }
  autograd::OutputInfo self_info;
  int64_t dim0;
  int64_t dim1;
  autograd::variable_list apply(autograd::variable_list&& grads) override {
    [[maybe_unused]] const Tensor& grad = grads[0];
    autograd::variable_list out(next_edges.size());
    if (next_edges[0].valid()) {
      out[0] = autograd::finish_grad(yaten::swap_dims(grad, dim0, dim1), self_info);
    }
    return out;
  }
  std::vector<std::string> saved_names() const override {
    return {"_saved_dim0", "_saved_dim1"};
  }
  PyObject* saved_attribute(const std::string& name) const override {
    if (name == "_saved_dim0") return autograd::saved_to_python(dim0);
    if (name == "_saved_dim1") return autograd::saved_to_python(dim1);
    return nullptr;
  }
};

// ops.yaml  swap_dims(Tensor(a) self, int dim0, int dim1) -> Tensor(a)  [Autograd: formula]
Tensor swap_dims_autograd(DispatchKeySet ks, const Tensor& self, int64_t dim0, int64_t dim1) {
  const bool need = autograd::compute_requires_grad({&self});
  std::shared_ptr<SwapDimsBackward0> node;
  if (need) {
    node = std::make_shared<SwapDimsBackward0>();
    node->next_edges.push_back(autograd::gradient_edge(self));
    node->self_info = autograd::info_of(self);
    node->dim0 = dim0;
    node->dim1 = dim1;
  }
  auto result_ = [&] {
    ExcludeDispatchKeyGuard below_autograd(DispatchKey::Autograd);
    return redispatch::swap_dims(ks.below(DispatchKey::Autograd), self, dim0, dim1);
  }();
  autograd::make_view(result_, self, [dim0, dim1](const Tensor& base_) { return yaten::swap_dims(base_, dim0, dim1); });
  if (node) {
    autograd::set_differentiable_history(result_, node, 0);
  }
  return result_;
}

// Runs a kernel registered from Python (yaten.library.impl) with this op's typed arguments.
Tensor swap_dims_python(DispatchKeySet ks, const Tensor& self, int64_t dim0, int64_t dim1) {
  if (python::PythonKernelCall call("yaten::swap_dims", ks); call.found()) {
    call.arg(self);
    call.arg(dim0);
    call.arg(dim1);
    return call.result<Tensor>();
  }
  // Removed by another thread since this call was dispatched here: the kernel registered now runs.
  using Kernel = Tensor (*)(DispatchKeySet, const Tensor&, int64_t, int64_t);
  return Dispatcher::singleton().operator_entry("yaten::swap_dims").lookup<Kernel>(ks)(ks, self, dim0, dim1);
}
}  // namespace

// ------------------------------------------------------------------------------------------------ registration
YATEN_LIBRARY(yaten, m) {
  m.def("swap_dims(Tensor(a) self, int dim0, int dim1) -> Tensor(a)", "ops.yaml");
  m.python_trampoline("swap_dims", swap_dims_python);
}

YATEN_LIBRARY_IMPL(yaten, CPU, m) {
  m.impl("swap_dims", &swap_dims_composite,
      "ops.yaml (CompositeImplicit: swap_dims_composite -> native::swap_dims_impl)");
}

YATEN_LIBRARY_IMPL(yaten, CUDA, m) {
  m.impl("swap_dims", &swap_dims_composite,
      "ops.yaml (CompositeImplicit: swap_dims_composite -> native::swap_dims_impl)");
}

YATEN_LIBRARY_IMPL(yaten, Autograd, m) {
  m.impl("swap_dims", &swap_dims_autograd, "ops.yaml (Autograd: swap_dims_autograd)");
}

// ------------------------------------------------------------------------------------------------ Python
namespace python {
namespace {

// ops.yaml  swap_dims(Tensor(a) self, int dim0, int dim1) -> Tensor(a)
constexpr ArgSpec function_swap_dims_args[] = {
    {"input", ArgType::Tensor, /*keyword_only=*/false, /*optional=*/false, /*size=*/0},
    {"dim0", ArgType::Int, /*keyword_only=*/false, /*optional=*/false, /*size=*/0},
    {"dim1", ArgType::Int, /*keyword_only=*/false, /*optional=*/false, /*size=*/0},
};
constexpr Signature function_swap_dims{"swap_dims(Tensor input, int dim0, int dim1)", function_swap_dims_args, 3};

// yaten.swap_dims
PyObject* py_swap_dims(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  YATEN_PY_BEGIN
  ParsedArgs p;
  // Note [Numbers given as tensors]: a 0-dim tensor stands for a number only when no overload takes it as it is.
  for (const bool numbers_from_tensors : {false, true}) {
    if (p.parse(function_swap_dims, args, nargs, kwnames, nullptr, numbers_from_tensors)) {
      return to_python(yaten::swap_dims(p.tensor(0), p.int64(1), p.int64(2)));
    }
  }
  static const Signature* const overloads[] = {&function_swap_dims};
  raise_no_match("swap_dims", overloads, 1, args, nargs, kwnames);
  YATEN_PY_END
}
const BindingRegistration register_py_swap_dims{"swap_dims", py_swap_dims, /*method=*/false,
    /*doc: ops/op_docs.cpp*/ nullptr};

// ops.yaml  swap_dims(Tensor(a) self, int dim0, int dim1) -> Tensor(a)
constexpr ArgSpec method_swap_dims_args[] = {
    {"dim0", ArgType::Int, /*keyword_only=*/false, /*optional=*/false, /*size=*/0},
    {"dim1", ArgType::Int, /*keyword_only=*/false, /*optional=*/false, /*size=*/0},
};
constexpr Signature method_swap_dims{"swap_dims(int dim0, int dim1)", method_swap_dims_args, 2};

// Tensor.swap_dims
PyObject* py_Tensor_swap_dims(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  YATEN_PY_BEGIN
  const Tensor& self_tensor = unwrap(self);
  ParsedArgs p;
  // Note [Numbers given as tensors]: a 0-dim tensor stands for a number only when no overload takes it as it is.
  for (const bool numbers_from_tensors : {false, true}) {
    if (p.parse(method_swap_dims, args, nargs, kwnames, nullptr, numbers_from_tensors)) {
      return to_python(yaten::swap_dims(self_tensor, p.int64(0), p.int64(1)));
    }
  }
  static const Signature* const overloads[] = {&method_swap_dims};
  raise_no_match("swap_dims", overloads, 1, args, nargs, kwnames);
  YATEN_PY_END
}
const BindingRegistration register_py_Tensor_swap_dims{"swap_dims", py_Tensor_swap_dims, /*method=*/true,
    /*doc: ops/op_docs.cpp*/ nullptr};

}  // namespace
}  // namespace python
}  // namespace yaten
