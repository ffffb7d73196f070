// imds-emulator's network side: one HTTP listener per VM plus the admin listener, on one io_context.
#include "imds/emulator/emulator_server.hpp"

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/json.hpp>
#include <csignal>
#include <random>
#include <sstream>

#include "imds/emulator/emulator_admin_api.hpp"
#include "imds/emulator/emulator_impact_hook.hpp"
#include "imds/emulator/emulator_vm_api.hpp"

namespace cla {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using asio::ip::tcp;

constexpr auto nothrow = asio::as_tuple(asio::use_awaitable);
constexpr std::size_t kBodyLimit = 64 * 1024;
constexpr std::chrono::seconds kIdleTimeout{120};
constexpr std::chrono::milliseconds kTick{100};

struct Reply {
  HttpResponse res;
  Delivery delivery;
};

// An answer as a fault delivers it: `drip` sends 16 bytes at a time that far apart, `close_mid_body` stops
// halfway through the body. False when the connection must close afterwards.
asio::awaitable<bool> deliver(beast::tcp_stream& stream, const HttpResponse& res, const Delivery& how) {
  std::ostringstream wire;
  wire << res;
  std::string bytes = wire.str();
  if (how.close_mid_body) bytes.resize(bytes.size() - res.body().size() / 2);
  asio::steady_timer pause(stream.get_executor());
  const std::size_t chunk = how.drip.count() > 0 ? 16 : bytes.size();
  for (std::size_t at = 0; at < bytes.size(); at += chunk) {
    if (at > 0) {
      pause.expires_after(how.drip);
      co_await pause.async_wait(nothrow);
    }
    auto [ec, n] = co_await asio::async_write(
        stream, asio::buffer(bytes.data() + at, std::min(chunk, bytes.size() - at)), nothrow);
    if (ec) co_return false;
  }
  co_return !how.close_mid_body && res.keep_alive();
}

// One keep-alive HTTP/1.1 connection: read a request, let `handler` answer (it may wait), write, repeat.
// With `close_after_answer` every answer says Connection: close and ends the connection.
template <class Handler>
asio::awaitable<void> serve_connection(tcp::socket socket, Handler handler, std::uint64_t connection,
                                       bool close_after_answer) {
  beast::tcp_stream stream(std::move(socket));
  beast::flat_buffer buffer;
  for (;;) {
    stream.expires_after(kIdleTimeout);
    http::request_parser<http::string_body> parser;
    parser.body_limit(kBodyLimit);
    auto [ec, n] = co_await http::async_read(stream, buffer, parser, nothrow);
    if (ec) {
      if (ec == http::error::body_limit || ec == http::error::header_limit) {
        HttpRequest fake;
        fake.keep_alive(false);
        auto res = error_response(http::status::payload_too_large, "request larger than 64 KiB", fake);
        co_await http::async_write(stream, res, nothrow);
      }
      break;
    }
    stream.expires_never();
    HttpRequest req = parser.release();
    auto [res, delivery] = co_await handler(req, connection);
    res.keep_alive(req.keep_alive() && !close_after_answer);
    stream.expires_after(kIdleTimeout);
    if (delivery.drip.count() > 0 || delivery.close_mid_body) {
      stream.expires_never();
      if (!co_await deliver(stream, res, delivery)) break;
      continue;
    }
    auto [write_ec, written] = co_await http::async_write(stream, res, nothrow);
    if (write_ec || !res.keep_alive()) break;
  }
  beast::error_code ignored;
  stream.socket().shutdown(tcp::socket::shutdown_send, ignored);
}

template <class Handler>
asio::awaitable<void> accept_loop(tcp::acceptor& acceptor, Handler handler, std::uint64_t& connections,
                                  bool close_after_answer = false) {
  asio::steady_timer backoff(acceptor.get_executor());
  for (;;) {
    auto [ec, socket] = co_await acceptor.async_accept(nothrow);
    if (ec == asio::error::operation_aborted) co_return;
    if (ec) {  // e.g. out of file descriptors: do not spin
      backoff.expires_after(kTick);
      co_await backoff.async_wait(nothrow);
      continue;
    }
    asio::co_spawn(acceptor.get_executor(),
                   serve_connection(std::move(socket), handler, ++connections, close_after_answer),
                   asio::detached);
  }
}

// Hands the impact transitions of the last change to the hook (or drops them when there is none).
void play_impacts(EmulatorState& state, std::optional<ImpactHook>& hook) {
  auto transitions = state.events.take_transitions();
  if (hook && !transitions.empty()) hook->play(transitions);
}

asio::awaitable<void> tick(EmulatorState& state, std::optional<ImpactHook>& hook) {
  asio::steady_timer timer(co_await asio::this_coro::executor);
  for (;;) {
    timer.expires_after(kTick);
    co_await timer.async_wait(nothrow);
    state.events.advance(WallClock::now());
    play_impacts(state, hook);
  }
}

std::optional<tcp::acceptor> open_listener(asio::io_context& ioc, const ListenAddress& where,
                                           std::ostream& errors, const std::string& what) {
  tcp::acceptor acceptor(ioc);
  const tcp::endpoint endpoint(where.address, where.port);
  beast::error_code ec;
  acceptor.open(endpoint.protocol(), ec);
  if (!ec) acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) acceptor.bind(endpoint, ec);
  if (!ec) acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    errors << "imds-emulator: cannot listen on " << endpoint_text(endpoint) << " for " << what << ": "
           << ec.message() << "\n";
    return std::nullopt;
  }
  return acceptor;
}

void announce_line(std::ostream& out, boost::json::object line) {
  out << boost::json::serialize(line) << "\n";
}

}  // namespace

int run_emulator(const EmulatorConfig& config, std::ostream& announce, std::ostream& errors) {
  std::vector<EmulatedVm> vms;
  for (const auto& vm : config.vms)
    vms.push_back(EmulatedVm{vm.name, vm.fault_domain, vm.zone, {}, vm.region});
  EmulatorState state(std::move(vms), config.first_call_delay, std::random_device{}(),
                      config.shared_approval);

  asio::io_context ioc(1);
  std::optional<ImpactHook> hook;  // after ioc: destroyed first, before the coroutine frames that use it
  if (!config.impact_hook.empty())
    hook.emplace(ioc.get_executor(), config.impact_hook, state.events.vms(), errors);
  std::uint64_t connections = 0;
  std::vector<tcp::acceptor> acceptors;
  for (const auto& vm : config.vms) {
    auto acceptor = open_listener(ioc, vm.listen, errors, "VM " + vm.name);
    if (!acceptor) return 1;
    acceptors.push_back(std::move(*acceptor));
  }
  auto admin = open_listener(ioc, config.admin, errors, "the admin API");
  if (!admin) return 1;

  for (std::size_t i = 0; i < config.vms.size(); ++i) {
    announce_line(announce, {{"listening", "vm"},
                             {"vm", config.vms[i].name},
                             {"region", config.vms[i].region},
                             {"address", endpoint_text(acceptors[i].local_endpoint())}});
    auto handler = [&state, &hook, i](HttpRequest& req, std::uint64_t connection) -> asio::awaitable<Reply> {
      const Admission admission = admit_vm_request(state, i, req);
      if (admission.delay.count() > 0) {
        asio::steady_timer wait(co_await asio::this_coro::executor, admission.delay);
        co_await wait.async_wait(nothrow);
      }
      Reply reply{handle_vm_request(state, i, req, admission, WallClock::now(), connection),
                  delivery_of(admission)};
      play_impacts(state, hook);
      co_return reply;
    };
    asio::co_spawn(ioc, accept_loop(acceptors[i], handler, connections, config.close_after_answer),
                   asio::detached);
  }
  announce_line(announce, {{"listening", "admin"}, {"address", endpoint_text(admin->local_endpoint())}});
  announce.flush();
  auto admin_handler = [&state, &hook](HttpRequest& req, std::uint64_t) -> asio::awaitable<Reply> {
    Reply reply{handle_admin_request(state, req, WallClock::now()), {}};
    play_impacts(state, hook);
    co_return reply;
  };
  asio::co_spawn(ioc, accept_loop(*admin, admin_handler, connections), asio::detached);
  asio::co_spawn(ioc, tick(state, hook), asio::detached);

  asio::signal_set signals(ioc, SIGTERM, SIGINT);
  signals.async_wait([&](const beast::error_code&, int) { ioc.stop(); });
  ioc.run();
  return 0;
}

}  // namespace cla
