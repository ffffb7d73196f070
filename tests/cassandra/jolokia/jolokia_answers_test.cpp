// Jolokia's answers that are not what a read wants: refusals (the policy's 403 as captured, a missing MBean,
// Cassandra's exception), answers that are not Jolokia's, attributes missing or of the wrong type, empty
// maps; each error names the MBean and the attribute or operation.
#include "cassandra/jolokia/jolokia_answers.hpp"

#include <boost/test/unit_test.hpp>

#include "../cassandra_test_data.hpp"
#include "cassandra/jolokia/jolokia_reads.hpp"

namespace {

using namespace cla;

// The healthy capture's ring view answer, with `value` in place of its attributes object.
std::string ring_view_answer(const std::string& attributes) {
  return R"({"value":)" + attributes + R"(,"status":200,"timestamp":1})";
}

const std::string kEmpty =
    R"({"LiveNodesWithPort":[],"UnreachableNodesWithPort":[],"JoiningNodesWithPort":[],)"
    R"("LeavingNodesWithPort":[],"MovingNodesWithPort":[],"LoadMapWithPort":{},)"
    R"("TokenToEndpointWithPortMap":{},"EndpointWithPortToHostId":{}})";

Result<RingView, JolokiaError> ring_view(const std::string& body) {
  const auto calls = ring_view_calls();
  auto values = parse_jolokia_answer(body, calls);
  if (!values) return values.error();
  return read_ring_view(values.value());
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(jolokia_answers_test)

BOOST_AUTO_TEST_CASE(the_policy_403_as_captured_is_a_refusal_naming_the_attribute) {
  const JolokiaCall forbidden{
      JolokiaCall::Type::read, std::string(mbean::kStorageService), {"ReleaseVersion"}, {}, {}};
  const auto values = parse_jolokia_answer(
      test::cassandra_data("jolokia/steps/jolokia_forbidden.answer.json"), std::span(&forbidden, 1));
  BOOST_TEST_REQUIRE(values.ok());
  const JolokiaValue& value = values->at(0);
  BOOST_TEST_REQUIRE(!value.ok());
  BOOST_TEST(value.error().kind == JolokiaError::Kind::refused);
  BOOST_TEST(value.error().status == 403);
  BOOST_TEST(value.error().error_type == "java.lang.Exception");
  BOOST_TEST(
      contains(value.error().message, "read org.apache.cassandra.db:type=StorageService [ReleaseVersion]"),
      value.error().message);
  BOOST_TEST(contains(value.error().message, "Reading attribute ReleaseVersion is forbidden"),
             value.error().message);
  JolokiaReader reader(value, forbidden);
  BOOST_TEST(reader.string("ReleaseVersion").empty());
  BOOST_TEST(*reader.error() == value.error());
}

BOOST_AUTO_TEST_CASE(a_bulk_answer_keeps_each_request_apart) {
  // The second request's MBean does not exist (a dynamic snitch switched off): only that value is refused.
  const auto calls = describe_calls();
  const std::string body =
      R"([{"value":{},"status":200},)"
      R"({"value":{"SnitchName":"x"},"status":200},)"
      R"({"error_type":"javax.management.InstanceNotFoundException","error":"javax.management.)"
      R"(InstanceNotFoundException : org.apache.cassandra.db:type=DynamicEndpointSnitch","status":404},)"
      R"({"value":{},"status":200},{"value":{},"status":200}])";
  const auto values = parse_jolokia_answer(body, calls);
  BOOST_TEST_REQUIRE(values.ok());
  BOOST_TEST(values->at(1).ok());
  BOOST_TEST_REQUIRE(!values->at(2).ok());
  BOOST_TEST(values->at(2).error().status == 404);
  BOOST_TEST(contains(values->at(2).error().message, "DynamicEndpointSnitch [SubsnitchClassName]"));
  // A snitch that is not the dynamic one: that refusal does not matter; the missing attributes do.
  const auto view = read_describe_view(values.value());
  BOOST_TEST_REQUIRE(!view.ok());
  BOOST_TEST(view.error().message ==
             "org.apache.cassandra.db:type=StorageService attribute ClusterName: missing from the answer");
}

BOOST_AUTO_TEST_CASE(answers_that_are_not_jolokias) {
  struct Case {
    std::string body, message;
  };
  const Case cases[] = {
      {"", "Jolokia's answer: invalid JSON"},
      {"<html>401</html>", "Jolokia's answer: invalid JSON"},
      {"[]", "Jolokia answered 0 request(s) of 1"},
      {"[" + ring_view_answer(kEmpty) + "," + ring_view_answer(kEmpty) + "]",
       "Jolokia answered 2 request(s) of 1"},
      {"42", "the answer is an integer"},
      {R"({"value":{}})", "the answer has no status"},
      {R"({"status":"200","value":{}})", "the answer has no status"},
      {R"({"status":200})", "the answer (status 200) has no value"},
  };
  for (const auto& c : cases) {
    const auto view = ring_view(c.body);
    BOOST_TEST_REQUIRE(!view.ok(), c.body);
    BOOST_TEST(view.error().kind == JolokiaError::Kind::bad_answer, c.body);
    BOOST_TEST(contains(view.error().message, c.message), c.body << " -> " << view.error().message);
  }
  // An object for a bulk request: Jolokia refusing the whole POST, or a stranger's answer.
  const auto calls = info_calls();
  const auto refused = parse_jolokia_answer(R"({"error_type":"x","error":"bad","status":400})", calls);
  BOOST_TEST_REQUIRE(!refused.ok());
  BOOST_TEST(refused.error().kind == JolokiaError::Kind::refused);
  BOOST_TEST(refused.error().message == "a bulk request of 2: Jolokia status 400 x: \"bad\"");
  const auto stranger = parse_jolokia_answer(R"({"value":1,"status":200})", calls);
  BOOST_TEST_REQUIRE(!stranger.ok());
  BOOST_TEST(stranger.error().message == "Jolokia answered a bulk request of 2 with one value");
}

BOOST_AUTO_TEST_CASE(attributes_missing_or_of_the_wrong_type) {
  struct Case {
    std::string from, to, message;  // replace `from` in the empty view's attributes by `to`
  };
  const std::string ss = "org.apache.cassandra.db:type=StorageService attribute ";
  const Case cases[] = {
      {R"("LoadMapWithPort":{},)", "", ss + "LoadMapWithPort: missing from the answer"},
      {R"("LiveNodesWithPort":[])", R"("LiveNodesWithPort":null)",
       ss + "LiveNodesWithPort: is null, not a list"},
      {R"("LiveNodesWithPort":[])", R"("LiveNodesWithPort":["a",1])",
       ss + "LiveNodesWithPort: holds an integer"},
      {R"("LoadMapWithPort":{})", R"("LoadMapWithPort":[])", ss + "LoadMapWithPort: is an array, not a map"},
      {R"("LoadMapWithPort":{})", R"("LoadMapWithPort":{"10.0.0.1:7000":3})",
       ss + "LoadMapWithPort: maps \"10.0.0.1:7000\" to an integer, not a string"},
      {R"("TokenToEndpointWithPortMap":{})", R"("TokenToEndpointWithPortMap":"{}")",
       ss + "TokenToEndpointWithPortMap: is a string, not a map"},
  };
  for (const auto& c : cases) {
    std::string attributes = kEmpty;
    attributes.replace(attributes.find(c.from), c.from.size(), c.to);
    const auto view = ring_view(ring_view_answer(attributes));
    BOOST_TEST_REQUIRE(!view.ok(), attributes);
    BOOST_TEST(view.error().kind == JolokiaError::Kind::bad_answer);
    BOOST_TEST(contains(view.error().message, c.message), view.error().message);
  }
  const auto not_an_object = ring_view(ring_view_answer("[]"));
  BOOST_TEST(
      contains(not_an_object.error().message, "the read's value is an array, not an object of attributes"));
  const auto info = InfoRead::finish(
      parse_jolokia_answer(
          R"([{"value":{"LocalHostId":null,"GossipRunning":"true","NativeTransportRunning":true},)"
          R"("status":200},{"value":{"Datacenter":"dc1","Rack":"r1"},"status":200}])",
          info_calls())
          .value(),
      {});
  BOOST_TEST_REQUIRE(!info.ok());
  BOOST_TEST(info.error().message == ss + "LocalHostId: is null, not a string", info.error().message);
}

BOOST_AUTO_TEST_CASE(empty_maps_make_an_empty_cluster_not_an_error) {
  // A node that knows no token yet (starting): no rows, nothing to ask the snitch.
  const auto values = parse_jolokia_answer(ring_view_answer(kEmpty), ring_view_calls());
  BOOST_TEST_REQUIRE(values.ok());
  const auto second = StatusRead::second(values.value());
  BOOST_TEST_REQUIRE(second.ok());
  BOOST_TEST(second->empty());
  const auto status = StatusRead::finish(values.value(), {});
  BOOST_TEST_REQUIRE(status.ok());
  BOOST_TEST(status->rows.empty());
  BOOST_TEST(RingRead::finish(values.value(), {})->rows.empty());
}

BOOST_AUTO_TEST_CASE(a_refused_snitch_or_replication_fails_the_read_naming_it) {
  const auto first = parse_jolokia_answer(
      test::cassandra_data("jolokia/healthy/jolokia_ring_view.answer.json"), ring_view_calls());
  BOOST_TEST_REQUIRE(first.ok());
  auto calls = StatusRead::second(first.value()).value();
  std::string body = "[";
  for (std::size_t i = 0; i < calls.size(); ++i)
    body += std::string(i ? "," : "") +
            (i == 3 ? R"({"error_type":"java.net.UnknownHostException","error":"nope","status":500})"
                    : R"({"value":"x","status":200})");
  const auto second = parse_jolokia_answer(body + "]", calls);
  BOOST_TEST_REQUIRE(second.ok());
  const auto status = StatusRead::finish(first.value(), second.value());
  BOOST_TEST_REQUIRE(!status.ok());
  BOOST_TEST(status.error().status == 500);
  BOOST_TEST(contains(status.error().message,
                      "exec org.apache.cassandra.db:type=EndpointSnitchInfo getRack(java.lang.String) "
                      "[\"127.0.0.32:7000\"]"),
             status.error().message);
}

BOOST_AUTO_TEST_CASE(an_error_quotes_jolokias_text_cut_and_printable) {
  const auto calls = running_calls();
  const auto values =
      parse_jolokia_answer(R"({"error_type":"java.lang.RuntimeException","error":"line1\nline2\u0001)" +
                               std::string(600, 'x') + R"(","status":500})",
                           calls);
  BOOST_TEST_REQUIRE(values.ok());
  const std::string& message = values->at(0).error().message;
  BOOST_TEST(message.size() < 700u);
  BOOST_TEST(message.find('\n') == std::string::npos);
  BOOST_TEST(contains(message, "Jolokia status 500 java.lang.RuntimeException: \"line1?line2?x"), message);
}

BOOST_AUTO_TEST_SUITE_END()
