// The token ring from `nodetool ring`: the partitioner's order, joining nodes left out, contradictions
// refused.
#include "cassandra/gate/token_ring.hpp"

#include <boost/test/unit_test.hpp>

#include "../cassandra_test_data.hpp"
#include "replication_fixtures.hpp"

BOOST_AUTO_TEST_SUITE(token_ring_test)

BOOST_AUTO_TEST_CASE(tokens_compare_as_the_partitioner_orders_them) {
  BOOST_TEST(cla::compare_tokens("-9223372036854775808", "-3074457345618258603") < 0);
  BOOST_TEST(cla::compare_tokens("-1", "0") < 0);
  BOOST_TEST(cla::compare_tokens("9", "10") < 0);
  BOOST_TEST(cla::compare_tokens("-10", "-9") < 0);
  BOOST_TEST(cla::compare_tokens("-0", "0") == 0);
  BOOST_TEST(cla::compare_tokens("007", "7") == 0);
  // RandomPartitioner: up to 2^127, beyond 64 bits.
  BOOST_TEST(cla::compare_tokens("85070591730234615865843651857942052864",
                                 "170141183460469231731687303715884105727") < 0);
  // ByteOrderedPartitioner: hex bytes.
  BOOST_TEST(cla::compare_tokens("0a", "0b") < 0);
  BOOST_TEST(cla::compare_tokens("ff", "0a00") > 0);
}

BOOST_AUTO_TEST_CASE(built_from_the_real_ring) {
  const auto table =
      cla::parse_nodetool_ring(cla::test::cassandra_data("real-5.0/placement/3n_16t/ring.stdout"));
  BOOST_REQUIRE(table.ok());
  const auto ring = cla::make_token_ring(*table);
  BOOST_REQUIRE(ring.ok());
  BOOST_TEST(ring->endpoints.size() == 3u);
  BOOST_TEST(ring->tokens.size() == 48u);
  for (std::size_t i = 1; i < ring->tokens.size(); ++i)
    BOOST_TEST(cla::compare_tokens(ring->tokens[i - 1], ring->tokens[i]) < 0);
  BOOST_TEST(ring->range_start(0) == "8843544462474154818");
  BOOST_TEST(ring->range_end(0) == "-7959908870520264238");
  BOOST_TEST(ring->endpoints[ring->owners[0]].address == "127.0.0.2");
  BOOST_TEST(ring->endpoints[*ring->find("127.0.0.3")].rack == "rack3");
  BOOST_TEST(!ring->find("127.0.0.4").has_value());
}

BOOST_AUTO_TEST_CASE(a_joining_node_is_not_in_the_ring_yet) {
  auto nodes = cla::test::even_ring(3, 3);
  nodes.push_back(cla::test::FixtureNode{"10.0.0.9", "dc1", "rack1", {42, 43}, "Joining"});
  const auto ring = cla::test::token_ring(nodes);
  BOOST_TEST(ring.tokens.size() == 3u);
  BOOST_TEST(!ring.find("10.0.0.9").has_value());
  nodes.back().state = "Leaving";
  BOOST_TEST(cla::test::token_ring(nodes).tokens.size() == 5u);
}

BOOST_AUTO_TEST_CASE(contradictions_are_refused) {
  auto twice = cla::test::ring_table(cla::test::even_ring(3, 3));
  twice.rows.push_back(twice.rows[0]);
  twice.rows.back().address = "10.0.0.9";
  BOOST_TEST(!cla::make_token_ring(twice).ok());
  auto two_racks = cla::test::ring_table(cla::test::even_ring(3, 3, 2));
  two_racks.rows[0].rack = "elsewhere";
  BOOST_TEST(!cla::make_token_ring(two_racks).ok());
  BOOST_TEST(!cla::make_token_ring(cla::RingTable{}).ok());
}

BOOST_AUTO_TEST_SUITE_END()
