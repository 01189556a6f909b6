// @generated from ops.yaml by codegen (templates/op_source.cpp.j2): edit those, not this
// The join family: C++ API -> dispatcher -> backend wrapper (dtype switch) -> kernel, its registrations, and
// its Python bindings. See docs/trip-of-a-call.md for the whole trip.
#include "yaten/ops/join.h"

#include "autograd/autograd.h"
#include "dispatch/library.h"
#include "iter/tensor_iterator.h"
#include "kernels/wrapper_support.h"
#include "python/arg_parser.h"
#include "python/python_kernel.h"

namespace yaten {

// ------------------------------------------------------------------------------------------------
// ops.yaml  join(Tensor[] tensors, int dim=0) -> Tensor
Tensor join(const std::vector<Tensor>& tensors, int64_t dim) {
  using Kernel = Tensor (*)(DispatchKeySet, const std::vector<Tensor>&, int64_t);
  static OperatorEntry& op = Dispatcher::singleton().operator_entry("yaten::join");
  const DispatchKeySet ks = dispatch_key_set(tensors);
  detail::CallGuard call_(op, ks, tensors, dim);  // trace and profiler hook
  return op.lookup<Kernel>(ks)(ks, tensors, dim);
}

namespace redispatch {
Tensor join(DispatchKeySet ks, const std::vector<Tensor>& tensors, int64_t dim) {
  using Kernel = Tensor (*)(DispatchKeySet, const std::vector<Tensor>&, int64_t);
  static OperatorEntry& op = Dispatcher::singleton().operator_entry("yaten::join");
  return op.lookup_exact<Kernel>(ks)(ks, tensors, dim);
}
}  // namespace redispatch

namespace {
// ops.yaml  join(Tensor[] tensors, int dim=0) -> Tensor  [CompositeImplicit]
Tensor join_composite(DispatchKeySet, const std::vector<Tensor>& tensors, int64_t dim) {
  return static_cast<native::join_impl_t*>(&native::join_impl)(tensors, dim);
}

// ops.yaml  the backward of join: its `derivatives:` formulas
struct JoinBackward0 final : autograd::Node {
  std::string name() const override { return "JoinBackward0"; }
  std::vector<autograd::OutputInfo> tensors_info;
  size_t tensors_offset = 0;  // where its edges start in next_edges
  int64_t dim;
  autograd::variable_list apply(autograd::variable_list&& grads) override {
    [[maybe_unused]] const Tensor& grad = grads[0];
    autograd::variable_list out(next_edges.size());
    if (autograd::any_valid(next_edges, tensors_offset, tensors_info.size())) {
      const autograd::variable_list parts = autograd::cat_backward(grad, tensors_info, dim);
      for (size_t i = 0; i < tensors_info.size(); ++i) {
        if (next_edges[tensors_offset + i].valid()) {
          out[tensors_offset + i] = autograd::finish_grad(parts[i], tensors_info[i]);
        }
      }
    }
    return out;
  }
  std::vector<std::string> saved_names() const override {
    return {"_saved_dim"};
  }
  PyObject* saved_attribute(const std::string& name) const override {
    if (name == "_saved_dim") return autograd::saved_to_python(dim);
    return nullptr;
  }
};

// ops.yaml  join(Tensor[] tensors, int dim=0) -> Tensor  [Autograd: formula]
Tensor join_autograd(DispatchKeySet ks, const std::vector<Tensor>& tensors, int64_t dim) {
  const bool need = autograd::compute_requires_grad(tensors);
  std::shared_ptr<JoinBackward0> node;
  if (need) {
    node = std::make_shared<JoinBackward0>();
    node->tensors_offset = node->next_edges.size();
    for (const Tensor& t : tensors) {
      node->next_edges.push_back(autograd::gradient_edge(t));
      node->tensors_info.push_back(autograd::info_of(t));
    }
    node->dim = dim;
  }
  auto result_ = [&] {
    ExcludeDispatchKeyGuard below_autograd(DispatchKey::Autograd);
    return redispatch::join(ks.below(DispatchKey::Autograd), tensors, dim);
  }();
  if (node) {
    autograd::set_differentiable_history(result_, node, 0);
  }
  return result_;
}

// Runs a kernel registered from Python (yaten.library.impl) with this op's typed arguments.
Tensor join_python(DispatchKeySet ks, const std::vector<Tensor>& tensors, int64_t dim) {
  if (python::PythonKernelCall call("yaten::join", ks); call.found()) {
    call.arg(tensors);
    call.arg(dim);
    return call.result<Tensor>();
  }
  // Removed by another thread since this call was dispatched here: the kernel registered now runs.
  using Kernel = Tensor (*)(DispatchKeySet, const std::vector<Tensor>&, int64_t);
  return Dispatcher::singleton().operator_entry("yaten::join").lookup<Kernel>(ks)(ks, tensors, dim);
}
}  // namespace

// ------------------------------------------------------------------------------------------------ registration
YATEN_LIBRARY(yaten, m) {
  m.def("join(Tensor[] tensors, int dim=0) -> Tensor", "ops.yaml");
  m.python_trampoline("join", join_python);
}

YATEN_LIBRARY_IMPL(yaten, CPU, m) {
  m.impl("join", &join_composite, "ops.yaml (CompositeImplicit: join_composite -> native::join_impl)");
}

YATEN_LIBRARY_IMPL(yaten, CUDA, m) {
  m.impl("join", &join_composite, "ops.yaml (CompositeImplicit: join_composite -> native::join_impl)");
}

YATEN_LIBRARY_IMPL(yaten, Autograd, m) {
  m.impl("join", &join_autograd, "ops.yaml (Autograd: join_autograd)");
}

// ------------------------------------------------------------------------------------------------ Python
namespace python {
namespace {

// ops.yaml  join(Tensor[] tensors, int dim=0) -> Tensor
constexpr ArgSpec function_join_args[] = {
    {"tensors", ArgType::TensorList, /*keyword_only=*/false, /*optional=*/false, /*size=*/0},
    {"dim", ArgType::Int, /*keyword_only=*/false, /*optional=*/true, /*size=*/0},
};
constexpr Signature function_join{"join(Tensor[] tensors, int dim=0)", function_join_args, 2};

// yaten.join
PyObject* py_join(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  YATEN_PY_BEGIN
  ParsedArgs p;
  // Note [Numbers given as tensors]: a 0-dim tensor stands for a number only when no overload takes it as it is.
  for (const bool numbers_from_tensors : {false, true}) {
    if (p.parse(function_join, args, nargs, kwnames, nullptr, numbers_from_tensors)) {
      return to_python(yaten::join(p.tensor_list(0), p.int64(1, int64_t(0))));
    }
  }
  static const Signature* const overloads[] = {&function_join};
  raise_no_match("join", overloads, 1, args, nargs, kwnames);
  YATEN_PY_END
}
const BindingRegistration register_py_join{"join", py_join, /*method=*/false, /*doc: ops/op_docs.cpp*/ nullptr};

}  // namespace
}  // namespace python
}  // namespace yaten
