// The agent's configuration (SPEC 2.3, 9): the typed Config with its defaults, loading, validation, and JSON
// view.
#pragma once

#include <boost/json/object.hpp>
#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "agent/log.hpp"
#include "cassandra/gate/consistency.hpp"
#include "imds/transport/tls_settings.hpp"
#include "state/result.hpp"

namespace cla {

// Field names are the JSON keys; durations carry their unit in both the name and the type.
struct ImdsConfig {
  std::string endpoint = "http://169.254.169.254";
  std::string api_version = "2020-07-01";
  std::chrono::milliseconds poll_interval_ms{1000};
  std::chrono::milliseconds request_timeout_ms{5000};
  bool operator==(const ImdsConfig&) const = default;
};

struct NodeConfig {
  std::string resource_name;  // empty: discovered from IMDS compute metadata
  int fault_domain = -1;      // -1: discovered from IMDS compute metadata
  bool operator==(const NodeConfig&) const = default;
};

// How the agent reads and changes its node (SPEC 2.3 cassandra.backend).
enum class NodeBackendKind { nodetool, jolokia };

struct JolokiaConfig {
  std::string url{"http://127.0.0.1:8778/jolokia"};
  std::string username;       // with password_file: basic auth
  std::string password_file;  // a secret file (checked as coordination.password_file is)
  TlsSettings tls;            // with an https:// url: ca_file required (as coordination.tls)
  bool operator==(const JolokiaConfig&) const = default;
};

struct CassandraConfig {
  std::vector<std::string> nodetool{"nodetool"};  // argv prefix; the subcommand is appended
  std::chrono::seconds command_timeout_s{120};
  std::vector<std::string> restart_command;  // empty: log restart_required instead
  NodeBackendKind backend = NodeBackendKind::nodetool;
  JolokiaConfig jolokia;
  bool operator==(const CassandraConfig&) const = default;
};

// Where this node's rack comes from (SPEC 2.3 topology.rack_source): the platform fault domain through
// fault_domain_racks, or the availability zone through zone_racks (zonal deployments: a zone per rack).
enum class RackSource { fault_domain, zone };
std::string_view to_string(RackSource source);

struct TopologyConfig {
  int replication_factor = 3;  // the fallback's only (SPEC 3.4): the schema and ring decide otherwise
  Consistency consistency = Consistency::local_quorum;  // what the cluster's clients read and write at
  std::chrono::seconds schema_refresh_s{300};           // how old the schema and ring the gate uses may get
  RackSource rack_source = RackSource::fault_domain;
  std::map<int, std::string> fault_domain_racks{{0, "rack1"}, {1, "rack2"}, {2, "rack3"}};
  std::map<std::string, std::string> zone_racks;  // IMDS compute zone -> rack, with rack_source zone
  // The rack this configuration gives a node in `fault_domain` and `zone` ("" when it maps none).
  std::string rack_for(int fault_domain, const std::string& zone) const;
  bool operator==(const TopologyConfig&) const = default;
};

struct PolicyConfig {
  std::chrono::seconds drain_lead_s{30};
  std::chrono::seconds unsafe_drain_lead_s{10};
  std::chrono::seconds unsafe_recheck_s{5};        // an unsafe gate is asked again at most this often
  std::chrono::seconds no_impact_freeze_max_s{0};  // 0: every impactful event is drained for
  std::chrono::seconds hold_between_events_s{120};
  bool approve_user_events = true;
  bool approve_shared_events = false;
  bool flush_before_restart = true;
  std::chrono::seconds quiet_s{2};  // SPEC 3.10: the replica stages unchanged this long before an approval
  // SPEC 3.10: after a restore, caught up once no node holds hints for it, not before catch_up_min_s (a hints
  // file is listed only once closed) and at the latest after catch_up_max_s (0: no catch-up wait).
  std::chrono::seconds catch_up_min_s{30};
  std::chrono::seconds catch_up_max_s{1800};
  bool operator==(const PolicyConfig&) const = default;
};

struct HooksConfig {
  std::vector<std::string> notify;  // argv run at each maintenance notification
  bool operator==(const HooksConfig&) const = default;
};

struct LogConfig {
  std::string file = "/var/log/cassandra-lifecycle-agent/agent.jsonl";
  LogLevel level = LogLevel::info;
  bool operator==(const LogConfig&) const = default;
};

struct HttpConfig {
  std::string listen = "127.0.0.1:9137";  // empty: no HTTP endpoint
  bool operator==(const HttpConfig&) const = default;
};

// What the agent does about a platform drain while etcd cannot be reached (SPEC 9).
enum class OnUnavailable { local_gate, hold };

struct CoordinationConfig {
  std::vector<std::string> etcd_endpoints;  // empty: uncoordinated
  std::string cluster;                      // key segment: /cassandra-lifecycle-agent/<cluster>/
  std::chrono::seconds lease_ttl_s{15};
  std::string username;       // empty: no etcd authentication
  std::string password_file;  // the password, read when the client is made (never printed)
  OnUnavailable on_unavailable = OnUnavailable::local_gate;
  TlsSettings tls;  // with ca_file, every endpoint is https:// (SPEC 9 "TLS")
  bool enabled() const { return !etcd_endpoints.empty(); }
  bool operator==(const CoordinationConfig&) const = default;
};

struct Config {
  ImdsConfig imds;
  NodeConfig node;
  CassandraConfig cassandra;
  TopologyConfig topology;
  PolicyConfig policy;
  HooksConfig hooks;
  std::string state_file = "/var/lib/cassandra-lifecycle-agent/state.json";
  LogConfig log;
  HttpConfig http;
  CoordinationConfig coordination;
  bool operator==(const Config&) const = default;
};

// Reads and validates a config file. The error is one line:
// `config error: <file>: <key.path>: <what is wrong>` (`-` as the key path for file-level problems).
Result<Config> load_config(const std::string& path);
Result<Config> parse_config(std::string_view json_text, const std::string& path_for_messages);

// The full effective configuration in the SPEC 2.3 shape (with SPEC 9's coordination); parse_config accepts
// it back unchanged (the password file is named, never read into it).
boost::json::object config_to_json(const Config& config);

}  // namespace cla
