// cassandra.backend and cassandra.jolokia (SPEC 2.3): the backend's name, the Jolokia url's rules, username
// and password_file together, the password file checked as a secret at load, and the client options they
// give.
#include "agent/config/config_cassandra.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>
#include <filesystem>
#include <fstream>
#include <string>

#include "tests/support/temp_dir.hpp"

namespace {

namespace json = boost::json;

std::string config_with(json::object cassandra) {
  return json::serialize(json::object{{"cassandra", std::move(cassandra)}});
}

std::string error_of(const std::string& json_text) {
  auto result = cla::parse_config(json_text, "t.json");
  return result ? "(accepted)" : result.error().message;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(config_cassandra_test)

BOOST_AUTO_TEST_CASE(jolokia_with_a_private_password_file_gives_the_client_basic_auth) {
  cla::test::TempDir dir("cla-jolokia");
  const auto pw = dir.file("jolokia.pw", "s3cret\n", 0600);
  auto config = cla::parse_config(
      config_with({{"backend", "jolokia"},
                   {"jolokia",
                    {{"url", "http://127.0.0.5:8778/jolokia"}, {"username", "cla"}, {"password_file", pw}}}}),
      "t.json");
  BOOST_TEST_REQUIRE(config.ok(), (config ? "" : config.error().message));
  BOOST_TEST((config->cassandra.backend == cla::NodeBackendKind::jolokia));
  auto options = cla::jolokia_options(config->cassandra.jolokia);
  BOOST_TEST_REQUIRE(options.ok(), (options ? "" : options.error().message));
  BOOST_TEST(options->url.endpoint.host == "127.0.0.5");
  BOOST_TEST(options->url.endpoint.port == 8778);
  BOOST_TEST(options->url.path == "/jolokia");
  BOOST_TEST(options->authorization == "Basic Y2xhOnMzY3JldA==");  // base64("cla:s3cret")
  BOOST_TEST(!options->tls.has_value());
  // The effective config shows both keys.
  const auto shown = cla::cassandra_to_json(config->cassandra);
  BOOST_TEST(shown.at("backend").as_string() == "jolokia");
  BOOST_TEST(shown.at("jolokia").at("username").as_string() == "cla");
}

BOOST_AUTO_TEST_CASE(the_default_backend_is_nodetool_and_jolokia_without_auth_needs_no_file) {
  auto defaults = cla::parse_config("{}", "t.json");
  BOOST_TEST_REQUIRE(defaults.ok());
  BOOST_TEST((defaults->cassandra.backend == cla::NodeBackendKind::nodetool));
  auto options = cla::jolokia_options(defaults->cassandra.jolokia);
  BOOST_TEST_REQUIRE(options.ok());
  BOOST_TEST(options->authorization.empty());
  BOOST_TEST(error_of(config_with({{"backend", "jolokia"}})) == "(accepted)");
}

BOOST_AUTO_TEST_CASE(bad_input_is_refused_naming_the_key) {
  cla::test::TempDir dir("cla-jolokia");
  BOOST_TEST(error_of(config_with({{"backend", "jmx"}}))
                 .find("config error: t.json: cassandra.backend: must be "
                       "\"nodetool\"") == 0u);
  // Plain http to another machine would send the password and the node's control in clear.
  const std::string remote = error_of(config_with({{"jolokia", {{"url", "http://10.0.0.5:8778/jolokia"}}}}));
  BOOST_TEST(remote.find("config error: t.json: cassandra.jolokia.url: ") == 0u, remote);
  BOOST_TEST(
      error_of(config_with({{"jolokia", {{"username", "cla"}}}})) ==
      "config error: t.json: cassandra.jolokia.password_file: is required with cassandra.jolokia.username");
  BOOST_TEST(
      error_of(config_with({{"jolokia", {{"password_file", dir.file("a.pw", "x", 0600)}}}})) ==
      "config error: t.json: cassandra.jolokia.username: is required with cassandra.jolokia.password_file");
  const auto world = dir.file("world.pw", "s3cret", 0644);
  const std::string error = error_of(
      config_with({{"backend", "jolokia"}, {"jolokia", {{"username", "cla"}, {"password_file", world}}}}));
  BOOST_TEST(error == "config error: t.json: cassandra.jolokia.password_file: " + world +
                          ": is accessible to its group or other users (mode 0644); a secret file must not "
                          "be: chmod go-rwx " +
                          world,
             error);
  BOOST_TEST(error_of(config_with({{"jolokia", {{"realm", "x"}}}})).find("cassandra.jolokia.realm") !=
             std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
