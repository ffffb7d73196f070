// Integration-test support for EtcdClient: client options, waiting on a condition while the io_context runs,
// spawning a call whose result a test inspects later, and the names its tests use.
#pragma once

#include <boost/asio.hpp>
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "agent/coordination/etcd/etcd_client.hpp"
#include "client_call.hpp"
#include "etcd_cluster.hpp"
#include "wait_margin.hpp"

namespace cla::test {

inline cla::EtcdClientOptions options_for(std::vector<std::string> endpoints,
                                          std::chrono::milliseconds timeout = std::chrono::seconds(2)) {
  cla::EtcdClientOptions options;
  options.endpoints = std::move(endpoints);
  options.request_timeout = timeout;
  return options;
}

// The ceiling for `requests` client requests in a row: each tries every endpoint in turn, each within the
// request timeout; plus kMargin.
inline std::chrono::milliseconds requests_ceiling(const cla::EtcdClientOptions& options, int requests = 1) {
  return options.request_timeout * static_cast<long>(options.endpoints.size()) * requests + kMargin;
}

template <class T>
std::string why(const cla::Result<T, cla::EtcdFailure>& r) {
  return r.ok() ? std::string() : cla::describe(r.error());
}

// Runs `ioc` in short slices until `done()` holds or `ceiling` passes; whether it held.
inline bool run_until(boost::asio::io_context& ioc, const std::function<bool()>& done,
                      std::chrono::milliseconds ceiling) {
  const auto deadline = std::chrono::steady_clock::now() + ceiling;
  while (!done()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    ioc.restart();
    ioc.run_for(std::chrono::milliseconds(50));
  }
  return true;
}

// Starts a client call on `ioc`; its result lands in `out` once it finishes.
template <class T>
void spawn_into(boost::asio::io_context& ioc, boost::asio::awaitable<T> call, std::optional<T>& out) {
  boost::asio::co_spawn(
      ioc,
      [&out, call = std::move(call)]() mutable -> boost::asio::awaitable<void> {
        out.emplace(co_await std::move(call));
      },
      boost::asio::detached);
}

// Every member's endpoint, `first` first: the client starts there.
inline std::vector<std::string> endpoints_from(const EtcdCluster& etcd, std::size_t first) {
  std::vector<std::string> endpoints = {etcd.endpoint(first)};
  for (std::size_t i = 0; i < etcd.size(); ++i)
    if (i != first) endpoints.push_back(etcd.endpoint(i));
  return endpoints;
}

inline bool has_key(EtcdCluster& etcd, const std::string& key) {
  for (const auto& [k, v] : etcd.get_prefix(key))
    if (k == key) return true;
  return false;
}

// etcd removes an expired lease's keys from its leader's expiry loop (every 500 ms), and a loaded machine
// delays it: the ceiling for "the key is gone" after the TTL ran out.
inline constexpr auto kExpiryMargin = std::chrono::seconds(5);

}  // namespace cla::test

// The names an EtcdClient test uses unqualified: `using namespace cla::test::etcd_client_tests;` at the top
// of the test file.
namespace cla::test::etcd_client_tests {

using namespace cla::test::client_tests;
using Kind = cla::EtcdFailure::Kind;

}  // namespace cla::test::etcd_client_tests
