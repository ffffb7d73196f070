#include "agent/daemon/failpoint.hpp"

#include <cstdlib>
#include <set>
#include <stdexcept>

#include "state/text.hpp"

namespace cla {

const std::string& enabled_failpoints() {
  static const std::string names = [] {
    const char* env = std::getenv("CLA_FAILPOINTS");
    return std::string(env ? env : "");
  }();
  return names;
}

void failpoint(std::string_view name) {
  const std::string& names = enabled_failpoints();
  if (names.empty()) return;
  std::string_view rest = names;
  while (!rest.empty()) {
    const auto comma = rest.find(',');
    const std::string_view entry = trim(rest.substr(0, comma));
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    const bool once = entry.ends_with(":once");
    if (entry.substr(0, once ? entry.size() - 5 : entry.size()) != name) continue;
    static std::set<std::string, std::less<>> fired;  // the ":once" ones that threw already
    if (once && !fired.emplace(name).second) return;
    std::string what("failpoint ");
    what.append(name);
    throw std::runtime_error(what);
  }
}

}  // namespace cla
