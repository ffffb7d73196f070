// Fuzzes imds-emulator's admin API on the bytes a client sends: requests read one after another on one
// connection, each handled against the same emulator state (so that a created event can be listed or
// cancelled by a later request), each answer well-formed JSON or empty.
#include <boost/json/parse.hpp>

#include "imds/emulator/emulator_admin_api.hpp"
#include "tests/fuzz/fuzz_http.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  constexpr std::size_t kBodyLimit = 64 * 1024;  // the emulator's
  cla::EmulatorState state({{"vm0", 0, {}, {}}, {"vm1", 1, {}, {}}, {"vm2", 2, {}, {}}},
                           std::chrono::milliseconds(0), 1);
  cla::WallTime now = cla::WallTime(std::chrono::seconds(1'800'000'000));
  std::string_view input = cla::fuzz::as_text(data, size);
  for (;;) {
    cla::HttpRequest request;
    {
      boost::beast::http::request_parser<boost::beast::http::string_body> parser;
      parser.body_limit(kBodyLimit);
      if (cla::fuzz::read_request(input, parser)) return 0;
      request = parser.release();
    }
    auto response = cla::handle_admin_request(state, request, now);
    response.keep_alive(request.keep_alive());
    cla::fuzz::check_response(response, {200, 201, 204, 400, 404, 405});
    if (response.result_int() != 204) {
      boost::system::error_code ec;
      (void)boost::json::parse(response.body(), ec);
      FUZZ_CHECK(!ec);
    }
    if (!response.keep_alive()) return 0;
    now += std::chrono::seconds(7);
  }
}
