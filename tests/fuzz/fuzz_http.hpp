// HTTP for the fuzz targets of the two servers: requests read from the input bytes as the servers' reads
// would (one after another on a kept-alive connection), and a check that a response is well-formed on the
// wire.
#pragma once

#include <boost/asio/buffer.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <initializer_list>
#include <sstream>
#include <string_view>

#include "tests/fuzz/fuzz_check.hpp"

namespace cla::fuzz {

namespace http = boost::beast::http;

// Reads the next request of `input` into `parser` and drops the bytes it used; the error is the one
// http::async_read gives on a connection that carried exactly `input` and then closed.
inline boost::system::error_code read_request(std::string_view& input,
                                              http::request_parser<http::string_body>& parser) {
  parser.eager(true);
  boost::system::error_code ec;
  while (!parser.is_done()) {
    const std::size_t used =
        input.empty() ? 0 : parser.put(boost::asio::buffer(input.data(), input.size()), ec);
    input.remove_prefix(used);
    if (ec && ec != http::error::need_more) return ec;
    ec = {};
    if (used == 0) {  // what is left is not a whole request, and the client has closed
      if (!parser.got_some()) return http::error::end_of_stream;
      parser.put_eof(ec);
      return ec;
    }
  }
  return ec;
}

// The response as written to the socket parses back to the same status and body, and its status is one of
// `expected`.
inline void check_response(const http::response<http::string_body>& response,
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
