// Runs a function when its scope ends, however it ends: a coroutine's "under way" flag is reset when the
// coroutine throws too (issue 41: an exception used to leave it set, and everything waiting on it waited
// forever).
#pragma once

#include <utility>

namespace cla {

template <class F>
class OnExit {
 public:
  explicit OnExit(F f) : f_(std::move(f)) {}
  OnExit(const OnExit&) = delete;
  OnExit& operator=(const OnExit&) = delete;
  ~OnExit() { f_(); }

 private:
  F f_;
};

}  // namespace cla
