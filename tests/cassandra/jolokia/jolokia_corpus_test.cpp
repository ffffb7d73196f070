// Both backends see the same cluster (issue 34): from each capture of tests/data/cassandra/jolokia/
// (nodetool's outputs and Jolokia's answers, taken from one node at one moment), the structures built from
// Jolokia's answers equal those the nodetool parsers build; and the agent's requests are the ones the capture
// sent.
#include <boost/json/parse.hpp>
#include <boost/test/unit_test.hpp>
#include <map>
#include <sstream>

#include "../cassandra_test_data.hpp"
#include "cassandra/jolokia/jolokia_reads.hpp"
#include "cassandra/nodetool_output/describecluster_parser.hpp"
#include "cassandra/nodetool_output/info_parser.hpp"
#include "cassandra/nodetool_output/max_hint_window_parser.hpp"
#include "cassandra/nodetool_output/pending_hints_parser.hpp"
#include "cassandra/nodetool_output/ring_parser.hpp"
#include "cassandra/nodetool_output/running_parser.hpp"
#include "cassandra/nodetool_output/status_parser.hpp"
#include "cassandra/nodetool_output/tpstats_parser.hpp"
#include "jolokia_normalize.hpp"

namespace {

using namespace cla;

const char* const kScenarios[] = {"healthy", "schema_change", "node_down"};

// A failed result's error for a message (the message is built whether the check fails or not).
template <class T>
std::string why(const Result<T, JolokiaError>& r) {
  std::ostringstream text;
  if (!r) text << r.error();
  return text.str();
}
template <class T>
std::string why(const Result<T>& r) {
  return r ? "" : r.error().message;
}

std::string data(const std::string& scenario, const std::string& file) {
  return test::cassandra_data("jolokia/" + scenario + "/" + file);
}

// The answers captured for one round, after checking that the agent asks what the capture asked.
std::vector<JolokiaValue> round(const std::string& scenario, const std::string& name,
                                const std::vector<JolokiaCall>& calls) {
  BOOST_TEST(boost::json::parse(request_body(calls)) ==
                 boost::json::parse(data(scenario, "jolokia_" + name + ".request.json")),
             scenario << ": the agent's " << name << " request differs from the captured one");
  auto values = parse_jolokia_answer(data(scenario, "jolokia_" + name + ".answer.json"), calls);
  BOOST_TEST_REQUIRE(values.ok(), scenario << " " << name << ": " << why(values));
  return std::move(values.value());
}

// A read run over the captured rounds, as JolokiaClient runs it over the wire.
template <class Read>
typename Read::Value read(const std::string& scenario, const std::string& first_name,
                          const std::string& second_name = "") {
  const auto first = round(scenario, first_name, Read::first());
  const auto second_calls = Read::second(first);
  BOOST_TEST_REQUIRE(second_calls.ok(), scenario << ": " << why(second_calls));
  std::vector<JolokiaValue> second;
  if (!second_calls->empty()) second = round(scenario, second_name, second_calls.value());
  auto value = Read::finish(first, second);
  BOOST_TEST_REQUIRE(value.ok(), scenario << ": " << why(value));
  return std::move(value.value());
}

template <class T>
T parsed(Result<T> result, const std::string& what) {
  BOOST_TEST_REQUIRE(result.ok(), what << ": " << why(result));
  return std::move(result.value());
}

}  // namespace

BOOST_AUTO_TEST_SUITE(jolokia_corpus_test)

// The replica stages (SPEC 3.10): the gauges Jolokia reads equal tpstats' Completed column, a gauge not
// created yet (404) and a stage tpstats does not list both reading 0.
BOOST_AUTO_TEST_CASE(stages_equal_nodetool_tpstats) {
  for (const std::string name : {"fresh", "serving", "after_disablegossip"}) {
    const auto nodetool = parsed(parse_tpstats(data("stages", "nodetool_tpstats_" + name + ".stdout")), name);
    const auto jolokia = read<StagesRead>("stages", "stages_" + name);
    BOOST_TEST(jolokia == nodetool, name << ": jolokia " << jolokia << "\nnodetool " << nodetool);
    BOOST_TEST(jolokia.counter_mutation == 0, name << ": CounterMutationStage never ran");
  }
  BOOST_TEST(read<StagesRead>("stages", "stages_serving").mutation >
             read<StagesRead>("stages", "stages_fresh").mutation);
  BOOST_TEST(read<StagesRead>("stages", "stages_after_disablegossip") ==
             read<StagesRead>("stages", "stages_serving"));
}

BOOST_AUTO_TEST_CASE(status_equals_nodetool_status) {
  for (const std::string scenario : kScenarios) {
    const auto nodetool = parsed(parse_nodetool_status(data(scenario, "nodetool_status.stdout")), scenario);
    const auto jolokia = read<StatusRead>(scenario, "ring_view", "places");
    BOOST_TEST(test::in_row_order(jolokia) == test::without_ownership(nodetool),
               scenario << ": jolokia " << test::in_row_order(jolokia) << "\nnodetool " << nodetool);
    BOOST_TEST(jolokia.rows.size() == 3u, scenario);
  }
}

BOOST_AUTO_TEST_CASE(ring_equals_nodetool_ring) {
  for (const std::string scenario : kScenarios) {
    const auto nodetool = parsed(parse_nodetool_ring(data(scenario, "nodetool_ring.stdout")), scenario);
    const auto jolokia = read<RingRead>(scenario, "ring_view", "places");
    BOOST_TEST(jolokia == test::without_ownership(nodetool),
               scenario << ": jolokia " << jolokia << "\nnodetool " << nodetool);
  }
}

BOOST_AUTO_TEST_CASE(describecluster_equals_nodetool_describecluster) {
  for (const std::string scenario : kScenarios) {
    const auto nodetool =
        parsed(parse_nodetool_describecluster(data(scenario, "nodetool_describecluster.stdout")), scenario);
    const auto jolokia = read<DescribeClusterRead>(scenario, "describe", "describe_second");
    BOOST_TEST(jolokia == test::without_ownership(nodetool),
               scenario << ": jolokia " << jolokia << "\nnodetool " << nodetool);
    // What the gate reads, spelled out: a failure above names these first.
    BOOST_TEST((jolokia.schema_versions == nodetool.schema_versions), scenario);
    BOOST_TEST((jolokia.counts == nodetool.counts), scenario);
    BOOST_TEST((jolokia.keyspaces == nodetool.keyspaces), scenario);
  }
}

BOOST_AUTO_TEST_CASE(the_captures_show_what_their_scenario_says) {
  const auto healthy = read<DescribeClusterRead>("healthy", "describe", "describe_second");
  BOOST_TEST(healthy.reachable_schema_versions().size() == 1u);
  BOOST_TEST(!healthy.schema_versions.count(std::string(kUnreachableSchemaVersion)));
  const auto changed = read<DescribeClusterRead>("schema_change", "describe", "describe_second");
  const auto find = [](const ClusterDescription& d, const std::string& name) {
    for (const auto& ks : *d.keyspaces)
      if (ks.name == name) return ks.replication.placement_key();
    return std::string("absent");
  };
  BOOST_TEST(find(healthy, "lifecycle") == "NetworkTopologyStrategy{dc1=3}");
  BOOST_TEST(find(changed, "lifecycle") == "NetworkTopologyStrategy{dc1=2}");
  BOOST_TEST(find(healthy, "jolokia_simple") == "absent");
  BOOST_TEST(find(changed, "jolokia_simple") == "SimpleStrategy{2}");
  const auto down = read<DescribeClusterRead>("node_down", "describe", "describe_second");
  BOOST_TEST(down.schema_versions.at(std::string(kUnreachableSchemaVersion)).size() == 1u);
  BOOST_TEST(down.counts->unreachable == 1);
  const auto status = read<StatusRead>("node_down", "ring_view", "places");
  BOOST_TEST(std::count_if(status.rows.begin(), status.rows.end(),
                           [](const StatusRow& r) { return r.status == 'D'; }) == 1);
}

BOOST_AUTO_TEST_CASE(info_equals_nodetool_info) {
  for (const std::string scenario : kScenarios) {
    const auto nodetool = parsed(parse_nodetool_info(data(scenario, "nodetool_info.stdout")), scenario);
    const auto jolokia = read<InfoRead>(scenario, "info");
    BOOST_TEST(jolokia == nodetool, scenario << ": jolokia " << jolokia << ", nodetool " << nodetool);
  }
}

BOOST_AUTO_TEST_CASE(running_equals_statusgossip_and_statusbinary) {
  for (const std::string scenario : kScenarios) {
    const auto gossip = parsed(parse_running(data(scenario, "nodetool_statusgossip.stdout")), scenario);
    const auto binary = parsed(parse_running(data(scenario, "nodetool_statusbinary.stdout")), scenario);
    const auto jolokia = read<RunningRead>(scenario, "running");
    BOOST_TEST(jolokia.gossip == gossip, scenario);
    BOOST_TEST(jolokia.native_transport == binary, scenario);
    BOOST_TEST(jolokia.operation_mode == "NORMAL", scenario);
  }
}

BOOST_AUTO_TEST_CASE(steps_on_a_node_and_its_refusals_once_drained) {
  struct Expected {
    JolokiaStep step;
    bool done;
    RunningState after;
  };
  const Expected steps[] = {
      {JolokiaStep::stop_native_transport, true, {true, false, "NORMAL"}},
      {JolokiaStep::stop_gossiping, true, {false, false, "NORMAL"}},
      {JolokiaStep::drain, true, {false, false, "DRAINED"}},
      {JolokiaStep::start_gossiping, false, {false, false, "DRAINED"}},
      {JolokiaStep::start_native_transport, false, {false, false, "DRAINED"}},
  };
  for (const auto& [step, done, after] : steps) {
    const std::string name(to_string(step));
    const JolokiaCall calls[] = {step_call(step)};
    const auto answer = read_step_answer(step, round("steps", "step_" + name, {calls[0]}));
    BOOST_TEST(answer.ok() == done, name);
    if (!done && !answer.ok()) {
      BOOST_TEST(answer.error().kind == JolokiaError::Kind::refused, name);
      BOOST_TEST(answer.error().status == 500, name);
      BOOST_TEST(answer.error().error_type == "java.lang.IllegalStateException", name);
      BOOST_TEST(answer.error().message.find("because the node was drained") != std::string::npos,
                 answer.error().message);
      BOOST_TEST(answer.error().message.find(calls[0].operation) != std::string::npos,
                 answer.error().message);
    }
    BOOST_TEST(read<RunningRead>("steps", "running_after_" + name) == after, name);
  }
}

// Hints (SPEC 3.10): the files Jolokia's PendingHints lists equal listpendinghints taken in the same round
// (none, while the target was down and its file still open, while it was dispatched, after); the HintsService
// counters add the hints not delivered yet, which covers the open file nodetool does not list; MaxHintWindow
// equals getmaxhintwindow.
BOOST_AUTO_TEST_CASE(pending_hints_and_the_hint_window_equal_nodetool) {
  const std::string target = "c0fe3b1a-ae60-406f-b317-cecb6b2e229b";  // 127.0.0.43
  const std::map<std::string, std::int64_t> undelivered{
      {"none", 0}, {"target_down", 500}, {"dispatching", 500}, {"after_dispatch", 0}};
  for (const auto& [name, hints] : undelivered) {
    const auto nodetool = parsed(
        parse_listpendinghints(test::cassandra_data("real-5.0/hints/listpendinghints_" + name + ".stdout")),
        name);
    auto jolokia = read<PendingHintsRead>("hints", "pending_hints_" + name);
    if (hints == 0) {
      BOOST_TEST(jolokia.empty(), name);
      BOOST_TEST(nodetool.empty(), name);
      continue;
    }
    BOOST_TEST_REQUIRE(jolokia.size() == 1u, name);
    BOOST_TEST(jolokia[0].host_id == target, name);
    BOOST_TEST(jolokia[0].undelivered == hints, name);
    jolokia[0].undelivered = 0;
    std::erase_if(jolokia, [](const PendingHints& h) { return h.total_files == 0; });
    BOOST_TEST((jolokia == nodetool), name << ": the listed files differ from nodetool's");
  }
  BOOST_TEST(read<PendingHintsRead>("hints", "pending_hints_target_down")[0].total_files == 0,
             "an open file is not listed");
  BOOST_TEST(read<PendingHintsRead>("hints", "pending_hints_dispatching")[0].total_files == 1);
  const auto window =
      parsed(parse_getmaxhintwindow(test::cassandra_data("real-5.0/hints/getmaxhintwindow.stdout")),
             "getmaxhintwindow");
  BOOST_TEST(read<MaxHintWindowRead>("hints", "max_hint_window").count() == window.count());
  BOOST_TEST(window.count() == 10800000);
}

BOOST_AUTO_TEST_SUITE_END()
