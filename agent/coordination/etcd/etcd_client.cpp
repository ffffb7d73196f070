// EtcdClient: etcd's v3 API over its JSON gateway (POST /v3/...), with fail-over across members and password
// auth.
#include "agent/coordination/etcd/etcd_client.hpp"

#include <boost/beast/http/field.hpp>
#include <boost/beast/http/verb.hpp>
#include <functional>
#include <optional>

#include "agent/coordination/etcd/etcd_codec.hpp"
#include "imds/endpoint.hpp"
#include "imds/transport/call_queue.hpp"
#include "imds/transport/http_connection.hpp"

namespace cla {
namespace {

namespace asio = boost::asio;
namespace http = boost::beast::http;
namespace codec = etcd_codec;
using Kind = EtcdFailure::Kind;

EtcdFailure failure(Kind kind, std::string detail) {
  EtcdFailure f;
  f.kind = kind;
  f.detail = std::move(detail);
  return f;
}

// Answers that say the peer is not behaving like etcd: the connection is not worth keeping.
bool garbled(const EtcdFailure& f) {
  return f.kind == Kind::invalid_json || f.kind == Kind::wrong_shape || f.kind == Kind::http_status ||
         f.kind == Kind::body_too_large;
}

// Reads a 200 answer into the call's result (kept by the caller); says why not otherwise.
using Decode = std::function<std::optional<EtcdFailure>(int http_status, std::string_view body)>;

}  // namespace

struct EtcdClient::Impl {
  struct Member {
    std::string url;
    Result<Endpoint> endpoint;
    std::unique_ptr<HttpConnection> connection;  // when the endpoint parsed
  };

  Impl(asio::any_io_executor ex, EtcdClientOptions opts) : options(std::move(opts)), queue(ex) {
    for (const auto& url : options.endpoints) {
      Member m{url, parse_etcd_endpoint(url), nullptr};
      if (m.endpoint && m.endpoint->tls != options.tls.has_value())
        m.endpoint = make_error(url + ": " +
                                (options.tls ? "is http:// while TLS is configured"
                                             : "is https:// but no TLS settings (a CA file) are given"));
      if (m.endpoint)
        m.connection =
            std::make_unique<HttpConnection>(ex, m.endpoint->host, m.endpoint->port, options.body_limit,
                                             DeadlineWatch::own_timer, AnswerWatch::asio_wait, options.tls);
      members.push_back(std::move(m));
    }
    if (!members.empty()) current = options.first_endpoint % members.size();
  }

  // One POST to one member: the answer, or the transport failure.
  asio::awaitable<Result<HttpConnection::Response, EtcdFailure>> post(Member& m, std::string_view path,
                                                                      const std::string& body,
                                                                      bool with_token) {
    http::request<http::string_body> request{http::verb::post, path, 11};
    request.set(http::field::host, host_header(*m.endpoint));
    request.set(http::field::user_agent, "cassandra-lifecycle-agent/" CLA_VERSION);
    request.set(http::field::content_type, "application/json");
    if (with_token && !token.empty()) request.set(http::field::authorization, token);
    request.keep_alive(true);
    request.body() = body;
    request.prepare_payload();
    const std::string wire = to_wire(request);
    auto answer = co_await m.connection->exchange(wire, options.request_timeout);
    if (!answer) {
      const HttpTransportFailure& t = answer.error();
      if (t.kind != HttpTransportFailure::Kind::tls)
        co_return failure(transport_kind<Kind>(t.kind), t.detail);
      EtcdFailure f = failure(Kind::tls, t.tls.detail);
      f.tls_reason = t.tls.reason;
      f.endpoint = m.url;
      if (options.on_tls_failure) options.on_tls_failure(f);
      co_return f;
    }
    co_return std::move(answer.value());
  }

  // Fetches a token from `m`. Auth not enabled on the cluster: no token, requests go without one.
  asio::awaitable<std::optional<EtcdFailure>> authenticate(Member& m) {
    auto answer = co_await post(m, codec::kAuthenticatePath,
                                codec::encode_authenticate(options.username, options.password), false);
    if (!answer) co_return answer.error();
    auto token_or = codec::decode_authenticate(answer->status, answer->body);
    token.clear();
    if (token_or) {
      token = std::move(token_or.value());
      token_checked = true;
      co_return std::nullopt;
    }
    EtcdFailure f = token_or.error();
    if (f.kind == Kind::auth && f.detail.find("authentication is not enabled") != std::string::npos) {
      token_checked = true;
      co_return std::nullopt;
    }
    f.detail = "authenticating as " + options.username + ": " + f.detail;
    co_return f;
  }

  // The request at one member, with the token (fetched first when there is none yet); a token refused as
  // invalid is fetched again once per call.
  asio::awaitable<std::optional<EtcdFailure>> attempt(Member& m, std::string_view path,
                                                      const std::string& body, const Decode& decode,
                                                      bool& reauthenticated) {
    if (!m.connection) co_return failure(Kind::connect, m.endpoint.error().message);
    const bool auth = !options.username.empty();
    if (auth && !token_checked)
      if (auto f = co_await authenticate(m)) co_return f;
    for (;;) {
      auto answer = co_await post(m, path, body, true);
      if (!answer) co_return answer.error();
      auto f = decode(answer->status, answer->body);
      if (f && auth && f->invalid_token() && !reauthenticated) {
        reauthenticated = true;
        if (auto a = co_await authenticate(m)) co_return a;
        continue;
      }
      if (f && garbled(*f)) m.connection->close();
      co_return f;
    }
  }

  // The request at the members in turn, from the last one that answered, until one answers.
  asio::awaitable<std::optional<EtcdFailure>> call(std::string_view path, std::string body,
                                                   const Decode& decode) {
    const auto generation = queue.generation();
    const auto turn = co_await queue.acquire(generation);
    if (!turn) co_return failure(Kind::cancelled, "cancelled while queued");
    if (members.empty()) co_return failure(Kind::connect, "no etcd endpoint configured");
    bool reauthenticated = false;
    std::string tried;
    std::optional<EtcdFailure> last;
    for (std::size_t n = 0; n < members.size(); ++n) {
      const std::size_t index = (current + n) % members.size();
      auto f = co_await attempt(members[index], path, body, decode, reauthenticated);
      if (queue.cancelled_since(generation)) co_return failure(Kind::cancelled, "cancelled");
      if (!f) {
        current = index;
        co_return std::nullopt;
      }
      f->endpoint = members[index].url;
      if (!f->fail_over()) {
        current = index;  // it answered
        co_return f;
      }
      tried += (tried.empty() ? "" : "; ") + members[index].url + ": " + std::string(to_string(f->kind)) +
               (f->detail.empty() ? "" : " " + f->detail);
      last = std::move(f);
    }
    if (members.size() > 1) last->detail = "every endpoint failed (" + tried + ")";
    co_return last;
  }

  // call() with a decoder that keeps its value.
  template <class T, class DecodeAnswer>
  asio::awaitable<Result<T, EtcdFailure>> call_for(std::string_view path, std::string body,
                                                   DecodeAnswer decode) {
    std::optional<T> value;
    auto f = co_await call(path, std::move(body),
                           [&](int status, std::string_view answer) -> std::optional<EtcdFailure> {
                             auto decoded = decode(status, answer);
                             if (!decoded) return decoded.error();
                             value = std::move(decoded.value());
                             return std::nullopt;
                           });
    if (f) co_return *f;
    co_return std::move(*value);
  }

  EtcdClientOptions options;
  std::vector<Member> members;
  std::size_t current = 0;
  CallQueue queue;
  std::string token;
  bool token_checked = false;  // authenticate() answered (a token, or auth not enabled)
};

EtcdClient::EtcdClient(asio::any_io_executor ex, EtcdClientOptions options)
    : impl_(std::make_unique<Impl>(std::move(ex), std::move(options))) {}

EtcdClient::~EtcdClient() = default;

asio::awaitable<Result<EtcdRange, EtcdFailure>> EtcdClient::range(std::string key, std::string range_end) {
  co_return co_await impl_->call_for<EtcdRange>(codec::kRangePath, codec::encode_range(key, range_end),
                                                codec::decode_range);
}

asio::awaitable<Result<std::int64_t, EtcdFailure>> EtcdClient::put(EtcdPut put) {
  co_return co_await impl_->call_for<std::int64_t>(codec::kPutPath, codec::encode_put(put),
                                                   codec::decode_put);
}

asio::awaitable<Result<std::int64_t, EtcdFailure>> EtcdClient::delete_range(EtcdDelete del) {
  co_return co_await impl_->call_for<std::int64_t>(codec::kDeleteRangePath, codec::encode_delete_range(del),
                                                   codec::decode_delete_range);
}

asio::awaitable<Result<EtcdTxnResult, EtcdFailure>> EtcdClient::txn(std::vector<EtcdCompare> compare,
                                                                    std::vector<EtcdOp> success,
                                                                    std::vector<EtcdOp> failure) {
  co_return co_await impl_->call_for<EtcdTxnResult>(
      codec::kTxnPath, codec::encode_txn(compare, success, failure), codec::decode_txn);
}

asio::awaitable<Result<std::int64_t, EtcdFailure>> EtcdClient::lease_grant(std::chrono::seconds ttl) {
  co_return co_await impl_->call_for<std::int64_t>(codec::kLeaseGrantPath, codec::encode_lease_grant(ttl),
                                                   codec::decode_lease_grant);
}

asio::awaitable<Result<std::chrono::seconds, EtcdFailure>> EtcdClient::lease_keepalive(std::int64_t id) {
  co_return co_await impl_->call_for<std::chrono::seconds>(
      codec::kLeaseKeepAlivePath, codec::encode_lease_id(id), codec::decode_lease_keepalive);
}

asio::awaitable<Result<void, EtcdFailure>> EtcdClient::lease_revoke(std::int64_t id) {
  auto f = co_await impl_->call(codec::kLeaseRevokePath, codec::encode_lease_id(id),
                                [](int status, std::string_view answer) -> std::optional<EtcdFailure> {
                                  auto revoked = codec::decode_lease_revoke(status, answer);
                                  if (!revoked) return revoked.error();
                                  return std::nullopt;
                                });
  if (f) co_return *f;
  co_return Result<void, EtcdFailure>{};
}

void EtcdClient::cancel() {
  impl_->queue.cancel();
  for (auto& m : impl_->members)
    if (m.connection) m.connection->cancel();
}

const std::string& EtcdClient::current_endpoint() const {
  static const std::string none;
  return impl_->members.empty() ? none : impl_->members[impl_->current].url;
}

}  // namespace cla
