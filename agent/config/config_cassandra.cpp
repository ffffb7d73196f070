// The cassandra.* section (SPEC 2.3): its readers and rules, its JSON view, and the Jolokia client's options.
#include "agent/config/config_cassandra.hpp"

#include "agent/config/config_tls.hpp"
#include "agent/config/config_validation.hpp"
#include "cassandra/jolokia/jolokia_url.hpp"

namespace cla {
namespace {

using namespace config_detail;

ValueReader backend_into(NodeBackendKind& out) {
  return [&out](const boost::json::value& value, const std::string& path) -> Check {
    const auto* s = value.if_string();
    if (!s) return wrong_type(path, "string", value);
    if (*s == "nodetool") {
      out = NodeBackendKind::nodetool;
    } else if (*s == "jolokia") {
      out = NodeBackendKind::jolokia;
    } else {
      return FieldError{
          path,
          "must be \"nodetool\" (one nodetool run a step) or \"jolokia\" (HTTP to the Jolokia JVM "
          "agent in Cassandra, cassandra.jolokia); got " +
              describe(value)};
    }
    return std::nullopt;
  };
}

std::optional<std::string> check_jolokia_url(std::string_view url) {
  if (auto parsed = parse_jolokia_url(url); !parsed) return parsed.error().message;
  return std::nullopt;
}

std::optional<std::string> check_optional_file_path(std::string_view path) {
  return path.empty() ? std::nullopt : check_file_path(path);
}

}  // namespace

std::string_view to_string(NodeBackendKind backend) {
  return backend == NodeBackendKind::jolokia ? "jolokia" : "nodetool";
}

boost::json::object cassandra_to_json(const CassandraConfig& c) {
  return {{"nodetool", boost::json::array(c.nodetool.begin(), c.nodetool.end())},
          {"command_timeout_s", c.command_timeout_s.count()},
          {"restart_command", boost::json::array(c.restart_command.begin(), c.restart_command.end())},
          {"backend", to_string(c.backend)},
          {"jolokia",
           {{"url", c.jolokia.url},
            {"username", c.jolokia.username},
            {"password_file", c.jolokia.password_file},
            {"tls",
             {{"ca_file", c.jolokia.tls.ca_file},
              {"cert_file", c.jolokia.tls.cert_file},
              {"key_file", c.jolokia.tls.key_file},
              {"server_name", c.jolokia.tls.server_name}}}}}};
}

Result<JolokiaClientOptions> jolokia_options(const JolokiaConfig& j) {
  auto url = parse_jolokia_url(j.url);
  if (!url) return url.error();
  std::optional<TlsSettings> tls;
  if (url->endpoint.tls) tls = j.tls;
  return jolokia_client_options(j.url, j.username, j.password_file, std::move(tls));
}

namespace config_detail {

ValueReader cassandra_into(CassandraConfig& c) {
  return object_of({
      {"nodetool", argv_into(c.nodetool, false)},
      {"command_timeout_s", duration_into(c.command_timeout_s, 1, 3600)},
      {"restart_command", argv_into(c.restart_command, true)},
      {"backend", backend_into(c.backend)},
      {"jolokia", object_of({
                      {"url", string_into(c.jolokia.url, check_jolokia_url)},
                      {"username", string_into(c.jolokia.username)},
                      {"password_file", string_into(c.jolokia.password_file, check_optional_file_path)},
                      {"tls", tls_into(c.jolokia.tls, "Jolokia")},
                  })},
  });
}

Check check_cassandra(const CassandraConfig& c) {
  const JolokiaConfig& j = c.jolokia;
  if (!j.username.empty() && j.password_file.empty())
    return FieldError{"cassandra.jolokia.password_file", "is required with cassandra.jolokia.username"};
  if (j.username.empty() && !j.password_file.empty())
    return FieldError{"cassandra.jolokia.username", "is required with cassandra.jolokia.password_file"};
  if (c.backend != NodeBackendKind::jolokia) return std::nullopt;
  if (const auto url = parse_jolokia_url(j.url)) {  // a bad url is reported by its reader
    if (auto error = check_tls_endpoint(j.tls, "cassandra.jolokia.tls", "cassandra.jolokia.url", j.url,
                                        url->endpoint.tls, "Jolokia"))
      return error;
    if (auto error = check_tls_files_at(j.tls, "cassandra.jolokia.tls")) return error;
  }
  if (auto options = jolokia_options(j); !options)
    return FieldError{j.password_file.empty() ? "cassandra.jolokia.url" : "cassandra.jolokia.password_file",
                      options.error().message};
  return std::nullopt;
}

}  // namespace config_detail
}  // namespace cla
