// Config errors: one exact one-line message per error class, and the first error in file order wins.
#include <boost/test/unit_test.hpp>
#include <string>
#include <string_view>
#include <utility>

#include "agent/config/config.hpp"

namespace {

std::string error_of(std::string_view json_text) {
  auto result = cla::parse_config(json_text, "t.json");
  return result ? "(accepted)" : result.error().message;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(config_errors_test)

BOOST_AUTO_TEST_CASE(each_error_class_has_its_exact_message) {
  // The hint names the default endpoint (Azure's IMDS address); taken from the config, so that no test names
  // an address beyond loopback.
  const std::string endpoint_hint = "(expected http://host[:port], e.g. " + cla::ImdsConfig{}.endpoint + ")";
  const std::pair<std::string_view, std::string> cases[] = {
      {"", "config error: t.json: -: file is empty (expected a JSON object, e.g. {})"},
      {"{\n  \"imds\": {\"poll_interval_ms\": 1000,}\n}",
       "config error: t.json: -: invalid JSON at line 2, column 37: syntax error"},
      {"{\"node\": {\"resource_name\": \"é\" x}}",
       "config error: t.json: -: invalid JSON at line 1, column 32: syntax error"},
      {"{\"imds\": {", "config error: t.json: -: invalid JSON at line 1, column 11: incomplete JSON"},
      {"{} x", "config error: t.json: -: invalid JSON at line 1, column 4: extra data"},
      {"[]", "config error: t.json: -: expected object, got array"},
      {R"({"imds": {"endpont": "http://127.0.0.1"}})",
       "config error: t.json: imds.endpont: unknown key; did you mean imds.endpoint?"},
      {R"({"polcy": {}})", "config error: t.json: polcy: unknown key; did you mean policy?"},
      {R"({"zzz": 1})",
       "config error: t.json: zzz: unknown key; expected one of: imds, node, cassandra, topology, policy, "
       "hooks, "
       "state_file, log, http, coordination"},
      {"{\"a\\nb\": 1}",
       "config error: t.json: a\\x0ab: unknown key; expected one of: imds, node, cassandra, topology, "
       "policy, "
       "hooks, state_file, log, http, coordination"},
      {R"({"imds": 5})", "config error: t.json: imds: expected object, got integer 5"},
      {R"({"imds": {"poll_interval_ms": "1000"}})",
       "config error: t.json: imds.poll_interval_ms: expected integer, got string \"1000\""},
      {R"({"imds": {"poll_interval_ms": 1000.5}})",
       "config error: t.json: imds.poll_interval_ms: expected integer, got number 1.0005E3"},
      {R"({"policy": {"approve_user_events": "yes"}})",
       "config error: t.json: policy.approve_user_events: expected boolean (true or false), got string "
       "\"yes\""},
      {R"({"imds": {"endpoint": null}})", "config error: t.json: imds.endpoint: expected string, got null"},
      {R"({"imds": {"poll_interval_ms": 99}})",
       "config error: t.json: imds.poll_interval_ms: must be between 100 and 60000, got 99"},
      {R"({"imds": {"poll_interval_ms": 18446744073709551615}})",
       "config error: t.json: imds.poll_interval_ms: must be between 100 and 60000, got "
       "18446744073709551615"},
      {R"({"imds": {"request_timeout_ms": 120001}})",
       "config error: t.json: imds.request_timeout_ms: must be between 100 and 120000, got 120001"},
      {R"({"policy": {"drain_lead_s": 3601}})",
       "config error: t.json: policy.drain_lead_s: must be between 0 and 3600, got 3601"},
      {R"({"policy": {"unsafe_drain_lead_s": -1}})",
       "config error: t.json: policy.unsafe_drain_lead_s: must be between 0 and 3600, got -1"},
      {R"({"policy": {"drain_lead_s": 5}})",
       "config error: t.json: policy.unsafe_drain_lead_s: must not exceed policy.drain_lead_s (10 > 5): the "
       "forced "
       "drain cannot come before the normal one"},
      {R"({"policy": {"unsafe_recheck_s": 0}})",
       "config error: t.json: policy.unsafe_recheck_s: must be between 1 and 300, got 0"},
      {R"({"policy": {"unsafe_recheck_s": 301}})",
       "config error: t.json: policy.unsafe_recheck_s: must be between 1 and 300, got 301"},
      {R"({"policy": {"catch_up_min_s": 601}})",
       "config error: t.json: policy.catch_up_min_s: must be between 0 and 600, got 601"},
      {R"({"policy": {"catch_up_max_s": -1}})",
       "config error: t.json: policy.catch_up_max_s: must be between 0 and 86400, got -1"},
      {R"({"policy": {"no_impact_freeze_max_s": 3601}})",
       "config error: t.json: policy.no_impact_freeze_max_s: must be between 0 and 3600, got 3601"},
      {R"({"policy": {"hold_between_events_s": -1}})",
       "config error: t.json: policy.hold_between_events_s: must be between 0 and 3600, got -1"},
      {R"({"topology": {"replication_factor": 10}})",
       "config error: t.json: topology.replication_factor: must be between 1 and 9, got 10"},
      {R"({"topology": {"consistency": "local_quorum"}})",
       "config error: t.json: topology.consistency: must be one of LOCAL_QUORUM, QUORUM, EACH_QUORUM, "
       "LOCAL_ONE, ONE; got string \"local_quorum\""},
      {R"({"topology": {"consistency": "ALL"}})",
       "config error: t.json: topology.consistency: must be one of LOCAL_QUORUM, QUORUM, EACH_QUORUM, "
       "LOCAL_ONE, ONE; got string \"ALL\""},
      {R"({"topology": {"consistency": 2}})",
       "config error: t.json: topology.consistency: expected string, got integer 2"},
      {R"({"topology": {"schema_refresh_s": 9}})",
       "config error: t.json: topology.schema_refresh_s: must be between 10 and 86400, got 9"},
      {R"({"topology": {"schema_refresh_s": 86401}})",
       "config error: t.json: topology.schema_refresh_s: must be between 10 and 86400, got 86401"},
      {R"({"cassandra": {"command_timeout_s": 0}})",
       "config error: t.json: cassandra.command_timeout_s: must be between 1 and 3600, got 0"},
      {R"({"topology": {"fault_domain_racks": {"0": "rack1", "x": "rack2"}}})",
       "config error: t.json: topology.fault_domain_racks.x: is not a fault-domain number (a non-negative "
       "integer "
       "such as \"0\")"},
      {R"({"topology": {"fault_domain_racks": {"01": "rack1"}}})",
       "config error: t.json: topology.fault_domain_racks.01: is not a fault-domain number (a non-negative "
       "integer such as \"0\")"},
      {R"({"topology": {"fault_domain_racks": {"0": ""}}})",
       "config error: t.json: topology.fault_domain_racks.0: rack name must not be empty"},
      {R"({"topology": {"fault_domain_racks": {"0": 1}}})",
       "config error: t.json: topology.fault_domain_racks.0: expected string (a rack name), got integer 1"},
      {R"({"topology": {"fault_domain_racks": {}}})",
       "config error: t.json: topology.fault_domain_racks: must map at least one fault domain to a rack, "
       "e.g. "
       "{\"0\": \"rack1\"}"},
      {R"({"topology": {"rack_source": "zones"}})",
       "config error: t.json: topology.rack_source: must be fault_domain or zone; got string \"zones\""},
      {R"({"topology": {"rack_source": "zone"}})",
       "config error: t.json: topology.zone_racks: must map the VMs' availability zones to racks when "
       "topology.rack_source is zone, e.g. {\"1\": \"rack1\", \"2\": \"rack2\", \"3\": \"rack3\"}"},
      {R"({"topology": {"zone_racks": {"1": ""}}})",
       "config error: t.json: topology.zone_racks.1: rack name must not be empty"},
      {R"({"imds": {"endpoint": "https://127.0.0.1"}})",
       "config error: t.json: imds.endpoint: endpoint \"https://127.0.0.1\": the scheme must be http " +
           endpoint_hint},
      {R"({"imds": {"endpoint": "127.0.0.1"}})",
       "config error: t.json: imds.endpoint: endpoint \"127.0.0.1\": not a URL like "
       "http://127.0.0.1:8080 " +
           endpoint_hint},
      {R"({"imds": {"endpoint": "http://127.0.0.1:8080/metadata"}})",
       "config error: t.json: imds.endpoint: endpoint \"http://127.0.0.1:8080/metadata\": no path allowed "
       "(the client adds /metadata/...) " +
           endpoint_hint},
      {R"({"imds": {"endpoint": "http://127.0.0.1:70000"}})",
       "config error: t.json: imds.endpoint: endpoint \"http://127.0.0.1:70000\": the port must be "
       "1..65535 " +
           endpoint_hint},
      {R"({"imds": {"api_version": "2017-08-01"}})",
       "config error: t.json: imds.api_version: must be 2019-08-01 or later (earlier versions lack "
       "EventSource)"},
      {R"({"cassandra": {"nodetool": []}})",
       "config error: t.json: cassandra.nodetool: must not be empty: give the program and its arguments, "
       "e.g. "
       "[\"nodetool\"]"},
      {R"({"cassandra": {"nodetool": ["nodetool", ""]}})",
       "config error: t.json: cassandra.nodetool[1]: must not be an empty string"},
      {R"({"cassandra": {"nodetool": "nodetool -h 127.0.0.1"}})",
       "config error: t.json: cassandra.nodetool: expected array of strings (an argv), got string \"nodetool "
       "-h "
       "127.0.0.1\""},
      {R"({"hooks": {"notify": [7]}})",
       "config error: t.json: hooks.notify[0]: expected string, got integer 7"},
      {R"({"node": {"fault_domain": -2}})",
       "config error: t.json: node.fault_domain: must be -1 (discover it from IMDS) or a fault-domain number "
       "(0 or "
       "more), got -2"},
      {R"({"node": {"fault_domain": 3}})",
       "config error: t.json: node.fault_domain: fault domain 3 has no rack in topology.fault_domain_racks "
       "(it "
       "maps 0, 1, 2)"},
      {R"({"log": {"level": "verbose"}})",
       "config error: t.json: log.level: must be one of debug, info, warning, error; got string \"verbose\""},
      {R"({"http": {"listen": "localhost:9137"}})",
       "config error: t.json: http.listen: host must be an IP address, got \"localhost\" (expected IPV4:PORT "
       "or [IPV6]:PORT, e.g. 127.0.0.1:9137, or \"\" to disable)"},
      {R"({"state_file": ""})", "config error: t.json: state_file: must not be empty"},
      {R"({"log": {"file": "/var/log/cla/"}})",
       "config error: t.json: log.file: names a directory (ends with /); give a file path"},
      {R"({"coordination": {"etcd_endpoint": []}})",
       "config error: t.json: coordination.etcd_endpoint: unknown key; did you mean "
       "coordination.etcd_endpoints?"},
      {R"({"coordination": {"etcd_endpoints": "http://127.0.0.1:2379"}})",
       "config error: t.json: coordination.etcd_endpoints: expected array of etcd client URLs, got string "
       "\"http://127.0.0.1:2379\""},
      {R"({"coordination": {"etcd_endpoints": ["https://10.0.0.5:2379"], "cluster": "c"}})",
       "config error: t.json: coordination.tls.ca_file: is required with an https:// endpoint "
       "(https://10.0.0.5:2379): the CA file that etcd's server certificate chains to"},
      {R"({"coordination": {"etcd_endpoints": ["http://10.0.0.5"], "cluster": "c"}})",
       "config error: t.json: coordination.etcd_endpoints[0]: etcd endpoint \"http://10.0.0.5\": the port is "
       "required, e.g. http://10.0.0.5:2379"},
      {R"({"coordination": {"etcd_endpoints": ["http://10.0.0.5:2379/v3"], "cluster": "c"}})",
       "config error: t.json: coordination.etcd_endpoints[0]: etcd endpoint \"http://10.0.0.5:2379/v3\": no "
       "path "
       "allowed (the client adds /v3/...)"},
      {R"({"coordination": {"etcd_endpoints": ["http://u:p@10.0.0.5:2379"], "cluster": "c"}})",
       "config error: t.json: coordination.etcd_endpoints[0]: etcd endpoint \"http://u:p@10.0.0.5:2379\": "
       "user "
       "info is not allowed (use coordination.username and coordination.password_file)"},
      {R"({"coordination": {"etcd_endpoints": ["http://a:1", "http://a:1"], "cluster": "c"}})",
       "config error: t.json: coordination.etcd_endpoints[1]: is listed twice"},
      {R"({"coordination": {"etcd_endpoints": ["http://127.0.0.1:2379"]}})",
       "config error: t.json: coordination.cluster: is required when coordination.etcd_endpoints is set: it "
       "names the Cassandra cluster whose agents coordinate (keys live under "
       "/cassandra-lifecycle-agent/<cluster>/)"},
      {R"({"coordination": {"cluster": "Test Cluster"}})",
       "config error: t.json: coordination.cluster: must be a key segment of letters, digits, '.', '_' and "
       "'-' "
       "(at most 128), e.g. \"prod-cass-01\"; got \"Test Cluster\""},
      {R"({"coordination": {"cluster": ".."}})",
       "config error: t.json: coordination.cluster: must be a key segment of letters, digits, '.', '_' and "
       "'-' "
       "(at most 128), e.g. \"prod-cass-01\"; got \"..\""},
      {R"({"coordination": {"lease_ttl_s": 4}})",
       "config error: t.json: coordination.lease_ttl_s: must be between 5 and 300, got 4"},
      {R"({"coordination": {"lease_ttl_s": 301}})",
       "config error: t.json: coordination.lease_ttl_s: must be between 5 and 300, got 301"},
      {R"({"coordination": {"on_unavailable": "wait"}})",
       "config error: t.json: coordination.on_unavailable: must be \"local_gate\" (drain on the nodetool "
       "gate "
       "alone) or \"hold\" (no platform drain before the forced instant); got string \"wait\""},
      {R"({"coordination": {"username": "agent"}})",
       "config error: t.json: coordination.password_file: is required with coordination.username"},
      {R"({"coordination": {"password_file": "/etc/cla/etcd.pw"}})",
       "config error: t.json: coordination.username: is required with coordination.password_file"},
      {R"({"coordination": {"username": "agent", "password_file": "/nonexistent/cla/etcd.pw"}})",
       "config error: t.json: coordination.password_file: /nonexistent/cla/etcd.pw: cannot read: No such "
       "file or "
       "directory"},
  };
  for (const auto& [text, message] : cases)
    BOOST_TEST(error_of(text) == message, "input: " << text << "\n got: " << error_of(text));
}

BOOST_AUTO_TEST_CASE(the_first_error_in_file_order_is_reported) {
  BOOST_TEST(
      error_of(R"({"log": {"level": "loud"}, "imds": {"poll_interval_ms": 1}})") ==
      "config error: t.json: log.level: must be one of debug, info, warning, error; got string \"loud\"");
}

BOOST_AUTO_TEST_SUITE_END()
