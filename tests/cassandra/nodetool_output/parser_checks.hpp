// The parser suites' two checks: a text a parser must read (its value), and one it must refuse (its message).
#pragma once

#include <boost/test/unit_test.hpp>
#include <string>

namespace cla::test {

template <class Parse>
auto parsed_value(Parse parse, const std::string& text) {
  auto parsed = parse(text);
  BOOST_REQUIRE_MESSAGE(parsed.ok(), (parsed.ok() ? "" : parsed.error().message));
  return std::move(parsed).value();
}

template <class Parse>
std::string refusal(Parse parse, const std::string& text) {
  auto parsed = parse(text);
  BOOST_REQUIRE_MESSAGE(!parsed.ok(), "expected a parse error for:\n" + text);
  return parsed.error().message;
}

}  // namespace cla::test
