// The state file on disk: atomic writes (temp, fsync, rename, fsync of the directory), mode 0600, corrupt
// files kept aside.
#pragma once

#include <string>

#include "state/agent_state.hpp"
#include "state/result.hpp"

namespace cla {

struct LoadedState {
  enum class Kind { loaded, missing, corrupt } kind = Kind::missing;
  AgentState state;
  std::string problem;   // why it was corrupt
  std::string moved_to;  // where the corrupt file was kept
};

class StateStore {
 public:
  explicit StateStore(std::string path) : path_(std::move(path)) {}

  // A corrupt file is renamed to `<path>.corrupt-<unix time>` (when move_corrupt_aside) and reported as
  // corrupt.
  Result<LoadedState> load(WallTime now, bool move_corrupt_aside) const;
  Result<bool> save(const AgentState& state) const;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Writes `content` to `path` atomically and durably, creating the parent directory (0700) if needed: a
// temp file `<path>.tmp.<pid>.<n>` created exclusively (a name that exists, a symbolic link included, is
// never opened), fsynced, renamed over `path`, then the directory fsynced. No failure leaves the temp file.
Result<bool> write_file_atomically(const std::string& path, std::string_view content, unsigned mode);

}  // namespace cla
