// coordination.tls (SPEC 9 "TLS"): https endpoints need a CA, TLS files never go with http endpoints, the
// client certificate and key go together, and every file loads at --check as the client loads it.
#include <sys/stat.h>

#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "agent/config/config.hpp"
#include "agent/coordination/coordinator.hpp"
#include "tests/support/tls_certificates.hpp"

namespace {

namespace json = boost::json;

std::string config_with(const json::array& endpoints, const cla::TlsSettings& tls) {
  json::object coordination{{"etcd_endpoints", endpoints}, {"cluster", "c1"}};
  coordination["tls"] = {{"ca_file", tls.ca_file},
                         {"cert_file", tls.cert_file},
                         {"key_file", tls.key_file},
                         {"server_name", tls.server_name}};
  return json::serialize(json::object{{"coordination", coordination}});
}

std::string error_of(const std::string& json_text) {
  auto result = cla::parse_config(json_text, "t.json");
  return result ? "(accepted)" : result.error().message;
}

const json::array kHttps{"https://127.0.0.1:2379", "https://etcd-1.example:2379"};

}  // namespace

BOOST_AUTO_TEST_SUITE(config_tls_test)

BOOST_AUTO_TEST_CASE(https_endpoints_with_a_ca_and_a_client_certificate_give_the_client_its_tls) {
  cla::test::TlsCertificates certs;
  auto tls = certs.settings();
  tls.server_name = "etcd.example.internal";
  auto config = cla::parse_config(config_with(kHttps, tls), "t.json");
  BOOST_TEST_REQUIRE(config.ok(), (config ? "" : config.error().message));
  BOOST_TEST((config->coordination.tls == tls));
  auto options = cla::etcd_client_options(config->coordination);
  BOOST_TEST_REQUIRE(options.ok());
  BOOST_TEST_REQUIRE(options->tls.has_value());
  BOOST_TEST((*options->tls == tls));
  // The effective configuration shows the section and reads back the same.
  const auto shown = json::serialize(cla::config_to_json(*config));
  BOOST_TEST(shown.find("\"server_name\":\"etcd.example.internal\"") != std::string::npos);
  auto again = cla::parse_config(shown, "t.json");
  BOOST_TEST_REQUIRE(again.ok(), (again ? "" : again.error().message));
  BOOST_TEST((*again == *config));
  // A CA alone (the server verified, no client certificate) is a valid set-up too.
  BOOST_TEST(error_of(config_with(kHttps, certs.settings(""))) == "(accepted)");
}

BOOST_AUTO_TEST_CASE(plain_endpoints_have_no_tls) {
  auto config = cla::parse_config(config_with({"http://127.0.0.1:2379"}, {}), "t.json");
  BOOST_TEST_REQUIRE(config.ok(), (config ? "" : config.error().message));
  auto options = cla::etcd_client_options(config->coordination);
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
  name_only.server_name = "etcd.example";
  const std::pair<std::string, std::string> cases[] = {
      {config_with({"https://127.0.0.1:2379"}, {}),
       "config error: t.json: coordination.tls.ca_file: is required with an https:// endpoint "
       "(https://127.0.0.1:2379): the CA file that etcd's server certificate chains to"},
      {config_with({"https://127.0.0.1:2379", "http://127.0.0.2:2379"}, client),
       "config error: t.json: coordination.etcd_endpoints[1]: is http:// but coordination.tls is set: write "
       "https://127.0.0.2:2379 (TLS settings never go with a plain endpoint)"},
      {config_with({"http://127.0.0.1:2379"}, name_only),
       "config error: t.json: coordination.etcd_endpoints[0]: is http:// but coordination.tls is set: write "
       "https://127.0.0.1:2379 (TLS settings never go with a plain endpoint)"},
      {config_with({}, client),
       "config error: t.json: coordination.tls: is set but coordination.etcd_endpoints is empty"},
      {config_with(kHttps, cert_only),
       "config error: t.json: coordination.tls.key_file: is required with coordination.tls.cert_file (the "
       "client certificate and its key go together)"},
      {config_with(kHttps, key_only),
       "config error: t.json: coordination.tls.cert_file: is required with coordination.tls.key_file (the "
       "client certificate and its key go together)"},
  };
  for (const auto& [text, expected] : cases) BOOST_TEST(error_of(text) == expected);
}

BOOST_AUTO_TEST_CASE(files_that_do_not_load_are_refused_at_load_naming_key_and_file) {
  cla::test::TlsCertificates certs;
  auto missing = certs.settings();
  missing.ca_file = certs.file("nope.pem");
  auto not_pem = certs.settings();
  not_pem.ca_file = certs.file("client.key");  // a key where the CA belongs
  auto mismatched = certs.settings();
  mismatched.key_file = certs.file("other-client.key");
  auto readable_key = certs.settings();
  ::chmod(readable_key.key_file.c_str(), 0644);
  // A passphrase-protected key: refused at once, never a prompt (the agent has no passphrase to give).
  auto encrypted = certs.settings("other-client");
  encrypted.key_file = certs.file("encrypted.key");
  const std::string encrypt = "openssl pkey -in '" + certs.file("client.key") +
                              "' -aes256 -passout pass:x -out '" + encrypted.key_file + "' && chmod 600 '" +
                              encrypted.key_file + "'";
  BOOST_TEST_REQUIRE(std::system(encrypt.c_str()) == 0);
  encrypted.cert_file = certs.file("client.pem");

  BOOST_TEST(error_of(config_with(kHttps, missing)) == "config error: t.json: coordination.tls: ca_file " +
                                                           missing.ca_file +
                                                           ": cannot read: No such file or directory");
  BOOST_TEST(error_of(config_with(kHttps, not_pem))
                 .starts_with("config error: t.json: coordination.tls: ca_file " + not_pem.ca_file +
                              ": not a PEM certificate file"));
  BOOST_TEST(error_of(config_with(kHttps, mismatched)) ==
             "config error: t.json: coordination.tls: key_file " + mismatched.key_file +
                 " is not the key of cert_file " + mismatched.cert_file);
  BOOST_TEST(error_of(config_with(kHttps, encrypted))
                 .starts_with("config error: t.json: coordination.tls: key_file " + encrypted.key_file +
                              ": not an unencrypted PEM private key"));
  BOOST_TEST(error_of(config_with(kHttps, readable_key)) ==
             "config error: t.json: coordination.tls: key_file " + readable_key.key_file +
                 ": is accessible to its group or other users (mode 0644); a secret file must not be: chmod "
                 "go-rwx " +
                 readable_key.key_file);
}

BOOST_AUTO_TEST_SUITE_END()
