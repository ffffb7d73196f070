// The etcd codec's decoders on answers recorded from a real etcd 3.4 (tests/data/etcd/), and on broken ones.
#include "agent/coordination/etcd/etcd_codec.hpp"

#include <boost/test/unit_test.hpp>
#include <functional>

#include "etcd_answers.hpp"

namespace codec = cla::etcd_codec;
using cla::test::etcd_answer;
using Kind = cla::EtcdFailure::Kind;
using namespace std::chrono_literals;

namespace {

template <class T>
T decoded(const cla::Result<T, cla::EtcdFailure>& result) {
  if (!result) throw std::runtime_error("unexpected failure: " + cla::describe(result.error()));
  return result.value();
}

template <class Decode>
cla::EtcdFailure failure_of(const std::string& name, Decode decode) {
  const auto answer = etcd_answer(name);
  const auto result = decode(answer.status, answer.body);
  if (result) throw std::runtime_error(name + ": decoded although it is an error answer");
  return result.error();
}

cla::EtcdRange range_of(const std::string& name) {
  const auto answer = etcd_answer(name);
  return decoded(codec::decode_range(answer.status, answer.body));
}

}  // namespace

BOOST_AUTO_TEST_SUITE(etcd_codec_test)

BOOST_AUTO_TEST_CASE(an_empty_range_has_only_a_header) {
  const auto range = range_of("range_empty");
  BOOST_TEST(range.kvs.empty());
  BOOST_TEST(range.count == 0);
  BOOST_TEST(!range.more);
  BOOST_TEST(range.revision > 0);
}

BOOST_AUTO_TEST_CASE(a_range_decodes_base64_binary_keys_and_omitted_empty_values) {
  const auto range = range_of("range_kvs");
  BOOST_TEST_REQUIRE(range.kvs.size() == 3u);
  BOOST_TEST(range.count == 3);
  BOOST_TEST(range.kvs[0].key == "/cla/t/a");
  BOOST_TEST(range.kvs[0].value == R"({"vm":"vm0"})");
  BOOST_TEST(range.kvs[0].version == 1);
  BOOST_TEST(range.kvs[0].lease == 0);
  BOOST_TEST(range.kvs[1].key == "/cla/t/b");
  BOOST_TEST(range.kvs[1].value == "");  // the gateway omits an empty value
  BOOST_TEST(range.kvs[2].key == std::string("/cla/t/\xff\0bin", 12));
  BOOST_TEST(range.kvs[2].value == std::string("\x00\x01\xfe", 3));
  for (const auto& kv : range.kvs) {
    BOOST_TEST(kv.create_revision > 0);
    BOOST_TEST(kv.mod_revision >= kv.create_revision);
    BOOST_TEST(kv.mod_revision <= range.revision);
  }
}

BOOST_AUTO_TEST_CASE(a_limited_range_says_more) {
  const auto range = range_of("range_more");
  BOOST_TEST(range.kvs.size() == 1u);
  BOOST_TEST(range.count == 3);
  BOOST_TEST(range.more);
}

BOOST_AUTO_TEST_CASE(a_leased_key_carries_the_lease_that_was_granted) {
  const auto grant = etcd_answer("lease_grant");
  const auto lease = decoded(codec::decode_lease_grant(grant.status, grant.body));
  BOOST_TEST(lease != 0);
  const auto range = range_of("range_leased_kv");
  BOOST_TEST_REQUIRE(range.kvs.size() == 1u);
  BOOST_TEST(range.kvs[0].lease == lease);
}

BOOST_AUTO_TEST_CASE(put_and_delete_give_the_revision_and_the_count) {
  const auto put = etcd_answer("put");
  BOOST_TEST(decoded(codec::decode_put(put.status, put.body)) > 0);
  const auto del = etcd_answer("deleterange");
  BOOST_TEST(decoded(codec::decode_delete_range(del.status, del.body)) == 2);
  const auto none = etcd_answer("deleterange_none");
  BOOST_TEST(decoded(codec::decode_delete_range(none.status, none.body)) == 0);
}

BOOST_AUTO_TEST_CASE(a_transaction_gives_its_branch_and_the_ranges_it_read) {
  const auto ok = etcd_answer("txn_succeeded");
  const auto succeeded = decoded(codec::decode_txn(ok.status, ok.body));
  BOOST_TEST(succeeded.succeeded);
  BOOST_TEST_REQUIRE(succeeded.ranges.size() == 1u);  // the put gives none
  BOOST_TEST(succeeded.ranges[0].kvs.size() == 4u);
  BOOST_TEST(succeeded.ranges[0].revision == succeeded.revision);

  const auto moved = etcd_answer("txn_failed");
  const auto failed = decoded(codec::decode_txn(moved.status, moved.body));
  BOOST_TEST(!failed.succeeded);                   // "succeeded" is omitted when false
  BOOST_TEST_REQUIRE(failed.ranges.size() == 1u);  // the delete gives none
  BOOST_TEST(failed.ranges[0].count == 4);

  const auto empty = etcd_answer("txn_empty_range_compare");
  const auto passed = decoded(codec::decode_txn(empty.status, empty.body));
  BOOST_TEST(passed.succeeded);
  BOOST_TEST(passed.ranges.empty());
}

BOOST_AUTO_TEST_CASE(keepalive_answers_are_chunked_and_a_gone_lease_has_no_ttl) {
  const auto alive = etcd_answer("lease_keepalive");
  BOOST_TEST(alive.chunked);
  BOOST_TEST((decoded(codec::decode_lease_keepalive(alive.status, alive.body)) == 15s));
  const auto dead = etcd_answer("lease_keepalive_dead");
  BOOST_TEST(dead.chunked);
  BOOST_TEST((decoded(codec::decode_lease_keepalive(dead.status, dead.body)) == 0s));
}

BOOST_AUTO_TEST_CASE(revoking_a_gone_lease_is_lease_not_found) {
  const auto revoke = etcd_answer("lease_revoke");
  BOOST_TEST(codec::decode_lease_revoke(revoke.status, revoke.body).ok());
  const auto f = failure_of("lease_revoke_not_found", codec::decode_lease_revoke);
  BOOST_TEST((f.kind == Kind::lease_not_found));
  BOOST_TEST(f.http_status == 404);
  BOOST_TEST(f.grpc_code == 5);
  BOOST_TEST(f.detail == "etcdserver: requested lease not found");
  BOOST_TEST(!f.fail_over());
}

BOOST_AUTO_TEST_CASE(a_member_without_quorum_is_unavailable_and_worth_failing_over) {
  const auto stream = failure_of("lease_keepalive_no_leader", codec::decode_lease_keepalive);
  BOOST_TEST((stream.kind == Kind::unavailable));
  BOOST_TEST(stream.grpc_code == 14);
  BOOST_TEST(stream.http_status == 503);
  BOOST_TEST(stream.detail == "etcdserver: no leader");
  BOOST_TEST(stream.fail_over());

  const auto range = failure_of("error_unavailable_range", codec::decode_range);
  BOOST_TEST((range.kind == Kind::unavailable));
  BOOST_TEST(range.detail == "etcdserver: request timed out");
  BOOST_TEST(range.fail_over());

  const auto put = failure_of("error_unavailable_put", codec::decode_put);
  BOOST_TEST((put.kind == Kind::unavailable));
  BOOST_TEST(put.grpc_code == 2);
  BOOST_TEST(put.http_status == 500);
  BOOST_TEST(put.fail_over());
}

BOOST_AUTO_TEST_CASE(request_errors_are_classified_and_not_failed_over) {
  const auto compacted = failure_of("error_compacted", codec::decode_range);
  BOOST_TEST((compacted.kind == Kind::compacted));
  BOOST_TEST(compacted.grpc_code == 11);

  for (const char* name : {"error_invalid_request_json", "error_key_not_provided"}) {
    const auto f = failure_of(name, codec::decode_put);
    BOOST_TEST((f.kind == Kind::grpc_error), name);
    BOOST_TEST(f.grpc_code == 3, name);
    BOOST_TEST(f.http_status == 400, name);
    BOOST_TEST(!f.fail_over(), name);
  }

  const auto unknown = failure_of("error_unknown_path", codec::decode_range);
  BOOST_TEST((unknown.kind == Kind::http_status));
  BOOST_TEST(unknown.http_status == 404);
  BOOST_TEST(unknown.detail == R"(answer "Not Found?")");  // the text body, its newline shown as '?'
  BOOST_TEST(!unknown.fail_over());
}

BOOST_AUTO_TEST_CASE(authentication_answers) {
  const auto auth = etcd_answer("auth_authenticate");
  BOOST_TEST(!decoded(codec::decode_authenticate(auth.status, auth.body)).empty());
  const auto with_token = etcd_answer("auth_range_with_token");
  BOOST_TEST(decoded(codec::decode_range(with_token.status, with_token.body)).kvs.size() == 1u);

  struct Case {
    const char* name;
    int http_status, grpc_code;
    bool new_token_may_help;
  };
  for (const auto& c : {Case{"auth_invalid_token", 401, 16, true}, Case{"auth_user_empty", 400, 3, true},
                        Case{"auth_failed", 400, 3, false}, Case{"auth_permission_denied", 403, 7, false},
                        Case{"auth_not_enabled", 412, 9, false}}) {
    const auto f = failure_of(c.name, codec::decode_range);
    BOOST_TEST((f.kind == Kind::auth), c.name);
    BOOST_TEST(f.http_status == c.http_status, c.name);
    BOOST_TEST(f.grpc_code == c.grpc_code, c.name);
    BOOST_TEST(f.invalid_token() == c.new_token_may_help, c.name);
    BOOST_TEST(!f.fail_over(), c.name);
  }
}

BOOST_AUTO_TEST_SUITE_END()
