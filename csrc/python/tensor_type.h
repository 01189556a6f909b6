// The hand-written half of the Python layer: types, construction from Python data, module setup.
#pragma once

#include "python/arg_parser.h"

namespace yaten::python {

// Creates yaten.dtype, yaten.Tensor (with every generated method) and adds every generated function to `module`.
void init_types(PyObject* module);
// yaten.tensor(data, dtype=None, device=None): always copies, like torch.tensor.
Tensor tensor_from_data(PyObject* data, std::optional<ScalarType> dtype, std::optional<Device> device);
// DLPack (python/dlpack.cpp): a capsule lending `tensor`'s memory, and a tensor over a capsule's memory.
PyObject* to_dlpack(const Tensor& tensor, bool versioned);
Tensor from_dlpack_capsule(PyObject* capsule);
// yaten.device is a Python class (yaten/_device.py); the C++ side creates its instances through it.
void set_device_class(PyObject* cls);
// yaten.Size (yaten/_size.py): the type of Tensor.shape and Tensor.size(), a tuple subclass.
void set_size_type(PyObject* cls);
// An instance of `cls` (yaten.Tensor or a subclass of it, such as nn.Parameter) holding `tensor`: torch's
// Tensor._make_subclass.
PyObject* wrap_as(PyObject* cls, Tensor tensor);

}  // namespace yaten::python
