// Whether the state file's place can be trusted (SPEC 2.6): a directory only the agent can write to, and a
// state file that is a regular file, never a symbolic link. The daemon refuses to start otherwise.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>

#include "state/result.hpp"

namespace cla {

// What the checks read of the directory (its mode bits and owner).
struct DirectoryFacts {
  unsigned mode = 0;  // st_mode & 07777
  uid_t owner = 0;
};

// What is wrong with a state directory `dir`, or nothing: writable by its group or by others, or (when
// `agent_uid` is given) owned by another user than the one the agent runs as.
std::optional<std::string> judge_state_directory(const std::string& dir, const DirectoryFacts& facts,
                                                 std::optional<uid_t> agent_uid);

// Stats the state file's directory and the file itself. A directory that does not exist yet is fine (the
// first write creates it, mode 0700), and so is a missing file; an unsafe directory (judge_state_directory),
// or a state file that is a symbolic link or not a regular file, is an error naming the path, its mode and
// its owner.
Result<bool> check_state_location(const std::string& state_file, std::optional<uid_t> agent_uid);

}  // namespace cla
