// The CUDA runtime for yaten.cuda (python/yaten/cuda.py): devices, streams and events as integer handles, the
// caching allocator's statistics, pinned memory. Off the per-op hot path, so pybind11 serves it.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "core/blas.h"
#include "core/tensor.h"
#include "cuda/cuda_runtime.h"
#include "cuda/cudnn.h"
#include "cuda/cusolver.h"
#include "python/tensor_type.h"
#include "yaten/ops/copy.h"

namespace py = pybind11;

namespace yaten::python {

namespace {
using Handle = uintptr_t;
void* handle_ptr(Handle h) { return reinterpret_cast<void*>(h); }
Handle ptr_handle(void* p) { return reinterpret_cast<Handle>(p); }

const Tensor& tensor_arg(py::handle t, const char* op) {
  YATEN_CHECK(is_tensor(t.ptr()), TypeError, op, ": expected a Tensor, got ", Py_TYPE(t.ptr())->tp_name);
  return unwrap(t.ptr());
}

}  // namespace

void init_cuda(py::module_& m) {
  m.def("_cublas_set_candidates", &cuda::set_cublas_candidates, py::arg("paths"),
        "Where to look for libcublas, in order (yaten/cuda.py sets this at import).");
  m.def("_cublas_path", &cuda::cublas_path, "The path of the libcublas in use, opening it first.");
  m.def("_cusolver_set_candidates", &cuda::set_cusolver_candidates, py::arg("paths"),
        "Where to look for libcusolver, in order (yaten/cuda.py sets this at import).");
  m.def("_cusolver_path", &cuda::cusolver_path, "The path of the libcusolver in use, opening it first.");
  m.def("_cufft_set_candidates", &cuda::set_cufft_candidates, py::arg("paths"),
        "Where to look for libcufft, in order (yaten/cuda.py sets this at import).");
  m.def("_cufft_path", &cuda::cufft_path, "The path of the libcufft in use, opening it first.");
  m.def("_cudnn_set_candidates", &cuda::set_cudnn_candidates, py::arg("paths"),
        "Where to look for libcudnn, in order (yaten/cuda.py sets this at import).");
  m.def("_cudnn_is_available", &cuda::cudnn_available, "Whether a libcudnn 9 opens (never raises).");
  m.def("_cudnn_path", &cuda::cudnn_path, "The path of the libcudnn in use, opening it first.");
  m.def("_cudnn_version", &cuda::cudnn_version, "cudnnGetVersion() of the libcudnn in use, opening it first.");
  m.def("_cudnn_call_counts", &cuda::cudnn_call_counts,
        "(execution plan runs, _v7 call runs): how the convolutions of this process reached cuDNN.");
  m.def("_cudnn_output_size",
        [](std::vector<int64_t> input, std::vector<int64_t> weight, std::vector<int64_t> padding,
           std::vector<int64_t> stride, std::vector<int64_t> dilation, int64_t groups) {
          const int dims = static_cast<int>(input.size()) - 2;
          return cuda::cudnn_output_size({ScalarType::Float, 0, dims, input, weight, input, padding, stride, dilation,
                                          groups});
        },
        "The output size cuDNN's descriptors give a float32 convolution (for tests: no GPU needed).");
  m.def("_get_cudnn_settings", []() {
    const cuda::CudnnSettings s = cuda::cudnn_settings();
    return py::make_tuple(s.enabled, s.allow_tf32, s.deterministic, s.benchmark);
  }, "yaten.backends.cudnn's (enabled, allow_tf32, deterministic, benchmark).");
  m.def("_set_cudnn_settings", [](bool enabled, bool allow_tf32, bool deterministic, bool benchmark) {
    cuda::set_cudnn_settings({enabled, allow_tf32, deterministic, benchmark});
  });
  m.def("_get_float32_matmul_precision", []() { return static_cast<int>(blas::float32_matmul_precision()); });
  m.def("_set_float32_matmul_precision",
        [](int p) { blas::set_float32_matmul_precision(static_cast<blas::Float32MatmulPrecision>(p)); });
  m.def("_cuda_device_count", &cuda::device_count);
  m.def("_cuda_current_device", &cuda::current_device);
  m.def("_cuda_set_device", &cuda::set_device);
  m.def("_cuda_check_device", [](int index) { cuda::check_device("device", index); });
  m.def("_cuda_device_name", &cuda::device_name);
  m.def("_cuda_device_properties", &cuda::device_properties);
  m.def("_cuda_synchronize", &cuda::device_synchronize);

  m.def("_cuda_current_stream", [](int device) { return ptr_handle(cuda::current_stream(device)); });
  m.def("_cuda_set_stream", [](int device, Handle s) { cuda::set_current_stream(device, handle_ptr(s)); });
  m.def("_cuda_stream_create", [](int device, int priority) { return ptr_handle(cuda::create_stream(device, priority)); });
  m.def("_cuda_stream_synchronize", [](int device, Handle s) { cuda::stream_synchronize(device, handle_ptr(s)); });
  m.def("_cuda_stream_query", [](int device, Handle s) { return cuda::stream_query(device, handle_ptr(s)); });
  m.def("_cuda_stream_wait_event",
        [](int device, Handle s, Handle e) { cuda::stream_wait_event(device, handle_ptr(s), handle_ptr(e)); });
  m.def("_cuda_stream_wait_stream",
        [](int device, Handle s, Handle other) { cuda::stream_wait_stream(device, handle_ptr(s), handle_ptr(other)); });
  m.def("_cuda_stream_priority_range", &cuda::stream_priority_range);

  m.def("_cuda_event_create", [](int device, bool timing, bool blocking) {
    return ptr_handle(cuda::create_event(device, timing, blocking));
  });
  m.def("_cuda_event_destroy", [](int device, Handle e) { cuda::destroy_event(device, handle_ptr(e)); });
  m.def("_cuda_event_record", [](int device, Handle e, Handle s) { cuda::record_event(device, handle_ptr(e), handle_ptr(s)); });
  m.def("_cuda_event_synchronize", [](Handle e) { cuda::event_synchronize(handle_ptr(e)); });
  m.def("_cuda_event_query", [](Handle e) { return cuda::event_query(handle_ptr(e)); });
  m.def("_cuda_event_elapsed_ms", [](Handle a, Handle b) { return cuda::event_elapsed_ms(handle_ptr(a), handle_ptr(b)); });

  m.def("_cuda_memory_stats", [](int device) {
    const cuda::AllocatorStats s = cuda::allocator_stats(device);
    py::dict d;  // torch.cuda.memory_stats()'s keys
    d["allocated_bytes.all.current"] = s.allocated_bytes;
    d["allocated_bytes.all.peak"] = s.peak_allocated_bytes;
    d["reserved_bytes.all.current"] = s.reserved_bytes;
    d["reserved_bytes.all.peak"] = s.peak_reserved_bytes;
    d["requested_bytes.all.current"] = s.requested_bytes;
    d["allocation.all.current"] = s.allocations;
    d["allocation.all.peak"] = s.peak_allocations;
    d["allocation.all.allocated"] = s.allocation_requests;
    d["segment.all.current"] = s.segments;
    d["num_device_alloc"] = s.num_device_alloc;
    d["num_device_free"] = s.num_device_free;
    d["num_alloc_retries"] = s.num_alloc_retries;
    d["num_ooms"] = s.num_ooms;
    return d;
  });
  m.def("_cuda_reset_peak_memory_stats", &cuda::reset_peak_stats);
  m.def("_cuda_empty_cache", &cuda::empty_cache);
  m.def("_cuda_record_stream", [](py::handle t, Handle s) {
    const Tensor& tensor = tensor_arg(t, "record_stream");
    YATEN_CHECK(tensor.device().is_cuda(), RuntimeError, "record_stream: expected a CUDA tensor, got a ",
                tensor.device().str(), " one");
    if (tensor.numel() == 0) return;
    cuda::record_stream(tensor.data_ptr(), handle_ptr(s));
  });
  m.def("_pin_memory", [](py::handle t) { return py::reinterpret_steal<py::object>(wrap(pin_memory(tensor_arg(t, "pin_memory")))); });
  m.def("_is_pinned", [](py::handle t) {
    const Tensor& tensor = tensor_arg(t, "is_pinned");
    return tensor.device().is_cpu() && cuda::is_pinned(tensor.impl()->storage()->data());
  });
  m.attr("_OutOfMemoryError") = py::reinterpret_borrow<py::object>(out_of_memory_error());
}

}  // namespace yaten::python
