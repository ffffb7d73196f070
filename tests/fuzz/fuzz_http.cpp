// check_response (fuzz_http.hpp), compiled without sanitizers or coverage (tests/fuzz/CMakeLists.txt):
// writing a response out and parsing it back is Beast's code, not ours, and under ASan it cost a third of
// each run of the HTTP targets. The response itself is built by our code, which stays instrumented.
#include "tests/fuzz/fuzz_http.hpp"

#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/write.hpp>
#include <sstream>

namespace cla::fuzz {

void check_response(const http::response<http::string_body>& response,
                    std::initializer_list<unsigned> expected) {
  bool known = false;
  for (const unsigned status : expected) known = known || response.result_int() == status;
  FUZZ_CHECK(known);
  std::ostringstream wire;
  wire << response;
  const std::string text = wire.str();
  http::response_parser<http::string_body> parser;
  parser.eager(true);
  boost::system::error_code ec;
  const std::size_t used = parser.put(boost::asio::buffer(text.data(), text.size()), ec);
  FUZZ_CHECK(!ec && parser.is_done() && used == text.size());
  FUZZ_CHECK(parser.get().result_int() == response.result_int() && parser.get().body() == response.body());
}

}  // namespace cla::fuzz
