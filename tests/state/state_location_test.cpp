// The state file's place: a directory another user can write to, or that the agent does not own, and a state
// file that is a link or not a regular file are refused, with the path, mode and owner named.
#include "state/state_location.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <boost/test/unit_test.hpp>
#include <filesystem>
#include <fstream>
#include <string>

using namespace cla;
namespace fs = std::filesystem;

namespace {
struct TempDir {
  fs::path path;
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "cla-location-XXXXXX").string();
    path = ::mkdtemp(tmpl.data());  // mode 0700, ours
  }
  ~TempDir() { fs::remove_all(path); }
};

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}
}  // namespace

BOOST_AUTO_TEST_SUITE(state_location_test)

BOOST_AUTO_TEST_CASE(a_private_directory_and_a_missing_one_are_fine) {
  TempDir dir;
  BOOST_TEST(check_state_location((dir.path / "state.json").string(), ::geteuid()).ok());
  std::ofstream(dir.path / "state.json") << "{}";
  BOOST_TEST(check_state_location((dir.path / "state.json").string(), ::geteuid()).ok());
  BOOST_TEST(check_state_location((dir.path / "not-yet" / "state.json").string(), ::geteuid()).ok());
  ::chmod(dir.path.c_str(), 0755);  // others may read and enter: only writing matters
  BOOST_TEST(check_state_location((dir.path / "state.json").string(), ::geteuid()).ok());
}

BOOST_AUTO_TEST_CASE(a_group_or_world_writable_directory_is_refused_by_name) {
  TempDir dir;
  const std::string file = (dir.path / "state.json").string();
  for (const auto& [mode, who] :
       {std::pair{0770u, "writable by its group ("}, std::pair{0757u, "writable by others ("},
        std::pair{01777u, "writable by its group and others ("}}) {
    BOOST_TEST_CONTEXT("mode " << std::oct << mode) {
      BOOST_REQUIRE(::chmod(dir.path.c_str(), mode) == 0);
      auto r = check_state_location(file, ::geteuid());
      BOOST_REQUIRE(!r.ok());
      const std::string& message = r.error().message;
      BOOST_TEST(contains(message, "state directory " + dir.path.string() + " is " + who), message);
      char octal[8];
      std::snprintf(octal, sizeof octal, "%04o", mode);
      BOOST_TEST(
          contains(message, std::string("mode ") + octal + ", owner uid " + std::to_string(::geteuid())),
          message);
      BOOST_TEST(contains(message, "chmod 0700 " + dir.path.string()), message);
    }
  }
}

BOOST_AUTO_TEST_CASE(a_directory_of_another_user_is_refused) {
  const auto problem = judge_state_directory("/var/lib/x", {0700, 4242}, uid_t{4343});
  BOOST_REQUIRE(problem.has_value());
  BOOST_TEST(contains(*problem, "state directory /var/lib/x is not owned by uid 4343"), *problem);
  BOOST_TEST(contains(*problem, "mode 0700, owner uid 4242"), *problem);
  BOOST_TEST(!judge_state_directory("/var/lib/x", {0700, 4242}, std::nullopt),
             "no uid: the owner is not judged");
  BOOST_TEST(!judge_state_directory("/var/lib/x", {0700, 4242}, uid_t{4242}));
}

BOOST_AUTO_TEST_CASE(a_linked_or_special_state_file_is_refused) {
  TempDir dir;
  const fs::path file = dir.path / "state.json";
  fs::create_symlink(dir.path / "elsewhere.json", file);  // dangling: a link all the same
  auto linked = check_state_location(file.string(), ::geteuid());
  BOOST_REQUIRE(!linked.ok());
  BOOST_TEST(contains(linked.error().message, "state file " + file.string() + " is a symbolic link"),
             linked.error().message);
  fs::remove(file);
  fs::create_directory(file);
  auto directory = check_state_location(file.string(), ::geteuid());
  BOOST_REQUIRE(!directory.ok());
  BOOST_TEST(contains(directory.error().message, "state file " + file.string() + " is not a regular file"),
             directory.error().message);
}

BOOST_AUTO_TEST_SUITE_END()
