// Jolokia's answers split per request, and the reader of a request's value.
#include "cassandra/jolokia/jolokia_answers.hpp"

#include "imds/json_read.hpp"

namespace cla {
namespace {

namespace json = boost::json;

JolokiaError bad_answer(std::string message) {
  return {JolokiaError::Kind::bad_answer, 0, {}, std::move(message)};
}

std::string string_or_empty(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return v && v->is_string() ? std::string(v->get_string()) : std::string();
}

// One answer object, to the request `who` describes: its value (status 200), or its refusal.
JolokiaValue read_entry(const json::value& answer, const std::string& who) {
  if (!answer.is_object()) return bad_answer(who + ": the answer is " + std::string(kind_name(answer)));
  const json::object& o = answer.get_object();
  const json::value* status = o.if_contains("status");
  const auto code = status ? to_int64(*status, false) : std::nullopt;
  if (!code) return bad_answer(who + ": the answer has no status");
  if (*code < 100 || *code > 999)
    return bad_answer(who + ": the answer's status " + std::to_string(*code) + " is not Jolokia's");
  if (*code != 200) {
    const std::string type = string_or_empty(o, "error_type");
    const std::string text = string_or_empty(o, "error");
    return JolokiaError{JolokiaError::Kind::refused, static_cast<int>(*code), type,
                        who + ": Jolokia status " + std::to_string(*code) + (type.empty() ? "" : " " + type) +
                            (text.empty() ? "" : ": " + quoted_excerpt(text, 400))};
  }
  const json::value* value = o.if_contains("value");
  if (!value) return bad_answer(who + ": the answer (status 200) has no value");
  return *value;
}

}  // namespace

std::string_view to_string(JolokiaError::Kind kind) {
  return kind == JolokiaError::Kind::refused ? "refused" : "bad_answer";
}

std::ostream& operator<<(std::ostream& os, JolokiaError::Kind kind) {
  return os << to_string(kind);
}

std::ostream& operator<<(std::ostream& os, const JolokiaError& e) {
  os << e.kind;
  if (e.kind == JolokiaError::Kind::refused) os << " " << e.status;
  if (!e.error_type.empty()) os << " " << e.error_type;
  return os << ": " << e.message;
}

Result<std::vector<JolokiaValue>, JolokiaError> parse_jolokia_answer(std::string_view body,
                                                                     std::span<const JolokiaCall> calls) {
  auto parsed = parse_json(body);
  if (!parsed) return bad_answer("Jolokia's answer: " + parsed.error().message);
  std::vector<JolokiaValue> values;
  const json::value& answer = parsed.value();
  if (answer.is_array()) {
    const json::array& entries = answer.get_array();
    if (entries.size() != calls.size())
      return bad_answer("Jolokia answered " + std::to_string(entries.size()) + " request(s) of " +
                        std::to_string(calls.size()));
    for (std::size_t i = 0; i < calls.size(); ++i)
      values.push_back(read_entry(entries[i], describe(calls[i])));
    return values;
  }
  if (calls.size() == 1) {
    values.push_back(read_entry(answer, describe(calls.front())));
    return values;
  }
  // An object for a bulk request: the POST itself was refused (or the answer is not Jolokia's).
  const std::string bulk = "a bulk request of " + std::to_string(calls.size());
  JolokiaValue refusal = read_entry(answer, bulk);
  if (!refusal) return refusal.error();
  return bad_answer("Jolokia answered " + bulk + " with one value");
}

JolokiaReader::JolokiaReader(const JolokiaValue& value, const JolokiaCall& call)
    : value_(value), call_(call) {
  if (!value_) error_ = value_.error();
}

void JolokiaReader::fail(std::optional<std::string_view> attribute, std::string what) {
  if (error_) return;
  std::string who = call_.mbean;
  who += attribute ? " attribute " + std::string(*attribute) : " " + call_.operation;
  error_ = bad_answer(who + ": " + what);
}

const json::value* JolokiaReader::find(std::optional<std::string_view> attribute) {
  if (error_) return nullptr;
  const json::value& v = value_.value();
  if (!attribute) return &v;
  if (!v.is_object()) {
    fail(attribute, "the read's value is " + std::string(kind_name(v)) + ", not an object of attributes");
    return nullptr;
  }
  const json::value* found = v.get_object().if_contains(*attribute);
  if (!found) fail(attribute, "missing from the answer");
  return found;
}

std::string JolokiaReader::string(std::optional<std::string_view> attribute) {
  const json::value* v = find(attribute);
  if (!v) return {};
  if (!v->is_string()) {
    fail(attribute, "is " + std::string(kind_name(*v)) + ", not a string");
    return {};
  }
  return std::string(v->get_string());
}

bool JolokiaReader::boolean(std::string_view attribute) {
  const json::value* v = find(attribute);
  if (!v) return false;
  if (!v->is_bool()) {
    fail(attribute, "is " + std::string(kind_name(*v)) + ", not true or false");
    return false;
  }
  return v->get_bool();
}

std::int64_t JolokiaReader::integer(std::string_view attribute) {
  const json::value* v = find(attribute);
  if (!v) return 0;
  if (const auto n = to_int64(*v, false)) return *n;
  fail(attribute, "is " + std::string(kind_name(*v)) + ", not an integer");
  return 0;
}

std::vector<std::string> JolokiaReader::strings(std::string_view attribute) {
  const json::value* v = find(attribute);
  std::vector<std::string> out;
  if (!v) return out;
  if (!v->is_array()) {
    fail(attribute, "is " + std::string(kind_name(*v)) + ", not a list of strings");
    return out;
  }
  for (const json::value& item : v->get_array()) {
    if (!item.is_string()) {
      fail(attribute, "holds " + std::string(kind_name(item)) + ", not only strings");
      return {};
    }
    out.emplace_back(item.get_string());
  }
  return out;
}

std::map<std::string, std::string> JolokiaReader::string_map(std::string_view attribute) {
  const json::value* v = find(attribute);
  std::map<std::string, std::string> out;
  if (!v) return out;
  if (!v->is_object()) {
    fail(attribute, "is " + std::string(kind_name(*v)) + ", not a map of strings");
    return out;
  }
  for (const auto& [key, item] : v->get_object()) {
    if (!item.is_string()) {
      fail(attribute,
           "maps " + quoted_excerpt(key) + " to " + std::string(kind_name(item)) + ", not a string");
      return {};
    }
    out.emplace(std::string(key), std::string(item.get_string()));
  }
  return out;
}

std::map<std::string, std::vector<std::string>> JolokiaReader::list_map(std::string_view attribute) {
  const json::value* v = find(attribute);
  std::map<std::string, std::vector<std::string>> out;
  if (!v) return out;
  if (!v->is_object()) {
    fail(attribute, "is " + std::string(kind_name(*v)) + ", not a map of lists");
    return out;
  }
  for (const auto& [key, item] : v->get_object()) {
    auto& list = out[std::string(key)];
    if (item.is_array())
      for (const json::value& s : item.get_array())
        if (s.is_string()) list.emplace_back(s.get_string());
    if (!item.is_array() || list.size() != item.get_array().size()) {
      fail(attribute,
           "maps " + quoted_excerpt(key) + " to " + std::string(kind_name(item)) + ", not a list of strings");
      return {};
    }
  }
  return out;
}

std::vector<std::map<std::string, std::string>> JolokiaReader::map_list(std::string_view attribute) {
  const json::value* v = find(attribute);
  std::vector<std::map<std::string, std::string>> out;
  if (!v) return out;
  if (!v->is_array()) {
    fail(attribute, "is " + std::string(kind_name(*v)) + ", not a list of maps");
    return out;
  }
  for (const json::value& item : v->get_array()) {
    if (!item.is_object()) {
      fail(attribute, "holds " + std::string(kind_name(item)) + ", not only maps");
      return {};
    }
    auto& entry = out.emplace_back();
    for (const auto& [key, field] : item.get_object()) {
      if (field.is_string())
        entry.emplace(std::string(key), std::string(field.get_string()));
      else if (field.is_int64())
        entry.emplace(std::string(key), std::to_string(field.get_int64()));
      else {
        fail(attribute, "maps " + quoted_excerpt(key) + " to " + std::string(kind_name(field)) +
                            ", not a string or a number");
        return {};
      }
    }
  }
  return out;
}

}  // namespace cla
