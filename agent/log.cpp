// Builds each JSON log line (ts, level, msg, fields), hands it to the Boost.Log sink and to live captures.
#include "agent/log.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <boost/json/serialize.hpp>
#include <chrono>
#include <cstdio>
#include <mutex>

#include "imds/json_read.hpp"

namespace cla {
namespace {

constexpr std::array<std::string_view, 4> kLevelNames{"debug", "info", "warning", "error"};

// Log fields often carry bytes from other programs (nodetool output); a line must stay valid JSON, so
// invalid UTF-8 becomes U+FFFD.
void make_valid_utf8(boost::json::string& text) {
  std::string_view s = text;
  if (std::all_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; })) return;
  std::string fixed;
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t n = utf8_sequence_length(s, i);
    fixed.append(n ? s.substr(i, n) : std::string_view("\xEF\xBF\xBD"));
    i += n ? n : 1;
  }
  text = fixed;
}

void make_valid_utf8(boost::json::value& v) {
  if (auto* s = v.if_string()) make_valid_utf8(*s);
  if (auto* a = v.if_array())
    for (auto& e : *a) make_valid_utf8(e);
  if (auto* o = v.if_object())
    for (auto& kv : *o) make_valid_utf8(kv.value());
}

}  // namespace

struct CaptureRegistry {
  static CaptureRegistry& instance() {
    static CaptureRegistry registry;
    return registry;
  }
  std::mutex mutex;
  std::vector<LogCapture*> captures;
  std::atomic<int> count{0};

  void deliver(const boost::json::object& line) {
    std::lock_guard lock(mutex);
    for (LogCapture* c : captures) c->lines_.push_back(line);
  }
};

std::string_view to_string(LogLevel level) {
  return kLevelNames.at(static_cast<std::size_t>(level));
}

std::optional<LogLevel> parse_log_level(std::string_view text) {
  for (std::size_t i = 0; i < kLevelNames.size(); ++i)
    if (kLevelNames[i] == text) return static_cast<LogLevel>(i);
  return std::nullopt;
}

std::string format_rfc3339_ms(WallTime t) {
  using namespace std::chrono;
  const auto ms = floor<milliseconds>(t);
  const auto day = floor<days>(ms);
  const year_month_day ymd{day};
  const hh_mm_ss hms{ms - day};
  char buf[32];
  std::snprintf(buf, sizeof buf, "%04d-%02u-%02uT%02d:%02d:%02d.%03dZ", static_cast<int>(ymd.year()),
                static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()),
                static_cast<int>(hms.hours().count()), static_cast<int>(hms.minutes().count()),
                static_cast<int>(hms.seconds().count()), static_cast<int>(hms.subseconds().count()));
  return buf;
}

void log_line(LogLevel level, std::string_view msg, boost::json::object fields) {
  auto& registry = CaptureRegistry::instance();
  const bool capturing = registry.count.load() > 0;
  const bool to_sink = detail::log_sink_installed();
  if (!capturing && !to_sink) return;

  boost::json::object line;
  line.reserve(fields.size() + 3);
  line.emplace("ts", format_rfc3339_ms(WallClock::now()));
  line.emplace("level", to_string(level));
  line.emplace("msg", msg);
  for (auto& field : fields) line.emplace(field.key(), std::move(field.value()));
  for (auto& field : line) make_valid_utf8(field.value());

  if (capturing) registry.deliver(line);
  if (to_sink) detail::write_log_record(level, boost::json::serialize(line) + '\n');
}

LogCapture::LogCapture() {
  auto& registry = CaptureRegistry::instance();
  std::lock_guard lock(registry.mutex);
  registry.captures.push_back(this);
  ++registry.count;
}

LogCapture::~LogCapture() {
  auto& registry = CaptureRegistry::instance();
  std::lock_guard lock(registry.mutex);
  std::erase(registry.captures, this);
  --registry.count;
}

std::vector<boost::json::object> LogCapture::lines() const {
  std::lock_guard lock(CaptureRegistry::instance().mutex);
  return lines_;
}

std::vector<boost::json::object> LogCapture::lines_with_msg(std::string_view msg) const {
  std::vector<boost::json::object> found;
  for (auto& line : lines()) {
    const auto* m = line.if_contains("msg");
    if (m && m->is_string() && m->get_string() == msg) found.push_back(line);
  }
  return found;
}

}  // namespace cla
