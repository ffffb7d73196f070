// Every capture of tests/data/cassandra/real-5.0 (real Cassandra 5.0.9,
// scripts/cluster/capture-cassandra-corpus.sh) through the parsers, the safety gate and the runner's failure
// classification. A capture file the table does not know fails the suite, so a re-capture cannot add outputs
// nobody checked.
#include <boost/test/unit_test.hpp>
#include <csignal>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "cassandra/gate/safety_gate.hpp"
#include "cassandra/nodetool/nodetool_runner.hpp"
#include "cassandra/nodetool_output/info_parser.hpp"
#include "cassandra/nodetool_output/max_hint_window_parser.hpp"
#include "cassandra/nodetool_output/pending_hints_parser.hpp"
#include "cassandra/nodetool_output/running_parser.hpp"
#include "cassandra/nodetool_output/status_parser.hpp"
#include "cassandra/nodetool_output/tpstats_parser.hpp"
#include "cassandra_test_data.hpp"
#include "nodetool_output/parser_checks.hpp"

namespace {

enum class Kind {
  Status,             // stdout parses as `status`; rows as expected; the gate's verdict for node 127.0.0.3
  Info,               // stdout parses as `info`
  Running,            // stdout parses as `statusbinary` / `statusgossip`
  Done,               // a mutating command that succeeded: exit 0, no output
  RefusedAfterDrain,  // is_refused_after_drain, not a connect failure
  ConnectFailure,     // is_connect_failure, not refused after drain
  TimedOut,           // killed by the command timeout: no output, neither classification
  Stages,             // stdout parses as `tpstats`: the replica stages' completed tasks
  PendingHints,       // stdout parses as `listpendinghints`
  MaxHintWindow,      // stdout parses as `getmaxhintwindow`
};

struct Capture {
  const char* name;
  Kind kind;
  int rc;
  // Status: "address=SS/rack ..." sorted by address, and whether node 127.0.0.3 may leave (RF 3).
  // Info: "gossip native dc rack" as "1 0 dc1 rack2". Running: "1" or "0". Stages: "read mutation counter".
  // PendingHints: "host_id files oldest_ms newest_ms" a row, ";" between rows. MaxHintWindow: milliseconds.
  const char* expected = "";
  bool node3_may_leave = false;
};

const char* const kAllUn = "127.0.0.1=UN/rack1 127.0.0.2=UN/rack2 127.0.0.3=UN/rack3";
const char* const kNode2Down = "127.0.0.1=UN/rack1 127.0.0.2=DN/rack2 127.0.0.3=UN/rack3";

const std::vector<Capture> kCaptures = {
    {"status_all_un", Kind::Status, 0, kAllUn, true},
    {"info_serving", Kind::Info, 0, "1 1 dc1 rack2"},
    {"statusbinary_running", Kind::Running, 0, "1"},
    {"statusgossip_running", Kind::Running, 0, "1"},
    {"tpstats_fresh_node", Kind::Stages, 0, "1 0 0"},  // no MutationStage listed before the first write
    {"tpstats_serving", Kind::Stages, 0, "301 300 0"},
    {"disablebinary", Kind::Done, 0},
    {"info_after_disablebinary", Kind::Info, 0, "1 0 dc1 rack2"},
    {"statusbinary_not_running", Kind::Running, 0, "0"},
    {"disablegossip", Kind::Done, 0},
    // Right after disablegossip returns, the peer still counts the node up: a gate must wait for DN.
    {"status_peer_right_after_disablegossip", Kind::Status, 0, kAllUn, true},
    {"status_peer_gossip_disabled", Kind::Status, 0, kNode2Down, false},
    // The node's own view is frozen when its gossip stops: everyone stays UN there.
    {"status_own_gossip_disabled", Kind::Status, 0, kAllUn, true},
    {"info_after_disablegossip", Kind::Info, 0, "0 0 dc1 rack2"},
    {"statusgossip_not_running", Kind::Running, 0, "0"},
    {"tpstats_after_disablegossip", Kind::Stages, 0, "301 300 0"},
    {"drain", Kind::Done, 0},
    {"info_after_drain", Kind::Info, 0, "0 0 dc1 rack2"},
    {"statusbinary_after_drain", Kind::Running, 0, "0"},
    {"statusgossip_after_drain", Kind::Running, 0, "0"},
    {"enablebinary_after_drain", Kind::RefusedAfterDrain, 1},
    {"enablegossip_after_drain", Kind::RefusedAfterDrain, 1},
    {"disablegossip_after_drain", Kind::Done, 0},
    {"drain_again", Kind::Done, 0},
    {"jmx_refused_info", Kind::ConnectFailure, 1},
    {"jmx_refused_status", Kind::ConnectFailure, 1},
    {"status_peer_node_killed", Kind::Status, 0, kNode2Down, false},
    {"frozen_node_info_timeout", Kind::TimedOut, 128 + SIGKILL},
    {"frozen_node_status_timeout", Kind::TimedOut, 128 + SIGKILL},
    {"status_all_un_after_restarts", Kind::Status, 0, kAllUn, true},
    // hints/ (README): node 127.0.0.41's hints for node 127.0.0.43, captured beside Jolokia's.
    {"hints/getmaxhintwindow", Kind::MaxHintWindow, 0, "10800000"},
    {"hints/listpendinghints_none", Kind::PendingHints, 0, ""},
    {"hints/jmx_refused_listpendinghints", Kind::ConnectFailure, 1},
    // Hints written for the node while it is down: the open file is not listed.
    {"hints/listpendinghints_target_down", Kind::PendingHints, 0, ""},
    {"hints/listpendinghints_dispatching", Kind::PendingHints, 0,
     "c0fe3b1a-ae60-406f-b317-cecb6b2e229b 1 1795986810900 1795986810900"},
    {"hints/listpendinghints_after_dispatch", Kind::PendingHints, 0, ""},
};

const std::string kDir = "real-5.0/";

std::string read(const Capture& c, const char* suffix) {
  return cla::test::cassandra_data(kDir + c.name + suffix);
}

// The outcome the nodetool runner reports for this capture: a SIGKILL after the timeout is timed_out.
cla::CommandOutcome outcome_of(const Capture& c) {
  cla::CommandOutcome outcome;
  outcome.argv = {"nodetool", c.name};
  outcome.out = read(c, ".stdout");
  outcome.err = read(c, ".stderr");
  const int rc = std::stoi(read(c, ".rc"));
  if (rc > 128) {
    outcome.term_signal = rc - 128;
    outcome.timed_out = true;
  } else {
    outcome.exit_code = rc;
  }
  return outcome;
}

std::string rows_of(const cla::ClusterStatus& status) {
  std::map<std::string, std::string> rows;
  for (const auto& r : status.rows) {
    BOOST_TEST(r.datacenter == "dc1");
    BOOST_TEST(!r.host_id.empty());
    rows[r.address] = std::string{r.status, r.state} + "/" + r.rack;
  }
  std::string text;
  for (const auto& [address, row] : rows) text += (text.empty() ? "" : " ") + address + "=" + row;
  return text;
}

cla::NodeInfo node3(const cla::ClusterStatus& status) {
  cla::NodeInfo self{.host_id = "", .datacenter = "dc1", .rack = "rack3"};
  for (const auto& r : status.rows)
    if (r.address == "127.0.0.3") self.host_id = r.host_id;
  self.gossip_active = self.native_transport_active = true;
  return self;
}

void check(const Capture& c) {
  BOOST_TEST_CONTEXT("capture " << c.name) {
    const auto outcome = outcome_of(c);
    BOOST_TEST(std::stoi(read(c, ".rc")) == c.rc);
    switch (c.kind) {
      case Kind::Status: {
        BOOST_REQUIRE(outcome.ok());
        const auto status = cla::test::parsed_value(cla::parse_nodetool_status, outcome.out);
        BOOST_TEST(rows_of(status) == c.expected);
        BOOST_TEST(!status.note.has_value());
        const auto verdict = cla::evaluate_safety(status, node3(status), 3);
        BOOST_TEST(verdict.safe == c.node3_may_leave, verdict.reason);
        break;
      }
      case Kind::Info: {
        BOOST_REQUIRE(outcome.ok());
        const auto info = cla::test::parsed_value(cla::parse_nodetool_info, outcome.out);
        BOOST_TEST(info.host_id.size() == 36u);
        BOOST_TEST(std::to_string(info.gossip_active) + " " + std::to_string(info.native_transport_active) +
                       " " + info.datacenter + " " + info.rack ==
                   c.expected);
        break;
      }
      case Kind::Running: {
        BOOST_REQUIRE(outcome.ok());
        const bool running = cla::test::parsed_value(cla::parse_running, outcome.out);
        BOOST_TEST((running ? "1" : "0") == std::string(c.expected));
        break;
      }
      case Kind::Stages: {
        BOOST_REQUIRE(outcome.ok());
        const auto stages = cla::test::parsed_value(cla::parse_tpstats, outcome.out);
        BOOST_TEST(std::to_string(stages.read) + " " + std::to_string(stages.mutation) + " " +
                       std::to_string(stages.counter_mutation) ==
                   c.expected);
        break;
      }
      case Kind::PendingHints: {
        BOOST_REQUIRE(outcome.ok());
        std::string rows;
        for (const auto& r : cla::test::parsed_value(cla::parse_listpendinghints, outcome.out))
          rows += (rows.empty() ? "" : ";") + r.host_id + " " + std::to_string(r.total_files) + " " +
                  std::to_string(r.oldest_ms) + " " + std::to_string(r.newest_ms);
        BOOST_TEST(rows == c.expected);
        break;
      }
      case Kind::MaxHintWindow:
        BOOST_REQUIRE(outcome.ok());
        BOOST_TEST(
            std::to_string(cla::test::parsed_value(cla::parse_getmaxhintwindow, outcome.out).count()) ==
            c.expected);
        break;
      case Kind::Done:
        BOOST_TEST(outcome.ok());
        BOOST_TEST(outcome.out.empty());
        BOOST_TEST(outcome.err.empty());
        break;
      case Kind::RefusedAfterDrain:
        BOOST_TEST(!outcome.ok());
        BOOST_TEST(cla::is_refused_after_drain(outcome));
        BOOST_TEST(!cla::is_connect_failure(outcome));
        BOOST_TEST(outcome.summary().find("because the node was drained") != std::string::npos,
                   outcome.summary());
        break;
      case Kind::ConnectFailure:
        BOOST_TEST(!outcome.ok());
        BOOST_TEST(cla::is_connect_failure(outcome));
        BOOST_TEST(!cla::is_refused_after_drain(outcome));
        break;
      case Kind::TimedOut:
        BOOST_TEST(!outcome.ok());
        BOOST_TEST(outcome.out.empty());
        BOOST_TEST(outcome.err.empty());
        BOOST_TEST(!cla::is_connect_failure(outcome));
        BOOST_TEST(!cla::is_refused_after_drain(outcome));
        break;
    }
  }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(real_corpus_test)

BOOST_AUTO_TEST_CASE(every_capture_meets_the_parsers_and_the_classification) {
  for (const auto& capture : kCaptures) check(capture);
}

BOOST_AUTO_TEST_CASE(every_file_of_the_corpus_is_a_capture_of_the_table) {
  std::set<std::string> known;
  for (const auto& c : kCaptures)
    for (const char* suffix : {".stdout", ".stderr", ".rc"}) known.insert(std::string(c.name) + suffix);
  std::string dir =
      CLA_TEST_DATA_DIR;  // appended piecewise: GCC 12 misreports `a + "..." + b` (-Warray-bounds)
  dir.append("/cassandra/").append(kDir);
  std::set<std::string> present;
  for (const std::string sub : {"", "hints/"}) {  // placement/: its own suite
    for (const auto& entry : std::filesystem::directory_iterator(dir + sub)) {
      const auto file = entry.path().filename().string();
      if (file != "README.md" && !entry.is_directory()) present.insert(sub + file);
    }
  }
  for (const auto& file : present) BOOST_TEST(known.count(file) == 1u, "capture not in the table: " << file);
  for (const auto& file : known) BOOST_TEST(present.count(file) == 1u, "capture file missing: " << file);
}

BOOST_AUTO_TEST_SUITE_END()
