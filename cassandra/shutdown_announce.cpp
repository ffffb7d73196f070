// The shutdown announce's setting from JVM arguments.
#include "cassandra/shutdown_announce.hpp"

#include <algorithm>
#include <charconv>
#include <string_view>

namespace cla {

std::optional<std::int64_t> announce_ms_in(const std::vector<std::string>& jvm_arguments) {
  constexpr std::string_view kProperty = "-Dcassandra.shutdown_announce_in_ms=";
  std::optional<std::int64_t> value;
  for (const std::string& argument : jvm_arguments) {
    if (!argument.starts_with(kProperty)) continue;
    const std::string_view text = std::string_view(argument).substr(kProperty.size());
    std::int64_t ms = 0;
    const auto parsed = std::from_chars(text.data(), text.data() + text.size(), ms);
    value = parsed.ec == std::errc{} && parsed.ptr == text.data() + text.size() && ms >= 0 ? std::optional(ms)
                                                                                           : std::nullopt;
  }
  return value;
}

AnnounceSetting announce_setting(const std::vector<std::vector<std::string>>& jvms) {
  if (jvms.empty()) return {AnnounceSetting::Kind::unknown, 0, "no Cassandra JVM to read"};
  std::size_t set = 0;
  std::int64_t largest = 0;
  for (const auto& jvm : jvms)
    if (const auto ms = announce_ms_in(jvm)) {
      ++set;
      largest = std::max(largest, *ms);
    }
  if (set == jvms.size()) return {AnnounceSetting::Kind::set, largest, ""};
  if (set == 0) return {AnnounceSetting::Kind::unset, 0, ""};
  return {AnnounceSetting::Kind::unknown, 0,
          std::to_string(jvms.size()) + " Cassandra JVMs on this host, " + std::to_string(set) +
              " with the property: which one is this node's cannot be told"};
}

}  // namespace cla
