// Definitions for core/scalar_type.h and core/type_promotion.h: dtype names, torch's promotion table, the default
// dtype and result_type (Note [Type promotion]).
#include <algorithm>
#include <atomic>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/error.h"
#include "core/scalar.h"
#include "core/scalar_type.h"
#include "core/tensor.h"
#include "core/type_promotion.h"

namespace yaten {

// ---------------------------------------------------------------------------------------------------- dtypes

void scalar_overflow(ScalarType type) {
  YATEN_FAIL(RuntimeError, "value cannot be converted to type ", dtype_name(type), " without overflow");
}

void check_scalar_fits(const Scalar& value, ScalarType type) {
  switch (type) {
#define YATEN_FITS_CASE(ctype, name, pyname) \
  case ScalarType::name: (void)value.to<ctype>(); break;
    YATEN_FORALL_DTYPES(YATEN_FITS_CASE)
#undef YATEN_FITS_CASE
    default: break;
  }
}

const char* dtype_name(ScalarType t) {
  switch (t) {
#define YATEN_NAME_CASE(ctype, name, pyname) \
  case ScalarType::name: return #pyname;
    YATEN_FORALL_DTYPES(YATEN_NAME_CASE)
#undef YATEN_NAME_CASE
    default: return "undefined";
  }
}

ScalarType dtype_from_name(const std::string& name) {
  static const std::unordered_map<std::string, ScalarType> names = {
      {"uint8", ScalarType::Byte},     {"int8", ScalarType::Char},      {"int16", ScalarType::Short},
      {"short", ScalarType::Short},    {"int32", ScalarType::Int},      {"int", ScalarType::Int},
      {"int64", ScalarType::Long},     {"long", ScalarType::Long},      {"float16", ScalarType::Half},
      {"half", ScalarType::Half},      {"float32", ScalarType::Float},  {"float", ScalarType::Float},
      {"float64", ScalarType::Double}, {"double", ScalarType::Double},  {"bool", ScalarType::Bool},
      {"bfloat16", ScalarType::BFloat16}, {"complex64", ScalarType::ComplexFloat},
      {"cfloat", ScalarType::ComplexFloat}, {"complex128", ScalarType::ComplexDouble},
      {"cdouble", ScalarType::ComplexDouble}, {"uint16", ScalarType::UInt16}, {"uint32", ScalarType::UInt32},
      {"uint64", ScalarType::UInt64}};
  auto it = names.find(name);
  return it == names.end() ? ScalarType::Undefined : it->second;
}

namespace {
// Note [Promoting the wide unsigned integers]: torch promotes uint16/32/64 only with themselves and the floating
// types, and raises for the rest ("not supported ... punting on it for now"). yaten gives the array API standard's
// lattice wherever it has one, which agrees with torch's where torch has one: an unsigned type with a smaller or
// equal unsigned type or bool is itself; with a signed type, the smallest signed type that holds both (uint16 with
// int8 is int32, uint32 with int32 is int64); with a floating or complex type, that type (torch's rule). uint64
// with a signed integer has no type that holds both (NumPy goes to float64, losing the low bits): a TypeError.
ScalarType promote_wide_unsigned(ScalarType a, ScalarType b) {
  if (!is_wide_unsigned(a)) std::swap(a, b);  // a is wide unsigned
  if (is_floating_point(b) || is_complex(b)) return b;
  auto bits = [](ScalarType t) { return element_size(t) * 8; };
  if (b == ScalarType::Bool) return a;
  if (is_unsigned(b)) return bits(a) >= bits(b) ? a : b;
  // b is signed: the smallest signed integer wider than a that is at least as wide as b
  YATEN_CHECK(a != ScalarType::UInt64, TypeError, "promote_types: uint64 and ", dtype_name(b),
              " have no common dtype (no integer type holds both; cast one of them first)");
  const int64_t need = std::max(bits(a) * 2, bits(b));
  return need <= 32 ? ScalarType::Int : ScalarType::Long;
}
}  // namespace

ScalarType promote_types(ScalarType a, ScalarType b) {
  if (a == b) return a;
  if (a == ScalarType::Undefined) return b;
  if (b == ScalarType::Undefined) return a;
  if (is_wide_unsigned(a) || is_wide_unsigned(b)) return promote_wide_unsigned(a, b);
  // torch's table, restricted to our twelve types, in enum order: u1 i1 i2 i4 i8 f2 f4 f8 c4 c8 b1 bf.
  constexpr ScalarType u1 = ScalarType::Byte, i1 = ScalarType::Char, i2 = ScalarType::Short,
                       i4 = ScalarType::Int, i8 = ScalarType::Long, f2 = ScalarType::Half,
                       f4 = ScalarType::Float, f8 = ScalarType::Double, c4 = ScalarType::ComplexFloat,
                       c8 = ScalarType::ComplexDouble, b1 = ScalarType::Bool, bf = ScalarType::BFloat16;
  static constexpr ScalarType table[12][12] = {
      /*        u1  i1  i2  i4  i8  f2  f4  f8  c4  c8  b1  bf */
      /* u1 */ {u1, i2, i2, i4, i8, f2, f4, f8, c4, c8, u1, bf},
      /* i1 */ {i2, i1, i2, i4, i8, f2, f4, f8, c4, c8, i1, bf},
      /* i2 */ {i2, i2, i2, i4, i8, f2, f4, f8, c4, c8, i2, bf},
      /* i4 */ {i4, i4, i4, i4, i8, f2, f4, f8, c4, c8, i4, bf},
      /* i8 */ {i8, i8, i8, i8, i8, f2, f4, f8, c4, c8, i8, bf},
      /* f2 */ {f2, f2, f2, f2, f2, f2, f4, f8, c4, c8, f2, f4},
      /* f4 */ {f4, f4, f4, f4, f4, f4, f4, f8, c4, c8, f4, f4},
      /* f8 */ {f8, f8, f8, f8, f8, f8, f8, f8, c8, c8, f8, f8},
      /* c4 */ {c4, c4, c4, c4, c4, c4, c4, c8, c4, c8, c4, c4},
      /* c8 */ {c8, c8, c8, c8, c8, c8, c8, c8, c8, c8, c8, c8},
      /* b1 */ {u1, i1, i2, i4, i8, f2, f4, f8, c4, c8, b1, bf},
      /* bf */ {bf, bf, bf, bf, bf, f4, f4, f8, c4, c8, bf, bf},
  };
  return table[static_cast<int>(a)][static_cast<int>(b)];
}

bool can_cast(ScalarType from, ScalarType to) {
  if (is_complex(from) && !is_complex(to)) return false;
  if (is_floating_point(from) && is_integral(to, /*include_bool=*/true)) return false;
  if (from != ScalarType::Bool && to == ScalarType::Bool) return false;
  return true;
}

// ---------------------------------------------------------------------------------------------------- promotion

namespace {
std::atomic<ScalarType> g_default_dtype{ScalarType::Float};

// torch's combine_categories: a lower tier matters only when its category is higher.
ScalarType combine_categories(ScalarType higher, ScalarType lower) {
  if (higher == ScalarType::Undefined) return lower;
  if (is_complex(higher)) return higher;
  if (is_complex(lower)) return is_floating_point(higher) ? to_complex_dtype(higher) : lower;  // float keeps its width
  if (is_floating_point(higher)) return higher;
  if (higher == ScalarType::Bool || is_floating_point(lower)) {
    return lower == ScalarType::Undefined ? higher : promote_types(higher, lower);
  }
  return higher;
}
}  // namespace

ScalarType default_dtype() { return g_default_dtype.load(std::memory_order_relaxed); }
ScalarType default_complex_dtype() {
  return default_dtype() == ScalarType::Double ? ScalarType::ComplexDouble : ScalarType::ComplexFloat;
}
void set_default_dtype(ScalarType dtype) {
  YATEN_CHECK(dtype == ScalarType::Float || dtype == ScalarType::Double || dtype == ScalarType::Half ||
                  dtype == ScalarType::BFloat16,
              TypeError, "set_default_dtype: only floating-point dtypes are supported, got ", dtype_name(dtype));
  g_default_dtype.store(dtype);
}

void ResultTypeState::add(const Tensor& t) {
  if (!t.defined()) return;
  ScalarType dtype = t.dtype();
  if (t.impl()->is_wrapped_number()) {
    if (is_floating_point(dtype)) dtype = default_dtype();
    if (is_complex(dtype)) dtype = default_complex_dtype();
    wrapped_result_ = promote_types(wrapped_result_, dtype);
  } else if (t.dim() == 0) {
    zero_dim_result_ = promote_types(zero_dim_result_, dtype);
  } else {
    dim_result_ = promote_types(dim_result_, dtype);
  }
}

void ResultTypeState::add(const Scalar& s) {
  ScalarType dtype = s.is_complex()          ? default_complex_dtype()
                     : s.is_floating_point() ? default_dtype()
                                             : s.natural_dtype();
  wrapped_result_ = promote_types(wrapped_result_, dtype);
}

ScalarType ResultTypeState::result() const {
  return combine_categories(dim_result_, combine_categories(zero_dim_result_, wrapped_result_));
}

ScalarType result_type(const std::vector<Tensor>& tensors) {
  ResultTypeState state;
  for (const Tensor& t : tensors) state.add(t);
  return state.result();
}

namespace detail {
void undefined_dtype(const char* op) { YATEN_FAIL(RuntimeError, op, ": undefined dtype"); }
void dtype_not_implemented(const char* op, ScalarType dtype) {
  YATEN_FAIL(NotImplementedError, op, ": not implemented for ", dtype_name(dtype));
}

// Declared in kernels/wrapper_support.h, for the generated backend wrappers' dtype switches.
void dtype_not_supported(const char* op, const char* backend, ScalarType dtype, const char* declared) {
  YATEN_FAIL(NotImplementedError, op, ": no ", backend, " kernel for dtype ", dtype_name(dtype), " (ops.yaml declares ",
             declared, "). Convert the input with .to(dtype), or add ", dtype_name(dtype),
             " to the op's dtypes in ops.yaml if its kernel supports it.");
}
}  // namespace detail

}  // namespace yaten
