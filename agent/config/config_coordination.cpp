// The coordination.* section (SPEC 9): its readers and rules, its JSON view, and the password file's reader.
#include "agent/config/config_coordination.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <set>

#include "agent/config/config_validation.hpp"
#include "imds/endpoint.hpp"

namespace cla {
namespace {

using namespace config_detail;

constexpr std::size_t kMaxPasswordBytes = 4096;

std::string octal_mode(mode_t mode) {
  char text[8];
  std::snprintf(text, sizeof text, "%04o", static_cast<unsigned>(mode & 07777));
  return text;
}

// Letters, digits, '.', '_', '-': a key segment that cannot escape /cassandra-lifecycle-agent/<cluster>/.
std::optional<std::string> check_cluster(std::string_view cluster) {
  if (cluster.empty()) return std::nullopt;  // required only with endpoints (check_coordination)
  const bool safe = cluster.size() <= 128 && cluster != "." && cluster != ".." &&
                    std::all_of(cluster.begin(), cluster.end(), [](unsigned char c) {
                      return std::isalnum(c) || c == '.' || c == '_' || c == '-';
                    });
  if (safe) return std::nullopt;
  return "must be a key segment of letters, digits, '.', '_' and '-' (at most 128), e.g. \"prod-cass-01\"; "
         "got \"" +
         std::string(cluster.substr(0, 64)) + (cluster.size() > 64 ? "...\"" : "\"");
}

ValueReader endpoints_into(std::vector<std::string>& out) {
  return [&out](const boost::json::value& value, const std::string& path) -> Check {
    const auto* array = value.if_array();
    if (!array) return wrong_type(path, "array of etcd client URLs", value);
    std::vector<std::string> endpoints;
    std::set<std::string> seen;
    for (std::size_t i = 0; i < array->size(); ++i) {
      const std::string element_path = path + "[" + std::to_string(i) + "]";
      const auto* s = (*array)[i].if_string();
      if (!s) return wrong_type(element_path, "string", (*array)[i]);
      if (auto endpoint = parse_etcd_endpoint(*s); !endpoint)
        return FieldError{element_path, endpoint.error().message};
      if (!seen.insert(std::string(*s)).second) return FieldError{element_path, "is listed twice"};
      endpoints.emplace_back(*s);
    }
    out = std::move(endpoints);
    return std::nullopt;
  };
}

ValueReader on_unavailable_into(OnUnavailable& out) {
  return [&out](const boost::json::value& value, const std::string& path) -> Check {
    const auto* s = value.if_string();
    if (!s) return wrong_type(path, "string", value);
    if (*s == "local_gate") {
      out = OnUnavailable::local_gate;
    } else if (*s == "hold") {
      out = OnUnavailable::hold;
    } else {
      return FieldError{path,
                        "must be \"local_gate\" (drain on the nodetool gate alone) or \"hold\" (no platform "
                        "drain before the forced instant); got " +
                            describe(value)};
    }
    return std::nullopt;
  };
}

}  // namespace

Result<std::string> read_password_file(const std::string& path) {
  auto fail = [&](const std::string& what) { return make_error(path + ": " + what); };
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return fail(std::string("cannot read: ") + std::strerror(errno));
  struct FdCloser {
    int fd;
    ~FdCloser() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) return fail(std::string("cannot stat: ") + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) return fail("is not a regular file");
  if ((st.st_mode & (S_IROTH | S_IWOTH)) != 0)
    return fail("is accessible to every user (mode " + octal_mode(st.st_mode) +
                "); a password file must not be: chmod o-rwx " + path);
  std::string text;
  char buf[1024];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return fail(std::string("cannot read: ") + std::strerror(errno));
    if (n == 0) break;
    text.append(buf, static_cast<std::size_t>(n));
    if (text.size() > kMaxPasswordBytes) return fail("is larger than 4 KiB; is it the password file?");
  }
  if (text.ends_with('\n')) text.pop_back();
  if (text.ends_with('\r')) text.pop_back();
  if (text.empty()) return fail("is empty");
  return text;
}

std::string_view to_string(OnUnavailable policy) {
  return policy == OnUnavailable::hold ? "hold" : "local_gate";
}

boost::json::object coordination_to_json(const CoordinationConfig& c) {
  return boost::json::object{
      {"etcd_endpoints", boost::json::array(c.etcd_endpoints.begin(), c.etcd_endpoints.end())},
      {"cluster", c.cluster},
      {"lease_ttl_s", c.lease_ttl_s.count()},
      {"username", c.username},
      {"password_file", c.password_file},
      {"on_unavailable", to_string(c.on_unavailable)},
  };
}

namespace config_detail {

ValueReader coordination_into(CoordinationConfig& c) {
  return object_of({
      {"etcd_endpoints", endpoints_into(c.etcd_endpoints)},
      {"cluster", string_into(c.cluster, check_cluster)},
      {"lease_ttl_s", duration_into(c.lease_ttl_s, 5, 300)},
      {"username", string_into(c.username)},
      {"password_file", string_into(c.password_file,
                                    [](std::string_view path) -> std::optional<std::string> {
                                      return path.empty() ? std::nullopt : check_file_path(path);
                                    })},
      {"on_unavailable", on_unavailable_into(c.on_unavailable)},
  });
}

Check check_coordination(const CoordinationConfig& c) {
  if (c.enabled() && c.cluster.empty())
    return FieldError{
        "coordination.cluster",
        "is required when coordination.etcd_endpoints is set: it names the Cassandra cluster whose "
        "agents coordinate (keys live under /cassandra-lifecycle-agent/<cluster>/)"};
  if (!c.username.empty() && c.password_file.empty())
    return FieldError{"coordination.password_file", "is required with coordination.username"};
  if (c.username.empty() && !c.password_file.empty())
    return FieldError{"coordination.username", "is required with coordination.password_file"};
  if (!c.password_file.empty())
    if (auto password = read_password_file(c.password_file); !password)
      return FieldError{"coordination.password_file", password.error().message};
  return std::nullopt;
}

}  // namespace config_detail
}  // namespace cla
