// Integration-test scaffolding for coordinated mode: a 3-member etcd (when coordinated), an imds-emulator
// serving vm0..vmN-1, a nodetool-sim cluster of 3 racks with `per_rack` nodes each (vm i's node is
// 127.0.1.(i+1), in rack i/per_rack+1, fault domain i/per_rack), and one agent per VM with its own dir,
// config and log.
//
//   cla::test::CoordinatedFleet fleet(2, true);
//   fleet.start_all();
//   const std::string id = fleet.emulator().add_event({{"type", "Reboot"}, {"resources", {"vm0"}}});
//   fleet.wait_for(0, "drain_completed", 10s, id);
#pragma once

#include <boost/json/object.hpp>
#include <chrono>
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
  CoordinatedFleet(int vms, bool coordinated, int per_rack = 1, std::vector<std::string> emulator_args = {});
  ~CoordinatedFleet();

  ImdsEmulatorProcess& emulator() { return *emulator_; }
  EtcdCluster& etcd() { return *etcd_; }
  std::string node(int vm) const { return "127.0.1." + std::to_string(vm + 1); }
  static constexpr const char* kDrains = "/cassandra-lifecycle-agent/c1/drains/";
  static constexpr const char* kMembers = "/cassandra-lifecycle-agent/c1/members/";

  // Policy and coordination keys merged over the base (drain_lead_s 10, unsafe_drain_lead_s 1,
  // no_impact_freeze_max_s 0, 250 ms polls; coordination on the fixture's etcd when coordinated).
  void configure(const boost::json::object& policy, const boost::json::object& coordination = {});
  // nodetool-sim faults for the node of `vm` (before the agents start: the file is rewritten unlocked).
  void add_sim_fault(int vm, const std::string& subcommand, const boost::json::object& fault);
  void start(int vm);
  void start_all();
  void kill(int vm);  // SIGKILL
  // nodetool-sim SUBCOMMAND on vm's node (e.g. "info"): its stdout.
  std::string sim_out(int vm, const std::string& subcommand) const;
  int stop(int vm);  // SIGTERM; the exit code

  std::vector<boost::json::object> log(int vm, const std::string& msg,
                                       const std::string& event_id = "") const;
  boost::json::object wait_for(int vm, const std::string& msg, std::chrono::milliseconds limit,
                               const std::string& event_id = "") const;
  bool node_restored(int vm) const;
  // `cassandra-lifecycle-agent fleet --config <vm's config> --json`: its parsed output (fails the test on a
  // non-zero exit).
  boost::json::object fleet_json(int vm) const;

 private:
  std::filesystem::path dir(int vm) const { return dir_.path / ("vm" + std::to_string(vm)); }
  std::string cluster_file() const { return (dir_.path / "cluster.json").string(); }

  int vms_;
  int per_rack_;
  bool coordinated_;
  AgentTempDir dir_;
  std::unique_ptr<EtcdCluster> etcd_;
  std::unique_ptr<ImdsEmulatorProcess> emulator_;
  std::vector<std::unique_ptr<AgentProcess>> agents_;
  boost::json::object policy_, coordination_;
};

}  // namespace cla::test
