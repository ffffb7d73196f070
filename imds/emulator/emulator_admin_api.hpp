// imds-emulator's admin API: create/cancel events, inject faults, read what the VMs were asked (JSON, Unix
// s).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "imds/emulator/emulator_http.hpp"
#include "imds/emulator/emulator_state.hpp"
#include "state/result.hpp"

namespace cla {

// A rejected admin request body: which field, and what is wrong with it.
struct FieldError {
  std::string field;
  std::string message;
};

// POST /admin/events body: {"type","resources"} required; not_before_in_s, duration_s, source, description,
// started, complete_after_s optional (defaults: default_event_spec). Unknown fields are rejected (typos).
// "region" must be one of `regions` (the VMs'); left out, it is the default region "", which must be among
// them.
Result<EventSpec, FieldError> parse_event_spec(std::string_view body,
                                               const std::vector<std::string>& regions);
// POST /admin/faults body: any of {"status":300..599, "delay_ms":0..600000, "malformed":bool, "body":"...",
// "count":N}; {} clears. body replaces the GET document verbatim; count limits the fault to the next N
// scheduledevents requests.
Result<Fault, FieldError> parse_fault(std::string_view body);

// Routes (all JSON; 400 {"error","field"} for a bad body; 404/405 for unknown paths/methods):
//   POST /admin/events -> 201 {"EventId"}     GET /admin/events -> current events
//   DELETE /admin/events/{id} -> 204 | 404     GET /admin/vms -> [{"vm","region","fault_domain",...}]
//   POST /admin/faults -> 200 the fault now    GET /admin/faults
//   GET /admin/requests, DELETE /admin/requests (clears)    GET /admin/approvals
HttpResponse handle_admin_request(EmulatorState& state, const HttpRequest& req, WallTime now);

}  // namespace cla
