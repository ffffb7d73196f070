// Reads and writes nodetool-sim cluster files with Boost.JSON; every error names its key path.
#include "cassandra/sim/sim_cluster_json.hpp"

#include <algorithm>
#include <boost/json.hpp>
#include <charconv>
#include <initializer_list>
#include <set>

#include "state/text.hpp"

namespace cla {

namespace json = boost::json;

namespace {

// Checked access to one JSON object; the first problem is kept with its path.
class ObjectReader {
 public:
  ObjectReader(const json::value& value, std::string path, std::string& error)
      : path_(std::move(path)), error_(error) {
    object_ = value.if_object();
    if (!object_) fail(path_, "expected an object");
  }
  bool ok() const { return error_.empty(); }

  void allow_only(std::initializer_list<std::string_view> keys) {
    if (!object_) return;
    for (const auto& entry : *object_)
      if (std::find(keys.begin(), keys.end(), std::string_view(entry.key())) == keys.end())
        fail(at(entry.key()), "unknown key");
  }
  const json::value* find(std::string_view key, bool required) {
    const json::value* v = object_ ? object_->if_contains(key) : nullptr;
    if (!v && required && object_) fail(at(key), "missing");
    return v;
  }
  void read(std::string_view key, std::string& out, bool required = false) {
    if (const auto* v = find(key, required)) {
      if (const auto* s = v->if_string())
        out = std::string(*s);
      else
        fail(at(key), "expected a string");
    }
  }
  void read(std::string_view key, bool& out) {
    if (const auto* v = find(key, false)) {
      if (const auto* b = v->if_bool())
        out = *b;
      else
        fail(at(key), "expected true or false");
    }
  }
  template <class Int>
  void read(std::string_view key, Int& out, long long min, long long max) {
    if (const auto* v = find(key, false)) {
      const auto* i = v->if_int64();
      if (!i || *i < min || *i > max)
        fail(at(key), "expected an integer from " + std::to_string(min) + " to " + std::to_string(max));
      else
        out = static_cast<Int>(*i);
    }
  }
  std::string at(std::string_view key) const {
    return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
  }
  void fail(const std::string& where, const std::string& what) {
    if (error_.empty()) error_ = where + ": " + what;
  }
  const json::object* object() const { return object_; }

 private:
  const json::object* object_ = nullptr;
  std::string path_;
  std::string& error_;
};

// Calls each(element, path) for every element of the array under `key` (required).
template <class Fn>
void for_each_element(ObjectReader& reader, std::string_view key, Fn each) {
  const auto* v = reader.find(key, true);
  if (!v) return;
  const auto* array = v->if_array();
  if (!array) return reader.fail(reader.at(key), "expected an array");
  for (std::size_t i = 0; i < array->size() && reader.ok(); ++i)
    each((*array)[i], reader.at(key) + "[" + std::to_string(i) + "]");
}

SimFault read_fault(const json::value& value, const std::string& path, std::string& error) {
  SimFault fault;
  ObjectReader r(value, path, error);
  r.allow_only({"exit_code", "signal", "stdout", "stderr", "latency_ms", "times"});
  int exit_code = 0, signal = 0, times = 0;
  r.read("exit_code", exit_code, 0, 255);
  if (r.find("exit_code", false)) fault.exit_code = exit_code;
  r.read("signal", signal, 1, 31);
  if (r.find("signal", false)) fault.signal = signal;
  r.read("stdout", fault.stdout_text);
  r.read("stderr", fault.stderr_text);
  r.read("latency_ms", fault.latency_ms, 0, 3600 * 1000);
  r.read("times", times, 1, 1000000);
  if (r.find("times", false)) fault.times = times;
  return fault;
}

SimNode read_node(const json::value& value, const std::string& path, std::string& error) {
  SimNode node;
  ObjectReader r(value, path, error);
  r.allow_only({"address",
                "host_id",
                "load",
                "tokens",
                "running",
                "gossip",
                "binary",
                "drained",
                "ring_state",
                "generation",
                "faults",
                "ring_tokens",
                "schema_version",
                "completed_tasks",
                "tasks_counted_at",
                "gossip_stopped_at",
                "announce_echo_s",
                "hint_replay_s",
                "down_since",
                "back_at",
                "back_out_s",
                "max_hint_window_ms"});
  r.read("address", node.address, true);
  r.read("host_id", node.host_id);
  r.read("load", node.load);
  if (!r.find("host_id", false)) node.host_id = default_host_id(node.address);
  if (!r.find("load", false)) node.load = default_load(node.address);
  r.read("tokens", node.tokens, 1, 65536);
  r.read("running", node.running);
  r.read("gossip", node.gossip);
  r.read("binary", node.binary);
  r.read("drained", node.drained);
  std::string ring_state(1, node.ring_state);
  r.read("ring_state", ring_state);
  if (ring_state.size() != 1 || std::string_view("NLJM").find(ring_state[0]) == std::string_view::npos)
    r.fail(r.at("ring_state"), "expected one of \"N\", \"L\", \"J\", \"M\"");
  else
    node.ring_state = ring_state[0];
  r.read("generation", node.generation, 0, 1LL << 40);
  r.read("schema_version", node.schema_version);
  r.read("completed_tasks", node.completed_tasks, 0, 1LL << 60);
  r.read("tasks_counted_at", node.tasks_counted_at, 0, 1LL << 40);
  r.read("gossip_stopped_at", node.gossip_stopped_at, 0, 1LL << 40);
  r.read("announce_echo_s", node.announce_echo_s, 0, 3600);
  r.read("hint_replay_s", node.hint_replay_s, 0, 3600);
  r.read("down_since", node.down_since, 0, 1LL << 40);
  r.read("back_at", node.back_at, 0, 1LL << 40);
  r.read("back_out_s", node.back_out_s, 0, 1LL << 40);
  r.read("max_hint_window_ms", node.max_hint_window_ms, 0, 1LL << 40);
  if (const auto* tokens = r.find("ring_tokens", false)) {
    const auto* array = tokens->if_array();
    for (std::size_t i = 0; array && i < array->size(); ++i) {
      const auto& t = (*array)[i];
      std::int64_t value = 0;
      const auto* text = t.if_string();
      const auto read = text ? std::from_chars(text->data(), text->data() + text->size(), value)
                             : std::from_chars_result{nullptr, std::errc::invalid_argument};
      if (text && read.ec == std::errc{} && read.ptr == text->data() + text->size())
        node.ring_tokens.push_back(std::to_string(value));  // Murmur3 tokens: 64-bit, written canonically
      else if (const auto* number = t.if_int64())
        node.ring_tokens.push_back(std::to_string(*number));
      else
        r.fail(r.at("ring_tokens") + "[" + std::to_string(i) + "]", "expected an integer token");
    }
    if (!array || array->empty())
      r.fail(r.at("ring_tokens"), "expected a non-empty array of tokens");
    else if (r.find("tokens", false) && node.tokens != static_cast<int>(array->size()))
      r.fail(r.at("tokens"), "differs from the number of ring_tokens");
    else
      node.tokens = static_cast<int>(array->size());
  }
  if (const auto* faults = r.find("faults", false)) {
    ObjectReader f(*faults, r.at("faults"), error);
    if (f.object())
      for (const auto& entry : *f.object())
        node.faults[std::string(entry.key())] = read_fault(entry.value(), f.at(entry.key()), error);
  }
  return node;
}

// {"name": ..., "class": ..., "replication": {"k": 3 or "3/1", ...}}: read as describecluster prints it.
SimKeyspace read_keyspace(const json::value& value, const std::string& path, std::string& error) {
  SimKeyspace keyspace;
  ObjectReader r(value, path, error);
  r.allow_only({"name", "class", "replication"});
  std::string strategy;
  r.read("name", keyspace.name, true);
  r.read("class", strategy, true);
  std::string text = strategy + " {";
  if (const auto* options = r.find("replication", true)) {
    ObjectReader o(*options, r.at("replication"), error);
    std::size_t i = 0;
    for (const auto* object = o.object(); object && i < object->size(); ++i) {
      const auto& entry = *(object->begin() + static_cast<std::ptrdiff_t>(i));
      std::string factor;
      if (const auto* number = entry.value().if_int64())
        factor = std::to_string(*number);
      else if (const auto* s = entry.value().if_string())
        factor = std::string(*s);
      else
        o.fail(o.at(entry.key()), "expected a number or a string");
      text += (i ? ", " : "") + std::string(entry.key()) + "=" + factor;
    }
  }
  auto replication = parse_replication(text + "}");
  if (!replication)
    r.fail(r.at("class"), replication.error().message);
  else
    keyspace.replication = std::move(replication.value());
  return keyspace;
}

}  // namespace

Result<SimCluster> parse_sim_cluster(std::string_view json_text) {
  boost::system::error_code ec;
  json::monotonic_resource arena;  // the tree lives only while it is read into a SimCluster: freed at once
  const json::value root = json::parse(json_text, ec, &arena);
  if (ec) return make_error("invalid JSON: " + ec.message());
  SimCluster cluster;
  std::string error;
  ObjectReader r(root, "", error);
  r.allow_only({"datacenters", "replication_factor", "ownership_unavailable", "call_log", "cluster_name",
                "keyspaces"});
  r.read("replication_factor", cluster.replication_factor, 1, 100);
  r.read("ownership_unavailable", cluster.ownership_unavailable);
  r.read("call_log", cluster.call_log);
  r.read("cluster_name", cluster.cluster_name);
  if (r.find("keyspaces", false)) {
    std::set<std::string> names;
    for_each_element(r, "keyspaces", [&](const json::value& v, const std::string& path) {
      SimKeyspace keyspace = read_keyspace(v, path, error);
      if (error.empty() && !names.insert(keyspace.name).second)
        error = path + ".name: duplicate keyspace " + keyspace.name;
      cluster.keyspaces.push_back(std::move(keyspace));
    });
  } else {
    cluster.keyspaces = default_sim_keyspaces();
  }
  std::set<std::string> addresses;
  for_each_element(r, "datacenters", [&](const json::value& v, const std::string& dc_path) {
    SimDatacenter dc;
    ObjectReader d(v, dc_path, error);
    d.allow_only({"name", "racks"});
    d.read("name", dc.name, true);
    for_each_element(d, "racks", [&](const json::value& rv, const std::string& rack_path) {
      SimRack rack;
      ObjectReader k(rv, rack_path, error);
      k.allow_only({"name", "nodes"});
      k.read("name", rack.name, true);
      for_each_element(k, "nodes", [&](const json::value& nv, const std::string& node_path) {
        SimNode node = read_node(nv, node_path, error);
        if (error.empty() && !addresses.insert(node.address).second)
          error = node_path + ".address: duplicate address " + node.address;
        rack.nodes.push_back(std::move(node));
      });
      dc.racks.push_back(std::move(rack));
    });
    cluster.datacenters.push_back(std::move(dc));
  });
  if (!error.empty()) return make_error(error);
  return cluster;
}

namespace {

json::object fault_to_json(const SimFault& fault) {
  json::object o;
  if (fault.exit_code) o["exit_code"] = *fault.exit_code;
  if (fault.signal) o["signal"] = *fault.signal;
  if (!fault.stdout_text.empty()) o["stdout"] = fault.stdout_text;
  if (!fault.stderr_text.empty()) o["stderr"] = fault.stderr_text;
  if (fault.latency_ms) o["latency_ms"] = fault.latency_ms;
  if (fault.times) o["times"] = *fault.times;
  return o;
}

json::object node_to_json(const SimNode& node) {
  json::object o;
  o["address"] = node.address;
  o["host_id"] = node.host_id;
  o["load"] = node.load;
  o["tokens"] = node.tokens;
  o["running"] = node.running;
  o["gossip"] = node.gossip;
  o["binary"] = node.binary;
  o["drained"] = node.drained;
  o["ring_state"] = std::string(1, node.ring_state);
  o["generation"] = node.generation;
  if (node.completed_tasks) o["completed_tasks"] = node.completed_tasks;
  if (node.tasks_counted_at) o["tasks_counted_at"] = node.tasks_counted_at;
  if (node.gossip_stopped_at) o["gossip_stopped_at"] = node.gossip_stopped_at;
  if (node.announce_echo_s) o["announce_echo_s"] = node.announce_echo_s;
  if (node.hint_replay_s) o["hint_replay_s"] = node.hint_replay_s;
  if (node.down_since) o["down_since"] = node.down_since;
  if (node.back_at) o["back_at"] = node.back_at;
  if (node.back_out_s) o["back_out_s"] = node.back_out_s;
  if (node.max_hint_window_ms != 10800000) o["max_hint_window_ms"] = node.max_hint_window_ms;
  if (!node.ring_tokens.empty()) {
    json::array tokens;
    for (const auto& t : node.ring_tokens) tokens.emplace_back(t);
    o["ring_tokens"] = std::move(tokens);
  }
  if (!node.schema_version.empty()) o["schema_version"] = node.schema_version;
  if (!node.faults.empty()) {
    json::object faults;
    for (const auto& [name, fault] : node.faults) faults[name] = fault_to_json(fault);
    o["faults"] = std::move(faults);
  }
  return o;
}

// Objects and arrays one entry per line; a node or a keyspace stays on one line so files stay short.
void write_pretty(const json::value& v, std::string& out, int depth) {
  const bool flat = v.is_object() && (v.as_object().contains("address") || v.as_object().contains("class"));
  const std::string pad(static_cast<std::size_t>(depth + 1) * 2, ' '),
      end_pad(static_cast<std::size_t>(depth) * 2, ' ');
  if (const auto* o = v.if_object(); o && !o->empty() && !flat) {
    out += "{\n";
    std::size_t i = 0;
    for (const auto& entry : *o) {
      out += pad + json::serialize(json::string(entry.key())) + ": ";
      write_pretty(entry.value(), out, depth + 1);
      out += ++i < o->size() ? ",\n" : "\n";
    }
    out += end_pad + "}";
  } else if (const auto* a = v.if_array(); a && !a->empty()) {
    out += "[\n";
    for (std::size_t i = 0; i < a->size(); ++i) {
      out += pad;
      write_pretty((*a)[i], out, depth + 1);
      out += i + 1 < a->size() ? ",\n" : "\n";
    }
    out += end_pad + "]";
  } else {
    out += json::serialize(v);
  }
}

}  // namespace

std::string serialize_sim_cluster(const SimCluster& cluster) {
  json::object root;
  root["replication_factor"] = cluster.replication_factor;
  root["ownership_unavailable"] = cluster.ownership_unavailable;
  if (!cluster.call_log.empty()) root["call_log"] = cluster.call_log;
  root["cluster_name"] = cluster.cluster_name;
  json::array keyspaces;
  for (const auto& ks : cluster.keyspaces) {
    json::object replication;
    for (const auto& [key, value] : ks.replication.options) {
      if (is_integer_text(value) && value.front() != '-' && value.size() < 10)
        replication[key] = std::stoi(value);
      else
        replication[key] = value;
    }
    keyspaces.push_back(json::object{{"name", ks.name},
                                     {"class", ks.replication.strategy_class},
                                     {"replication", std::move(replication)}});
  }
  root["keyspaces"] = std::move(keyspaces);
  json::array dcs;
  for (const auto& dc : cluster.datacenters) {
    json::array racks;
    for (const auto& rack : dc.racks) {
      json::array nodes;
      for (const auto& node : rack.nodes) nodes.push_back(node_to_json(node));
      racks.push_back(json::object{{"name", rack.name}, {"nodes", std::move(nodes)}});
    }
    dcs.push_back(json::object{{"name", dc.name}, {"racks", std::move(racks)}});
  }
  root["datacenters"] = std::move(dcs);
  std::string out;
  write_pretty(root, out, 0);
  out += "\n";
  return out;
}

}  // namespace cla
