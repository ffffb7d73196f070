// Integration-test scaffolding for end-to-end agent scenarios: cluster, emulator, config, agent, log readers.
#include "agent_scenario.hpp"

#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string_view>
#include <thread>

#include "cassandra_support.hpp"
#include "imds/not_before.hpp"

namespace cla::test {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;
using namespace std::chrono_literals;

// Each run of the hook appends one line: its CLA_* variables, sorted, tab-separated.
const char* const kHookScript =
    R"(line=$(env | grep '^CLA_' | sort | tr '\n' '\t'); printf '%s\n' "$line" >> "$1")";

bool matches(const json::object& line, const std::string& msg, const std::string& event_id) {
  if (line.at("msg").as_string() != msg) return false;
  if (event_id.empty()) return true;
  const auto* id = line.if_contains("event_id");
  return id && id->is_string() && iequals(std::string(id->get_string()), event_id);
}

}  // namespace

bool wait_until(const std::function<bool()>& done, std::chrono::milliseconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  for (;;) {
    if (done()) return true;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(20ms);
  }
}

WallTime parse_utc_ms(const std::string& text) {
  std::tm tm{};
  int millis = 0;
  if (std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d.%3dZ", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
                  &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &millis) != 7)
    throw std::runtime_error("not a UTC time with milliseconds: " + text);
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  return WallClock::from_time_t(::timegm(&tm)) + std::chrono::milliseconds(millis);
}

WallTime log_time(const json::object& line) {
  return parse_utc_ms(std::string(line.at("ts").as_string()));
}

WallTime not_before_of(const json::object& line) {
  auto parsed = parse_not_before(std::string(line.at("not_before").as_string()));
  BOOST_REQUIRE_MESSAGE(parsed.ok(), "no NotBefore in " << json::serialize(line));
  return parsed.value();
}

WallTime emulator_time(const json::value& record) {
  return WallTime(std::chrono::milliseconds(record.at("t_ms").to_number<std::int64_t>()));
}

long long ms_between(WallTime a, WallTime b) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(b - a).count();
}

AgentScenario::AgentScenario(std::vector<std::string> emulator_args)
    : emulator_(std::make_unique<ImdsEmulatorProcess>(
          std::vector<EmulatorVm>{{"vm0", 0, 0, "1"}, {"vm1", 1, 0, "2"}}, std::move(emulator_args))) {
  const CommandOutcome init = run_blocking(
      run_command({nodetool_sim_path(), "--init-cluster", cluster_file(), "--dcs", "dc1", "--racks", "3",
                   "--nodes-per-rack", "1", "--base-address", "127.0.1.", "--call-log", call_log()},
                  10s));
  if (!init.ok()) throw std::runtime_error("nodetool-sim --init-cluster: " + init.summary());
  set_boot_id("boot-1");
  ::setenv("CLA_BOOT_ID_FILE", (dir() / "boot_id").c_str(), 1);
}

void AgentScenario::set_boot_id(const std::string& id) const {
  write_text((dir() / "boot_id").string(), id + "\n");
}

AgentScenario::~AgentScenario() {
  agent_.reset();  // kills the agent before the emulator goes
}

fs::path AgentScenario::write_config(const json::object& overrides) {
  auto restart = sim_prefix(cluster_file(), kAgentNode);
  restart.push_back("restart");
  json::object base{
      {"imds",
       {{"endpoint", emulator_->vm_endpoint("vm0")},
        {"poll_interval_ms", 250},
        {"request_timeout_ms", 1000}}},
      {"node", {{"resource_name", "vm0"}, {"fault_domain", 0}}},
      {"cassandra",
       {{"nodetool", argv_json(sim_prefix(cluster_file(), kAgentNode))},
        {"command_timeout_s", 10},
        {"restart_command", argv_json(restart)}}},
      // quiet_s 0: the approval right after the drain, as the scenarios' short leads want it;
      // agent_quiet_test plays the wait (SPEC 3.10). catch_up_max_s 0: serving again at restore_completed;
      // agent_catch_up_test plays the catch-up.
      {"policy",
       {{"drain_lead_s", 3},
        {"unsafe_drain_lead_s", 1},
        {"unsafe_recheck_s", 1},
        {"quiet_s", 0},
        {"catch_up_max_s", 0}}},
      {"hooks", {{"notify", {"/bin/sh", "-c", kHookScript, "hook", hook_file().string()}}}},
  };
  for (const auto& [key, value] : overrides) {
    json::value& slot = base[key];
    if (slot.is_object() && value.is_object()) {
      for (const auto& [inner, v] : value.as_object()) slot.as_object()[inner] = v;
    } else {
      slot = value;
    }
  }
  config_json_ = base;
  config_ = write_agent_config(dir(), std::move(base));
  return config_;
}

std::chrono::milliseconds AgentScenario::poll_interval() const {
  return std::chrono::milliseconds(config_json_.at("imds").at("poll_interval_ms").to_number<std::int64_t>());
}

std::chrono::milliseconds AgentScenario::request_timeout() const {
  return std::chrono::milliseconds(
      config_json_.at("imds").at("request_timeout_ms").to_number<std::int64_t>());
}

std::chrono::seconds AgentScenario::drain_lead() const {
  return std::chrono::seconds(config_json_.at("policy").at("drain_lead_s").to_number<std::int64_t>());
}

std::chrono::seconds AgentScenario::unsafe_drain_lead() const {
  return std::chrono::seconds(config_json_.at("policy").at("unsafe_drain_lead_s").to_number<std::int64_t>());
}

WallTime AgentScenario::not_before(const std::string& id) const {
  for (const auto& event : emulator_->events())
    if (iequals(std::string(event.at("EventId").as_string()), id))
      return WallTime(std::chrono::milliseconds(event.at("not_before_ms").to_number<std::int64_t>()));
  BOOST_FAIL("the emulator holds no event " << id);
  return {};
}

std::chrono::milliseconds AgentScenario::until_started_by_not_before(const std::string& id) const {
  return until(not_before(id) + poll_interval());
}

std::chrono::milliseconds AgentScenario::until_drain_due(const std::string& id) const {
  return until(not_before(id) - drain_lead() + poll_interval());
}

WallTime AgentScenario::gone_by(const std::string& id) const {
  using std::chrono::milliseconds;
  for (const auto& value : emulator_->events()) {
    const auto& event = value.as_object();
    if (!iequals(std::string(event.at("EventId").as_string()), id)) continue;
    if (!event.at("removal_at_ms").is_null())
      return WallTime(milliseconds(event.at("removal_at_ms").to_number<std::int64_t>()));
    const auto lasts = std::max<std::int64_t>(event.at("duration_s").to_number<std::int64_t>(), 0) +
                       event.at("complete_after_s").to_number<std::int64_t>();
    return WallTime(milliseconds(event.at("not_before_ms").to_number<std::int64_t>())) +
           std::chrono::seconds(lasts);
  }
  return WallClock::now();
}

std::chrono::milliseconds AgentScenario::until_removed(const std::string& id) const {
  return until(gone_by(id) + poll_interval());
}

void AgentScenario::wait_for_polls(std::size_t polls) const {
  const auto since = WallClock::now();
  const bool polled = wait_until([&] { return polls_between(since, WallTime::max()) >= polls; },
                                 poll_interval() * static_cast<long>(polls) + kMargin);
  BOOST_REQUIRE_MESSAGE(polled, "the agent did not poll IMDS " << polls << " times");
}

std::size_t AgentScenario::polls_between(WallTime after, WallTime until) const {
  std::size_t n = 0;
  for (const auto& r : emulator_->requests()) {
    const auto t = emulator_time(r);
    n += r.at("vm").as_string() == "vm0" && r.at("method").as_string() == "GET" &&
         std::string_view(r.at("path").as_string()).find("scheduledevents") != std::string_view::npos &&
         t > after && t <= until;
  }
  return n;
}

std::chrono::milliseconds until(WallTime t) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(t - WallClock::now());
  return std::max(left, std::chrono::milliseconds(0)) + kMargin;
}

AgentProcess& AgentScenario::start_agent(std::vector<std::string> extra_args) {
  if (config_.empty()) write_config();
  std::vector<std::string> args{"--config", config_.string()};
  args.insert(args.end(), extra_args.begin(), extra_args.end());
  const std::size_t started_before = log("agent_started").size();
  agent_ = std::make_unique<AgentProcess>(args, dir());
  const bool started = wait_until([&] { return log("agent_started").size() > started_before; }, kMargin);
  BOOST_REQUIRE_MESSAGE(started, "the agent did not log agent_started; stderr: " << agent_->err());
  return *agent_;
}

void AgentScenario::kill_agent() {
  agent_->send_signal(SIGKILL);
  BOOST_REQUIRE(agent_->wait_for_exit(kMargin).has_value());
}

int AgentScenario::stop_agent() {
  agent_->send_signal(SIGTERM);
  const auto code = agent_->wait_for_exit(kMargin);
  BOOST_REQUIRE_MESSAGE(code.has_value(), "the agent did not stop on SIGTERM");
  return *code;
}

std::vector<json::object> AgentScenario::log() const {
  return read_json_lines(log_file());
}

std::vector<json::object> AgentScenario::log(const std::string& msg, const std::string& event_id) const {
  std::vector<json::object> out;
  for (auto& line : log())
    if (matches(line, msg, event_id)) out.push_back(std::move(line));
  return out;
}

std::vector<std::string> AgentScenario::log_msgs(const std::string& event_id) const {
  std::vector<std::string> out;
  for (const auto& line : log()) {
    const auto* id = line.if_contains("event_id");
    if (event_id.empty() || (id && id->is_string() && iequals(std::string(id->get_string()), event_id)))
      out.emplace_back(line.at("msg").as_string());
  }
  return out;
}

std::optional<json::object> AgentScenario::find_log(const std::string& msg, std::chrono::milliseconds limit,
                                                    const std::string& event_id) const {
  std::optional<json::object> found;
  wait_until(
      [&] {
        auto lines = log(msg, event_id);
        if (!lines.empty()) found = std::move(lines.front());
        return found.has_value();
      },
      limit);
  return found;
}

json::object AgentScenario::wait_for(const std::string& msg, std::chrono::milliseconds limit,
                                     const std::string& event_id) const {
  auto line = find_log(msg, limit, event_id);
  if (!line) {
    // Every message name, then the last lines in full: enough to see what the agent did instead.
    std::ostringstream seen;
    for (const auto& m : log_msgs()) seen << m << ' ';
    const auto lines = log();
    for (std::size_t i = lines.size() > 6 ? lines.size() - 6 : 0; i < lines.size(); ++i)
      seen << '\n' << json::serialize(lines[i]);
    BOOST_FAIL("no " << msg << " line within " << limit.count() << " ms; the agent logged: " << seen.str()
                     << "\nstderr: " << agent_->err());
  }
  return *line;
}

void AgentScenario::approved_and_started(const std::string& id) const {
  wait_for("event_approved", until_drain_due(id), id);
  wait_for("event_status_changed", within_a_poll(), id);  // Started
}

std::vector<SimCall> AgentScenario::calls() const {
  std::vector<SimCall> out;
  for (const auto& line : read_json_lines(call_log()))
    out.push_back(SimCall{
        parse_utc_ms(std::string(line.at("t").as_string())), std::string(line.at("node").as_string()),
        std::string(line.at("subcommand").as_string()), static_cast<int>(line.at("exit_code").as_int64())});
  return out;
}

std::vector<std::string> AgentScenario::agent_mutations() const {
  static const std::vector<std::string> mutating{"disablebinary", "disablegossip", "drain", "enablegossip",
                                                 "enablebinary",  "restart",       "stop",  "start"};
  std::vector<std::string> out;
  for (const auto& call : calls())
    if (call.node == kAgentNode &&
        std::find(mutating.begin(), mutating.end(), call.subcommand) != mutating.end())
      out.push_back(call.subcommand);
  return out;
}

CommandOutcome AgentScenario::sim(const std::string& subcommand, const std::string& node) const {
  return cla::test::sim(cluster_file(), node, subcommand);
}

bool AgentScenario::running(const std::string& status_subcommand, const std::string& node) const {
  const CommandOutcome out = sim(status_subcommand, node);
  return out.ok() && out.out.find("not running") == std::string::npos &&
         out.out.find("running") != std::string::npos;
}

void edit_sim_node(const std::string& cluster_file, const std::string& address,
                   const std::function<void(boost::json::object&)>& edit) {
  json::value cluster = json::parse(read_text(cluster_file));
  bool found = false;
  for (auto& dc : cluster.at("datacenters").as_array())
    for (auto& rack : dc.at("racks").as_array())
      for (auto& n : rack.at("nodes").as_array())
        if (n.at("address").as_string() == address) {
          edit(n.as_object());
          found = true;
        }
  BOOST_REQUIRE_MESSAGE(found, "the cluster file has no node " << address);
  write_text(cluster_file, json::serialize(cluster));
}

void AgentScenario::add_sim_fault(const std::string& node, const std::string& subcommand,
                                  const json::object& fault) {
  edit_sim_node(cluster_file(), node, [&](json::object& n) {
    auto& faults = n["faults"];
    if (!faults.is_object()) faults = json::object{};
    faults.as_object()[subcommand] = fault;
  });
}

void AgentScenario::set_sim_node(const std::string& node, const std::string& field,
                                 const json::value& value) {
  edit_sim_node(cluster_file(), node, [&](json::object& n) { n[field] = value; });
}

void AgentScenario::alter_sim_keyspace(const std::string& keyspace, const std::string& strategy_class,
                                       const json::object& replication) {
  cla::test::alter_sim_keyspace(cluster_file(), keyspace, strategy_class, replication);
}

void alter_sim_keyspace(const std::string& cluster_file, const std::string& keyspace,
                        const std::string& strategy_class, const json::object& replication) {
  json::value cluster = json::parse(read_text(cluster_file));
  bool found = false;
  for (auto& ks : cluster.at("keyspaces").as_array())
    if (ks.at("name").as_string() == keyspace) {
      ks.as_object()["class"] = strategy_class;
      ks.as_object()["replication"] = replication;
      found = true;
    }
  BOOST_REQUIRE_MESSAGE(found, "the cluster file has no keyspace " << keyspace);
  write_text(cluster_file, json::serialize(cluster));
}

std::vector<HookRun> AgentScenario::hook_runs() const {
  std::vector<HookRun> runs;
  std::ifstream in(hook_file());
  for (std::string line; std::getline(in, line);) {
    HookRun run;
    std::istringstream fields(line);
    for (std::string kv; std::getline(fields, kv, '\t');)
      if (const auto eq = kv.find('='); eq != std::string::npos) run[kv.substr(0, eq)] = kv.substr(eq + 1);
    runs.push_back(std::move(run));
  }
  return runs;
}

}  // namespace cla::test
