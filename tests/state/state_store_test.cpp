// The state file: codec round trip, atomic write with mode 0600 through a temp file that no planted link can
// redirect, corrupt files kept aside, missing = first start.
#include "state/state_store.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "core_harness.hpp"
#include "state/state_codec.hpp"

using namespace cla;
using namespace cla::test;
namespace fs = std::filesystem;

namespace {
struct TempDir {
  fs::path path = fs::temp_directory_path() /
                  ("cla-state-" + std::to_string(::getpid()) + "-" + std::to_string(std::rand()));
  TempDir() { fs::create_directories(path); }
  ~TempDir() { fs::remove_all(path); }
};

std::string read_all(const fs::path& file) {
  std::ifstream in(file);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::vector<std::string> entries(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

AgentState sample_state() {
  Core core = started_core();
  Driver d{core};
  d.feed(doc(
      17, {{.id = "A", .type = "Reboot", .resources = {"vm0", "vm1"}}, {.id = "B", .resources = {"vm9"}}}));
  d.at(T0 + 15min - 30s);
  return core.state();
}
}  // namespace

BOOST_AUTO_TEST_SUITE(state_store_test)

BOOST_AUTO_TEST_CASE(codec_round_trip_keeps_everything_the_core_needs) {
  const AgentState s = sample_state();
  auto back = decode_state(boost::json::serialize(encode_state(s)));
  BOOST_REQUIRE(back.ok());
  BOOST_TEST(encode_state(back.value()) == encode_state(s));
  BOOST_TEST(back->node.out_of_service);
  BOOST_TEST(back->node.flushed);
  BOOST_TEST(back->node.drained_for.count("A") == 1u);
  BOOST_TEST(back->events.at("A").approved == false, "shared and approve_shared_events false");
  BOOST_TEST(back->events.at("A").drain_complete);
  BOOST_TEST((back->events.at("A").event.not_before == T0 + 15min));
  BOOST_TEST(*back->last_incarnation == 17);
  BOOST_TEST(back->boot_id == "boot-1");
}

BOOST_AUTO_TEST_CASE(decode_rejects_garbage_and_other_schema_versions) {
  for (const char* text : {"", "{", "[]", "{\"schema_version\":2}", "{\"schema_version\":1}",
                           "{\"schema_version\":\"1\",\"node\":{}}", "\xff\xfe"}) {
    BOOST_TEST(!decode_state(text).ok(), text);
  }
}

BOOST_AUTO_TEST_CASE(save_is_atomic_with_mode_0600_and_loads_back) {
  TempDir dir;
  const std::string path = (dir.path / "sub" / "state.json").string();
  StateStore store(path);
  auto missing = store.load(T0, true);
  BOOST_REQUIRE(missing.ok());
  BOOST_TEST((missing->kind == LoadedState::Kind::missing));

  BOOST_REQUIRE(store.save(sample_state()).ok());
  struct stat st {};
  BOOST_REQUIRE(::stat(path.c_str(), &st) == 0);
  BOOST_TEST((st.st_mode & 0777) == 0600u);
  BOOST_TEST(entries(fs::path(path).parent_path()) == std::vector<std::string>{"state.json"},
             "no temp file left");
  auto loaded = store.load(T0, true);
  BOOST_REQUIRE(loaded.ok());
  BOOST_TEST((loaded->kind == LoadedState::Kind::loaded));
  BOOST_TEST(loaded->state.node.out_of_service);
}

BOOST_AUTO_TEST_CASE(corrupt_file_is_moved_aside_and_reported) {
  TempDir dir;
  const std::string path = (dir.path / "state.json").string();
  std::ofstream(path) << "{\"schema_version\":1, truncated";
  StateStore store(path);
  auto loaded = store.load(T0, true);
  BOOST_REQUIRE(loaded.ok());
  BOOST_TEST((loaded->kind == LoadedState::Kind::corrupt));
  BOOST_TEST(!loaded->problem.empty());
  BOOST_TEST(loaded->moved_to == path + ".corrupt-1800000000");
  BOOST_TEST(fs::exists(loaded->moved_to));
  BOOST_TEST(!fs::exists(path));
}

BOOST_AUTO_TEST_CASE(dry_run_leaves_a_corrupt_file_in_place) {
  TempDir dir;
  const std::string path = (dir.path / "state.json").string();
  std::ofstream(path) << "not json";
  auto loaded = StateStore(path).load(T0, false);
  BOOST_REQUIRE(loaded.ok());
  BOOST_TEST((loaded->kind == LoadedState::Kind::corrupt));
  BOOST_TEST(fs::exists(path));
}

// Links planted where a temp file could go (the old fixed name, and the first names of this process's
// sequence) are neither followed nor removed: the write goes to the next free name.
BOOST_AUTO_TEST_CASE(links_at_temp_names_are_never_followed) {
  TempDir dir;
  const std::string path = (dir.path / "state.json").string();
  const fs::path victim = dir.path / "victim";
  std::ofstream(victim) << "keep";
  std::vector<std::string> planted{path + ".tmp"};
  for (int n = 0; n < 5; ++n)
    planted.push_back(path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(n));
  for (const auto& name : planted) fs::create_symlink(victim, name);

  BOOST_REQUIRE(StateStore(path).save(sample_state()).ok());
  BOOST_TEST(read_all(victim) == "keep");
  for (const auto& name : planted) BOOST_TEST(fs::is_symlink(name), name);
  BOOST_TEST(!fs::is_symlink(path));
  auto loaded = StateStore(path).load(T0, true);
  BOOST_REQUIRE(loaded.ok());
  BOOST_TEST((loaded->kind == LoadedState::Kind::loaded));
  BOOST_TEST(entries(dir.path).size() == planted.size() + 2, "no temp file left");
}

BOOST_AUTO_TEST_CASE(a_failed_rename_leaves_no_temp_file) {
  TempDir dir;
  const fs::path path = dir.path / "state.json";
  fs::create_directories(path / "in-the-way");  // rename(2) cannot replace a non-empty directory
  auto r = write_file_atomically(path.string(), "x", 0600);
  BOOST_REQUIRE(!r.ok());
  BOOST_TEST(r.error().message.find("cannot rename " + path.string() + ".tmp.") == 0, r.error().message);
  BOOST_TEST(entries(dir.path) == std::vector<std::string>{"state.json"});
}

BOOST_AUTO_TEST_CASE(a_linked_state_file_is_not_read) {
  TempDir dir;
  const fs::path real = dir.path / "elsewhere.json";
  BOOST_REQUIRE(
      write_file_atomically(real.string(), boost::json::serialize(encode_state(sample_state())), 0600));
  const fs::path path = dir.path / "state.json";
  fs::create_symlink(real, path);
  auto loaded = StateStore(path.string()).load(T0, true);
  BOOST_REQUIRE(!loaded.ok());
  BOOST_TEST(loaded.error().message.find("cannot read state file " + path.string()) == 0,
             loaded.error().message);
}

BOOST_AUTO_TEST_CASE(unwritable_directory_is_an_error_not_a_crash) {
  auto r = write_file_atomically("/proc/cla-cannot-write/state.json", "x", 0600);
  BOOST_TEST(!r.ok());
  BOOST_TEST(r.error().message.find("/proc/cla-cannot-write") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
