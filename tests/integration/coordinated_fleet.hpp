// Integration-test scaffolding for coordinated mode: a 3-member etcd (when coordinated), an imds-emulator
// serving vm0..vmN-1, a nodetool-sim cluster of 3 racks with `per_rack` nodes each (vm i's node is
// 127.0.1.(i+1), in rack i/per_rack+1, fault domain i/per_rack), and one agent per VM with its own dir,
// config and log.
//
//   cla::test::CoordinatedFleet fleet(2, true);
//   fleet.start_all();
//   const std::string id = fleet.add_event({{"type", "Reboot"}, {"resources", {"vm0"}}});
//   fleet.wait_for(0, "drain_started", fleet.until_drain_due(id), id);
//   fleet.wait_for(0, "restore_completed", fleet.until_restored(id));
//
// Wait limits come from the quantities that set them, as start() configures them (poll interval, lead times,
// lease TTL) and as the emulator holds each event (NotBefore, duration, completion delay), each plus kMargin.
#pragma once

#include <boost/json/object.hpp>
#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "agent_process.hpp"
#include "etcd_cluster.hpp"
#include "imds_emulator_process.hpp"
#include "state/scheduled_event.hpp"

namespace cla::test {

class CoordinatedFleet {
 public:
  static constexpr std::chrono::milliseconds kPollInterval{250};  // every agent's imds.poll_interval_ms
  // Coordinator::release's first retry delay, when removing a drain record found etcd unavailable.
  static constexpr std::chrono::seconds kReleaseRetry{1};
  // What agent_main gives the coordinator on SIGTERM to revoke its lease.
  static constexpr std::chrono::seconds kLeaseRevokeBudget{3};

  CoordinatedFleet(int vms, bool coordinated, int per_rack = 1, std::vector<std::string> emulator_args = {});
  ~CoordinatedFleet();

  ImdsEmulatorProcess& emulator() { return *emulator_; }
  EtcdCluster& etcd() { return *etcd_; }
  std::string node(int vm) const { return "127.0.1." + std::to_string(vm + 1); }
  // The fleet's DC's records (SPEC 9: keyed by DC and VM).
  static constexpr const char* kDrains = "/cassandra-lifecycle-agent/c1/drains/dc1/";
  static constexpr const char* kMembers = "/cassandra-lifecycle-agent/c1/members/dc1/";

  // Policy and coordination keys merged over the base (drain_lead_s 10, unsafe_drain_lead_s 1,
  // no_impact_freeze_max_s 0, 250 ms polls; coordination on the fixture's etcd when coordinated, lease_ttl_s
  // 5); topology keys over the defaults (e.g. {"consistency": "LOCAL_ONE"}).
  void configure(const boost::json::object& policy, const boost::json::object& coordination = {},
                 const boost::json::object& topology = {});
  // The configured policy.drain_lead_s, policy.unsafe_drain_lead_s and coordination.lease_ttl_s.
  std::chrono::seconds drain_lead() const;
  std::chrono::seconds unsafe_drain_lead() const;
  std::chrono::seconds lease_ttl() const;
  // How often an agent without a watcher role steps (Daemon::idle_watch_interval of this fleet's config).
  std::chrono::milliseconds idle_watch_interval() const;
  // One etcd request as an agent makes it: tried on every member in turn, each within the request timeout
  // the agent derives from the lease TTL (lease_ttl_s / 5, within 1..5 s). Zero when not coordinated.
  std::chrono::milliseconds etcd_request_ceiling() const;
  // A drain admission: its etcd read and its transaction.
  std::chrono::milliseconds admission_ceiling() const { return 2 * etcd_request_ceiling(); }

  // Adds the event to the emulator and keeps its NotBefore (to the millisecond), duration and completion
  // delay as the emulator holds them, for the limits below (which work after the event is gone).
  std::string add_event(const boost::json::object& spec);
  WallTime not_before(const std::string& id) const;
  // The latest the emulator removes the event: Started at NotBefore unless approved earlier, removed
  // max(duration_s, 0) + complete_after_s later.
  WallTime gone_by(const std::string& id) const;
  // Limits, each plus kMargin: the drain due (NotBefore - drain_lead_s, at a poll) and admitted (the
  // admission's etcd read and transaction); the forced-drain instant (NotBefore - unsafe_drain_lead_s, at a
  // poll, also recorded in etcd); the restore once the event is gone by gone_by(), at the next poll.
  std::chrono::milliseconds until_drain_due(const std::string& id) const;
  std::chrono::milliseconds until_forced(const std::string& id) const;
  std::chrono::milliseconds until_restored(const std::string& id) const;
  // What follows at the next poll (the next step of a drain, an approval); plus kMargin.
  std::chrono::milliseconds within_a_poll() const;
  // An agent's drain record removal after restore_completed: one etcd request and, if that failed, the
  // retry kReleaseRetry later; plus kMargin.
  std::chrono::milliseconds record_removed_within() const;

  // nodetool-sim faults for the node of `vm` (before the agents start: the file is rewritten unlocked).
  void add_sim_fault(int vm, const std::string& subcommand, const boost::json::object& fault);
  // One field of vm's node in the cluster file (as add_sim_fault: before the agents start).
  void set_sim_node(int vm, const std::string& field, const boost::json::value& value);
  // An ALTER KEYSPACE in the cluster file (before the agents start), as AgentScenario's.
  void alter_sim_keyspace(const std::string& keyspace, const std::string& strategy_class,
                          const boost::json::object& replication) const;
  void start(int vm);
  void start_all();
  void kill(int vm);  // SIGKILL
  // SIGSTOP / SIGCONT: the agent of a VM whose Freeze has begun (the whole VM pauses, the agent with it).
  void freeze(int vm);
  void thaw(int vm);
  // nodetool-sim SUBCOMMAND on vm's node (e.g. "info"): its stdout.
  std::string sim_out(int vm, const std::string& subcommand) const;
  // When vm's node was asked SUBCOMMAND by anyone (nodetool-sim's call log).
  std::vector<WallTime> sim_calls(int vm, const std::string& subcommand) const;
  int stop(int vm);  // SIGTERM; the exit code

  std::vector<boost::json::object> log(int vm, const std::string& msg,
                                       const std::string& event_id = "") const;
  boost::json::object wait_for(int vm, const std::string& msg, std::chrono::milliseconds limit,
                               const std::string& event_id = "") const;
  bool node_restored(int vm) const;
  // `cassandra-lifecycle-agent fleet --config <vm's config> --json`: its parsed output (fails the test on a
  // non-zero exit).
  boost::json::object fleet_json(int vm) const;
  // vm's work dir: its config.json, state and log.
  std::filesystem::path dir(int vm) const { return dir_.path / ("vm" + std::to_string(vm)); }

 private:
  std::string cluster_file() const { return (dir_.path / "cluster.json").string(); }
  boost::json::object policy() const;        // the base policy with configure()'s keys merged
  boost::json::object coordination() const;  // likewise (empty when not coordinated)

  struct EventTimes {
    WallTime not_before;
    WallTime gone_by;
  };
  const EventTimes& times(const std::string& id) const;

  int vms_;
  int per_rack_;
  bool coordinated_;
  AgentTempDir dir_;
  std::unique_ptr<EtcdCluster> etcd_;
  std::unique_ptr<ImdsEmulatorProcess> emulator_;
  std::vector<std::unique_ptr<AgentProcess>> agents_;
  boost::json::object policy_, coordination_, topology_;
  std::map<std::string, EventTimes> events_;
};

}  // namespace cla::test
