// Reading a whole file descriptor, with a bound.
#include "state/read_to_end.hpp"

#include <unistd.h>

#include <cerrno>

namespace cla {

FdText read_to_end(int fd, std::size_t limit) {
  FdText out;
  char buf[8192];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      out.error = errno;
      return out;
    }
    if (n == 0) return out;
    out.text.append(buf, static_cast<std::size_t>(n));
    if (out.text.size() > limit) {
      out.too_large = true;
      return out;
    }
  }
}

}  // namespace cla
