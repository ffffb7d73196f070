// --check's warnings: nodetool's JMX password options in cassandra.nodetool (named by index, the password
// never printed), an unsafe state directory, and the one-line format.
#include "agent/config/config_warnings.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <boost/test/unit_test.hpp>
#include <filesystem>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

struct PrivateDir {
  fs::path path;
  PrivateDir() {
    std::string tmpl = (fs::temp_directory_path() / "cla-warnings-XXXXXX").string();
    path = ::mkdtemp(tmpl.data());
  }
  ~PrivateDir() { fs::remove_all(path); }
};

// A config whose state file sits in a private directory, so only the nodetool argv can warn.
cla::Config with_nodetool(const PrivateDir& dir, std::vector<std::string> nodetool) {
  cla::Config config;
  config.state_file = (dir.path / "state.json").string();
  config.cassandra.nodetool = std::move(nodetool);
  return config;
}

std::vector<std::string> paths(const std::vector<cla::ConfigWarning>& warnings) {
  std::vector<std::string> out;
  for (const auto& w : warnings) out.push_back(w.path);
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(config_warnings_test)

BOOST_AUTO_TEST_CASE(a_password_on_nodetools_command_line_is_named_by_its_index) {
  PrivateDir dir;
  const auto warnings = cla::config_warnings(
      with_nodetool(dir, {"nodetool", "-h", "127.0.0.1", "-u", "cassandra", "-pw", "s3cret"}));
  BOOST_REQUIRE(warnings.size() == 1u);
  BOOST_TEST(warnings[0].path == "cassandra.nodetool[5]");
  const std::string& what = warnings[0].what;
  BOOST_TEST(what.find("\"-pw\" puts the JMX password on nodetool's command line") == 0, what);
  BOOST_TEST(what.find("every user of this host can read it (ps") != std::string::npos, what);
  BOOST_TEST(what.find("\"-pwf\", \"FILE\" (--password-file)") != std::string::npos, what);
  BOOST_TEST(what.find("s3cret") == std::string::npos, "the password itself is never repeated");
}

BOOST_AUTO_TEST_CASE(every_spelling_of_the_password_option_warns) {
  PrivateDir dir;
  const auto warnings = cla::config_warnings(
      with_nodetool(dir, {"nodetool", "--password", "a", "-pw=b", "--password=c", "-u", "cassandra"}));
  BOOST_TEST(paths(warnings) == (std::vector<std::string>{"cassandra.nodetool[1]", "cassandra.nodetool[3]",
                                                          "cassandra.nodetool[4]"}),
             boost::test_tools::per_element());
  BOOST_REQUIRE(warnings.size() == 3u);
  BOOST_TEST(warnings[1].what.find("\"-pw=...\"") == 0, warnings[1].what);
  BOOST_TEST(warnings[1].what.find("=b") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_password_file_and_lookalikes_do_not_warn) {
  PrivateDir dir;
  BOOST_TEST(cla::config_warnings(with_nodetool(dir, {"nodetool", "-u", "cassandra", "-pwf",
                                                      "/etc/cassandra/jmxremote.password"}))
                 .empty());
  BOOST_TEST(
      cla::config_warnings(with_nodetool(dir, {"nodetool", "--password-file=/x", "-pwx", "--passwords"}))
          .empty());
  BOOST_TEST(cla::config_warnings(with_nodetool(dir, {"nodetool"})).empty());
}

BOOST_AUTO_TEST_CASE(a_state_directory_others_can_write_warns_at_state_file) {
  PrivateDir dir;
  BOOST_REQUIRE(::chmod(dir.path.c_str(), 0770) == 0);
  const auto warnings = cla::config_warnings(with_nodetool(dir, {"nodetool"}));
  BOOST_REQUIRE(warnings.size() == 1u);
  BOOST_TEST(warnings[0].path == "state_file");
  BOOST_TEST(warnings[0].what.find("state directory " + dir.path.string() + " is writable by its group") == 0,
             warnings[0].what);
  BOOST_TEST(warnings[0].what.find("; the agent refuses to start with it") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(etcd_password_auth_over_plain_http_warns_unless_the_endpoint_is_loopback) {
  PrivateDir dir;
  auto config = with_nodetool(dir, {"nodetool"});
  config.coordination.etcd_endpoints = {"http://127.0.0.1:2379", "http://10.0.0.5:2379",
                                        "http://localhost:2379", "http://etcd-1.example:2379"};
  config.coordination.cluster = "c1";
  BOOST_TEST(cla::config_warnings(config).empty());  // no password: nothing secret goes out
  config.coordination.username = "agent";
  const auto warnings = cla::config_warnings(config);
  BOOST_TEST(paths(warnings) == (std::vector<std::string>{"coordination.etcd_endpoints[1]",
                                                          "coordination.etcd_endpoints[3]"}),
             boost::test_tools::per_element());
  BOOST_TEST(warnings.at(0).what.find("use https:// with coordination.tls") != std::string::npos);
  config.coordination.etcd_endpoints = {"https://10.0.0.5:2379"};
  BOOST_TEST(cla::config_warnings(config).empty());
}

BOOST_AUTO_TEST_CASE(a_warning_is_one_line_naming_the_file_and_key) {
  BOOST_TEST(cla::format_config_warning("/etc/a\nb.json", {"cassandra.nodetool[2]", "\"-pw\" ..."}) ==
             "config warning: /etc/a\\x0ab.json: cassandra.nodetool[2]: \"-pw\" ...");
}

BOOST_AUTO_TEST_SUITE_END()
