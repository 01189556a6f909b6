// The result type, argument types and arity of an element function (a lambda or a functor), for the loops.
#pragma once

#include <tuple>

namespace yaten::native::detail {

template <typename F>
struct function_traits : function_traits<decltype(&F::operator())> {};
template <typename C, typename R, typename... Args>
struct function_traits<R (C::*)(Args...) const> {
  using result = R;
  using args = std::tuple<Args...>;
  static constexpr int arity = sizeof...(Args);
};

}  // namespace yaten::native::detail
