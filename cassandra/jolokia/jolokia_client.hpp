// JolokiaClient: the Jolokia backend's I/O (SPEC 8.1). Runs the reads and steps of jolokia_reads.hpp as POSTs
// to cassandra.jolokia.url over one kept-alive HttpConnection (the one IMDS and etcd use), with basic auth.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <chrono>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>

#include "cassandra/jolokia/jolokia_client_options.hpp"
#include "cassandra/jolokia/jolokia_reads.hpp"
#include "state/result.hpp"

namespace cla {

struct JolokiaFailure {
  enum class Kind {
    connect,      // no connection (refused: Cassandra or its agent down), or it broke mid-exchange
    timeout,      // no whole answer before the call's deadline (a frozen node, a long drain)
    cancelled,    // cancel() was called
    tls,          // the TLS connection failed (detail says why: unknown_ca, name_mismatch, ...)
    http_status,  // an HTTP status other than 200: 401 (wrong user or password), 403 (the policy's remote or
                  // HTTP method rules), 400/500; detail quotes the body
    body_too_large,  // the answer exceeded JolokiaClientOptions::body_limit
    bad_answer,      // not what Jolokia or the MBean answers (answer.message names the request)
    refused,         // Jolokia answered a request with an error: answer.status (403: the policy, 404: no such
                     // MBean, 500: Cassandra threw) and answer.error_type say which
  };
  Kind kind = Kind::connect;
  int http_status = 0;  // http_status: the status
  JolokiaError answer;  // bad_answer, refused
  std::string detail;   // for an operator; for bad_answer and refused, answer.message
};
std::string_view to_string(JolokiaFailure::Kind kind);  // connect, timeout, ..., refused
std::ostream& operator<<(std::ostream& os, JolokiaFailure::Kind kind);
std::string describe(const JolokiaFailure& failure);  // "refused: exec ...: Jolokia status 500 ..."

// One client per node. Calls may overlap: they run one at a time (a read's two POSTs together). Each call
// ends by its `timeout`, counted from the call, whichever POSTs it takes; a timeout or any other failure
// closes the connection (the next call opens a new one). Adapters do not log: every outcome comes back as a
// value. The client must outlive its calls.
class JolokiaClient {
 public:
  JolokiaClient(boost::asio::any_io_executor ex, JolokiaClientOptions options);
  ~JolokiaClient();
  JolokiaClient(const JolokiaClient&) = delete;
  JolokiaClient& operator=(const JolokiaClient&) = delete;

  boost::asio::awaitable<Result<ClusterStatus, JolokiaFailure>> status(std::chrono::milliseconds timeout);
  boost::asio::awaitable<Result<RingTable, JolokiaFailure>> ring(std::chrono::milliseconds timeout);
  boost::asio::awaitable<Result<ClusterDescription, JolokiaFailure>> describe_cluster(
      std::chrono::milliseconds timeout);
  boost::asio::awaitable<Result<NodeInfo, JolokiaFailure>> info(std::chrono::milliseconds timeout);
  boost::asio::awaitable<Result<RunningState, JolokiaFailure>> running(std::chrono::milliseconds timeout);
  boost::asio::awaitable<Result<StageCounts, JolokiaFailure>> stage_counts(std::chrono::milliseconds timeout);
  boost::asio::awaitable<Result<std::vector<std::string>, JolokiaFailure>> jvm_arguments(
      std::chrono::milliseconds timeout);
  boost::asio::awaitable<Result<PendingHintsList, JolokiaFailure>> pending_hints(
      std::chrono::milliseconds timeout);
  boost::asio::awaitable<Result<std::chrono::milliseconds, JolokiaFailure>> max_hint_window(
      std::chrono::milliseconds timeout);
  boost::asio::awaitable<Result<void, JolokiaFailure>> step(JolokiaStep step,
                                                            std::chrono::milliseconds timeout);

  // Ends the call in flight and those queued behind it at once, each as cancelled (a step's operation may
  // still run to its end inside Cassandra). Later calls run normally. Call from the executor's thread.
  void cancel();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace cla
