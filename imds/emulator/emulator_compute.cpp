// The compute metadata imds-emulator serves for a VM (GET /metadata/instance/compute).
#include "imds/emulator/emulator_compute.hpp"

#include <boost/json.hpp>

namespace cla {

boost::json::object compute_document(const EmulatedVm& vm) {
  namespace json = boost::json;
  const std::string subscription = "00000000-0000-4000-8000-000000000000";
  const std::string group = "rg-imds-emulator";
  const std::string fd = std::to_string(vm.fault_domain);
  return json::object{
      {"azEnvironment", "AzurePublicCloud"},
      {"evictionPolicy", ""},
      {"isHostCompatibilityLayerVm", "false"},
      {"licenseType", ""},
      {"location", vm.region.empty() ? "eastus2" : vm.region},
      {"name", vm.name},
      {"offer", "0001-com-ubuntu-server-jammy"},
      {"osProfile", json::object{{"adminUsername", "azureuser"},
                                 {"computerName", vm.name},
                                 {"disablePasswordAuthentication", "true"}}},
      {"osType", "Linux"},
      {"placementGroupId", ""},
      {"plan", json::object{{"name", ""}, {"product", ""}, {"publisher", ""}}},
      {"platformFaultDomain", fd},
      {"platformUpdateDomain", fd},
      {"priority", "Regular"},
      {"provider", "Microsoft.Compute"},
      {"publicKeys", json::array{}},
      {"publisher", "canonical"},
      {"resourceGroupName", group},
      {"resourceId", "/subscriptions/" + subscription + "/resourceGroups/" + group +
                         "/providers/Microsoft.Compute/virtualMachines/" + vm.name},
      {"securityProfile", json::object{{"secureBootEnabled", "true"}, {"virtualTpmEnabled", "true"}}},
      {"sku", "22_04-lts-gen2"},
      {"subscriptionId", subscription},
      {"tags", "app:cassandra;emulated:true"},
      {"tagsList", json::array{json::object{{"name", "app"}, {"value", "cassandra"}},
                               json::object{{"name", "emulated"}, {"value", "true"}}}},
      {"userData", ""},
      {"version", "22.04.202405140"},
      {"vmId", vm.vm_id},
      {"vmScaleSetName", ""},
      {"vmSize", "Standard_E16s_v5"},
      {"zone", vm.zone},
  };
}

}  // namespace cla
