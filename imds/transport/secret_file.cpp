// Files that hold secrets (an etcd password, a TLS client key): readable by the agent, not by other users.
#include "imds/transport/secret_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "state/read_to_end.hpp"

namespace cla {
namespace {

constexpr std::size_t kMaxSecretBytes = 4096;

std::string octal_mode(mode_t mode) {
  char text[8];
  std::snprintf(text, sizeof text, "%04o", static_cast<unsigned>(mode & 07777));
  return text;
}

struct FdCloser {
  int fd;
  ~FdCloser() {
    if (fd >= 0) ::close(fd);
  }
};

// Opens `path` and checks it as check_secret_file says; the descriptor, or the error.
Result<int> open_secret(const std::string& path) {
  auto fail = [&](const std::string& what) { return make_error(path + ": " + what); };
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return fail(std::string("cannot read: ") + std::strerror(errno));
  FdCloser closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) return fail(std::string("cannot stat: ") + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) return fail("is not a regular file");
  if ((st.st_mode & S_IRWXO) != 0)
    return fail("is accessible to every user (mode " + octal_mode(st.st_mode) +
                "); a secret file must not be: chmod o-rwx " + path);
  closer.fd = -1;
  return fd;
}

}  // namespace

Result<void> check_secret_file(const std::string& path) {
  auto fd = open_secret(path);
  if (!fd) return fd.error();
  ::close(*fd);
  return {};
}

Result<std::string> read_secret_file(const std::string& path) {
  auto fd = open_secret(path);
  if (!fd) return fd.error();
  FdCloser closer{*fd};
  auto fail = [&](const std::string& what) { return make_error(path + ": " + what); };
  FdText read = read_to_end(*fd, kMaxSecretBytes);
  if (read.error) return fail(std::string("cannot read: ") + std::strerror(read.error));
  if (read.too_large) return fail("is larger than 4 KiB; is it the right file?");
  std::string& text = read.text;
  if (text.ends_with('\n')) text.pop_back();
  if (text.ends_with('\r')) text.pop_back();
  if (text.empty()) return fail("is empty");
  return text;
}

}  // namespace cla
