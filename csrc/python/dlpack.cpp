// DLPack export (Tensor.__dlpack__) and import (yaten.from_dlpack), both zero-copy.
//
// Export: the capsule owns a heap context holding a Tensor (so the storage lives as long as the consumer needs
// it) and the shape/strides arrays. If nobody consumes the capsule, its destructor frees the context. Import: the
// tensor's storage calls the producer's deleter, under the GIL (producers such as NumPy drop Python references).
#include "python/dlpack.h"

#include <cstring>
#include <vector>

#include "python/arg_parser.h"
#include "python/tensor_type.h"

namespace yaten::python {

namespace {

constexpr const char* kVersionedName = "dltensor_versioned";
constexpr const char* kLegacyName = "dltensor";
constexpr const char* kUsedVersionedName = "used_dltensor_versioned";
constexpr const char* kUsedLegacyName = "used_dltensor";

struct ExportContext {
  Tensor tensor;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
};

DLDataType dl_dtype(ScalarType t) {
  switch (t) {
    case ScalarType::Bool: return {kDLBool, 8, 1};
    case ScalarType::Byte: return {kDLUInt, 8, 1};
    case ScalarType::Char: return {kDLInt, 8, 1};
    case ScalarType::Short: return {kDLInt, 16, 1};
    case ScalarType::Int: return {kDLInt, 32, 1};
    case ScalarType::Long: return {kDLInt, 64, 1};
    case ScalarType::UInt16: return {kDLUInt, 16, 1};
    case ScalarType::UInt32: return {kDLUInt, 32, 1};
    case ScalarType::UInt64: return {kDLUInt, 64, 1};
    case ScalarType::Half: return {kDLFloat, 16, 1};
    case ScalarType::Float: return {kDLFloat, 32, 1};
    case ScalarType::Double: return {kDLFloat, 64, 1};
    case ScalarType::BFloat16: return {kDLBfloat, 16, 1};
    case ScalarType::ComplexFloat: return {kDLComplex, 64, 1};
    case ScalarType::ComplexDouble: return {kDLComplex, 128, 1};
    default: YATEN_FAIL(TypeError, "__dlpack__: undefined dtype");
  }
}

ScalarType scalar_type_of_dl(DLDataType t) {
  YATEN_CHECK(t.lanes == 1, TypeError, "from_dlpack: vector dtypes (lanes=", t.lanes, ") are not supported");
  switch (t.code) {
    case kDLBool: if (t.bits == 8) return ScalarType::Bool; break;
    case kDLUInt:
      if (t.bits == 8) return ScalarType::Byte;
      if (t.bits == 16) return ScalarType::UInt16;
      if (t.bits == 32) return ScalarType::UInt32;
      if (t.bits == 64) return ScalarType::UInt64;
      break;
    case kDLInt:
      if (t.bits == 8) return ScalarType::Char;
      if (t.bits == 16) return ScalarType::Short;
      if (t.bits == 32) return ScalarType::Int;
      if (t.bits == 64) return ScalarType::Long;
      break;
    case kDLFloat:
      if (t.bits == 16) return ScalarType::Half;
      if (t.bits == 32) return ScalarType::Float;
      if (t.bits == 64) return ScalarType::Double;
      break;
    case kDLBfloat: if (t.bits == 16) return ScalarType::BFloat16; break;
    case kDLComplex:
      if (t.bits == 64) return ScalarType::ComplexFloat;
      if (t.bits == 128) return ScalarType::ComplexDouble;
      break;
    default: break;
  }
  YATEN_FAIL(TypeError, "from_dlpack: unsupported DLPack dtype (code ", int(t.code), ", ", int(t.bits),
             " bits); yaten has bool, uint8-uint64, int8-int64, float16, bfloat16, float32, float64, complex64 and "
             "complex128");
}

void fill_dl_tensor(DLTensor& dl, ExportContext* ctx) {
  const Tensor& t = ctx->tensor;
  dl.data = t.numel() ? t.data_ptr() : nullptr;
  dl.device = t.device().is_cuda() ? DLDevice{kDLCUDA, std::max<int32_t>(t.device().index, 0)} : DLDevice{kDLCPU, 0};
  dl.ndim = static_cast<int32_t>(t.dim());
  dl.dtype = dl_dtype(t.dtype());
  ctx->shape = t.sizes();
  ctx->strides = t.strides();
  dl.shape = ctx->shape.data();
  dl.strides = ctx->strides.data();
  dl.byte_offset = 0;
}

void delete_versioned(DLManagedTensorVersioned* self) {
  delete static_cast<ExportContext*>(self->manager_ctx);
  delete self;
}
void delete_legacy(DLManagedTensor* self) {
  delete static_cast<ExportContext*>(self->manager_ctx);
  delete self;
}

// An unconsumed capsule frees what it holds; a consumed one was renamed "used_..." and belongs to the consumer.
void capsule_destructor(PyObject* capsule) {
  if (PyCapsule_IsValid(capsule, kVersionedName)) {
    auto* m = static_cast<DLManagedTensorVersioned*>(PyCapsule_GetPointer(capsule, kVersionedName));
    if (m && m->deleter) m->deleter(m);
  } else if (PyCapsule_IsValid(capsule, kLegacyName)) {
    auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, kLegacyName));
    if (m && m->deleter) m->deleter(m);
  }
}

// What an imported tensor's storage holds, so it can call the producer's deleter at the end.
struct ImportOwner {
  DLManagedTensorVersioned* versioned = nullptr;
  DLManagedTensor* legacy = nullptr;
};

void release_import(void* context, size_t) {
  auto* owner = static_cast<ImportOwner*>(context);
  if (Py_IsInitialized()) {
    PyGILState_STATE gil = PyGILState_Ensure();
    if (owner->versioned && owner->versioned->deleter) owner->versioned->deleter(owner->versioned);
    if (owner->legacy && owner->legacy->deleter) owner->legacy->deleter(owner->legacy);
    PyGILState_Release(gil);
  }
  delete owner;
}

}  // namespace

PyObject* to_dlpack(const Tensor& tensor, bool versioned) {
  auto* ctx = new ExportContext{tensor, {}, {}};
  if (versioned) {
    auto* m = new DLManagedTensorVersioned{};
    m->version = {1, 1};
    m->manager_ctx = ctx;
    m->deleter = &delete_versioned;
    m->flags = 0;
    fill_dl_tensor(m->dl_tensor, ctx);
    PyObject* capsule = PyCapsule_New(m, kVersionedName, &capsule_destructor);
    if (!capsule) {
      delete_versioned(m);
      throw PythonErrorSet();
    }
    return capsule;
  }
  auto* m = new DLManagedTensor{};
  m->manager_ctx = ctx;
  m->deleter = &delete_legacy;
  fill_dl_tensor(m->dl_tensor, ctx);
  PyObject* capsule = PyCapsule_New(m, kLegacyName, &capsule_destructor);
  if (!capsule) {
    delete_legacy(m);
    throw PythonErrorSet();
  }
  return capsule;
}

Tensor from_dlpack_capsule(PyObject* capsule) {
  auto* owner = new ImportOwner();
  DLTensor* dl = nullptr;
  if (PyCapsule_IsValid(capsule, kVersionedName)) {
    owner->versioned = static_cast<DLManagedTensorVersioned*>(PyCapsule_GetPointer(capsule, kVersionedName));
    const uint32_t major = owner->versioned->version.major;
    if (major > 1) {
      delete owner;  // the capsule, not renamed, still frees the tensor
      YATEN_FAIL(RuntimeError, "from_dlpack: the producer speaks DLPack ", major, ".x; yaten understands 1.x");
    }
    dl = &owner->versioned->dl_tensor;
    PyCapsule_SetName(capsule, kUsedVersionedName);
  } else if (PyCapsule_IsValid(capsule, kLegacyName)) {
    owner->legacy = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, kLegacyName));
    dl = &owner->legacy->dl_tensor;
    PyCapsule_SetName(capsule, kUsedLegacyName);
  } else {
    delete owner;
    YATEN_FAIL(ValueError, "from_dlpack: expected an unused DLPack capsule ('dltensor' or 'dltensor_versioned'); a "
               "capsule can be consumed only once");
  }
  // From here the producer's memory is ours to release, whatever happens.
  Allocation allocation{static_cast<char*>(dl->data) + dl->byte_offset, owner, &release_import};
  auto storage_guard = std::make_shared<StorageImpl>(allocation, 0, Device());  // releases on error below
  const ScalarType dtype = scalar_type_of_dl(dl->dtype);
  Device device;
  if (dl->device.device_type == kDLCUDA) {
    device = Device(DeviceType::CUDA, dl->device.device_id);
  } else {
    YATEN_CHECK(dl->device.device_type == kDLCPU || dl->device.device_type == kDLCUDAHost, RuntimeError,
                "from_dlpack: unsupported device type ", int(dl->device.device_type), " (yaten has CPU and CUDA)");
  }
  std::vector<int64_t> shape(dl->shape, dl->shape + dl->ndim);
  std::vector<int64_t> strides = dl->strides ? std::vector<int64_t>(dl->strides, dl->strides + dl->ndim)
                                             : contiguous_strides(shape);
  int64_t extent = 1;
  bool empty = false;
  for (int i = 0; i < dl->ndim; ++i) {
    YATEN_CHECK(strides[i] >= 0, ValueError, "from_dlpack: negative strides are not supported");
    empty = empty || shape[i] == 0;
    extent += (shape[i] - 1) * strides[i];
  }
  // Note [Unaligned foreign memory] (python/module.cpp): no element read misaligned
  YATEN_CHECK(empty || reinterpret_cast<uintptr_t>(allocation.data) % static_cast<uintptr_t>(element_size(dtype)) == 0,
              ValueError, "from_dlpack: the producer's data does not start at a multiple of its ",
              element_size(dtype), "-byte element size (an unaligned view); yaten shares only aligned memory: copy "
              "it first");
  // Re-make the storage with its real size and device; the guard must not release what the new one owns.
  auto storage = std::make_shared<StorageImpl>(allocation, static_cast<size_t>((empty ? 0 : extent) * element_size(dtype)),
                                               device);
  storage_guard->disown();
  // DLPack 1.x's DLPACK_FLAG_BITMASK_READ_ONLY: the producer forbids writes
  storage->set_read_only(owner->versioned != nullptr && (owner->versioned->flags & 1u) != 0);
  return Tensor(std::make_shared<TensorImpl>(std::move(storage), dtype, shape, strides, 0));
}

}  // namespace yaten::python
