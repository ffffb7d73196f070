#include "cassandra/jolokia/jolokia_backend.hpp"

namespace cla {

namespace asio = boost::asio;
using Kind = JolokiaFailure::Kind;

namespace {

using Clock = std::chrono::steady_clock;

std::chrono::milliseconds since(Clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start);
}

JolokiaStep jolokia_step(NodeChange change) {
  switch (change) {
    case NodeChange::disable_binary:
      return JolokiaStep::stop_native_transport;
    case NodeChange::disable_gossip:
      return JolokiaStep::stop_gossiping;
    case NodeChange::drain:
      return JolokiaStep::drain;
    case NodeChange::enable_gossip:
      return JolokiaStep::start_gossiping;
    case NodeChange::enable_binary:
      return JolokiaStep::start_native_transport;
  }
  return JolokiaStep::start_native_transport;
}
}  // namespace

bool refused_after_drain(const JolokiaFailure& failure) {
  if (failure.kind != Kind::refused) return false;
  return says_refused_after_drain(failure.answer.message) || says_refused_after_drain(failure.detail);
}

JolokiaBackend::JolokiaBackend(asio::any_io_executor ex, const JolokiaClientOptions& options,
                               std::chrono::seconds command_timeout, NodeCallObserver observer)
    : reads_(ex, options),
      steps_(ex, options),
      command_timeout_(command_timeout),
      observer_(std::move(observer)) {}

template <class T, class Call>
asio::awaitable<NodeRead<T>> JolokiaBackend::read(std::string_view name, Call call, bool abandonable) {
  const auto start = Clock::now();
  std::size_t& in_flight = abandonable ? reads_in_flight_ : steps_in_flight_;
  ++in_flight;
  Result<T, JolokiaFailure> answer = co_await call(command_timeout_);
  --in_flight;
  NodeCallRecord record{.name = name, .ok = answer.ok(), .duration = since(start), .detail = ""};
  if (answer.ok()) {
    if (observer_) observer_(record);
    co_return std::move(answer).value();
  }
  const JolokiaFailure& f = answer.error();
  record.timed_out = f.kind == Kind::timeout;
  record.abandoned = f.kind == Kind::cancelled;
  record.unreachable = f.kind == Kind::connect;
  record.cut_short = f.kind == Kind::body_too_large;
  record.detail = describe(f);
  if (observer_) observer_(record);
  co_return NodeReadFailure{
      f.kind == Kind::bad_answer ? NodeReadFailure::Kind::unreadable : NodeReadFailure::Kind::failed,
      "jolokia " + std::string(name), record.detail, record.timed_out, record.abandoned};
}

asio::awaitable<NodeRead<ClusterStatus>> JolokiaBackend::status() {
  co_return co_await read<ClusterStatus>("status", [this](auto t) { return reads_.status(t); });
}

asio::awaitable<NodeRead<NodeInfo>> JolokiaBackend::info() {
  co_return co_await read<NodeInfo>("info", [this](auto t) { return reads_.info(t); });
}

asio::awaitable<NodeRead<ClusterDescription>> JolokiaBackend::describe_cluster() {
  co_return co_await read<ClusterDescription>("describecluster",
                                              [this](auto t) { return reads_.describe_cluster(t); });
}

asio::awaitable<NodeRead<RingTable>> JolokiaBackend::ring() {
  co_return co_await read<RingTable>("ring", [this](auto t) { return reads_.ring(t); });
}

asio::awaitable<NodeRead<bool>> JolokiaBackend::running(std::string_view name, bool gossip,
                                                        Abandonable abandonable) {
  const bool on_reads = abandonable == Abandonable::yes;
  JolokiaClient& client = on_reads ? reads_ : steps_;
  auto state = co_await read<RunningState>(
      name, [&client](auto t) { return client.running(t); }, on_reads);
  if (!state) co_return state.error();
  co_return gossip ? state->gossip : state->native_transport;
}

asio::awaitable<NodeRead<bool>> JolokiaBackend::gossip_running(Abandonable abandonable) {
  co_return co_await running("statusgossip", true, abandonable);
}

asio::awaitable<NodeRead<bool>> JolokiaBackend::binary_running(Abandonable abandonable) {
  co_return co_await running("statusbinary", false, abandonable);
}

asio::awaitable<NodeRead<StageCounts>> JolokiaBackend::stage_counts() {
  co_return co_await read<StageCounts>("tpstats", [this](auto t) { return reads_.stage_counts(t); });
}

asio::awaitable<NodeRead<std::vector<std::vector<std::string>>>> JolokiaBackend::jvm_arguments() {
  auto arguments = co_await read<std::vector<std::string>>(
      "jvm_arguments", [this](auto t) { return reads_.jvm_arguments(t); });
  if (!arguments) co_return arguments.error();
  co_return std::vector<std::vector<std::string>>{std::move(*arguments)};
}

asio::awaitable<NodeRead<PendingHintsList>> JolokiaBackend::pending_hints() {
  co_return co_await read<PendingHintsList>("listpendinghints",
                                            [this](auto t) { return reads_.pending_hints(t); });
}

asio::awaitable<NodeRead<std::chrono::milliseconds>> JolokiaBackend::max_hint_window() {
  co_return co_await read<std::chrono::milliseconds>("getmaxhintwindow",
                                                     [this](auto t) { return reads_.max_hint_window(t); });
}

asio::awaitable<NodeChangeAttempt> JolokiaBackend::change(NodeChange step,
                                                          std::chrono::milliseconds timeout) {
  NodeChangeAttempt attempt;
  attempt.started = Clock::now();
  ++steps_in_flight_;
  const auto done = co_await steps_.step(jolokia_step(step), std::min(timeout, command_timeout_));
  --steps_in_flight_;
  attempt.ended = Clock::now();
  NodeCallRecord record{
      .name = subcommand_of(step),
      .ok = done.ok(),
      .duration = std::chrono::duration_cast<std::chrono::milliseconds>(attempt.ended - attempt.started),
      .detail = ""};
  if (done.ok()) {
    attempt.ok = true;
  } else {
    const JolokiaFailure& f = done.error();
    attempt.refused_after_drain = refused_after_drain(f);
    attempt.unreachable = f.kind == Kind::connect;
    attempt.timed_out = f.kind == Kind::timeout;
    attempt.detail = describe(f);
    record.timed_out = attempt.timed_out;
    record.abandoned = f.kind == Kind::cancelled;
    record.unreachable = attempt.unreachable;
    record.detail = attempt.detail;
  }
  if (observer_) observer_(record);
  co_return attempt;
}

std::size_t JolokiaBackend::abandon_reads() {
  const std::size_t in_flight = reads_in_flight_;
  reads_.cancel();
  return in_flight;
}

std::size_t JolokiaBackend::abandon_steps() {
  const std::size_t in_flight = steps_in_flight_;
  steps_.cancel();
  return in_flight;
}

}  // namespace cla
