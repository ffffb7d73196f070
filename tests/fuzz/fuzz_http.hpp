// HTTP for the fuzz targets of the two servers: requests read from the input bytes as the servers' reads
// would (one after another on a kept-alive connection), and a check that a response is well-formed on the
// wire.
#pragma once

#include <boost/asio/buffer.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>
#include <initializer_list>
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
// `expected` (fuzz_http.cpp).
void check_response(const http::response<http::string_body>& response,
                    std::initializer_list<unsigned> expected);

}  // namespace cla::fuzz
