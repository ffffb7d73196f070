// Reading a whole file descriptor, with a bound: the one loop behind the state file, the config file and the
// secret files.
#pragma once

#include <cstddef>
#include <limits>
#include <string>

namespace cla {

struct FdText {
  std::string text;
  int error = 0;           // the errno of a read that failed (text holds what came before)
  bool too_large = false;  // more than the limit came: reading stopped there
};

// Reads `fd` to its end (EINTR retried); does not close it.
FdText read_to_end(int fd, std::size_t limit = std::numeric_limits<std::size_t>::max());

}  // namespace cla
