// What the client tests (IMDS, etcd) share: one client call run to completion on an io_context, and the names
// both kinds use unqualified.
#pragma once

#include <boost/asio.hpp>
#include <chrono>
#include <exception>
#include <optional>
#include <stdexcept>

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

}  // namespace cla::test

// What a client test of either kind uses unqualified; imds_client_tests and etcd_client_tests add their
// failure `Kind`.
namespace cla::test::client_tests {

using namespace cla::test;
using namespace std::chrono_literals;
namespace asio = boost::asio;

}  // namespace cla::test::client_tests
