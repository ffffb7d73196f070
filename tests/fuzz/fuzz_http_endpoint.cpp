// Fuzzes the agent's HTTP endpoint on the bytes a client sends: each request read under the endpoint's
// limits is answered (routing, health, 404/405) or refused (431, 413, 400), as the connection would be.
#include "agent/http/http_exchange.hpp"
#include "tests/fuzz/fuzz_http.hpp"

namespace {

const cla::HttpHandler& handler() {
  static const cla::WallTime now = cla::WallTime(std::chrono::seconds(1'800'000'000));
  static const cla::EndpointSources sources{
      .last_poll_success = [] { return std::optional<cla::WallTime>(now - std::chrono::seconds(2)); },
      .poll_interval = std::chrono::milliseconds(1000),
      .metrics_text = [] { return std::string("cla_up 1\n"); },
      .state_json = [] { return std::string("{}"); }};
  static const cla::HttpHandler handler = [](std::string_view method, std::string_view target) {
    return cla::route_request(method, target, sources, now);
  };
  return handler;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const cla::HttpEndpointOptions options;
  std::string_view input = cla::fuzz::as_text(data, size);
  for (;;) {
    cla::HttpRequestParser parser;
    cla::limit_request_parser(parser, options);
    if (const auto ec = cla::fuzz::read_request(input, parser)) {
      if (const auto refusal = cla::refusal_for_read_error(ec)) {
        cla::fuzz::check_response(*refusal, {400, 413, 431});
        FUZZ_CHECK(!refusal->keep_alive());
      }
      return 0;
    }
    const auto response = cla::answer_request(parser.get(), handler());
    cla::fuzz::check_response(response, {200, 404, 405});
    if (response.result_int() == 405) FUZZ_CHECK(response[boost::beast::http::field::allow] == "GET");
    if (!response.keep_alive()) return 0;
  }
}
