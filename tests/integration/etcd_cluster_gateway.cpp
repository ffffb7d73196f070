// Test fixture: the EtcdCluster calls that go through etcd's gateway (leader, auth, keys), for set-up and
// assertions.
#include <boost/json.hpp>
#include <chrono>
#include <stdexcept>
#include <thread>

#include "agent/coordination/etcd/etcd_codec.hpp"
#include "etcd_cluster.hpp"
#include "imds/transport/base64.hpp"
#include "imds_emulator_process.hpp"

namespace cla::test {
namespace {

namespace http = boost::beast::http;
namespace json = boost::json;
using namespace std::chrono_literals;

constexpr const char* kRootPassword = "root-pw";

}  // namespace

std::size_t EtcdCluster::leader() const {
  const auto deadline = std::chrono::steady_clock::now() + 15s;
  while (std::chrono::steady_clock::now() < deadline) {
    for (std::size_t i = 0; i < members_.size(); ++i) {
      if (!running(i)) continue;
      try {
        const auto reply =
            http_call(client_port(i), http::verb::post, "/v3/maintenance/status", "{}", {}, 2s);
        const auto status = reply.json().as_object();
        const auto* leader = status.if_contains("leader");
        if (leader && *leader == status.at("header").at("member_id")) return i;
      } catch (const std::exception&) {
      }
    }
    std::this_thread::sleep_for(50ms);
  }
  throw std::runtime_error("no etcd member leads within 15 s");
}

std::size_t EtcdCluster::follower() const {
  const std::size_t lead = leader();
  for (std::size_t i = 0; i < members_.size(); ++i)
    if (i != lead && running(i)) return i;
  throw std::runtime_error("no running etcd follower");
}

std::string EtcdCluster::call(const std::string& path, const std::string& body) const {
  std::string failures;
  for (std::size_t i = 0; i < members_.size(); ++i) {
    if (!running(i)) continue;
    Headers headers = {{"Content-Type", "application/json"}};
    if (!root_token_.empty()) headers.emplace_back("Authorization", root_token_);
    try {
      const auto reply = http_call(client_port(i), http::verb::post, path, body, headers, 10s);
      if (reply.status == 200) return reply.body;
      failures += " " + endpoint(i) + ": HTTP " + std::to_string(reply.status) + " " + reply.body;
    } catch (const std::exception& e) {
      failures += " " + endpoint(i) + ": " + e.what();
    }
  }
  throw std::runtime_error("etcd " + path + " failed on every running member:" + failures);
}

void EtcdCluster::enable_auth(const std::string& user, const std::string& password,
                              const std::string& prefix) {
  const json::object perm{{"permType", "READWRITE"},
                          {"key", base64_encode(prefix)},
                          {"range_end", base64_encode(prefix_range_end(prefix))}};
  const std::pair<const char*, json::object> steps[] = {
      {"/v3/auth/user/add", {{"name", "root"}, {"password", kRootPassword}}},
      {"/v3/auth/role/add", {{"name", "root"}}},
      {"/v3/auth/user/grant", {{"user", "root"}, {"role", "root"}}},
      {"/v3/auth/user/add", {{"name", user}, {"password", password}}},
      {"/v3/auth/role/add", {{"name", "agents"}}},
      {"/v3/auth/role/grant", {{"name", "agents"}, {"perm", perm}}},
      {"/v3/auth/user/grant", {{"user", user}, {"role", "agents"}}},
      {"/v3/auth/enable", {}},
  };
  for (const auto& [path, body] : steps) call(path, json::serialize(body));
  const auto auth = call("/v3/auth/authenticate",
                         json::serialize(json::object{{"name", "root"}, {"password", kRootPassword}}));
  root_token_ = std::string(json::parse(auth).at("token").as_string());
}

void EtcdCluster::change_password(const std::string& user, const std::string& password) {
  call("/v3/auth/user/changepw", json::serialize(json::object{{"name", user}, {"password", password}}));
}

void EtcdCluster::put(const std::string& key, const std::string& value) {
  call(std::string(etcd_codec::kPutPath), etcd_codec::encode_put({key, value, 0}));
}

void EtcdCluster::del(const std::string& key) {
  call(std::string(etcd_codec::kDeleteRangePath), etcd_codec::encode_delete_range(EtcdDelete(key)));
}

std::vector<std::pair<std::string, std::string>> EtcdCluster::get_prefix(const std::string& prefix) {
  const auto body =
      call(std::string(etcd_codec::kRangePath), etcd_codec::encode_range(prefix, prefix_range_end(prefix)));
  auto range = etcd_codec::decode_range(200, body);
  if (!range) throw std::runtime_error("etcd range answer: " + describe(range.error()));
  std::vector<std::pair<std::string, std::string>> out;
  for (auto& kv : range->kvs) out.emplace_back(std::move(kv.key), std::move(kv.value));
  return out;
}

void EtcdCluster::revoke_lease(std::int64_t lease) {
  call(std::string(etcd_codec::kLeaseRevokePath), etcd_codec::encode_lease_id(lease));
}

}  // namespace cla::test
