// The compute metadata imds-emulator serves for a VM (GET /metadata/instance/compute).
#pragma once

#include <boost/json/object.hpp>

#include "imds/emulator/emulator_state.hpp"

namespace cla {

// Realistic api-version 2021-02-01 fields in IMDS's alphabetical order, every primitive a string
// (modelled on the constructed Cassandra VM of reference B3-03): name, platformFaultDomain, zone and location
// (the region) from the --vm option, the rest fixed but plausible. Azure always names a location: the
// default region's VMs say eastus2, as B3-03 does.
boost::json::object compute_document(const EmulatedVm& vm);

}  // namespace cla
