// imds-emulator's admin API: create/cancel events, inject faults, read what the VMs were asked (JSON, Unix
// s).
#include "imds/emulator/emulator_admin_api.hpp"

#include <algorithm>
#include <boost/beast/http.hpp>
#include <boost/json.hpp>
#include <boost/url/parse.hpp>
#include <limits>

#include "imds/json_read.hpp"

namespace cla {
namespace {

namespace http = boost::beast::http;
namespace json = boost::json;

using Object = Result<json::object, FieldError>;

Object body_object(std::string_view body) {
  auto parsed = parse_json(body.empty() ? std::string_view("{}") : body);
  if (!parsed) return FieldError{"", parsed.error().message};
  if (!parsed->is_object()) return FieldError{"", "expected a JSON object"};
  return std::move(parsed->get_object());
}

std::optional<FieldError> unknown_field(const json::object& o,
                                        std::initializer_list<std::string_view> known) {
  for (const auto& [key, value] : o) {
    if (std::find(known.begin(), known.end(), std::string_view(key)) != known.end()) continue;
    std::string expected;
    for (auto k : known) expected += (expected.empty() ? "" : ", ") + std::string(k);
    return FieldError{std::string(key), "unknown field; expected " + expected};
  }
  return std::nullopt;
}

std::optional<FieldError> read_int(const json::object& o, std::string_view key, std::int64_t min,
                                   std::int64_t max, std::int64_t& out) {
  const json::value* v = o.if_contains(key);
  if (!v) return std::nullopt;
  const auto n = to_int64(*v, false);
  if (!n || *n < min || *n > max)
    return FieldError{std::string(key),
                      "expected an integer " + std::to_string(min) + ".." + std::to_string(max)};
  out = *n;
  return std::nullopt;
}

std::optional<FieldError> read_string(const json::object& o, std::string_view key, bool non_empty,
                                      std::string& out) {
  const json::value* v = o.if_contains(key);
  if (!v) return std::nullopt;
  if (!v->is_string() || (non_empty && v->get_string().empty()) || v->get_string().size() > 4096)
    return FieldError{std::string(key), non_empty ? "expected a non-empty string" : "expected a string"};
  out = std::string(v->get_string());
  return std::nullopt;
}

std::optional<FieldError> read_bool(const json::object& o, std::string_view key, bool& out) {
  const json::value* v = o.if_contains(key);
  if (!v) return std::nullopt;
  if (!v->is_bool()) return FieldError{std::string(key), "expected true or false"};
  out = v->get_bool();
  return std::nullopt;
}

// The event's region: as given, or the default region "" when there is one. regions: the VMs' regions.
std::optional<FieldError> read_region(const json::object& o, const std::vector<std::string>& regions,
                                      std::string& out) {
  std::string known;
  for (const auto& r : regions)
    known += (known.empty() ? "" : ", ") + quoted_excerpt(r) + (r.empty() ? " (the default region)" : "");
  const bool has_default = std::find(regions.begin(), regions.end(), "") != regions.end();
  if (!o.contains("region")) {
    if (has_default) return std::nullopt;
    return FieldError{
        "region", "missing, and every VM is in a named region: say whose VMs see the event (" + known + ")"};
  }
  if (auto e = read_string(o, "region", false, out)) return *e;
  if (std::find(regions.begin(), regions.end(), out) == regions.end())
    return FieldError{"region", quoted_excerpt(out) + " is no VM's region; expected one of " + known};
  return std::nullopt;
}

json::object event_json(const EmulatedEvent& e) {
  json::array resources, approvals;
  for (const auto& r : e.spec.resources) resources.emplace_back(r);
  for (const auto& a : e.approved_by) approvals.emplace_back(a);
  const bool started = e.status == EventStatus::started;
  return json::object{
      {"EventId", e.id},
      {"region", e.spec.region},
      {"type", e.spec.type},
      {"status", started ? "Started" : "Scheduled"},
      {"resources", std::move(resources)},
      {"approvals", std::move(approvals)},
      {"not_before", unix_seconds(e.not_before)},
      {"not_before_ms", unix_millis(e.not_before)},  // when it starts unapproved (NotBefore is served in s)
      {"created_at_ms", unix_millis(e.created_at)},
      {"started_at", started ? json::value(unix_seconds(*e.started_at)) : json::value(nullptr)},
      {"started_at_ms", started ? json::value(unix_millis(*e.started_at)) : json::value(nullptr)},
      {"removal_at", started ? json::value(unix_seconds(e.removal_time())) : json::value(nullptr)},
      {"removal_at_ms", started ? json::value(unix_millis(e.removal_time())) : json::value(nullptr)},
      {"duration_s", e.spec.duration_s},
      {"source", e.spec.source},
      {"description", e.spec.description},
      {"complete_after_s", e.spec.complete_after_s}};
}

json::object fault_json(const Fault& f) {
  json::object o;
  if (f.status) o["status"] = *f.status;
  if (f.delay.count() > 0) o["delay_ms"] = f.delay.count();
  if (f.malformed) o["malformed"] = true;
  if (f.body) o["body"] = *f.body;
  if (f.drip.count() > 0) o["drip_ms"] = f.drip.count();
  if (f.close_mid_body) o["close_mid_body"] = true;
  if (f.pad_bytes > 0) o["pad_bytes"] = f.pad_bytes;
  if (f.incarnation) o["incarnation"] = *f.incarnation;
  if (f.flap) o["flap"] = true;
  if (f.not_before_shift_s != 0) o["not_before_shift_s"] = f.not_before_shift_s;
  if (f.remaining) o["count"] = *f.remaining;
  return o;
}

HttpResponse bad_request(const FieldError& e, const HttpRequest& req) {
  const std::string message = e.field.empty() ? e.message : e.field + ": " + e.message;
  return json_response(http::status::bad_request, json::object{{"error", message}, {"field", e.field}}, req);
}

HttpResponse events_route(EmulatorState& state, const HttpRequest& req, WallTime now) {
  if (req.method() == http::verb::get) {
    json::array list;
    for (const auto& e : state.events.events()) list.push_back(event_json(e));
    return json_response(http::status::ok, list, req);
  }
  if (req.method() != http::verb::post)
    return error_response(http::status::method_not_allowed, "use GET or POST", req);
  auto spec = parse_event_spec(req.body(), state.regions);
  if (!spec) return bad_request(spec.error(), req);
  const std::string id = state.events.add(std::move(*spec), now);
  return json_response(http::status::created, json::object{{"EventId", id}}, req);
}

HttpResponse log_route(EmulatorState& state, const HttpRequest& req, bool approvals) {
  if (!approvals && req.method() == http::verb::delete_) {
    state.requests.clear();
    return empty_response(http::status::no_content, req);
  }
  if (req.method() != http::verb::get)
    return error_response(http::status::method_not_allowed, "use GET", req);
  // Up to kMaxLog entries while every VM's requests wait on this one thread: built in one arena (freed at
  // once) and serialized without a copy.
  json::monotonic_resource arena;
  json::array list(&arena);
  if (approvals) {
    list.reserve(state.approvals.size());
    for (const auto& a : state.approvals)
      list.emplace_back(json::object({{"t", unix_seconds(a.t)},
                                      {"t_ms", unix_millis(a.t)},
                                      {"vm", a.vm},
                                      {"region", a.region},
                                      {"event_id", a.event_id}},
                                     0, &arena));
  } else {
    list.reserve(state.requests.size());
    for (const auto& r : state.requests)
      list.emplace_back(json::object({{"t", unix_seconds(r.t)},
                                      {"t_ms", unix_millis(r.t)},
                                      {"vm", r.vm},
                                      {"region", r.region},
                                      {"method", r.method},
                                      {"path", r.path},
                                      {"query", r.query},
                                      {"status", r.status},
                                      {"metadata_header", r.metadata_header},
                                      {"connection", r.connection}},
                                     0, &arena));
  }
  return json_text_response(http::status::ok, json::serialize(list), req);
}

}  // namespace

Result<EventSpec, FieldError> parse_event_spec(std::string_view body,
                                               const std::vector<std::string>& regions) {
  auto o = body_object(body);
  if (!o) return o.error();
  if (auto e = unknown_field(*o, {"type", "resources", "not_before_in_s", "duration_s", "source",
                                  "description", "started", "complete_after_s", "region"}))
    return *e;
  std::string type, source = "Platform";
  if (!o->contains("type"))
    return FieldError{"type", "missing (Freeze, Reboot, Redeploy, Preempt, Terminate)"};
  if (auto e = read_string(*o, "type", true, type)) return *e;
  if (auto e = read_string(*o, "source", true, source)) return *e;
  const json::value* resources = o->if_contains("resources");
  if (!resources) return FieldError{"resources", "missing (the VM names the event affects)"};
  std::vector<std::string> names;
  if (!resources->is_array() || resources->get_array().empty() || resources->get_array().size() > 1000)
    return FieldError{"resources", "expected a non-empty array of VM names"};
  for (const auto& r : resources->get_array()) {
    if (!r.is_string() || r.get_string().empty() || r.get_string().size() > 256)
      return FieldError{"resources", "expected a non-empty array of VM names"};
    names.emplace_back(r.get_string());
  }
  EventSpec spec = default_event_spec(std::move(type), std::move(names), std::move(source));
  if (auto e = read_int(*o, "not_before_in_s", 0, 366 * 86400, spec.not_before_in_s)) return *e;
  if (auto e = read_int(*o, "duration_s", -1, 86400, spec.duration_s)) return *e;
  if (auto e = read_int(*o, "complete_after_s", 0, 86400, spec.complete_after_s)) return *e;
  if (auto e = read_string(*o, "description", false, spec.description)) return *e;
  if (auto e = read_bool(*o, "started", spec.started)) return *e;
  if (auto e = read_region(*o, regions, spec.region)) return *e;
  return spec;
}

Result<Fault, FieldError> parse_fault(std::string_view body) {
  auto o = body_object(body);
  if (!o) return o.error();
  if (auto e = unknown_field(*o, {"status", "delay_ms", "malformed", "body", "drip_ms", "close_mid_body",
                                  "pad_bytes", "incarnation", "flap", "not_before_shift_s", "count"}))
    return *e;
  Fault fault;
  std::int64_t status = 0, delay = 0, count = 0, drip = 0;
  if (auto e = read_int(*o, "status", 300, 599, status)) return *e;
  if (auto e = read_int(*o, "delay_ms", 0, 600000, delay)) return *e;
  if (auto e = read_int(*o, "count", 1, 1000000, count)) return *e;
  if (auto e = read_int(*o, "drip_ms", 0, 60000, drip)) return *e;
  if (auto e = read_int(*o, "pad_bytes", 0, 64 << 20, fault.pad_bytes)) return *e;
  if (auto e = read_int(*o, "not_before_shift_s", -366 * 86400, 366 * 86400, fault.not_before_shift_s))
    return *e;
  if (o->contains("incarnation")) {
    std::int64_t incarnation = 0;
    if (auto e = read_int(*o, "incarnation", 0, std::numeric_limits<std::int32_t>::max(), incarnation))
      return *e;
    fault.incarnation = incarnation;
  }
  if (auto e = read_bool(*o, "malformed", fault.malformed)) return *e;
  if (auto e = read_bool(*o, "close_mid_body", fault.close_mid_body)) return *e;
  if (auto e = read_bool(*o, "flap", fault.flap)) return *e;
  fault.drip = std::chrono::milliseconds(drip);
  if (o->contains("body")) {
    fault.body.emplace();
    if (auto e = read_string(*o, "body", false, *fault.body)) return *e;
  }
  if (status != 0) fault.status = static_cast<int>(status);
  fault.delay = std::chrono::milliseconds(delay);
  if (count != 0) fault.remaining = count;
  if (fault.remaining && !fault.active()) return FieldError{"count", "given without a fault to count"};
  return fault;
}

HttpResponse handle_admin_request(EmulatorState& state, const HttpRequest& req, WallTime now) {
  state.events.advance(now);
  const auto url = boost::urls::parse_origin_form(req.target());
  const std::string path = url ? std::string(url->path()) : std::string();
  const auto method = req.method();
  if (path == "/admin/events") return events_route(state, req, now);
  if (path.starts_with("/admin/events/")) {
    if (method != http::verb::delete_)
      return error_response(http::status::method_not_allowed, "use DELETE", req);
    const std::string id = path.substr(std::string_view("/admin/events/").size());
    if (!state.events.cancel(id))
      return error_response(http::status::not_found, "no event " + quoted_excerpt(id), req);
    return empty_response(http::status::no_content, req);
  }
  if (path == "/admin/faults") {
    if (method == http::verb::post) {
      auto fault = parse_fault(req.body());
      if (!fault) return bad_request(fault.error(), req);
      state.fault = *fault;
    } else if (method != http::verb::get) {
      return error_response(http::status::method_not_allowed, "use GET or POST", req);
    }
    return json_response(http::status::ok, fault_json(state.fault), req);
  }
  if (path == "/admin/requests") return log_route(state, req, false);
  if (path == "/admin/approvals") return log_route(state, req, true);
  if (path == "/admin/vms") {
    if (method != http::verb::get) return error_response(http::status::method_not_allowed, "use GET", req);
    json::array list;
    for (std::size_t i = 0; i < state.vms.size(); ++i)
      list.push_back(json::object{{"vm", state.vms[i].name},
                                  {"region", state.vms[i].region},
                                  {"fault_domain", state.vms[i].fault_domain},
                                  {"incarnation", state.events.incarnation(i)}});
    return json_response(http::status::ok, list, req);
  }
  return error_response(http::status::not_found, "no admin endpoint " + quoted_excerpt(path) + "; see --help",
                        req);
}

}  // namespace cla
