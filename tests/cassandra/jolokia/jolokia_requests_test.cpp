// The Jolokia backend's requests: their JSON (one object or a bulk array, no echo, no stack traces, no
// ignoreErrors), the overloaded stopNativeTransport sent with its signature, and every MBean, attribute and
// operation they use allowed by the cluster script's policy (and nothing else there).
#include "cassandra/jolokia/jolokia_requests.hpp"

#include <boost/json/parse.hpp>
#include <boost/test/unit_test.hpp>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

namespace {

using namespace cla;
namespace json = boost::json;

// Every (MBean, "read NAME" or "exec NAME") the requests use, from every read and step.
std::set<std::pair<std::string, std::string>> used() {
  std::vector<JolokiaCall> calls = ring_view_calls();
  for (auto more : {places_calls(std::vector<std::string>{"10.0.0.1:7000"}), info_calls(), running_calls(),
                    stages_calls(), jvm_arguments_calls(), pending_hints_calls(), max_hint_window_calls(),
                    describe_calls(), replication_calls(std::vector<std::string>{"ks"})})
    calls.insert(calls.end(), more.begin(), more.end());
  for (auto step : {JolokiaStep::stop_native_transport, JolokiaStep::stop_gossiping, JolokiaStep::drain,
                    JolokiaStep::start_gossiping, JolokiaStep::start_native_transport})
    calls.push_back(step_call(step));
  std::set<std::pair<std::string, std::string>> out;
  for (const auto& call : calls) {
    for (const auto& attribute : call.attributes) out.emplace(call.mbean, "read " + attribute);
    if (call.type == JolokiaCall::Type::exec) out.emplace(call.mbean, "exec " + call.operation);
  }
  return out;
}

// What scripts/cluster/jolokia-access.xml allows, in the same form.
std::set<std::pair<std::string, std::string>> allowed() {
  std::ifstream in(std::string(CLA_SOURCE_DIR) + "/scripts/cluster/jolokia-access.xml");
  std::stringstream text;
  text << in.rdbuf();
  const std::string xml = text.str();
  std::set<std::pair<std::string, std::string>> out;
  const std::regex mbean_block(R"(<mbean>([\s\S]*?)</mbean>)");
  const std::regex name(R"(<name>([^<]*)</name>)");
  const std::regex entry(R"(<(attribute mode="read"|operation)>([^<]*)</(attribute|operation)>)");
  for (std::sregex_iterator m(xml.begin(), xml.end(), mbean_block), end; m != end; ++m) {
    const std::string block = (*m)[1];
    std::smatch n;
    BOOST_TEST_REQUIRE(std::regex_search(block, n, name));
    for (std::sregex_iterator e(block.begin(), block.end(), entry); e != end; ++e)
      out.emplace(n[1], ((*e)[1] == "operation" ? "exec " : "read ") + std::string((*e)[2]));
  }
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(jolokia_requests_test)

BOOST_AUTO_TEST_CASE(one_call_is_an_object_several_a_bulk_array) {
  const auto info = info_calls();
  const json::value bulk = json::parse(request_body(info));
  BOOST_TEST_REQUIRE(bulk.is_array());
  BOOST_TEST(bulk.as_array().size() == 2u);
  BOOST_TEST(bulk.as_array()[0] ==
             json::parse(R"({"type":"read","mbean":"org.apache.cassandra.db:type=StorageService",
      "attribute":["LocalHostId","GossipRunning","NativeTransportRunning"],
      "config":{"includeRequest":false,"includeStackTrace":false}})"));
  const JolokiaCall step[] = {step_call(JolokiaStep::stop_native_transport)};
  const auto expected = json::parse(R"j({"type":"exec","mbean":"org.apache.cassandra.db:type=StorageService",
      "operation":"stopNativeTransport(boolean)","arguments":[false],
      "config":{"includeRequest":false,"includeStackTrace":false}})j");
  BOOST_TEST(json::parse(request_body(step)) == expected);
  BOOST_TEST(request_body(step).find("ignoreErrors") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(second_rounds_ask_for_each_endpoint_and_keyspace_in_order) {
  const std::vector<std::string> endpoints{"10.0.0.2:7000", "[::1]:7000"};
  const auto places = places_calls(endpoints);
  BOOST_TEST_REQUIRE(places.size() == 4u);
  BOOST_TEST(describe(places[0]) ==
             "exec org.apache.cassandra.db:type=EndpointSnitchInfo "
             R"(getDatacenter(java.lang.String) ["10.0.0.2:7000"])");
  BOOST_TEST(
      describe(places[3]) ==
      R"(exec org.apache.cassandra.db:type=EndpointSnitchInfo getRack(java.lang.String) ["[::1]:7000"])");
  const auto replication = replication_calls(std::vector<std::string>{"b", "a"});
  BOOST_TEST(describe(replication[1]) ==
             "exec org.apache.cassandra.db:type=StorageService "
             R"(getKeyspaceReplicationInfo(java.lang.String) ["a"])");
  BOOST_TEST(describe(running_calls()[0]) ==
             "read org.apache.cassandra.db:type=StorageService [GossipRunning, NativeTransportRunning, "
             "OperationMode]");
}

BOOST_AUTO_TEST_CASE(steps_are_the_nodetool_commands_they_replace) {
  const std::pair<JolokiaStep, const char*> steps[] = {
      {JolokiaStep::stop_native_transport, "disablebinary"},
      {JolokiaStep::stop_gossiping, "disablegossip"},
      {JolokiaStep::drain, "drain"},
      {JolokiaStep::start_gossiping, "enablegossip"},
      {JolokiaStep::start_native_transport, "enablebinary"},
  };
  for (const auto& [step, name] : steps) {
    BOOST_TEST(to_string(step) == name);
    BOOST_TEST((step_call(step).type == JolokiaCall::Type::exec));
    BOOST_TEST(step_call(step).mbean == mbean::kStorageService);
  }
  BOOST_TEST(step_call(JolokiaStep::drain).operation == "drain");
  BOOST_TEST(step_call(JolokiaStep::start_native_transport).operation == "startNativeTransport");
}

BOOST_AUTO_TEST_CASE(the_policy_allows_exactly_what_the_requests_use) {
  const auto requests = used(), policy = allowed();
  for (const auto& [mbean, what] : requests)
    BOOST_TEST(policy.count({mbean, what}) == 1u, mbean << " " << what << " is used but not allowed");
  for (const auto& [mbean, what] : policy)
    BOOST_TEST(requests.count({mbean, what}) == 1u, mbean << " " << what << " is allowed but never used");
  BOOST_TEST(requests.size() == 36u);
}

BOOST_AUTO_TEST_SUITE_END()
