// parse_nodetool_info over the 4.1 / 5.0 / after-drain samples, verbatim 3.0-4.1 outputs and broken ones.
#include "cassandra/nodetool_output/info_parser.hpp"

#include <boost/test/unit_test.hpp>

#include "../cassandra_test_data.hpp"
#include "parser_checks.hpp"

using cla::test::cassandra_data;

namespace {

cla::NodeInfo parse_ok(const std::string& text) {
  return cla::test::parsed_value(cla::parse_nodetool_info, text);
}

std::string parse_error(const std::string& text) {
  return cla::test::refusal(cla::parse_nodetool_info, text);
}

std::string without_line(std::string text, const std::string& prefix) {
  const auto at = text.find(prefix);
  BOOST_REQUIRE(at != std::string::npos);
  return text.erase(at, text.find('\n', at) + 1 - at);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(info_parser_test)

BOOST_AUTO_TEST_CASE(cassandra_4_1) {
  const auto info = parse_ok(cassandra_data("raw/nodetool_info_4.1.out"));
  BOOST_TEST(info.host_id == "3f20134c-fdfb-462f-96fa-d8dbf82d5644");
  BOOST_TEST(info.datacenter == "eastus2");
  BOOST_TEST(info.rack == "rack2");
  BOOST_TEST(info.gossip_active);
  BOOST_TEST(info.native_transport_active);
}

BOOST_AUTO_TEST_CASE(cassandra_5_0_and_the_annotated_samples) {
  const auto info = parse_ok(cassandra_data("raw/nodetool_info_5.0.out"));
  BOOST_TEST(info.host_id == "3f20134c-fdfb-462f-96fa-d8dbf82d5644");
  BOOST_TEST(info.rack == "rack2");
  BOOST_TEST(parse_ok(cassandra_data("A2_nodetool_info_4.1_sample.txt")).datacenter == "eastus2");
  BOOST_TEST(parse_ok(cassandra_data("A2b_nodetool_info_5.0_sample.txt")).native_transport_active);
}

BOOST_AUTO_TEST_CASE(after_drain_both_flags_are_false) {
  const auto info = parse_ok(cassandra_data("raw/nodetool_info_4.1_after_drain.out"));
  BOOST_TEST(!info.gossip_active);
  BOOST_TEST(!info.native_transport_active);
  BOOST_TEST(info.host_id == "3f20134c-fdfb-462f-96fa-d8dbf82d5644");
}

BOOST_AUTO_TEST_CASE(realworld_3_0_to_4_1) {
  const auto v41 = parse_ok(cassandra_data("realworld/info_1_4.1.3_docker.out"));
  BOOST_TEST(v41.host_id == "f4539d5f-6e29-417a-b2c2-f59d72101120");
  BOOST_TEST(v41.datacenter == "dc1");
  BOOST_TEST(v41.rack == "rack2");
  const auto v311 =
      parse_ok(cassandra_data("realworld/info_2_reaper402_3.11_truncated.out"));  // Thrift active
  BOOST_TEST(v311.datacenter == "us-west-2");
  BOOST_TEST(v311.rack == "2c");
  BOOST_TEST(v311.native_transport_active);
  const auto v30 = parse_ok(cassandra_data("realworld/info_3_smartcat249_3.0.out"));
  BOOST_TEST(v30.host_id == "bb01d0a8-bcf3-4f16-82fc-7706a8929497");
  BOOST_TEST(v30.datacenter == "eu-west");
  BOOST_TEST(v30.gossip_active);
}

BOOST_AUTO_TEST_CASE(missing_keys_are_named) {
  const std::string good = cassandra_data("raw/nodetool_info_4.1.out");
  for (std::string key : {"ID", "Gossip active", "Native Transport active", "Data Center", "Rack"}) {
    const std::string message = parse_error(without_line(good, key + (key.size() < 23 ? " " : ":")));
    BOOST_TEST(message.find("'" + key + "'") != std::string::npos, message);
  }
  BOOST_TEST(parse_error("").find("'ID'") != std::string::npos);
  // A failed `nodetool info` can leave partial stdout (exit 2): still an error, not a half-filled NodeInfo.
  BOOST_TEST(
      parse_error(
          "ID                     : 3f20134c-fdfb-462f-96fa-d8dbf82d5644\nGossip active          : true\n")
          .find("Data Center") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(flags_must_be_true_or_false) {
  std::string text = cassandra_data("raw/nodetool_info_4.1.out");
  text.replace(text.find("Gossip active          : true"), 29, "Gossip active          : yes");
  BOOST_TEST(parse_error(text).find("'Gossip active' is 'yes'") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
