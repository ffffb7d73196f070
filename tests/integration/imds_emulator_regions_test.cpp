// The real imds-emulator playing two regions (availability sets) in one process: a vm0 in each, each seeing
// and approving only its own region's events, and the admin API asking which region an event is for.
#include <boost/beast/http/verb.hpp>
#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

#include "imds_emulator_process.hpp"

namespace {

using namespace cla::test::emulator_tests;

const std::string kEvents = "/metadata/scheduledevents?api-version=2020-07-01";
const cla::test::Headers kMetadata = {{"Metadata", "true"}};

boost::json::object document(std::uint16_t port) {
  const auto reply = http_call(port, http::verb::get, kEvents, {}, kMetadata);
  BOOST_TEST_REQUIRE(reply.status == 200u);
  return reply.json().as_object();
}

HttpReply approve(std::uint16_t port, const std::string& id) {
  return http_call(port, http::verb::post, kEvents, R"({"StartRequests":[{"EventId":")" + id + R"("}]})",
                   kMetadata);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(imds_emulator_regions_test)

BOOST_AUTO_TEST_CASE(help_shows_two_regions_and_a_name_twice_in_one_region_is_refused) {
  const auto help = cla::test::run_emulator_to_exit({"--help"});
  for (const char* text : {"--vm NAME,FAULT_DOMAIN,HOST:PORT[,ZONE][,region=REGION]", "region=westus3",
                           "\"region\":\"eastus2\"", "IMDS_REGION"})
    BOOST_TEST(help.out.find(text) != std::string::npos, text);
  const auto twice = cla::test::run_emulator_to_exit(
      {"--vm", "vm0,0,127.0.0.1:0,region=east", "--vm", "VM0,1,127.0.0.1:0,region=east"});
  BOOST_TEST(twice.exit_code == 2);
  BOOST_TEST(twice.err.find("--vm VM0 given twice in region east") != std::string::npos, twice.err);
  const auto bad = cla::test::run_emulator_to_exit({"--vm", "vm0,0,127.0.0.1:0,region=east_1"});
  BOOST_TEST(bad.exit_code == 2);
  BOOST_TEST(bad.err.find("the region must be") != std::string::npos, bad.err);
}

// The admin API answers after the change is made, on the server's one thread: the documents read afterwards
// hold it, so nothing here waits. The notice (600 s) keeps the event Scheduled until approved.
BOOST_AUTO_TEST_CASE(an_event_reaches_the_vm0_of_its_region_only) {
  ImdsEmulatorProcess emulator({{"vm0", 0, 0, "", "east"}, {"vm0", 1, 0, "", "west"}});
  const auto east = emulator.vm_port("vm0", "east"), west = emulator.vm_port("vm0", "west");
  BOOST_TEST_REQUIRE(east != west);
  const std::string id = emulator.add_event(
      {{"type", "Freeze"}, {"resources", {"vm0"}}, {"region", "east"}, {"not_before_in_s", 600}});

  const auto seen = document(east);
  BOOST_TEST_REQUIRE(seen.at("Events").as_array().size() == 1u);
  BOOST_TEST(seen.at("Events").as_array().at(0).at("EventId").as_string() == id);
  BOOST_TEST(seen.at("DocumentIncarnation").as_int64() == 2);
  const auto unseen = document(west);
  BOOST_TEST(unseen.at("Events").as_array().empty());
  BOOST_TEST(unseen.at("DocumentIncarnation").as_int64() == 1, "west's document did not change");

  const auto foreign = approve(west, id);
  BOOST_TEST(foreign.status == 400u);
  BOOST_TEST(std::string(foreign.json().at("error").as_string()).find("was not found") != std::string::npos,
             foreign.body);
  BOOST_TEST(emulator.events().at(0).at("status").as_string() == "Scheduled");
  BOOST_TEST(emulator.approvals().empty());

  BOOST_TEST(approve(east, id).status == 200u);
  BOOST_TEST(emulator.events().at(0).at("status").as_string() == "Started");
  const auto approvals = emulator.approvals();
  BOOST_TEST_REQUIRE(approvals.size() == 1u);
  BOOST_TEST(approvals.at(0).at("region").as_string() == "east");
  BOOST_TEST(approvals.at(0).at("vm").as_string() == "vm0");
  const auto requests = emulator.requests();
  BOOST_TEST_REQUIRE(requests.size() == 4u);
  BOOST_TEST(requests.at(1).at("region").as_string() == "west");  // its GET
  BOOST_TEST(requests.at(2).at("status").as_int64() == 400);      // its approval
  BOOST_TEST(requests.at(2).at("region").as_string() == "west");

  const auto compute =
      http_call(west, http::verb::get, "/metadata/instance/compute?api-version=2021-02-01", {}, kMetadata);
  BOOST_TEST(compute.json().at("location").as_string() == "west");
}

BOOST_AUTO_TEST_CASE(an_admin_event_must_name_a_region_when_every_vm_has_one) {
  ImdsEmulatorProcess emulator({{"vm0", 0, 0, "", "east"}, {"vm0", 1, 0, "", "west"}});
  const auto missing =
      emulator.admin(http::verb::post, "/admin/events", R"({"type":"Freeze","resources":["vm0"]})");
  BOOST_TEST(missing.status == 400u);
  BOOST_TEST(missing.json().at("field").as_string() == "region");
  const auto unknown = emulator.admin(http::verb::post, "/admin/events",
                                      R"({"type":"Freeze","resources":["vm0"],"region":"north"})");
  BOOST_TEST(unknown.status == 400u);
  BOOST_TEST(unknown.json().at("field").as_string() == "region");
  BOOST_TEST(std::string(unknown.json().at("error").as_string()).find(R"("north")") != std::string::npos,
             unknown.body);
  BOOST_TEST(emulator.events().empty());
}

BOOST_AUTO_TEST_SUITE_END()
