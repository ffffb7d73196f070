// identity_in_status: this node's DC and rack from its status row, by the host id `info` told once.
#include "cassandra/node_identity.hpp"

#include <boost/test/unit_test.hpp>

#include "cassandra_test_data.hpp"

BOOST_AUTO_TEST_SUITE(node_identity_test)

namespace {

cla::ClusterStatus real_status(const std::string& file) {
  auto status = cla::parse_nodetool_status(cla::test::cassandra_data("real-5.0/" + file));
  BOOST_TEST_REQUIRE(status.ok());
  return status.value();
}

}  // namespace

BOOST_AUTO_TEST_CASE(the_row_of_the_host_id_that_info_told_gives_the_same_dc_and_rack) {
  auto info = cla::parse_nodetool_info(cla::test::cassandra_data("real-5.0/info_serving.stdout"));
  BOOST_TEST_REQUIRE(info.ok());
  const auto identity = cla::identity_in_status(real_status("status_all_un.stdout"), info->host_id);
  BOOST_TEST_REQUIRE(identity.has_value());
  BOOST_TEST(identity->host_id == info->host_id);
  BOOST_TEST(identity->datacenter == info->datacenter);
  BOOST_TEST(identity->rack == info->rack);
}

BOOST_AUTO_TEST_CASE(host_ids_compare_case_insensitively) {
  const auto identity =
      cla::identity_in_status(real_status("status_all_un.stdout"), "D7409BFA-ADFD-47BA-B7A5-7EF3751900D9");
  BOOST_TEST_REQUIRE(identity.has_value());
  BOOST_TEST(identity->rack == "rack3");
  BOOST_TEST(identity->datacenter == "dc1");
}

BOOST_AUTO_TEST_CASE(a_host_id_not_in_the_status_or_none_at_all_asks_info_again) {
  const auto status = real_status("status_all_un.stdout");
  BOOST_TEST(!cla::identity_in_status(status, "00000000-0000-0000-0000-000000000000").has_value());
  BOOST_TEST(!cla::identity_in_status(status, "").has_value());
  cla::ClusterStatus without_ids = status;
  for (auto& row : without_ids.rows) row.host_id.clear();
  BOOST_TEST(!cla::identity_in_status(without_ids, "").has_value());
}

BOOST_AUTO_TEST_SUITE_END()
