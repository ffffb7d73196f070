// nodetool-sim's file I/O: flock-protected read-modify-write of the cluster file, temp+rename, call log.
#include "cassandra/sim/sim_store.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <utility>

#include "cassandra/sim/sim_cluster_json.hpp"

namespace cla {

namespace {

Error system_error(const std::string& what, const std::string& path) {
  return make_error(what + " " + path + ": " + std::strerror(errno));
}

bool write_all(int fd, const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

Result<std::string> read_all(int fd, const std::string& path) {
  std::string text;
  char buffer[8192];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return system_error("cannot read", path);
    if (n == 0) return text;
    text.append(buffer, static_cast<std::size_t>(n));
  }
}

}  // namespace

Result<LockedClusterFile> LockedClusterFile::open(const std::string& path) {
  for (;;) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return system_error("cannot open cluster file", path);
    int rc;
    while ((rc = ::flock(fd, LOCK_EX)) < 0 && errno == EINTR) {
    }
    struct stat locked {
    }, current{};
    if (rc < 0 || ::fstat(fd, &locked) < 0) {
      auto error = system_error("cannot lock cluster file", path);
      ::close(fd);
      return error;
    }
    // Another process may have replaced the file while this one waited for the lock: lock the new one.
    if (::stat(path.c_str(), &current) < 0 || current.st_ino != locked.st_ino ||
        current.st_dev != locked.st_dev) {
      ::close(fd);
      continue;
    }
    auto text = read_all(fd, path);
    auto cluster = text ? parse_sim_cluster(*text) : Result<SimCluster>(text.error());
    if (!cluster) {
      ::close(fd);
      return make_error("cluster file " + path + ": " + cluster.error().message);
    }
    return LockedClusterFile(fd, path, std::move(cluster.value()));
  }
}

Result<SimCluster> read_cluster_snapshot(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return system_error("cannot open cluster file", path);
  auto text = read_all(fd, path);
  ::close(fd);
  if (!text) return text.error();
  auto cluster = parse_sim_cluster(*text);
  if (!cluster) return make_error("cluster file " + path + ": " + cluster.error().message);
  return cluster;
}

LockedClusterFile::LockedClusterFile(int fd, std::string path, SimCluster cluster)
    : fd_(fd), path_(std::move(path)), cluster_(std::move(cluster)) {}

LockedClusterFile::LockedClusterFile(LockedClusterFile&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), path_(std::move(other.path_)), cluster_(std::move(other.cluster_)) {}

LockedClusterFile::~LockedClusterFile() {
  if (fd_ >= 0) ::close(fd_);  // releases the lock
}

Result<bool> LockedClusterFile::save() {
  return write_file_atomically(path_, serialize_sim_cluster(cluster_));
}

Result<bool> write_file_atomically(const std::string& path, const std::string& text) {
  const std::string temp = path + ".tmp." + std::to_string(::getpid());
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return system_error("cannot create", temp);
  const bool written = write_all(fd, text);
  if (::close(fd) < 0 || !written) {
    auto error = system_error("cannot write", temp);
    ::unlink(temp.c_str());
    return error;
  }
  if (::rename(temp.c_str(), path.c_str()) < 0) {
    auto error = system_error("cannot replace", path);
    ::unlink(temp.c_str());
    return error;
  }
  return true;
}

Result<bool> append_call_log(const std::string& path, std::chrono::system_clock::time_point t,
                             const std::string& node, const std::string& subcommand, int exit_code) {
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
  const std::time_t seconds = static_cast<std::time_t>(ms / 1000);
  std::tm utc{};
  ::gmtime_r(&seconds, &utc);
  char stamp[40];
  const std::size_t len = std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%S", &utc);
  std::snprintf(stamp + len, sizeof stamp - len, ".%03dZ", static_cast<int>(ms % 1000));
  const boost::json::object entry{
      {"t", stamp}, {"node", node}, {"subcommand", subcommand}, {"exit_code", exit_code}};
  const std::string line = boost::json::serialize(entry) + "\n";
  const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return system_error("cannot open call log", path);
  const bool written = write_all(fd, line);
  ::close(fd);
  if (!written) return system_error("cannot write call log", path);
  return true;
}

}  // namespace cla
