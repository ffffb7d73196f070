// Compute metadata parsing: the VM's resource name, fault domain and zone from real and constructed bodies.
#include "imds/compute_parser.hpp"

#include <boost/test/unit_test.hpp>

#include "data_files.hpp"

namespace {

cla::ComputeInfo parse_file(const std::string& name) {
  const auto r = cla::parse_compute(cla::test::read_file(cla::test::imds_data("compute/" + name)));
  BOOST_TEST_REQUIRE(r.ok(), name << ": " << (r.ok() ? "" : r.error().message));
  return *r;
}

std::string error_of(std::string_view body) {
  const auto r = cla::parse_compute(body);
  BOOST_TEST_REQUIRE(!r.ok());
  return r.error().message;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(compute_parser_test)

BOOST_AUTO_TEST_CASE(reads_name_and_fault_domain_given_as_strings) {
  const auto zonal = parse_file("B3-03_compute_2021-02-01_zonal_CONSTRUCTED.json");
  BOOST_TEST(zonal.name == "cass-eus2-n04");
  BOOST_TEST(zonal.platform_fault_domain == 0);
  const auto avset = parse_file("B3-03_compute_2021-02-01_availset_CONSTRUCTED.json");
  BOOST_TEST(avset.name == "cass-eus2-n05");
  BOOST_TEST(avset.platform_fault_domain == 1);
  const auto spec = parse_file("B3-01_spec_example_pretty.json");
  BOOST_TEST(spec.name == "examplevmname");
  BOOST_TEST(spec.platform_fault_domain == 36);
}

// topology.rack_source zone (SPEC 2.3): a zonal VM names its zone; a VM of an availability set gives "".
BOOST_AUTO_TEST_CASE(reads_the_zone_empty_outside_availability_zones) {
  BOOST_TEST(parse_file("B3-03_compute_2021-02-01_zonal_CONSTRUCTED.json").zone == "2");
  BOOST_TEST(parse_file("B3-03_compute_2021-02-01_availset_CONSTRUCTED.json").zone == "");
  BOOST_TEST(parse_file("B3-01_spec_example_pretty.json").zone == "");
  BOOST_TEST(parse_file("B3-02_instance_2017-08-01_real.json").zone == "", "an older api-version has none");
  BOOST_TEST(error_of(R"({"name":"vm0","platformFaultDomain":"0","zone":2})") ==
             "zone: expected a string, found an integer");
}

BOOST_AUTO_TEST_CASE(accepts_a_whole_instance_document) {
  const auto vmss = parse_file("B3-02_instance_2017-08-01_real.json");
  BOOST_TEST(vmss.name == "vault-example_0");
  BOOST_TEST(vmss.platform_fault_domain == 0);
}

BOOST_AUTO_TEST_CASE(accepts_a_number_for_the_fault_domain) {
  const auto r = cla::parse_compute(R"({"name":"vm2","platformFaultDomain":2})");
  BOOST_TEST_REQUIRE(r.ok());
  BOOST_TEST(r->platform_fault_domain == 2);
}

BOOST_AUTO_TEST_CASE(rejects_wrong_shapes_naming_the_field) {
  BOOST_TEST(error_of("").find("invalid JSON") != std::string::npos);
  BOOST_TEST(error_of("[]") == "compute: expected a JSON object, found an array");
  BOOST_TEST(error_of(R"({"platformFaultDomain":"0"})") == "name: missing");
  BOOST_TEST(error_of(R"({"name":"","platformFaultDomain":"0"})") == "name: empty");
  BOOST_TEST(error_of(R"({"name":7,"platformFaultDomain":"0"})") ==
             "name: expected a string, found an integer");
  BOOST_TEST(error_of(R"({"name":"vm0"})") == "platformFaultDomain: missing");
  BOOST_TEST(error_of(R"({"name":"vm0","platformFaultDomain":""})") ==
             "platformFaultDomain: expected an integer 0..1000, found \"\"");
  BOOST_TEST(error_of(R"({"name":"vm0","platformFaultDomain":"-1"})").find("platformFaultDomain") == 0u);
  BOOST_TEST(error_of(R"({"name":"vm0","platformFaultDomain":1.5})") ==
             "platformFaultDomain: expected an integer 0..1000, found a decimal number");
  BOOST_TEST(error_of(R"({"compute":{"name":"vm0"}})") == "compute.platformFaultDomain: missing");
}

BOOST_AUTO_TEST_SUITE_END()
