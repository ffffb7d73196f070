// The no-throw JSON helpers: quoted excerpts of untrusted input stay valid UTF-8 (they end up in JSON).
#include "imds/json_read.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/test/unit_test.hpp>

using cla::quoted_excerpt;

namespace {

bool valid_in_json(const std::string& text) {
  boost::system::error_code ec;
  (void)boost::json::parse(boost::json::serialize(boost::json::value(text)), ec);
  return !ec;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(json_read_test)

BOOST_AUTO_TEST_CASE(excerpts_keep_valid_utf8_and_replace_control_bytes) {
  BOOST_TEST(quoted_excerpt("vm-\xC3\xA9t\xC3\xA9") == "\"vm-\xC3\xA9t\xC3\xA9\"");
  BOOST_TEST(quoted_excerpt("a\nb\x7f") == "\"a?b?\"");
  BOOST_TEST(quoted_excerpt("abcdef", 3) == "\"abc...\"");
}

BOOST_AUTO_TEST_CASE(excerpts_of_invalid_utf8_are_valid_utf8) {
  // Found by the fuzzer: the emulator's 404 quoted a percent-decoded path ("/%ADmin") into its JSON answer.
  BOOST_TEST(quoted_excerpt("/\xADmin") == "\"/?min\"");
  BOOST_TEST(quoted_excerpt("\xF8\x80\x80 \xED\xA0\x80 \xC0\xAF") == "\"??? ??? ??\"");
  // A cut inside a character drops the character rather than splitting it.
  BOOST_TEST(quoted_excerpt("ab\xC3\xA9", 3) == "\"ab...\"");
  for (const std::string text : {"/\xADmin", "\xE2\x82", "x\xF0\x9F\x98\x80y", "\xF5\x80\x80\x80"})
    BOOST_TEST(valid_in_json(quoted_excerpt(text, 2)), text);
}

BOOST_AUTO_TEST_SUITE_END()
