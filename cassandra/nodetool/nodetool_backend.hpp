// The nodetool backend (SPEC 2.3 `cassandra.backend: nodetool`): one run of the configured nodetool argv a
// call, its output read by the nodetool parsers. A read runs in a process group that abandon_reads() kills.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "cassandra/node_backend.hpp"
#include "cassandra/nodetool/nodetool_runner.hpp"

namespace cla {

class NodetoolBackend final : public NodeBackend {
 public:
  // `proc`: where this host's processes are listed (/proc; tests give a directory of their own).
  NodetoolBackend(std::vector<std::string> argv_prefix, std::chrono::seconds command_timeout,
                  NodeCallObserver observer, std::filesystem::path proc = "/proc");

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
  // One run of `subcommand`, reported to the observer; a read (abandonable) in read_groups_, a step (and a
  // restore's confirmation) in step_groups_.
  boost::asio::awaitable<CommandOutcome> run(std::string_view subcommand, bool abandonable,
                                             std::optional<std::chrono::milliseconds> timeout = std::nullopt);
  // A read's output, or why there is none (failed, or cut short at its output limit).
  boost::asio::awaitable<NodeRead<std::string>> read(std::string_view subcommand, bool abandonable = true);

  NodetoolRunner runner_;
  NodeCallObserver observer_;
  std::filesystem::path proc_;
  // The read-only runs in flight; shared with them (their frames may outlive the backend at exit).
  std::shared_ptr<ProcessGroups> read_groups_ = std::make_shared<ProcessGroups>();
  std::shared_ptr<ProcessGroups> step_groups_ = std::make_shared<ProcessGroups>();
};

}  // namespace cla
