// nodetool-sim's file I/O: the cluster file under an exclusive flock, atomic rewrites, the call log.
#pragma once

#include <chrono>
#include <string>

#include "cassandra/sim/sim_cluster.hpp"
#include "state/result.hpp"

namespace cla {

// The cluster file, read and parsed while holding flock(LOCK_EX) on it; the lock is held until this
// object is destroyed, so a read-modify-write is atomic against other nodetool-sim processes. Saving
// replaces the file (temp + rename); a process that was waiting on the replaced inode notices and
// locks the new file instead.
class LockedClusterFile {
 public:
  static Result<LockedClusterFile> open(const std::string& path);
  LockedClusterFile(LockedClusterFile&& other) noexcept;
  LockedClusterFile& operator=(LockedClusterFile&&) = delete;
  ~LockedClusterFile();

  SimCluster& cluster() { return cluster_; }
  Result<bool> save();

 private:
  LockedClusterFile(int fd, std::string path, SimCluster cluster);
  int fd_;
  std::string path_;
  SimCluster cluster_;
};

// The cluster file read and parsed without the lock. Every change replaces the file whole (temp + rename), so
// this sees one complete version: the newest whose rename came before the open.
Result<SimCluster> read_cluster_snapshot(const std::string& path);

// Writes text to path through a temporary file in the same directory and rename(2).
Result<bool> write_file_atomically(const std::string& path, const std::string& text);

// Appends {"t": ISO-8601 UTC, "node", "subcommand", "exit_code"} as one JSON line (O_APPEND, one write).
Result<bool> append_call_log(const std::string& path, std::chrono::system_clock::time_point t,
                             const std::string& node, const std::string& subcommand, int exit_code);

}  // namespace cla
