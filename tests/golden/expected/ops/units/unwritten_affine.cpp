// @generated from ops.yaml by codegen (templates/op_unit.cpp.j2): edit those, not this
// The translation unit of affine, whose kernels no header defines yet (Note [Op units], codegen/gen.py).
#include "ops/affine.cpp"
