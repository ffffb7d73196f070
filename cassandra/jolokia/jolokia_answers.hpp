// Jolokia's answers, single or bulk, split into one value (or refusal) per request, and a reader of those
// values: pure, never throws; every error names the MBean and the attribute or operation, and what was wrong.
#pragma once

#include <boost/json/value.hpp>
#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cassandra/jolokia/jolokia_requests.hpp"
#include "state/result.hpp"

namespace cla {

// Why an answer gives no value for a request.
struct JolokiaError {
  enum class Kind {
    refused,  // Jolokia answered the request with an error: 403 (the policy), 404 (no such MBean), 500 (the
              // MBean threw: e.g. "Unable to start gossip because the node was drained"), 400 (bad request)
    bad_answer,  // not what Jolokia or the MBean answers: not JSON, a count or shape that does not fit, a
                 // missing attribute, a value of the wrong type
  };
  Kind kind = Kind::bad_answer;
  int status = 0;          // refused: Jolokia's status for the request
  std::string error_type;  // refused: the Java exception Jolokia names ("java.lang.IllegalStateException")
  std::string message;     // names the request and what was wrong
  friend bool operator==(const JolokiaError&, const JolokiaError&) = default;
};
std::string_view to_string(JolokiaError::Kind kind);  // "refused", "bad_answer"
std::ostream& operator<<(std::ostream& os, JolokiaError::Kind kind);
std::ostream& operator<<(std::ostream& os, const JolokiaError& error);

// A request's value, or why there is none.
using JolokiaValue = Result<boost::json::value, JolokiaError>;

// The answer to a POST of `calls` (request_body): one value per call, in the calls' order. A bulk answer is
// an array in the requests' order; a single request's, one object; an object answering a bulk request is
// Jolokia refusing the whole POST. A request's own error (its status not 200) becomes its refusal; the other
// values stay usable. Fails when the body is not JSON or does not hold one answer per call.
Result<std::vector<JolokiaValue>, JolokiaError> parse_jolokia_answer(std::string_view body,
                                                                     std::span<const JolokiaCall> calls);

// Reads the value of one call: the attributes of a read, or an exec's result. The first problem is kept (a
// refusal, or the first attribute missing or of the wrong type) and the reads after it return empty values,
// so that a reader reads everything and then checks error() once.
class JolokiaReader {
 public:
  JolokiaReader(const JolokiaValue& value, const JolokiaCall& call);

  // An attribute of a read (`attribute` given) or the exec's result (none).
  std::string string(std::optional<std::string_view> attribute = std::nullopt);
  bool boolean(std::string_view attribute);
  std::int64_t integer(std::string_view attribute);              // a JSON integer (a Long gauge's Value)
  std::vector<std::string> strings(std::string_view attribute);  // List<String>
  std::map<std::string, std::string> string_map(std::string_view attribute);  // Map<String, String>
  std::map<std::string, std::vector<std::string>> list_map(std::string_view attribute);  // Map<String, List>
  // List<Map<String, String>>; a number among the values is kept as its decimal text.
  std::vector<std::map<std::string, std::string>> map_list(std::string_view attribute);

  bool ok() const { return !error_; }
  const std::optional<JolokiaError>& error() const { return error_; }

 private:
  const boost::json::value* find(std::optional<std::string_view> attribute);
  void fail(std::optional<std::string_view> attribute, std::string what);

  const JolokiaValue& value_;
  const JolokiaCall& call_;
  std::optional<JolokiaError> error_;
};

}  // namespace cla
