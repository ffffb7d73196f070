// imds-emulator's --vm and listen-address values (zone, region, a name unique within its region), and the
// loopback-only rule.
#include "imds/emulator/emulator_options.hpp"

#include <boost/test/unit_test.hpp>

BOOST_AUTO_TEST_SUITE(emulator_options_test)

BOOST_AUTO_TEST_CASE(vm_option_reads_name_fault_domain_and_address) {
  const auto vm = cla::parse_vm_option("cass-n04,2,127.0.0.1:8080", false);
  BOOST_TEST_REQUIRE(vm.ok(), (vm.ok() ? "" : vm.error().message));
  BOOST_TEST(vm->name == "cass-n04");
  BOOST_TEST(vm->fault_domain == 2);
  BOOST_TEST(vm->listen.address.to_string() == "127.0.0.1");
  BOOST_TEST(vm->listen.port == 8080);
  const auto v6 = cla::parse_vm_option("vm_1,0,[::1]:0", false);
  BOOST_TEST_REQUIRE(v6.ok());
  BOOST_TEST(v6->listen.address.is_v6());
  BOOST_TEST(cla::parse_listen_address("localhost:0", false)->address.to_string() == "127.0.0.1");
  BOOST_TEST(vm->zone == "", "no zone given: a VM outside availability zones");
  const auto zonal = cla::parse_vm_option("vm2,0,127.0.0.1:0,3", false);
  BOOST_TEST_REQUIRE(zonal.ok(), (zonal.ok() ? "" : zonal.error().message));
  BOOST_TEST(zonal->zone == "3");
  BOOST_TEST(zonal->listen.port == 0);
}

BOOST_AUTO_TEST_CASE(vm_option_reads_the_region_after_the_zone_or_alone) {
  const auto plain = cla::parse_vm_option("vm0,0,127.0.0.1:0", false);
  BOOST_TEST_REQUIRE(plain.ok());
  BOOST_TEST(plain->region == "", "no region given: the default region");
  const auto alone = cla::parse_vm_option("vm0,1,127.0.0.1:0,region=eastus2", false);
  BOOST_TEST_REQUIRE(alone.ok(), (alone.ok() ? "" : alone.error().message));
  BOOST_TEST(alone->region == "eastus2");
  BOOST_TEST(alone->zone == "");
  const auto both = cla::parse_vm_option("vm0,1,[::1]:0,3,region=West-Europe-2", false);
  BOOST_TEST_REQUIRE(both.ok(), (both.ok() ? "" : both.error().message));
  BOOST_TEST(both->zone == "3");
  BOOST_TEST(both->region == "West-Europe-2");
  BOOST_TEST(cla::parse_vm_option("vm0,1,127.0.0.1:0,region=" + std::string(32, 'r'), false).ok());
}

BOOST_AUTO_TEST_CASE(a_name_is_unique_within_its_region_only) {
  const auto two = cla::parse_vm_options(
      {"vm0,0,127.0.0.1:0,region=east", "vm0,0,127.0.0.1:0,region=west", "vm0,0,127.0.0.1:0"}, false);
  BOOST_TEST_REQUIRE(two.ok(), (two.ok() ? "" : two.error().message));
  BOOST_TEST(two->size() == 3u);
  BOOST_TEST((*two)[1].region == "west");

  const std::pair<std::vector<std::string>, const char*> cases[] = {
      {{"vm0,0,127.0.0.1:0,region=east", "VM0,1,127.0.0.1:0,2,region=east"},
       "--vm VM0 given twice in region east"},
      {{"vm0,0,127.0.0.1:0", "VM0,1,127.0.0.1:0"},
       "--vm VM0 given twice (a VM name is unique within its region)"},
      {{"vm0,0,127.0.0.1:0,region=east", "vm1,0,127.0.0.1:0,region=East"},
       R"(region "East" differs from vm0's region "east" only in case)"},
      {{"vm0,0,127.0.0.1:0", "vm1,0,127.0.0.1:0,region=east,"}, "nothing may follow region=REGION"},
  };
  for (const auto& [texts, why] : cases) {
    const auto r = cla::parse_vm_options(texts, false);
    BOOST_TEST_CONTEXT(texts.back()) {
      BOOST_TEST_REQUIRE(!r.ok());
      BOOST_TEST(r.error().message.find(why) != std::string::npos, r.error().message);
    }
  }
}

BOOST_AUTO_TEST_CASE(bad_values_say_what_is_wrong) {
  const std::pair<const char*, const char*> cases[] = {
      {"vm0", "expected NAME,FAULT_DOMAIN,HOST:PORT"},
      {"vm0,0", "expected NAME,FAULT_DOMAIN,HOST:PORT"},
      {",0,127.0.0.1:0", "the name must be"},
      {"vm 0,0,127.0.0.1:0", "the name must be"},
      {"vm0,x,127.0.0.1:0", "fault domain"},
      {"vm0,-1,127.0.0.1:0", "fault domain"},
      {"vm0,0,127.0.0.1", "expected HOST:PORT"},
      {"vm0,0,127.0.0.1:70000", "the port must be"},
      {"vm0,0,example.com:80", "IP address or localhost"},
      {"vm0,0,0.0.0.0:8080", "refusing to listen on a non-loopback address"},
      {"vm0,0,10.1.2.3:8080", "--allow-remote"},
      {"vm0,0,127.0.0.1:0,", "the zone must be"},
      {"vm0,0,127.0.0.1:0,zone 1", "the zone must be"},
      {"vm0,0,127.0.0.1:0,region=", "the region must be 1..32 letters, digits or '-'"},
      {"vm0,0,127.0.0.1:0,2,region=east_1", "the region must be"},
      {"vm0,0,127.0.0.1:0,region=r012345678901234567890123456789012", "the region must be"},
      {"vm0,0,127.0.0.1:0,2,3", R"("3": expected region=REGION after the zone)"},
      {"vm0,0,127.0.0.1:0,2,", R"("": expected region=REGION after the zone)"},
      {"vm0,0,127.0.0.1:0,region=east,2", "nothing may follow region=REGION"},
      {"vm0,0,127.0.0.1:0,Region=east", "the zone must be"},
  };
  for (const auto& [text, why] : cases) {
    const auto r = cla::parse_vm_option(text, false);
    BOOST_TEST_CONTEXT(text) {
      BOOST_TEST_REQUIRE(!r.ok());
      BOOST_TEST(r.error().message.find(why) != std::string::npos, r.error().message);
    }
  }
}

BOOST_AUTO_TEST_CASE(allow_remote_permits_other_addresses) {
  BOOST_TEST(cla::parse_listen_address("0.0.0.0:8080", true).ok());
  BOOST_TEST(!cla::parse_listen_address("0.0.0.0:8080", false).ok());
}

BOOST_AUTO_TEST_CASE(endpoint_text_brackets_ipv6) {
  namespace ip = boost::asio::ip;
  BOOST_TEST(cla::endpoint_text({ip::make_address("127.0.0.1"), 41234}) == "127.0.0.1:41234");
  BOOST_TEST(cla::endpoint_text({ip::make_address("::1"), 80}) == "[::1]:80");
}

BOOST_AUTO_TEST_SUITE_END()
