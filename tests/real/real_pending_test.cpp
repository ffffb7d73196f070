// A fourth node bootstrapping into the real 3-node cluster (SPEC 3.4 and 8, issue 31). 127.0.0.14 joins into
// rack1 at the midpoint of the first two nodes' tokens: in the range (T1, T14] it is a pending replica beside
// the three natural ones, so a write there needs LOCAL_QUORUM's 2 + 1 acknowledgements (Cassandra's
// blockForWrite) and a read 2. While it is UJ, vm2's Freeze is drained and approved: without vm2, 2 natural
// replicas and the joiner are left (2 >= 2 for reads, 3 >= 3 for writes). With the joiner killed (DJ), vm3's
// Freeze is refused, naming that range: 2 < 3 for writes. Without the pending-range rule that drain would go
// through, as the case shows by judging the same outputs with the joiner's rows taken out: every natural
// replica but vm3's is UN. Last, the joiner is removed and the cluster is the three nodes the next suite
// expects. Each case joins the node if no case before it did, and the last case cleans up whatever failed.
#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>
#include <filesystem>
#include <fstream>
#include <map>

#include "agent_scenario.hpp"
#include "cassandra/gate/replication_verdict.hpp"
#include "cassandra/nodetool_output/describecluster_parser.hpp"
#include "cassandra/nodetool_output/ring_parser.hpp"
#include "cassandra/nodetool_output/status_parser.hpp"
#include "real_agent.hpp"
#include "real_cluster.hpp"
#include "state/text.hpp"
#include "wait_margin.hpp"

namespace {

using namespace std::chrono_literals;
using namespace cla::test::real;
namespace json = boost::json;
using cla::test::kMargin;

const std::string kJoiner = node_address(nodes() + 1);  // 127.0.0.14

// One look at every view: a nodetool status of each of the three nodes. Gossip spreads a state in a few 1 s
// rounds, far less than one call: two looks bound every wait for a view to change, but a conviction.
constexpr auto kViews = 3 * kNodetoolCall;  // the one-DC cluster: 3 nodes
// Cassandra's failure detector convicts a silent node in 10-20 s (phi_convict_threshold 8, 1 s rounds).
constexpr auto kConviction = 30s;
// Agent start-up (statusgossip, statusbinary) and its first refresh (describecluster, ring, status, info).
constexpr auto kAgentReady = 6 * kNodetoolCall;
// A gate check before a drain: status and info, and a refresh's describecluster and ring when it is due.
constexpr auto kGateCheck = 4 * kNodetoolCall;
// The joiner's start up to its bootstrap pause: the script gives a node 240 s (CASSANDRA_NODE_UP_LIMIT_S).
constexpr auto kJoinLimit = 240s + kNodetoolCall;
// removenode's refusal, then assassinate, which sleeps RING_DELAY (30 s on the existing nodes) before it
// gossips the node LEFT; the host id read from each view, and two looks at every view until it is gone.
constexpr auto kRemoveLimit = 30s + 2 * kNodetoolCall + kViews + 2 * kViews + 2 * kViews;

// The approval follows the drain's state write at once: one POST to IMDS (imds.request_timeout_ms, 5 s by
// default) at the next step of the loop (a poll), and a process on a busy machine.
constexpr auto kApproval = std::chrono::ceil<std::chrono::seconds>(kPoll + 5s + kMargin);
// Case 1: vm2's Freeze, due 5 s after it appears.
constexpr int kNotice1 = 120, kLead1 = 115, kDuration1 = 10, kComplete1 = 5;
constexpr auto kCase1 = 2 * kViews + kAgentReady + std::chrono::seconds(kNotice1 - kLead1) + kGateCheck +
                        kFreezeDrain + kApproval + std::chrono::seconds(kDuration1 + kComplete1) + kRestore +
                        2 * kViews;
// Case 2 up to the kill: an agent ready, the joiner still UJ in every view.
constexpr auto kCase2UntilKill = kAgentReady + 2 * kViews;
// How long the joiner pauses between gossiping its tokens (UJ from then on, its pending ranges computed by
// every node) and its first stream: Cassandra's RING_DELAY, which join --hold-s sets on that node alone. It
// outlasts every wait of the cases before the kill ends it, so the node is UJ throughout whatever the data.
// Throttling the stream instead (nodetool setstreamthroughput on the three sources, 1 megabit/s at the least)
// needs tens of MB to stream to last minutes: these nodes hold ~100 KiB each, streamed in under a second, and
// a drained or frozen source would break a stream in flight (a failed bootstrap).
constexpr auto kHold = kJoinLimit + kCase1 + kCase2UntilKill;
// A bootstrapping node silent this long is dropped from gossip by every node (Cassandra's
// failed-bootstrap timeout, "FatClient ... has been silent for 300000ms"): case 2 is DJ only until then.
constexpr auto kFailedBootstrapTimeout = 300s;
// Case 2: vm3's Freeze, due at once; the forced drain (NotBefore - 5 s) long after the case ends.
constexpr int kNotice2 = 600, kLead2 = 595, kUnsafeLead2 = 5, kDuration2 = 10, kComplete2 = 5;
// Seen DJ by vm3's node, the event seen at a poll, the gate's status and info (at once; the agent refreshed
// less than topology.schema_refresh_s ago): refused. Asked again after policy.unsafe_recheck_s (5 s).
constexpr auto kDownInOneView = kConviction + 2 * kNodetoolCall;
constexpr auto kRefusal =
    std::chrono::ceil<std::chrono::seconds>(std::chrono::seconds(kNotice2 - kLead2) + kPoll + kNodetoolCall);
constexpr auto kRecheck = std::chrono::ceil<std::chrono::seconds>(5s + kPoll + kNodetoolCall);
static_assert(kDownInOneView + kRefusal + kRecheck < kFailedBootstrapTimeout,
              "case 2 must see its refusal while the killed joiner is still DJ");

std::string state_in_view(const cla::ClusterStatus& status, const std::string& address) {
  for (const auto& row : status.rows)
    if (row.address == address) return std::string{row.status, row.state};
  return "";
}

cla::ClusterStatus status_of(const std::string& viewer) {
  const auto out = nodetool(viewer, "status");
  require_ok(out);
  const auto parsed = cla::parse_nodetool_status(out.out);
  BOOST_TEST_REQUIRE(parsed.ok(), out.out);
  return parsed.value();
}

// Every node of 1..3 shows nodes 1..3 UN and the joiner as `joiner` ("UJ", "DJ"), and no other row.
bool views_show_joiner(const std::string& joiner) {
  for (int viewer = 1; viewer <= nodes(); ++viewer) {
    const auto out = nodetool(node_address(viewer), "status");
    const auto status = out.ok() ? cla::parse_nodetool_status(out.out)
                                 : cla::Result<cla::ClusterStatus>(cla::make_error(out.summary()));
    if (!status || status->rows.size() != static_cast<std::size_t>(nodes() + 1)) return false;
    for (int k = 1; k <= nodes(); ++k)
      if (state_in_view(*status, node_address(k)) != "UN") return false;
    if (state_in_view(*status, kJoiner) != joiner) return false;
  }
  return true;
}

cla::RingTable ring_of(const std::string& viewer) {
  const auto out = nodetool(viewer, "ring");
  require_ok(out);
  const auto parsed = cla::parse_nodetool_ring(out.out);
  BOOST_TEST_REQUIRE(parsed.ok(), out.out);
  return parsed.value();
}

// The joiner's rows of every node's ring: Joining, Up or Down as `status`; its token (one a node).
std::string require_joining_rows(const std::string& status) {
  std::string token;
  for (int viewer = 1; viewer <= nodes(); ++viewer) {
    std::size_t rows = 0;
    for (const auto& row : ring_of(node_address(viewer)).rows)
      if (row.address == kJoiner) {
        ++rows;
        BOOST_TEST(row.state == "Joining");
        BOOST_TEST(row.status == status);
        token = row.token;
      }
    BOOST_TEST(rows == 1u, node_address(viewer) << "'s ring: " << rows << " row(s) of " << kJoiner);
  }
  return token;
}

bool joiner_in_layout() {
  const auto out = cluster({"status"});
  require_ok(out);
  return out.out.find("\"" + kJoiner + "\"") != std::string::npos;
}

std::filesystem::path joiner_log() {
  return std::filesystem::path(CLA_REAL_CLUSTER_DIR) / ("node" + std::to_string(nodes() + 1)) / "logs" /
         "system.log";
}
bool joiner_streamed() {
  std::ifstream log(joiner_log());
  for (std::string line; std::getline(log, line);)
    if (line.find("JOINING: Starting to bootstrap") != std::string::npos) return true;
  return false;
}

// When the joiner UJ'd: the cases measure how long it stayed so.
std::optional<cla::WallTime> joined_at;

// 127.0.0.14 UJ in every view, with its Joining row in every ring (joined now unless a case before did).
void ensure_joining() {
  if (!joiner_in_layout()) {
    BOOST_TEST_REQUIRE(cla::test::wait_until(up_in_every_view, 2 * kViews), "the cluster is not 3 nodes UN");
    const auto out = cluster({"join", "--hold-s", std::to_string(kHold.count())}, kJoinLimit);
    BOOST_TEST_REQUIRE(out.ok(), out.summary() << "\n" << out.err);
    BOOST_TEST_MESSAGE(out.out);
    joined_at = cla::WallClock::now();
  }
  BOOST_TEST_REQUIRE(cla::test::wait_until([] { return views_show_joiner("UJ"); }, 2 * kViews),
                     kJoiner << " not UJ in every view");
  require_joining_rows("Up");
}

// The gate's inputs as the agent on `node` reads them (describecluster, ring, status), judged as it judges.
struct GateInputs {
  cla::ClusterDescription described;
  cla::RingTable ring;
  cla::ClusterStatus status;

  explicit GateInputs(const std::string& node) {
    const auto out = nodetool(node, "describecluster");
    require_ok(out);
    const auto parsed = cla::parse_nodetool_describecluster(out.out);
    BOOST_TEST_REQUIRE(parsed.ok(), out.out);
    described = parsed.value();
    ring = ring_of(node);
    status = status_of(node);
  }
  cla::ReplicationVerdict judge(const std::string& self) const {
    const auto snapshot = cla::make_replication_snapshot(described, ring);
    BOOST_TEST_REQUIRE(snapshot.ok(), (snapshot.ok() ? "" : snapshot.error().message));
    return cla::evaluate_replication(snapshot.value(), status, {self, "dc1"}, cla::Consistency::local_quorum);
  }
  // What the gate would see without the joiner's pending ranges: its rows and counts taken out.
  GateInputs without_joiner() const {
    GateInputs out = *this;
    std::erase_if(out.ring.rows, [](const cla::RingRow& row) { return row.address == kJoiner; });
    std::erase_if(out.status.rows, [](const cla::StatusRow& row) { return row.address == kJoiner; });
    for (auto& dc : out.described.datacenters)
      if (dc.name == "dc1") dc.nodes = nodes(), dc.down = 0;
    std::erase(out.described.schema_versions[std::string(cla::kUnreachableSchemaVersion)], kJoiner);
    if (out.described.schema_versions[std::string(cla::kUnreachableSchemaVersion)].empty())
      out.described.schema_versions.erase(std::string(cla::kUnreachableSchemaVersion));
    return out;
  }
};

std::string line_text(const json::object& line) {
  return json::serialize(line);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(real_pending_test)

BOOST_AUTO_TEST_CASE(a_drain_that_stays_safe_with_the_joiner_up_is_approved) {
  ensure_joining();
  const std::string vm2 = node_address(2);
  // The library's verdict on the same outputs: ranges split at the joiner's token (4 a keyspace, not 3).
  const GateInputs inputs(vm2);
  const auto expected = inputs.judge(vm2);
  BOOST_TEST_REQUIRE(expected.safe, expected);
  const auto natural_only = inputs.without_joiner().judge(vm2);
  BOOST_TEST(expected.ranges_checked > natural_only.ranges_checked, expected << " vs " << natural_only);

  auto emulator = start_emulator();
  RealAgent agent(*emulator, 2, {{"drain_lead_s", kLead1}});
  agent.start();
  const auto refreshed = agent.wait_for("schema_refreshed", kAgentReady);
  BOOST_TEST_MESSAGE("schema_refreshed: " << line_text(refreshed));
  const std::string id = add_freeze(*emulator, "vm2", kNotice1, kDuration1, kComplete1);
  agent.wait_for("drain_started", std::chrono::seconds(kNotice1 - kLead1) + kGateCheck, id);
  // The drain's own gate check: safe, the joiner's pending range counted (its ranges, 4 a keyspace).
  const auto safe = agent.wait_for("safe_to_drain", 0s);
  BOOST_TEST_MESSAGE("safe_to_drain: " << line_text(safe));
  BOOST_TEST(safe.at("consistency") == "LOCAL_QUORUM");
  BOOST_TEST(safe.at("keyspaces_checked").to_number<std::size_t>() == expected.keyspaces_checked);
  BOOST_TEST(safe.at("ranges_checked").to_number<std::size_t>() == expected.ranges_checked);
  agent.wait_for("drain_completed", kFreezeDrain, id);
  const auto approved = agent.wait_for("event_approved", kApproval, id);
  BOOST_TEST_MESSAGE("event_approved: " << line_text(approved));
  const auto approvals = emulator->approvals();
  BOOST_TEST_REQUIRE(approvals.size() == 1u);
  BOOST_TEST(approvals[0].at("vm") == "vm2");
  BOOST_TEST(agent.log("unsafe_to_drain").empty());
  BOOST_TEST(agent.log("drain_forced_unsafe").empty());
  BOOST_TEST(agent.log("gate_fallback").empty());

  agent.wait_for("restore_completed", std::chrono::seconds(kDuration1 + kComplete1) + kRestore);
  BOOST_TEST(agent.log("restore_failed").empty());
  // Joining the whole case: UJ in every view and ring, and it has not begun to stream.
  BOOST_TEST(cla::test::wait_until([] { return views_show_joiner("UJ"); }, 2 * kViews),
             "vm2 back and " << kJoiner << " still UJ in every view");
  require_joining_rows("Up");
  BOOST_TEST(!joiner_streamed(), joiner_log());
  agent.report_timings("drain beside a joining node");
  BOOST_TEST(agent.stop() == 0);
}

BOOST_AUTO_TEST_CASE(the_joiner_down_refuses_the_drain_naming_its_pending_range) {
  ensure_joining();
  const std::string vm3 = node_address(3);
  auto emulator = start_emulator();
  RealAgent agent(*emulator, 3, {{"drain_lead_s", kLead2}, {"unsafe_drain_lead_s", kUnsafeLead2}});
  agent.start();
  agent.wait_for("schema_refreshed", kAgentReady);  // while the joiner is UJ: its ring rows say Joining

  BOOST_TEST_REQUIRE(cla::test::wait_until([] { return views_show_joiner("UJ"); }, 2 * kViews));
  BOOST_TEST(!joiner_streamed(), joiner_log());
  if (joined_at)
    BOOST_TEST_MESSAGE(kJoiner << " UJ for "
                               << cla::test::ms_between(*joined_at, cla::WallClock::now()) / 1000
                               << " s (held " << kHold.count() << " s before it would stream)");
  const std::string token = require_joining_rows("Up");
  require_ok(cluster({"kill", kJoiner}));
  const auto killed = std::chrono::steady_clock::now();
  BOOST_TEST_REQUIRE(cla::test::wait_until([&] { return seen_as(vm3, kJoiner) == "DJ"; }, kDownInOneView),
                     kJoiner << " not DJ in " << vm3 << "'s view");

  const std::string id =
      add_freeze(*emulator, "vm3", kNotice2, kDuration2, kComplete2);  // forced at NotBefore - 5 s
  const auto unsafe = agent.wait_for("unsafe_to_drain", kRefusal, id);
  BOOST_TEST_MESSAGE("unsafe_to_drain: " << line_text(unsafe));
  BOOST_TEST(!unsafe.at("keyspace").as_string().empty());
  BOOST_TEST(!unsafe.at("start_token").as_string().empty());
  BOOST_TEST(unsafe.at("end_token").as_string() == token, "the joiner's pending range ends at its token");
  BOOST_TEST(unsafe.at("needed") == 3, "LOCAL_QUORUM's 2 + 1 pending replica");
  BOOST_TEST(unsafe.at("available") == 2);
  BOOST_TEST(unsafe.at("down") == (json::array{json::string(kJoiner)}));
  BOOST_TEST(unsafe.at("pending") == (json::array{json::string(kJoiner)}));
  BOOST_TEST(unsafe.at("for") == "writes", "every natural replica but vm3's is up: reads hold");

  // The same outputs judged by the library: this range; and without the joiner's rows (no pending range),
  // safe: the pending-range rule alone refuses this drain. (Shown once with an agent built without it, every
  // range's pending replicas cleared in place_write_ranges: vm3's agent logged safe_to_drain, drained and
  // approved, and this case failed at its wait for unsafe_to_drain.)
  const GateInputs inputs(vm3);
  const auto verdict = inputs.judge(vm3);
  BOOST_TEST_REQUIRE(verdict.short_range.has_value(), verdict);
  BOOST_TEST(unsafe.at("keyspace").as_string() == verdict.short_range->keyspace);
  BOOST_TEST(unsafe.at("start_token").as_string() == verdict.short_range->start_token);
  const auto natural_only = inputs.without_joiner().judge(vm3);
  BOOST_TEST(natural_only.safe, "without the pending range: " << natural_only);

  // Asked again (policy.unsafe_recheck_s): still refused, nothing drained, nothing approved.
  const auto refused_at = cla::test::log_time(unsafe);
  BOOST_TEST(cla::test::wait_until(
      [&] {
        for (const auto& line : agent.log("nodetool_ran"))
          if (line.at("subcommand") == "status" && cla::test::log_time(line) > refused_at) return true;
        return false;
      },
      kRecheck));
  BOOST_TEST(!agent.find("drain_started", id));
  BOOST_TEST(emulator->approvals().empty());
  BOOST_TEST(agent.log("drain_forced_unsafe").empty());
  // Every view DJ and every ring Down/Joining, while Cassandra still holds the silent joiner.
  BOOST_TEST(views_show_joiner("DJ"));
  require_joining_rows("Down");
  BOOST_TEST((std::chrono::steady_clock::now() - killed < kFailedBootstrapTimeout));
  const cla::WallTime not_before(
      std::chrono::milliseconds(event_record(*emulator, id).at("not_before_ms").to_number<std::int64_t>()));
  BOOST_TEST((cla::WallClock::now() < not_before - std::chrono::seconds(kUnsafeLead2)),
             "the case ends before the forced drain");
  emulator->cancel_event(id);
  BOOST_TEST(agent.stop() == 0);
}

BOOST_AUTO_TEST_CASE(the_joiner_removed_leaves_three_nodes_up_in_every_view) {
  if (joiner_in_layout()) {
    const auto out = cluster({"remove", kJoiner}, kRemoveLimit);
    BOOST_TEST_REQUIRE(out.ok(), out.summary() << "\n" << out.err);
    BOOST_TEST_MESSAGE(out.out);
  }
  for (int k = 1; k <= nodes(); ++k) bring_back(node_address(k));
  BOOST_TEST(up_in_every_view(), "three nodes, UN in every view");
  for (int viewer = 1; viewer <= nodes(); ++viewer) {
    const auto ring = ring_of(node_address(viewer));
    BOOST_TEST(ring.rows.size() == static_cast<std::size_t>(nodes()));
    for (const auto& row : ring.rows) BOOST_TEST((row.state == "Normal" && row.status == "Up"), row);
    // Gossip keeps a removed node as LEFT until its expiry (3 days), as after any removal; nothing else.
    const auto gossip = nodetool(node_address(viewer), "gossipinfo");
    require_ok(gossip);
    const auto at = gossip.out.find("/" + kJoiner + "\n");
    if (at != std::string::npos) {
      const auto block = gossip.out.substr(at, gossip.out.find("\n/", at + 1) - at);
      BOOST_TEST(block.find("STATUS_WITH_PORT:") != std::string::npos, block);
      BOOST_TEST(block.find(":LEFT,") != std::string::npos, block);
    }
  }
  const auto described =
      cla::parse_nodetool_describecluster(nodetool(node_address(1), "describecluster").out);
  BOOST_TEST_REQUIRE(described.ok());
  BOOST_TEST_REQUIRE(described->counts.has_value());
  BOOST_TEST(described->counts->joining == 0);
  BOOST_TEST(described->counts->unreachable == 0);
  BOOST_TEST(described->counts->live == nodes());
  BOOST_TEST(!joiner_in_layout());
}

BOOST_AUTO_TEST_SUITE_END()
