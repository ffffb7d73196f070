// Indented JSON text: walks the value, letting Boost.JSON serialise keys and scalars (escaping, numbers).
#include "agent/config/json_pretty.hpp"

#include <boost/json/serialize.hpp>

namespace cla {
namespace {

void write_pretty(const boost::json::value& value, std::string& out, std::size_t depth) {
  const std::string indent((depth + 1) * 2, ' ');
  const std::string closing_indent(depth * 2, ' ');
  if (const auto* object = value.if_object(); object && !object->empty()) {
    out += "{\n";
    bool first = true;
    for (const auto& [key, member] : *object) {
      out += first ? "" : ",\n";
      first = false;
      out += indent + boost::json::serialize(boost::json::string(key)) + ": ";
      write_pretty(member, out, depth + 1);
    }
    out += "\n" + closing_indent + "}";
  } else if (const auto* array = value.if_array(); array && !array->empty()) {
    out += "[\n";
    for (std::size_t i = 0; i < array->size(); ++i) {
      out += (i ? ",\n" : "") + indent;
      write_pretty((*array)[i], out, depth + 1);
    }
    out += "\n" + closing_indent + "]";
  } else {
    out += boost::json::serialize(value);
  }
}

}  // namespace

std::string pretty_json(const boost::json::value& value) {
  std::string out;
  write_pretty(value, out, 0);
  return out;
}

}  // namespace cla
