// IValue: one boxed argument or result, for calls that do not know an op's C++ signature at compile time (ops
// called by name from Python through yaten.ops, and kernels registered from Python or with YATEN_LIBRARY_IMPL).
// Generated ops never box on their normal path.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "core/generator.h"
#include "core/tensor.h"

namespace yaten {

struct IValue {
  enum class Tag : uint8_t {
    None, Tensor, Int, Double, Bool, String, Scalar, IntList, BoolList, TensorList, ScalarList, DType, Device,
    Generator
  };

  Tag tag = Tag::None;
  yaten::Tensor tensor;
  int64_t i = 0;
  double d = 0;
  bool b = false;
  std::string s;
  yaten::Scalar scalar;
  std::vector<int64_t> ints;
  std::vector<bool> bools;  // bool[N]
  std::vector<yaten::Tensor> tensors;
  std::vector<yaten::Scalar> scalars;  // Scalar[]
  ScalarType dtype = ScalarType::Undefined;
  yaten::Device device;
  std::optional<yaten::Generator> generator;

  IValue() = default;
  IValue(yaten::Tensor t) : tag(Tag::Tensor), tensor(std::move(t)) {}
  IValue(int64_t v) : tag(Tag::Int), i(v) {}
  IValue(double v) : tag(Tag::Double), d(v) {}
  IValue(bool v) : tag(Tag::Bool), b(v) {}
  IValue(std::string v) : tag(Tag::String), s(std::move(v)) {}
  IValue(yaten::Scalar v) : tag(Tag::Scalar), scalar(v) {}
  IValue(std::vector<int64_t> v) : tag(Tag::IntList), ints(std::move(v)) {}
  template <size_t N>
  IValue(const std::array<bool, N>& v) : tag(Tag::BoolList), bools(v.begin(), v.end()) {}
  IValue(std::vector<yaten::Tensor> v) : tag(Tag::TensorList), tensors(std::move(v)) {}
  IValue(std::vector<yaten::Scalar> v) : tag(Tag::ScalarList), scalars(std::move(v)) {}
  IValue(ScalarType v) : tag(Tag::DType), dtype(v) {}
  IValue(yaten::Device v) : tag(Tag::Device), device(v) {}
  IValue(yaten::Generator v) : tag(Tag::Generator), generator(std::move(v)) {}

  bool is_none() const { return tag == Tag::None; }
};

using Stack = std::vector<IValue>;

namespace detail {
// IValue -> a kernel's parameter type. A mismatch is a TypeError naming the op.
template <typename T>
struct FromIValue;
template <> struct FromIValue<Tensor> {
  static Tensor get(const IValue& v) { return v.tag == IValue::Tag::None ? Tensor() : v.tensor; }
};
template <> struct FromIValue<int64_t> { static int64_t get(const IValue& v) { return v.i; } };
template <> struct FromIValue<double> {
  static double get(const IValue& v) { return v.tag == IValue::Tag::Int ? static_cast<double>(v.i) : v.d; }
};
template <> struct FromIValue<bool> { static bool get(const IValue& v) { return v.b; } };
template <> struct FromIValue<std::string> { static std::string get(const IValue& v) { return v.s; } };
template <> struct FromIValue<Scalar> { static Scalar get(const IValue& v) { return v.scalar; } };
template <> struct FromIValue<std::vector<int64_t>> {
  static std::vector<int64_t> get(const IValue& v) { return v.ints; }
};
template <size_t N> struct FromIValue<std::array<bool, N>> {
  static std::array<bool, N> get(const IValue& v) {  // ivalue_from_python checked the length
    std::array<bool, N> out{};
    for (size_t k = 0; k < N && k < v.bools.size(); ++k) out[k] = v.bools[k];
    return out;
  }
};
template <> struct FromIValue<std::vector<Tensor>> {
  static std::vector<Tensor> get(const IValue& v) { return v.tensors; }
};
template <> struct FromIValue<std::vector<Scalar>> {
  static std::vector<Scalar> get(const IValue& v) { return v.scalars; }
};
template <> struct FromIValue<ScalarType> { static ScalarType get(const IValue& v) { return v.dtype; } };
template <> struct FromIValue<Device> { static Device get(const IValue& v) { return v.device; } };
template <> struct FromIValue<Generator> { static Generator get(const IValue& v) { return *v.generator; } };
template <typename T> struct FromIValue<std::optional<T>> {
  static std::optional<T> get(const IValue& v) {
    if (v.is_none()) return std::nullopt;
    return FromIValue<T>::get(v);
  }
};

// A kernel's result -> IValues pushed on the stack.
// Out of line (dispatch/library.cpp): each instantiated the stack's growth in every unit that boxes a kernel.
void push_result(Stack& stack, Tensor t);
void push_result(Stack& stack, std::vector<Tensor> ts);
void push_result(Stack& stack, int64_t v);
void push_result(Stack& stack, double v);
void push_result(Stack& stack, bool v);
void push_result(Stack& stack, Scalar v);
template <typename... Ts>
void push_result(Stack& stack, std::tuple<Ts...> values) {
  std::apply([&](auto&... v) { (push_result(stack, std::move(v)), ...); }, values);
}
}  // namespace detail

}  // namespace yaten
