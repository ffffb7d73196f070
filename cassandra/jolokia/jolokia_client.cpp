// JolokiaClient: the reads and steps of jolokia_reads.hpp POSTed over one kept-alive HttpConnection.
#include "cassandra/jolokia/jolokia_client.hpp"

#include <boost/beast/http/field.hpp>
#include <boost/beast/http/verb.hpp>

#include "imds/json_read.hpp"
#include "imds/transport/call_queue.hpp"
#include "imds/transport/http_connection.hpp"

namespace cla {
namespace {

namespace asio = boost::asio;
namespace http = boost::beast::http;
using Kind = JolokiaFailure::Kind;
using Clock = std::chrono::steady_clock;
using Values = std::vector<JolokiaValue>;

JolokiaFailure failure(Kind kind, std::string detail) {
  JolokiaFailure f;
  f.kind = kind;
  f.detail = std::move(detail);
  return f;
}

JolokiaFailure answer_failure(JolokiaError error) {
  JolokiaFailure f =
      failure(error.kind == JolokiaError::Kind::refused ? Kind::refused : Kind::bad_answer, error.message);
  f.answer = std::move(error);
  return f;
}

}  // namespace

std::string_view to_string(Kind kind) {
  switch (kind) {
    case Kind::connect:
      return "connect";
    case Kind::timeout:
      return "timeout";
    case Kind::cancelled:
      return "cancelled";
    case Kind::tls:
      return "tls";
    case Kind::http_status:
      return "http_status";
    case Kind::body_too_large:
      return "body_too_large";
    case Kind::bad_answer:
      return "bad_answer";
    case Kind::refused:
      return "refused";
  }
  return "unknown";
}

std::ostream& operator<<(std::ostream& os, Kind kind) {
  return os << to_string(kind);
}

std::string describe(const JolokiaFailure& f) {
  return std::string(to_string(f.kind)) + (f.detail.empty() ? "" : ": " + f.detail);
}

struct JolokiaClient::Impl {
  Impl(asio::any_io_executor ex, JolokiaClientOptions opts)
      : options(std::move(opts)),
        queue(ex),
        connection(ex, options.url.endpoint.host, options.url.endpoint.port, options.body_limit,
                   DeadlineWatch::own_timer, AnswerWatch::asio_wait, options.tls) {}

  // One POST of `calls` within the call's deadline: one value per call, or why not.
  asio::awaitable<Result<Values, JolokiaFailure>> post(std::span<const JolokiaCall> calls,
                                                       Clock::time_point deadline) {
    // Rounded up: an exchange never ends before the call's deadline.
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) co_return failure(Kind::timeout, "no time left for the request");
    http::request<http::string_body> request{http::verb::post, options.url.path, 11};
    request.set(http::field::host, host_header(options.url.endpoint));
    request.set(http::field::user_agent, "cassandra-lifecycle-agent/" CLA_VERSION);
    request.set(http::field::content_type, "application/json");
    if (!options.authorization.empty()) request.set(http::field::authorization, options.authorization);
    request.keep_alive(true);
    request.body() = request_body(calls);
    request.prepare_payload();
    auto answer = co_await connection.exchange(to_wire(request), left);
    if (!answer) {
      const HttpTransportFailure& t = answer.error();
      co_return failure(transport_kind<Kind>(t.kind), t.detail);
    }
    if (answer->status != 200) {
      connection.close();
      JolokiaFailure f = failure(Kind::http_status, "HTTP " + std::to_string(answer->status) + " from " +
                                                        connection.where() + options.url.path + ": " +
                                                        quoted_excerpt(answer->body, 200));
      f.http_status = answer->status;
      co_return f;
    }
    auto values = parse_jolokia_answer(answer->body, calls);
    if (!values) {
      connection.close();
      co_return answer_failure(values.error());
    }
    co_return std::move(values.value());
  }

  // A read of jolokia_reads.hpp: its one or two POSTs, one turn of the queue, one deadline.
  template <class Read>
  asio::awaitable<Result<typename Read::Value, JolokiaFailure>> run(std::chrono::milliseconds timeout) {
    const auto deadline = Clock::now() + timeout;
    const auto generation = queue.generation();
    const auto turn = co_await queue.acquire(generation);
    if (!turn) co_return failure(Kind::cancelled, "cancelled while queued");
    const auto first_calls = Read::first();
    auto first = co_await post(first_calls, deadline);
    if (!first) co_return first.error();
    auto second_calls = Read::second(first.value());
    if (!second_calls) co_return answer_failure(second_calls.error());
    Values second;
    if (!second_calls->empty()) {
      auto answers = co_await post(second_calls.value(), deadline);
      if (!answers) co_return answers.error();
      second = std::move(answers.value());
    }
    auto value = Read::finish(first.value(), second);
    if (!value) co_return answer_failure(value.error());
    co_return std::move(value.value());
  }

  JolokiaClientOptions options;
  CallQueue queue;
  HttpConnection connection;
};

JolokiaClient::JolokiaClient(asio::any_io_executor ex, JolokiaClientOptions options)
    : impl_(std::make_unique<Impl>(std::move(ex), std::move(options))) {}

JolokiaClient::~JolokiaClient() = default;

asio::awaitable<Result<ClusterStatus, JolokiaFailure>> JolokiaClient::status(
    std::chrono::milliseconds timeout) {
  co_return co_await impl_->run<StatusRead>(timeout);
}

asio::awaitable<Result<RingTable, JolokiaFailure>> JolokiaClient::ring(std::chrono::milliseconds timeout) {
  co_return co_await impl_->run<RingRead>(timeout);
}

asio::awaitable<Result<ClusterDescription, JolokiaFailure>> JolokiaClient::describe_cluster(
    std::chrono::milliseconds timeout) {
  co_return co_await impl_->run<DescribeClusterRead>(timeout);
}

asio::awaitable<Result<NodeInfo, JolokiaFailure>> JolokiaClient::info(std::chrono::milliseconds timeout) {
  co_return co_await impl_->run<InfoRead>(timeout);
}

asio::awaitable<Result<RunningState, JolokiaFailure>> JolokiaClient::running(
    std::chrono::milliseconds timeout) {
  co_return co_await impl_->run<RunningRead>(timeout);
}

asio::awaitable<Result<StageCounts, JolokiaFailure>> JolokiaClient::stage_counts(
    std::chrono::milliseconds timeout) {
  co_return co_await impl_->run<StagesRead>(timeout);
}

asio::awaitable<Result<std::vector<std::string>, JolokiaFailure>> JolokiaClient::jvm_arguments(
    std::chrono::milliseconds timeout) {
  co_return co_await impl_->run<JvmArgumentsRead>(timeout);
}

asio::awaitable<Result<PendingHintsList, JolokiaFailure>> JolokiaClient::pending_hints(
    std::chrono::milliseconds timeout) {
  co_return co_await impl_->run<PendingHintsRead>(timeout);
}

asio::awaitable<Result<std::chrono::milliseconds, JolokiaFailure>> JolokiaClient::max_hint_window(
    std::chrono::milliseconds timeout) {
  co_return co_await impl_->run<MaxHintWindowRead>(timeout);
}

asio::awaitable<Result<void, JolokiaFailure>> JolokiaClient::step(JolokiaStep step,
                                                                  std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  const auto generation = impl_->queue.generation();
  const auto turn = co_await impl_->queue.acquire(generation);
  if (!turn) co_return failure(Kind::cancelled, "cancelled while queued");
  const JolokiaCall calls[] = {step_call(step)};
  auto answers = co_await impl_->post(calls, deadline);
  if (!answers) co_return answers.error();
  if (auto done = read_step_answer(step, answers.value()); !done) co_return answer_failure(done.error());
  co_return Result<void, JolokiaFailure>{};
}

void JolokiaClient::cancel() {
  impl_->queue.cancel();
  impl_->connection.cancel();
}

}  // namespace cla
