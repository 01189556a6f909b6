// The tests' own operators, namespace yaten_test: registered with the same macros an extension would use, so the
// tests can check C++ registration, calls by name, registration sites and threads racing a registration without
// building an extension. Built beside yaten._C as the module yaten._test_library (CMakeLists.txt), which only the
// tests import (`import yaten._test_library`): the ops never show in a user's yaten.ops.list().
#include <Python.h>

#include <atomic>
#include <thread>
#include <vector>

#include "core/gil.h"
#include "dispatch/library.h"
#include "iter/tensor_iterator.h"
#include "iter/vec_math.h"
#include "kernels/unary_math.h"
#include "kernels/special_math.h"
#include "python/python_kernel.h"
#include "yaten/ops/add.h"
#include "yaten/ops/empty.h"
#include "yaten/ops/equal.h"
#include "yaten/ops/mul.h"

namespace yaten::native {
namespace {
Tensor twice_cpu(const Tensor& x) { return yaten::add(x, x, Scalar(int64_t(1))); }
Tensor scale_and_shift_cpu(const Tensor& x, double scale, const Scalar& shift) {
  return yaten::add(yaten::mul(x, Scalar(scale)), shift, Scalar(int64_t(1)));
}

// What the generator writes for every op (templates/op_source.cpp.j2), so that a Python kernel for twice also has a
// typed entry point.
Tensor twice_python(DispatchKeySet ks, const Tensor& x) {
  if (python::PythonKernelCall call("yaten_test::twice", ks); call.found()) {
    call.arg(x);
    return call.result<Tensor>();
  }
  using Kernel = Tensor (*)(DispatchKeySet, const Tensor&);
  return Dispatcher::singleton().operator_entry("yaten_test::twice").lookup<Kernel>(ks)(ks, x);
}

// Calls yaten_test::twice(x) `calls` times from each of `threads` C++ threads, with the GIL released, alternating the
// typed (generated C++ API) and the boxed (by name) path, while the test registers and removes Python kernels for it
// from another Python thread. Returns [wrong results, exceptions]; raises with the first exception's message.
// See Note [Dispatcher slots are read as one unit].
Tensor call_from_threads_cpu(const Tensor& x, int64_t threads, int64_t calls) {
  using Twice = Tensor (*)(DispatchKeySet, const Tensor&);
  const OperatorEntry& op = Dispatcher::singleton().operator_entry("yaten_test::twice");
  const Tensor expected = yaten::add(x, x, Scalar(int64_t(1)));
  std::atomic<int64_t> wrong{0}, errors{0};
  std::string first_error;  // written once, by the thread that counts the first error
  {
    yaten::detail::ScopedGilRelease release_gil(true);
    std::vector<std::thread> pool;
    for (int64_t t = 0; t < threads; ++t) {
      pool.emplace_back([&, t] {
        const DispatchKeySet ks = dispatch_key_set(x);
        for (int64_t i = 0; i < calls; ++i) {
          try {
            Tensor y;
            if ((i + t) % 2 == 0) {
              y = op.lookup<Twice>(ks)(ks, x);
            } else {
              Stack stack{IValue(x)};
              op.call_boxed(ks, stack);
              y = stack.at(0).tensor;
            }
            if (!yaten::equal(y, expected)) wrong.fetch_add(1);
          } catch (const std::exception& e) {
            if (errors.fetch_add(1) == 0) first_error = e.what();
          }
        }
      });
    }
    for (std::thread& th : pool) th.join();
  }
  YATEN_CHECK(errors.load() == 0, RuntimeError, "call_from_threads: ", errors.load(), " calls raised, the first: ",
              first_error);
  Tensor out = yaten::empty({2}, ScalarType::Long);
  out.data<int64_t>()[0] = wrong.load();
  out.data<int64_t>()[1] = errors.load();
  return out;
}

// The element functors of ops whose CPU kernels run vector forms instead (iter/vec*.h), applied one element at a
// time: on a build with CUDA they are what the CUDA kernels compute (Design rule [Shared element math]), so the
// tests can hold them to the same references without a GPU. x: a contiguous float32 or float64 tensor.
template <template <typename> class Op>
Tensor apply_functor(const Tensor& x) {
  Tensor out = yaten::empty(x.sizes(), x.dtype());
  if (x.dtype() == ScalarType::Double) {
    for (int64_t i = 0; i < x.numel(); ++i) out.data<double>()[i] = Op<double>{}(x.data<double>()[i]);
  } else {
    YATEN_CHECK(x.dtype() == ScalarType::Float, TypeError, "element_functor: float32 or float64, not ",
                dtype_name(x.dtype()));
    for (int64_t i = 0; i < x.numel(); ++i) out.data<float>()[i] = Op<float>{}(x.data<float>()[i]);
  }
  return out;
}
Tensor element_functor_cpu(const Tensor& x, const std::string& name) {
  YATEN_CHECK(x.is_contiguous(), ValueError, "element_functor: a contiguous tensor");
  if (name == "erfinv") return apply_functor<ErfinvOp>(x);
  if (name == "erf") return apply_functor<ErfOp>(x);
  if (name == "erfc") return apply_functor<ErfcOp>(x);
  if (name == "lgamma") return apply_functor<LgammaOp>(x);
  if (name == "digamma") return apply_functor<DigammaOp>(x);
  YATEN_CHECK(false, ValueError, "element_functor: no functor named '", name, "'");
  return x;
}

// Element functions written the way docs/cpu-math.md tells an op's author to (Note [Element functions in lanes]):
// generic lambdas over math::, which elementwise_kernel runs in SIMD lanes. The tests hold their values to torch's
// and to yaten's own vector kernels, bit for bit, which only the lanes give.
Tensor lanes_celu_cpu(const Tensor& x, double alpha) {
  TensorIteratorConfig config;
  config.op_name = "lanes_celu";
  config.rule = DtypeRule::PromoteFloat;
  config.inputs = {x};
  TensorIterator iter(std::move(config));
  const auto run = [&](auto zero) {
    using scalar_t = decltype(zero);
    const opmath_t<scalar_t> a = static_cast<opmath_t<scalar_t>>(alpha);
    elementwise_kernel<scalar_t>(iter, [a](auto v) { return v > 0 ? v : a * math::expm1(v / a); });
  };
  switch (iter.compute_dtype()) {
    case ScalarType::Float: run(float()); break;
    case ScalarType::Double: run(double()); break;
    case ScalarType::Half: run(Half()); break;
    case ScalarType::BFloat16: run(BFloat16()); break;
    default: YATEN_FAIL(TypeError, "lanes_celu: a floating tensor, not ", dtype_name(iter.compute_dtype()));
  }
  return iter.finish();
}
// Two inputs: log(e^a + e^b) written plainly, the larger exponent taken out.
Tensor lanes_logaddexp_cpu(const Tensor& a, const Tensor& b) {
  TensorIteratorConfig config;
  config.op_name = "lanes_logaddexp";
  config.rule = DtypeRule::PromoteFloat;
  config.inputs = {a, b};
  TensorIterator iter(std::move(config));
  const auto run = [&](auto zero) {
    elementwise_kernel<decltype(zero)>(iter, [](auto x, auto y) {
      const auto m = x > y ? x : y;
      const auto d = x > y ? y - x : x - y;
      return m + math::log1p(math::exp(d));
    });
  };
  switch (iter.compute_dtype()) {
    case ScalarType::Float: run(float()); break;
    case ScalarType::Double: run(double()); break;
    default: YATEN_FAIL(TypeError, "lanes_logaddexp: float32 or float64, not ", dtype_name(iter.compute_dtype()));
  }
  return iter.finish();
}
}  // namespace
}  // namespace yaten::native

YATEN_LIBRARY(yaten_test, m) {
  m.def("twice(Tensor x) -> Tensor");
  m.python_trampoline("twice", yaten::native::twice_python);
  m.def("scale_and_shift(Tensor x, float scale, Scalar shift=0) -> Tensor");
  m.def("cuda_only(Tensor x) -> Tensor");
  m.def("call_from_threads(Tensor x, int threads, int calls) -> Tensor");
  m.def("element_functor(Tensor x, str name) -> Tensor");
  m.def("lanes_celu(Tensor x, float alpha=1.0) -> Tensor");
  m.def("lanes_logaddexp(Tensor a, Tensor b) -> Tensor");
}

YATEN_LIBRARY_IMPL(yaten_test, CPU, m) {
  m.impl("twice", YATEN_FN(yaten::native::twice_cpu));
  m.impl("scale_and_shift", YATEN_FN(yaten::native::scale_and_shift_cpu));
  m.impl("call_from_threads", YATEN_FN(yaten::native::call_from_threads_cpu));
  m.impl("element_functor", YATEN_FN(yaten::native::element_functor_cpu));
  m.impl("lanes_celu", YATEN_FN(yaten::native::lanes_celu_cpu));
  m.impl("lanes_logaddexp", YATEN_FN(yaten::native::lanes_logaddexp_cpu));
}

YATEN_LIBRARY_IMPL(yaten_test, CUDA, m) {
  m.impl("cuda_only", YATEN_FN(yaten::native::twice_cpu));
}

// The module itself is empty: importing it runs the blocks above (static initializers of this library).
extern "C" __attribute__((visibility("default"))) PyObject* PyInit__test_library() {
  static PyModuleDef def = {PyModuleDef_HEAD_INIT, "yaten._test_library",
                            "The tests' operators (namespace yaten_test), registered on import.", -1, nullptr};
  return PyModule_Create(&def);
}
