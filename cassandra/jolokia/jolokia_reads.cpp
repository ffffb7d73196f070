// The Jolokia backend's reads as conversations: which calls each round POSTs and what the answers make.
#include "cassandra/jolokia/jolokia_reads.hpp"

#include <algorithm>
#include <charconv>

#include "imds/json_read.hpp"

namespace cla {
namespace {

JolokiaError wrong_count(std::string_view what, std::size_t want, std::size_t got) {
  return {JolokiaError::Kind::bad_answer,
          0,
          {},
          std::string(what) + " takes " + std::to_string(want) + " answer(s), not " + std::to_string(got)};
}

bool whole_number(const std::map<std::string, std::string>& host, const char* key, std::int64_t& into) {
  const auto it = host.find(key);
  if (it == host.end()) return false;
  const std::string& text = it->second;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), into);
  return ec == std::errc{} && end == text.data() + text.size();
}

// One PendingHintsInfo map: host_id, and total_files, oldest_timestamp and newest_timestamp as numbers.
std::optional<PendingHints> pending_hints_entry(const std::map<std::string, std::string>& host) {
  PendingHints h;
  const auto id = host.find("host_id");
  if (id == host.end() || id->second.empty() || !whole_number(host, "total_files", h.total_files) ||
      !whole_number(host, "oldest_timestamp", h.oldest_ms) ||
      !whole_number(host, "newest_timestamp", h.newest_ms))
    return std::nullopt;
  h.host_id = id->second;
  return h;
}

// Names the entry (its host_id, as far as it has one) and what it lacks.
JolokiaError bad_pending_hints(const std::map<std::string, std::string>& host) {
  const auto id = host.find("host_id");
  std::string message(mbean::kHintsService);
  message.append(" attribute PendingHints: the entry of host_id ");
  message.append(id == host.end() ? "(none)" : quoted_excerpt(id->second));
  message.append(" lacks a host_id, or total_files, oldest_timestamp and newest_timestamp as numbers");
  return {JolokiaError::Kind::bad_answer, 0, {}, std::move(message)};
}

// A HintsService metric about one peer: Hints_created-<peer> (created) or Hint_delays-<peer> (delivered).
struct PeerMetric {
  bool created = false;
  std::string_view peer;
};
// "...,name=Hints_created-/127.0.0.3.7000" -> {created, "127.0.0.3.7000"}: the peer as InetAddressAndPort's
// toString ("[host]/address:port") after the last '/', ':' made '.'. nullopt: not a per-peer count.
std::optional<PeerMetric> peer_metric(std::string_view mbean) {
  const auto at = mbean.find("name=");
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view name = mbean.substr(at + 5);
  name = name.substr(0, name.find(','));
  for (const bool created : {true, false}) {
    const std::string_view prefix = created ? "Hints_created-" : "Hint_delays-";
    if (!name.starts_with(prefix)) continue;
    std::string_view peer = name.substr(prefix.size());
    if (const auto slash = peer.rfind('/'); slash != std::string_view::npos) peer = peer.substr(slash + 1);
    return PeerMetric{created, peer};
  }
  return std::nullopt;
}

// Cassandra registers a metric's MBean at its first update: Jolokia's 404 for it means "none yet".
bool not_registered(const JolokiaValue& answer) {
  return !answer && answer.error().kind == JolokiaError::Kind::refused && answer.error().status == 404;
}

// Not inlined: GCC 12 then sees the constant text through the move into a Result and warns falsely
// (-Warray-bounds).
[[gnu::noinline]] JolokiaError bad_answer(std::string what, std::string_view wrong) {
  what.append(wrong);
  return {JolokiaError::Kind::bad_answer, 0, {}, std::move(what)};
}

// Per peer (as peer_metric names it): hints created for it and hints delivered to it, from the pattern read
// of every HintsService metric. No metric registered yet (404) reads as none.
struct HintCounts {
  std::map<std::string, std::int64_t> created, delivered;
};
Result<HintCounts, JolokiaError> hint_counts(const JolokiaValue& answer) {
  HintCounts counts;
  if (not_registered(answer)) return counts;
  if (!answer) return answer.error();
  const auto* metrics = answer->if_object();
  if (!metrics) return bad_answer(std::string(mbean::kHintsServiceMetrics), ": the value is not an object");
  for (const auto& [mbean_name, value] : *metrics) {
    const auto metric = peer_metric(mbean_name);
    if (!metric) continue;
    const auto* object = value.if_object();
    const auto* count = object ? object->if_contains("Count") : nullptr;
    if (!count || !count->is_int64() || count->get_int64() < 0)
      return bad_answer(std::string(mbean_name), " attribute Count: missing or not a whole number >= 0");
    (metric->created ? counts.created : counts.delivered)[std::string(metric->peer)] = count->get_int64();
  }
  return counts;
}

// "127.0.0.3:7000" as peer_metric names it: "127.0.0.3.7000".
std::string metric_peer(std::string endpoint) {
  std::replace(endpoint.begin(), endpoint.end(), ':', '.');
  return endpoint;
}

// The ring view of the first round and the places of the second, for status and ring.
struct ViewAndPlaces {
  RingView view;
  Places places;
};
Result<ViewAndPlaces, JolokiaError> view_and_places(JolokiaAnswers first, JolokiaAnswers second) {
  auto view = read_ring_view(first);
  if (!view) return view.error();
  auto places = read_places(view->endpoints(), second);
  if (!places) return places.error();
  return ViewAndPlaces{std::move(view.value()), std::move(places.value())};
}

Result<std::vector<JolokiaCall>, JolokiaError> places_of_view(JolokiaAnswers first) {
  auto view = read_ring_view(first);
  if (!view) return view.error();
  return places_calls(view->endpoints());
}

}  // namespace

Result<std::vector<JolokiaCall>, JolokiaError> StatusRead::second(JolokiaAnswers first) {
  return places_of_view(first);
}

Result<ClusterStatus, JolokiaError> StatusRead::finish(JolokiaAnswers first, JolokiaAnswers second) {
  auto both = view_and_places(first, second);
  if (!both) return both.error();
  return make_cluster_status(both->view, both->places);
}

Result<std::vector<JolokiaCall>, JolokiaError> RingRead::second(JolokiaAnswers first) {
  return places_of_view(first);
}

Result<RingTable, JolokiaError> RingRead::finish(JolokiaAnswers first, JolokiaAnswers second) {
  auto both = view_and_places(first, second);
  if (!both) return both.error();
  return make_ring_table(both->view, both->places);
}

Result<std::vector<JolokiaCall>, JolokiaError> DescribeClusterRead::second(JolokiaAnswers first) {
  auto view = read_describe_view(first);
  if (!view) return view.error();
  return describe_second_calls(view.value());
}

Result<ClusterDescription, JolokiaError> DescribeClusterRead::finish(JolokiaAnswers first,
                                                                     JolokiaAnswers second) {
  auto view = read_describe_view(first);
  if (!view) return view.error();
  return make_cluster_description(view.value(), second);
}

Result<NodeInfo, JolokiaError> InfoRead::finish(JolokiaAnswers first, JolokiaAnswers) {
  const auto calls = info_calls();
  if (first.size() != calls.size()) return wrong_count("info", calls.size(), first.size());
  JolokiaReader service(first[0], calls[0]), snitch(first[1], calls[1]);
  NodeInfo info;
  info.host_id = service.string("LocalHostId");
  info.gossip_active = service.boolean("GossipRunning");
  info.native_transport_active = service.boolean("NativeTransportRunning");
  info.datacenter = snitch.string("Datacenter");
  info.rack = snitch.string("Rack");
  if (!service.ok()) return *service.error();
  if (!snitch.ok()) return *snitch.error();
  return info;
}

std::ostream& operator<<(std::ostream& os, const RunningState& state) {
  return os << "{gossip " << state.gossip << " native transport " << state.native_transport << " "
            << state.operation_mode << "}";
}

Result<RunningState, JolokiaError> RunningRead::finish(JolokiaAnswers first, JolokiaAnswers) {
  const auto calls = running_calls();
  if (first.size() != calls.size()) return wrong_count("the running states", calls.size(), first.size());
  JolokiaReader service(first[0], calls[0]);
  RunningState state;
  state.gossip = service.boolean("GossipRunning");
  state.native_transport = service.boolean("NativeTransportRunning");
  state.operation_mode = service.string("OperationMode");
  if (!service.ok()) return *service.error();
  return state;
}

Result<StageCounts, JolokiaError> StagesRead::finish(JolokiaAnswers first, JolokiaAnswers) {
  const auto calls = stages_calls();
  if (first.size() != calls.size())
    return wrong_count("the stages' completed tasks", calls.size(), first.size());
  StageCounts stages;
  std::int64_t* const counts[] = {&stages.read, &stages.mutation, &stages.counter_mutation};
  for (std::size_t i = 0; i < calls.size(); ++i) {
    if (not_registered(first[i])) continue;  // no task completed yet
    JolokiaReader gauge(first[i], calls[i]);
    *counts[i] = gauge.integer("Value");
    if (!gauge.ok()) return *gauge.error();
  }
  return stages;
}

Result<std::vector<std::string>, JolokiaError> JvmArgumentsRead::finish(JolokiaAnswers first,
                                                                        JolokiaAnswers) {
  const auto calls = jvm_arguments_calls();
  if (first.size() != calls.size()) return wrong_count("the JVM's arguments", calls.size(), first.size());
  JolokiaReader runtime(first[0], calls[0]);
  auto arguments = runtime.strings("InputArguments");
  if (!runtime.ok()) return *runtime.error();
  return arguments;
}

Result<PendingHintsList, JolokiaError> PendingHintsRead::finish(JolokiaAnswers first, JolokiaAnswers) {
  const auto calls = pending_hints_calls();
  if (first.size() != calls.size()) return wrong_count("the pending hints", calls.size(), first.size());
  JolokiaReader service(first[0], calls[0]);
  const auto hosts = service.map_list("PendingHints");
  if (!service.ok()) return *service.error();
  PendingHintsList out;
  for (const auto& host : hosts) {
    auto entry = pending_hints_entry(host);
    if (!entry) return bad_pending_hints(host);
    out.push_back(std::move(*entry));
  }
  auto counts = hint_counts(first[1]);
  if (!counts) return counts.error();
  JolokiaReader storage(first[2], calls[2]);
  const auto host_ids = storage.string_map("EndpointWithPortToHostId");
  if (!storage.ok()) return *storage.error();
  for (const auto& [endpoint, host_id] : host_ids) {
    if (host_id.empty()) continue;
    const auto peer = metric_peer(endpoint);
    const auto created = counts->created.find(peer);
    if (created == counts->created.end()) continue;
    const auto delivered = counts->delivered.find(peer);
    const std::int64_t undelivered =
        created->second - (delivered == counts->delivered.end() ? 0 : delivered->second);
    if (undelivered <= 0) continue;
    auto it = std::find_if(out.begin(), out.end(),
                           [&id = host_id](const PendingHints& h) { return h.host_id == id; });
    if (it == out.end()) it = out.insert(out.end(), PendingHints{.host_id = host_id});
    it->undelivered = undelivered;
  }
  return out;
}

Result<std::chrono::milliseconds, JolokiaError> MaxHintWindowRead::finish(JolokiaAnswers first,
                                                                          JolokiaAnswers) {
  const auto calls = max_hint_window_calls();
  if (first.size() != calls.size()) return wrong_count("the hint window", calls.size(), first.size());
  JolokiaReader proxy(first[0], calls[0]);
  const std::int64_t ms = proxy.integer("MaxHintWindow");
  if (!proxy.ok()) return *proxy.error();
  if (ms < 0) {
    std::string message(mbean::kStorageProxy);
    message.append(" attribute MaxHintWindow: ").append(std::to_string(ms)).append(" ms is negative");
    return JolokiaError{JolokiaError::Kind::bad_answer, 0, {}, std::move(message)};
  }
  return std::chrono::milliseconds(ms);
}

Result<void, JolokiaError> read_step_answer(JolokiaStep step, JolokiaAnswers answers) {
  if (answers.size() != 1) return wrong_count(to_string(step), 1, answers.size());
  if (!answers[0]) return answers[0].error();
  return {};
}

}  // namespace cla
