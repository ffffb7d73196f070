// Integration-test support for ImdsClient: run one call to completion, client options for an emulated VM.
#pragma once

#include <boost/asio.hpp>
#include <chrono>
#include <optional>
#include <stdexcept>

#include "imds/imds_client.hpp"
#include "imds_emulator_process.hpp"

namespace cla::test {

// Runs one client call to completion on `ioc` (at most `limit`).
template <class T>
T await(boost::asio::io_context& ioc, boost::asio::awaitable<T> op,
        std::chrono::milliseconds limit = std::chrono::seconds(10)) {
  std::optional<T> out;
  std::exception_ptr error;
  boost::asio::co_spawn(
      ioc, [&]() -> boost::asio::awaitable<void> { out.emplace(co_await std::move(op)); },
      [&](std::exception_ptr e) { error = e; });
  ioc.restart();
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!out && !error && ioc.run_one_until(deadline) > 0) {
  }
  if (error) std::rethrow_exception(error);
  if (!out) throw std::runtime_error("client call did not finish in time");
  return std::move(*out);
}

// Both timeouts set to `timeout` unless a test changes first_request_timeout.
inline cla::ImdsClientOptions options_for(const ImdsEmulatorProcess& emulator, const std::string& vm,
                                          std::chrono::milliseconds timeout = std::chrono::seconds(2)) {
  cla::ImdsClientOptions options;
  options.endpoint = emulator.vm_endpoint(vm);
  options.request_timeout = timeout;
  options.first_request_timeout = timeout;
  return options;
}

}  // namespace cla::test
