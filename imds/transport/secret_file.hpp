// Files that hold secrets (an etcd password, a TLS client key): readable by the agent, not by other users.
#pragma once

#include <string>

#include "state/result.hpp"

namespace cla {

// Checks that `path` is a regular file this process can read and that grants no access to other users
// (mode o-rwx). Errors start with the path and say how to fix it, e.g.
// "/etc/cla/etcd.key: is accessible to every user (mode 0644); a secret file must not be: chmod o-rwx ...".
Result<void> check_secret_file(const std::string& path);

// The secret in `path` after check_secret_file: at most 4 KiB, not empty once one trailing newline (and
// carriage return) is dropped, returned without it.
Result<std::string> read_secret_file(const std::string& path);

}  // namespace cla
