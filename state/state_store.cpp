// Durable state-file I/O: a write either lands whole or not at all, even across power loss.
#include "state/state_store.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <boost/json/serialize.hpp>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <utility>

#include "state/read_to_end.hpp"
#include "state/state_codec.hpp"

namespace cla {

namespace fs = std::filesystem;

namespace {
std::string errno_text(const std::string& what, const std::string& path) {
  return what + " " + path + ": " + std::strerror(errno);
}

Result<bool> fsync_path(const std::string& path, int flags) {
  int fd = ::open(path.c_str(), flags | O_CLOEXEC);
  if (fd < 0) return make_error(errno_text("cannot open", path));
  const int rc = ::fsync(fd);
  const int saved = errno;
  ::close(fd);
  errno = saved;
  if (rc != 0) return make_error(errno_text("cannot fsync", path));
  return true;
}

// The temp file beside `path`, created here and nowhere else: O_EXCL makes open() fail on any name that
// exists, a symbolic link included, so nothing planted in the directory is followed or written through. A
// name taken (another writer's, one a crash left behind, or one planted) moves on to the next. Unlinked
// on destruction unless renamed, so no failure leaves it behind.
class TempFile {
 public:
  static Result<TempFile> create(const std::string& path, unsigned mode) {
    const std::string stem = path + ".tmp." + std::to_string(::getpid()) + ".";
    for (int n = 0; n < kMaxNames; ++n) {
      std::string name = stem + std::to_string(n);
      const int fd = ::open(name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
      if (fd >= 0) return TempFile(std::move(name), fd);
      if (errno != EEXIST) return make_error(errno_text("cannot create", name));
    }
    return make_error("cannot create a temp file beside " + path + ": " + stem + "0 to " +
                      std::to_string(kMaxNames - 1) + " all exist");
  }
  TempFile(TempFile&& other) noexcept
      : name_(std::move(other.name_)),
        fd_(std::exchange(other.fd_, -1)),
        linked_(std::exchange(other.linked_, false)) {}
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  TempFile& operator=(TempFile&&) = delete;
  ~TempFile() {
    if (fd_ >= 0) ::close(fd_);
    if (linked_) ::unlink(name_.c_str());
  }

  const std::string& name() const { return name_; }
  int fd() const { return fd_; }
  Result<bool> close() {
    const int rc = ::close(std::exchange(fd_, -1));
    if (rc != 0) return make_error(errno_text("cannot close", name_));
    return true;
  }
  void renamed() { linked_ = false; }

 private:
  static constexpr int kMaxNames = 100;
  TempFile(std::string name, int fd) : name_(std::move(name)), fd_(fd) {}
  std::string name_;
  int fd_ = -1;
  bool linked_ = true;
};

Result<bool> write_all(int fd, std::string_view content, const std::string& name) {
  std::size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return make_error(errno_text("cannot write", name));
    done += static_cast<std::size_t>(n);
  }
  return true;
}
}  // namespace

Result<bool> write_file_atomically(const std::string& path, std::string_view content, unsigned mode) {
  const fs::path target(path);
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::error_code ec;
  if (!fs::exists(dir, ec)) {
    fs::create_directories(dir, ec);
    if (ec) return make_error("cannot create directory " + dir.string() + ": " + ec.message());
    fs::permissions(dir, fs::perms::owner_all, ec);
  }
  auto tmp = TempFile::create(path, mode);
  if (!tmp) return tmp.error();
  // The umask must not widen or narrow what we asked for.
  if (::fchmod(tmp->fd(), mode) != 0) return make_error(errno_text("cannot chmod", tmp->name()));
  if (auto written = write_all(tmp->fd(), content, tmp->name()); !written) return written;
  if (::fsync(tmp->fd()) != 0) return make_error(errno_text("cannot fsync", tmp->name()));
  if (auto closed = tmp->close(); !closed) return closed;
  if (::rename(tmp->name().c_str(), path.c_str()) != 0)
    return make_error(errno_text("cannot rename " + tmp->name() + " to", path));
  tmp->renamed();
  return fsync_path(dir.string(), O_RDONLY | O_DIRECTORY);
}

Result<bool> StateStore::save(const AgentState& state) const {
  return write_file_atomically(path_, boost::json::serialize(encode_state(state)) + "\n", 0600);
}

Result<LoadedState> StateStore::load(WallTime now, bool move_corrupt_aside) const {
  LoadedState out;
  // Never through a symbolic link: the agent writes a regular file only (check_state_location refuses a
  // link at start; this keeps a link planted later from being read).
  const int fd = ::open(path_.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0 && errno == ENOENT) return out;  // first start
  if (fd < 0) return make_error(errno_text("cannot read state file", path_));
  FdText read = read_to_end(fd);
  ::close(fd);
  if (read.error) {
    errno = read.error;
    return make_error(errno_text("cannot read state file", path_));
  }
  auto decoded = decode_state(read.text);
  if (decoded) {
    out.kind = LoadedState::Kind::loaded;
    out.state = std::move(decoded).value();
    return out;
  }
  out.kind = LoadedState::Kind::corrupt;
  out.problem = decoded.error().message;
  if (move_corrupt_aside) {
    const auto secs = std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch()).count();
    out.moved_to = path_ + ".corrupt-" + std::to_string(secs);
    if (::rename(path_.c_str(), out.moved_to.c_str()) != 0)
      return make_error(errno_text("cannot move corrupt state file aside to", out.moved_to));
  }
  return out;
}

}  // namespace cla
