// Config loading: defaults, object replacement, the JSON round trip, accepted boundaries, file reading.
#include "agent/config/config.hpp"

#include <unistd.h>

#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "tests/support/temp_dir.hpp"

namespace {

using namespace std::chrono_literals;

// SPEC 2.3's document with SPEC 9's coordination section, verbatim but for imds.endpoint, which tests set
// to the emulator's loopback address: every other default. The endpoint's default is asserted on its own
// (empty_object_gives_every_spec_default).
constexpr std::string_view kTestEndpoint = "http://127.0.0.1:8080";
constexpr std::string_view kSpecDefaults = R"({
  "imds": {
    "endpoint": "http://127.0.0.1:8080",
    "api_version": "2020-07-01",
    "poll_interval_ms": 1000,
    "request_timeout_ms": 5000
  },
  "node": {
    "resource_name": "",
    "fault_domain": -1
  },
  "cassandra": {
    "nodetool": ["nodetool"],
    "command_timeout_s": 120,
    "restart_command": [],
    "backend": "nodetool",
    "jolokia": { "url": "http://127.0.0.1:8778/jolokia", "username": "", "password_file": "",
                 "tls": { "ca_file": "", "cert_file": "", "key_file": "", "server_name": "" } }
  },
  "topology": {
    "replication_factor": 3,
    "consistency": "LOCAL_QUORUM",
    "schema_refresh_s": 300,
    "rack_source": "fault_domain",
    "fault_domain_racks": { "0": "rack1", "1": "rack2", "2": "rack3" },
    "zone_racks": {}
  },
  "policy": {
    "drain_lead_s": 30,
    "unsafe_drain_lead_s": 10,
    "unsafe_recheck_s": 5,
    "no_impact_freeze_max_s": 0,
    "hold_between_events_s": 120,
    "approve_user_events": true,
    "approve_shared_events": false,
    "flush_before_restart": true,
    "quiet_s": 2,
    "catch_up_min_s": 30,
    "catch_up_max_s": 1800
  },
  "hooks": { "notify": [] },
  "state_file": "/var/lib/cassandra-lifecycle-agent/state.json",
  "log": { "file": "/var/log/cassandra-lifecycle-agent/agent.jsonl", "level": "info" },
  "http": { "listen": "127.0.0.1:9137" },
  "coordination": {
    "etcd_endpoints": [],
    "cluster": "",
    "lease_ttl_s": 15,
    "username": "",
    "password_file": "",
    "on_unavailable": "local_gate",
    "tls": { "ca_file": "", "cert_file": "", "key_file": "", "server_name": "" }
  }
})";

template <class T>
std::string why(const cla::Result<T>& result) {
  return result ? std::string() : result.error().message;
}

std::string error_of(std::string_view json_text) {
  auto result = cla::parse_config(json_text, "t.json");
  return result ? "(accepted)" : result.error().message;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(config_test)

BOOST_AUTO_TEST_CASE(empty_object_gives_every_spec_default) {
  auto config = cla::parse_config("{}", "t.json");
  BOOST_TEST_REQUIRE(config.ok(), why(config));
  const cla::Config& c = *config;
  BOOST_TEST(c.imds.endpoint == "http://169.254.169.254");
  BOOST_TEST(c.imds.api_version == "2020-07-01");
  BOOST_TEST(c.imds.poll_interval_ms.count() == 1000);
  BOOST_TEST(c.imds.request_timeout_ms.count() == 5000);
  BOOST_TEST(c.node.resource_name == "");
  BOOST_TEST(c.node.fault_domain == -1);
  BOOST_TEST(c.cassandra.nodetool == std::vector<std::string>{"nodetool"});
  BOOST_TEST(c.cassandra.command_timeout_s.count() == 120);
  BOOST_TEST(c.cassandra.restart_command.empty());
  BOOST_TEST(c.topology.replication_factor == 3);
  BOOST_TEST((c.topology.consistency == cla::Consistency::local_quorum));
  BOOST_TEST(c.topology.schema_refresh_s.count() == 300);
  BOOST_TEST((c.topology.fault_domain_racks ==
              std::map<int, std::string>{{0, "rack1"}, {1, "rack2"}, {2, "rack3"}}));
  BOOST_TEST(c.policy.drain_lead_s.count() == 30);
  BOOST_TEST(c.policy.unsafe_drain_lead_s.count() == 10);
  BOOST_TEST(c.policy.unsafe_recheck_s.count() == 5);
  BOOST_TEST(c.policy.no_impact_freeze_max_s.count() == 0);
  BOOST_TEST(c.policy.hold_between_events_s.count() == 120);
  BOOST_TEST(c.policy.approve_user_events);
  BOOST_TEST(!c.policy.approve_shared_events);
  BOOST_TEST(c.policy.flush_before_restart);
  BOOST_TEST(c.policy.quiet_s.count() == 2);
  BOOST_TEST(c.policy.catch_up_min_s.count() == 30);
  BOOST_TEST(c.policy.catch_up_max_s.count() == 1800);
  BOOST_TEST(c.hooks.notify.empty());
  BOOST_TEST(c.state_file == "/var/lib/cassandra-lifecycle-agent/state.json");
  BOOST_TEST(c.log.file == "/var/log/cassandra-lifecycle-agent/agent.jsonl");
  BOOST_TEST((c.log.level == cla::LogLevel::info));
  BOOST_TEST(c.http.listen == "127.0.0.1:9137");
  BOOST_TEST(c.coordination.etcd_endpoints.empty());
  BOOST_TEST(!c.coordination.enabled());
  BOOST_TEST(c.coordination.cluster == "");
  BOOST_TEST(c.coordination.lease_ttl_s.count() == 15);
  BOOST_TEST(c.coordination.username == "");
  BOOST_TEST(c.coordination.password_file == "");
  BOOST_TEST((c.coordination.on_unavailable == cla::OnUnavailable::local_gate));
}

BOOST_AUTO_TEST_CASE(spec_document_is_the_default_config_both_ways) {
  cla::Config defaults;
  defaults.imds.endpoint = kTestEndpoint;
  auto parsed = cla::parse_config(kSpecDefaults, "spec.json");
  BOOST_TEST_REQUIRE(parsed.ok(), why(parsed));
  BOOST_TEST((*parsed == defaults));
  // Same keys in the same order as SPEC 2.3 and 9.
  BOOST_TEST(boost::json::serialize(cla::config_to_json(defaults)) ==
             boost::json::serialize(boost::json::parse(kSpecDefaults)));
}

BOOST_AUTO_TEST_CASE(minimal_file_sets_its_keys_and_keeps_the_other_defaults) {
  auto config = cla::parse_config(
      R"({"node": {"resource_name": "cass-vm-1"}, "imds": {"poll_interval_ms": 500}})", "t.json");
  BOOST_TEST_REQUIRE(config.ok(), why(config));
  cla::Config expected;
  expected.node.resource_name = "cass-vm-1";
  expected.imds.poll_interval_ms = 500ms;
  BOOST_TEST((*config == expected));
}

BOOST_AUTO_TEST_CASE(object_values_replace_the_default_whole) {
  auto config = cla::parse_config(
      R"({"topology": {"fault_domain_racks": {"4": "rackE"}}, "node": {"fault_domain": 4},
          "cassandra": {"nodetool": ["nodetool", "-h", "127.0.0.1"]}})",
      "t.json");
  BOOST_TEST_REQUIRE(config.ok(), why(config));
  BOOST_TEST((config->topology.fault_domain_racks == std::map<int, std::string>{{4, "rackE"}}));
  BOOST_TEST((config->cassandra.nodetool == std::vector<std::string>{"nodetool", "-h", "127.0.0.1"}));
}

// SPEC 2.3 topology.rack_source zone: the rack comes from the VM's availability zone through zone_racks.
BOOST_AUTO_TEST_CASE(rack_source_zone_maps_the_zone_to_the_rack) {
  auto config = cla::parse_config(
      R"({"topology": {"rack_source": "zone", "zone_racks": {"1": "rack1", "2": "rack2", "3": "rack3"}}})",
      "t.json");
  BOOST_TEST_REQUIRE(config.ok(), why(config));
  BOOST_TEST((config->topology.rack_source == cla::RackSource::zone));
  BOOST_TEST(config->topology.rack_for(0, "2") == "rack2", "the zone decides, not the fault domain");
  BOOST_TEST(config->topology.rack_for(0, "") == "", "a VM outside zones maps to no rack");
  cla::Config defaults;
  BOOST_TEST(defaults.topology.rack_for(1, "3") == "rack2", "by default the fault domain decides");
}

BOOST_AUTO_TEST_CASE(config_to_json_round_trips_a_non_default_config) {
  cla::Config c;
  c.imds.endpoint = "http://[::1]:8080";
  c.imds.poll_interval_ms = 250ms;
  c.imds.request_timeout_ms = 120000ms;
  c.node = {"vm-7", 1};
  c.cassandra.nodetool = {"nodetool-sim", "--cluster", "/tmp/c.json"};
  c.cassandra.command_timeout_s = 5s;
  c.cassandra.restart_command = {"systemctl", "restart", "cassandra"};
  c.topology = {5,
                cla::Consistency::each_quorum,
                45s,
                cla::RackSource::zone,
                {{0, "r1"}, {1, "r2"}, {10, "r11"}},
                {{"1", "z1"}, {"2", "z2"}}};
  c.policy = {60s, 60s, 17s, 0s, 30s, false, true, false, 7s};
  c.hooks.notify = {"/usr/local/bin/notify", "--to", "ops"};
  c.state_file = "state/s.json";
  c.log = {"agent.jsonl", cla::LogLevel::warning};
  c.http.listen = "";
  c.coordination.etcd_endpoints = {"http://127.0.0.1:2379", "http://etcd-1.example:2379"};
  c.coordination.cluster = "prod-cass-01";
  c.coordination.lease_ttl_s = 300s;
  c.coordination.on_unavailable = cla::OnUnavailable::hold;
  auto back = cla::parse_config(boost::json::serialize(cla::config_to_json(c)), "t.json");
  BOOST_TEST_REQUIRE(back.ok(), why(back));
  BOOST_TEST((*back == c));
}

BOOST_AUTO_TEST_CASE(boundary_values_are_accepted) {
  for (const char* text : {
           R"({"imds": {"poll_interval_ms": 100, "request_timeout_ms": 100}})",
           R"({"imds": {"poll_interval_ms": 60000, "request_timeout_ms": 120000}})",
           R"({"policy": {"drain_lead_s": 0, "unsafe_drain_lead_s": 0, "no_impact_freeze_max_s": 0,
                         "hold_between_events_s": 0, "unsafe_recheck_s": 1}})",
           R"({"policy": {"drain_lead_s": 3600, "unsafe_drain_lead_s": 3600, "no_impact_freeze_max_s": 3600,
                         "hold_between_events_s": 3600, "unsafe_recheck_s": 300}})",
           R"({"policy": {"quiet_s": 0, "catch_up_min_s": 0, "catch_up_max_s": 0}})",
           R"({"policy": {"quiet_s": 60, "catch_up_min_s": 600, "catch_up_max_s": 86400}})",
           R"({"topology": {"replication_factor": 1, "schema_refresh_s": 10},
               "cassandra": {"command_timeout_s": 1}})",
           R"({"topology": {"replication_factor": 9, "schema_refresh_s": 86400},
               "cassandra": {"command_timeout_s": 3600}})",
           R"({"topology": {"consistency": "QUORUM"}})",
           R"({"topology": {"consistency": "EACH_QUORUM"}})",
           R"({"topology": {"consistency": "LOCAL_ONE"}})",
           R"({"topology": {"consistency": "ONE"}})",
           R"({"node": {"fault_domain": 2}, "http": {"listen": "[::1]:9137"}, "log": {"level": "debug"}})",
           R"({"imds": {"endpoint": "http://127.0.0.1:8080/", "api_version": "2019-08-01"}})",
           R"({"imds": {"endpoint": "HTTP://localhost:65535"}, "http": {"listen": "0.0.0.0:1"}})",
           R"({"coordination": {"etcd_endpoints": ["http://[::1]:1"], "cluster": "a", "lease_ttl_s": 5}})",
           R"({"coordination": {"etcd_endpoints": ["HTTP://etcd.local:65535/"], "cluster": "A_b-1.x",
              "lease_ttl_s": 300, "on_unavailable": "hold"}})",
           R"({"coordination": {"cluster": "c"}})",
       })
    BOOST_TEST(error_of(text) == "(accepted)", text);
}

// One row per error class: the file's text and the exact one-line message.
BOOST_AUTO_TEST_CASE(load_config_reads_a_file_and_names_it_in_errors) {
  cla::test::TempDir dir("cla-config");
  const auto good = (dir.path / "good.json").string();
  std::ofstream(good) << R"({"node": {"resource_name": "vm0"}})";
  auto config = cla::load_config(good);
  BOOST_TEST_REQUIRE(config.ok(), why(config));
  BOOST_TEST(config->node.resource_name == "vm0");

  const auto bad = (dir.path / "bad.json").string();
  std::ofstream(bad) << R"({"imds": {"endpont": "x"}})";
  BOOST_TEST(cla::load_config(bad).error().message ==
             "config error: " + bad + ": imds.endpont: unknown key; did you mean imds.endpoint?");

  const auto missing = (dir.path / "missing.json").string();
  BOOST_TEST(cla::load_config(missing).error().message ==
             "config error: " + missing + ": -: cannot read file: No such file or directory");
  BOOST_TEST(cla::load_config(dir.path.string()).error().message ==
             "config error: " + dir.path.string() + ": -: cannot read file: Is a directory");
}

BOOST_AUTO_TEST_SUITE_END()
