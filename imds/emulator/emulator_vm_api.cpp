// imds-emulator's per-VM endpoint: Scheduled Events GET/POST and compute metadata, as the Azure docs
// describe.
#include "imds/emulator/emulator_vm_api.hpp"

#include <algorithm>
#include <array>
#include <boost/beast/http.hpp>
#include <boost/json.hpp>
#include <boost/url/parse.hpp>
#include <map>

#include "imds/emulator/emulator_compute.hpp"
#include "imds/emulator/emulator_document.hpp"
#include "imds/json_read.hpp"

namespace cla {
namespace {

namespace http = boost::beast::http;
namespace json = boost::json;

constexpr std::array<std::string_view, 7> kScheduledEventsVersions = {
    "2020-07-01", "2019-08-01", "2019-04-01", "2019-01-01", "2017-11-01", "2017-08-01", "2017-03-01"};
constexpr std::array<std::string_view, 38> kInstanceVersions = {
    "2025-04-07", "2024-07-17", "2024-03-15", "2023-11-15", "2023-07-01", "2022-11-01", "2022-08-01",
    "2022-07-01", "2022-03-01", "2022-02-01", "2021-12-13", "2021-11-15", "2021-11-01", "2021-10-01",
    "2021-05-01", "2021-03-01", "2021-02-01", "2021-01-01", "2020-12-01", "2020-10-01", "2020-09-01",
    "2020-07-15", "2020-06-01", "2019-11-01", "2019-08-15", "2019-08-01", "2019-06-04", "2019-06-01",
    "2019-04-30", "2019-03-11", "2019-02-01", "2018-10-01", "2018-04-02", "2018-02-01", "2017-12-01",
    "2017-08-01", "2017-04-02", "2017-03-01"};

using Route = VmTarget::Route;
using Target = VmTarget;

Target parse_target(std::string_view text) {
  Target t;
  const auto url = boost::urls::parse_origin_form(text);
  if (!url) return t;
  t.valid = true;
  t.path = std::string(url->path());
  t.query = std::string(url->encoded_query());
  std::map<std::string, int> seen;
  for (const auto& param : url->params()) {
    if (++seen[param.key] > 1) t.duplicate_parameter = true;
    if (param.key == "api-version") t.api_version = param.value;
  }
  const std::string lower = [&] {
    std::string s = t.path;
    std::transform(s.begin(), s.end(), s.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
  }();
  if (lower == "/metadata/scheduledevents")
    t.route = Route::scheduled_events;
  else if (lower == "/metadata/instance/compute")
    t.route = Route::compute;
  else if (lower == "/metadata" || lower.starts_with("/metadata/"))
    t.route = Route::other_metadata;
  return t;
}

bool metadata_header(const HttpRequest& req) {
  return iequals(std::string(req["Metadata"]), "true");
}

template <std::size_t N>
std::optional<HttpResponse> reject(const HttpRequest& req, const Target& t,
                                   const std::array<std::string_view, N>& versions) {
  if (req.find("X-Forwarded-For") != req.end())  // status documented, body text unverified
    return error_response(http::status::bad_request, "Bad request. Forwarded requests are not allowed", req);
  if (!metadata_header(req))
    return error_response(http::status::bad_request, "Bad request. Required metadata header not specified",
                          req);
  if (t.duplicate_parameter)
    return error_response(http::status::bad_request,
                          "Bad request. Duplicate query parameters are not allowed", req);
  if (!t.api_version || std::find(versions.begin(), versions.end(), *t.api_version) == versions.end()) {
    const json::object body{
        {"error",
         "Bad request. api-version is invalid or was not specified in the request. For more "
         "information refer to aka.ms/azureimds"},
        {"newest-versions", json::array{versions[0], versions[1], versions[2]}}};
    return json_response(http::status::bad_request, body, req);
  }
  return std::nullopt;
}

HttpResponse fault_response(int status, const HttpRequest& req) {
  const auto code = static_cast<http::status>(status);
  if (status >= 300 && status < 400) {
    HttpResponse res = empty_response(code, req);
    res.set(http::field::location, "/metadata/redirected-by-fault");
    return res;
  }
  const std::string reason(http::obsolete_reason(code));
  return error_response(code, reason.empty() ? "Injected fault" : reason, req);
}

HttpResponse approve(EmulatorState& state, std::size_t vm, const HttpRequest& req, WallTime now) {
  auto bad = [&](std::string why) {
    return error_response(http::status::bad_request, "Bad request. " + why, req);
  };
  const auto body = parse_json(req.body());
  const json::object* o = body ? body->if_object() : nullptr;
  const json::value* list = o ? o->if_contains("StartRequests") : nullptr;
  if (!list || !list->is_array() || list->get_array().empty())
    return bad("Expected {\"StartRequests\":[{\"EventId\":\"...\"}]}");
  std::vector<std::string> ids;
  for (const json::value& item : list->get_array()) {
    const json::value* id = item.is_object() ? item.get_object().if_contains("EventId") : nullptr;
    if (!id || !id->is_string()) return bad("Each StartRequest needs an EventId string");
    const EmulatedEvent* event = state.events.find_for(vm, id->get_string());
    if (!event) return bad("EventId " + quoted_excerpt(id->get_string(), 64) + " was not found");
    ids.push_back(event->id);
  }
  for (const auto& id : ids) {
    state.events.approve(vm, id, now);
    state.record(ApprovalRecord{now, state.vms[vm].name, id, state.vms[vm].region});
  }
  return empty_response(http::status::ok, req);
}

HttpResponse scheduled_events(EmulatorState& state, std::size_t vm, const HttpRequest& req,
                              const Admission& admission, WallTime now) {
  if (admission.fault && admission.fault->status) return fault_response(*admission.fault->status, req);
  if (req.method() == http::verb::post) return approve(state, vm, req, now);
  if (req.method() != http::verb::get)
    return error_response(http::status::method_not_allowed, "The requested method is not allowed", req);
  const Fault none;
  const Fault& fault = admission.fault ? *admission.fault : none;
  const bool hide_scheduled = fault.flap && state.flap_gets++ % 2 == 1;
  const std::int64_t incarnation = fault.incarnation.value_or(state.events.incarnation(vm));
  std::string body;
  if (hide_scheduled || fault.not_before_shift_s != 0) {
    json::object doc = scheduled_events_document(
        state.events, vm, std::chrono::seconds(fault.not_before_shift_s), hide_scheduled);
    doc["DocumentIncarnation"] = incarnation;
    body = json::serialize(doc);
  } else {
    body = state.documents.body(state.events, state.vms[vm].region, incarnation);
  }
  HttpResponse res = json_text_response(http::status::ok, std::move(body), req);
  if (fault.pad_bytes > 0) {
    res.body().append(static_cast<std::size_t>(fault.pad_bytes), ' ');
    res.prepare_payload();
  }
  if (admission.fault && admission.fault->body) {
    res.body() = *admission.fault->body;
    res.prepare_payload();
  } else if (admission.fault && admission.fault->malformed) {
    res.body().resize(res.body().size() / 2);
    res.prepare_payload();
  }
  return res;
}

HttpResponse iis_not_found(const HttpRequest& req) {
  HttpResponse res{http::status::not_found, req.version()};
  res.set(http::field::content_type, "text/html");
  res.set(http::field::server, "Microsoft-IIS/10.0");
  res.keep_alive(req.keep_alive());
  res.body() =
      "<!DOCTYPE html>\r\n<html><head><title>404 - File or directory not "
      "found.</title></head>\r\n<body><h2>404 - "
      "File or directory not found.</h2></body></html>\r\n";
  res.prepare_payload();
  return res;
}

HttpResponse route(EmulatorState& state, std::size_t vm, const HttpRequest& req, const Target& t,
                   const Admission& admission, WallTime now) {
  if (!t.valid) return error_response(http::status::bad_request, "Bad request. Invalid URL", req);
  switch (t.route) {
    case Route::scheduled_events:
      if (auto r = reject(req, t, kScheduledEventsVersions)) return *r;
      return scheduled_events(state, vm, req, admission, now);
    case Route::compute:
      if (auto r = reject(req, t, kInstanceVersions)) return *r;
      if (req.method() != http::verb::get)
        return error_response(http::status::method_not_allowed, "The requested method is not allowed", req);
      return json_response(http::status::ok, compute_document(state.vms[vm]), req);
    case Route::other_metadata:
      return error_response(http::status::not_found, "Not found", req);
    case Route::outside:
      break;
  }
  return iis_not_found(req);
}

}  // namespace

Admission admit_vm_request(EmulatorState& state, std::size_t vm, const HttpRequest& req) {
  Admission admission;
  admission.target = parse_target(req.target());
  const Target& t = admission.target;
  if (!t.valid || t.route != Route::scheduled_events || reject(req, t, kScheduledEventsVersions))
    return admission;
  if (req.method() == http::verb::get && !state.first_get_done[vm]) {
    state.first_get_done[vm] = true;
    admission.delay = state.first_call_delay;
  }
  if (state.fault.active()) {
    admission.fault = state.fault;
    admission.delay += state.fault.delay;
    if (state.fault.remaining && --*state.fault.remaining <= 0) state.fault = Fault{};
  }
  return admission;
}

HttpResponse handle_vm_request(EmulatorState& state, std::size_t vm, const HttpRequest& req,
                               const Admission& admission, WallTime now, std::uint64_t connection) {
  state.events.advance(now);
  const Target& t = admission.target;
  HttpResponse res = route(state, vm, req, t, admission, now);
  state.record(RequestRecord{
      now, state.vms[vm].name, std::string(req.method_string()), t.valid ? t.path : std::string(req.target()),
      t.query, static_cast<int>(res.result_int()), metadata_header(req), connection, state.vms[vm].region});
  return res;
}

Delivery delivery_of(const Admission& admission) {
  if (!admission.fault) return {};
  return Delivery{admission.fault->drip, admission.fault->close_mid_body};
}

}  // namespace cla
