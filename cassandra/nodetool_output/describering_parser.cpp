// Parser for `nodetool describering`: each TokenRange(...) line read field by field, in the order printed.
#include "cassandra/nodetool_output/describering_parser.hpp"

#include "state/text.hpp"

namespace cla {

namespace {

// Reads "name:value" fields one after the other, each followed by ", " or by the closing text.
class FieldCursor {
 public:
  explicit FieldCursor(std::string_view text) : rest_(text) {}

  // "name:" then the text up to the next ", " (a scalar field).
  Result<std::string_view> scalar(std::string_view name) {
    if (!expect(name)) return make_error("expected '" + std::string(name) + ":'");
    const auto end = rest_.find(", ");
    const std::string_view value = rest_.substr(0, end);
    rest_.remove_prefix(end == std::string_view::npos ? rest_.size() : end + 2);
    return value;
  }

  // "name:[...]" up to its matching ']' (no nesting deeper than EndpointDetails(...)).
  Result<std::string_view> list(std::string_view name) {
    if (!expect(name) || !rest_.starts_with("[")) return make_error("expected '" + std::string(name) + ":['");
    const auto close = rest_.find(']');
    if (close == std::string_view::npos) return make_error("'" + std::string(name) + "' has no ']'");
    const std::string_view value = rest_.substr(0, close + 1);
    rest_.remove_prefix(close + 1);
    if (rest_.starts_with(", ")) rest_.remove_prefix(2);
    return value;
  }

  std::string_view rest() const { return rest_; }

 private:
  bool expect(std::string_view name) {
    if (!rest_.starts_with(name) || rest_.substr(name.size(), 1) != ":") return false;
    rest_.remove_prefix(name.size() + 1);
    return true;
  }
  std::string_view rest_;
};

Result<std::vector<std::string>> endpoint_list(std::string_view text) {
  const auto items = split_java_list(text);
  if (!items) return make_error("not a list");
  std::vector<std::string> out;
  for (auto item : *items) {
    if (item.empty()) return make_error("an empty endpoint");
    out.emplace_back(item);
  }
  return out;
}

// "[EndpointDetails(host:a, datacenter:b, rack:c), ...]"
Result<std::vector<EndpointDetails>> details_list(std::string_view text) {
  std::vector<EndpointDetails> out;
  std::string_view body = trim(text.substr(1, text.size() - 2));
  while (!body.empty()) {
    constexpr std::string_view kOpen = "EndpointDetails(";
    const auto close = body.find(')');
    if (!body.starts_with(kOpen) || close == std::string_view::npos)
      return make_error("not 'EndpointDetails(host:..., datacenter:..., rack:...)'");
    FieldCursor fields(body.substr(kOpen.size(), close - kOpen.size()));
    auto host = fields.scalar("host");
    auto dc = host ? fields.scalar("datacenter") : host;
    auto rack = dc ? fields.scalar("rack") : dc;
    if (!rack) return rack.error();
    out.push_back(EndpointDetails{std::string(*host), std::string(*dc), std::string(*rack)});
    body = trim(body.substr(close + 1));
    if (body.starts_with(",")) body = trim(body.substr(1));
  }
  return out;
}

Result<DescribedRange> parse_range(std::string_view line) {
  constexpr std::string_view kOpen = "TokenRange(";
  if (!line.starts_with(kOpen) || !line.ends_with(")")) return make_error("not 'TokenRange(...)'");
  FieldCursor fields(line.substr(kOpen.size(), line.size() - kOpen.size() - 1));
  DescribedRange range;
  auto start = fields.scalar("start_token");
  if (!start) return start.error();
  auto end = fields.scalar("end_token");
  if (!end) return end.error();
  range.start_token = std::string(*start);
  range.end_token = std::string(*end);
  if (range.start_token.empty() || range.end_token.empty()) return make_error("a range without its tokens");
  for (auto [name, target] :
       {std::pair{"endpoints", &range.endpoints}, std::pair{"rpc_endpoints", &range.rpc_endpoints}}) {
    auto text = fields.list(name);
    if (!text) return text.error();
    auto list = endpoint_list(*text);
    if (!list) return make_error(std::string(name) + ": " + list.error().message);
    *target = std::move(list.value());
  }
  // endpoint_details holds ')' inside its items: it runs to the end of the line.
  constexpr std::string_view kDetails = "endpoint_details:";
  const std::string_view rest = fields.rest();
  if (!rest.starts_with(kDetails)) return make_error("expected 'endpoint_details:'");
  const std::string_view details = rest.substr(kDetails.size());
  if (!details.starts_with("[") || !details.ends_with("]"))
    return make_error("endpoint_details is not a list");
  auto parsed = details_list(details);
  if (!parsed) return make_error("endpoint_details: " + parsed.error().message);
  range.endpoint_details = std::move(parsed.value());
  return range;
}

}  // namespace

std::ostream& operator<<(std::ostream& os, const EndpointDetails& e) {
  return os << "{" << e.host << " " << e.datacenter << " " << e.rack << "}";
}

std::ostream& operator<<(std::ostream& os, const DescribedRing& ring) {
  os << "{schema " << ring.schema_version << ":";
  for (const auto& range : ring.ranges) os << " " << range;
  return os << "}";
}

std::ostream& operator<<(std::ostream& os, const DescribedRange& range) {
  os << "(" << range.start_token << ", " << range.end_token << "] [";
  for (std::size_t i = 0; i < range.endpoints.size(); ++i) os << (i ? ", " : "") << range.endpoints[i];
  return os << "]";
}

Result<DescribedRing> parse_nodetool_describering(std::string_view stdout_text) {
  DescribedRing ring;
  bool seen_version = false;
  std::size_t number = 0;
  for (std::string_view raw : split_lines(stdout_text)) {
    ++number;
    const std::string_view line = trim(raw);
    auto fail = [&](const std::string& why) {
      return make_error("nodetool describering line " + std::to_string(number) + " '" + std::string(line) +
                        "': " + why);
    };
    if (line.empty() || line == "TokenRange:") continue;
    if (line.starts_with("Schema Version:")) {
      ring.schema_version = std::string(trim(line.substr(15)));
      seen_version = true;
    } else if (!seen_version) {
      continue;  // nothing before the schema version is part of the answer
    } else {
      auto range = parse_range(line);
      if (!range) return fail(range.error().message);
      ring.ranges.push_back(std::move(range.value()));
    }
  }
  if (!seen_version) return make_error("nodetool describering output has no 'Schema Version:' line");
  return ring;
}

}  // namespace cla
