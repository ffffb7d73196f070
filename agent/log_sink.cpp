// The Boost.Log side of logging: a severity-filtered synchronous sink writing whole lines to the log file
// (and stderr), with reopen for logrotate.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <boost/log/core.hpp>
#include <boost/log/expressions/message.hpp>
#include <boost/log/sinks/basic_sink_backend.hpp>
#include <boost/log/sinks/sync_frontend.hpp>
#include <boost/log/sources/record_ostream.hpp>
#include <boost/log/sources/severity_logger.hpp>
#include <boost/make_shared.hpp>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <mutex>

#include "agent/log.hpp"

namespace cla {
namespace {

namespace logging = boost::log;

Result<int> open_log_file(const std::string& path) {
  const auto parent = std::filesystem::path(path).parent_path();
  std::error_code ec;
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  if (ec) return make_error("cannot create log directory " + parent.string() + ": " + ec.message());
  const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0640);
  if (fd < 0) return make_error("cannot open log file " + path + ": " + std::strerror(errno));
  return fd;
}

// One write(2) per line: with O_APPEND a line is never split by another writer. False when it failed
// (errno tells why).
bool write_all(int fd, std::string_view text) {
  while (!text.empty()) {
    const ssize_t n = ::write(fd, text.data(), text.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    text.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

// Writes each line to the log file. The daemon must outlive its log file's troubles: a deleted file is
// created again; a file that cannot be written or created leaves the lines to stderr (the journal under
// systemd), and each such trouble is told once on stderr, until the file works again.
class JsonLinesBackend : public logging::sinks::basic_sink_backend<logging::sinks::synchronized_feeding> {
 public:
  JsonLinesBackend(std::string path, int fd, bool also_stderr)
      : path_(std::move(path)), fd_(fd), also_stderr_(also_stderr) {}
  ~JsonLinesBackend() { ::close(fd_); }
  JsonLinesBackend(const JsonLinesBackend&) = delete;
  JsonLinesBackend& operator=(const JsonLinesBackend&) = delete;

  void consume(const logging::record_view& record) {
    const auto line = record[logging::expressions::smessage];
    if (!line) return;
    bool to_file = true;
    if (file_deleted()) {
      if (reopen()) {
        trouble("log file " + path_ + " was deleted; created it again");
      } else {
        trouble("log file " + path_ + " was deleted and cannot be created again (" + reopen_error_ +
                "); log lines go to stderr until it can");
        to_file = false;
      }
    }
    bool written = false;
    if (to_file) {
      written = write_all(fd_, *line);
      if (written) {
        trouble_.clear();
      } else {
        trouble("cannot write log file " + path_ + ": " + std::strerror(errno) + "; log lines go to stderr");
      }
    }
    if (also_stderr_ || !written) write_all(STDERR_FILENO, *line);
  }

  Result<bool> reopen() {
    auto fd = open_log_file(path_);
    if (!fd) {
      reopen_error_ = fd.error().message;
      return fd.error();
    }
    ::close(fd_);
    fd_ = *fd;
    return true;
  }

 private:
  bool file_deleted() const {
    struct stat st {};
    return ::fstat(fd_, &st) == 0 && st.st_nlink == 0;
  }

  // Tells `what` on stderr unless it was the last trouble told.
  void trouble(const std::string& what) {
    if (what == trouble_) return;
    trouble_ = what;
    write_all(STDERR_FILENO, "cassandra-lifecycle-agent: " + what + "\n");
  }

  std::string path_;
  int fd_;
  bool also_stderr_;
  std::string trouble_;  // the last trouble told on stderr; cleared by a good write
  std::string reopen_error_;
};

using Sink = logging::sinks::synchronous_sink<JsonLinesBackend>;
using Logger = logging::sources::severity_logger_mt<LogLevel>;

std::mutex g_setup_mutex;  // guards g_sink against concurrent init/reopen/shutdown
boost::shared_ptr<Sink> g_sink;
std::atomic<bool> g_installed{false};

Logger& logger() {
  static Logger instance;
  return instance;
}

void remove_sink_locked() {
  g_installed = false;
  if (!g_sink) return;
  // With no sink left, Boost.Log would print to std::clog; disabled, it drops records instead.
  logging::core::get()->set_logging_enabled(false);
  logging::core::get()->remove_sink(g_sink);
  g_sink.reset();
}

}  // namespace

namespace detail {

bool log_sink_installed() {
  return g_installed.load();
}

void write_log_record(LogLevel level, std::string line) {
  auto record = logger().open_record(logging::keywords::severity = level);
  if (!record) return;
  logging::record_ostream stream(record);
  stream << line;
  stream.flush();
  logger().push_record(std::move(record));
}

}  // namespace detail

Result<bool> init_logging(const std::string& file, LogLevel min_level, bool also_stderr) {
  auto fd = open_log_file(file);
  if (!fd) return fd.error();
  std::lock_guard lock(g_setup_mutex);
  remove_sink_locked();
  g_sink = boost::make_shared<Sink>(boost::make_shared<JsonLinesBackend>(file, *fd, also_stderr));
  g_sink->set_filter([min_level](const logging::attribute_value_set& values) {
    const auto level = values["Severity"].extract<LogLevel>();
    return level && *level >= min_level;
  });
  logging::core::get()->add_sink(g_sink);
  logging::core::get()->set_logging_enabled(true);
  g_installed = true;
  return true;
}

Result<bool> reopen_log_file() {
  std::lock_guard lock(g_setup_mutex);
  if (!g_sink) return make_error("logging is not initialised");
  return g_sink->locked_backend()->reopen();
}

void shutdown_logging() {
  std::lock_guard lock(g_setup_mutex);
  remove_sink_locked();
}

}  // namespace cla
