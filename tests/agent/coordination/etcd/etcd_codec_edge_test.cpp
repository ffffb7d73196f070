// The etcd codec's decoders on odd and broken answers: every decoder takes any bytes without throwing.
#include <boost/test/unit_test.hpp>
#include <functional>

#include "agent/coordination/etcd/etcd_codec.hpp"
#include "etcd_answers.hpp"

namespace codec = cla::etcd_codec;
using Kind = cla::EtcdFailure::Kind;
using namespace std::chrono_literals;

namespace {

// Runs every decoder on the bytes; a decoder may refuse them but must not throw.
void decode_with_every_decoder(int status, std::string_view body) {
  (void)codec::decode_range(status, body);
  (void)codec::decode_put(status, body);
  (void)codec::decode_delete_range(status, body);
  (void)codec::decode_txn(status, body);
  (void)codec::decode_lease_grant(status, body);
  (void)codec::decode_lease_keepalive(status, body);
  (void)codec::decode_lease_revoke(status, body);
  (void)codec::decode_authenticate(status, body);
  (void)codec::answer_failure(status, body);
}

constexpr std::string_view kHeader = R"("header":{"revision":"7"})";

std::string with_header(std::string_view rest) {
  return "{" + std::string(kHeader) + (rest.empty() ? "" : ",") + std::string(rest) + "}";
}

}  // namespace

BOOST_AUTO_TEST_SUITE(etcd_codec_edge_test)

BOOST_AUTO_TEST_CASE(every_decoder_takes_every_recorded_answer_and_each_of_its_prefixes) {
  const auto names = cla::test::etcd_answer_names();
  BOOST_TEST_REQUIRE(names.size() >= 25u);
  for (const auto& name : names) {
    const auto answer = cla::test::etcd_answer(name);
    for (std::size_t n = 0; n <= answer.body.size(); ++n) {
      BOOST_CHECK_NO_THROW(
          decode_with_every_decoder(answer.status, std::string_view(answer.body).substr(0, n)));
      BOOST_CHECK_NO_THROW(decode_with_every_decoder(200, std::string_view(answer.body).substr(0, n)));
    }
  }
}

BOOST_AUTO_TEST_CASE(int64s_may_come_as_json_numbers) {
  const auto range = codec::decode_range(
      200, R"({"header":{"revision":9},"kvs":[{"key":"YQ==","mod_revision":8,"version":2}],"count":1})");
  BOOST_TEST_REQUIRE(range.ok());
  BOOST_TEST(range->revision == 9);
  BOOST_TEST(range->kvs[0].mod_revision == 8);
  BOOST_TEST(range->kvs[0].key == "a");
  BOOST_TEST((codec::decode_lease_keepalive(200, R"({"result":{"ID":5,"TTL":15}})").value() == 15s));
}

BOOST_AUTO_TEST_CASE(a_keepalive_stream_counts_its_first_message) {
  const auto ttl = codec::decode_lease_keepalive(
      200, "{\"result\":{\"ID\":\"5\",\"TTL\":\"15\"}}\n{\"result\":{\"ID\":\"5\",\"TTL\":\"3\"}}\n");
  BOOST_TEST_REQUIRE(ttl.ok());
  BOOST_TEST((ttl.value() == 15s));
}

BOOST_AUTO_TEST_CASE(wrong_shapes_name_the_field) {
  struct Case {
    std::string body;
    std::string detail_starts;
  };
  const Case cases[] = {
      {"{}", "header: missing"},
      {"[]", "answer: expected an object, got an array"},
      {R"({"header":[]})", "header: expected an object"},
      {with_header(R"("kvs":{})"), "kvs: expected an array"},
      {with_header(R"("kvs":[{"key":"a"}])"), "kvs[0].key: not base64"},
      {with_header(R"("kvs":[{"key":"YQ==","version":"x1"}])"), "kvs[0].version: expected an integer"},
      {with_header(R"("kvs":[{"key":"YQ==","version":1.5}])"), "kvs[0].version: expected an integer"},
      {with_header(R"("kvs":[{"key":"YQ==","version":"99999999999999999999"}])"),
       "kvs[0].version: expected an integer"},
      {with_header(R"("more":"yes")"), "more: expected a boolean"},
      {with_header(R"("count":true)"), "count: expected an integer"},
      {with_header(R"("kvs":[3])"), "kvs[0]: expected an object"},
  };
  for (const auto& c : cases) {
    const auto range = codec::decode_range(200, c.body);
    BOOST_TEST_REQUIRE(!range.ok(), c.body);
    BOOST_TEST((range.error().kind == Kind::wrong_shape), c.body);
    BOOST_TEST(range.error().detail.rfind(c.detail_starts, 0) == 0, c.body << " -> " << range.error().detail);
  }
  const auto txn = codec::decode_txn(200, with_header(R"("responses":[{"response_range":{"kvs":7}}])"));
  BOOST_TEST_REQUIRE(!txn.ok());
  BOOST_TEST(txn.error().detail == "responses[0].response_range.kvs: expected an array, got an integer");
  BOOST_TEST(codec::decode_lease_grant(200, with_header("")).error().detail ==
             "ID: missing (no lease granted)");
  BOOST_TEST(codec::decode_lease_keepalive(200, with_header("")).error().detail == "result: missing");
  BOOST_TEST(codec::decode_authenticate(200, with_header(R"("token":"")")).error().detail ==
             "token: missing or not a non-empty string");
}

BOOST_AUTO_TEST_CASE(bodies_that_are_not_json) {
  for (const std::string_view body : {"", "  ", "<html>proxy error</html>", "{\"header\":", "\xff\xfe"}) {
    const auto ok_status = codec::decode_put(200, body);
    BOOST_TEST_REQUIRE(!ok_status.ok());
    BOOST_TEST((ok_status.error().kind == Kind::invalid_json));
    const auto bad_gateway = codec::decode_put(502, body);
    BOOST_TEST_REQUIRE(!bad_gateway.ok());
    BOOST_TEST((bad_gateway.error().kind == Kind::http_status));
    BOOST_TEST(bad_gateway.error().http_status == 502);
    BOOST_TEST(bad_gateway.error().fail_over());
  }
}

BOOST_AUTO_TEST_CASE(an_error_body_wins_over_a_200_status) {
  // A streaming call's error comes after the 200 status line when the stream had already started.
  const auto f = codec::decode_lease_keepalive(
      200, R"({"error":{"grpc_code":14,"http_code":503,"message":"etcdserver: leader changed"}})");
  BOOST_TEST_REQUIRE(!f.ok());
  BOOST_TEST((f.error().kind == Kind::unavailable));
  BOOST_TEST(f.error().http_status == 503);
  BOOST_TEST(f.error().detail == "etcdserver: leader changed");
}

BOOST_AUTO_TEST_CASE(grpc_errors_are_classified_by_code_and_message) {
  struct Case {
    int code;
    const char* message;
    Kind kind;
  };
  const Case cases[] = {
      {14, "etcdserver: no leader", Kind::unavailable},
      {14, "etcdserver: leader changed", Kind::unavailable},
      {14, "etcdserver: request timed out, possibly due to previous leader failure", Kind::unavailable},
      {4, "context deadline exceeded", Kind::unavailable},
      {8, "etcdserver: too many requests", Kind::unavailable},
      {8, "etcdserver: mvcc: database space exceeded", Kind::grpc_error},
      {5, "etcdserver: requested lease not found", Kind::lease_not_found},
      {11, "etcdserver: mvcc: required revision has been compacted", Kind::compacted},
      {11, "etcdserver: mvcc: required revision is a future revision", Kind::grpc_error},
      {16, "etcdserver: invalid auth token", Kind::auth},
      {3, "etcdserver: revision of auth store is old", Kind::auth},
      {9, "etcdserver: role is not granted to the user", Kind::auth},
      {3, "etcdserver: too many operations in txn request", Kind::grpc_error},
      {13, "", Kind::grpc_error},
  };
  for (const auto& c : cases) {
    const auto f = codec::classify_grpc_error(c.code, c.message, 0);
    BOOST_TEST((f.kind == c.kind), c.message);
    BOOST_TEST(f.grpc_code == c.code, c.message);
  }
  BOOST_TEST(codec::classify_grpc_error(13, "", 500).detail == "gRPC error 13 without a message");
  BOOST_TEST(codec::classify_grpc_error(3, "etcdserver: revision of auth store is old", 400).invalid_token());
  BOOST_TEST(codec::classify_grpc_error(3, "line\nbreak", 400).detail == "line?break");
}

BOOST_AUTO_TEST_SUITE_END()
