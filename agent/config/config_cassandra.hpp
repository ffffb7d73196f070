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
// (refused when its group or other users may access it), and for an https:// url cassandra.jolokia.tls (the
// server verified against its ca_file, the client certificate presented when set).
Result<JolokiaClientOptions> jolokia_options(const JolokiaConfig& jolokia);

namespace config_detail {

// `{"nodetool": [...], "command_timeout_s": N, ...}`: each key over its default.
ValueReader cassandra_into(CassandraConfig& out);
// With backend "jolokia": username and password_file together, the url and the password file usable (read as
// a connection reads them), and cassandra.jolokia.tls as coordination.tls is checked (an https:// url needs
// its ca_file, an http:// one takes no TLS setting, the files load).
Check check_cassandra(const CassandraConfig& cassandra);

}  // namespace config_detail
}  // namespace cla
