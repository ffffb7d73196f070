// `nodetool describecluster` from its MBeans, as 5.0's DescribeCluster.java prints it.
#include "cassandra/jolokia/jolokia_describe.hpp"

#include <algorithm>

#include "cassandra/nodetool_output/replication.hpp"
#include "imds/json_read.hpp"

namespace cla {
namespace {

constexpr std::string_view kDynamicSnitchClass = "org.apache.cassandra.locator.DynamicEndpointSnitch";

JolokiaError bad_answer(std::string message) {
  return {JolokiaError::Kind::bad_answer, 0, {}, std::move(message)};
}

}  // namespace

Result<DescribeView, JolokiaError> read_describe_view(std::span<const JolokiaValue> values) {
  const auto calls = describe_calls();
  if (values.size() != calls.size())
    return bad_answer("describecluster's first round takes " + std::to_string(calls.size()) +
                      " answers, not " + std::to_string(values.size()));
  DescribeView view;
  JolokiaReader service(values[0], calls[0]), snitch(values[1], calls[1]), proxy(values[3], calls[3]),
      gossiper(values[4], calls[4]);
  view.name = service.string("ClusterName");
  view.partitioner = service.string("PartitionerName");
  view.keyspaces = service.strings("Keyspaces");
  read_ring_attributes(service, view.ring);
  view.snitch = snitch.string("SnitchName");
  view.schema_versions = proxy.list_map("SchemaVersionsWithPort");
  view.release_versions = gossiper.list_map("ReleaseVersionsWithPort");
  for (const JolokiaReader* r : {&service, &snitch, &proxy, &gossiper})
    if (!r->ok()) return *r->error();
  if (view.snitch == kDynamicSnitchClass) {
    JolokiaReader dynamic(values[2], calls[2]);
    view.snitch = dynamic.string("SubsnitchClassName");
    view.dynamic_snitch = true;
    if (!dynamic.ok()) return *dynamic.error();
  }
  return view;
}

std::vector<JolokiaCall> describe_second_calls(const DescribeView& view) {
  auto calls = places_calls(view.ring.endpoints());
  auto replications = replication_calls(view.keyspaces);
  calls.insert(calls.end(), replications.begin(), replications.end());
  return calls;
}

Result<ClusterDescription, JolokiaError> make_cluster_description(const DescribeView& view,
                                                                  std::span<const JolokiaValue> second) {
  const auto endpoints = view.ring.endpoints();
  const std::size_t place_answers = 2 * endpoints.size();
  if (second.size() != place_answers + view.keyspaces.size())
    return bad_answer("describecluster's second round takes " +
                      std::to_string(place_answers + view.keyspaces.size()) + " answers, not " +
                      std::to_string(second.size()));
  auto places = read_places(endpoints, second.first(place_answers));
  if (!places) return places.error();

  ClusterDescription d;
  d.name = view.name;
  d.snitch = view.snitch;
  d.partitioner = view.partitioner;
  d.dynamic_snitch = view.dynamic_snitch;
  for (const auto& [version, with_ports] : view.schema_versions) {
    auto& hosts = d.schema_versions[version];
    for (const auto& endpoint : with_ports) hosts.push_back(host_of(endpoint));
  }
  d.counts = NodeCounts{static_cast<int>(view.ring.live.size()), static_cast<int>(view.ring.joining.size()),
                        static_cast<int>(view.ring.moving.size()), static_cast<int>(view.ring.leaving.size()),
                        static_cast<int>(view.ring.unreachable.size())};
  std::map<std::string, DatacenterCount> dcs;
  for (const auto& endpoint : endpoints) {
    const std::string& name = places->at(endpoint).datacenter;
    auto& dc = dcs.try_emplace(name, DatacenterCount{name, 0, 0}).first->second;
    ++dc.nodes;
    const auto& down = view.ring.unreachable;
    if (std::find(down.begin(), down.end(), endpoint) != down.end()) ++dc.down;
  }
  for (auto& [name, dc] : dcs) d.datacenters.push_back(std::move(dc));
  d.database_versions = view.release_versions;

  const auto calls = replication_calls(view.keyspaces);
  d.keyspaces.emplace();
  for (std::size_t i = 0; i < view.keyspaces.size(); ++i) {
    JolokiaReader reader(second[place_answers + i], calls[i]);
    const std::string text = reader.string();
    if (!reader.ok()) return *reader.error();
    auto replication = parse_replication(text);
    if (!replication)
      return bad_answer(describe(calls[i]) + ": " + quoted_excerpt(text, 200) + ": " +
                        replication.error().message);
    d.keyspaces->push_back(KeyspaceReplication{view.keyspaces[i], std::move(replication.value())});
  }
  return d;
}

}  // namespace cla
