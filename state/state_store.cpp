// Durable state-file I/O: a write either lands whole or not at all, even across power loss.
#include "state/state_store.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <boost/json/serialize.hpp>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

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
  const std::string tmp = path + ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
  if (fd < 0) return make_error(errno_text("cannot create", tmp));
  ::fchmod(fd, mode);  // the umask must not widen or narrow what we asked for
  std::size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const std::string msg = errno_text("cannot write", tmp);
      ::close(fd);
      ::unlink(tmp.c_str());
      return make_error(msg);
    }
    done += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0) {
    const std::string msg = errno_text("cannot fsync", tmp);
    ::close(fd);
    ::unlink(tmp.c_str());
    return make_error(msg);
  }
  ::close(fd);
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string msg = errno_text("cannot rename " + tmp + " to", path);
    ::unlink(tmp.c_str());
    return make_error(msg);
  }
  return fsync_path(dir.string(), O_RDONLY | O_DIRECTORY);
}

Result<bool> StateStore::save(const AgentState& state) const {
  return write_file_atomically(path_, boost::json::serialize(encode_state(state)) + "\n", 0600);
}

Result<LoadedState> StateStore::load(WallTime now, bool move_corrupt_aside) const {
  LoadedState out;
  std::error_code ec;
  if (!fs::exists(path_, ec) && !ec) return out;  // first start
  std::ifstream in(path_, std::ios::binary);
  if (!in) return make_error(errno_text("cannot read state file", path_));
  std::ostringstream buf;
  buf << in.rdbuf();
  auto decoded = decode_state(buf.str());
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
