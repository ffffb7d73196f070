// etcd value helpers: prefix_range_end, base64, failure labels, fail-over and token rules, describe().
#include "agent/coordination/etcd/etcd_types.hpp"

#include <boost/test/unit_test.hpp>
#include <set>

#include "imds/transport/base64.hpp"

using Kind = cla::EtcdFailure::Kind;

namespace {

cla::EtcdFailure failure(Kind kind, int http_status = 0, std::string detail = {}) {
  cla::EtcdFailure f;
  f.kind = kind;
  f.http_status = http_status;
  f.detail = std::move(detail);
  return f;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(etcd_types_test)

BOOST_AUTO_TEST_CASE(prefix_range_end_is_the_prefix_plus_one) {
  BOOST_TEST(cla::prefix_range_end("/cassandra-lifecycle-agent/c1/drains/") ==
             "/cassandra-lifecycle-agent/c1/drains0");
  BOOST_TEST(cla::prefix_range_end("a\xff") == "b");
  BOOST_TEST(cla::prefix_range_end("a\xfe\xff\xff") == "a\xff");
  BOOST_TEST(cla::prefix_range_end("\xff\xff") == std::string(1, '\0'));  // every key from the prefix on
  BOOST_TEST(cla::prefix_range_end("") == std::string(1, '\0'));
}

BOOST_AUTO_TEST_CASE(base64_round_trips_every_byte_and_every_padding) {
  std::string all;
  for (int b = 0; b < 256; ++b) all += static_cast<char>(b);
  for (std::size_t n = 0; n <= all.size(); n += 1) {
    const std::string bytes = all.substr(all.size() - n);
    const auto back = cla::base64_decode(cla::base64_encode(bytes));
    BOOST_TEST_REQUIRE(back.has_value());
    BOOST_TEST(*back == bytes);
  }
  BOOST_TEST(cla::base64_encode("") == "");
  BOOST_TEST(cla::base64_encode("f") == "Zg==");
  BOOST_TEST(cla::base64_encode("fo") == "Zm8=");
  BOOST_TEST(cla::base64_encode("foo") == "Zm9v");
  BOOST_TEST(cla::base64_encode("/cla/t/a") == "L2NsYS90L2E=");
}

BOOST_AUTO_TEST_CASE(base64_refuses_what_is_not_canonical) {
  for (const std::string_view bad :
       {"Zg=", "Zg", "Z===", "====", "Zm9v=", "Zh==", "Zm9=", "Zm 9", "Zm9-", "Z=g=", "Zm9v\n"})
    BOOST_TEST(!cla::base64_decode(bad).has_value(), bad);
}

BOOST_AUTO_TEST_CASE(labels_are_stable_and_distinct) {
  const std::pair<Kind, std::string_view> labels[] = {
      {Kind::connect, "connect"},
      {Kind::timeout, "timeout"},
      {Kind::http_status, "http_status"},
      {Kind::body_too_large, "body_too_large"},
      {Kind::invalid_json, "invalid_json"},
      {Kind::wrong_shape, "wrong_shape"},
      {Kind::unavailable, "unavailable"},
      {Kind::auth, "auth"},
      {Kind::lease_not_found, "lease_not_found"},
      {Kind::compacted, "compacted"},
      {Kind::grpc_error, "grpc_error"},
      {Kind::cancelled, "cancelled"},
  };
  std::set<std::string_view> seen;
  for (const auto& [kind, label] : labels) {
    BOOST_TEST(cla::to_string(kind) == label);
    seen.insert(cla::to_string(kind));
  }
  BOOST_TEST(seen.size() == std::size(labels));
}

BOOST_AUTO_TEST_CASE(another_member_is_tried_after_transport_failures_5xx_and_unavailable) {
  for (const Kind kind : {Kind::connect, Kind::timeout, Kind::unavailable})
    BOOST_TEST(failure(kind).fail_over(), cla::to_string(kind));
  BOOST_TEST(failure(Kind::http_status, 503).fail_over());
  BOOST_TEST(!failure(Kind::http_status, 404).fail_over());
  for (const Kind kind : {Kind::body_too_large, Kind::invalid_json, Kind::wrong_shape, Kind::auth,
                          Kind::lease_not_found, Kind::compacted, Kind::grpc_error, Kind::cancelled})
    BOOST_TEST(!failure(kind, 500).fail_over(), cla::to_string(kind));
}

BOOST_AUTO_TEST_CASE(only_token_problems_ask_for_a_new_token) {
  BOOST_TEST(failure(Kind::auth, 401, "etcdserver: invalid auth token").invalid_token());
  BOOST_TEST(failure(Kind::auth, 400, "etcdserver: user name is empty").invalid_token());
  BOOST_TEST(!failure(Kind::auth, 400, "etcdserver: authentication failed, invalid user ID or password")
                  .invalid_token());
  BOOST_TEST(!failure(Kind::auth, 403, "etcdserver: permission denied").invalid_token());
  BOOST_TEST(!failure(Kind::grpc_error, 401, "etcdserver: invalid auth token").invalid_token());
}

BOOST_AUTO_TEST_CASE(describe_reads_well_in_a_log) {
  cla::EtcdFailure f = failure(Kind::unavailable, 503, "etcdserver: no leader");
  f.grpc_code = 14;
  f.endpoint = "http://127.0.0.1:2379";
  BOOST_TEST(cla::describe(f) ==
             "unavailable (HTTP 503, gRPC 14) at http://127.0.0.1:2379: etcdserver: no leader");
  BOOST_TEST(cla::describe(failure(Kind::timeout, 0, "no answer within 2000 ms")) ==
             "timeout: no answer within 2000 ms");
}

BOOST_AUTO_TEST_SUITE_END()
