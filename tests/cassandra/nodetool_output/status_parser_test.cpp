// parse_nodetool_status over every reference output (4.1, 5.0 order, Owns ?/Note, 2.x/3.x verbatim) and
// broken ones.
#include "cassandra/nodetool_output/status_parser.hpp"

#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <map>

#include "../cassandra_test_data.hpp"
#include "parser_checks.hpp"

using cla::test::cassandra_data;

namespace {

cla::ClusterStatus parse_ok(const std::string& text) {
  return cla::test::parsed_value(cla::parse_nodetool_status, text);
}

std::string parse_error(const std::string& text) {
  return cla::test::refusal(cla::parse_nodetool_status, text);
}

const cla::StatusRow& row_of(const cla::ClusterStatus& status, const std::string& address) {
  auto it =
      std::find_if(status.rows.begin(), status.rows.end(), [&](auto& r) { return r.address == address; });
  BOOST_REQUIRE_MESSAGE(it != status.rows.end(), "no row for " + address);
  return *it;
}

// Address -> "DC|SS|load|host|rack", to compare row sets regardless of order.
std::map<std::string, std::string> by_address(const cla::ClusterStatus& status) {
  std::map<std::string, std::string> rows;
  for (const auto& r : status.rows)
    rows[r.address] = r.datacenter + "|" + r.status + r.state + "|" + r.load + "|" + r.host_id + "|" + r.rack;
  return rows;
}

const std::string kHeader =
    "Datacenter: dc1\n===============\nStatus=Up/Down\n|/ State=Normal/Leaving/Joining/Moving\n"
    "--  Address    Load       Tokens  Owns (effective)  Host ID                               Rack\n";

}  // namespace

BOOST_AUTO_TEST_SUITE(status_parser_test)

BOOST_AUTO_TEST_CASE(cassandra_4_1_two_datacenters) {
  const auto status = parse_ok(cassandra_data("raw/nodetool_status_4.1_2dc_3rack_3node.out"));
  BOOST_TEST(status.rows.size() == 18u);
  BOOST_TEST(!status.note.has_value());
  BOOST_TEST(std::count_if(status.rows.begin(), status.rows.end(),
                           [](auto& r) { return r.datacenter == "eastus2"; }) == 9);
  const auto& leaving = row_of(status, "10.1.0.11");
  BOOST_TEST(leaving.status == 'U');
  BOOST_TEST(leaving.state == 'L');
  BOOST_TEST(!leaving.up_normal());
  BOOST_TEST(leaving.load == "909.45 GiB");
  BOOST_TEST(leaving.host_id == "70faf36f-b78e-4a4f-aa39-4aba6a42ed19");
  BOOST_TEST(leaving.rack == "rack3");
  const auto& down = row_of(status, "10.2.0.8");
  BOOST_TEST(down.datacenter == "westus2");
  BOOST_TEST(down.status == 'D');
  BOOST_TEST(down.rack == "rack2");
  const auto& normal = row_of(status, "10.1.0.6");
  BOOST_TEST(normal.up_normal());
  BOOST_TEST(normal.load == "1017.09 GiB");
  BOOST_TEST(normal.rack == "rack1");  // the padded last column comes back without its blanks
  // Row order is kept as printed (not sorted): 10.1.0.5, 10.1.0.8, 10.1.0.11, ...
  BOOST_TEST(status.rows[1].address == "10.1.0.8");
  BOOST_TEST(status.rows[2].address == "10.1.0.11");
}

BOOST_AUTO_TEST_CASE(cassandra_5_0_row_order_gives_the_same_rows) {
  const auto v41 = parse_ok(cassandra_data("raw/nodetool_status_4.1_2dc_3rack_3node.out"));
  const auto v50 = parse_ok(cassandra_data("raw/nodetool_status_5.0_2dc_3rack_3node.out"));
  BOOST_TEST(v50.rows[1].address == "10.1.0.10");
  BOOST_TEST((by_address(v41) == by_address(v50)));
}

BOOST_AUTO_TEST_CASE(owns_unavailable_with_note_trailer) {
  const auto status = parse_ok(cassandra_data("raw/nodetool_status_4.1_2dc_owns_unavailable.out"));
  BOOST_TEST(status.rows.size() == 18u);
  BOOST_REQUIRE(status.note.has_value());
  BOOST_TEST(
      *status.note ==
      "Non-system keyspaces don't have the same replication settings, effective ownership information is "
      "meaningless");
  BOOST_TEST((by_address(status) ==
              by_address(parse_ok(cassandra_data("raw/nodetool_status_4.1_2dc_3rack_3node.out")))));
}

BOOST_AUTO_TEST_CASE(annotated_samples_parse_like_their_raw_copies) {
  // The comment lines before the first "Datacenter:" are not part of the table.
  BOOST_TEST((by_address(parse_ok(cassandra_data("A1_nodetool_status_sample_2dc_3rack_3node.txt"))) ==
              by_address(parse_ok(cassandra_data("raw/nodetool_status_4.1_2dc_3rack_3node.out")))));
  BOOST_TEST((by_address(parse_ok(cassandra_data("A1c_nodetool_status_sample_5.0_order.txt"))) ==
              by_address(parse_ok(cassandra_data("raw/nodetool_status_5.0_2dc_3rack_3node.out")))));
  BOOST_TEST(parse_ok(cassandra_data("A1b_nodetool_status_owns_unavailable_note.txt")).note.has_value());
}

BOOST_AUTO_TEST_CASE(realworld_docs_sample_with_wrong_underline) {
  const auto status = parse_ok(cassandra_data("realworld/status_1_docs_5.0.out"));
  BOOST_REQUIRE(status.rows.size() == 3u);
  BOOST_TEST(status.rows[2].address == "127.0.1.3");
  BOOST_TEST(status.rows[2].rack == "r3");
  BOOST_TEST(status.rows[2].load == "4.69 GiB");
  BOOST_TEST(status.rows[2].host_id == "9dc1a293-2cc0-40fa-a6fd-9e6054da04a7");
}

BOOST_AUTO_TEST_CASE(realworld_datacenter_without_rows) {
  const auto status = parse_ok(cassandra_data("realworld/status_1b_docs_grep_v_UN.out"));
  BOOST_REQUIRE(status.rows.size() == 1u);
  BOOST_TEST(status.rows[0].datacenter == "dc2");
  BOOST_TEST(status.rows[0].status == 'D');
  BOOST_TEST(status.rows[0].load == "105.73 KiB");
  BOOST_TEST(status.rows[0].rack == "r1");
}

BOOST_AUTO_TEST_CASE(realworld_single_token_layout_with_leading_spaces) {
  const auto status = parse_ok(cassandra_data("realworld/status_2_single_token_leading_space.out"));
  BOOST_REQUIRE(status.rows.size() == 1u);
  const auto& row = status.rows[0];
  BOOST_TEST(row.datacenter == "datacenter1");
  BOOST_TEST(row.address == "localhost");
  BOOST_TEST(row.load == "45.71 KiB");
  BOOST_TEST(row.host_id == "0b1b5e91-ad3b-444e-9c24-50578486978a");
  BOOST_TEST(row.rack == "rack1");
}

BOOST_AUTO_TEST_CASE(realworld_3_11_value_overflowing_its_fixed_width_column) {
  const auto status = parse_ok(cassandra_data("realworld/status_3_cass_operator_3.11_overflow.out"));
  BOOST_REQUIRE(status.rows.size() == 2u);
  BOOST_TEST(status.rows[1].load == "108.72 KiB");
  BOOST_TEST(status.rows[1].host_id == "f663a677-dad1-47f9-8298-0237bc2a796e");
  BOOST_TEST(status.rows[1].rack == "default");
}

BOOST_AUTO_TEST_CASE(realworld_2_x_megabytes_and_notes) {
  const auto v2 = parse_ok(cassandra_data("realworld/status_4_scylla893_2.x_note.out"));
  BOOST_REQUIRE(v2.rows.size() == 2u);
  BOOST_TEST(v2.rows[0].load == "144.76 MB");
  BOOST_TEST(v2.note.has_value());
  const auto truncated = parse_ok(cassandra_data("realworld/status_5_nagios149_3.x_truncated_note.out"));
  BOOST_TEST(truncated.rows.size() == 2u);
  BOOST_TEST(truncated.note.value_or("") == "Non-system");
  const auto unknown_load = parse_ok(cassandra_data("realworld/status_6_scylla3936_load_unknown.out"));
  BOOST_REQUIRE(unknown_load.rows.size() == 1u);
  BOOST_TEST(unknown_load.rows[0].load == "?");
  BOOST_TEST(unknown_load.rows[0].rack == "3");
}

BOOST_AUTO_TEST_CASE(print_port_addresses_and_every_state_letter) {
  const std::string text =
      "Datacenter: dc1\n===============\nStatus=Up/Down\n|/ State=Normal/Leaving/Joining/Moving\n"
      "--  Address            Load       Tokens  Owns (effective)  Host ID                               "
      "Rack   \n"
      "UJ  10.0.0.1:7000      975 bytes  16      ?                 1fcfb980-9823-4eb1-a6ba-3ad74de45321  "
      "rack1  \n"
      "UM  [2001:db8::1]:7000  1,5 TiB    16      33.3%             3f20134c-fdfb-462f-96fa-d8dbf82d5644  "
      "rack 2 \n"
      "?N  10.0.0.3:7000      1 TiB      16      33.3%             70faf36f-b78e-4a4f-aa39-4aba6a42ed19  "
      "rack3  \n"
      "\n";
  const auto status = parse_ok(text);
  BOOST_REQUIRE(status.rows.size() == 3u);
  BOOST_TEST(status.rows[0].address == "10.0.0.1:7000");
  BOOST_TEST(status.rows[0].state == 'J');
  BOOST_TEST(status.rows[0].load == "975 bytes");
  BOOST_TEST(status.rows[1].address == "[2001:db8::1]:7000");
  BOOST_TEST(status.rows[1].load == "1,5 TiB");
  BOOST_TEST(status.rows[1].rack == "rack 2");
  BOOST_TEST(status.rows[2].status == '?');
  BOOST_TEST(!status.rows[2].up_normal());
}

BOOST_AUTO_TEST_CASE(row_without_host_id_keeps_its_rack) {
  const auto status = parse_ok(
      kHeader +
      "UJ  10.0.0.9   1 KiB      16      ?                                                       rack1\n");
  BOOST_REQUIRE(status.rows.size() == 1u);
  BOOST_TEST(status.rows[0].host_id.empty());
  BOOST_TEST(status.rows[0].rack == "rack1");
}

BOOST_AUTO_TEST_CASE(broken_outputs_are_errors_naming_the_line) {
  BOOST_TEST(parse_error("").find("Datacenter") != std::string::npos);
  BOOST_TEST(parse_error(cassandra_data("raw/nodetool_connect_refused_jdk8_11.stderr")).find("Datacenter") !=
             std::string::npos);
  const std::string bad_status =
      parse_error(kHeader + "XN  10.0.0.1  1 KiB  16  33.3%  1fcfb980-9823-4eb1-a6ba-3ad74de45321  rack1\n");
  BOOST_TEST(bad_status.find("line 6") != std::string::npos);
  BOOST_TEST(bad_status.find("XN  10.0.0.1") != std::string::npos);
  BOOST_TEST(parse_error(kHeader + "UN  10.1.0.5   1.13 TiB\n").find("line 6") !=
             std::string::npos);  // cut off
  BOOST_TEST(parse_error(kHeader + "UN  10.0.0.1  1 KiB  16  33.3%  1fcfb980-9823-4eb1-a6ba-3ad74de45321\n")
                 .find("no rack") != std::string::npos);
  BOOST_TEST(
      parse_error(kHeader + "UN  10.0.0.1  1 KiB  sixteen  33.3%  1fcfb980-9823-4eb1-a6ba-3ad74de45321  r\n")
          .find("Tokens") != std::string::npos);
  BOOST_TEST(parse_error(kHeader + "UN  10.0.0.1  1 KiB  16  lots  1fcfb980-9823-4eb1-a6ba-3ad74de45321  r\n")
                 .find("Owns") != std::string::npos);
  BOOST_TEST(parse_error(
                 "Datacenter: dc1\nUN  10.0.0.1  1 KiB  16  33.3%  1fcfb980-9823-4eb1-a6ba-3ad74de45321  r\n")
                 .find("before the header") != std::string::npos);
  BOOST_TEST(parse_error("Datacenter: dc1\n--  Address  Load  Flavour  Host ID  Rack\n").find("Flavour") !=
             std::string::npos);
  BOOST_TEST(parse_error("Datacenter: dc1\n--  Address  Load  Rack  Host ID\n").find("last") !=
             std::string::npos);
  // Found by the fuzzer: a second Rack column made the first take the rest of the row, host id included.
  BOOST_TEST(parse_error("Datacenter: dc1\n--  Address  Load  Rack  Host ID  Rack\n"
                         "UN  10.0.0.1  1 KiB  r1  1fcfb980-9823-4eb1-a6ba-3ad74de45321  r1\n")
                 .find("'Rack' given twice") != std::string::npos);
  BOOST_TEST(parse_error("\nError: The keyspace foo, does not exist\n").find("keyspace foo") !=
             std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
