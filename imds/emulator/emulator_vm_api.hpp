// imds-emulator's per-VM endpoint: Scheduled Events GET/POST and compute metadata, as the Azure docs
// describe.
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "imds/emulator/emulator_http.hpp"
#include "imds/emulator/emulator_state.hpp"

namespace cla {

// The request target as the VM endpoint routes it.
struct VmTarget {
  enum class Route { scheduled_events, compute, other_metadata, outside };
  bool valid = false;
  std::string path, query;
  std::optional<std::string> api_version;
  bool duplicate_parameter = false;
  Route route = Route::outside;
};

// Decided when a request arrives, before any waiting: how long to hold it (the VM's first-call delay, a
// delay fault) and which fault it meets. Consumes the first-call delay and one use of a counted fault.
// Carries the parsed target, so a request's URL is parsed once.
struct Admission {
  std::chrono::milliseconds delay{0};
  std::optional<Fault> fault;
  VmTarget target;
};
Admission admit_vm_request(EmulatorState& state, std::size_t vm, const HttpRequest& req);

// The answer after the admission's delay: advances the events to `now` and records the request. Real IMDS
// behaviour: 400 {"error":...} on X-Forwarded-For, on a missing "Metadata: true", on duplicate query
// parameters, on a missing or unknown api-version (with "newest-versions"); POST 200 for known EventIds
// (case-insensitive; repeated approvals too), 400 for a malformed body or an unknown EventId; 405 for other
// methods; 404 {"error":...} under /metadata, an IIS-style HTML 404 elsewhere.
// `admission` is what admit_vm_request gave for this very request.
HttpResponse handle_vm_request(EmulatorState& state, std::size_t vm, const HttpRequest& req,
                               const Admission& admission, WallTime now, std::uint64_t connection = 0);

// How the answer to a request that met `admission` goes on the wire.
Delivery delivery_of(const Admission& admission);

}  // namespace cla
