// imds-emulator's --vm and listen-address values, and the loopback-only rule.
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
