// imds-emulator: a local stand-in for Azure IMDS Scheduled Events, for tests, demos and game days.
#include <unistd.h>

#include <boost/program_options.hpp>
#include <cstdlib>
#include <iostream>

#include "imds/emulator/emulator_server.hpp"
#include "imds/process/process_runner.hpp"

namespace po = boost::program_options;

namespace {

constexpr const char* kHelp = R"(imds-emulator: a local stand-in for Azure IMDS Scheduled Events.

Usage:
  imds-emulator --vm NAME,FAULT_DOMAIN,HOST:PORT[,ZONE][,region=REGION] [--vm ...] [--admin HOST:PORT]
                [--first-call-delay-ms N] [--impact-hook PATH] [--shared-approval any|all]
                [--close-after-answer] [--allow-remote]

Options:
  --vm NAME,FAULT_DOMAIN,HOST:PORT[,ZONE][,region=REGION]
                          One emulated VM (repeatable): its resource name as Scheduled Events lists it, its
                          platform fault domain, where its IMDS listens, its availability zone for the
                          compute document (omitted: "", a VM outside zones), and its region (1..32 letters,
                          digits or '-'; omitted: the default region ""). A region is one availability set:
                          its VMs see its events and no other region's. A name is unique within its region;
                          two regions may each have a vm0. PORT 0 picks a free port. Each VM gets its own
                          port because the agent finds IMDS by address.
  --admin HOST:PORT       Where the admin API listens (default 127.0.0.1:0).
  --first-call-delay-ms N Hold each VM's first Scheduled Events GET for N ms, as Azure does while it enables
                          the service (up to two minutes on a real VM). Default 0.
  --impact-hook PATH      Play each impact on the machine: run PATH (argv, never a shell; no arguments) for
                          every emulated VM an event lists, when the event becomes Started (IMDS_PHASE=start)
                          and when it leaves the document after starting, completed or cancelled
                          (IMDS_PHASE=end). Its environment: IMDS_PHASE, IMDS_VM, IMDS_REGION (the VM's,
                          "" for the default region), IMDS_EVENT_ID, IMDS_EVENT_TYPE, IMDS_EVENT_SOURCE,
                          IMDS_DURATION_S. Runs for one VM follow each other in order; VMs run
                          concurrently; the server never waits for them. Each run's exit status and output
                          are logged to stderr as one JSON line
                          ({"impact_hook":"start","vm":"vm0","region":"",...}); a failing hook is logged,
                          never fatal. A run is killed after max(duration,0) s + 5 min. A hook that leaves
                          a process behind should point its output elsewhere (the run ends at EOF).
                          scripts/cluster/impact-hook.sh plays Azure's impact on the nodes of
                          scripts/cassandra-cluster.sh.
  --shared-approval any|all
                          How approvals act on an event that lists several VMs. any (default, the Azure
                          docs' reading): the first approval by any listed VM starts it for all of them.
                          all (the case study's reading): it starts only once every listed VM approved.
                          An approval by a VM the event does not list counts for nothing in both. Under all,
                          a listed name that is no VM of the event's region (another tenant's, or a VM of
                          another region) never approves: the event waits for its NotBefore.
  --close-after-answer    Answer every VM request with Connection: close and end the connection, as a
                          server that does not keep connections alive does (clients must reconnect).
  --allow-remote          Allow non-loopback listen addresses. Without it they are refused (exit 2): the
                          emulator has no authentication and must not face a network.
  --help                  This text.

On start it prints one JSON line per listener to stdout, so scripts learn the ports:
  {"listening":"vm","vm":"vm0","region":"","address":"127.0.0.1:41234"}
  {"listening":"admin","address":"127.0.0.1:41235"}
It stops on SIGTERM or SIGINT with exit 0. Exit 2: bad usage; 1: a listener could not be bound.

What each VM serves (as the Azure docs describe IMDS):
  GET  /metadata/scheduledevents?api-version=2020-07-01   the events document (compact JSON)
  POST /metadata/scheduledevents?api-version=2020-07-01   {"StartRequests":[{"EventId":"..."}]} approves
  GET  /metadata/instance/compute?api-version=2021-02-01  name, platformFaultDomain, zone, location (the
                                                          region; eastus2 for the default one), and more
  Requests need the header "Metadata: true" (else 400), a known api-version (else 400 listing the newest
  versions; Scheduled Events knows 2017-03-01 .. 2020-07-01), and no X-Forwarded-For header (else 400).
  An approval of a known EventId answers 200 even when repeated; an unknown EventId (or another region's) or
  a malformed body 400.

How events behave:
  Every event belongs to a region, and all VMs of that region see it, as the VMs of one availability set do;
  VMs of other regions never see it. Each VM has its own DocumentIncarnation, raised on every change of its
  region's events. An event is Scheduled until a VM of its region named in its resources approved it
  (--shared-approval any) or every one did (all), or its NotBefore passes; then it is Started (NotBefore "");
  it is removed max(duration_s,0)+complete_after_s seconds later. Names in resources that are not emulated
  VMs of the event's region never approve (other tenants).

Admin API (JSON in and out, times as Unix seconds, t_ms in milliseconds):
  POST   /admin/events     {"type":"Freeze","resources":["vm0"],"not_before_in_s":60,"duration_s":5,
                            "source":"Platform","description":"...","started":false,"complete_after_s":10,
                            "region":"eastus2"}
                           -> 201 {"EventId":"..."}. Only type and resources are required, and region
                           when every VM names one (else 400); an unknown region is a 400. Defaults:
                           not_before_in_s = the documented minimum notice (Freeze/Reboot 900, Redeploy 600,
                           Terminate 300, Preempt 30), duration_s 5 for Freeze else -1, source "Platform",
                           Azure's description for the type, started false, complete_after_s 10, region
                           "" (the default region).
                           "started": true plays a hardware failure: Started at once, no Scheduled phase.
  GET    /admin/events     current events with region, status, approvals, not_before (and not_before_ms),
                           started_at, removal_at, and created_at_ms, started_at_ms, removal_at_ms
                           (the instants the document changed, in milliseconds)
  DELETE /admin/events/ID  cancel: the event disappears (204; 404 if unknown)
  POST   /admin/faults     on every VM's scheduledevents endpoint: {"status":500} answer that status,
                           {"delay_ms":3000} answer late, {"malformed":true} truncated JSON,
                           {"body":"..."} this exact GET body, {"drip_ms":N} the answer 16 bytes every
                           N ms, {"close_mid_body":true} half the body then a closed connection,
                           {"pad_bytes":N} documents padded with N spaces, {"incarnation":N} this
                           DocumentIncarnation, {"flap":true} every other GET without the Scheduled
                           events, {"not_before_shift_s":N} NotBefore served N s off (a VM clock
                           stepped by -N s); combine them, add "count":N to fault only the next N
                           requests; {} clears
  GET    /admin/faults     the fault in force
  GET    /admin/requests   [{"t","t_ms","vm","region","method","path","query","status","metadata_header",
                             "connection"}...]  (connection: which TCP connection carried the request)
  DELETE /admin/requests   forget them
  GET    /admin/approvals  [{"t","t_ms","vm","region","event_id"}...]
  GET    /admin/vms        [{"vm","region","fault_domain","incarnation"}...]
  A bad request gets 400 {"error":"field: what is wrong","field":"..."}.

Driving it by hand:
  imds-emulator --vm vm0,0,127.0.0.1:8080 --vm vm1,1,127.0.0.1:8081 --admin 127.0.0.1:8090 &
  curl -s -H Metadata:true 'http://127.0.0.1:8080/metadata/scheduledevents?api-version=2020-07-01'
  curl -s -X POST http://127.0.0.1:8090/admin/events \
       -d '{"type":"Reboot","resources":["vm0"],"not_before_in_s":120}'
  curl -s -H Metadata:true -X POST 'http://127.0.0.1:8080/metadata/scheduledevents?api-version=2020-07-01' \
       -d '{"StartRequests":[{"EventId":"<EventId from above>"}]}'
  curl -s http://127.0.0.1:8090/admin/events
  curl -s -X POST http://127.0.0.1:8090/admin/faults -d '{"status":429,"count":3}'
  curl -s http://127.0.0.1:8090/admin/requests

Two regions, each with a vm0 (an event goes to one region's VMs only):
  imds-emulator --vm vm0,0,127.0.0.1:8080,region=eastus2 --vm vm1,1,127.0.0.1:8081,2,region=eastus2 \
                --vm vm0,0,127.0.0.1:8180,region=westus3 --admin 127.0.0.1:8090 &
  curl -s -X POST http://127.0.0.1:8090/admin/events \
       -d '{"type":"Freeze","resources":["vm0","vm1"],"region":"eastus2","not_before_in_s":120}'
  curl -s -H Metadata:true 'http://127.0.0.1:8180/metadata/scheduledevents?api-version=2020-07-01'  # none
)";

int usage_error(const std::string& message) {
  std::cerr << "imds-emulator: " << message << "\n(see imds-emulator --help)\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  po::options_description options;
  options.add_options()("help", "")("vm", po::value<std::vector<std::string>>(), "")(
      "admin", po::value<std::string>()->default_value("127.0.0.1:0"), "")(
      "first-call-delay-ms", po::value<long>()->default_value(0), "")(
      "impact-hook", po::value<std::string>(), "")("shared-approval",
                                                   po::value<std::string>()->default_value("any"),
                                                   "")("close-after-answer", "")("allow-remote", "");
  po::variables_map vars;
  try {
    po::store(po::command_line_parser(argc, argv).options(options).run(), vars);
    po::notify(vars);
  } catch (const po::error& e) {
    return usage_error(e.what());
  }
  if (vars.count("help")) {
    std::cout << kHelp;
    return 0;
  }
  const bool allow_remote = vars.count("allow-remote") > 0;
  cla::EmulatorConfig config;
  if (!vars.count("vm")) return usage_error("give at least one --vm NAME,FAULT_DOMAIN,HOST:PORT");
  auto vms = cla::parse_vm_options(vars["vm"].as<std::vector<std::string>>(), allow_remote);
  if (!vms) return usage_error(vms.error().message);
  config.vms = std::move(*vms);
  auto admin = cla::parse_listen_address(vars["admin"].as<std::string>(), allow_remote);
  if (!admin) return usage_error("--admin " + admin.error().message);
  config.admin = *admin;
  const long delay = vars["first-call-delay-ms"].as<long>();
  if (delay < 0 || delay > 600000) return usage_error("--first-call-delay-ms must be 0..600000");
  config.first_call_delay = std::chrono::milliseconds(delay);
  if (vars.count("impact-hook")) {
    config.impact_hook = vars["impact-hook"].as<std::string>();
    const char* path_env = std::getenv("PATH");
    if (auto found = cla::resolve_program(config.impact_hook, path_env ? path_env : ""); !found)
      return usage_error("--impact-hook: " + found.error().message);
    if (::access(config.impact_hook.c_str(), X_OK) != 0 && config.impact_hook.find('/') != std::string::npos)
      return usage_error("--impact-hook " + config.impact_hook + ": not an executable file");
  }
  const std::string shared = vars["shared-approval"].as<std::string>();
  if (shared != "any" && shared != "all") return usage_error("--shared-approval must be any or all");
  config.shared_approval = shared == "any" ? cla::SharedApproval::any : cla::SharedApproval::all;
  config.close_after_answer = vars.count("close-after-answer") > 0;
  try {
    return cla::run_emulator(config, std::cout, std::cerr);
  } catch (const std::exception& e) {
    std::cerr << "imds-emulator: fatal: " << e.what() << "\n";
    return 1;
  }
}
