// Result<T, E>: a value or an error, returned at every edge that can fail on input (no exceptions).
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace cla {

// A failure described for an operator: what went wrong, with its context.
struct Error {
  std::string message;
};

template <class T, class E = Error>
class Result {
 public:
  Result(T value) : v_(std::in_place_index<0>, std::move(value)) {}
  Result(E error) : v_(std::in_place_index<1>, std::move(error)) {}

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  const E& error() const { return std::get<1>(v_); }

  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

 private:
  std::variant<T, E> v_;
};

inline Error make_error(std::string message) {
  return Error{std::move(message)};
}

}  // namespace cla
