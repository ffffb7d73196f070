// nodetool ring: Cassandra 5.0.9's output (16 tokens, a node down), one node a DC, wide and odd cells,
// refusals.
#include "cassandra/nodetool_output/ring_parser.hpp"

#include <boost/test/unit_test.hpp>

#include "../cassandra_test_data.hpp"
#include "cassandra/sim/sim_schema_output.hpp"

namespace {

cla::RingTable parsed(const std::string& text) {
  auto t = cla::parse_nodetool_ring(text);
  BOOST_REQUIRE_MESSAGE(t.ok(), (t.ok() ? "" : t.error().message));
  return t.value();
}

}  // namespace

BOOST_AUTO_TEST_SUITE(ring_parser_test)

BOOST_AUTO_TEST_CASE(cassandra_5_0_with_16_tokens) {
  const auto t = parsed(cla::test::cassandra_data("real-5.0/placement/3n_16t/ring.stdout"));
  BOOST_TEST(t.rows.size() == 48u);
  BOOST_TEST(t.vnodes_warning);
  BOOST_TEST(t.notes.size() == 1u);
  BOOST_TEST(t.notes[0].starts_with("Note: Non-system keyspaces don't have the same replication settings"));
  BOOST_TEST(t.rows[0] == (cla::RingRow{"dc1", "127.0.0.2", "rack2", "Up", "Normal", "96.5 KiB", "?",
                                        "-7959908870520264238"}));
  BOOST_TEST(t.rows.back().token == "8843544462474154818");  // also the wrap-around line under the header
  const auto down = parsed(cla::test::cassandra_data("real-5.0/placement/3n_16t/ring_node_down.stdout"));
  for (const auto& row : down.rows) BOOST_TEST(row.status == (row.address == "127.0.0.2" ? "Down" : "Up"));
}

BOOST_AUTO_TEST_CASE(one_node_a_dc_odd_cells_and_no_trailing_note) {
  // One node in dc2: no wrap-around line (an empty one). A rack with a blank, "?" load, a percentage,
  // Leaving.
  const auto t = parsed(
      "\nDatacenter: dc1\n==========\nAddress  Rack  Status State   Load  Owns  Token\n"
      "                                                 20\n"
      "10.0.0.1  rack one  Up     Leaving  ?   66.67%  -5\n"
      "10.0.0.2  r2  ?  Joining  1.5 TiB  ?  20\n\n"
      "Datacenter: dc2\n==========\nAddress  Rack  Status State   Load  Owns  Token\n\n"
      "10.0.0.3  r1  Down  Moving  12 bytes  100.00%  7\n\n  ");
  BOOST_REQUIRE(t.rows.size() == 3u);
  BOOST_TEST(t.rows[0] ==
             (cla::RingRow{"dc1", "10.0.0.1", "rack one", "Up", "Leaving", "?", "66.67%", "-5"}));
  BOOST_TEST(t.rows[1] == (cla::RingRow{"dc1", "10.0.0.2", "r2", "?", "Joining", "1.5 TiB", "?", "20"}));
  BOOST_TEST(t.rows[2] ==
             (cla::RingRow{"dc2", "10.0.0.3", "r1", "Down", "Moving", "12 bytes", "100.00%", "7"}));
  BOOST_TEST(!t.vnodes_warning);
  BOOST_TEST(t.notes.empty());
}

BOOST_AUTO_TEST_CASE(a_long_rack_runs_into_the_status) {
  // "%-12s" pads a rack, never cuts it: nodetool prints "fault-domain-1Up" for rack fault-domain-1.
  const auto t = parsed(
      "Datacenter: dc1\n==========\nAddress  Rack  Status State   Load  Owns  Token\n"
      "10.0.0.1        fault-domain-1Up     Normal  1.5 KiB         ?                   5\n"
      "10.0.0.2        two words rackDown   Normal  ?               ?                   6\n"
      "10.0.0.3        rack??     Normal  ?               ?                   7\n");
  BOOST_TEST(t.rows[0] ==
             (cla::RingRow{"dc1", "10.0.0.1", "fault-domain-1", "Up", "Normal", "1.5 KiB", "?", "5"}));
  BOOST_TEST(t.rows[1].rack == "two words rack");
  BOOST_TEST(t.rows[1].status == "Down");
  BOOST_TEST(t.rows[2].rack == "rack?");
  BOOST_TEST(t.rows[2].status == "?");
  BOOST_TEST(cla::parse_nodetool_ring(cla::format_ring(t)).value() == t);
}

BOOST_AUTO_TEST_CASE(refused) {
  for (const char* text :
       {"", "Address  Rack  Status State   Load  Owns  Token\n",
        "Datacenter: dc1\n10.0.0.1  r1  Up  Normal  ?  ?  5\n",                                // no header
        "Datacenter:\n",                                                                       // no name
        "Datacenter: dc1\n==========\nAddress  Rack  Status State   Load  Owns  Token\n\n  ",  // no row
        "\nError: Keyspace not found\n"})
    BOOST_TEST(!cla::parse_nodetool_ring(text).ok(), text);
  for (const char* row : {"10.0.0.1  r1  Up  Normal  ?  ?\n",             // too few cells
                          "10.0.0.1  r1  Up  Normal  ?  12  5\n",         // owns
                          "10.0.0.1  r1  Up  Normal  3 parsecs  ?  5\n",  // load
                          "10.0.0.1  r1  Up  Sleeping  ?  ?  5\n",        // state
                          "10.0.0.1  r1  Sideways  Normal  ?  ?  5\n",    // status
                          "10.0.0.1  Up  Normal  1 KiB  ?  5\n",          // no rack
                          "Error: boom\n"}) {
    std::string text = "Datacenter: dc1\n==========\nAddress  Rack  Status State   Load  Owns  Token\n";
    text.append(row);  // appended piecewise: GCC 12 misreports `a + "..."` (-Warray-bounds)
    BOOST_TEST(!cla::parse_nodetool_ring(text).ok(), text);
  }
}

BOOST_AUTO_TEST_SUITE_END()
