// Everything imds-emulator knows: its VMs, each region's events, the active fault, and what it was asked.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "imds/emulator/emulator_document.hpp"
#include "imds/emulator/emulator_events.hpp"

namespace cla {

struct EmulatedVm {
  std::string name;
  int fault_domain = 0;
  std::string zone = "";    // compute's "zone" ("" outside availability zones)
  std::string vm_id;        // lowercase GUID for the compute document (filled by EmulatorState)
  std::string region = "";  // its availability set: whose events it sees (ModelVm::region)
};

// Injected on the scheduledevents endpoint of every VM (valid requests only: the 400s stay visible).
struct Fault {
  std::optional<int> status;                // answer this status with an {"error":...} body
  std::chrono::milliseconds delay{0};       // wait this long before answering
  bool malformed = false;                   // GET answers 200 with a truncated document
  std::optional<std::string> body;          // GET answers 200 with exactly this body
  std::chrono::milliseconds drip{0};        // send the answer 16 bytes at a time, this long apart
  bool close_mid_body = false;              // send the head and half the body, then close the connection
  std::int64_t pad_bytes = 0;               // GET documents padded with this many spaces (still valid JSON)
  std::optional<std::int64_t> incarnation;  // GET documents carry this DocumentIncarnation
  bool flap = false;                        // every other GET omits the Scheduled events
  std::int64_t not_before_shift_s = 0;      // NotBefore served this far off (a client's clock stepped by -N)
  std::optional<std::int64_t> remaining;  // requests left before the fault clears itself; none: until cleared
  bool active() const {
    return status || delay.count() > 0 || malformed || body || drip.count() > 0 || close_mid_body ||
           pad_bytes > 0 || incarnation || flap || not_before_shift_s != 0;
  }
};

// How the server puts an answer on the wire (set by faults).
struct Delivery {
  std::chrono::milliseconds drip{0};
  bool close_mid_body = false;
};

struct RequestRecord {
  WallTime t;
  std::string vm;
  std::string method;
  std::string path;   // without the query
  std::string query;  // as received, e.g. "api-version=2020-07-01"
  int status = 0;
  bool metadata_header = false;  // "Metadata: true" was sent
  std::uint64_t connection = 0;  // which TCP connection carried it (numbered from 1 per emulator run)
  std::string region = "";       // the VM's
};

struct ApprovalRecord {
  WallTime t;
  std::string vm;
  std::string event_id;     // the event's id as the emulator spells it (uppercase)
  std::string region = "";  // the VM's, which is the event's
};

struct EmulatorState {
  static constexpr std::size_t kMaxLog = 50000;  // oldest entries dropped beyond this (long game days)

  EmulatorState(std::vector<EmulatedVm> vms, std::chrono::milliseconds first_call_delay, std::uint64_t seed,
                SharedApproval shared = SharedApproval::any);

  std::vector<EmulatedVm> vms;
  std::vector<std::string> regions;  // the VMs' regions, each once, in the order first named
  EventModel events;
  Fault fault;
  std::chrono::milliseconds first_call_delay;
  std::vector<bool> first_get_done;  // per VM: the first scheduledevents GET was delayed already
  std::uint64_t flap_gets = 0;       // GETs answered under a flap fault (odd ones hide the Scheduled events)
  std::deque<RequestRecord> requests;
  std::deque<ApprovalRecord> approvals;
  EventsDocumentCache documents;  // each region's GET body, serialized once per change of `events`

  void record(RequestRecord r);
  void record(ApprovalRecord a);
};

}  // namespace cla
