// cassandra.jolokia.tls: read and refused as coordination.tls is (an https:// url needs its CA file, TLS
// settings never go with an http:// url, certificate and key together, the files load), and given to the
// Jolokia client's options.
#include <sys/stat.h>

#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>
#include <string>

#include "agent/config/config.hpp"
#include "agent/config/config_cassandra.hpp"
#include "tests/support/tls_certificates.hpp"

namespace {

namespace json = boost::json;

std::string config_with(const std::string& url, const cla::TlsSettings& tls) {
  json::object jolokia{{"url", url}};
  jolokia["tls"] = {{"ca_file", tls.ca_file},
                    {"cert_file", tls.cert_file},
                    {"key_file", tls.key_file},
                    {"server_name", tls.server_name}};
  return json::serialize(json::object{{"cassandra", {{"backend", "jolokia"}, {"jolokia", jolokia}}}});
}

std::string error_of(const std::string& json_text) {
  auto result = cla::parse_config(json_text, "t.json");
  return result ? "(accepted)" : result.error().message;
}

const std::string kHttps = "https://cassandra-1.example:8443/jolokia";

}  // namespace

BOOST_AUTO_TEST_SUITE(config_jolokia_tls_test)

BOOST_AUTO_TEST_CASE(an_https_url_with_a_ca_and_a_client_certificate_gives_the_client_its_tls) {
  cla::test::TlsCertificates certs;
  auto tls = certs.settings();
  tls.server_name = "cassandra-1.example.internal";
  auto config = cla::parse_config(config_with(kHttps, tls), "t.json");
  BOOST_TEST_REQUIRE(config.ok(), (config ? "" : config.error().message));
  BOOST_TEST((config->cassandra.jolokia.tls == tls));
  auto options = cla::jolokia_options(config->cassandra.jolokia);
  BOOST_TEST_REQUIRE(options.ok(), (options ? "" : options.error().message));
  BOOST_TEST_REQUIRE(options->tls.has_value());
  BOOST_TEST((*options->tls == tls));
  // The effective configuration shows the section and reads back the same.
  const auto shown = json::serialize(cla::config_to_json(*config));
  auto again = cla::parse_config(shown, "t.json");
  BOOST_TEST_REQUIRE(again.ok(), (again ? "" : again.error().message));
  BOOST_TEST((*again == *config));
  // A CA alone (the server verified, no client certificate) is a valid set-up too.
  BOOST_TEST(error_of(config_with(kHttps, certs.settings(""))) == "(accepted)");
}

BOOST_AUTO_TEST_CASE(a_plain_url_has_no_tls) {
  auto config = cla::parse_config(config_with("http://127.0.0.1:8778/jolokia", {}), "t.json");
  BOOST_TEST_REQUIRE(config.ok(), (config ? "" : config.error().message));
  auto options = cla::jolokia_options(config->cassandra.jolokia);
  BOOST_TEST_REQUIRE(options.ok());
  BOOST_TEST(!options->tls.has_value());
}

BOOST_AUTO_TEST_CASE(mixing_schemes_or_half_settings_is_refused_naming_the_key) {
  cla::test::TlsCertificates certs;
  const auto client = certs.settings();
  cla::TlsSettings cert_only = client;
  cert_only.key_file.clear();
  cla::TlsSettings key_only = client;
  key_only.cert_file.clear();
  cla::TlsSettings name_only;
  name_only.server_name = "cassandra-1.example";
  cla::TlsSettings bad_name = client;
  bad_name.server_name = "not a name";
  const std::pair<std::string, std::string> cases[] = {
      {config_with(kHttps, {}),
       "config error: t.json: cassandra.jolokia.tls.ca_file: is required with an https:// endpoint (" +
           kHttps + "): the CA file that Jolokia's server certificate chains to"},
      {config_with("http://127.0.0.1:8778/jolokia", client),
       "config error: t.json: cassandra.jolokia.url: is http:// but cassandra.jolokia.tls is set: write "
       "https://127.0.0.1:8778/jolokia (TLS settings never go with a plain endpoint)"},
      {config_with("http://127.0.0.1:8778/jolokia", name_only),
       "config error: t.json: cassandra.jolokia.url: is http:// but cassandra.jolokia.tls is set: write "
       "https://127.0.0.1:8778/jolokia (TLS settings never go with a plain endpoint)"},
      {config_with(kHttps, cert_only),
       "config error: t.json: cassandra.jolokia.tls.key_file: is required with "
       "cassandra.jolokia.tls.cert_file "
       "(the client certificate and its key go together)"},
      {config_with(kHttps, key_only),
       "config error: t.json: cassandra.jolokia.tls.cert_file: is required with "
       "cassandra.jolokia.tls.key_file "
       "(the client certificate and its key go together)"},
      {config_with(kHttps, bad_name),
       "config error: t.json: cassandra.jolokia.tls.server_name: must be a DNS name or an IP address that "
       "Jolokia's server certificate carries, e.g. \"jolokia.example.internal\""},
  };
  for (const auto& [text, expected] : cases) BOOST_TEST(error_of(text) == expected);
}

BOOST_AUTO_TEST_CASE(files_that_do_not_load_are_refused_at_load_naming_key_and_file) {
  cla::test::TlsCertificates certs;
  auto missing = certs.settings();
  missing.ca_file = certs.file("nope.pem");
  auto mismatched = certs.settings();
  mismatched.key_file = certs.file("other-client.key");
  auto readable_key = certs.settings();
  ::chmod(readable_key.key_file.c_str(), 0640);
  BOOST_TEST(error_of(config_with(kHttps, missing)) ==
             "config error: t.json: cassandra.jolokia.tls: ca_file " + missing.ca_file +
                 ": cannot read: No such file or directory");
  BOOST_TEST(error_of(config_with(kHttps, mismatched)) ==
             "config error: t.json: cassandra.jolokia.tls: key_file " + mismatched.key_file +
                 " is not the key of cert_file " + mismatched.cert_file);
  BOOST_TEST(error_of(config_with(kHttps, readable_key)) ==
             "config error: t.json: cassandra.jolokia.tls: key_file " + readable_key.key_file +
                 ": is accessible to its group or other users (mode 0640); a secret file must not be: chmod "
                 "go-rwx " +
                 readable_key.key_file);
}

BOOST_AUTO_TEST_SUITE_END()
