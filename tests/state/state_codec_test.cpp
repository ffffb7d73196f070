// The state file codec on inputs found by fuzzing (tests/fuzz/fuzz_state_codec.cpp): refused cleanly, never
// undefined behaviour.
#include "state/state_codec.hpp"

#include <boost/json/serialize.hpp>
#include <boost/test/unit_test.hpp>
#include <string>

using namespace cla;

namespace {

std::string state_with_out_since(const std::string& ms) {
  return R"({"schema_version":1,"last_incarnation":null,"boot_id":"","node":{"drained":true,)"
         R"("binary_disabled":false,"gossip_disabled":false,"memtables_flushed":false,"drained_for":[],)"
         R"("out_since_ms":)" +
         ms + R"(,"boot_id_at_drain":""},"events":{},"pending_ended":[]})";
}

}  // namespace

BOOST_AUTO_TEST_SUITE(state_codec_test)

BOOST_AUTO_TEST_CASE(a_time_beyond_what_a_wall_time_holds_is_refused) {
  // 18000000022221000 ms is about 570000 years: in nanoseconds it overflows int64 (found by the fuzzer).
  for (const std::string ms : {"18000000022221000", "-18000000022221000", "9223372036854775807"}) {
    const auto decoded = decode_state(state_with_out_since(ms));
    BOOST_TEST_REQUIRE(!decoded.ok(), ms);
    BOOST_TEST(decoded.error().message.find("out of range") != std::string::npos, decoded.error().message);
  }
}

BOOST_AUTO_TEST_CASE(the_widest_time_a_wall_time_holds_round_trips) {
  const std::string widest = std::to_string(
      std::chrono::duration_cast<std::chrono::milliseconds>(WallTime::duration::max()).count());
  const auto decoded = decode_state(state_with_out_since(widest));
  BOOST_TEST_REQUIRE(decoded.ok());
  const auto again = decode_state(boost::json::serialize(encode_state(*decoded)));
  BOOST_TEST_REQUIRE(again.ok());
  BOOST_TEST(encode_state(*again) == encode_state(*decoded));
}

// SPEC 3.10: a catch-up under way survives a restart; a file from before it has none.
BOOST_AUTO_TEST_CASE(a_catch_up_round_trips_and_older_files_have_none) {
  AgentState state;
  state.catch_up = CatchUpState{WallTime(std::chrono::milliseconds(1700000000123)), 75, 4};
  const auto back = decode_state(boost::json::serialize(encode_state(state)));
  BOOST_TEST_REQUIRE(back.ok());
  BOOST_TEST_REQUIRE(back->catch_up.has_value());
  BOOST_TEST((back->catch_up->since == state.catch_up->since));
  BOOST_TEST(back->catch_up->out_s == 75);
  BOOST_TEST(back->catch_up->hint_files == 4);
  const auto older = decode_state(state_with_out_since("null"));
  BOOST_TEST_REQUIRE(older.ok());
  BOOST_TEST(!older->catch_up.has_value());
}

// A node started afresh that has not served yet stays so across a restart; a file from before the flag has it
// false (the node served, or the agent held nothing then).
BOOST_AUTO_TEST_CASE(started_afresh_round_trips_and_older_files_have_it_false) {
  AgentState state;
  state.node.out_of_service = true;
  state.node.started_afresh = true;
  const auto back = decode_state(boost::json::serialize(encode_state(state)));
  BOOST_TEST_REQUIRE(back.ok());
  BOOST_TEST(back->node.started_afresh);
  const auto older = decode_state(state_with_out_since("null"));
  BOOST_TEST_REQUIRE(older.ok());
  BOOST_TEST(!older->node.started_afresh);
}

BOOST_AUTO_TEST_SUITE_END()
