// The state file: codec round trip, atomic write with mode 0600, corrupt files kept aside, missing = first
// start.
#include "state/state_store.hpp"

#include <sys/stat.h>

#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>
#include <filesystem>
#include <fstream>

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
  BOOST_TEST(!fs::exists(path + ".tmp"));
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

BOOST_AUTO_TEST_CASE(unwritable_directory_is_an_error_not_a_crash) {
  auto r = write_file_atomically("/proc/cla-cannot-write/state.json", "x", 0600);
  BOOST_TEST(!r.ok());
  BOOST_TEST(r.error().message.find("/proc/cla-cannot-write") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
