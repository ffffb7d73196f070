// The Jolokia backend's reads and steps as conversations without I/O (SPEC 8.1). A read is one or two POSTs:
// `first()` gives the first POST's calls; `second(answers)` the second's from the first answers (none: the
// read is done); `finish(first answers, second answers)` the result, the structure its nodetool parser gives.
// jolokia_client.hpp runs them; the tests feed them captured answers.
#pragma once

#include <chrono>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "cassandra/jolokia/jolokia_answers.hpp"
#include "cassandra/jolokia/jolokia_describe.hpp"
#include "cassandra/jolokia/jolokia_requests.hpp"
#include "cassandra/jolokia/jolokia_ring.hpp"
#include "cassandra/nodetool_output/describecluster_parser.hpp"
#include "cassandra/nodetool_output/info_parser.hpp"
#include "cassandra/nodetool_output/ring_parser.hpp"
#include "cassandra/nodetool_output/status_parser.hpp"
#include "state/core_io.hpp"
#include "state/pending_hints.hpp"

namespace cla {

using JolokiaAnswers = std::span<const JolokiaValue>;

// A read of one round: no second POST.
struct OneRound {
  static Result<std::vector<JolokiaCall>, JolokiaError> second(JolokiaAnswers) {
    return std::vector<JolokiaCall>{};
  }
};

// nodetool status: the ring view, then the place of each of its endpoints.
struct StatusRead {
  using Value = ClusterStatus;
  static std::vector<JolokiaCall> first() { return ring_view_calls(); }
  static Result<std::vector<JolokiaCall>, JolokiaError> second(JolokiaAnswers first);
  static Result<Value, JolokiaError> finish(JolokiaAnswers first, JolokiaAnswers second);
};

// nodetool ring: the same two rounds as status.
struct RingRead {
  using Value = RingTable;
  static std::vector<JolokiaCall> first() { return ring_view_calls(); }
  static Result<std::vector<JolokiaCall>, JolokiaError> second(JolokiaAnswers first);
  static Result<Value, JolokiaError> finish(JolokiaAnswers first, JolokiaAnswers second);
};

// nodetool describecluster: describe_calls, then the DC of each endpoint and the replication of each
// keyspace.
struct DescribeClusterRead {
  using Value = ClusterDescription;
  static std::vector<JolokiaCall> first() { return describe_calls(); }
  static Result<std::vector<JolokiaCall>, JolokiaError> second(JolokiaAnswers first);
  static Result<Value, JolokiaError> finish(JolokiaAnswers first, JolokiaAnswers second);
};

// nodetool info (the lines the agent reads): one round.
struct InfoRead : OneRound {
  using Value = NodeInfo;
  static std::vector<JolokiaCall> first() { return info_calls(); }
  static Result<Value, JolokiaError> finish(JolokiaAnswers first, JolokiaAnswers second);
};

// nodetool statusgossip and statusbinary at once, with the node's operation mode: one round.
struct RunningState {
  bool gossip = false, native_transport = false;
  std::string operation_mode;  // StorageService's OperationMode: NORMAL, DRAINING, DRAINED, JOINING, ...
  friend bool operator==(const RunningState&, const RunningState&) = default;
};
std::ostream& operator<<(std::ostream& os, const RunningState& state);
struct RunningRead : OneRound {
  using Value = RunningState;
  static std::vector<JolokiaCall> first() { return running_calls(); }
  static Result<Value, JolokiaError> finish(JolokiaAnswers first, JolokiaAnswers second);
};

// The replica stages' completed tasks: one round. Cassandra registers a stage's metrics with its executor, on
// the stage's first task: a gauge Jolokia does not find (404) is a stage that has completed none.
struct StagesRead : OneRound {
  using Value = StageCounts;
  static std::vector<JolokiaCall> first() { return stages_calls(); }
  static Result<Value, JolokiaError> finish(JolokiaAnswers first, JolokiaAnswers second);
};

// The arguments of the JVM Jolokia runs in: one round.
struct JvmArgumentsRead : OneRound {
  using Value = std::vector<std::string>;
  static std::vector<JolokiaCall> first() { return jvm_arguments_calls(); }
  static Result<Value, JolokiaError> finish(JolokiaAnswers first, JolokiaAnswers second);
};

// The hints this node holds per target host: one round of HintsService PendingHints (a list of maps with
// host_id, total_files, oldest_timestamp, newest_timestamp), every HintsService metric (per peer
// Hints_created- and Hint_delays-<address>: the undelivered hints) and StorageService's
// EndpointWithPortToHostId (a peer's host id).
struct PendingHintsRead : OneRound {
  using Value = PendingHintsList;
  static std::vector<JolokiaCall> first() { return pending_hints_calls(); }
  static Result<Value, JolokiaError> finish(JolokiaAnswers first, JolokiaAnswers second);
};

// The hint window (StorageProxy MaxHintWindow, milliseconds): one round.
struct MaxHintWindowRead : OneRound {
  using Value = std::chrono::milliseconds;
  static std::vector<JolokiaCall> first() { return max_hint_window_calls(); }
  static Result<Value, JolokiaError> finish(JolokiaAnswers first, JolokiaAnswers second);
};

// A step's answer: done (the operation returned), or its refusal as Jolokia reported it (for a drained node,
// status 500 with Cassandra's exception: its type and message say why).
Result<void, JolokiaError> read_step_answer(JolokiaStep step, JolokiaAnswers answers);

}  // namespace cla
