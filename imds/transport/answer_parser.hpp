// AnswerParser: an HTTP/1.1 response parsed into what the IMDS and etcd clients read (HttpAnswer).
#pragma once

#include <boost/beast/http/basic_parser.hpp>
#include <string>

namespace cla {

// The status line, the body, and the one header field a client reads: Location, named in a redirect's
// failure.
struct HttpAnswer {
  int status = 0;
  std::string reason;
  std::string location;
  std::string body;
  bool keep_alive = false;
};

// Beast's parser for a whole response keeps every header field, an allocation each; the idle poll reads one
// answer a second and needs none of them (SPEC 4's idle footprint). Framing (Content-Length, chunked,
// Connection, the body limit) is Beast's basic_parser's, as with http::response_parser.
class AnswerParser final : public boost::beast::http::basic_parser<false> {
 public:
  // The answer, once is_done(); the parser is spent.
  HttpAnswer release();

 private:
  using error_code = boost::beast::error_code;
  using string_view = boost::beast::string_view;
  using field = boost::beast::http::field;
  using verb = boost::beast::http::verb;

  void on_request_impl(verb, string_view, string_view, int, error_code&) override {}
  void on_response_impl(int code, string_view reason, int version, error_code&) override;
  void on_field_impl(field name, string_view, string_view value, error_code&) override;
  void on_header_impl(error_code&) override {}
  void on_body_init_impl(const boost::optional<std::uint64_t>& content_length, error_code&) override;
  std::size_t on_body_impl(string_view body, error_code&) override;
  void on_chunk_header_impl(std::uint64_t, string_view, error_code&) override {}
  std::size_t on_chunk_body_impl(std::uint64_t, string_view body, error_code&) override;
  void on_finish_impl(error_code&) override {}

  HttpAnswer answer_;
};

}  // namespace cla
