// The verdict's names (reasons), comparisons, printing (so table tests read well) and SPEC 3.4's log
// fields.
#include <boost/json.hpp>

#include "cassandra/gate/replication_verdict.hpp"

namespace cla {

namespace {

template <class T>
void print_list(std::ostream& os, const std::vector<T>& items) {
  os << "[";
  for (std::size_t i = 0; i < items.size(); ++i) os << (i ? ", " : "") << items[i];
  os << "]";
}

boost::json::value rf_json(const UnprotectableKeyspace& keyspace) {
  if (const int* number = std::get_if<int>(&keyspace.rf)) return *number;
  boost::json::object factors;
  for (const auto& [dc, factor] : std::get<std::map<std::string, int>>(keyspace.rf)) factors[dc] = factor;
  return factors;
}

}  // namespace

std::string_view to_string(VerdictReason reason) {
  switch (reason) {
    case VerdictReason::safe:
      return "safe";
    case VerdictReason::schema_disagreement:
      return "schema_disagreement";
    case VerdictReason::ring_changing:
      return "ring_changing";
    case VerdictReason::replicas_short:
      return "replicas_short";
    case VerdictReason::node_not_in_ring:
      return "node_not_in_ring";
  }
  return "?";
}

std::string_view to_string(ShortAccess access) {
  return access == ShortAccess::writes ? "writes" : "reads_and_writes";
}

std::ostream& operator<<(std::ostream& os, ShortAccess access) {
  return os << to_string(access);
}

std::ostream& operator<<(std::ostream& os, VerdictReason reason) {
  return os << to_string(reason);
}

bool operator==(const ReplicationVerdict& a, const ReplicationVerdict& b) {
  return a.safe == b.safe && a.reason == b.reason && a.short_range == b.short_range &&
         a.unprotectable == b.unprotectable && a.unjudged == b.unjudged && a.detail == b.detail;
}

std::ostream& operator<<(std::ostream& os, const ShortRange& range) {
  os << "{keyspace " << range.keyspace << " (" << range.start_token << ", " << range.end_token << "]";
  if (!range.datacenter.empty()) os << " in " << range.datacenter;
  os << " needed " << range.needed << " available " << range.available << " down ";
  print_list(os, range.down);
  os << " pending ";
  print_list(os, range.pending);
  return os << " for " << to_string(range.access) << "}";
}

std::ostream& operator<<(std::ostream& os, const UnprotectableKeyspace& keyspace) {
  return os << "{" << keyspace.keyspace << " " << keyspace.strategy_class << " rf "
            << boost::json::serialize(rf_json(keyspace)) << " at " << to_string(keyspace.consistency) << "}";
}

std::ostream& operator<<(std::ostream& os, const ReplicationVerdict& verdict) {
  os << "{" << (verdict.safe ? "safe" : "unsafe") << ", " << to_string(verdict.reason);
  if (verdict.short_range) os << ", " << *verdict.short_range;
  if (!verdict.detail.empty()) os << ", detail: " << verdict.detail;
  if (!verdict.unprotectable.empty()) {
    os << ", unprotectable: ";
    print_list(os, verdict.unprotectable);
  }
  if (!verdict.unjudged.empty()) {
    os << ", unjudged: ";
    print_list(os, verdict.unjudged);
  }
  return os << "}";
}

boost::json::object unsafe_log_fields(const ReplicationVerdict& verdict) {
  boost::json::object fields;
  if (verdict.safe) return fields;
  if (const auto& range = verdict.short_range) {
    fields["keyspace"] = range->keyspace;
    fields["start_token"] = range->start_token;
    fields["end_token"] = range->end_token;
    fields["needed"] = range->needed;
    fields["available"] = range->available;
    boost::json::array down;
    for (const auto& address : range->down) down.emplace_back(address);
    fields["down"] = std::move(down);
    boost::json::array pending;
    for (const auto& address : range->pending) pending.emplace_back(address);
    fields["pending"] = std::move(pending);
    fields["for"] = to_string(range->access);
  } else {
    fields["reason"] = to_string(verdict.reason);
  }
  return fields;
}

boost::json::object unprotectable_log_fields(const UnprotectableKeyspace& keyspace) {
  return boost::json::object{{"keyspace", keyspace.keyspace},
                             {"class", keyspace.strategy_class},
                             {"rf", rf_json(keyspace)},
                             {"consistency", to_string(keyspace.consistency)}};
}

}  // namespace cla
