// coordination.* config: the password file's rules (checked at load), and the etcd client options it gives.
#include "agent/config/config_coordination.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>
#include <filesystem>
#include <fstream>

#include "agent/coordination/coordinator.hpp"
#include "tests/support/temp_dir.hpp"

namespace {

using namespace std::chrono_literals;

std::string config_with(const std::string& password_file) {
  return R"({"coordination": {"etcd_endpoints": ["http://127.0.0.1:2379"], "cluster": "c1",
             "username": "agent", "password_file": )" +
         boost::json::serialize(boost::json::string(password_file)) + "}}";
}

std::string error_of(const std::string& json_text) {
  auto result = cla::parse_config(json_text, "t.json");
  return result ? "(accepted)" : result.error().message;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(config_coordination_test)

BOOST_AUTO_TEST_CASE(a_private_password_file_is_accepted_and_read_without_its_newline) {
  cla::test::TempDir dir("cla-coord");
  const auto pw = dir.file("etcd.pw", "s3cret\n", 0600);
  auto config = cla::parse_config(config_with(pw), "t.json");
  BOOST_TEST_REQUIRE(config.ok(), (config ? "" : config.error().message));
  auto options = cla::etcd_client_options(config->coordination);
  BOOST_TEST_REQUIRE(options.ok());
  BOOST_TEST(options->username == "agent");
  BOOST_TEST(options->password == "s3cret");
  BOOST_TEST((options->endpoints == std::vector<std::string>{"http://127.0.0.1:2379"}));
  // Readable by its owner alone is fine, writable or not.
  BOOST_TEST(error_of(config_with(dir.file("read-only.pw", "x\r\n", 0400))) == "(accepted)");
}

BOOST_AUTO_TEST_CASE(a_password_file_others_can_access_empty_or_not_a_file_is_refused_naming_it) {
  cla::test::TempDir dir("cla-coord");
  const auto world = dir.file("world.pw", "s3cret", 0644);
  BOOST_TEST(error_of(config_with(world)) == "config error: t.json: coordination.password_file: " + world +
                                                 ": is accessible to its group or other users (mode 0644); a "
                                                 "secret file must not be: chmod go-rwx " +
                                                 world);
  const auto writable = dir.file("writable.pw", "s3cret", 0602);
  BOOST_TEST(error_of(config_with(writable)).find("(mode 0602)") != std::string::npos);
  const auto empty = dir.file("empty.pw", "\n", 0600);
  BOOST_TEST(error_of(config_with(empty)) ==
             "config error: t.json: coordination.password_file: " + empty + ": is empty");
  BOOST_TEST(error_of(config_with(dir.path.string())) ==
             "config error: t.json: coordination.password_file: " + dir.path.string() +
                 ": is not a regular file");
  const auto big = dir.file("big.pw", std::string(5000, 'x'), 0600);
  BOOST_TEST(error_of(config_with(big)) == "config error: t.json: coordination.password_file: " + big +
                                               ": is larger than 4 KiB; is it the right file?");
  if (::geteuid() != 0) {  // root reads whatever the mode says
    const auto unreadable = dir.file("unreadable.pw", "s3cret", 0200);
    BOOST_TEST(error_of(config_with(unreadable)) == "config error: t.json: coordination.password_file: " +
                                                        unreadable + ": cannot read: Permission denied");
  }
}

BOOST_AUTO_TEST_CASE(client_options_fail_when_the_password_file_went_away) {
  cla::test::TempDir dir("cla-coord");
  const auto pw = dir.file("etcd.pw", "s3cret", 0600);
  auto config = cla::parse_config(config_with(pw), "t.json");
  BOOST_TEST_REQUIRE(config.ok());
  std::filesystem::remove(pw);
  auto options = cla::etcd_client_options(config->coordination);
  BOOST_TEST_REQUIRE(!options.ok());
  BOOST_TEST(options.error().message == pw + ": cannot read: No such file or directory");
}

BOOST_AUTO_TEST_CASE(the_request_timeout_follows_the_lease_ttl) {
  cla::CoordinationConfig c;
  c.etcd_endpoints = {"http://127.0.0.1:2379"};
  const std::pair<std::chrono::seconds, std::chrono::milliseconds> cases[] = {
      {5s, 1000ms}, {15s, 3000ms}, {20s, 4000ms}, {300s, 5000ms}};
  for (const auto& [ttl, timeout] : cases) {
    c.lease_ttl_s = ttl;
    auto options = cla::etcd_client_options(c);
    BOOST_TEST_REQUIRE(options.ok());
    BOOST_TEST(options->request_timeout.count() == timeout.count(), "ttl " << ttl.count());
    // A keepalive every TTL/3 that fails over across two hung members still lands before the TTL.
    BOOST_TEST((ttl / 3.0 + 2 * options->request_timeout < ttl));
    BOOST_TEST(options->password.empty());
  }
}

BOOST_AUTO_TEST_CASE(the_effective_config_names_the_password_file_but_never_holds_the_password) {
  cla::test::TempDir dir("cla-coord");
  const auto pw = dir.file("etcd.pw", "s3cret-value", 0600);
  auto config = cla::parse_config(config_with(pw), "t.json");
  BOOST_TEST_REQUIRE(config.ok());
  const std::string shown = boost::json::serialize(cla::config_to_json(*config));
  BOOST_TEST(shown.find(R"("password_file":)") != std::string::npos);
  BOOST_TEST(shown.find("s3cret-value") == std::string::npos);
  BOOST_TEST(shown.find(R"("on_unavailable":"local_gate")") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
