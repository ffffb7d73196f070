// Parser for `nodetool describering <keyspace>` stdout (one TokenRange(...) per range): pure, never throws.
// The agent does not need it (it places replicas from `ring`); it is the oracle the placement is proven on.
#pragma once

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "state/result.hpp"

namespace cla {

struct EndpointDetails {
  std::string host, datacenter, rack;
  friend bool operator==(const EndpointDetails&, const EndpointDetails&) = default;
};

struct DescribedRange {
  std::string start_token, end_token;  // the range (start, end]
  std::vector<std::string> endpoints;  // the replicas, in Cassandra's order
  std::vector<std::string> rpc_endpoints;
  std::vector<EndpointDetails> endpoint_details;
  friend bool operator==(const DescribedRange&, const DescribedRange&) = default;
};
std::ostream& operator<<(std::ostream& os, const DescribedRange& range);
std::ostream& operator<<(std::ostream& os, const EndpointDetails& details);

struct DescribedRing {
  std::string schema_version;
  std::vector<DescribedRange> ranges;  // in output order (Cassandra's is a hash order)
  friend bool operator==(const DescribedRing&, const DescribedRing&) = default;
};
std::ostream& operator<<(std::ostream& os, const DescribedRing& ring);

// Reads "Schema Version:<v>", then each "TokenRange(start_token:..., end_token:..., endpoints:[...],
// rpc_endpoints:[...], endpoint_details:[EndpointDetails(host:..., datacenter:..., rack:...), ...])" line.
// Fails without the schema version line, on a TokenRange line missing a field, or on other text after it.
Result<DescribedRing> parse_nodetool_describering(std::string_view stdout_text);

}  // namespace cla
