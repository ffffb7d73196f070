// What every fuzz target shares: its input as text, and FUZZ_CHECK, which turns a broken property into a
// crash that libFuzzer saves (a property is what the parser promises, e.g. that what it accepts re-encodes
// and re-parses to the same value).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace cla::fuzz {

[[noreturn]] inline void check_failed(const char* condition, const char* file, int line) {
  std::fprintf(stderr, "fuzz property broken: %s (%s:%d)\n", condition, file, line);
  std::abort();
}

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

}  // namespace cla::fuzz

#define FUZZ_CHECK(condition) \
  ((condition) ? static_cast<void>(0) : ::cla::fuzz::check_failed(#condition, __FILE__, __LINE__))
