// Test fixture: the EtcdCluster's member processes (start on free ports, health, kill, restart, freeze,
// thaw).
#include "etcd_cluster.hpp"

#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <atomic>
#include <boost/asio.hpp>
#include <boost/json.hpp>
#include <boost/process/v2.hpp>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "agent/coordination/etcd/etcd_codec.hpp"
#include "imds/transport/base64.hpp"
#include "imds_emulator_process.hpp"
#include "tests/support/proc_state.hpp"

namespace cla::test {
namespace {

namespace asio = boost::asio;
namespace http = boost::beast::http;
namespace bp = boost::process::v2;
namespace json = boost::json;
using namespace std::chrono_literals;

constexpr const char* kEtcd = "/usr/bin/etcd";
// Runs in the child before exec: etcd is killed when the test process dies, even by a crash, so that no
// member outlives its test on a shared machine.
struct DieWithParent {
  template <class Launcher>
  boost::system::error_code on_exec_setup(Launcher&, const bp::filesystem::path&, const char* const*&) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    return {};
  }
};

// n distinct ports of 127.0.0.1 that nobody listens on now: bound together, since a port just closed may be
// handed out again at once (two members were once given the same client port).
std::vector<std::uint16_t> free_ports(std::size_t n) {
  asio::io_context ctx;
  std::vector<asio::ip::tcp::acceptor> held;
  std::vector<std::uint16_t> ports;
  for (std::size_t i = 0; i < n; ++i) {
    held.emplace_back(ctx, asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
    ports.push_back(held.back().local_endpoint().port());
  }
  return ports;
}

// Removes the dirs of fixtures whose test process died without its destructor (a crash): each dir names
// its owner in owner.pid, and its members died with it (DieWithParent).
void remove_orphaned_dirs(const std::filesystem::path& base) {
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(base, ec)) {
    if (entry.path().filename().string().rfind("cla-etcd-", 0) != 0) continue;
    std::ifstream owner(entry.path() / "owner.pid");
    pid_t pid = 0;
    if (owner >> pid && pid > 0 && ::kill(pid, 0) != 0 && errno == ESRCH)
      std::filesystem::remove_all(entry.path(), ec);
  }
}

// /dev/shm when it has room (each member preallocates a 64 MB WAL segment; a container's /dev/shm is often
// only 64 MB), else $TMPDIR.
std::filesystem::path make_temp_dir() {
  std::error_code ec;
  const auto shm = std::filesystem::space("/dev/shm", ec);
  const std::filesystem::path base =
      !ec && shm.available >= (std::uintmax_t{1} << 30) ? "/dev/shm" : std::filesystem::temp_directory_path();
  if (!std::getenv("CLA_KEEP_ETCD")) remove_orphaned_dirs(base);
  std::string tmpl = (base / "cla-etcd-XXXXXX").string();
  if (!::mkdtemp(tmpl.data())) throw std::runtime_error("cannot create a temp dir under " + base.string());
  std::ofstream(std::filesystem::path(tmpl) / "owner.pid") << ::getpid() << "\n";
  return tmpl;
}

std::string tail_of(const std::filesystem::path& file, std::size_t max = 1500) {
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  const std::string all = text.str();
  return all.size() > max ? all.substr(all.size() - max) : all;
}

}  // namespace

struct EtcdCluster::Member {
  std::string name;
  std::uint16_t client_port = 0, peer_port = 0;
  std::uint16_t tls_port = 0;  // with EtcdClusterOptions::tls_dir
  asio::io_context ctx;
  std::optional<bp::process> process;
  bool frozen = false;

  std::string client_url() const { return "http://127.0.0.1:" + std::to_string(client_port); }
  std::string peer_url() const { return "http://127.0.0.1:" + std::to_string(peer_port); }
  std::string tls_url() const { return "https://127.0.0.1:" + std::to_string(tls_port); }
  // What clients under test are given.
  std::string endpoint() const { return tls_port ? tls_url() : client_url(); }
  bool alive() {
    boost::system::error_code ec;
    return process && process->running(ec);
  }
  void kill() {
    if (!process) return;
    boost::system::error_code ec;
    ::kill(process->id(), SIGCONT);  // a frozen member must be able to die
    process->terminate(ec);          // SIGKILL
    process->wait(ec);
    process.reset();
    frozen = false;
  }
};

EtcdCluster::EtcdCluster(EtcdClusterOptions options) : options_(options), dir_(make_temp_dir()) {
  static std::atomic<int> clusters{0};
  token_ = "cla-test-" + std::to_string(::getpid()) + "-" + std::to_string(clusters++);
  // A port found free may be taken before etcd binds it (other engineers' tests run here too): try again
  // with new ports.
  for (int attempt = 1;; ++attempt) {
    members_.clear();
    initial_cluster_.clear();
    const auto ports = free_ports(3 * static_cast<std::size_t>(options_.members));
    for (int i = 0; i < options_.members; ++i) {
      auto m = std::make_unique<Member>();
      m->name = "m" + std::to_string(i);
      m->client_port = ports[3 * i];
      m->peer_port = ports[3 * i + 1];
      if (!options_.tls_dir.empty()) m->tls_port = ports[3 * i + 2];
      initial_cluster_ += (i ? "," : "") + m->name + "=" + m->peer_url();
      members_.push_back(std::move(m));
    }
    try {
      for (auto& m : members_) start_member(*m, "new");
      for (auto& m : members_) wait_healthy(*m, 30s);
      return;
    } catch (const std::exception&) {
      for (auto& m : members_) m->kill();
      if (attempt == 3) throw;
      for (auto& m : members_) std::filesystem::remove_all(dir_ / m->name);
    }
  }
}

EtcdCluster::~EtcdCluster() {
  for (auto& m : members_) m->kill();
  if (!std::getenv("CLA_KEEP_ETCD")) {
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }
}

void EtcdCluster::start_member(Member& m, const std::string& state) {
  std::vector<std::string> args = {"--name", m.name, "--data-dir", (dir_ / m.name).string()};
  const std::pair<const char*, std::string> flags[] = {
      {"--listen-client-urls", m.tls_port ? m.tls_url() + "," + m.client_url() : m.client_url()},
      {"--advertise-client-urls", m.endpoint()},
      {"--listen-peer-urls", m.peer_url()},
      {"--initial-advertise-peer-urls", m.peer_url()},
      {"--initial-cluster", initial_cluster_},
      {"--initial-cluster-token", token_},
      {"--initial-cluster-state", state},
      {"--auth-token-ttl", std::to_string(options_.auth_token_ttl.count())},
      {"--logger", "zap"},
      {"--log-outputs", (dir_ / (m.name + ".log")).string()},
  };
  for (const auto& [flag, value] : flags) args.insert(args.end(), {flag, value});
  if (m.tls_port) {
    const auto& d = options_.tls_dir;
    args.insert(args.end(),
                {"--cert-file", (d / "server.pem").string(), "--key-file", (d / "server.key").string(),
                 "--trusted-ca-file", (d / "ca.pem").string(), "--client-cert-auth"});
  }
  m.process.emplace(m.ctx, kEtcd, args, bp::process_stdio{nullptr, nullptr, nullptr}, DieWithParent{});
}

void EtcdCluster::wait_healthy(const Member& m, std::chrono::seconds ceiling) const {
  auto& member = const_cast<Member&>(m);
  const auto deadline = std::chrono::steady_clock::now() + ceiling;
  std::string last = "no answer";
  while (std::chrono::steady_clock::now() < deadline) {
    if (!member.alive())
      throw std::runtime_error("etcd member " + m.name + " exited while starting; its log ends with:\n" +
                               tail_of(dir_ / (m.name + ".log")));
    try {
      const auto reply = http_call(m.client_port, http::verb::get, "/health", {}, {}, 2s);
      if (reply.status == 200 && reply.body.find("\"health\":\"true\"") != std::string::npos && serves_us(m))
        return;
      last = reply.body;
    } catch (const std::exception& e) {
      last = e.what();
    }
    std::this_thread::sleep_for(50ms);
  }
  throw std::runtime_error("etcd member " + m.name + " not healthy within " +
                           std::to_string(ceiling.count()) + " s: " + last);
}

bool EtcdCluster::serves_us(const Member& m) const {
  // Another test's etcd may have bound this port first (the port was free when picked; ours then failed to
  // bind and exits): the member answering must be ours, with our peer URL.
  Headers headers = {{"Content-Type", "application/json"}};
  if (!root_token_.empty()) headers.emplace_back("Authorization", root_token_);
  const auto reply = http_call(m.client_port, http::verb::post, "/v3/cluster/member/list", "{}", headers, 2s);
  if (reply.status != 200) return false;
  const auto list = json::parse(reply.body).as_object();
  const auto* members = list.if_contains("members");
  if (!members || !members->is_array()) return false;
  for (const auto& member : members->get_array()) {
    const auto& object = member.as_object();
    const auto* name = object.if_contains("name");
    const auto* peers = object.if_contains("peerURLs");
    if (name && *name == json::string(m.name) && peers && *peers == json::array{json::string(m.peer_url())})
      return true;
  }
  return false;
}

std::size_t EtcdCluster::size() const {
  return members_.size();
}

std::vector<std::string> EtcdCluster::endpoints() const {
  std::vector<std::string> urls;
  for (const auto& m : members_) urls.push_back(m->endpoint());
  return urls;
}

std::string EtcdCluster::endpoint(std::size_t i) const {
  return members_.at(i)->endpoint();
}

std::uint16_t EtcdCluster::client_port(std::size_t i) const {
  return members_.at(i)->client_port;
}

bool EtcdCluster::running(std::size_t i) const {
  return members_.at(i)->alive() && !members_.at(i)->frozen;
}

void EtcdCluster::kill(std::size_t i) {
  members_.at(i)->kill();
}

void EtcdCluster::restart(std::size_t i) {
  Member& m = *members_.at(i);
  m.kill();
  start_member(m, "existing");
  wait_healthy(m, 30s);
}

void EtcdCluster::freeze(std::size_t i) {
  Member& m = *members_.at(i);
  if (!m.alive()) throw std::runtime_error("cannot freeze etcd member " + m.name + ": not running");
  ::kill(m.process->id(), SIGSTOP);
  m.frozen = true;
  // A member thread in a long fsync (the fresh check's dpkg beside the tests) once answered after kill()
  // returned (etcd_client_failover_test, in CI).
  if (!cla::test::threads_stopped_within_bound(m.process->id()))
    throw std::runtime_error("etcd member " + m.name + ": not every thread stopped within " +
                             std::to_string(cla::test::kStopBound.count()) + " s of SIGSTOP");
}

void EtcdCluster::thaw(std::size_t i) {
  Member& m = *members_.at(i);
  if (m.alive()) ::kill(m.process->id(), SIGCONT);
  m.frozen = false;
}

}  // namespace cla::test
