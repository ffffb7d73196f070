// The requests the Jolokia backend POSTs: their JSON, and the calls of each read and step.
#include "cassandra/jolokia/jolokia_requests.hpp"

#include <boost/json/serialize.hpp>

namespace cla {
namespace {

namespace json = boost::json;

JolokiaCall read(std::string_view mbean, std::vector<std::string> attributes) {
  return {JolokiaCall::Type::read, std::string(mbean), std::move(attributes), {}, {}};
}

JolokiaCall exec(std::string_view mbean, std::string operation, json::array arguments = {}) {
  return {JolokiaCall::Type::exec, std::string(mbean), {}, std::move(operation), std::move(arguments)};
}

json::object to_json(const JolokiaCall& call) {
  json::object request{{"mbean", call.mbean},
                       {"config", {{"includeRequest", false}, {"includeStackTrace", false}}}};
  if (call.type == JolokiaCall::Type::read) {
    request["type"] = "read";
    json::array attributes;
    for (const auto& a : call.attributes) attributes.emplace_back(a);
    request["attribute"] = std::move(attributes);
  } else {
    request["type"] = "exec";
    request["operation"] = call.operation;
    request["arguments"] = call.arguments;
  }
  return request;
}

std::vector<std::string> with_liveness(std::vector<std::string> attributes) {
  for (const char* set : {"LiveNodesWithPort", "UnreachableNodesWithPort", "JoiningNodesWithPort",
                          "LeavingNodesWithPort", "MovingNodesWithPort"})
    attributes.emplace_back(set);
  return attributes;
}

}  // namespace

std::string describe(const JolokiaCall& call) {
  std::string text = call.type == JolokiaCall::Type::read ? "read " : "exec ";
  text += call.mbean;
  if (call.type == JolokiaCall::Type::read) {
    text += " [";
    for (std::size_t i = 0; i < call.attributes.size(); ++i) text += (i ? ", " : "") + call.attributes[i];
    return text + "]";
  }
  text += " " + call.operation;
  if (!call.arguments.empty()) text += " " + json::serialize(call.arguments);
  return text;
}

std::string request_body(std::span<const JolokiaCall> calls) {
  if (calls.size() == 1) return json::serialize(to_json(calls.front()));
  json::array bulk;
  for (const auto& call : calls) bulk.emplace_back(to_json(call));
  return json::serialize(bulk);
}

std::vector<JolokiaCall> ring_view_calls() {
  return {read(mbean::kStorageService,
               with_liveness({"LoadMapWithPort", "TokenToEndpointWithPortMap", "EndpointWithPortToHostId"}))};
}

std::vector<JolokiaCall> places_calls(std::span<const std::string> endpoints) {
  std::vector<JolokiaCall> calls;
  for (const auto& endpoint : endpoints) {
    calls.push_back(exec(mbean::kEndpointSnitchInfo, "getDatacenter(java.lang.String)", {endpoint}));
    calls.push_back(exec(mbean::kEndpointSnitchInfo, "getRack(java.lang.String)", {endpoint}));
  }
  return calls;
}

std::vector<JolokiaCall> info_calls() {
  return {read(mbean::kStorageService, {"LocalHostId", "GossipRunning", "NativeTransportRunning"}),
          read(mbean::kEndpointSnitchInfo, {"Datacenter", "Rack"})};
}

std::vector<JolokiaCall> running_calls() {
  return {read(mbean::kStorageService, {"GossipRunning", "NativeTransportRunning", "OperationMode"})};
}

std::vector<JolokiaCall> stages_calls() {
  std::vector<JolokiaCall> calls;
  for (const char* stage : {"ReadStage", "MutationStage", "CounterMutationStage"})
    calls.push_back(read("org.apache.cassandra.metrics:type=ThreadPools,path=request,scope=" +
                             std::string(stage) + ",name=CompletedTasks",
                         {"Value"}));
  return calls;
}

std::vector<JolokiaCall> jvm_arguments_calls() {
  return {read(mbean::kRuntime, {"InputArguments"})};
}

std::vector<JolokiaCall> pending_hints_calls() {
  return {read(mbean::kHintsService, {"PendingHints"}), read(mbean::kHintsServiceMetrics, {"Count"}),
          read(mbean::kStorageService, {"EndpointWithPortToHostId"})};
}

std::vector<JolokiaCall> max_hint_window_calls() {
  return {read(mbean::kStorageProxy, {"MaxHintWindow"})};
}

std::vector<JolokiaCall> describe_calls() {
  return {read(mbean::kStorageService,
               with_liveness({"ClusterName", "PartitionerName", "Keyspaces", "TokenToEndpointWithPortMap"})),
          read(mbean::kEndpointSnitchInfo, {"SnitchName"}),
          read(mbean::kDynamicEndpointSnitch, {"SubsnitchClassName"}),
          read(mbean::kStorageProxy, {"SchemaVersionsWithPort"}),
          read(mbean::kGossiper, {"ReleaseVersionsWithPort"})};
}

std::vector<JolokiaCall> replication_calls(std::span<const std::string> keyspaces) {
  std::vector<JolokiaCall> calls;
  for (const auto& keyspace : keyspaces)
    calls.push_back(exec(mbean::kStorageService, "getKeyspaceReplicationInfo(java.lang.String)", {keyspace}));
  return calls;
}

std::string_view to_string(JolokiaStep step) {
  switch (step) {
    case JolokiaStep::stop_native_transport:
      return "disablebinary";
    case JolokiaStep::stop_gossiping:
      return "disablegossip";
    case JolokiaStep::drain:
      return "drain";
    case JolokiaStep::start_gossiping:
      return "enablegossip";
    case JolokiaStep::start_native_transport:
      return "enablebinary";
  }
  return "unknown";
}

JolokiaCall step_call(JolokiaStep step) {
  switch (step) {
    case JolokiaStep::stop_native_transport:  // 5.0 also has a deprecated stopNativeTransport()
      return exec(mbean::kStorageService, "stopNativeTransport(boolean)", {false});
    case JolokiaStep::stop_gossiping:
      return exec(mbean::kStorageService, "stopGossiping");
    case JolokiaStep::drain:
      return exec(mbean::kStorageService, "drain");
    case JolokiaStep::start_gossiping:
      return exec(mbean::kStorageService, "startGossiping");
    case JolokiaStep::start_native_transport:
      return exec(mbean::kStorageService, "startNativeTransport");
  }
  return exec(mbean::kStorageService, "unknown");
}

}  // namespace cla
