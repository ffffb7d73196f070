// One real-suite agent: cassandra-lifecycle-agent for vmK (fault domain K-1) against the real node K through
// cassandra-cluster.sh nodetool, with restart_command = cassandra-cluster.sh start ADDRESS; and the
// imds-emulator that plays the three VMs with scripts/cluster/impact-hook.sh as its --impact-hook.
#pragma once

#include <boost/json/object.hpp>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "agent_process.hpp"
#include "imds_emulator_process.hpp"
#include "state/scheduled_event.hpp"

namespace cla::test::real {

// The quantities the real suite's waits are derived from (docs/design.md, "Tests that do not depend on timing
// luck"): the agents' poll interval, and one nodetool call: a JVM on Cassandra's classpath, 2-6 s on the
// loaded 2-core machine, up to 28 s seen at load 20.
inline constexpr std::chrono::milliseconds kPoll{500};
inline constexpr std::chrono::seconds kNodetoolCall{30};
// A Freeze's drain: the gate (status and info at once), disablebinary, disablegossip; a Reboot adds drain.
inline constexpr auto kFreezeDrain = 3 * kNodetoolCall;
// A restore without a restart: enablegossip, enablebinary, statusgossip, statusbinary.
inline constexpr auto kRestore = 4 * kNodetoolCall;

// The backend the real suite's agents use: CLA_REAL_BACKEND (nodetool, the default, or jolokia: the cluster's
// Jolokia agent of the node, as cassandra-cluster.sh status names it). CTest runs the suite once with each.
std::string real_backend();
// The start of the name of the Cassandra thread that runs the agent's steps with that backend: nodetool's JMX
// connection (an RMI thread) or Jolokia's HTTP server. cql_opened_by(k) starts with it when the agent's
// restore opened the node's CQL port.
std::string agent_step_thread();

// vm1..vmN in fault domains 0..2 (of each DC), impact hook mapped to the real nodes. restart_on_end false
// makes the hook leave a rebooted node down (IMPACT_HOOK_RESTART=0), so the agent's restart_command brings it
// back.
std::unique_ptr<ImdsEmulatorProcess> start_emulator(bool restart_on_end = true);
// Adds a platform Freeze of `vm` to `emulator` (NotBefore in notice_s, lasting duration_s, removed
// complete_after_s after it ends); its EventId.
std::string add_freeze(const ImdsEmulatorProcess& emulator, const std::string& vm, int notice_s,
                       int duration_s, int complete_after_s);
// The hook plays `vm`'s next start impact at `at`, not at once (IMPACT_HOOK_DELAY_DIR): an event that appears
// already Started, its impact a little later.
void delay_next_impact(const std::string& vm, WallTime at);
// The emulator's record of event `id` (GET /admin/events); fails the test when it is gone.
boost::json::object event_record(const ImdsEmulatorProcess& emulator, const std::string& id);

// A wait limit in whole seconds (RealAgent::wait_for's unit), rounded up.
inline std::chrono::seconds secs(std::chrono::milliseconds d) {
  return std::chrono::ceil<std::chrono::seconds>(d);
}

class RealAgent {
 public:
  // policy: merged into {"drain_lead_s": 30, "unsafe_drain_lead_s": 10} (given keys replace); every other key
  // keeps the agent's default (no_impact_freeze_max_s 0: every impact drained; hold_between_events_s 120).
  // topology: the config's topology section (e.g. {"consistency": "LOCAL_ONE"}), defaults when empty.
  // nodetool_wrapper: an argv put before the nodetool command (which the wrapper then runs), e.g. a script
  // that delays `status` as a loaded JVM does. coordination: the config's coordination section (SPEC 9),
  // none when empty.
  RealAgent(const ImdsEmulatorProcess& emulator, int k, boost::json::object policy,
            boost::json::object topology = {}, std::vector<std::string> nodetool_wrapper = {},
            boost::json::object coordination = {});
  ~RealAgent();

  const std::string& address() const { return address_; }
  std::filesystem::path state_file() const { return dir_.path / "state" / "state.json"; }
  std::string vm() const { return "vm" + std::to_string(k_); }
  // Starts the agent and waits until its start-up is over (it asks nodetool statusgossip and statusbinary:
  // seconds on a real node, while it already polls IMDS) and its core has started.
  void start();
  void kill();  // SIGKILL, reaped
  int stop();   // SIGTERM; the exit code

  std::vector<boost::json::object> log() const;
  std::vector<boost::json::object> log(const std::string& msg, const std::string& event_id = "") const;
  std::optional<boost::json::object> find(const std::string& msg, const std::string& event_id = "") const;
  // The first line with msg (and event_id) once it appears; fails the test (with the log's messages) after
  // `limit`.
  boost::json::object wait_for(const std::string& msg, std::chrono::seconds limit,
                               const std::string& event_id = "") const;
  std::vector<std::string> messages() const;
  // The mutating nodetool subcommands it ran (disable*, enable*, drain), in order; with `after`, only those
  // logged after that instant.
  std::vector<std::string> mutations(WallTime after = {}) const;

  // Prints (Boost test message) each nodetool subcommand's wall time and the drain and restore paths.
  void report_timings(const std::string& title) const;

 private:
  int k_;
  std::string address_;
  AgentTempDir dir_;
  std::filesystem::path config_;
  std::unique_ptr<AgentProcess> process_;
};

// b - a of two log lines' ts, in milliseconds.
long long ms_between_lines(const boost::json::object& a, const boost::json::object& b);

}  // namespace cla::test::real
