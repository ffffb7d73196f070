// The requests the Jolokia backend POSTs to Cassandra's Jolokia JVM agent (SPEC 8.1), as Cassandra 5.0's
// MBeans name them: a bulk request for each round of a read, one request for each step. Pure.
#pragma once

#include <boost/json/value.hpp>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace cla {

namespace mbean {
inline constexpr std::string_view kStorageService = "org.apache.cassandra.db:type=StorageService";
inline constexpr std::string_view kEndpointSnitchInfo = "org.apache.cassandra.db:type=EndpointSnitchInfo";
inline constexpr std::string_view kDynamicEndpointSnitch =
    "org.apache.cassandra.db:type=DynamicEndpointSnitch";
inline constexpr std::string_view kStorageProxy = "org.apache.cassandra.db:type=StorageProxy";
inline constexpr std::string_view kGossiper = "org.apache.cassandra.net:type=Gossiper";
inline constexpr std::string_view kRuntime = "java.lang:type=Runtime";
inline constexpr std::string_view kHintsService = "org.apache.cassandra.hints:type=HintsService";
// Every metric of the HintsService (a pattern: one value per MBean), among them per peer
// Hints_created-<address> (a Counter) and Hint_delays-<address> (a Histogram, one update per hint delivered).
inline constexpr std::string_view kHintsServiceMetrics =
    "org.apache.cassandra.metrics:type=HintsService,name=*";
}  // namespace mbean

// One Jolokia request: a read of attributes of one MBean (always as a list, so that the value is an object
// keyed by attribute, even for one), or an exec of one operation, named with its signature where the agent
// sends one (an overloaded operation needs it, and the policy then allows exactly that form).
struct JolokiaCall {
  enum class Type { read, exec };
  Type type = Type::read;
  std::string mbean;
  std::vector<std::string> attributes;  // read
  std::string operation;                // exec: "stopNativeTransport(boolean)", "drain"
  boost::json::array arguments;         // exec
  friend bool operator==(const JolokiaCall&, const JolokiaCall&) = default;
};

// For messages: "read org.apache.cassandra.db:type=StorageService [LiveNodesWithPort, ...]",
// "exec org.apache.cassandra.db:type=EndpointSnitchInfo getRack(java.lang.String) [\"127.0.0.2:7000\"]".
std::string describe(const JolokiaCall& call);

// The POST body: a single request as an object, several as a bulk array. Each asks the agent not to echo the
// request back (answers are matched by position, as Jolokia keeps the order) nor to add stack traces to
// errors, and leaves ignoreErrors off: with it, a failed attribute of a read comes back as its error's text
// in place of the value, which a String attribute (a host id, a rack) cannot be told apart from.
std::string request_body(std::span<const JolokiaCall> calls);

// ---- the reads: each list's order is the order its reader (jolokia_reads.hpp) expects the answers in ----

// What `nodetool status` and `ring` read first: StorageService's liveness sets (the *WithPort forms 4.0
// added: "127.0.0.1:7000"), LoadMapWithPort, TokenToEndpointWithPortMap and EndpointWithPortToHostId, in one
// read.
std::vector<JolokiaCall> ring_view_calls();

// The snitch's DC and rack of each endpoint ("host:port"): getDatacenter and getRack, two execs an endpoint,
// in the endpoints' order (as nodetool asks EndpointSnitchInfo for each).
std::vector<JolokiaCall> places_calls(std::span<const std::string> endpoints);

// `nodetool info`'s part that the agent reads: StorageService's LocalHostId, GossipRunning and
// NativeTransportRunning, and the snitch's own Datacenter and Rack.
std::vector<JolokiaCall> info_calls();

// `statusgossip` and `statusbinary` in one read, with OperationMode (NORMAL, DRAINING, DRAINED, ...).
std::vector<JolokiaCall> running_calls();

// `nodetool tpstats`' part that the agent reads (SPEC 3.10): the CompletedTasks gauge of ReadStage,
// MutationStage and CounterMutationStage (org.apache.cassandra.metrics:type=ThreadPools,path=request,...), in
// that order.
std::vector<JolokiaCall> stages_calls();

// The JVM's arguments (java.lang:type=Runtime InputArguments): where -Dcassandra.shutdown_announce_in_ms is.
std::vector<JolokiaCall> jvm_arguments_calls();
// SPEC 3.10: the hints this node holds per target host, and the hint window.
std::vector<JolokiaCall> pending_hints_calls();
std::vector<JolokiaCall> max_hint_window_calls();

// `nodetool describecluster`'s first round: StorageService's ClusterName, PartitionerName, Keyspaces, the
// liveness sets and the token map; the snitch's SnitchName and, for a dynamic snitch, the
// DynamicEndpointSnitch's SubsnitchClassName; StorageProxy's SchemaVersionsWithPort; Gossiper's
// ReleaseVersionsWithPort.
std::vector<JolokiaCall> describe_calls();

// Its second round: getKeyspaceReplicationInfo of each keyspace, in the order given.
std::vector<JolokiaCall> replication_calls(std::span<const std::string> keyspaces);

// ---- the steps ----

enum class JolokiaStep {
  stop_native_transport,   // nodetool disablebinary: stopNativeTransport(boolean) with false (no -f)
  stop_gossiping,          // nodetool disablegossip
  drain,                   // nodetool drain
  start_gossiping,         // nodetool enablegossip
  start_native_transport,  // nodetool enablebinary
};
std::string_view to_string(JolokiaStep step);  // the nodetool subcommand it replaces
JolokiaCall step_call(JolokiaStep step);

}  // namespace cla
