// imds-emulator's admin API without sockets: event specs, faults, listings, and 400s naming the field.
#include "imds/emulator/emulator_admin_api.hpp"

#include <boost/beast/http.hpp>
#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

namespace {

namespace http = boost::beast::http;
using namespace std::chrono_literals;

const cla::WallTime t0 = cla::WallTime{} + std::chrono::seconds(1700000000);

struct Fixture {
  cla::EmulatorState state{{{"vm0", 0, {}, {}}, {"vm1", 2, {}, {}}}, 0ms, 3};

  cla::HttpResponse call(http::verb verb, std::string target, std::string body = {}, cla::WallTime now = t0) {
    cla::HttpRequest req{verb, target, 11};
    req.body() = std::move(body);
    req.prepare_payload();
    return cla::handle_admin_request(state, req, now);
  }
  boost::json::value json_of(const cla::HttpResponse& res) { return boost::json::parse(res.body()); }
};

const std::vector<std::string> kDefaultRegion = {""};

std::string field_of(std::string_view body, const std::vector<std::string>& regions = kDefaultRegion) {
  const auto r = cla::parse_event_spec(body, regions);
  BOOST_TEST_REQUIRE(!r.ok(), body);
  return r.error().field;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(emulator_admin_api_test)

BOOST_AUTO_TEST_CASE(event_spec_takes_the_documented_fields) {
  const auto full = cla::parse_event_spec(
      R"({"type":"Freeze","resources":["vm0"],"not_before_in_s":60,"duration_s":5,"source":"User",)"
      R"("description":"d","started":true,"complete_after_s":3})",
      kDefaultRegion);
  BOOST_TEST_REQUIRE(full.ok());
  BOOST_TEST(full->type == "Freeze");
  BOOST_TEST(full->not_before_in_s == 60);
  BOOST_TEST(full->source == "User");
  BOOST_TEST(full->description == "d");
  BOOST_TEST(full->started);
  BOOST_TEST(full->complete_after_s == 3);

  const auto minimal =
      cla::parse_event_spec(R"({"type":"Redeploy","resources":["vm0","vm1"]})", kDefaultRegion);
  BOOST_TEST_REQUIRE(minimal.ok());
  BOOST_TEST(minimal->not_before_in_s == 600);
  BOOST_TEST(minimal->duration_s == -1);
  BOOST_TEST(!minimal->started);
  BOOST_TEST(minimal->resources.size() == 2u);
  BOOST_TEST(minimal->region == "");
}

BOOST_AUTO_TEST_CASE(the_region_names_one_of_the_vms_regions) {
  const std::string freeze = R"({"type":"Freeze","resources":["vm0"])";
  const auto east = cla::parse_event_spec(freeze + R"(,"region":"east"})", {"east", "west"});
  BOOST_TEST_REQUIRE(east.ok());
  BOOST_TEST(east->region == "east");
  const auto mixed = cla::parse_event_spec(freeze + "}", {"east", ""});
  BOOST_TEST_REQUIRE(mixed.ok());
  BOOST_TEST(mixed->region == "", "left out: the default region, when some VM is in it");

  const auto missing = cla::parse_event_spec(freeze + "}", {"east", "west"});
  BOOST_TEST_REQUIRE(!missing.ok());
  BOOST_TEST(missing.error().field == "region");
  BOOST_TEST(missing.error().message ==
             R"(missing, and every VM is in a named region: say whose VMs see the event ("east", "west"))");
  const auto unknown = cla::parse_event_spec(freeze + R"(,"region":"north"})", {"east", "west"});
  BOOST_TEST_REQUIRE(!unknown.ok());
  BOOST_TEST(unknown.error().field == "region");
  BOOST_TEST(unknown.error().message == R"("north" is no VM's region; expected one of "east", "west")");
  BOOST_TEST(field_of(freeze + R"(,"region":"east"})") == "region", "no VM is in east");
  BOOST_TEST(field_of(freeze + R"(,"region":1})", {"east"}) == "region");
  BOOST_TEST(field_of(freeze + R"(,"region":"East"})", {"east"}) == "region");
}

BOOST_AUTO_TEST_CASE(bad_event_specs_name_the_field) {
  BOOST_TEST(field_of(R"({"resources":["vm0"]})") == "type");
  BOOST_TEST(field_of(R"({"type":"","resources":["vm0"]})") == "type");
  BOOST_TEST(field_of(R"({"type":"Freeze"})") == "resources");
  BOOST_TEST(field_of(R"({"type":"Freeze","resources":[]})") == "resources");
  BOOST_TEST(field_of(R"({"type":"Freeze","resources":"vm0"})") == "resources");
  BOOST_TEST(field_of(R"({"type":"Freeze","resources":["vm0"],"not_before_in_s":-1})") == "not_before_in_s");
  BOOST_TEST(field_of(R"({"type":"Freeze","resources":["vm0"],"not_before_in_s":"60"})") ==
             "not_before_in_s");
  BOOST_TEST(field_of(R"({"type":"Freeze","resources":["vm0"],"duration_s":-2})") == "duration_s");
  BOOST_TEST(field_of(R"({"type":"Freeze","resources":["vm0"],"started":"yes"})") == "started");
  BOOST_TEST(field_of(R"({"type":"Freeze","resources":["vm0"],"notbefore":1})") == "notbefore");
  BOOST_TEST(field_of(R"([1])") == "");
  const auto r =
      cla::parse_event_spec(R"({"type":"Freeze","resources":["vm0"],"durations":1})", kDefaultRegion);
  BOOST_TEST(r.error().message.find("expected type, resources, not_before_in_s") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(faults_parse_and_clear) {
  BOOST_TEST(cla::parse_fault(R"({"status":500})")->status.value() == 500);
  BOOST_TEST(cla::parse_fault(R"({"delay_ms":3000})")->delay.count() == 3000);
  BOOST_TEST(cla::parse_fault(R"({"malformed":true,"count":2})")->remaining.value() == 2);
  BOOST_TEST(!cla::parse_fault("{}")->active());
  BOOST_TEST(!cla::parse_fault("")->active());
  BOOST_TEST(cla::parse_fault(R"({"status":200})").error().field == "status");
  BOOST_TEST(cla::parse_fault(R"({"status":500,"count":0})").error().field == "count");
  BOOST_TEST(cla::parse_fault(R"({"count":3})").error().field == "count");
  BOOST_TEST(cla::parse_fault(R"({"delay":3})").error().field == "delay");
  BOOST_TEST(cla::parse_fault(R"({"body":"[]"})")->body.value() == "[]");
  BOOST_TEST(cla::parse_fault(R"({"body":""})")->active());
  BOOST_TEST(cla::parse_fault(R"({"body":1})").error().field == "body");
}

BOOST_FIXTURE_TEST_CASE(events_are_created_listed_and_cancelled, Fixture) {
  const auto created = call(http::verb::post, "/admin/events",
                            R"({"type":"Freeze","resources":["vm0"],"not_before_in_s":60})");
  BOOST_TEST(created.result_int() == 201u);
  const std::string id(json_of(created).at("EventId").as_string());
  const auto listed = json_of(call(http::verb::get, "/admin/events")).as_array();
  BOOST_TEST_REQUIRE(listed.size() == 1u);
  BOOST_TEST(listed[0].at("EventId").as_string() == id);
  BOOST_TEST(listed[0].at("region").as_string() == "");
  BOOST_TEST(listed[0].at("status").as_string() == "Scheduled");
  BOOST_TEST(listed[0].at("not_before").as_int64() == 1700000060);
  BOOST_TEST(listed[0].at("started_at").is_null());
  const auto later = json_of(call(http::verb::get, "/admin/events", {}, t0 + 61s)).as_array();
  BOOST_TEST(later[0].at("status").as_string() == "Started");
  BOOST_TEST(later[0].at("started_at").as_int64() == 1700000060);
  BOOST_TEST(later[0].at("removal_at").as_int64() == 1700000075);
  BOOST_TEST(later[0].at("created_at_ms").as_int64() == 1700000000000);
  BOOST_TEST(later[0].at("started_at_ms").as_int64() == 1700000060000);
  BOOST_TEST(later[0].at("removal_at_ms").as_int64() == 1700000075000);

  BOOST_TEST(call(http::verb::delete_, "/admin/events/" + id).result_int() == 204u);
  BOOST_TEST(call(http::verb::delete_, "/admin/events/" + id).result_int() == 404u);
  BOOST_TEST(json_of(call(http::verb::get, "/admin/events")).as_array().empty());
  const auto bad =
      call(http::verb::post, "/admin/events", R"({"type":"Freeze","resources":["vm0"],"duration_s":"5"})");
  BOOST_TEST(bad.result_int() == 400u);
  BOOST_TEST(json_of(bad).at("field").as_string() == "duration_s");
  BOOST_TEST(std::string(json_of(bad).at("error").as_string()).starts_with("duration_s: "));
}

BOOST_FIXTURE_TEST_CASE(faults_logs_and_vms, Fixture) {
  BOOST_TEST(json_of(call(http::verb::post, "/admin/faults", R"({"status":429})")).at("status").as_int64() ==
             429);
  BOOST_TEST(state.fault.status.value() == 429);
  BOOST_TEST(json_of(call(http::verb::get, "/admin/faults")).at("status").as_int64() == 429);
  BOOST_TEST(call(http::verb::post, "/admin/faults", "{}").result_int() == 200u);
  BOOST_TEST(!state.fault.active());
  BOOST_TEST(call(http::verb::post, "/admin/faults", R"({"status":"500"})").result_int() == 400u);

  state.record(cla::RequestRecord{t0 + 250ms, "vm1", "GET", "/metadata/scheduledevents",
                                  "api-version=2020-07-01", 200, true});
  state.record(cla::ApprovalRecord{t0, "vm0", "ABC", "east"});
  const auto requests = json_of(call(http::verb::get, "/admin/requests")).as_array();
  BOOST_TEST_REQUIRE(requests.size() == 1u);
  BOOST_TEST(requests[0].at("t").as_int64() == 1700000000);
  BOOST_TEST(requests[0].at("t_ms").as_int64() == 1700000000250);
  BOOST_TEST(requests[0].at("metadata_header").as_bool());
  BOOST_TEST(requests[0].at("status").as_int64() == 200);
  BOOST_TEST(requests[0].at("region").as_string() == "");
  const auto approvals = json_of(call(http::verb::get, "/admin/approvals")).as_array();
  BOOST_TEST(approvals.at(0).at("event_id").as_string() == "ABC");
  BOOST_TEST(approvals.at(0).at("region").as_string() == "east");
  BOOST_TEST(call(http::verb::delete_, "/admin/requests").result_int() == 204u);
  BOOST_TEST(state.requests.empty());

  const auto vms = json_of(call(http::verb::get, "/admin/vms")).as_array();
  BOOST_TEST(vms.at(1).at("vm").as_string() == "vm1");
  BOOST_TEST(vms.at(1).at("region").as_string() == "");
  BOOST_TEST(vms.at(1).at("fault_domain").as_int64() == 2);
  BOOST_TEST(vms.at(1).at("incarnation").as_int64() == 1);
  BOOST_TEST(call(http::verb::get, "/admin/nothing").result_int() == 404u);
  BOOST_TEST(call(http::verb::put, "/admin/events").result_int() == 405u);
}

BOOST_FIXTURE_TEST_CASE(events_go_to_the_region_named, Fixture) {
  state = cla::EmulatorState{{{"vm0", 0, {}, {}, "east"}, {"vm0", 0, {}, {}, "west"}}, 0ms, 3};
  const auto created =
      call(http::verb::post, "/admin/events", R"({"type":"Freeze","resources":["vm0"],"region":"west"})");
  BOOST_TEST_REQUIRE(created.result_int() == 201u);
  const auto listed = json_of(call(http::verb::get, "/admin/events")).as_array();
  BOOST_TEST(listed.at(0).at("region").as_string() == "west");
  BOOST_TEST(state.events.incarnation(0) == 1);
  BOOST_TEST(state.events.incarnation(1) == 2);
  const auto vms = json_of(call(http::verb::get, "/admin/vms")).as_array();
  BOOST_TEST(vms.at(1).at("region").as_string() == "west");
  BOOST_TEST(vms.at(1).at("incarnation").as_int64() == 2);

  const auto missing = call(http::verb::post, "/admin/events", R"({"type":"Freeze","resources":["vm0"]})");
  BOOST_TEST(missing.result_int() == 400u);
  BOOST_TEST(json_of(missing).at("field").as_string() == "region");
  BOOST_TEST(state.events.events().size() == 1u);
}

BOOST_FIXTURE_TEST_CASE(unknown_paths_with_invalid_utf8_get_a_valid_json_answer, Fixture) {
  // Found by the fuzzer: "%AD" decodes to a byte that is not UTF-8, quoted into the 404's JSON.
  for (const auto& [verb, target] : {std::pair{http::verb::post, "/%ADmin/faults"},
                                     std::pair{http::verb::delete_, "/admin/events/%FF%FE"}}) {
    const auto res = call(verb, target);
    BOOST_TEST(res.result() == http::status::not_found, target);
    boost::system::error_code ec;
    (void)boost::json::parse(res.body(), ec);
    BOOST_TEST(!ec, target << ": " << res.body());
  }
}

BOOST_AUTO_TEST_SUITE_END()
