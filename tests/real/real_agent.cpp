// One real-suite agent and the emulator that plays its VMs with the impact hook.
#include "real_agent.hpp"

#include <signal.h>
#include <stdlib.h>

#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "agent_scenario.hpp"
#include "cassandra_support.hpp"
#include "real_cluster.hpp"
#include "state/scheduled_event.hpp"

namespace cla::test::real {
namespace {

namespace json = boost::json;
using namespace std::chrono_literals;

// Start-up runs statusgossip and statusbinary (a JVM each: seconds, more on a loaded machine).
constexpr auto kStartLimit = 2 * kNodetoolCall + 60s;

bool about(const json::object& line, const std::string& msg, const std::string& event_id) {
  if (line.at("msg").as_string() != msg) return false;
  if (event_id.empty()) return true;
  const auto* id = line.if_contains("event_id");
  return id && id->is_string() && iequals(std::string(id->get_string()), event_id);
}

}  // namespace

std::unique_ptr<ImdsEmulatorProcess> start_emulator(bool restart_on_end) {
  std::string hook_nodes;
  for (int k = 1; k <= nodes(); ++k)
    hook_nodes += (k > 1 ? "," : "") + ("vm" + std::to_string(k)) + "=" + node_address(k);
  ::setenv("IMPACT_HOOK_NODES", hook_nodes.c_str(), 1);
  ::setenv("IMPACT_HOOK_RESTART", restart_on_end ? "1" : "0", 1);
  const std::filesystem::path dir(CLA_REAL_CLUSTER_DIR);
  ::setenv("IMPACT_HOOK_LOG", (dir / "impact-hook.log").c_str(), 1);
  ::setenv("IMPACT_HOOK_RECORD", (dir / "impact-hook.jsonl").c_str(), 1);
  std::filesystem::create_directories(dir / "impact-delay");
  ::setenv("IMPACT_HOOK_DELAY_DIR", (dir / "impact-delay").c_str(), 1);
  std::vector<EmulatorVm> vms;
  // Two DCs: dc2's VMs in a region of their own (an availability set sees its own events only, SPEC 9).
  for (int k = 1; k <= nodes(); ++k)
    vms.push_back({"vm" + std::to_string(k), (k - 1) % 3, 0, "", k > 3 ? "dc2" : ""});
  return std::make_unique<ImdsEmulatorProcess>(
      std::move(vms), std::vector<std::string>{"--impact-hook", impact_hook_script()});
}

std::string add_freeze(const ImdsEmulatorProcess& emulator, const std::string& vm, int notice_s,
                       int duration_s, int complete_after_s) {
  return emulator.add_event({{"type", "Freeze"},
                             {"resources", {vm}},
                             {"not_before_in_s", notice_s},
                             {"duration_s", duration_s},
                             {"complete_after_s", complete_after_s}});
}

void delay_next_impact(const std::string& vm, WallTime at) {
  std::ofstream(std::filesystem::path(CLA_REAL_CLUSTER_DIR) / "impact-delay" / vm)
      << std::chrono::duration_cast<std::chrono::milliseconds>(at.time_since_epoch()).count() << "\n";
}

json::object event_record(const ImdsEmulatorProcess& emulator, const std::string& id) {
  for (const auto& event : emulator.events())
    if (event.as_object().at("EventId").as_string() == id) return event.as_object();
  BOOST_FAIL("event " << id << " is not in the emulator any more");
  return {};
}

std::string real_backend() {
  const char* backend = std::getenv("CLA_REAL_BACKEND");
  return backend && *backend ? backend : "nodetool";
}

std::string agent_step_thread() {
  return real_backend() == "jolokia" ? "jolokia" : "RMI";
}

RealAgent::RealAgent(const ImdsEmulatorProcess& emulator, int k, json::object policy, json::object topology,
                     std::vector<std::string> nodetool_wrapper, json::object coordination)
    : k_(k) {
  address_ = node_address(k);
  // quiet_s 0: the cases time the approval right after the drain; the quiet before it (SPEC 3.10) is the
  // integration suite's agent_quiet_test, over readings whose format the real captures fix. catch_up_max_s 0:
  // serving again at restore_completed, unless a case plays the catch-up.
  json::object full_policy{
      {"drain_lead_s", 30}, {"unsafe_drain_lead_s", 10}, {"quiet_s", 0}, {"catch_up_max_s", 0}};
  for (auto& [key, value] : policy) full_policy[key] = value;
  std::vector<std::string> nodetool = std::move(nodetool_wrapper);
  for (std::string part : {cluster_script(), std::string("nodetool"), address_}) nodetool.push_back(part);
  config_ = write_agent_config(
      dir_.path,
      {{"imds", {{"endpoint", emulator.vm_endpoint(vm())}, {"poll_interval_ms", kPoll.count()}}},
       {"node", {{"resource_name", vm()}, {"fault_domain", k - 1}}},
       {"cassandra",
        {{"nodetool", argv_json(nodetool)},
         // Bounds restart_command too: a node start back to UN in every view takes minutes under load.
         {"command_timeout_s", 300},
         {"restart_command", {cluster_script(), "start", address_, "--no-binary"}}}},
       {"policy", full_policy},
       {"topology", std::move(topology)}});
  if (!coordination.empty()) {
    json::object config = json::parse(read_text(config_.string())).as_object();
    config["coordination"] = std::move(coordination);
    write_text(config_.string(), json::serialize(config));
  }
  if (real_backend() == "jolokia") {
    const json::object node = status_line(k);
    json::object config = json::parse(read_text(config_.string())).as_object();
    auto& cassandra = config["cassandra"].as_object();
    cassandra["backend"] = "jolokia";
    cassandra["jolokia"] = {{"url", node.at("jolokia_url")},
                            {"username", node.at("jolokia_user")},
                            {"password_file", node.at("jolokia_password_file")}};
    write_text(config_.string(), json::serialize(config));
  }
}

RealAgent::~RealAgent() {
  if (process_) process_->send_signal(SIGKILL);
  // The temp dir goes with the agent: keep its log beside the cluster's for a post-mortem.
  const std::filesystem::path kept = std::filesystem::path(CLA_REAL_CLUSTER_DIR) / "agent-logs";
  std::error_code ignored;
  std::filesystem::create_directories(kept, ignored);
  const std::string name =
      boost::unit_test::framework::current_test_case().p_name.get() + "-" + vm() + ".jsonl";
  std::filesystem::copy_file(dir_.path / "log" / "agent.jsonl", kept / name,
                             std::filesystem::copy_options::overwrite_existing, ignored);
}

void RealAgent::start() {
  // agent_started comes first; the start-up's verdict (one of these) after its nodetool calls (the agent
  // polls IMDS meanwhile, SPEC 3.9): a case's event is posted once the core has started.
  const auto started_up = [&] {
    std::size_t n = 0;
    for (const char* msg : {"first_start", "state_loaded", "node_status_at_start", "adopting_disabled_node"})
      n += log(msg).size();
    return n;
  };
  const std::size_t before = started_up();
  process_ =
      std::make_unique<AgentProcess>(std::vector<std::string>{"--config", config_.string()}, dir_.path);
  BOOST_TEST_REQUIRE(wait_until([&] { return started_up() > before; }, kStartLimit),
                     "agent " << vm() << " did not finish its start-up: " << process_->err());
}

void RealAgent::kill() {
  process_->send_signal(SIGKILL);
  BOOST_TEST_REQUIRE(process_->wait_for_exit(10s).has_value());
}

int RealAgent::stop() {
  process_->send_signal(SIGTERM);
  // A stop waits for the nodetool command in flight (bounded by command_timeout_s).
  const auto code = process_->wait_for_exit(330s);
  BOOST_TEST_REQUIRE(code.has_value());
  return *code;
}

std::vector<json::object> RealAgent::log() const {
  std::vector<json::object> lines;
  std::ifstream in(dir_.path / "log" / "agent.jsonl");
  for (std::string text; std::getline(in, text);) {
    boost::system::error_code ec;
    auto value = json::parse(text, ec);  // the last line may be half written
    if (!ec && value.is_object()) lines.push_back(std::move(value.as_object()));
  }
  return lines;
}

std::vector<json::object> RealAgent::log(const std::string& msg, const std::string& event_id) const {
  std::vector<json::object> out;
  for (auto& line : log())
    if (about(line, msg, event_id)) out.push_back(std::move(line));
  return out;
}

std::optional<json::object> RealAgent::find(const std::string& msg, const std::string& event_id) const {
  auto lines = log(msg, event_id);
  if (lines.empty()) return std::nullopt;
  return lines.front();
}

std::vector<std::string> RealAgent::mutations(WallTime after) const {
  std::vector<std::string> out;
  for (const auto& line : log("nodetool_ran"))
    if (const std::string sub(line.at("subcommand").as_string());
        cla::test::log_time(line) > after &&
        (sub.starts_with("disable") || sub.starts_with("enable") || sub == "drain"))
      out.push_back(sub);
  return out;
}

std::vector<std::string> RealAgent::messages() const {
  std::vector<std::string> out;
  for (const auto& line : log()) {
    const std::string msg(line.at("msg").as_string());
    if (msg != "nodetool_ran") out.push_back(msg);
  }
  return out;
}

json::object RealAgent::wait_for(const std::string& msg, std::chrono::seconds limit,
                                 const std::string& event_id) const {
  std::optional<json::object> line;
  wait_until([&] { return (line = find(msg, event_id)).has_value(); }, limit);
  if (!line) {
    std::ostringstream seen;
    for (const auto& m : messages()) seen << m << " ";
    BOOST_FAIL("agent " << vm() << ": no " << msg << " within " << limit.count()
                        << " s; logged: " << seen.str());
  }
  return *line;
}

long long ms_between_lines(const json::object& a, const json::object& b) {
  return ms_between(log_time(a), log_time(b));
}

void RealAgent::report_timings(const std::string& title) const {
  std::map<std::string, std::vector<long long>> per_subcommand;
  for (const auto& line : log("nodetool_ran"))
    per_subcommand[std::string(line.at("subcommand").as_string())].push_back(
        line.at("duration_ms").to_number<long long>());
  std::ostringstream text;
  text << title << " (" << vm() << ", " << address_ << "): nodetool wall time (ms):";
  for (const auto& [sub, times] : per_subcommand) {
    text << " " << sub << "=";
    for (std::size_t i = 0; i < times.size(); ++i) text << (i ? "," : "") << times[i];
  }
  const auto drain_started = find("drain_started"), drain_done = find("drain_completed");
  if (drain_started && drain_done)
    text << "; drain path " << ms_between_lines(*drain_started, *drain_done) << " ms";
  const auto restore_started = find("restore_started"), restore_done = find("restore_completed");
  if (restore_started && restore_done)
    text << "; restore path " << ms_between_lines(*restore_started, *restore_done) << " ms";
  BOOST_TEST_MESSAGE(text.str());
}

}  // namespace cla::test::real
