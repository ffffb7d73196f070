// The HTTP endpoint's answers without a socket: refusals of unreadable requests, the handler's answer in the
// request's version and keep-alive, 500 for a handler that throws.
#include "agent/http/http_exchange.hpp"

#include <boost/asio/buffer.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/test/unit_test.hpp>
#include <stdexcept>

namespace {

namespace http = boost::beast::http;

// The error of reading `bytes` as one whole request under the default limits.
boost::system::error_code read_error(std::string_view bytes) {
  cla::HttpRequestParser parser;
  cla::limit_request_parser(parser, cla::HttpEndpointOptions{});
  parser.eager(true);
  boost::system::error_code ec;
  parser.put(boost::asio::buffer(bytes.data(), bytes.size()), ec);
  return ec;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(http_exchange_test)

BOOST_AUTO_TEST_CASE(unreadable_requests_are_refused_with_their_status_and_closed) {
  const std::string big_header = "GET / HTTP/1.1\r\nX: " + std::string(9000, 'a') + "\r\n\r\n";
  const std::string big_body = "POST / HTTP/1.1\r\nContent-Length: 9000\r\n\r\n";
  for (const auto& [bytes, status] : {std::pair{big_header, 431u}, std::pair{big_body, 413u},
                                      std::pair{std::string("GET  HTTP/1.1\r\n\r\n"), 400u}}) {
    const auto refusal = cla::refusal_for_read_error(read_error(bytes));
    BOOST_TEST_REQUIRE(refusal.has_value(), status);
    BOOST_TEST(refusal->result_int() == status);
    BOOST_TEST(!refusal->keep_alive());
  }
}

BOOST_AUTO_TEST_CASE(a_client_that_left_or_a_timeout_gets_no_answer) {
  BOOST_TEST(!cla::refusal_for_read_error(http::error::end_of_stream).has_value());
  BOOST_TEST(!cla::refusal_for_read_error(http::error::partial_message).has_value());
  BOOST_TEST(!cla::refusal_for_read_error(boost::asio::error::operation_aborted).has_value());
}

BOOST_AUTO_TEST_CASE(answers_keep_the_request_version_and_keep_alive) {
  const cla::HttpHandler handler = [](std::string_view method, std::string_view target) {
    return cla::HttpResponse{method == "GET" ? 200u : 405u, "text/plain", std::string(target)};
  };
  http::request<http::string_body> request{http::verb::get, "/healthz?x", 10};
  auto answer = cla::answer_request(request, handler);
  BOOST_TEST(answer.result_int() == 200u);
  BOOST_TEST(answer.version() == 10u);
  BOOST_TEST(!answer.keep_alive());
  BOOST_TEST(answer.body() == "/healthz?x");
  request = {http::verb::post, "/state", 11};
  answer = cla::answer_request(request, handler);
  BOOST_TEST(answer.result_int() == 405u);
  BOOST_TEST(answer[http::field::allow] == "GET");
  BOOST_TEST(answer.keep_alive());
}

BOOST_AUTO_TEST_CASE(a_handler_that_throws_gives_500_with_its_text) {
  const cla::HttpHandler handler = [](std::string_view, std::string_view) -> cla::HttpResponse {
    throw std::runtime_error("state unavailable");
  };
  const auto answer =
      cla::answer_request(http::request<http::string_body>{http::verb::get, "/state", 11}, handler);
  BOOST_TEST(answer.result_int() == 500u);
  BOOST_TEST(answer.body() == "internal error: state unavailable\n");
}

BOOST_AUTO_TEST_SUITE_END()
