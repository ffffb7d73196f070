// ImdsClient's connection life against the real imds-emulator: the slow first call, a restarted emulator,
// a kept-alive connection the server dropped.
#include <boost/asio.hpp>
#include <boost/test/unit_test.hpp>
#include <set>

#include "imds/imds_client.hpp"
#include "imds_client_support.hpp"
#include "imds_emulator_process.hpp"

namespace {

using namespace cla::test::imds_client_tests;

}  // namespace

BOOST_AUTO_TEST_SUITE(imds_client_connection_test)

BOOST_AUTO_TEST_CASE(the_first_call_gets_the_long_timeout_until_one_succeeds) {
  constexpr auto first_call_delay = 1200ms;  // held from the request's arrival
  constexpr auto timeout = first_call_delay / 4;
  ImdsEmulatorProcess emulator({{"vm0", 0}, {"vm1", 1}},
                               {"--first-call-delay-ms", std::to_string(first_call_delay.count())});
  asio::io_context ioc;
  auto patient_options = options_for(emulator, "vm0", timeout);
  patient_options.first_request_timeout = 4 * first_call_delay;
  cla::ImdsClient patient(ioc.get_executor(), patient_options);
  const auto start = std::chrono::steady_clock::now();
  BOOST_TEST(await(ioc, patient.get_scheduled_events()).ok());
  BOOST_TEST((std::chrono::steady_clock::now() - start >= first_call_delay));
  BOOST_TEST(await(ioc, patient.get_scheduled_events()).ok());

  cla::ImdsClient hasty(ioc.get_executor(), options_for(emulator, "vm1", timeout));
  const auto first = await(ioc, hasty.get_scheduled_events());
  BOOST_TEST_REQUIRE(!first.ok());
  BOOST_TEST((first.error().kind == Kind::timeout));
  BOOST_TEST(await(ioc, hasty.get_scheduled_events()).ok());  // only the first GET per VM is slow
}

// The connection's one deadline timer, armed for the long first call, must not stand for the short ones
// after.
BOOST_AUTO_TEST_CASE(after_the_long_first_call_the_short_timeout_applies_again) {
  ImdsEmulatorProcess emulator({{"vm0", 0}});
  asio::io_context ioc;
  auto options = options_for(emulator, "vm0", 300ms);
  options.first_request_timeout = 10s;
  cla::ImdsClient client(ioc.get_executor(), options);
  BOOST_TEST_REQUIRE(await(ioc, client.get_scheduled_events()).ok());
  emulator.set_fault({{"delay_ms", 3000}});  // answered within the first call's timeout, not the next ones'
  const auto slow = await(ioc, client.get_scheduled_events());
  BOOST_TEST_REQUIRE(!slow.ok());
  BOOST_TEST((slow.error().kind == Kind::timeout), cla::describe(slow.error()));
}

BOOST_AUTO_TEST_CASE(reconnects_after_the_emulator_restarts) {
  asio::io_context ioc;
  auto emulator = std::make_unique<ImdsEmulatorProcess>(std::vector<cla::test::EmulatorVm>{{"vm0", 0}});
  const std::uint16_t port = emulator->vm_port("vm0");
  cla::ImdsClient client(ioc.get_executor(), options_for(*emulator, "vm0"));
  BOOST_TEST(await(ioc, client.get_scheduled_events()).ok());
  BOOST_TEST(emulator->stop() == 0);

  const auto down = await(ioc, client.get_scheduled_events());
  BOOST_TEST_REQUIRE(!down.ok());
  BOOST_TEST((down.error().kind == Kind::connect), cla::describe(down.error()));
  BOOST_TEST(down.error().retryable());

  emulator = std::make_unique<ImdsEmulatorProcess>(std::vector<cla::test::EmulatorVm>{{"vm0", 0, port}});
  const std::string id = emulator->add_event({{"type", "Reboot"}, {"resources", {"vm0"}}});
  const auto back = await(ioc, client.get_scheduled_events());
  BOOST_TEST_REQUIRE(back.ok(), (back.ok() ? "" : cla::describe(back.error())));
  BOOST_TEST(back->events.at(0).id == id);
}

BOOST_AUTO_TEST_CASE(a_kept_alive_connection_the_server_dropped_is_retried_once) {
  asio::io_context ioc;
  auto emulator = std::make_unique<ImdsEmulatorProcess>(std::vector<cla::test::EmulatorVm>{{"vm0", 0}});
  const std::uint16_t port = emulator->vm_port("vm0");
  cla::ImdsClient client(ioc.get_executor(), options_for(*emulator, "vm0"));
  BOOST_TEST(await(ioc, client.get_scheduled_events()).ok());
  emulator->stop();
  emulator = std::make_unique<ImdsEmulatorProcess>(std::vector<cla::test::EmulatorVm>{{"vm0", 0, port}});
  const auto r = await(ioc, client.get_scheduled_events());  // the old connection is dead; a new one works
  BOOST_TEST(r.ok(), (r.ok() ? "" : cla::describe(r.error())));
}

BOOST_AUTO_TEST_CASE(a_server_that_closes_after_each_answer_gets_a_new_connection_per_call) {
  asio::io_context ioc;
  ImdsEmulatorProcess emulator({{"vm0", 0}}, {"--close-after-answer"});
  cla::ImdsClient client(ioc.get_executor(), options_for(emulator, "vm0"));
  const std::string id = emulator.add_event({{"type", "Freeze"}, {"resources", {"vm0"}}});
  constexpr int kCalls = 4;
  for (int i = 0; i < kCalls; ++i) {
    const auto r = await(ioc, client.get_scheduled_events());
    BOOST_TEST_REQUIRE(r.ok(), (r.ok() ? "" : cla::describe(r.error())));
    BOOST_TEST(r->events.at(0).id == id);
  }
  BOOST_TEST(!await(ioc, client.approve(id)).has_value());
  std::set<std::int64_t> connections;
  for (const auto& request : emulator.requests()) connections.insert(request.at("connection").as_int64());
  BOOST_TEST(connections.size() == kCalls + 1u);  // each answer ended its connection; none was retried
}

BOOST_AUTO_TEST_SUITE_END()
