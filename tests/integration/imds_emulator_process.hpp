// Test helper: runs the real imds-emulator on 127.0.0.1, learns its ports, and drives its admin API.
//
//   cla::test::ImdsEmulatorProcess emulator({{"vm0", 0}, {"vm1", 1}});
//   cla::ImdsClientOptions options{.endpoint = emulator.vm_endpoint("vm0")};
//   std::string id =
//       emulator.add_event({{"type", "Freeze"}, {"resources", {"vm0"}}, {"not_before_in_s", 5}});
//   emulator.set_fault({{"status", 500}, {"count", 2}});
//   boost::json::array seen = emulator.requests();  // what the VMs were asked
//   emulator.stop();                                 // SIGTERM; the destructor does it too
//
// Failures to start or to reach the admin API throw std::runtime_error (this is test code).
#pragma once

#include <boost/beast/http/verb.hpp>
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace cla::test {

struct EmulatorVm {
  std::string name;
  int fault_domain = 0;
  std::uint16_t port = 0;   // 0: any free port; give the old port to restart an emulator in place
  std::string zone = "";    // its compute document's availability zone ("": none)
  std::string region = "";  // its region, whose events it sees ("": the default region)
};

struct HttpReply {
  unsigned status = 0;
  std::string body;
  std::string content_type;
  boost::json::value json() const;  // throws std::runtime_error when the body is not JSON
};

using Headers = std::vector<std::pair<std::string, std::string>>;

// One HTTP/1.1 request to 127.0.0.1:port with Connection: close, at most `timeout`. Sends exactly the given
// headers (plus Host, Content-Length), so tests can omit "Metadata: true" on purpose.
HttpReply http_call(std::uint16_t port, boost::beast::http::verb verb, const std::string& target,
                    const std::string& body = {}, const Headers& headers = {},
                    std::chrono::milliseconds timeout = std::chrono::seconds(5));

class ImdsEmulatorProcess {
 public:
  // Starts CLA_BIN_DIR/imds-emulator with --vm NAME,FD,127.0.0.1:PORT per VM, --admin 127.0.0.1:0 and
  // extra_args, and waits (up to 10 s) for its listening lines on stdout. Its stderr is the test's stderr.
  explicit ImdsEmulatorProcess(std::vector<EmulatorVm> vms, std::vector<std::string> extra_args = {});
  ~ImdsEmulatorProcess();
  ImdsEmulatorProcess(const ImdsEmulatorProcess&) = delete;
  ImdsEmulatorProcess& operator=(const ImdsEmulatorProcess&) = delete;

  // A VM by name and region (a name is unique only within its region).
  std::uint16_t vm_port(const std::string& vm, const std::string& region = "") const;
  std::string vm_endpoint(const std::string& vm) const;  // "http://127.0.0.1:PORT", for ImdsClientOptions
  std::uint16_t admin_port() const { return admin_port_; }

  // SIGTERM, then waits up to 5 s (SIGKILL after that). Returns the exit code; later calls return it again.
  int stop();

  // The admin API. admin() returns any status; the others throw unless the status is 2xx.
  HttpReply admin(boost::beast::http::verb verb, const std::string& target,
                  const std::string& body = {}) const;
  std::string add_event(const boost::json::object& spec) const;  // POST /admin/events -> EventId
  void cancel_event(const std::string& id) const;                // DELETE /admin/events/{id}
  void set_fault(const boost::json::object& fault) const;        // POST /admin/faults ({} clears)
  boost::json::array events() const;                             // GET /admin/events
  boost::json::array requests() const;                           // GET /admin/requests
  boost::json::array approvals() const;                          // GET /admin/approvals
  void clear_requests() const;                                   // DELETE /admin/requests

 private:
  struct Child;
  std::unique_ptr<Child> child_;
  std::map<std::pair<std::string, std::string>, std::uint16_t> vm_ports_;  // by name and region
  std::uint16_t admin_port_ = 0;
  std::optional<int> exit_code_;
};

// Runs `args` through the emulator binary to completion (e.g. --help, bad options): exit code and output.
struct EmulatorRun {
  int exit_code = -1;
  std::string out, err;
};
EmulatorRun run_emulator_to_exit(const std::vector<std::string>& args,
                                 std::chrono::milliseconds timeout = std::chrono::seconds(10));

}  // namespace cla::test

// The names an emulator test uses unqualified: `using namespace cla::test::emulator_tests;` at the top of the
// test file.
namespace cla::test::emulator_tests {

using namespace cla::test;
using namespace std::chrono_literals;
namespace http = boost::beast::http;

}  // namespace cla::test::emulator_tests
