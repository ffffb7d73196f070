// nodetool-sim's rendering of `status` and `info`, checked against the real 4.1 reference outputs.
#include "cassandra/sim/sim_output.hpp"

#include <algorithm>
#include <boost/test/unit_test.hpp>

#include "../cassandra_test_data.hpp"
#include "cassandra/nodetool_output/info_parser.hpp"
#include "cassandra/nodetool_output/status_parser.hpp"
#include "state/text.hpp"

using cla::test::cassandra_data;

namespace {

// The reference cluster of A1/A1b as a simulated cluster: the DN node is stopped, the UL node leaving.
cla::SimCluster reference_cluster() {
  const auto parsed =
      cla::parse_nodetool_status(cassandra_data("raw/nodetool_status_4.1_2dc_owns_unavailable.out"));
  BOOST_REQUIRE(parsed.ok());
  cla::SimCluster cluster;
  cluster.ownership_unavailable = true;
  for (const auto& row : parsed->rows) {
    auto dc = std::find_if(cluster.datacenters.begin(), cluster.datacenters.end(),
                           [&](auto& d) { return d.name == row.datacenter; });
    if (dc == cluster.datacenters.end())
      dc = cluster.datacenters.insert(dc, cla::SimDatacenter{row.datacenter, {}});
    auto rack = std::find_if(dc->racks.begin(), dc->racks.end(), [&](auto& r) { return r.name == row.rack; });
    if (rack == dc->racks.end()) rack = dc->racks.insert(rack, cla::SimRack{row.rack, {}});
    cla::SimNode node;
    node.address = row.address;
    node.host_id = row.host_id;
    node.load = row.load;
    node.running = row.status == 'U';
    node.ring_state = row.state;
    rack->nodes.push_back(node);
  }
  return cluster;
}

std::vector<std::string> sorted_lines(const std::string& text) {
  std::vector<std::string> lines;
  for (auto line : cla::split_lines(text)) lines.emplace_back(line);
  std::sort(lines.begin(), lines.end());
  return lines;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(sim_output_test)

BOOST_AUTO_TEST_CASE(file_sizes_as_nodetool_prints_them) {
  BOOST_TEST(cla::stringify_file_size(975) == "975 bytes");
  BOOST_TEST(cla::stringify_file_size(1024) == "1 KiB");
  BOOST_TEST(cla::stringify_file_size(1.5 * 1024 * 1024) == "1.5 MiB");
  BOOST_TEST(cla::stringify_file_size(1017.09 * 1024 * 1024 * 1024) == "1017.09 GiB");
  BOOST_TEST(cla::stringify_file_size(1.13 * 1024.0 * 1024 * 1024 * 1024) == "1.13 TiB");
  BOOST_TEST(cla::stringify_file_size(0) == "0 bytes");
}

BOOST_AUTO_TEST_CASE(status_has_the_exact_lines_of_real_nodetool) {
  // Same widths, padding (the Rack column too), titles, legend, blank lines and Note as the real output;
  // only the row order inside a DC may differ (it is a hash order in Cassandra too).
  const std::string ours = cla::format_status(reference_cluster(), "10.1.0.5");
  const std::string real = cassandra_data("raw/nodetool_status_4.1_2dc_owns_unavailable.out");
  BOOST_TEST(sorted_lines(ours) == sorted_lines(real), boost::test_tools::per_element());
  BOOST_TEST(ours.substr(0, 40) == real.substr(0, 40));
  BOOST_TEST(ours.find("\n\nDatacenter: westus2\n") != std::string::npos);
  BOOST_TEST(
      ours.ends_with("\n\nNote: Non-system keyspaces don't have the same replication settings, effective "
                     "ownership information is meaningless\n"));
}

BOOST_AUTO_TEST_CASE(status_rows_are_neither_sorted_nor_shuffled_between_calls) {
  const auto cluster = reference_cluster();
  const auto first = cla::parse_nodetool_status(cla::format_status(cluster, "10.1.0.5"));
  BOOST_REQUIRE(first.ok());
  std::vector<std::string> east;
  for (const auto& row : first->rows)
    if (row.datacenter == "eastus2") east.push_back(row.address);
  BOOST_TEST(!std::is_sorted(east.begin(), east.end()));
  BOOST_TEST(cla::format_status(cluster, "10.1.0.5") == cla::format_status(cluster, "10.1.0.5"));
}

BOOST_AUTO_TEST_CASE(effective_ownership_column) {
  auto cluster = cla::make_sim_cluster(cla::SimInitOptions{}, 1700000000);
  const std::string text = cla::format_status(cluster, "127.0.1.1");
  BOOST_TEST(text.find("Owns (effective)") != std::string::npos);
  BOOST_TEST(text.find("33.3%") != std::string::npos);
  BOOST_TEST(text.find("Note:") == std::string::npos);
  BOOST_TEST(text.find("  Host ID                               Rack \n") !=
             std::string::npos);  // padded to "rack1"
  const auto parsed = cla::parse_nodetool_status(text);
  BOOST_REQUIRE(parsed.ok());
  BOOST_TEST(parsed->rows.size() == 9u);
}

BOOST_AUTO_TEST_CASE(each_node_sees_itself_up_and_others_down_when_out) {
  auto cluster = cla::make_sim_cluster(cla::SimInitOptions{}, 1700000000);
  find_node(cluster, "127.0.1.2")->node->gossip = false;
  find_node(cluster, "127.0.1.3")->node->drained = true;
  find_node(cluster, "127.0.1.4")->node->running = false;
  find_node(cluster, "127.0.1.5")->node->binary = false;  // clients gone, still a gossip member: UN
  find_node(cluster, "127.0.1.6")->node->ring_state = 'J';
  auto letters = [&](const std::string& viewer, const std::string& address) {
    const auto parsed = cla::parse_nodetool_status(cla::format_status(cluster, viewer));
    BOOST_REQUIRE(parsed.ok());
    for (const auto& row : parsed->rows)
      if (row.address == address) return std::string{row.status, row.state};
    return std::string("missing");
  };
  BOOST_TEST(letters("127.0.1.1", "127.0.1.2") == "DN");
  BOOST_TEST(letters("127.0.1.2", "127.0.1.2") == "UN");
  BOOST_TEST(letters("127.0.1.1", "127.0.1.3") == "DN");
  BOOST_TEST(letters("127.0.1.3", "127.0.1.3") == "UN");
  BOOST_TEST(letters("127.0.1.1", "127.0.1.4") == "DN");
  BOOST_TEST(letters("127.0.1.1", "127.0.1.5") == "UN");
  BOOST_TEST(letters("127.0.1.1", "127.0.1.6") == "UJ");
  // As real nodetool: a joining node's effective ownership is "?", the others' counted without it.
  int checked = 0;
  const std::string status = cla::format_status(cluster, "127.0.1.1");  // the lines are views into it
  for (auto line : cla::split_lines(status)) {
    const auto words = cla::split_words(line);
    if (words.size() < 2 || (words[1] != "127.0.1.6" && words[1] != "127.0.1.5")) continue;
    ++checked;
    const bool joining = words[1] == "127.0.1.6";
    BOOST_TEST((std::find(words.begin(), words.end(), "?") != words.end()) == joining, line);
    // RF 3 over the 8 nodes with normal tokens: 37.5 %.
    BOOST_TEST((line.find("37.5%") != std::string_view::npos) == !joining, line);
  }
  BOOST_TEST(checked == 2);
}

BOOST_AUTO_TEST_CASE(info_parses_and_follows_the_node_state) {
  cla::SimInitOptions options;
  options.datacenters = {"dc1", "dc2"};
  options.nodes_per_rack = 2;
  auto cluster = cla::make_sim_cluster(options, 1700000000);
  auto ref = find_node(cluster, "127.0.1.9");
  BOOST_REQUIRE(ref.has_value());
  std::string text = cla::format_info(*ref, 1700000100);
  auto info = cla::parse_nodetool_info(text);
  BOOST_REQUIRE(info.ok());
  BOOST_TEST(info->host_id == ref->node->host_id);
  BOOST_TEST(info->datacenter == "dc2");
  BOOST_TEST(info->rack == "rack2");
  BOOST_TEST(info->gossip_active);
  BOOST_TEST(text.find("\nNative Transport active: true\n") != std::string::npos);
  BOOST_TEST(text.find("\nGeneration No          : 1700000000\n") != std::string::npos);
  BOOST_TEST(text.find("\nUptime (seconds)       : 100\n") != std::string::npos);
  ref->node->gossip = ref->node->binary = false;
  text = cla::format_info(*ref, 1700000100);
  info = cla::parse_nodetool_info(text);
  BOOST_REQUIRE(info.ok());
  BOOST_TEST(!info->gossip_active);
  BOOST_TEST(!info->native_transport_active);
  BOOST_TEST(text.find("\nGeneration No          : 0\n") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
