// Parses GET /metadata/instance/compute: the VM's resource name and platform fault domain.
#pragma once

#include <boost/json/value.hpp>
#include <string>
#include <string_view>

#include "state/result.hpp"

namespace cla {

struct ComputeInfo {
  std::string name;               // compute.name: the name Scheduled Events lists in Resources
  int platform_fault_domain = 0;  // compute.platformFaultDomain
  std::string zone;               // compute.zone: the availability zone ("1".."3"), "" outside zones
};

// Never throws. IMDS gives every primitive as a string ("platformFaultDomain":"0"); a JSON integer is
// accepted too. A whole /metadata/instance document (with a "compute" object) is accepted as well. Other
// fields are ignored. Errors name the field: a missing or empty name, a fault domain that is not an integer
// in 0..1000.
Result<ComputeInfo> parse_compute(std::string_view body);

// The same on already-parsed JSON (the client uses it to tell invalid JSON from a wrong shape).
Result<ComputeInfo> compute_from_json(const boost::json::value& json);

}  // namespace cla
