// The Jolokia backend (SPEC 2.3 `cassandra.backend: jolokia`, 8.1): the node's reads and steps as HTTP
// requests to the Jolokia JVM agent inside Cassandra, on kept-alive connections. Reads and steps have a
// client each, so that abandon_reads() (SPEC 3.9) cancels the reads in flight and never a step;
// abandon_steps() cancels a restore's step when a drain is due.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <chrono>
#include <cstddef>

#include "cassandra/jolokia/jolokia_client.hpp"
#include "cassandra/node_backend.hpp"

namespace cla {

class JolokiaBackend final : public NodeBackend {
 public:
  // Every call is bounded by `command_timeout` (a step by its own timeout when shorter).
  JolokiaBackend(boost::asio::any_io_executor ex, const JolokiaClientOptions& options,
                 std::chrono::seconds command_timeout, NodeCallObserver observer);

  boost::asio::awaitable<NodeRead<ClusterStatus>> status() override;
  boost::asio::awaitable<NodeRead<NodeInfo>> info() override;
  boost::asio::awaitable<NodeRead<ClusterDescription>> describe_cluster() override;
  boost::asio::awaitable<NodeRead<RingTable>> ring() override;
  boost::asio::awaitable<NodeRead<bool>> gossip_running(Abandonable abandonable) override;
  boost::asio::awaitable<NodeRead<bool>> binary_running(Abandonable abandonable) override;
  boost::asio::awaitable<NodeRead<StageCounts>> stage_counts() override;
  boost::asio::awaitable<NodeRead<std::vector<std::vector<std::string>>>> jvm_arguments() override;
  boost::asio::awaitable<NodeRead<PendingHintsList>> pending_hints() override;
  boost::asio::awaitable<NodeRead<std::chrono::milliseconds>> max_hint_window() override;
  boost::asio::awaitable<NodeChangeAttempt> change(NodeChange step,
                                                   std::chrono::milliseconds timeout) override;
  std::size_t abandon_reads() override;
  std::size_t abandon_steps() override;

 private:
  // One read through `client`, timed and reported to the observer under `name` (the nodetool subcommand it
  // stands for).
  // `abandonable`: a read on reads_, which abandon_reads() cancels (and counts).
  template <class T, class Call>
  boost::asio::awaitable<NodeRead<T>> read(std::string_view name, Call call, bool abandonable = true);
  boost::asio::awaitable<NodeRead<bool>> running(std::string_view name, bool gossip, Abandonable abandonable);

  JolokiaClient reads_;
  JolokiaClient steps_;  // and the reads a drain may not abandon (a restore's confirmation)
  std::chrono::milliseconds command_timeout_;
  NodeCallObserver observer_;
  std::size_t reads_in_flight_ = 0;
  std::size_t steps_in_flight_ = 0;  // on steps_: changes and a restore's confirmation
};

// Whether a refusal of a step says the node was drained (says_refused_after_drain of Cassandra's
// IllegalStateException): retrying cannot help.
bool refused_after_drain(const JolokiaFailure& failure);

}  // namespace cla
