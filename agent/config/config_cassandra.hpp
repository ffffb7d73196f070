// The cassandra.* section (SPEC 2.3): its readers and rules, its JSON view, and the Jolokia client's options.
#pragma once

#include <boost/json/object.hpp>
#include <string_view>

#include "agent/config/config.hpp"
#include "agent/config/config_fields.hpp"
#include "cassandra/jolokia/jolokia_client_options.hpp"
#include "state/result.hpp"

namespace cla {

std::string_view to_string(NodeBackendKind backend);  // "nodetool" | "jolokia"

boost::json::object cassandra_to_json(const CassandraConfig& cassandra);

// The Jolokia client's options from cassandra.jolokia: the url's rules, the password read from password_file
// (refused when other users may read it), and for an https:// url the server verified against the system's CA
// bundle (/etc/ssl/certs/ca-certificates.crt, Debian's ca-certificates).
Result<JolokiaClientOptions> jolokia_options(const JolokiaConfig& jolokia);

namespace config_detail {

// `{"nodetool": [...], "command_timeout_s": N, ...}`: each key over its default.
ValueReader cassandra_into(CassandraConfig& out);
// With backend "jolokia": username and password_file together, the url and the password file usable (read as
// a connection reads them).
Check check_cassandra(const CassandraConfig& cassandra);

}  // namespace config_detail
}  // namespace cla
