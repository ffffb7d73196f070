// Everything imds-emulator knows: its VMs, each region's events, the active fault, and what it was asked.
#include "imds/emulator/emulator_state.hpp"

#include <algorithm>
#include <cctype>
#include <random>

namespace cla {
namespace {

std::vector<ModelVm> model_vms(const std::vector<EmulatedVm>& vms) {
  std::vector<ModelVm> out;
  for (const auto& vm : vms) out.push_back(ModelVm{vm.name, vm.region});
  return out;
}

std::vector<std::string> regions_of(const std::vector<EmulatedVm>& vms) {
  std::vector<std::string> out;
  for (const auto& vm : vms)
    if (std::find(out.begin(), out.end(), vm.region) == out.end()) out.push_back(vm.region);
  return out;
}

std::string lowercase_guid(std::mt19937_64& random) {
  std::string id = random_guid(random);
  for (char& c : id) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return id;
}

}  // namespace

EmulatorState::EmulatorState(std::vector<EmulatedVm> vms_in, std::chrono::milliseconds first_call_delay_in,
                             std::uint64_t seed, SharedApproval shared)
    : vms(std::move(vms_in)),
      regions(regions_of(vms)),
      events(model_vms(vms), seed, shared),
      first_call_delay(first_call_delay_in),
      first_get_done(vms.size(), false) {
  std::mt19937_64 random(seed ^ 0x5eedf00dULL);
  for (auto& vm : vms)
    if (vm.vm_id.empty()) vm.vm_id = lowercase_guid(random);
}

void EmulatorState::record(RequestRecord r) {
  requests.push_back(std::move(r));
  if (requests.size() > kMaxLog) requests.pop_front();
}

void EmulatorState::record(ApprovalRecord a) {
  approvals.push_back(std::move(a));
  if (approvals.size() > kMaxLog) approvals.pop_front();
}

}  // namespace cla
