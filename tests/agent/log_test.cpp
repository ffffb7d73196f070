// JSON-lines logging: line shape and types, the level filter, capture, reopen after rotation, whole lines.
#include "agent/log.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>
#include <filesystem>
#include <fstream>
#include <regex>
#include <thread>

namespace {

namespace fs = std::filesystem;
using namespace std::chrono;

struct TempDir {
  fs::path path;
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "cla-log-XXXXXX").string();
    path = ::mkdtemp(tmpl.data());
  }
  ~TempDir() {
    cla::shutdown_logging();
    fs::remove_all(path);
  }
};

std::vector<boost::json::object> read_lines(const fs::path& file) {
  std::vector<boost::json::object> lines;
  std::ifstream in(file);
  for (std::string text; std::getline(in, text);) lines.push_back(boost::json::parse(text).as_object());
  return lines;
}

std::vector<std::string> msgs(const std::vector<boost::json::object>& lines) {
  std::vector<std::string> out;
  for (const auto& line : lines) out.emplace_back(line.at("msg").as_string());
  return out;
}

template <class T>
std::string why(const cla::Result<T>& result) {
  return result ? std::string() : result.error().message;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(log_test)

BOOST_AUTO_TEST_CASE(timestamps_are_utc_rfc3339_with_milliseconds) {
  const cla::WallTime t = sys_days{year{2026} / 11 / 22} + 3h + 4min + 5s + 123ms + 999us;
  BOOST_TEST(cla::format_rfc3339_ms(t) == "2026-11-22T03:04:05.123Z");
  BOOST_TEST(cla::format_rfc3339_ms(cla::WallTime{}) == "1970-01-01T00:00:00.000Z");
  BOOST_TEST(cla::format_rfc3339_ms(cla::WallTime{} - 1ms) == "1969-12-31T23:59:59.999Z");
  BOOST_TEST(cla::format_rfc3339_ms(sys_days{year{2024} / 2 / 29} + 23h + 59min + 59s) ==
             "2024-02-29T23:59:59.000Z");
}

BOOST_AUTO_TEST_CASE(levels_have_stable_names) {
  BOOST_TEST(cla::to_string(cla::LogLevel::warning) == "warning");
  BOOST_TEST((cla::parse_log_level("error") == cla::LogLevel::error));
  BOOST_TEST(!cla::parse_log_level("ERROR").has_value());
  BOOST_TEST(!cla::parse_log_level("warn").has_value());
}

BOOST_AUTO_TEST_CASE(capture_sees_ts_level_msg_first_then_typed_fields) {
  cla::LogCapture capture;
  cla::log_line(cla::LogLevel::warning, "event_seen",
                {{"event_id", "E1"},
                 {"duration_s", -1},
                 {"resources", boost::json::array{"vm0", "vm1"}},
                 {"affects_this_node", false},
                 {"msg", "ignored"}});
  const auto lines = capture.lines();
  BOOST_TEST_REQUIRE(lines.size() == 1u);
  const auto& line = lines[0];
  std::vector<std::string> keys;
  for (const auto& kv : line) keys.emplace_back(kv.key());
  BOOST_TEST((keys == std::vector<std::string>{"ts", "level", "msg", "event_id", "duration_s", "resources",
                                               "affects_this_node"}));
  BOOST_TEST(std::regex_match(std::string(line.at("ts").as_string()),
                              std::regex(R"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z)")));
  BOOST_TEST(line.at("level").as_string() == "warning");
  BOOST_TEST(line.at("msg").as_string() == "event_seen");
  BOOST_TEST(line.at("duration_s").as_int64() == -1);
  BOOST_TEST(line.at("resources").as_array().size() == 2u);
  BOOST_TEST(line.at("affects_this_node").as_bool() == false);
  BOOST_TEST(capture.lines_with_msg("event_seen").size() == 1u);
  BOOST_TEST(capture.lines_with_msg("event_removed").empty());
}

BOOST_AUTO_TEST_CASE(lines_reach_the_file_as_parseable_json_and_directories_are_created) {
  TempDir dir;
  const fs::path file = dir.path / "a" / "b" / "agent.jsonl";
  const mode_t old_umask = ::umask(022);
  auto init = cla::init_logging(file.string(), cla::LogLevel::debug, false);
  ::umask(old_umask);
  BOOST_TEST_REQUIRE(init.ok(), why(init));
  cla::log_line(cla::LogLevel::info, "agent_started", {{"version", "0.1.0"}, {"poll_interval_ms", 1000}});
  cla::log_line(cla::LogLevel::debug, "imds_polled", {{"incarnation", 7}});
  cla::shutdown_logging();
  cla::log_line(cla::LogLevel::error, "after_shutdown");

  const auto lines = read_lines(file);
  BOOST_TEST((msgs(lines) == std::vector<std::string>{"agent_started", "imds_polled"}));
  BOOST_TEST(lines[0].at("poll_interval_ms").as_int64() == 1000);
  BOOST_TEST(lines[1].at("level").as_string() == "debug");
  struct stat st {};
  BOOST_TEST_REQUIRE(::stat(file.c_str(), &st) == 0);
  BOOST_TEST((st.st_mode & 0777) == 0640u);
}

BOOST_AUTO_TEST_CASE(level_filter_applies_to_the_file_not_to_captures) {
  TempDir dir;
  const fs::path file = dir.path / "agent.jsonl";
  BOOST_TEST_REQUIRE(cla::init_logging(file.string(), cla::LogLevel::warning, false).ok());
  cla::LogCapture capture;
  cla::log_line(cla::LogLevel::debug, "d");
  cla::log_line(cla::LogLevel::info, "i");
  cla::log_line(cla::LogLevel::warning, "w");
  cla::log_line(cla::LogLevel::error, "e");
  cla::shutdown_logging();
  BOOST_TEST((msgs(read_lines(file)) == std::vector<std::string>{"w", "e"}));
  BOOST_TEST((msgs(capture.lines()) == std::vector<std::string>{"d", "i", "w", "e"}));
}

BOOST_AUTO_TEST_CASE(reopen_after_rotation_writes_to_a_new_file_at_the_same_path) {
  TempDir dir;
  const fs::path file = dir.path / "agent.jsonl";
  BOOST_TEST_REQUIRE(cla::init_logging(file.string(), cla::LogLevel::info, false).ok());
  cla::log_line(cla::LogLevel::info, "before_rotation");
  fs::rename(file, dir.path / "agent.jsonl.1");
  cla::log_line(cla::LogLevel::info, "still_old_file");
  auto reopened = cla::reopen_log_file();
  BOOST_TEST_REQUIRE(reopened.ok(), why(reopened));
  cla::log_line(cla::LogLevel::info, "after_rotation");
  cla::shutdown_logging();
  BOOST_TEST((msgs(read_lines(dir.path / "agent.jsonl.1")) ==
              std::vector<std::string>{"before_rotation", "still_old_file"}));
  BOOST_TEST((msgs(read_lines(file)) == std::vector<std::string>{"after_rotation"}));
}

BOOST_AUTO_TEST_CASE(failed_reopen_keeps_the_old_file) {
  TempDir dir;
  const fs::path file = dir.path / "logs" / "agent.jsonl";
  BOOST_TEST_REQUIRE(cla::init_logging(file.string(), cla::LogLevel::info, false).ok());
  fs::rename(dir.path / "logs", dir.path / "moved");
  std::ofstream(dir.path / "logs") << "a regular file where the directory was";
  auto reopened = cla::reopen_log_file();
  BOOST_TEST(!reopened.ok());
  cla::log_line(cla::LogLevel::info, "kept_writing");
  cla::shutdown_logging();
  BOOST_TEST(
      (msgs(read_lines(dir.path / "moved" / "agent.jsonl")) == std::vector<std::string>{"kept_writing"}));
}

BOOST_AUTO_TEST_CASE(init_fails_with_a_reason_when_the_path_cannot_be_created) {
  TempDir dir;
  std::ofstream(dir.path / "plain") << "x";
  auto init = cla::init_logging((dir.path / "plain" / "agent.jsonl").string(), cla::LogLevel::info, false);
  BOOST_TEST_REQUIRE(!init.ok());
  BOOST_TEST(init.error().message.find((dir.path / "plain").string()) != std::string::npos,
             init.error().message);
}

BOOST_AUTO_TEST_CASE(also_stderr_copies_each_line_to_fd_2) {
  TempDir dir;
  const fs::path err_file = dir.path / "stderr.txt";
  const int saved = ::dup(STDERR_FILENO);
  std::FILE* err = std::fopen(err_file.c_str(), "w");
  ::dup2(::fileno(err), STDERR_FILENO);
  auto init = cla::init_logging((dir.path / "agent.jsonl").string(), cla::LogLevel::info, true);
  cla::log_line(cla::LogLevel::info, "to_both");
  cla::shutdown_logging();
  ::dup2(saved, STDERR_FILENO);
  ::close(saved);
  std::fclose(err);
  BOOST_TEST_REQUIRE(init.ok(), why(init));
  BOOST_TEST((msgs(read_lines(err_file)) == std::vector<std::string>{"to_both"}));
  BOOST_TEST((msgs(read_lines(dir.path / "agent.jsonl")) == std::vector<std::string>{"to_both"}));
}

BOOST_AUTO_TEST_CASE(invalid_utf8_in_fields_still_gives_valid_json) {
  TempDir dir;
  const fs::path file = dir.path / "agent.jsonl";
  BOOST_TEST_REQUIRE(cla::init_logging(file.string(), cla::LogLevel::info, false).ok());
  cla::log_line(cla::LogLevel::error, "nodetool_failed", {{"stderr", "bad \xff\xfe byte, ok \xc3\xa9"}});
  cla::shutdown_logging();
  const auto lines = read_lines(file);
  BOOST_TEST_REQUIRE(lines.size() == 1u);
  BOOST_TEST(lines[0].at("stderr").as_string() == "bad \xEF\xBF\xBD\xEF\xBF\xBD byte, ok \xc3\xa9");
}

BOOST_AUTO_TEST_CASE(concurrent_writers_never_interleave_lines) {
  TempDir dir;
  const fs::path file = dir.path / "agent.jsonl";
  BOOST_TEST_REQUIRE(cla::init_logging(file.string(), cla::LogLevel::info, false).ok());
  const std::string payload(20000, 'x');  // longer than a stdio buffer
  std::vector<std::thread> writers;
  for (int t = 0; t < 4; ++t)
    writers.emplace_back([&, t] {
      for (int i = 0; i < 50; ++i)
        cla::log_line(cla::LogLevel::info, "load", {{"thread", t}, {"payload", payload}});
    });
  for (auto& w : writers) w.join();
  cla::shutdown_logging();
  const auto lines = read_lines(file);  // throws on a torn line
  BOOST_TEST(lines.size() == 200u);
  for (const auto& line : lines) BOOST_TEST(line.at("payload").as_string().size() == payload.size());
}

BOOST_AUTO_TEST_SUITE_END()
