// Files that hold secrets (an etcd password, a TLS client key), and the certificates beside them: opened
// once, checked and read through that one descriptor.
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

// "4 KiB", "1 MiB".
std::string size_text(std::size_t bytes) {
  return bytes % (1u << 20) == 0 ? std::to_string(bytes >> 20) + " MiB"
                                 : std::to_string(bytes >> 10) + " KiB";
}

struct FdCloser {
  int fd;
  ~FdCloser() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

Result<std::string> read_checked_file(const std::string& path, std::size_t limit, FileSecrecy secrecy) {
  auto fail = [&](const std::string& what) { return make_error(path + ": " + what); };
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0) return fail(std::string("cannot read: ") + std::strerror(errno));
  FdCloser closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) return fail(std::string("cannot stat: ") + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) return fail("is not a regular file");
  if (secrecy == FileSecrecy::secret && (st.st_mode & (S_IRWXG | S_IRWXO)) != 0)
    return fail("is accessible to its group or other users (mode " + octal_mode(st.st_mode) +
                "); a secret file must not be: chmod go-rwx " + path);
  if (testing::after_file_check) testing::after_file_check(path);
  FdText read = read_to_end(fd, limit);
  if (read.error) return fail(std::string("cannot read: ") + std::strerror(read.error));
  if (read.too_large) return fail("is larger than " + size_text(limit) + "; is it the right file?");
  return std::move(read.text);
}

Result<std::string> read_secret_file(const std::string& path) {
  auto read = read_checked_file(path, kMaxSecretBytes, FileSecrecy::secret);
  if (!read) return read.error();
  std::string& text = read.value();
  if (text.ends_with('\n')) text.pop_back();
  if (text.ends_with('\r')) text.pop_back();
  if (text.empty()) return make_error(path + ": is empty");
  return std::move(text);
}

}  // namespace cla
