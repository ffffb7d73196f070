// Integration-test scaffolding for coordinated mode: etcd, emulator, simulated cluster, one agent per VM.
#include "coordinated_fleet.hpp"

#include <algorithm>
#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>
#include <csignal>
#include <fstream>

#include "agent/daemon/daemon.hpp"
#include "agent_scenario.hpp"
#include "cassandra_support.hpp"
#include "tests/support/proc_state.hpp"

namespace cla::test {
namespace {

namespace json = boost::json;
using namespace std::chrono_literals;

std::vector<EmulatorVm> vm_list(int vms, int per_rack) {
  std::vector<EmulatorVm> out;
  for (int i = 0; i < vms; ++i) out.push_back({"vm" + std::to_string(i), i / per_rack});
  return out;
}

}  // namespace

CoordinatedFleet::CoordinatedFleet(int vms, bool coordinated, int per_rack,
                                   std::vector<std::string> emulator_args)
    : vms_(vms), per_rack_(per_rack), coordinated_(coordinated), agents_(static_cast<std::size_t>(vms)) {
  if (coordinated_) etcd_ = std::make_unique<EtcdCluster>();
  emulator_ = std::make_unique<ImdsEmulatorProcess>(vm_list(vms, per_rack), std::move(emulator_args));
  const CommandOutcome init = run_blocking(
      run_command({nodetool_sim_path(), "--init-cluster", cluster_file(), "--dcs", "dc1", "--racks", "3",
                   "--nodes-per-rack", std::to_string(per_rack), "--base-address", "127.0.1.", "--call-log",
                   (dir_.path / "calls.jsonl").string()},
                  10s));
  if (!init.ok()) throw std::runtime_error("nodetool-sim --init-cluster: " + init.summary());
  for (int i = 0; i < vms; ++i) std::filesystem::create_directories(dir(i));
  ::setenv("CLA_BOOT_ID_FILE", (dir_.path / "boot_id").c_str(), 1);
  write_text((dir_.path / "boot_id").string(), "boot-1\n");
}

CoordinatedFleet::~CoordinatedFleet() {
  agents_.clear();  // the agents go before the emulator and etcd
}

void CoordinatedFleet::configure(const json::object& policy, const json::object& coordination,
                                 const json::object& topology) {
  policy_ = policy;
  coordination_ = coordination;
  topology_ = topology;
}

json::object CoordinatedFleet::policy() const {
  // quiet_s 0: approvals right after the drains, as the scenarios time them (agent_quiet_test plays the
  // wait); catch_up_max_s 0: the record released at restore_completed (coordination_catch_up_test plays the
  // catch-up).
  json::object policy{{"drain_lead_s", 10},    {"unsafe_drain_lead_s", 1},
                      {"unsafe_recheck_s", 1}, {"no_impact_freeze_max_s", 0},
                      {"quiet_s", 0},          {"catch_up_max_s", 0}};
  for (const auto& [k, v] : policy_) policy[k] = v;
  return policy;
}

json::object CoordinatedFleet::coordination() const {
  if (!coordinated_) return {};
  json::object c{{"etcd_endpoints", argv_json(etcd_->endpoints())}, {"cluster", "c1"}, {"lease_ttl_s", 5}};
  for (const auto& [k, v] : coordination_) c[k] = v;
  return c;
}

std::chrono::seconds CoordinatedFleet::drain_lead() const {
  return std::chrono::seconds(policy().at("drain_lead_s").to_number<std::int64_t>());
}

std::chrono::seconds CoordinatedFleet::unsafe_drain_lead() const {
  return std::chrono::seconds(policy().at("unsafe_drain_lead_s").to_number<std::int64_t>());
}

std::chrono::seconds CoordinatedFleet::lease_ttl() const {
  BOOST_REQUIRE_MESSAGE(coordinated_, "an uncoordinated fleet has no lease");
  return std::chrono::seconds(coordination().at("lease_ttl_s").to_number<std::int64_t>());
}

std::chrono::milliseconds CoordinatedFleet::idle_watch_interval() const {
  const auto p = policy();
  const auto* min = p.if_contains("catch_up_min_s");
  const std::chrono::seconds catch_up_min =
      min ? std::chrono::seconds(min->to_number<std::int64_t>()) : cla::CorePolicy{}.catch_up_min;
  return cla::Daemon::idle_watch_interval(lease_ttl(), catch_up_min);
}

std::chrono::milliseconds CoordinatedFleet::etcd_request_ceiling() const {
  if (!coordinated_) return 0ms;
  const std::chrono::milliseconds per_member = std::clamp<std::chrono::milliseconds>(lease_ttl() / 5, 1s, 5s);
  return per_member * static_cast<long>(etcd_->size());
}

std::string CoordinatedFleet::add_event(const json::object& spec) {
  const std::string id = emulator_->add_event(spec);
  for (const auto& value : emulator_->events()) {
    const auto& event = value.as_object();
    if (event.at("EventId").as_string() != id) continue;
    const WallTime not_before(std::chrono::milliseconds(event.at("not_before_ms").to_number<std::int64_t>()));
    const auto lasts = std::max<std::int64_t>(event.at("duration_s").to_number<std::int64_t>(), 0) +
                       event.at("complete_after_s").to_number<std::int64_t>();
    events_[id] = EventTimes{not_before, not_before + std::chrono::seconds(lasts)};
    return id;
  }
  BOOST_FAIL("the emulator does not hold the event it just added: " << id);
  return id;
}

const CoordinatedFleet::EventTimes& CoordinatedFleet::times(const std::string& id) const {
  const auto it = events_.find(id);
  BOOST_REQUIRE_MESSAGE(it != events_.end(), "no event " << id << " was added through the fleet");
  return it->second;
}

WallTime CoordinatedFleet::not_before(const std::string& id) const {
  return times(id).not_before;
}

WallTime CoordinatedFleet::gone_by(const std::string& id) const {
  return times(id).gone_by;
}

std::chrono::milliseconds CoordinatedFleet::until_drain_due(const std::string& id) const {
  return until(not_before(id) - drain_lead() + kPollInterval) + admission_ceiling();
}

std::chrono::milliseconds CoordinatedFleet::until_forced(const std::string& id) const {
  return until(not_before(id) - unsafe_drain_lead() + kPollInterval) + admission_ceiling();
}

std::chrono::milliseconds CoordinatedFleet::until_restored(const std::string& id) const {
  return until(gone_by(id) + kPollInterval);
}

std::chrono::milliseconds CoordinatedFleet::within_a_poll() const {
  return kPollInterval + kMargin;
}

std::chrono::milliseconds CoordinatedFleet::record_removed_within() const {
  return etcd_request_ceiling() + kReleaseRetry + etcd_request_ceiling() + kMargin;
}

void CoordinatedFleet::alter_sim_keyspace(const std::string& keyspace, const std::string& strategy_class,
                                          const json::object& replication) const {
  cla::test::alter_sim_keyspace(cluster_file(), keyspace, strategy_class, replication);
}

void CoordinatedFleet::add_sim_fault(int vm, const std::string& subcommand, const json::object& fault) {
  edit_sim_node(cluster_file(), node(vm), [&](json::object& n) {
    auto& faults = n["faults"];
    if (!faults.is_object()) faults = json::object{};
    faults.as_object()[subcommand] = fault;
  });
}

void CoordinatedFleet::set_sim_node(int vm, const std::string& field, const json::value& value) {
  edit_sim_node(cluster_file(), node(vm), [&](json::object& n) { n[field] = value; });
}

void CoordinatedFleet::start(int vm) {
  const std::string name = "vm" + std::to_string(vm);
  auto restart = sim_prefix(cluster_file(), node(vm));
  restart.push_back("restart");
  json::object config{{"imds",
                       {{"endpoint", emulator_->vm_endpoint(name)},
                        {"poll_interval_ms", kPollInterval.count()},
                        {"request_timeout_ms", 1000}}},
                      {"node", {{"resource_name", name}, {"fault_domain", vm / per_rack_}}},
                      {"cassandra",
                       {{"nodetool", argv_json(sim_prefix(cluster_file(), node(vm)))},
                        {"command_timeout_s", 10},
                        {"restart_command", argv_json(restart)}}},
                      {"policy", policy()}};
  if (coordinated_) config["coordination"] = coordination();
  if (!topology_.empty()) config["topology"] = topology_;
  const auto path = write_agent_config(dir(vm), std::move(config));
  const auto log_file = dir(vm) / "log" / "agent.jsonl";
  const std::size_t before = read_json_lines(log_file).size();
  agents_[static_cast<std::size_t>(vm)] =
      std::make_unique<AgentProcess>(std::vector<std::string>{"--config", path.string()}, dir(vm));
  const bool started = wait_until([&] { return read_json_lines(log_file).size() > before; }, kMargin);
  BOOST_REQUIRE_MESSAGE(started, name << " did not start: " << agents_[static_cast<std::size_t>(vm)]->err());
}

void CoordinatedFleet::start_all() {
  for (int i = 0; i < vms_; ++i) start(i);
}

void CoordinatedFleet::kill(int vm) {
  auto& agent = agents_.at(static_cast<std::size_t>(vm));
  agent->send_signal(SIGKILL);
  BOOST_REQUIRE(agent->wait_for_exit(kMargin).has_value());
}

void CoordinatedFleet::freeze(int vm) {
  auto& agent = agents_.at(static_cast<std::size_t>(vm));
  agent->send_signal(SIGSTOP);
  BOOST_REQUIRE_MESSAGE(
      threads_stopped_within_bound(agent->pid()),
      "vm" << vm << "'s agent: not every thread stopped within " << kStopBound.count() << " s of SIGSTOP");
}

void CoordinatedFleet::thaw(int vm) {
  agents_.at(static_cast<std::size_t>(vm))->send_signal(SIGCONT);
}

int CoordinatedFleet::stop(int vm) {
  auto& agent = agents_.at(static_cast<std::size_t>(vm));
  agent->send_signal(SIGTERM);
  const auto code = agent->wait_for_exit(kLeaseRevokeBudget + kMargin);
  BOOST_REQUIRE_MESSAGE(code.has_value(), "vm" << vm << " did not stop on SIGTERM");
  return *code;
}

std::vector<WallTime> CoordinatedFleet::sim_calls(int vm, const std::string& subcommand) const {
  std::vector<WallTime> out;
  for (const auto& line : read_json_lines(dir_.path / "calls.jsonl"))
    if (line.at("node").as_string() == node(vm) && line.at("subcommand").as_string() == subcommand)
      out.push_back(parse_utc_ms(std::string(line.at("t").as_string())));
  return out;
}

std::vector<json::object> CoordinatedFleet::log(int vm, const std::string& msg,
                                                const std::string& event_id) const {
  std::vector<json::object> out;
  for (auto& line : read_json_lines(dir(vm) / "log" / "agent.jsonl")) {
    if (line.at("msg").as_string() != msg) continue;
    const auto* id = line.if_contains("event_id");
    if (!event_id.empty() && !(id && id->is_string() && iequals(std::string(id->get_string()), event_id)))
      continue;
    out.push_back(std::move(line));
  }
  return out;
}

json::object CoordinatedFleet::wait_for(int vm, const std::string& msg, std::chrono::milliseconds limit,
                                        const std::string& event_id) const {
  std::optional<json::object> found;
  wait_until(
      [&] {
        auto lines = log(vm, msg, event_id);
        if (!lines.empty()) found = lines.front();
        return found.has_value();
      },
      limit);
  BOOST_REQUIRE_MESSAGE(found, "vm" << vm << " logged no " << msg << " within " << limit.count() << " ms");
  return *found;
}

std::string CoordinatedFleet::sim_out(int vm, const std::string& subcommand) const {
  return sim(cluster_file(), node(vm), subcommand).out;
}

json::object CoordinatedFleet::fleet_json(int vm) const {
  const AgentRun run =
      run_agent({"fleet", "--config", (dir(vm) / "config.json").string(), "--json"}, dir(vm));
  BOOST_REQUIRE_MESSAGE(run.exit_code == 0, "fleet failed: " << run.err);
  return json::parse(run.out).as_object();
}

bool CoordinatedFleet::node_restored(int vm) const {
  auto running = [&](const char* sub) {
    const CommandOutcome out = sim(cluster_file(), node(vm), sub);
    return out.ok() && out.out.find("not running") == std::string::npos &&
           out.out.find("running") != std::string::npos;
  };
  return running("statusgossip") && running("statusbinary");
}

}  // namespace cla::test
