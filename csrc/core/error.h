// Errors raised from C++ and mapped one to one onto Python's exception types.
//
// Every check in yaten goes through YATEN_CHECK with the exception type it means, so the Python layer turns the
// C++ exception into the matching Python one without guessing. Messages name the op that raised them, most as
// their first word ("add: ..."); helpers shared by many ops (shape checks, dtype conversion) name the op where the
// caller passes it.
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>

namespace yaten {

// One value per Python exception type that C++ code may raise.
// OutOfMemoryError is yaten.cuda.OutOfMemoryError, LinAlgError yaten.linalg.LinAlgError (a singular or
// non-definite matrix, an algorithm that did not converge): both RuntimeErrors, as in torch.
enum class ErrorType {
  RuntimeError, TypeError, ValueError, IndexError, NotImplementedError, ZeroDivisionError, OutOfMemoryError,
  LinAlgError, AcceleratorError  // the last: a CUDA runtime error (torch.AcceleratorError, a RuntimeError)
};

class Error : public std::runtime_error {
 public:
  Error(ErrorType type, std::string message) : std::runtime_error(std::move(message)), type_(type) {}
  ErrorType type() const { return type_; }

 private:
  ErrorType type_;
};

namespace detail {
template <typename... Args>
std::string str_cat(const Args&... args) {
  std::ostringstream out;
  (out << ... << args);
  return out.str();
}
[[noreturn]] void throw_error(ErrorType type, std::string message);
}  // namespace detail

}  // namespace yaten

// YATEN_CHECK(cond, ValueError, "add: expected ", x, " but got ", y);
#define YATEN_CHECK(cond, type, ...)                                                 \
  do {                                                                               \
    if (__builtin_expect(!(cond), 0)) {                                              \
      ::yaten::detail::throw_error(::yaten::ErrorType::type,                         \
                                   ::yaten::detail::str_cat(__VA_ARGS__));           \
    }                                                                                \
  } while (0)

#define YATEN_FAIL(type, ...) \
  ::yaten::detail::throw_error(::yaten::ErrorType::type, ::yaten::detail::str_cat(__VA_ARGS__))
