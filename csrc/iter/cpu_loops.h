// cpu_kernel(iter, op): runs an element function over a TensorIterator on the CPU.
//
// `op` takes one scalar_t per input and returns the output's element. The inner loop has a contiguous case
// written so the compiler vectorizes it, cases for broadcast (stride 0) inputs, and a strided fallback.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <tuple>
#include <type_traits>
#include <utility>

#include "iter/function_traits.h"
#include "iter/tensor_iterator.h"

namespace yaten::native {

namespace detail {
// RuntimeError: an element function of `arity` inputs over an iterator of `inputs` (tensor_iterator.cpp).
[[noreturn]] void arity_mismatch(int arity, int inputs);

template <typename Op, size_t... I>
inline void strided_row(const Op& op, char** data, const int64_t* strides, int64_t n, std::index_sequence<I...>) {
  using traits = function_traits<Op>;
  using out_t = typename traits::result;
  char* out = data[0];
  for (int64_t i = 0; i < n; ++i) {
    *reinterpret_cast<out_t*>(out + i * strides[0]) =
        op(*reinterpret_cast<std::tuple_element_t<I, typename traits::args>*>(data[I + 1] + i * strides[I + 1])...);
  }
}

// The loops over contiguous memory take their pointers as __restrict__ parameters, which GCC keeps through inlining
// (it ignores __restrict__ on a local variable or a tuple's element, and then vectorized each loop twice: behind a
// run-time overlap check, with a scalar copy beside it). The one overlap the iterator lets through is an output that
// is one of the inputs, element for element; there each element is read before it is written, in either loop.
//
// Each loop runs a local copy of the functor: its parameters (leaky_relu's slope, hardtanh's bounds) are then values
// in registers. Read through the reference, a parameter used on one side of a select (`x > 0 ? x : x * slope`) is a
// load GCC may not hoist or speculate, and the loop stayed scalar with a branch per element (leaky_relu 49x torch's
// time on random signs).
//
// A bool input is read as its byte compared with zero: GCC has no vector type for bool and left every loop reading
// one scalar (where's condition, masked_fill's mask: `where` ran at 0.7 ns per element).
template <typename T>
inline T element(const T* __restrict__ p, int64_t i) {
  if constexpr (std::is_same_v<T, bool>) {
    return reinterpret_cast<const uint8_t*>(p)[i] != 0;
  } else {
    return p[i];
  }
}
template <typename Op, typename Out, typename... In>
inline void contiguous_loop(const Op& op_ref, int64_t n, Out* __restrict__ out, const In* __restrict__... in) {
  const Op op = op_ref;
  for (int64_t i = 0; i < n; ++i) out[i] = op(element(in, i)...);
}

template <typename Op, size_t... I>
inline void contiguous_row(const Op& op, char** data, int64_t n, std::index_sequence<I...>) {
  using traits = function_traits<Op>;
  contiguous_loop(op, n, reinterpret_cast<typename traits::result*>(data[0]),
                  reinterpret_cast<const std::tuple_element_t<I, typename traits::args>*>(data[I + 1])...);
}

// Input `S` is a broadcast scalar along the row: load it once.
template <size_t S, typename Op, typename Out, typename... In, size_t... I>
inline void scalar_input_loop(const Op& op_ref, int64_t n, std::index_sequence<I...>, Out* __restrict__ out,
                              const In* __restrict__... in) {
  const Op op = op_ref;
  const auto scalar = *std::get<S>(std::make_tuple(in...));
  for (int64_t i = 0; i < n; ++i) out[i] = op((I == S ? scalar : element(in, i))...);
}
template <size_t S, typename Op, size_t... I>
inline void scalar_input_row(const Op& op, char** data, int64_t n, std::index_sequence<I...>) {
  using traits = function_traits<Op>;
  scalar_input_loop<S>(op, n, std::index_sequence<I...>{}, reinterpret_cast<typename traits::result*>(data[0]),
                       reinterpret_cast<const std::tuple_element_t<I, typename traits::args>*>(data[I + 1])...);
}
// A row whose output is contiguous but some input is not (a transposed or sliced read): the strided inputs are
// gathered into small contiguous buffers, kChunk elements at a time, so the arithmetic runs as the vectorized
// contiguous loop does.
constexpr int64_t kChunk = 64;
template <typename Op, size_t... I>
inline void buffered_row(const Op& op, char** data, const int64_t* strides, int64_t n, std::index_sequence<I...>) {
  using traits = function_traits<Op>;
  using out_t = typename traits::result;
  std::tuple<std::array<std::tuple_element_t<I, typename traits::args>, kChunk>...> buffers;
  for (int64_t i0 = 0; i0 < n; i0 += kChunk) {
    const int64_t len = std::min(kChunk, n - i0);
    std::tuple<const std::tuple_element_t<I, typename traits::args>*...> in{[&] {
      using arg_t = std::tuple_element_t<I, typename traits::args>;
      const char* base = data[I + 1] + i0 * strides[I + 1];
      if (strides[I + 1] == int64_t(sizeof(arg_t))) return reinterpret_cast<const arg_t*>(base);
      arg_t* buffer = std::get<I>(buffers).data();
      // a broadcast input (stride 0, as batch norm's per-channel scale) is spread over its buffer once per row
      if (strides[I + 1] != 0 || i0 == 0) {
        for (int64_t k = 0; k < len; ++k) buffer[k] = *reinterpret_cast<const arg_t*>(base + k * strides[I + 1]);
      }
      return static_cast<const arg_t*>(buffer);
    }()...};
    contiguous_loop(op, len, reinterpret_cast<out_t*>(data[0]) + i0, std::get<I>(in)...);
  }
}

// Every input after the first is a broadcast scalar along the row (clamp's two bounds, a 0-dim weight or value of
// addcmul, lerp, threshold): they are loaded once and passed as values, so the loop reads one array, as a unary
// op's, and vectorizes as one.
template <typename Op, typename Out, typename First, typename... Rest>
inline void trailing_scalars_loop(const Op& op_ref, int64_t n, Out* __restrict__ out, const First* __restrict__ in,
                                  const Rest... rest) {
  const Op op = op_ref;
  for (int64_t i = 0; i < n; ++i) out[i] = op(element(in, i), rest...);
}
template <typename Op, size_t... I>
inline void trailing_scalars_row(const Op& op, char** data, int64_t n, std::index_sequence<0, I...>) {
  using traits = function_traits<Op>;
  using args = typename traits::args;
  trailing_scalars_loop(op, n, reinterpret_cast<typename traits::result*>(data[0]),
                        reinterpret_cast<const std::tuple_element_t<0, args>*>(data[1]),
                        *reinterpret_cast<const std::tuple_element_t<I, args>*>(data[I + 1])...);
}
template <typename Op, size_t... I>
inline bool trailing_scalars(const int64_t* strides, std::index_sequence<0, I...>) {
  using traits = function_traits<Op>;
  return strides[0] == int64_t(sizeof(typename traits::result)) &&
         strides[1] == int64_t(sizeof(std::tuple_element_t<0, typename traits::args>)) && ((strides[I + 1] == 0) && ...);
}

// Two inputs of one type: the case the broadcast-scalar row handles.
template <typename Args, bool = (std::tuple_size_v<Args> == 2)>
struct same_type_pair : std::false_type {};
template <typename Args>
struct same_type_pair<Args, true> : std::is_same<std::tuple_element_t<0, Args>, std::tuple_element_t<1, Args>> {};

template <typename Op, size_t... I>
inline bool inputs_contiguous(const int64_t* strides, std::index_sequence<I...>) {
  using args = typename function_traits<Op>::args;
  return ((strides[I + 1] == int64_t(sizeof(std::tuple_element_t<I, args>))) && ...);
}
}  // namespace detail

template <typename Op>
void cpu_kernel(const TensorIterator& iter, const Op& op) {
  using traits = detail::function_traits<Op>;
  constexpr int arity = traits::arity;
  using indices = std::make_index_sequence<arity>;
  if (iter.ninputs() != arity) detail::arity_mismatch(arity, iter.ninputs());
  iter.for_each_row([&](char** data, const int64_t* strides, int64_t n) {
    const bool contiguous = strides[0] == sizeof(typename traits::result) &&
                            detail::inputs_contiguous<Op>(strides, indices{});
    if (contiguous) {
      with_tile_length(n, [&](auto len) { detail::contiguous_row(op, data, len, indices{}); });
      return;
    }
    if constexpr (arity >= 3) {
      if (detail::trailing_scalars<Op>(strides, indices{})) {
        detail::trailing_scalars_row(op, data, n, indices{});
        return;
      }
    }
    if constexpr (detail::same_type_pair<typename traits::args>::value) {
      using first_t = std::tuple_element_t<0, typename traits::args>;
      const bool scalar_last = strides[0] == sizeof(typename traits::result) && strides[1] == sizeof(first_t) &&
                               strides[2] == 0;
      // the other way round: outer products, a column times rows (through the buffered row, 1.55x torch's time)
      const bool scalar_first = strides[0] == sizeof(typename traits::result) && strides[1] == 0 &&
                                strides[2] == sizeof(first_t);
      if (scalar_last) {
        detail::scalar_input_row<1>(op, data, n, indices{});
      } else if (scalar_first) {
        detail::scalar_input_row<0>(op, data, n, indices{});
      } else if (strides[0] == sizeof(typename traits::result)) {
        detail::buffered_row(op, data, strides, n, indices{});
      } else {
        detail::strided_row(op, data, strides, n, indices{});
      }
    } else if (strides[0] == sizeof(typename traits::result)) {
      detail::buffered_row(op, data, strides, n, indices{});
    } else {
      detail::strided_row(op, data, strides, n, indices{});
    }
  });
}

}  // namespace yaten::native
