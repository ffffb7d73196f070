// What the agent reads from its Cassandra node and does to it (SPEC 2.3 `cassandra.backend`): the gate's
// reads, the running states, and the drain's and restore's steps, behind one interface. The nodetool backend
// runs one JVM a call; another backend may reach the running JVM itself. The same calls, answers and failures
// for both: the daemon logs, counts and decides alike whatever the transport.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <chrono>
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "cassandra/nodetool_output/describecluster_parser.hpp"
#include "cassandra/nodetool_output/info_parser.hpp"
#include "cassandra/nodetool_output/ring_parser.hpp"
#include "cassandra/nodetool_output/status_parser.hpp"
#include "state/core_io.hpp"
#include "state/pending_hints.hpp"
#include "state/result.hpp"

namespace cla {

// Why a read gave no usable answer. `call` names it as an operator would type it ("nodetool status").
struct NodeReadFailure {
  enum class Kind {
    failed,      // no answer: the call failed, timed out, was abandoned, or its answer was cut short
    unreadable,  // an answer that cannot be read as what was asked
  };
  Kind kind = Kind::failed;
  std::string call;
  std::string detail;
  bool timed_out = false;
  bool abandoned = false;
  // "nodetool status failed<suffix>: <detail>" or "cannot read nodetool status<suffix>: <detail>".
  std::string message(std::string_view suffix = "") const;
};

template <class T>
using NodeRead = Result<T, NodeReadFailure>;

// The steps that change the node (the drain's and the restore's), by the nodetool subcommand they are.
enum class NodeChange { disable_binary, disable_gossip, drain, enable_gossip, enable_binary };
std::string_view subcommand_of(NodeChange change);

// Whether Cassandra's message refuses a step because of a drain: "because the node was drained", "is
// draining", or "not in the normal state" (disablegossip after drain; also enablegossip while the node is
// still starting), whichever transport carried it.
bool says_refused_after_drain(std::string_view message);

// One attempt at a step.
struct NodeChangeAttempt {
  bool ok = false;
  bool refused_after_drain = false;  // the node refuses because it was drained: retrying cannot help
  bool unreachable = false;          // the node's management interface did not answer (down, starting)
  bool timed_out = false;
  std::string detail;  // why not, one line; empty when ok
  // The call's start and end: what the agent adds around the node's own work is measured from them (SPEC 4).
  std::chrono::steady_clock::time_point started{}, ended{};
};

// Every call a backend makes, as it ends: what the daemon logs and counts whatever the transport.
struct NodeCallRecord {
  std::string_view name;  // the nodetool subcommand it stands for: "status", "disablebinary", ...
  bool ok = false, timed_out = false, abandoned = false;
  bool cut_short = false;    // it answered more than its limit: the answer was refused
  bool unreachable = false;  // the node's management interface did not answer (down, starting)
  std::chrono::milliseconds duration{0};
  std::string detail;  // why not ok (or cut short), one line
};
using NodeCallObserver = std::function<void(const NodeCallRecord&)>;

class NodeBackend {
 public:
  virtual ~NodeBackend() = default;

  // Reads: each may be abandoned by abandon_reads() while it runs (SPEC 3.9), but a restore's confirmation
  // (Abandonable::no), which is a step of its own.
  enum class Abandonable { yes, no };
  virtual boost::asio::awaitable<NodeRead<ClusterStatus>> status() = 0;
  virtual boost::asio::awaitable<NodeRead<NodeInfo>> info() = 0;
  virtual boost::asio::awaitable<NodeRead<ClusterDescription>> describe_cluster() = 0;
  virtual boost::asio::awaitable<NodeRead<RingTable>> ring() = 0;
  virtual boost::asio::awaitable<NodeRead<bool>> gossip_running(Abandonable abandonable) = 0;
  virtual boost::asio::awaitable<NodeRead<bool>> binary_running(Abandonable abandonable) = 0;
  // The replica stages' completed tasks (SPEC 3.10: is the node out of the request path?).
  virtual boost::asio::awaitable<NodeRead<StageCounts>> stage_counts() = 0;
  // The arguments of the JVMs that may be this node's Cassandra (SPEC 3.10: its shutdown announce's setting,
  // shutdown_announce.hpp): the one Jolokia runs in, or every CassandraDaemon on this host.
  virtual boost::asio::awaitable<NodeRead<std::vector<std::vector<std::string>>>> jvm_arguments() = 0;
  // SPEC 3.10: the closed hints files this node holds per target host (`nodetool listpendinghints`), and its
  // hint window (`nodetool getmaxhintwindow`): how long a peer may be out before its hints are lost.
  virtual boost::asio::awaitable<NodeRead<PendingHintsList>> pending_hints() = 0;
  virtual boost::asio::awaitable<NodeRead<std::chrono::milliseconds>> max_hint_window() = 0;

  // One attempt at a step, bounded by `timeout` (and by the backend's own command timeout when shorter).
  // Never abandoned by abandon_reads(): a step that changes the node runs to its end or its bound, unless
  // abandon_steps() ends it.
  virtual boost::asio::awaitable<NodeChangeAttempt> change(NodeChange step,
                                                           std::chrono::milliseconds timeout) = 0;

  // Ends every read in flight at once (their answers say abandoned); how many there were.
  virtual std::size_t abandon_reads() = 0;
  // Ends every step in flight, and the restore's confirmation (Abandonable::no), at once: a restore's step
  // when a drain is due (SPEC 3.9); never asked while a drain's step runs. How many there were.
  virtual std::size_t abandon_steps() = 0;
};

}  // namespace cla
