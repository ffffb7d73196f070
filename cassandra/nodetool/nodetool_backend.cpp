#include "cassandra/nodetool/nodetool_backend.hpp"

#include "cassandra/nodetool/cassandra_processes.hpp"
#include "cassandra/nodetool_output/max_hint_window_parser.hpp"
#include "cassandra/nodetool_output/pending_hints_parser.hpp"
#include "cassandra/nodetool_output/running_parser.hpp"
#include "cassandra/nodetool_output/tpstats_parser.hpp"

namespace cla {

namespace asio = boost::asio;

NodetoolBackend::NodetoolBackend(std::vector<std::string> argv_prefix, std::chrono::seconds command_timeout,
                                 NodeCallObserver observer, std::filesystem::path proc)
    : runner_(std::move(argv_prefix), command_timeout),
      observer_(std::move(observer)),
      proc_(std::move(proc)) {}

asio::awaitable<CommandOutcome> NodetoolBackend::run(std::string_view subcommand, bool abandonable,
                                                     std::optional<std::chrono::milliseconds> timeout) {
  // Named, not a temporary of the co_await's expression: GCC 12 destroys a conditional's temporary there
  // twice.
  std::shared_ptr<ProcessGroups> groups = abandonable ? read_groups_ : step_groups_;
  CommandOutcome out = co_await runner_.run(std::string(subcommand), std::move(groups), timeout);
  if (observer_)
    observer_({.name = subcommand,
               .ok = out.ok(),
               .timed_out = out.timed_out,
               .abandoned = out.abandoned,
               .cut_short = out.truncated,
               .unreachable = is_connect_failure(out),
               .duration = out.duration,
               .detail = out.ok() && !out.truncated ? "" : out.summary()});
  co_return out;
}

asio::awaitable<NodeRead<std::string>> NodetoolBackend::read(std::string_view subcommand, bool abandonable) {
  CommandOutcome out = co_await run(subcommand, abandonable);
  NodeReadFailure failure{NodeReadFailure::Kind::failed, "nodetool " + std::string(subcommand), "",
                          out.timed_out, out.abandoned};
  if (!out.ok()) {
    failure.detail = out.summary();
    co_return failure;
  }
  if (out.truncated) {
    // A listing cut short must never read as a shorter cluster.
    failure.detail = "printed more than its output limit (" + std::to_string(out.out.size()) + " bytes kept)";
    co_return failure;
  }
  co_return std::move(out.out);
}

namespace {
// `subcommand`'s output as `parse` reads it, or why not.
template <class Parse>
auto parsed(std::string_view subcommand, NodeRead<std::string> text, Parse parse)
    -> NodeRead<std::decay_t<decltype(parse(std::string_view{}).value())>> {
  if (!text) return text.error();
  auto value = parse(*text);
  if (!value)
    return NodeReadFailure{NodeReadFailure::Kind::unreadable, "nodetool " + std::string(subcommand),
                           value.error().message};
  return std::move(value).value();
}
}  // namespace

asio::awaitable<NodeRead<ClusterStatus>> NodetoolBackend::status() {
  co_return parsed("status", co_await read("status"), parse_nodetool_status);
}

asio::awaitable<NodeRead<NodeInfo>> NodetoolBackend::info() {
  co_return parsed("info", co_await read("info"), parse_nodetool_info);
}

asio::awaitable<NodeRead<ClusterDescription>> NodetoolBackend::describe_cluster() {
  co_return parsed("describecluster", co_await read("describecluster"), parse_nodetool_describecluster);
}

asio::awaitable<NodeRead<RingTable>> NodetoolBackend::ring() {
  co_return parsed("ring", co_await read("ring"), parse_nodetool_ring);
}

asio::awaitable<NodeRead<bool>> NodetoolBackend::gossip_running(Abandonable abandonable) {
  co_return parsed("statusgossip", co_await read("statusgossip", abandonable == Abandonable::yes),
                   parse_running);
}

asio::awaitable<NodeRead<bool>> NodetoolBackend::binary_running(Abandonable abandonable) {
  co_return parsed("statusbinary", co_await read("statusbinary", abandonable == Abandonable::yes),
                   parse_running);
}

asio::awaitable<NodeRead<StageCounts>> NodetoolBackend::stage_counts() {
  co_return parsed("tpstats", co_await read("tpstats"), parse_tpstats);
}

asio::awaitable<NodeRead<PendingHintsList>> NodetoolBackend::pending_hints() {
  co_return parsed("listpendinghints", co_await read("listpendinghints"), parse_listpendinghints);
}

asio::awaitable<NodeRead<std::chrono::milliseconds>> NodetoolBackend::max_hint_window() {
  co_return parsed("getmaxhintwindow", co_await read("getmaxhintwindow"), parse_getmaxhintwindow);
}

// nodetool cannot ask the JVM for its arguments: this host's processes tell them (a short read of /proc).
asio::awaitable<NodeRead<std::vector<std::vector<std::string>>>> NodetoolBackend::jvm_arguments() {
  co_return cassandra_command_lines(proc_);
}

asio::awaitable<NodeChangeAttempt> NodetoolBackend::change(NodeChange step,
                                                           std::chrono::milliseconds timeout) {
  const CommandOutcome out = co_await run(subcommand_of(step), false, timeout);
  NodeChangeAttempt attempt{false, false, false, out.timed_out, "", out.started, out.ended};
  const std::string printed_error = error_despite_exit_0(out);
  if (out.ok() && printed_error.empty()) {
    attempt.ok = true;
    co_return attempt;
  }
  attempt.refused_after_drain = is_refused_after_drain(out);
  attempt.unreachable = is_connect_failure(out);
  attempt.detail = printed_error.empty() ? out.summary() : "exit 0 but printed: " + printed_error;
  co_return attempt;
}

std::size_t NodetoolBackend::abandon_reads() {
  return read_groups_->kill_all();
}

std::size_t NodetoolBackend::abandon_steps() {
  return step_groups_->kill_all();
}

}  // namespace cla
