// Integration-test scaffolding for end-to-end agent scenarios: a temp dir holding a simulated cluster (dc1,
// rack1..rack3, one node each at 127.0.1.1..3), an imds-emulator serving vm0 (this agent) and vm1, an agent
// config built from a few overrides, the real agent process, and readers for the agent's log, the
// simulator's call log and the notification hook's output.
//
//   cla::test::AgentScenario s;
//   s.write_config({{"policy", {{"drain_lead_s", 3}}}});  // merged one level deep into the base config
//   s.start_agent();
//   const std::string id = s.emulator().add_event({{"type", "Freeze"}, {"resources", {"vm0"}}});
//   auto drained = s.wait_for("drain_completed", 10s, id);
//   BOOST_TEST(s.agent_mutations() == (std::vector<std::string>{"disablebinary", "disablegossip"}));
#pragma once

#include <boost/json/object.hpp>
#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "agent_process.hpp"
#include "imds/process/process_runner.hpp"
#include "imds_emulator_process.hpp"
#include "state/scheduled_event.hpp"
#include "wait_margin.hpp"

namespace cla::test {

inline constexpr const char* kAgentNode = "127.0.1.1";  // vm0's Cassandra node, rack1

// One line of nodetool-sim's call log.
struct SimCall {
  WallTime t;
  std::string node;
  std::string subcommand;
  int exit_code = 0;
};

// One run of the notification hook: its CLA_* environment variables.
using HookRun = std::map<std::string, std::string>;

class AgentScenario {
 public:
  // emulator_args: extra imds-emulator options, e.g. {"--shared-approval", "all"}.
  explicit AgentScenario(std::vector<std::string> emulator_args = {});
  ~AgentScenario();
  AgentScenario(const AgentScenario&) = delete;
  AgentScenario& operator=(const AgentScenario&) = delete;

  ImdsEmulatorProcess& emulator() { return *emulator_; }
  const std::filesystem::path& dir() const { return dir_.path; }
  std::filesystem::path log_file() const { return dir() / "log" / "agent.jsonl"; }
  std::filesystem::path state_file() const { return dir() / "state" / "state.json"; }
  std::filesystem::path hook_file() const { return dir() / "hooks.txt"; }
  std::string cluster_file() const { return (dir() / "cluster.json").string(); }
  std::string call_log() const { return (dir() / "calls.jsonl").string(); }
  // The agent reads its boot id from dir()/boot_id (CLA_BOOT_ID_FILE, set for the whole test process);
  // changing it between two agent runs plays a VM reboot.
  void set_boot_id(const std::string& id) const;

  // The base config: IMDS at the emulator's vm0 (250 ms polls), nodetool and restart_command through
  // nodetool-sim on 127.0.1.1, drain_lead_s 3, unsafe_drain_lead_s 1, unsafe_recheck_s 1, quiet_s 0, a hook
  // that records its CLA_* environment in hook_file(), HTTP off, state and log in dir(). Objects in
  // `overrides` are merged into the base's one level deep; other values replace.
  std::filesystem::path write_config(const boost::json::object& overrides = {});
  // The written config's imds.poll_interval_ms, imds.request_timeout_ms, policy.drain_lead_s and
  // policy.unsafe_drain_lead_s.
  std::chrono::milliseconds poll_interval() const;
  std::chrono::milliseconds request_timeout() const;
  std::chrono::seconds drain_lead() const;
  std::chrono::seconds unsafe_drain_lead() const;
  // When the emulator starts event `id` unless approved first (its NotBefore, to the millisecond).
  WallTime not_before(const std::string& id) const;
  // Wait limits derived from event `id`'s NotBefore as the emulator holds it: until it is Started by
  // NotBefore (seen at the next poll), and until its drain is due (NotBefore - drain_lead_s, at a poll);
  // each plus kMargin.
  std::chrono::milliseconds until_started_by_not_before(const std::string& id) const;
  std::chrono::milliseconds until_drain_due(const std::string& id) const;
  // When the emulator removes event `id`: as it holds it once Started (its start + duration + completion
  // delay), the latest otherwise (Started at NotBefore); now when it holds it no more. until_removed: until
  // then, seen at the next poll, plus kMargin.
  WallTime gone_by(const std::string& id) const;
  std::chrono::milliseconds until_removed(const std::string& id) const;
  // The limit for what follows a change at the next poll (an event seen or removed, a restore, the next
  // step of a drain): one poll interval plus kMargin.
  std::chrono::milliseconds within_a_poll() const { return poll_interval() + kMargin; }
  // Waits (condition, not time) until the agent has polled IMDS `polls` more times from now; fails the test
  // when it has not after polls * poll interval + kMargin.
  void wait_for_polls(std::size_t polls) const;
  // The agent's Scheduled Events polls the emulator received after `after` and no later than `until`
  // (request times are whole milliseconds: one in the same millisecond as `after` is not counted). A reaction
  // "at the next poll" is asserted with it by its cause rather than by a stopwatch.
  std::size_t polls_between(WallTime after, WallTime until) const;
  // Starts the agent on the last config written (the base one if none) and waits for agent_started.
  AgentProcess& start_agent(std::vector<std::string> extra_args = {});
  AgentProcess& agent() { return *agent_; }
  void kill_agent();  // SIGKILL, then waits for it
  int stop_agent();   // SIGTERM; the exit code

  // The agent's log (a partial last line is skipped), all of it or the lines with `msg` (and `event_id`).
  std::vector<boost::json::object> log() const;
  std::vector<boost::json::object> log(const std::string& msg, const std::string& event_id = "") const;
  std::vector<std::string> log_msgs(const std::string& event_id = "") const;
  // The first line with `msg` (and `event_id`) once it appears; nullopt after `limit`.
  std::optional<boost::json::object> find_log(const std::string& msg, std::chrono::milliseconds limit,
                                              const std::string& event_id = "") const;
  // Like find_log, but a missing line fails the test (with the agent's messages so far).
  boost::json::object wait_for(const std::string& msg, std::chrono::milliseconds limit,
                               const std::string& event_id = "") const;
  // A step scenarios share: event `id` approved by the time its drain is due (the agent approves only what it
  // drained), then Started by the approval, seen at the next poll.
  void approved_and_started(const std::string& id) const;

  // nodetool-sim: its call log, the mutating calls on the agent's node in order, running a subcommand,
  // whether statusgossip/statusbinary say "running", and faults written into the cluster file (call it
  // before the agent starts: the file is rewritten without the simulator's lock).
  std::vector<SimCall> calls() const;
  std::vector<std::string> agent_mutations() const;
  CommandOutcome sim(const std::string& subcommand, const std::string& node = kAgentNode) const;
  bool running(const std::string& status_subcommand, const std::string& node = kAgentNode) const;
  bool node_restored() const { return running("statusgossip") && running("statusbinary"); }
  void add_sim_fault(const std::string& node, const std::string& subcommand,
                     const boost::json::object& fault);
  // Sets one field of a node of the cluster file (as add_sim_fault: before the agent starts), e.g.
  // ("announce_echo_s", 4).
  void set_sim_node(const std::string& node, const std::string& field, const boost::json::value& value);
  // Gives a keyspace of the cluster file another replication (before the agent starts, as add_sim_fault),
  // e.g. ("system_traces", "NetworkTopologyStrategy", {{"dc1", 3}}): an ALTER KEYSPACE.
  void alter_sim_keyspace(const std::string& keyspace, const std::string& strategy_class,
                          const boost::json::object& replication);

  std::vector<HookRun> hook_runs() const;

 private:
  AgentTempDir dir_;
  std::unique_ptr<ImdsEmulatorProcess> emulator_;
  std::unique_ptr<AgentProcess> agent_;
  std::filesystem::path config_;
  boost::json::object config_json_;
};

// Applies `edit` to the node `address` of a nodetool-sim cluster file (fails the test when it has none).
void edit_sim_node(const std::string& cluster_file, const std::string& address,
                   const std::function<void(boost::json::object&)>& edit);

// Gives a keyspace of a nodetool-sim cluster file another replication (an ALTER KEYSPACE), e.g.
// ("system_traces", "NetworkTopologyStrategy", {{"dc1", 3}}); fails the test when the file has no such
// keyspace.
void alter_sim_keyspace(const std::string& cluster_file, const std::string& keyspace,
                        const std::string& strategy_class, const boost::json::object& replication);

// The time left until `t` (zero when past) plus kMargin.
std::chrono::milliseconds until(WallTime t);

// Polls `done` every 20 ms until it is true (true) or `limit` passes (false).
bool wait_until(const std::function<bool()>& done, std::chrono::milliseconds limit);

// "2026-11-22T03:04:05.123Z" (the agent's ts, nodetool-sim's t) as a time point.
WallTime parse_utc_ms(const std::string& text);
WallTime log_time(const boost::json::object& line);
// The NotBefore of an event's log line (RFC 1123); fails the test when it has none.
WallTime not_before_of(const boost::json::object& line);
// The time of an emulator record ({"t_ms": ...}).
WallTime emulator_time(const boost::json::value& record);
// b - a in milliseconds.
long long ms_between(WallTime a, WallTime b);

}  // namespace cla::test
