// Views whose geometry an op changed in place: an out= that is a view, resized to the result's shape.
#pragma once

#include "core/tensor.h"

namespace yaten::autograd {

// `view`, a view with autograd history, now has other sizes, strides or storage offset than its view ops made:
// from now on its history is made again from its base by as_strided with the new geometry (torch's
// AsStridedBackward), not by replaying the view ops, which would make the old shape. Nothing for other tensors.
void view_geometry_changed(const Tensor& view);

}  // namespace yaten::autograd
