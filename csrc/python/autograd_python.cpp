// The Python face of autograd: Tensor.requires_grad/.grad/.grad_fn/backward/register_hook (installed by
// python/yaten/_tensor.py from the functions here), yaten.autograd's grad mode and run_backward, and Node objects
// (grad_fn) with name(), next_functions, _saved_* and hooks.
#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>

#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "autograd/autograd.h"
#include "python/arg_parser.h"
#include "yaten/ops/add.h"

namespace py = pybind11;

namespace yaten::autograd {

PyObject* saved_to_python(const Tensor& t) { return python::wrap(t); }
PyObject* saved_to_python(const Scalar& v) { return python::to_python(v); }
PyObject* saved_to_python(int64_t v) { return PyLong_FromLongLong(v); }
PyObject* saved_to_python(double v) { return PyFloat_FromDouble(v); }
PyObject* saved_to_python(bool v) { return PyBool_FromLong(v); }
PyObject* saved_to_python(const std::vector<int64_t>& v) { return py::cast(v).release().ptr(); }
PyObject* saved_to_python(ScalarType v) { return Py_NewRef(python::dtype_object(v)); }
PyObject* saved_to_python(const std::string& v) { return PyUnicode_FromString(v.c_str()); }
PyObject* saved_none() { Py_RETURN_NONE; }

extern std::function<void(Node&, variable_list&)> g_run_prehooks;
extern std::function<void(Node&, variable_list&, const variable_list&)> g_run_posthooks;
extern std::atomic<int> g_anomaly;
extern std::function<void(Node&)> g_anomaly_record;
extern std::function<void(Node&)> g_anomaly_report;

}  // namespace yaten::autograd

namespace yaten::python {
namespace {

using autograd::Node;

const Tensor& tensor_arg(py::handle o, const char* fn) {
  if (!is_tensor(o.ptr())) throw py::type_error(std::string(fn) + "(): expected a yaten.Tensor");
  return unwrap(o.ptr());
}
py::object wrap_tensor(const Tensor& t) {
  if (!t.defined()) return py::none();
  return py::reinterpret_steal<py::object>(wrap(t));
}
py::object tensors_tuple(const autograd::variable_list& ts) {
  py::tuple out(ts.size());
  for (size_t i = 0; i < ts.size(); ++i) out[i] = wrap_tensor(ts[i]);
  return out;
}
autograd::variable_list tensors_from(py::handle seq, const char* fn) {
  autograd::variable_list out;
  for (py::handle o : seq) out.push_back(o.is_none() ? Tensor() : tensor_arg(o, fn));
  return out;
}
// A Python callable kept alive by C++ (released with the GIL held).
std::shared_ptr<py::object> keep(py::object fn) {
  return std::shared_ptr<py::object>(new py::object(std::move(fn)), [](py::object* o) {
    py::gil_scoped_acquire gil;
    delete o;
  });
}
autograd::TensorHook tensor_hook(py::object fn) {
  auto held = keep(std::move(fn));
  return [held](const Tensor& g) -> Tensor {
    py::gil_scoped_acquire gil;
    py::object r = (*held)(wrap_tensor(g));
    return r.is_none() ? Tensor() : tensor_arg(r, "hook");
  };
}

void run_prehooks(Node& node, autograd::variable_list& grads) {
  py::gil_scoped_acquire gil;
  for (PyObject* fn : node.python_prehooks) {
    py::object r = py::reinterpret_borrow<py::object>(fn)(tensors_tuple(grads));
    if (!r.is_none()) grads = tensors_from(r, "prehook");
  }
}
void run_posthooks(Node& node, autograd::variable_list& outs, const autograd::variable_list& grads) {
  py::gil_scoped_acquire gil;
  for (PyObject* fn : node.python_hooks) {
    py::object r = py::reinterpret_borrow<py::object>(fn)(tensors_tuple(outs), tensors_tuple(grads));
    if (!r.is_none()) outs = tensors_from(r, "hook");
  }
}

// Anomaly mode's forward tracebacks, per node (held weakly: an entry goes when its node has gone, pruned as the table
// doubles).
std::mutex g_traces_mutex;
std::map<const Node*, std::pair<std::weak_ptr<Node>, std::string>> g_traces;
size_t g_traces_pruned_at = 64;

void record_trace(Node& node) {
  {
    std::lock_guard<std::mutex> lock(g_traces_mutex);
    auto it = g_traces.find(&node);
    if (it != g_traces.end() && !it->second.first.expired()) return;
  }
  std::string text;
  {
    py::gil_scoped_acquire gil;
    py::list frames = py::module_::import("traceback").attr("format_stack")();
    for (py::handle f : frames) text += f.cast<std::string>();
  }
  std::lock_guard<std::mutex> lock(g_traces_mutex);
  g_traces[&node] = {node.weak_from_this(), std::move(text)};
  if (g_traces.size() >= 2 * g_traces_pruned_at) {
    for (auto it = g_traces.begin(); it != g_traces.end();) it = it->second.first.expired() ? g_traces.erase(it) : ++it;
    g_traces_pruned_at = std::max<size_t>(64, g_traces.size());
  }
}

void report_trace(Node& node) {
  std::string text;
  {
    std::lock_guard<std::mutex> lock(g_traces_mutex);
    auto it = g_traces.find(&node);
    if (it != g_traces.end() && !it->second.first.expired()) text = it->second.second;
  }
  py::gil_scoped_acquire gil;
  const std::string message = "Error detected in " + node.name() + ". Traceback of forward call that caused the "
      "error:\n" + (text.empty() ? std::string("  (not recorded: the node was made before anomaly mode was on)\n")
                                  : text);
  if (PyErr_WarnEx(PyExc_UserWarning, message.c_str(), 1) != 0) PyErr_Clear();
}

// yaten.autograd.Function's node: its backward is Python (the Function's backward, called through `backward`, which
// maps the gradients of the forward's outputs to one gradient or None per next edge).
struct PythonFunctionNode : Node {
  std::string name_;
  std::shared_ptr<py::object> backward;
  std::string name() const override { return name_; }
  autograd::variable_list apply(autograd::variable_list&& grads) override {
    py::gil_scoped_acquire gil;
    // the node itself goes along, for saved outputs to be given back with their history (Function.saved_tensors)
    py::object result = (*backward)(tensors_tuple(grads), py::cast(shared_from_this()));
    autograd::variable_list out = tensors_from(result, name_.c_str());
    YATEN_CHECK(out.size() == next_edges.size(), RuntimeError, "function ", name_, " returned an incorrect number "
                "of gradients (expected ", next_edges.size(), ", got ", out.size(), ")");
    return out;
  }
};

}  // namespace

// Takes the module as a PyObject: a function whose parameters are pybind11 types (hidden) is hidden too, and
// _C calls this one across the library boundary.
void init_autograd(PyObject* module) {
  py::module_ m = py::reinterpret_borrow<py::module_>(module);
  autograd::g_run_prehooks = run_prehooks;
  autograd::g_run_posthooks = run_posthooks;
  autograd::g_anomaly_record = record_trace;
  autograd::g_anomaly_report = report_trace;
  py::class_<Node, std::shared_ptr<Node>>(m, "Node", "A backward function of the autograd graph (Tensor.grad_fn).")
      .def("name", &Node::name)
      .def_property_readonly("next_functions", [](const Node& n) {
        py::tuple out(n.next_edges.size());
        for (size_t i = 0; i < n.next_edges.size(); ++i) {
          const autograd::Edge& e = n.next_edges[i];
          out[i] = py::make_tuple(e.fn ? py::cast(e.fn) : py::none(), e.input_nr);
        }
        return out;
      })
      .def("register_hook", [](Node& n, py::object fn) {
        n.python_hooks.push_back(fn.inc_ref().ptr());
        return fn;
      }, "fn(grad_inputs, grad_outputs) runs after the node; a tuple it returns replaces grad_inputs.")
      .def("register_prehook", [](Node& n, py::object fn) {
        n.python_prehooks.push_back(fn.inc_ref().ptr());
        return fn;
      }, "fn(grad_outputs) runs before the node; a tuple it returns replaces grad_outputs.")
      .def("__getattr__", [](const Node& n, const std::string& name) -> py::object {
        if (name.rfind("_saved_", 0) == 0) {
          if (PyObject* v = n.saved_attribute(name)) return py::reinterpret_steal<py::object>(v);
        }
        throw py::attribute_error("'" + n.name() + "' object has no attribute '" + name + "'");
      })
      .def("__dir__", [](const Node& n) {
        std::vector<std::string> names = n.saved_names();
        for (const char* s : {"name", "next_functions", "register_hook", "register_prehook"}) names.push_back(s);
        return names;
      })
      .def("__repr__", [](const Node& n) { return "<" + n.name() + " object>"; });

  m.def("_is_grad_enabled", &autograd::grad_mode_enabled);
  m.def("_set_grad_enabled", &autograd::set_grad_mode, py::arg("enabled"));
  m.def("_requires_grad", [](py::handle t) { return autograd::requires_grad(tensor_arg(t, "requires_grad")); });
  m.def("_set_requires_grad", [](py::handle t, bool v) {
    autograd::set_requires_grad(tensor_arg(t, "requires_grad_"), v);
  });
  m.def("_is_leaf", [](py::handle t) { return autograd::is_leaf(tensor_arg(t, "is_leaf")); });
  m.def("_grad", [](py::handle t) {
    const autograd::AutogradMeta* meta = autograd::meta(tensor_arg(t, "grad"));
    return meta ? wrap_tensor(meta->grad) : py::none();
  });
  m.def("_set_grad", [](py::handle t, py::handle g) {
    const Tensor& self = tensor_arg(t, "grad");
    if (g.is_none()) {
      if (autograd::meta(self)) autograd::meta(self)->grad = Tensor();
      return;
    }
    const Tensor& grad = tensor_arg(g, "grad");
    YATEN_CHECK(grad.sizes() == self.sizes() && grad.dtype() == self.dtype(), RuntimeError, "assigned grad has "
                "data of a different size or type");
    autograd::materialize_meta(self).grad = grad;
  });
  m.def("_grad_fn", [](py::handle t) -> py::object {
    auto fn = autograd::grad_fn(tensor_arg(t, "grad_fn"));
    return fn ? py::cast(fn) : py::none();
  });
  m.def("_version", [](py::handle t) { return tensor_arg(t, "_version").impl()->storage()->version(); });
  m.def("_detach", [](py::handle t) { return wrap_tensor(autograd::detach(tensor_arg(t, "detach"))); });
  m.def("_detach_", [](py::handle t) {
    const Tensor& self = tensor_arg(t, "detach_");
    const autograd::AutogradMeta* meta = autograd::meta(self);
    YATEN_CHECK(!(meta && meta->view && autograd::requires_grad(meta->view->base)), RuntimeError,
                "detach_(): can't detach views in-place. Use detach() instead.");
    self.impl()->set_autograd_meta(nullptr);
  });
  m.def("_track_views", [](py::handle t) { autograd::track_views(tensor_arg(t, "__setitem__")); });
  m.def("_retains_grad", [](py::handle t) {
    const autograd::AutogradMeta* meta = autograd::meta(tensor_arg(t, "retains_grad"));
    return meta != nullptr && meta->retains_grad;
  });
  m.def("_grad_dtype", [](py::handle t) -> py::object {
    const Tensor& self = tensor_arg(t, "grad_dtype");
    YATEN_CHECK(autograd::is_leaf(self), RuntimeError, "grad_dtype can only be accessed on leaf tensors.");
    const autograd::AutogradMeta* meta = autograd::meta(self);
    const ScalarType d = meta ? meta->grad_dtype : autograd::AutogradMeta::kGradDtypeOwn;
    if (d == autograd::AutogradMeta::kGradDtypeAny) return py::none();
    const ScalarType shown = d == autograd::AutogradMeta::kGradDtypeOwn ? self.dtype() : d;
    return py::reinterpret_borrow<py::object>(python::dtype_object(shown));
  });
  m.def("_set_grad_dtype", [](py::handle t, py::handle dtype) {
    const Tensor& self = tensor_arg(t, "grad_dtype");
    YATEN_CHECK(autograd::is_leaf(self), RuntimeError, "grad_dtype can only be set on leaf tensors.");
    ScalarType d = autograd::AutogradMeta::kGradDtypeAny;
    if (!dtype.is_none()) {
      const std::optional<ScalarType> given = python::dtype_from_object(dtype.ptr());
      YATEN_CHECK(given.has_value(), RuntimeError, "grad_dtype must be a yaten.dtype or None, but got ",
                  Py_TYPE(dtype.ptr())->tp_name);
      d = *given;
    }
    autograd::materialize_meta(self).grad_dtype = d;
  });
  m.def("_output_nr", [](py::handle t) {
    const autograd::AutogradMeta* meta = autograd::meta(tensor_arg(t, "output_nr"));
    return meta != nullptr && meta->grad_fn ? meta->output_nr : 0u;
  });
  m.def("_retain_grad", [](py::handle t) {
    const Tensor& self = tensor_arg(t, "retain_grad");
    YATEN_CHECK(autograd::requires_grad(self), RuntimeError, "can't retain_grad on Tensor that has requires_grad=False");
    autograd::AutogradMeta& meta = autograd::materialize_meta(self);
    if (!meta.grad_fn || meta.retains_grad) return;
    meta.retains_grad = true;
    std::weak_ptr<TensorImpl> weak = self.weak_impl();
    meta.grad_fn->tensor_pre_hooks.push_back({meta.output_nr, [weak](const Tensor& g) -> Tensor {
      if (auto impl = weak.lock()) {
        autograd::AutogradMeta& m = autograd::materialize_meta(Tensor(impl));
        m.grad = m.grad.defined() ? yaten::add(m.grad, g, Scalar(int64_t(1))) : autograd::detach(g);
      }
      return Tensor();
    }});
  });
  m.def("_register_hook", [](py::handle t, py::object fn) {
    const Tensor& self = tensor_arg(t, "register_hook");
    YATEN_CHECK(autograd::requires_grad(self), RuntimeError, "cannot register a hook on a tensor that doesn't "
                "require gradient");
    autograd::AutogradMeta& meta = autograd::materialize_meta(self);
    if (meta.grad_fn) {
      meta.grad_fn->tensor_pre_hooks.push_back({meta.output_nr, tensor_hook(std::move(fn))});
    } else {
      meta.leaf_hooks.push_back(tensor_hook(std::move(fn)));
    }
  });
  m.def("_register_post_accumulate_grad_hook", [](py::handle t, py::object fn) {
    const Tensor& self = tensor_arg(t, "register_post_accumulate_grad_hook");
    YATEN_CHECK(autograd::requires_grad(self), RuntimeError, "cannot register a hook on a tensor that doesn't "
                "require gradient");
    YATEN_CHECK(autograd::is_leaf(self), RuntimeError, "post accumulate grad hooks cannot be registered on non-leaf "
                "tensors");
    static std::atomic<int64_t> next_id{0};
    const int64_t id = next_id++;
    auto held = keep(std::move(fn));
    autograd::materialize_meta(self).post_accumulate_hooks.emplace_back(id, [held](const Tensor& v) {
      py::gil_scoped_acquire gil;
      (*held)(wrap_tensor(v));
    });
    return id;
  }, "fn(tensor) runs after tensor.grad was accumulated in backward; returns an id for "
     "_remove_post_accumulate_grad_hook.");
  m.def("_remove_post_accumulate_grad_hook", [](py::handle t, int64_t id) {
    autograd::AutogradMeta* meta = autograd::meta(tensor_arg(t, "remove"));
    if (!meta) return;
    auto& hooks = meta->post_accumulate_hooks;
    hooks.erase(std::remove_if(hooks.begin(), hooks.end(), [id](const auto& h) { return h.first == id; }),
                hooks.end());
  });
  m.def("_set_anomaly", [](int mode) {
    YATEN_CHECK(mode >= 0 && mode <= 2, ValueError, "_set_anomaly: 0 off, 1 on, 2 on with NaN checks");
    autograd::g_anomaly.store(mode);
  });
  m.def("_anomaly", [] { return autograd::g_anomaly.load(); });
  m.def("_function_node", [](const std::string& name, py::object backward, py::handle inputs, py::handle outputs,
                             py::handle differentiable) {
    auto node = std::make_shared<PythonFunctionNode>();
    node->name_ = name;
    node->backward = keep(std::move(backward));
    for (py::handle o : inputs) {
      node->next_edges.push_back(o.is_none() ? autograd::Edge{} : autograd::gradient_edge(tensor_arg(o, name.c_str())));
    }
    std::vector<bool> flags;
    for (py::handle f : differentiable) flags.push_back(f.cast<bool>());
    uint32_t nr = 0;
    for (py::handle o : outputs) {
      const Tensor& t = tensor_arg(o, name.c_str());
      if (nr < flags.size() && flags[nr]) {
        autograd::set_history(t, node, nr);
      } else {  // a gradient that never flows: zeros of its shape reach backward, as torch materializes them
        if (node->outputs.size() <= nr) node->outputs.resize(nr + 1);
        node->outputs[nr] = {t.sizes(), t.dtype(), t.device()};
      }
      ++nr;
    }
    return std::static_pointer_cast<Node>(node);
  }, "The node of a yaten.autograd.Function call: edges to `inputs` (None: no gradient), `outputs` recorded as its "
     "outputs (those marked differentiable get it as grad_fn); backward(grads) gives one gradient per input.");
  m.def("_with_history", [](py::handle t, std::shared_ptr<Node> node, uint32_t nr) {
    Tensor alias = autograd::detach(tensor_arg(t, "saved_tensors"));
    autograd::set_history(alias, node, nr);
    return wrap_tensor(alias);
  }, "An alias of t whose history is output nr of node: a Function's saved output, given back in its backward.");
  m.def("_queue_callback", [](py::object fn) {
    auto held = keep(std::move(fn));
    autograd::queue_callback([held] {
      py::gil_scoped_acquire gil;
      (*held)();
    });
  }, "Variable._execution_engine.queue_callback: fn() runs when the running backward pass has finished.");
  m.def("_run_backward", [](py::handle tensors, py::handle grads, bool retain_graph, bool create_graph,
                            py::handle inputs, bool allow_unused) {
    const autograd::variable_list result = autograd::run_backward(
        tensors_from(tensors, "backward"), tensors_from(grads, "backward"), retain_graph, create_graph,
        tensors_from(inputs, "grad"), allow_unused);
    return tensors_tuple(result);
  });
}

}  // namespace yaten::python
