// The etcd codec's request bodies: the JSON the gateway expects (base64 bytes, int64s as strings, enum
// names).
#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

#include "agent/coordination/etcd/etcd_codec.hpp"

namespace codec = cla::etcd_codec;
namespace json = boost::json;
using namespace std::chrono_literals;

BOOST_AUTO_TEST_SUITE(etcd_codec_request_test)

BOOST_AUTO_TEST_CASE(range_sends_range_end_only_when_given) {
  BOOST_TEST(json::parse(codec::encode_range("/a", "")) == json::parse(R"({"key":"L2E="})"));
  BOOST_TEST(json::parse(codec::encode_range("/a/", "/a0")) ==
             json::parse(R"({"key":"L2Ev","range_end":"L2Ew"})"));
  // The "every key from here on" end is one NUL byte, which must reach etcd as such.
  BOOST_TEST(json::parse(codec::encode_range("/a", std::string(1, '\0'))) ==
             json::parse(R"({"key":"L2E=","range_end":"AA=="})"));
}

BOOST_AUTO_TEST_CASE(put_sends_binary_values_and_the_lease_as_a_string) {
  BOOST_TEST(json::parse(codec::encode_put({"/k", std::string("\x00\xff", 2), 0})) ==
             json::parse(R"({"key":"L2s=","value":"AP8="})"));
  BOOST_TEST(json::parse(codec::encode_put({"/k", "", 7587883137283702101})) ==
             json::parse(R"({"key":"L2s=","value":"","lease":"7587883137283702101"})"));
}

BOOST_AUTO_TEST_CASE(delete_range) {
  BOOST_TEST(json::parse(codec::encode_delete_range({"/k", "/l"})) ==
             json::parse(R"({"key":"L2s=","range_end":"L2w="})"));
}

BOOST_AUTO_TEST_CASE(txn_names_targets_and_results_as_etcd_does) {
  using T = cla::EtcdCompare::Target;
  using Op = cla::EtcdCompare::Op;
  const std::vector<cla::EtcdCompare> compare = {
      {T::mod, Op::less, "/d/", "/d0", 42, ""},  {T::version, Op::equal, "/m", "", 0, ""},
      {T::create, Op::greater, "/m", "", 3, ""}, {T::value, Op::not_equal, "/m", "", 0, "v"},
      {T::lease, Op::equal, "/m", "", 9, ""},
  };
  const std::vector<cla::EtcdOp> success = {cla::EtcdPut{"/d/x", "r", 0}, cla::EtcdDelete{"/d/y", ""}};
  const std::vector<cla::EtcdOp> failure = {cla::EtcdGet{"/d/", "/d0"},
                                            cla::EtcdGet{"/d/", "/d0", cla::EtcdGet::Answer::keys},
                                            cla::EtcdGet{"/d/", "/d0", cla::EtcdGet::Answer::count}};
  const auto expected = json::parse(R"({
    "compare":[
      {"key":"L2Qv","range_end":"L2Qw","target":"MOD","result":"LESS","mod_revision":"42"},
      {"key":"L20=","target":"VERSION","result":"EQUAL","version":"0"},
      {"key":"L20=","target":"CREATE","result":"GREATER","create_revision":"3"},
      {"key":"L20=","target":"VALUE","result":"NOT_EQUAL","value":"dg=="},
      {"key":"L20=","target":"LEASE","result":"EQUAL","lease":"9"}],
    "success":[{"request_put":{"key":"L2QveA==","value":"cg=="}},{"request_delete_range":{"key":"L2QveQ=="}}],
    "failure":[{"request_range":{"key":"L2Qv","range_end":"L2Qw"}},
               {"request_range":{"key":"L2Qv","range_end":"L2Qw","keys_only":true}},
               {"request_range":{"key":"L2Qv","range_end":"L2Qw","count_only":true}}]})");
  BOOST_TEST(json::parse(codec::encode_txn(compare, success, failure)) == expected);
  BOOST_TEST(json::parse(codec::encode_txn({}, {}, {})) ==
             json::parse(R"({"compare":[],"success":[],"failure":[]})"));
}

// A member's own answer, without the leader's read barrier: etcd serves a read-only transaction so only when
// every range in it asks to be serializable.
BOOST_AUTO_TEST_CASE(a_serializable_range_says_so_and_others_do_not) {
  cla::EtcdGet own{"/d/", "/d0", cla::EtcdGet::Answer::keys};
  own.serializable = true;
  const std::vector<cla::EtcdOp> success = {own, cla::EtcdGet{"/r/"}};
  BOOST_TEST(json::parse(codec::encode_txn({}, success, {})) == json::parse(R"({"compare":[],
    "success":[{"request_range":{"key":"L2Qv","range_end":"L2Qw","keys_only":true,"serializable":true}},
               {"request_range":{"key":"L3Iv"}}],
    "failure":[]})"));
}

BOOST_AUTO_TEST_CASE(lease_and_auth_requests) {
  BOOST_TEST(json::parse(codec::encode_lease_grant(15s)) == json::parse(R"({"TTL":"15"})"));
  BOOST_TEST(json::parse(codec::encode_lease_id(-3)) == json::parse(R"({"ID":"-3"})"));
  BOOST_TEST(json::parse(codec::encode_authenticate("agent", "p\"w")) ==
             json::parse(R"({"name":"agent","password":"p\"w"})"));
}

BOOST_AUTO_TEST_SUITE_END()
