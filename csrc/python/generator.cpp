// yaten.Generator and the module-level seeding functions (manual_seed, seed, initial_seed, default_generator).
#include <pybind11/pybind11.h>

#include <cstring>

#include "core/generator.h"
#include "cuda/cuda_runtime.h"
#include "python/arg_parser.h"
#include "yaten/ops/empty.h"

namespace py = pybind11;

namespace yaten::python {
namespace {

// A Python int as a 64-bit seed: negative values wrap as in torch; values outside [-2**63, 2**64) are refused.
uint64_t seed_arg(py::handle seed, const char* fn) {
  if (!PyLong_Check(seed.ptr()) || PyBool_Check(seed.ptr())) {
    throw py::type_error(std::string(fn) + "(): seed must be an int, not " + Py_TYPE(seed.ptr())->tp_name);
  }
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(seed.ptr(), &overflow);
  if (overflow == 0) return static_cast<uint64_t>(v);
  const unsigned long long u = PyLong_AsUnsignedLongLong(seed.ptr());
  if (PyErr_Occurred()) {
    PyErr_Clear();
    throw py::value_error(std::string(fn) + "(): seed must be in [-2**63, 2**64), got " +
                          py::str(seed).cast<std::string>());
  }
  return u;
}

// The device a Generator is for: "cpu" (or None), "cuda", "cuda:N", or a yaten.device. A CUDA generator needs the
// device to exist, as in torch.
Device generator_device(py::handle device) {
  if (device.is_none()) return Device();
  const Device d = yaten::cuda::resolve(Device::parse(py::str(device).cast<std::string>()));
  if (d.is_cuda()) yaten::cuda::check_device("Generator", d.index);
  return d;
}

// torch.manual_seed and torch.seed reach every device's default generator.
void seed_all_defaults(uint64_t seed) {
  default_generator().manual_seed(seed);
  for (int i = 0; i < yaten::cuda::device_count(); ++i) cuda_default_generator(i).manual_seed(seed);
}

py::object get_state(const Generator& g) {
  Tensor state = yaten::empty({16}, ScalarType::Byte, Device());
  const uint64_t words[2] = {g.initial_seed(), g.offset()};
  std::memcpy(state.data<uint8_t>(), words, sizeof(words));
  return py::reinterpret_steal<py::object>(wrap(std::move(state)));
}

void set_state(Generator& g, py::handle state) {
  if (!is_tensor(state.ptr())) throw py::type_error("set_state(): expected a yaten.Tensor from get_state()");
  const Tensor& t = unwrap(state.ptr());
  if (t.dtype() != ScalarType::Byte || t.numel() != 16 || !t.is_contiguous() || !t.device().is_cpu()) {
    throw py::value_error("set_state(): expected the 16-element uint8 CPU tensor that get_state() returns");
  }
  uint64_t words[2];
  std::memcpy(words, t.data<uint8_t>(), sizeof(words));
  g.manual_seed(words[0]);
  g.set_offset(words[1]);
}

}  // namespace

bool is_generator_object(PyObject* o) { return py::isinstance<Generator>(o); }
Generator generator_from_object(PyObject* o) { return py::cast<Generator>(py::handle(o)); }
PyObject* generator_object(const Generator& g) { return py::cast(g).release().ptr(); }

// Takes the module as a PyObject: a function whose parameters are pybind11 types (hidden) is hidden too, and
// _C calls this one across the library boundary.
void init_generator(PyObject* module) {
  py::module_ m = py::reinterpret_borrow<py::module_>(module);
  py::class_<Generator>(m, "Generator", "A Philox4x32-10 random number generator: a seed and an offset (how many "
                                        "128-bit blocks were drawn). Pass it as `generator=` to the random ops.")
      .def(py::init([](py::handle device) { return Generator(Generator::kDefaultSeed, generator_device(device)); }),
           py::arg("device") = "cpu")
      .def("manual_seed", [](py::object self, py::handle seed) {
             self.cast<Generator&>().manual_seed(seed_arg(seed, "manual_seed"));
             return self;
           }, py::arg("seed"), "Sets the seed (and rewinds the offset); returns the generator.")
      .def("seed", [](Generator& g) {
             const uint64_t s = nondeterministic_seed();
             g.manual_seed(s);
             return s;
           }, "Seeds from the OS's entropy source and returns the seed.")
      .def("initial_seed", &Generator::initial_seed)
      .def("get_state", &get_state, "The state as a 16-element uint8 tensor (seed, offset).")
      .def("set_state", [](py::object self, py::handle state) {
             set_state(self.cast<Generator&>(), state);
             return self;
           }, py::arg("new_state"))
      .def_property("offset", &Generator::offset, &Generator::set_offset)
      .def_property_readonly("device", [](const Generator& g) {
             return py::reinterpret_steal<py::object>(device_object(g.device()));
           })
      .def("__eq__", [](const Generator& a, py::handle b) {
             return is_generator_object(b.ptr()) && a.same_as(generator_from_object(b.ptr()));
           })
      .def("__hash__", [](py::handle self) { return reinterpret_cast<intptr_t>(self.ptr()); })
      .def("__repr__", [](const Generator& g) {
             return "<yaten.Generator device=" + g.device().str() + " seed=" + std::to_string(g.initial_seed()) +
                    " offset=" + std::to_string(g.offset()) + ">";
           });
  m.attr("default_generator") = py::cast(default_generator());
  m.def("manual_seed", [](py::handle seed) {
          seed_all_defaults(seed_arg(seed, "manual_seed"));
          return default_generator();
        }, py::arg("seed"), "Seeds the default generators of the CPU and of every CUDA device; returns the CPU's.");
  m.def("seed", []() {
          const uint64_t s = nondeterministic_seed();
          seed_all_defaults(s);
          return s;
        }, "Seeds every default generator from the OS's entropy source and returns the seed.");
  m.def("_cuda_default_generator", [](int index) {
          yaten::cuda::check_device("default_generators", index);
          return cuda_default_generator(index);
        }, py::arg("index"));
  m.def("initial_seed", []() { return default_generator().initial_seed(); });
  m.def("get_rng_state", []() { return get_state(default_generator()); });
  m.def("set_rng_state", [](py::handle state) { set_state(default_generator(), state); }, py::arg("new_state"));
  m.def("_philox", [](uint64_t key, uint64_t counter, uint64_t high) {
          const auto r = philox4x32(key, counter, high);
          return py::make_tuple(r[0], r[1], r[2], r[3]);
        }, py::arg("key"), py::arg("counter"), py::arg("high") = 0, "One Philox4x32-10 block (for known-answer tests).");
}

}  // namespace yaten::python
