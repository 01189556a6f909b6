// The profiler for yaten.profiler (python/yaten/profiler.py): start and stop a profile, user ranges, and the Python
// frames of the code that made a call. Off the per-op hot path, so pybind11 serves it.
#include <Python.h>
#include <frameobject.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>

#include "profiler/profiler.h"

namespace py = pybind11;

namespace yaten::python {

namespace {
constexpr int kMaxFrames = 128;

// The calling thread's Python frames, outermost first, as "file:line(function)" joined by ';'; empty when this
// thread does not hold the GIL (a thread of yaten's pool, or code that released it).
std::string python_stack() {
  if (!PyGILState_Check()) return {};
  std::string frames[kMaxFrames];
  int n = 0;
  PyFrameObject* frame = PyEval_GetFrame();  // borrowed
  Py_XINCREF(frame);
  while (frame != nullptr && n < kMaxFrames) {
    PyCodeObject* code = PyFrame_GetCode(frame);  // new reference
    const char* file = PyUnicode_AsUTF8(code->co_filename);
    const char* name = PyUnicode_AsUTF8(code->co_name);
    frames[n++] = std::string(file ? file : "?") + ":" + std::to_string(PyFrame_GetLineNumber(frame)) + "(" +
                  (name ? name : "?") + ")";
    Py_DECREF(code);
    PyFrameObject* back = PyFrame_GetBack(frame);  // new reference
    Py_DECREF(frame);
    frame = back;
  }
  Py_XDECREF(frame);
  std::string out;
  for (int i = n - 1; i >= 0; --i) {
    out += frames[i];
    if (i) out += ';';
  }
  return out;
}
}  // namespace

void init_profiler(py::module_& m) {
  profiler::set_stack_provider(python_stack);
  m.def(
      "_profiler_start",
      [](bool cpu, bool cuda, bool record_shapes, bool with_stack, bool profile_memory) {
        profiler::Config c;
        c.cpu = cpu;
        c.cuda = cuda;
        c.record_shapes = record_shapes;
        c.with_stack = with_stack;
        c.profile_memory = profile_memory;
        profiler::start(c);
      },
      py::arg("cpu"), py::arg("cuda"), py::arg("record_shapes"), py::arg("with_stack"), py::arg("profile_memory"),
      "Starts recording an event per op call, user range and autograd node (yaten.profiler.profile calls this).");
  m.def(
      "_profiler_stop",
      []() {
        std::vector<profiler::Event> events = profiler::stop();
        py::list out;
        for (const profiler::Event& e : events) {
          out.append(py::make_tuple(e.id, e.parent, e.name, e.overload, static_cast<int>(e.kind), e.key, e.thread,
                                    e.start_ns, e.end_ns, e.shapes, e.dtypes, e.stack, e.cpu_memory, e.cuda_memory,
                                    e.device, e.cuda_us, e.gpu_start_us));
        }
        return out;
      },
      "Stops the profile and returns its events as tuples (id, parent, name, overload, kind, key, thread, start_ns, "
      "end_ns, shapes, dtypes, stack, cpu_memory, cuda_memory, device, cuda_us, gpu_start_us).");
  m.def("_profiler_is_running", &profiler::is_profiling);
  m.def(
      "_profiler_push_range", [](const std::string& name) { return profiler::push_range(name, profiler::EventKind::UserRange); },
      py::arg("name"), "Opens a user range (record_function); False when no profile is running.");
  m.def("_profiler_pop_range", &profiler::pop_range, "Closes the innermost range opened by _profiler_push_range.");
}

}  // namespace yaten::python
