// Files that hold secrets (an etcd password, a TLS client key): readable by the agent's user alone (no group
// or other access: 0600 or 0400).
// Every such file, and the TLS certificates beside them, is read through the descriptor its checks were made
// on: what was checked is what is used, even if the path is replaced meanwhile.
#pragma once

#include <cstddef>
#include <string>

#include "state/result.hpp"

namespace cla {

enum class FileSecrecy {
  public_file,  // a certificate: any mode
  secret,       // no access for the group or other users (mode go-rwx)
};

// The whole of `path`, opened once (never blocking: a FIFO is refused, not waited on), checked through that
// descriptor (a regular file of at most `limit` bytes, and a secret one accessible to its owner alone) and
// read through it. Errors start with the path and say how to fix it, e.g. "/etc/cla/etcd.key: is accessible
// to its group or other users (mode 0640); a secret file must not be: chmod go-rwx /etc/cla/etcd.key".
Result<std::string> read_checked_file(const std::string& path, std::size_t limit, FileSecrecy secrecy);

// A secret line (a password) in `path`, read by read_checked_file: at most 4 KiB, not empty once one trailing
// newline (and carriage return) is dropped, returned without it.
Result<std::string> read_secret_file(const std::string& path);

namespace testing {
// Called with the path once a file passed its checks, before it is read: a test replaces the file there.
inline void (*after_file_check)(const std::string& path) = nullptr;
}  // namespace testing

}  // namespace cla
