// The real imds-emulator process: CLI and exit codes, the documented IMDS answers over the wire, and events
// moving in real time (short notices keep this to a few seconds).
#include <boost/beast/http/verb.hpp>
#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>
#include <thread>

#include "agent_scenario.hpp"
#include "imds_emulator_process.hpp"

namespace {

using namespace cla::test::emulator_tests;

const std::string kEvents = "/metadata/scheduledevents?api-version=2020-07-01";
const cla::test::Headers kMetadata = {{"Metadata", "true"}};

boost::json::object document(const ImdsEmulatorProcess& emulator, const std::string& vm) {
  const auto reply = http_call(emulator.vm_port(vm), http::verb::get, kEvents, {}, kMetadata);
  BOOST_TEST_REQUIRE(reply.status == 200u);
  return reply.json().as_object();
}

// Polls vm's document until `done` holds or `limit` passes; returns the last document.
template <class Pred>
boost::json::object poll_until(const ImdsEmulatorProcess& emulator, const std::string& vm, Pred done,
                               std::chrono::milliseconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  auto doc = document(emulator, vm);
  while (!done(doc) && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(50ms);
    doc = document(emulator, vm);
  }
  return doc;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(imds_emulator_test)

BOOST_AUTO_TEST_CASE(help_teaches_the_options_and_the_admin_api) {
  const auto run = cla::test::run_emulator_to_exit({"--help"});
  BOOST_TEST(run.exit_code == 0);
  for (const char* text :
       {"--vm NAME,FAULT_DOMAIN,HOST:PORT", "--admin", "--first-call-delay-ms", "--allow-remote",
        "POST   /admin/events", "DELETE /admin/events/ID", "/admin/faults", "/admin/requests",
        "/admin/approvals", "curl -s -H Metadata:true", "not_before_in_s", "complete_after_s"})
    BOOST_TEST(run.out.find(text) != std::string::npos, text);
}

BOOST_AUTO_TEST_CASE(usage_errors_exit_2_with_a_clear_message) {
  const auto remote = cla::test::run_emulator_to_exit({"--vm", "vm0,0,0.0.0.0:0"});
  BOOST_TEST(remote.exit_code == 2);
  BOOST_TEST(remote.err.find("refusing to listen on a non-loopback address") != std::string::npos,
             remote.err);
  const auto admin = cla::test::run_emulator_to_exit({"--vm", "vm0,0,127.0.0.1:0", "--admin", "0.0.0.0:0"});
  BOOST_TEST(admin.exit_code == 2);
  BOOST_TEST(admin.err.find("--admin") != std::string::npos, admin.err);
  BOOST_TEST(cla::test::run_emulator_to_exit({}).exit_code == 2);
  BOOST_TEST(cla::test::run_emulator_to_exit({"--vm", "vm0,0,127.0.0.1:0", "--nope"}).exit_code == 2);
  BOOST_TEST(
      cla::test::run_emulator_to_exit({"--vm", "vm0,0,127.0.0.1:0", "--vm", "VM0,1,127.0.0.1:0"}).exit_code ==
      2);
}

BOOST_AUTO_TEST_CASE(a_port_in_use_exits_1) {
  ImdsEmulatorProcess first({{"vm0", 0}});
  const auto second =
      cla::test::run_emulator_to_exit({"--vm", "vm0,0,127.0.0.1:" + std::to_string(first.vm_port("vm0"))});
  BOOST_TEST(second.exit_code == 1);
  BOOST_TEST(second.err.find("cannot listen on 127.0.0.1:") != std::string::npos, second.err);
}

BOOST_AUTO_TEST_CASE(sigterm_stops_it_with_exit_0_even_with_a_request_held) {
  ImdsEmulatorProcess emulator({{"vm0", 0}}, {"--first-call-delay-ms", "60000"});
  const auto get = [&] {
    return http_call(emulator.vm_port("vm0"), http::verb::get, kEvents, {}, kMetadata, kMargin);
  };
  std::thread held([&] {
    try {
      get();
    } catch (const std::exception&) {  // the connection dies with the emulator: expected
    }
  });
  // Only vm0's first GET is held: once a GET is answered, an earlier one is held (the thread's, or a probe's
  // that timed out, which the emulator holds all the same).
  const bool holding = cla::test::wait_until(
      [&] {
        try {
          return get().status == 200u;
        } catch (const std::exception&) {
          return false;
        }
      },
      2 * kMargin);
  BOOST_TEST_REQUIRE(holding);
  BOOST_TEST(emulator.stop() == 0);
  held.join();
}

BOOST_AUTO_TEST_CASE(documented_bad_requests_over_the_wire) {
  ImdsEmulatorProcess emulator({{"vm0", 0}});
  const auto port = emulator.vm_port("vm0");

  const auto no_header = http_call(port, http::verb::get, kEvents);
  BOOST_TEST(no_header.status == 400u);
  BOOST_TEST(no_header.content_type == "application/json; charset=utf-8");
  BOOST_TEST(no_header.body == R"({"error":"Bad request. Required metadata header not specified"})");

  const auto no_version = http_call(port, http::verb::get, "/metadata/scheduledevents", {}, kMetadata);
  BOOST_TEST(no_version.status == 400u);
  BOOST_TEST(no_version.json().at("newest-versions").as_array().size() == 3u);

  auto forwarded = kMetadata;
  forwarded.emplace_back("X-Forwarded-For", "10.1.2.3");
  BOOST_TEST(http_call(port, http::verb::get, kEvents, {}, forwarded).status == 400u);
  BOOST_TEST(http_call(port, http::verb::post, kEvents, "{\"StartRequests\":", kMetadata).status == 400u);
  BOOST_TEST(
      http_call(port, http::verb::post, kEvents, R"({"StartRequests":[{"EventId":"nope"}]})", kMetadata)
          .status == 400u);
  const auto iis = http_call(port, http::verb::get, "/doesnotexist");
  BOOST_TEST(iis.status == 404u);
  BOOST_TEST(iis.content_type == "text/html");

  const auto logged = emulator.requests();
  BOOST_TEST_REQUIRE(logged.size() == 6u);
  BOOST_TEST(!logged[0].at("metadata_header").as_bool());
  BOOST_TEST(logged[1].at("metadata_header").as_bool());
  BOOST_TEST(logged[0].at("status").as_int64() == 400);
  BOOST_TEST(logged[0].at("vm").as_string() == "vm0");

  const auto bad_admin = emulator.admin(http::verb::post, "/admin/events",
                                        R"({"type":"Freeze","resources":["vm0"],"started":1})");
  BOOST_TEST(bad_admin.status == 400u);
  BOOST_TEST(bad_admin.json().at("field").as_string() == "started");
  const auto huge = emulator.admin(http::verb::post, "/admin/events", std::string(70 * 1024, ' '));
  BOOST_TEST(huge.status == 413u);
}

BOOST_AUTO_TEST_CASE(events_move_in_real_time_and_every_vm_counts_each_change) {
  ImdsEmulatorProcess emulator({{"vm0", 0}, {"vm1", 1}});
  BOOST_TEST(document(emulator, "vm0").at("DocumentIncarnation").as_int64() == 1);
  constexpr std::int64_t complete_after_s = 1;
  const std::string id = emulator.add_event({{"type", "Freeze"},
                                             {"resources", {"vm0", "vm1"}},
                                             {"not_before_in_s", 1},
                                             {"duration_s", 0},
                                             {"complete_after_s", complete_after_s}});
  const cla::WallTime not_before(
      std::chrono::milliseconds(emulator.events().at(0).at("not_before_ms").to_number<std::int64_t>()));
  const auto scheduled = document(emulator, "vm1");
  BOOST_TEST(scheduled.at("DocumentIncarnation").as_int64() == 2);
  BOOST_TEST(scheduled.at("Events").as_array().at(0).at("EventStatus").as_string() == "Scheduled");
  BOOST_TEST(scheduled.at("Events").as_array().at(0).at("EventId").as_string() == id);

  auto started = poll_until(
      emulator, "vm0",
      [](const boost::json::object& d) {
        return !d.at("Events").as_array().empty() &&
               d.at("Events").as_array().at(0).at("EventStatus").as_string() == "Started";
      },
      cla::test::until(not_before));
  BOOST_TEST_REQUIRE(started.at("Events").as_array().size() == 1u);
  BOOST_TEST(started.at("Events").as_array().at(0).at("EventStatus").as_string() == "Started");
  BOOST_TEST(started.at("Events").as_array().at(0).at("NotBefore").as_string() == "");
  BOOST_TEST(started.at("DocumentIncarnation").as_int64() == 3);

  const auto gone = poll_until(
      emulator, "vm1", [](const boost::json::object& d) { return d.at("Events").as_array().empty(); },
      cla::test::until(not_before + std::chrono::seconds(complete_after_s)));
  BOOST_TEST(gone.at("Events").as_array().empty());
  BOOST_TEST(gone.at("DocumentIncarnation").as_int64() == 4);
  BOOST_TEST(document(emulator, "vm0").at("DocumentIncarnation").as_int64() == 4);
}

BOOST_AUTO_TEST_CASE(cancelled_and_hardware_failure_events) {
  ImdsEmulatorProcess emulator({{"vm0", 0}});
  const std::string id = emulator.add_event({{"type", "Reboot"}, {"resources", {"vm0"}}});
  BOOST_TEST(emulator.events().size() == 1u);
  emulator.cancel_event(id);
  BOOST_TEST(emulator.events().empty());
  BOOST_TEST(document(emulator, "vm0").at("DocumentIncarnation").as_int64() == 3);
  BOOST_TEST(emulator.admin(http::verb::delete_, "/admin/events/" + id).status == 404u);

  emulator.add_event(
      {{"type", "Reboot"}, {"resources", {"vm0"}}, {"started", true}, {"complete_after_s", 60}});
  const auto doc = document(emulator, "vm0");
  BOOST_TEST(doc.at("Events").as_array().at(0).at("EventStatus").as_string() == "Started");
  BOOST_TEST(doc.at("Events").as_array().at(0).at("NotBefore").as_string() == "");
}

BOOST_AUTO_TEST_CASE(shared_approval_all_waits_for_every_listed_vm) {
  ImdsEmulatorProcess emulator({{"vm0", 0}, {"vm1", 1}, {"vm2", 2}}, {"--shared-approval", "all"});
  const std::string id =
      emulator.add_event({{"type", "Freeze"}, {"resources", {"vm0", "vm1"}}, {"not_before_in_s", 600}});
  auto approve = [&](const std::string& vm) {
    const auto r = cla::test::http_call(
        emulator.vm_port(vm), http::verb::post, "/metadata/scheduledevents?api-version=2020-07-01",
        R"({"StartRequests":[{"EventId":")" + id + R"("}]})", {{"Metadata", "true"}});
    BOOST_TEST(r.status == 200u);
  };
  auto status = [&] { return std::string(emulator.events().at(0).at("status").as_string()); };
  approve("vm0");
  approve("vm2");  // not listed: counts for nothing
  BOOST_TEST(status() == "Scheduled");
  approve("vm1");
  BOOST_TEST(status() == "Started");
}

BOOST_AUTO_TEST_CASE(shared_approval_any_starts_at_the_first_listed_approval_and_bad_values_are_refused) {
  ImdsEmulatorProcess emulator({{"vm0", 0}, {"vm1", 1}, {"vm2", 2}}, {"--shared-approval", "any"});
  const std::string id =
      emulator.add_event({{"type", "Freeze"}, {"resources", {"vm0", "vm1"}}, {"not_before_in_s", 600}});
  auto approve = [&](const std::string& vm) {
    cla::test::http_call(emulator.vm_port(vm), http::verb::post,
                         "/metadata/scheduledevents?api-version=2020-07-01",
                         R"({"StartRequests":[{"EventId":")" + id + R"("}]})", {{"Metadata", "true"}});
  };
  approve("vm2");  // not listed: counts for nothing
  BOOST_TEST(emulator.events().at(0).at("status").as_string() == "Scheduled");
  approve("vm1");
  BOOST_TEST(emulator.events().at(0).at("status").as_string() == "Started");

  const auto bad =
      cla::test::run_emulator_to_exit({"--vm", "vm0,0,127.0.0.1:0", "--shared-approval", "some"});
  BOOST_TEST(bad.exit_code == 2);
  BOOST_TEST(bad.err.find("--shared-approval must be any or all") != std::string::npos, bad.err);
}

BOOST_AUTO_TEST_SUITE_END()
