// Test helper: runs the real imds-emulator on 127.0.0.1, learns its ports, and drives its admin API.
#include "imds_emulator_process.hpp"

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/json.hpp>
#include <boost/process/v2.hpp>
#include <stdexcept>

namespace cla::test {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace bp = boost::process::v2;
using namespace std::chrono_literals;

std::string emulator_path() {
  return std::string(CLA_BIN_DIR) + "/imds-emulator";
}

void require_2xx(const HttpReply& reply, const std::string& what) {
  if (reply.status < 200 || reply.status >= 300)
    throw std::runtime_error(what + ": HTTP " + std::to_string(reply.status) + " " + reply.body);
}

// Runs ctx until `done` or the deadline; false on timeout.
bool run_until(asio::io_context& ctx, const bool& done, std::chrono::steady_clock::time_point deadline) {
  ctx.restart();
  while (!done && std::chrono::steady_clock::now() < deadline)
    if (ctx.run_one_until(deadline) == 0) break;
  return done;
}

}  // namespace

struct ImdsEmulatorProcess::Child {
  asio::io_context ctx;
  asio::readable_pipe out{ctx};
  std::optional<bp::process> process;
  std::string buffer;

  std::string read_line(std::chrono::steady_clock::time_point deadline) {
    for (;;) {
      if (const auto nl = buffer.find('\n'); nl != std::string::npos) {
        std::string line = buffer.substr(0, nl);
        buffer.erase(0, nl + 1);
        return line;
      }
      std::array<char, 512> chunk;
      beast::error_code error;
      std::size_t n = 0;
      bool done = false;
      out.async_read_some(asio::buffer(chunk), [&](beast::error_code ec, std::size_t k) {
        error = ec;
        n = k;
        done = true;
      });
      if (!run_until(ctx, done, deadline)) {
        out.cancel();
        ctx.restart();
        ctx.run();
        throw std::runtime_error("imds-emulator did not announce its listeners in time");
      }
      if (error)
        throw std::runtime_error("imds-emulator exited before announcing its listeners: " + error.message());
      buffer.append(chunk.data(), n);
    }
  }
};

boost::json::value HttpReply::json() const {
  boost::system::error_code ec;
  auto value = boost::json::parse(body, ec);
  if (ec) throw std::runtime_error("not JSON (" + ec.message() + "): " + body);
  return value;
}

HttpReply http_call(std::uint16_t port, http::verb verb, const std::string& target, const std::string& body,
                    const Headers& headers, std::chrono::milliseconds timeout) {
  asio::io_context ioc;
  HttpReply reply;
  std::exception_ptr error;
  bool done = false;
  auto exchange = [&]() -> asio::awaitable<void> {
    beast::tcp_stream stream(co_await asio::this_coro::executor);
    co_await stream.async_connect(asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"), port),
                                  asio::use_awaitable);
    http::request<http::string_body> req{verb, target, 11};
    req.set(http::field::host, "127.0.0.1:" + std::to_string(port));
    for (const auto& [name, value] : headers) req.set(name, value);
    req.keep_alive(false);
    req.body() = body;
    req.prepare_payload();
    co_await http::async_write(stream, req, asio::use_awaitable);
    beast::flat_buffer buffer;
    http::response<http::string_body> res;
    co_await http::async_read(stream, buffer, res, asio::use_awaitable);
    reply = HttpReply{res.result_int(), res.body(), std::string(res[http::field::content_type])};
    done = true;
  };
  asio::co_spawn(ioc, exchange, [&](std::exception_ptr e) { error = e; });
  ioc.run_for(timeout);
  const std::string what = std::string(http::to_string(verb)) + " 127.0.0.1:" + std::to_string(port) + target;
  if (error) {
    try {
      std::rethrow_exception(error);
    } catch (const std::exception& e) {
      throw std::runtime_error(what + ": " + e.what());
    }
  }
  if (!done) throw std::runtime_error(what + ": no answer within " + std::to_string(timeout.count()) + " ms");
  return reply;
}

ImdsEmulatorProcess::ImdsEmulatorProcess(std::vector<EmulatorVm> vms, std::vector<std::string> extra_args)
    : child_(std::make_unique<Child>()) {
  std::vector<std::string> args;
  for (const auto& vm : vms) {
    args.push_back("--vm");
    args.push_back(vm.name + "," + std::to_string(vm.fault_domain) + ",127.0.0.1:" + std::to_string(vm.port) +
                   (vm.zone.empty() ? "" : "," + vm.zone) +
                   (vm.region.empty() ? "" : ",region=" + vm.region));
  }
  args.insert(args.end(), {"--admin", "127.0.0.1:0"});
  args.insert(args.end(), extra_args.begin(), extra_args.end());
  child_->process.emplace(child_->ctx, emulator_path(), args, bp::process_stdio{nullptr, child_->out, {}});
  try {
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    while (vm_ports_.size() < vms.size() || admin_port_ == 0) {
      const std::string line = child_->read_line(deadline);
      const auto json = boost::json::parse(line).as_object();
      const std::string address(json.at("address").as_string());
      const auto port = static_cast<std::uint16_t>(std::stoi(address.substr(address.rfind(':') + 1)));
      if (json.at("listening") == "admin") {
        admin_port_ = port;
      } else {
        vm_ports_[{std::string(json.at("vm").as_string()), std::string(json.at("region").as_string())}] =
            port;
      }
    }
  } catch (...) {
    stop();
    throw;
  }
}

ImdsEmulatorProcess::~ImdsEmulatorProcess() {
  stop();
}

std::uint16_t ImdsEmulatorProcess::vm_port(const std::string& vm, const std::string& region) const {
  const auto it = vm_ports_.find({vm, region});
  if (it == vm_ports_.end())
    throw std::runtime_error("no emulated VM " + vm + (region.empty() ? "" : " in region " + region));
  return it->second;
}

std::string ImdsEmulatorProcess::vm_endpoint(const std::string& vm) const {
  return "http://127.0.0.1:" + std::to_string(vm_port(vm));
}

int ImdsEmulatorProcess::stop() {
  if (exit_code_) return *exit_code_;
  bp::process& process = *child_->process;
  beast::error_code ec;
  process.request_exit(ec);  // SIGTERM
  int code = -1;
  bool done = false;
  process.async_wait([&](beast::error_code e, int exit) {
    code = e ? -1 : exit;
    done = true;
  });
  if (!run_until(child_->ctx, done, std::chrono::steady_clock::now() + 5s)) {
    process.terminate(ec);  // SIGKILL
    run_until(child_->ctx, done, std::chrono::steady_clock::now() + 2s);
  }
  exit_code_ = code;
  return code;
}

HttpReply ImdsEmulatorProcess::admin(http::verb verb, const std::string& target,
                                     const std::string& body) const {
  return http_call(admin_port_, verb, target, body);
}

std::string ImdsEmulatorProcess::add_event(const boost::json::object& spec) const {
  const auto reply = admin(http::verb::post, "/admin/events", boost::json::serialize(spec));
  require_2xx(reply, "POST /admin/events");
  return std::string(reply.json().at("EventId").as_string());
}

void ImdsEmulatorProcess::cancel_event(const std::string& id) const {
  require_2xx(admin(http::verb::delete_, "/admin/events/" + id), "DELETE /admin/events/" + id);
}

void ImdsEmulatorProcess::set_fault(const boost::json::object& fault) const {
  require_2xx(admin(http::verb::post, "/admin/faults", boost::json::serialize(fault)), "POST /admin/faults");
}

boost::json::array ImdsEmulatorProcess::events() const {
  const auto reply = admin(http::verb::get, "/admin/events");
  require_2xx(reply, "GET /admin/events");
  return reply.json().as_array();
}

boost::json::array ImdsEmulatorProcess::requests() const {
  const auto reply = admin(http::verb::get, "/admin/requests");
  require_2xx(reply, "GET /admin/requests");
  return reply.json().as_array();
}

boost::json::array ImdsEmulatorProcess::approvals() const {
  const auto reply = admin(http::verb::get, "/admin/approvals");
  require_2xx(reply, "GET /admin/approvals");
  return reply.json().as_array();
}

void ImdsEmulatorProcess::clear_requests() const {
  require_2xx(admin(http::verb::delete_, "/admin/requests"), "DELETE /admin/requests");
}

EmulatorRun run_emulator_to_exit(const std::vector<std::string>& args, std::chrono::milliseconds timeout) {
  asio::io_context ctx;
  asio::readable_pipe out(ctx), err(ctx);
  bp::process process(ctx, emulator_path(), args, bp::process_stdio{nullptr, out, err});
  EmulatorRun run;
  int pending = 3;
  auto drain = [&](asio::readable_pipe& pipe, std::string& text) {
    asio::async_read(pipe, asio::dynamic_buffer(text), [&](beast::error_code, std::size_t) { --pending; });
  };
  drain(out, run.out);
  drain(err, run.err);
  process.async_wait([&](beast::error_code e, int code) {
    run.exit_code = e ? -1 : code;
    --pending;
  });
  ctx.restart();
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (pending > 0 && ctx.run_one_until(deadline) > 0) {
  }
  if (pending > 0) {
    beast::error_code ec;
    process.terminate(ec);
    throw std::runtime_error("imds-emulator did not exit within " + std::to_string(timeout.count()) + " ms");
  }
  return run;
}

}  // namespace cla::test
