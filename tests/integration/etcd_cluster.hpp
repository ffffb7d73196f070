// Test fixture: an N-member etcd cluster (Debian's /usr/bin/etcd) on free 127.0.0.1 ports, in a temp dir.
//
//   cla::test::EtcdCluster etcd;                 // 3 members, returns once every member is healthy
//   cla::EtcdClientOptions options{.endpoints = etcd.endpoints()};
//   etcd.put("/cassandra-lifecycle-agent/c1/drains/vm0", "{...}");   // plain gateway calls, for assertions
//   auto drains = etcd.get_prefix("/cassandra-lifecycle-agent/c1/drains/");
//   etcd.kill(etcd.leader());  etcd.restart(i);  etcd.freeze(i);  etcd.thaw(i);
//   etcd.enable_auth("agent", "s3cret", "/cassandra-lifecycle-agent/");
//
// Never the packaged service: every member is a child process with its data under /dev/shm (fsync is cheap
// there; $TMPDIR when /dev/shm is small) and its log in <dir>/<name>.log. The destructor kills them all and
// removes the dir (kept with CLA_KEEP_ETCD=1); members die with the test process even when it crashes, and
// the next fixture removes a crashed one's dir. Failures to start or to reach a member throw
// std::runtime_error (this is test code).
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace cla::test {

struct EtcdClusterOptions {
  int members = 3;
  // etcd's --auth-token-ttl: how long a simple token lives after its last use.
  std::chrono::seconds auth_token_ttl{300};
  // Certificates from scripts/etcd-tls-certs.sh: each member then serves clients over https with
  // --client-cert-auth (server.pem, trusting ca.pem), and endpoints() are https URLs. The fixture's own calls
  // below go to a second, plain listener on client_port().
  std::filesystem::path tls_dir;
};

// One member, the rest the defaults: what a test of a single agent's requests needs.
inline EtcdClusterOptions one_member() {
  EtcdClusterOptions options;
  options.members = 1;
  return options;
}

class EtcdCluster {
 public:
  explicit EtcdCluster(EtcdClusterOptions options = {});
  ~EtcdCluster();
  EtcdCluster(const EtcdCluster&) = delete;
  EtcdCluster& operator=(const EtcdCluster&) = delete;

  std::size_t size() const;
  // Client URLs ("http://127.0.0.1:PORT", https with tls_dir), in member order, for
  // EtcdClientOptions::endpoints.
  std::vector<std::string> endpoints() const;
  std::string endpoint(std::size_t member) const;
  std::uint16_t client_port(std::size_t member) const;  // plain http, also with tls_dir
  const std::filesystem::path& dir() const { return dir_; }

  // The member that leads now, as the members report it (waits up to 15 s for one).
  std::size_t leader() const;
  // A running member that does not lead now.
  std::size_t follower() const;

  // SIGKILL and wait for the exit. Its data stays for restart().
  void kill(std::size_t member);
  // Starts a killed member again on the same ports and data; returns once it answers /health.
  void restart(std::size_t member);
  // SIGSTOP / SIGCONT: the member keeps its sockets but answers nothing (connects still succeed).
  void freeze(std::size_t member);
  void thaw(std::size_t member);
  bool running(std::size_t member) const;

  // Creates root (password "root-pw") and `user` with read-write access to keys under `prefix`, then turns
  // authentication on. Afterwards the helpers below act as root.
  void enable_auth(const std::string& user, const std::string& password, const std::string& prefix);
  // Sets `user`'s password (etcd then invalidates the user's tokens, even for the same password).
  void change_password(const std::string& user, const std::string& password);

  // Plain gateway calls on any running member, for test set-up and assertions.
  void put(const std::string& key, const std::string& value);
  void del(const std::string& key);
  std::vector<std::pair<std::string, std::string>> get_prefix(const std::string& prefix);
  void revoke_lease(std::int64_t lease);

 private:
  struct Member;
  // Starts the member's etcd; `state` is "new" (first start) or "existing" (its data dir holds the cluster).
  void start_member(Member& member, const std::string& state);
  void wait_healthy(const Member& member, std::chrono::seconds ceiling) const;
  // Whether the etcd on the member's client port is this member (its name and peer URL), not another test's.
  bool serves_us(const Member& member) const;
  // POST to a running member as root (when auth is on); the body of a 200 answer.
  std::string call(const std::string& path, const std::string& body) const;

  EtcdClusterOptions options_;
  std::filesystem::path dir_;
  std::vector<std::unique_ptr<Member>> members_;
  std::string token_;            // --initial-cluster-token: unique, so no stray member can join
  std::string initial_cluster_;  // "m0=http://127.0.0.1:P0,m1=..."
  std::string root_token_;
};

}  // namespace cla::test
