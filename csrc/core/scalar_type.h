// The fifteen element types of yaten, their C++ types, names and promotion lattice.
//
// The order of the enum is the order of torch's ScalarType for these types, so a promotion table written against
// torch's reads the same here. The two complex types are listed apart (YATEN_FORALL_COMPLEX_TYPES), and so are the
// wide unsigned integers (YATEN_FORALL_UNSIGNED_TYPES: uint16, uint32, uint64, which the array API standard
// requires): most kernels have no complex or wide-unsigned form, so what instantiates code for "every dtype"
// (visit_dtype) means the ten real ones, as torch's AT_DISPATCH_ALL_TYPES does; an op takes the others where its
// ops.yaml entry names them (`dtypes: [all, complex, unsigned]`). Names are torch's Python names (float32, not
// Float), because that is what users see.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>

#include "core/complex.h"
#include "core/error.h"
#include "core/half.h"

namespace yaten {

// The real types in two runs, because torch's order puts the complex types between them.
#define YATEN_FORALL_REAL_TYPES_BEFORE_COMPLEX(_) \
  _(uint8_t, Byte, uint8)                         \
  _(int8_t, Char, int8)                           \
  _(int16_t, Short, int16)                        \
  _(int32_t, Int, int32)                          \
  _(int64_t, Long, int64)                         \
  _(Half, Half, float16)                          \
  _(float, Float, float32)                        \
  _(double, Double, float64)
#define YATEN_FORALL_REAL_TYPES_AFTER_COMPLEX(_) \
  _(bool, Bool, bool)                            \
  _(BFloat16, BFloat16, bfloat16)

// The ten real types.
#define YATEN_FORALL_SCALAR_TYPES(_) YATEN_FORALL_REAL_TYPES_BEFORE_COMPLEX(_) YATEN_FORALL_REAL_TYPES_AFTER_COMPLEX(_)

#define YATEN_FORALL_COMPLEX_TYPES(_)             \
  _(Complex<float>, ComplexFloat, complex64)      \
  _(Complex<double>, ComplexDouble, complex128)

// The twelve, in the enum's (torch's) order.
#define YATEN_FORALL_SCALAR_TYPES_AND_COMPLEX(_) \
  YATEN_FORALL_REAL_TYPES_BEFORE_COMPLEX(_) YATEN_FORALL_COMPLEX_TYPES(_) YATEN_FORALL_REAL_TYPES_AFTER_COMPLEX(_)

// The unsigned integers wider than a byte (torch's "barebones" unsigned types, after bfloat16 in its enum too).
#define YATEN_FORALL_UNSIGNED_TYPES(_) \
  _(uint16_t, UInt16, uint16)          \
  _(uint32_t, UInt32, uint32)          \
  _(uint64_t, UInt64, uint64)

// All fifteen, in the enum's order: what converts, copies, fills and prints.
#define YATEN_FORALL_DTYPES(_) YATEN_FORALL_SCALAR_TYPES_AND_COMPLEX(_) YATEN_FORALL_UNSIGNED_TYPES(_)

enum class ScalarType : int8_t {
#define YATEN_DEFINE_ENUM(ctype, name, pyname) name,
  YATEN_FORALL_DTYPES(YATEN_DEFINE_ENUM)
#undef YATEN_DEFINE_ENUM
      Undefined,
};
constexpr int kNumScalarTypes = static_cast<int>(ScalarType::Undefined);

// The Python name: "float32", "int64", ...
const char* dtype_name(ScalarType t);
// Parses a Python name ("float32", "float", "half", ...); Undefined when unknown.
ScalarType dtype_from_name(const std::string& name);

namespace detail {
// The RuntimeError "OP: undefined dtype" and the NotImplementedError "OP: not implemented for DTYPE", out of line
// (core/dtypes.cpp): inline, each message was compiled again in every unit that switches over dtypes.
[[noreturn]] void undefined_dtype(const char* op);
[[noreturn]] void dtype_not_implemented(const char* op, ScalarType dtype);
}  // namespace detail

inline int64_t element_size(ScalarType t) {
  switch (t) {
    case ScalarType::Byte: case ScalarType::Char: case ScalarType::Bool: return 1;
    case ScalarType::Short: case ScalarType::Half: case ScalarType::BFloat16: case ScalarType::UInt16: return 2;
    case ScalarType::Int: case ScalarType::Float: case ScalarType::UInt32: return 4;
    case ScalarType::Long: case ScalarType::Double: case ScalarType::ComplexFloat: case ScalarType::UInt64: return 8;
    case ScalarType::ComplexDouble: return 16;
    default: detail::undefined_dtype("element_size");
  }
}

inline bool is_floating_point(ScalarType t) {
  return t == ScalarType::Half || t == ScalarType::Float || t == ScalarType::Double || t == ScalarType::BFloat16;
}
inline bool is_complex(ScalarType t) { return t == ScalarType::ComplexFloat || t == ScalarType::ComplexDouble; }
// The dtypes autograd tracks: floating and complex.
inline bool is_differentiable_dtype(ScalarType t) { return is_floating_point(t) || is_complex(t); }
// complex64 -> float32, complex128 -> float64; any other dtype is its own.
inline ScalarType to_real_dtype(ScalarType t) {
  return t == ScalarType::ComplexFloat ? ScalarType::Float : t == ScalarType::ComplexDouble ? ScalarType::Double : t;
}
// The complex dtype whose parts are `t` (float16 and bfloat16 parts are float32's, as yaten has no complex32).
inline ScalarType to_complex_dtype(ScalarType t) {
  if (is_complex(t)) return t;
  return t == ScalarType::Double ? ScalarType::ComplexDouble : ScalarType::ComplexFloat;
}
inline bool is_integral(ScalarType t, bool include_bool) {
  switch (t) {
    case ScalarType::Byte: case ScalarType::Char: case ScalarType::Short: case ScalarType::Int:
    case ScalarType::Long: case ScalarType::UInt16: case ScalarType::UInt32: case ScalarType::UInt64: return true;
    case ScalarType::Bool: return include_bool;
    default: return false;
  }
}
// uint8, uint16, uint32, uint64.
inline bool is_unsigned(ScalarType t) {
  return t == ScalarType::Byte || t == ScalarType::UInt16 || t == ScalarType::UInt32 || t == ScalarType::UInt64;
}
// uint16, uint32, uint64: the dtypes that only the ops whose entries name them take.
inline bool is_wide_unsigned(ScalarType t) {
  return t == ScalarType::UInt16 || t == ScalarType::UInt32 || t == ScalarType::UInt64;
}

// torch.promote_types. See Note [Type promotion] in core/type_promotion.h.
ScalarType promote_types(ScalarType a, ScalarType b);

// torch.can_cast: whether a value of dtype `from` may be written into `to` by an op's type promotion
// (no complex -> real, no float -> integral, no non-bool -> bool).
bool can_cast(ScalarType from, ScalarType to);

// C++ type <-> ScalarType.
template <typename T> struct CppTypeToScalarType;
#define YATEN_SPECIALIZE_CPP_TO(ctype, name, pyname) \
  template <> struct CppTypeToScalarType<ctype> { static constexpr ScalarType value = ScalarType::name; };
YATEN_FORALL_DTYPES(YATEN_SPECIALIZE_CPP_TO)
#undef YATEN_SPECIALIZE_CPP_TO
template <typename T>
constexpr ScalarType scalar_type_of = CppTypeToScalarType<T>::value;

// The type a kernel computes in: reduced-precision floats widen to float (Design rule [Opmath]).
template <typename T> struct OpMath { using type = T; };
template <> struct OpMath<Half> { using type = float; };
template <> struct OpMath<BFloat16> { using type = float; };
template <typename T>
using opmath_t = typename OpMath<T>::type;

}  // namespace yaten
