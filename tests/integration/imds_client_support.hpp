// Integration-test support for ImdsClient: client options for an emulated VM, and the names its tests use.
#pragma once

#include <chrono>
#include <string>

#include "client_call.hpp"
#include "imds/imds_client.hpp"
#include "imds_emulator_process.hpp"

namespace cla::test {

// Both timeouts set to `timeout` unless a test changes first_request_timeout.
inline cla::ImdsClientOptions options_for(const ImdsEmulatorProcess& emulator, const std::string& vm,
                                          std::chrono::milliseconds timeout = std::chrono::seconds(2)) {
  cla::ImdsClientOptions options;
  options.endpoint = emulator.vm_endpoint(vm);
  options.request_timeout = timeout;
  options.first_request_timeout = timeout;
  return options;
}

}  // namespace cla::test

// The names an ImdsClient test uses unqualified: `using namespace cla::test::imds_client_tests;` at the top
// of the test file.
namespace cla::test::imds_client_tests {

using namespace cla::test::client_tests;
using Kind = cla::ImdsFailure::Kind;

}  // namespace cla::test::imds_client_tests
