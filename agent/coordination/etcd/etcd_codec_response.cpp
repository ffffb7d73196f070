// Answers of etcd's v3 JSON gateway decoded into values or classified failures; tolerant of omitted zero
// values, strict about types, never throwing on any bytes.
#include <boost/json/parser.hpp>

#include "agent/coordination/etcd/etcd_codec.hpp"
#include "imds/json_read.hpp"
#include "imds/transport/base64.hpp"

namespace cla::etcd_codec {
namespace {

namespace json = boost::json;
using Kind = EtcdFailure::Kind;

EtcdFailure failure(Kind kind, std::string detail, int http_status = 0) {
  EtcdFailure f;
  f.kind = kind;
  f.detail = std::move(detail);
  f.http_status = http_status;
  return f;
}

// The first JSON value of `body` (a streaming answer holds several, one a line), or why there is none.
Result<json::value> first_value(std::string_view body) {
  json::parser parser;
  boost::system::error_code ec;
  const std::size_t used = parser.write_some(body.data(), body.size(), ec);
  if (ec) return make_error("invalid JSON at byte " + std::to_string(used) + ": " + ec.message());
  return parser.release();
}

// The answer's JSON when it is a success; its classified failure otherwise.
Result<json::value, EtcdFailure> parse_answer(int http_status, std::string_view body) {
  auto parsed = first_value(body);
  if (!parsed) {
    // etcd's gateway (embed/serve.go), with --client-cert-auth and auth enabled, refuses every request whose
    // client certificate carries a Common Name, before reading it: a set-up error to name, not a bad answer.
    if (http_status == 400 &&
        body.find("CommonName of client sending a request against gateway") != std::string_view::npos)
      return failure(
          Kind::auth,
          "etcd refuses a client certificate with a Common Name on its JSON gateway while its auth "
          "is enabled: issue coordination.tls.cert_file without a CN (the user is "
          "coordination.username)",
          http_status);
    if (http_status != 200)
      return failure(Kind::http_status, "answer " + quoted_excerpt(body, 200), http_status);
    return failure(Kind::invalid_json, parsed.error().message + " in " + quoted_excerpt(body, 200));
  }
  if (const auto* object = parsed->if_object()) {
    if (const auto* error = object->if_contains("error")) {
      // The streaming form: {"error":{"grpc_code":14,"http_code":503,"message":"...","http_status":"..."}}.
      if (const auto* stream_error = error->if_object()) {
        const auto* code = stream_error->if_contains("grpc_code");
        const auto* message = stream_error->if_contains("message");
        const auto* http_code = stream_error->if_contains("http_code");
        const auto grpc = code ? to_int64(*code, true) : std::nullopt;
        const auto http = http_code ? to_int64(*http_code, true) : std::nullopt;
        return classify_grpc_error(grpc.value_or(0),
                                   message && message->is_string() ? message->get_string() : "",
                                   static_cast<int>(http.value_or(http_status)));
      }
      // The unary form: {"error":"etcdserver: ...","message":"etcdserver: ...","code":3}.
      const auto* code = object->if_contains("code");
      const auto* message = object->if_contains("message");
      const auto grpc = code ? to_int64(*code, true) : std::nullopt;
      std::string_view text = message && message->is_string() ? std::string_view(message->get_string()) : "";
      if (text.empty() && error->is_string()) text = error->get_string();
      if (!text.empty() || grpc)
        return classify_grpc_error(static_cast<int>(grpc.value_or(0)), text, http_status);
    }
  }
  if (http_status != 200)
    return failure(Kind::http_status, "answer " + quoted_excerpt(body, 200), http_status);
  return std::move(*parsed);
}

// Reads fields of a 200 answer, remembering the first problem (a field of the wrong type) with its path.
class Reader {
 public:
  std::optional<EtcdFailure> problem;

  void wrong(const std::string& path, std::string_view expected, const json::value& got) {
    if (!problem)
      problem = failure(Kind::wrong_shape, path + ": expected " + std::string(expected) + ", got " +
                                               std::string(kind_name(got)));
  }
  const json::object* object(const json::value& v, const std::string& path) {
    if (const auto* o = v.if_object()) return o;
    wrong(path, "an object", v);
    return nullptr;
  }
  const json::object* child_object(const json::object& o, std::string_view key, const std::string& path,
                                   bool required) {
    const auto* v = o.if_contains(key);
    if (!v) {
      if (required && !problem) problem = failure(Kind::wrong_shape, path + std::string(key) + ": missing");
      return nullptr;
    }
    return object(*v, path + std::string(key));
  }
  std::int64_t int64(const json::object& o, std::string_view key, const std::string& path) {
    const auto* v = o.if_contains(key);
    if (!v) return 0;  // omitted: zero
    if (auto n = to_int64(*v, true)) return *n;
    wrong(path + std::string(key), "an integer (as a string)", *v);
    return 0;
  }
  bool boolean(const json::object& o, std::string_view key, const std::string& path) {
    const auto* v = o.if_contains(key);
    if (!v) return false;
    if (v->is_bool()) return v->get_bool();
    wrong(path + std::string(key), "a boolean", *v);
    return false;
  }
  std::string bytes(const json::object& o, std::string_view key, const std::string& path) {
    const auto* v = o.if_contains(key);
    if (!v) return {};
    if (!v->is_string()) {
      wrong(path + std::string(key), "a base64 string", *v);
      return {};
    }
    auto decoded = base64_decode(v->get_string());
    if (!decoded && !problem)
      problem = failure(Kind::wrong_shape,
                        path + std::string(key) + ": not base64: " + quoted_excerpt(v->get_string(), 80));
    return decoded.value_or(std::string());
  }
  // The header's revision; a top-level answer must have a header (a 200 without one is not etcd's).
  std::int64_t revision(const json::object& o, const std::string& path, bool required) {
    const auto* header = child_object(o, "header", path, required);
    return header ? int64(*header, "revision", path + "header.") : 0;
  }
};

EtcdRange read_range(Reader& r, const json::object& o, const std::string& path, bool header_required) {
  EtcdRange range;
  range.revision = r.revision(o, path, header_required);
  range.count = r.int64(o, "count", path);
  range.more = r.boolean(o, "more", path);
  if (const auto* kvs = o.if_contains("kvs")) {
    const auto* array = kvs->if_array();
    if (!array) r.wrong(path + "kvs", "an array", *kvs);
    for (std::size_t i = 0; array && i < array->size(); ++i) {
      const std::string at = path + "kvs[" + std::to_string(i) + "]";
      const auto* kv = r.object((*array)[i], at);
      if (!kv) break;
      EtcdKeyValue out;
      out.key = r.bytes(*kv, "key", at + ".");
      out.value = r.bytes(*kv, "value", at + ".");
      out.create_revision = r.int64(*kv, "create_revision", at + ".");
      out.mod_revision = r.int64(*kv, "mod_revision", at + ".");
      out.version = r.int64(*kv, "version", at + ".");
      out.lease = r.int64(*kv, "lease", at + ".");
      range.kvs.push_back(std::move(out));
    }
  }
  return range;
}

// Parses a 200 answer into an object and hands it to `read`; any failure on the way comes back instead.
template <class T, class Read>
Result<T, EtcdFailure> decode(int http_status, std::string_view body, Read read) {
  auto answer = parse_answer(http_status, body);
  if (!answer) return answer.error();
  Reader r;
  const auto* o = r.object(*answer, "answer");
  if (!o) return *r.problem;
  T value = read(r, *o);
  if (r.problem) return *r.problem;
  return value;
}

}  // namespace

std::optional<EtcdFailure> answer_failure(int http_status, std::string_view body) {
  auto answer = parse_answer(http_status, body);
  if (answer) return std::nullopt;
  return answer.error();
}

Result<EtcdRange, EtcdFailure> decode_range(int http_status, std::string_view body) {
  return decode<EtcdRange>(http_status, body,
                           [](Reader& r, const json::object& o) { return read_range(r, o, "", true); });
}

Result<std::int64_t, EtcdFailure> decode_put(int http_status, std::string_view body) {
  return decode<std::int64_t>(http_status, body,
                              [](Reader& r, const json::object& o) { return r.revision(o, "", true); });
}

Result<std::int64_t, EtcdFailure> decode_delete_range(int http_status, std::string_view body) {
  return decode<std::int64_t>(http_status, body, [](Reader& r, const json::object& o) {
    r.revision(o, "", true);
    return r.int64(o, "deleted", "");
  });
}

Result<EtcdTxnResult, EtcdFailure> decode_txn(int http_status, std::string_view body) {
  return decode<EtcdTxnResult>(http_status, body, [](Reader& r, const json::object& o) {
    EtcdTxnResult txn;
    txn.revision = r.revision(o, "", true);
    txn.succeeded = r.boolean(o, "succeeded", "");
    const auto* responses = o.if_contains("responses");
    const auto* array = responses ? responses->if_array() : nullptr;
    if (responses && !array) r.wrong("responses", "an array", *responses);
    for (std::size_t i = 0; array && i < array->size(); ++i) {
      const std::string at = "responses[" + std::to_string(i) + "].";
      const auto* op = r.object((*array)[i], at.substr(0, at.size() - 1));
      if (!op) break;
      if (const auto* range = r.child_object(*op, "response_range", at, false))
        txn.ranges.push_back(read_range(r, *range, at + "response_range.", false));
    }
    return txn;
  });
}

Result<std::int64_t, EtcdFailure> decode_lease_grant(int http_status, std::string_view body) {
  return decode<std::int64_t>(http_status, body, [](Reader& r, const json::object& o) -> std::int64_t {
    r.revision(o, "", true);
    const std::int64_t id = r.int64(o, "ID", "");
    if (id == 0 && !r.problem) r.problem = failure(Kind::wrong_shape, "ID: missing (no lease granted)");
    return id;
  });
}

Result<std::chrono::seconds, EtcdFailure> decode_lease_keepalive(int http_status, std::string_view body) {
  return decode<std::chrono::seconds>(http_status, body, [](Reader& r, const json::object& o) {
    const auto* result = r.child_object(o, "result", "", true);
    if (!result) return std::chrono::seconds(0);
    return std::chrono::seconds(std::max<std::int64_t>(0, r.int64(*result, "TTL", "result.")));
  });
}

Result<void, EtcdFailure> decode_lease_revoke(int http_status, std::string_view body) {
  auto revision = decode<std::int64_t>(
      http_status, body, [](Reader& r, const json::object& o) { return r.revision(o, "", true); });
  if (!revision) return revision.error();
  return {};
}

Result<std::string, EtcdFailure> decode_authenticate(int http_status, std::string_view body) {
  return decode<std::string>(http_status, body, [](Reader& r, const json::object& o) -> std::string {
    r.revision(o, "", true);
    const auto* token = o.if_contains("token");
    if (token && token->is_string() && !token->get_string().empty()) return std::string(token->get_string());
    if (!r.problem) r.problem = failure(Kind::wrong_shape, "token: missing or not a non-empty string");
    return {};
  });
}

}  // namespace cla::etcd_codec
