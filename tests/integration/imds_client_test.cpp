// ImdsClient against the real imds-emulator on 127.0.0.1: headers, keep-alive, approvals, classified faults,
// timeouts, cancellation, queueing and body limits.
#include "imds/imds_client.hpp"

#include <boost/asio.hpp>
#include <boost/test/unit_test.hpp>

#include "imds_client_support.hpp"
#include "imds_emulator_process.hpp"
#include "wait_margin.hpp"

namespace {

using namespace cla::test::imds_client_tests;

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

struct Fixture {
  ImdsEmulatorProcess emulator{{{"vm0", 0}, {"vm1", 1}}};
  asio::io_context ioc;
  const cla::ImdsClientOptions options = options_for(emulator, "vm0");
  cla::ImdsClient client{ioc.get_executor(), options};

  cla::EventsDocument get() {
    auto r = await(ioc, client.get_scheduled_events());
    BOOST_TEST_REQUIRE(r.ok(), (r.ok() ? "" : cla::describe(r.error())));
    return std::move(*r);
  }
  cla::ImdsFailure get_failure() {
    auto r = await(ioc, client.get_scheduled_events());
    BOOST_TEST_REQUIRE(!r.ok());
    return r.error();
  }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(imds_client_test)

BOOST_FIXTURE_TEST_CASE(reads_events_and_compute_with_metadata_header_on_one_connection, Fixture) {
  const std::string id =
      emulator.add_event({{"type", "Reboot"}, {"resources", {"vm0"}}, {"not_before_in_s", 600}});
  const auto doc = get();
  BOOST_TEST(doc.incarnation == 2);
  BOOST_TEST_REQUIRE(doc.events.size() == 1u);
  BOOST_TEST(doc.events[0].id == id);
  BOOST_TEST((doc.events[0].status == cla::EventStatus::scheduled));
  BOOST_TEST(doc.events[0].not_before.has_value());
  const auto compute = await(ioc, client.get_compute());
  BOOST_TEST_REQUIRE(compute.ok());
  BOOST_TEST(compute->name == "vm0");
  BOOST_TEST(compute->platform_fault_domain == 0);
  BOOST_TEST(!await(ioc, client.approve(id)).has_value());

  const auto requests = emulator.requests();
  BOOST_TEST_REQUIRE(requests.size() == 3u);
  for (const auto& r : requests) {
    BOOST_TEST(r.at("metadata_header").as_bool());
    BOOST_TEST(r.at("status").as_int64() == 200);
    BOOST_TEST(r.at("connection") == requests[0].at("connection"));  // kept alive and reused
  }
  BOOST_TEST(requests[0].at("method").as_string() == "GET");
  BOOST_TEST(requests[0].at("path").as_string() == "/metadata/scheduledevents");
  BOOST_TEST(requests[0].at("query").as_string() == "api-version=2020-07-01");
  BOOST_TEST(requests[1].at("path").as_string() == "/metadata/instance/compute");
  BOOST_TEST(requests[1].at("query").as_string() == "api-version=2021-02-01");
  BOOST_TEST(requests[2].at("method").as_string() == "POST");
}

// The emulator's default --shared-approval any: one listed VM's approval starts the event for every VM.
BOOST_FIXTURE_TEST_CASE(approval_is_recorded_and_starts_a_shared_event_for_every_vm, Fixture) {
  const std::string id =
      emulator.add_event({{"type", "Freeze"}, {"resources", {"vm0", "vm1"}}, {"not_before_in_s", 600}});
  BOOST_TEST(!await(ioc, client.approve(lower(id))).has_value());
  const auto approvals = emulator.approvals();
  BOOST_TEST_REQUIRE(approvals.size() == 1u);
  BOOST_TEST(approvals[0].at("vm").as_string() == "vm0");
  BOOST_TEST(approvals[0].at("event_id").as_string() == id);

  cla::ImdsClient vm1(ioc.get_executor(), options_for(emulator, "vm1"));
  const auto seen_by_vm1 = await(ioc, vm1.get_scheduled_events());
  BOOST_TEST_REQUIRE(seen_by_vm1.ok());
  BOOST_TEST((seen_by_vm1->events.at(0).status == cla::EventStatus::started));
  BOOST_TEST(!seen_by_vm1->events.at(0).not_before.has_value());
  BOOST_TEST(seen_by_vm1->incarnation == 3);
}

BOOST_FIXTURE_TEST_CASE(approving_an_unknown_event_is_a_400_not_retried, Fixture) {
  const auto failure = await(ioc, client.approve("F020BA2E-3BC0-4C40-A10B-86575A9EABD5"));
  BOOST_TEST_REQUIRE(failure.has_value());
  BOOST_TEST((failure->kind == Kind::http_status));
  BOOST_TEST(failure->http_status == 400);
  BOOST_TEST(!failure->retryable());
  BOOST_TEST(failure->detail.find("was not found") != std::string::npos, failure->detail);
}

// The client keeps the last document and its body: the same bytes again give the same document without a
// parse, and any change is read anew.
BOOST_FIXTURE_TEST_CASE(an_unchanged_body_gives_the_same_document_and_a_changed_one_is_read_anew, Fixture) {
  const auto first = get();
  const auto again = get();
  BOOST_TEST(again.incarnation == first.incarnation);
  BOOST_TEST(again.events.empty());
  const std::string id =
      emulator.add_event({{"type", "Reboot"}, {"resources", {"vm0"}}, {"not_before_in_s", 600}});
  const auto changed = get();
  BOOST_TEST(changed.incarnation == first.incarnation + 1);
  BOOST_TEST_REQUIRE(changed.events.size() == 1u);
  BOOST_TEST(changed.events[0].id == id);
  const auto same = get();
  BOOST_TEST(same.incarnation == changed.incarnation);
  BOOST_TEST_REQUIRE(same.events.size() == 1u);
  BOOST_TEST(same.events[0].id == id);
  BOOST_TEST((same.events[0].not_before == changed.events[0].not_before));
  emulator.set_fault({{"malformed", true}});
  BOOST_TEST((get_failure().kind == Kind::invalid_json));
}

BOOST_FIXTURE_TEST_CASE(faults_are_classified_and_the_connection_renewed, Fixture) {
  get();
  struct Case {
    boost::json::object fault;
    Kind kind;
    int status;
    bool retryable;
    const char* detail;
  };
  const Case cases[] = {
      {{{"status", 500}}, Kind::server_error, 500, true, "Internal Server Error"},
      {{{"status", 503}}, Kind::server_error, 503, true, "503"},
      {{{"status", 429}}, Kind::throttled, 429, true, "Too Many Requests"},
      {{{"status", 404}}, Kind::http_status, 404, false, "404"},
      {{{"status", 302}},
       Kind::redirect,
       302,
       true,
       "not following Location \"/metadata/redirected-by-fault\""},
      {{{"malformed", true}}, Kind::invalid_json, 0, true, "invalid JSON"},
      {{{"body", R"({"DocumentIncarnation":"x","Events":[]})"}},
       Kind::wrong_shape,
       0,
       true,
       "DocumentIncarnation"},
      {{{"body", R"({"DocumentIncarnation":1,"Events":[{"EventId":"A"}]})"}},
       Kind::wrong_shape,
       0,
       true,
       "Events[0].Resources: missing"},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(boost::json::serialize(c.fault)) {
      emulator.set_fault(c.fault);
      const auto failure = get_failure();
      BOOST_TEST((failure.kind == c.kind), cla::describe(failure));
      BOOST_TEST(failure.http_status == c.status);
      BOOST_TEST(failure.retryable() == c.retryable);
      BOOST_TEST(failure.detail.find(c.detail) != std::string::npos, failure.detail);
    }
  }
  emulator.set_fault({});
  get();
  // Every failure closed the connection: each request after a failed one arrived on a new connection.
  const auto requests = emulator.requests();
  BOOST_TEST_REQUIRE(requests.size() == std::size(cases) + 2);
  BOOST_TEST(requests[1].at("connection") == requests[0].at("connection"));
  for (std::size_t i = 2; i < requests.size(); ++i)
    BOOST_TEST(requests[i].at("connection") != requests[i - 1].at("connection"));
}

BOOST_FIXTURE_TEST_CASE(a_delay_beyond_the_timeout_is_a_timeout, Fixture) {
  constexpr auto timeout = 300ms;
  constexpr auto delay = 10 * timeout;
  cla::ImdsClient quick(ioc.get_executor(), options_for(emulator, "vm0", timeout));
  BOOST_TEST(await(ioc, quick.get_scheduled_events()).ok());
  emulator.set_fault({{"delay_ms", delay.count()}, {"count", 1}});
  const auto start = std::chrono::steady_clock::now();
  const auto r = await(ioc, quick.get_scheduled_events());
  const auto elapsed = std::chrono::steady_clock::now() - start;
  BOOST_TEST_REQUIRE(!r.ok());
  BOOST_TEST((r.error().kind == Kind::timeout), cla::describe(r.error()));
  BOOST_TEST(r.error().retryable());
  BOOST_TEST(r.error().detail.find("300 ms") != std::string::npos);
  // Not before the timeout, and ended by it: the delayed answer would have ended the call only after `delay`.
  BOOST_TEST((elapsed >= timeout && elapsed < delay));
  BOOST_TEST(
      await(ioc, quick.get_scheduled_events()).ok());  // count was 1: answered again, on a new connection
}

// DeadlineWatch::caller (the agent's poll, watched by its ticks): no timer ends the call; the owner's check
// does, once the deadline has come, and the call ends as a timeout.
BOOST_FIXTURE_TEST_CASE(a_deadline_watched_by_the_caller_ends_the_call_when_the_caller_checks, Fixture) {
  constexpr auto timeout = 300ms;
  constexpr auto delay = 10 * timeout;
  auto watched_options = options_for(emulator, "vm0", timeout);
  watched_options.deadline_watch = cla::DeadlineWatch::caller;
  cla::ImdsClient watched(ioc.get_executor(), watched_options);
  BOOST_TEST(await(ioc, watched.get_scheduled_events()).ok());
  emulator.set_fault({{"delay_ms", delay.count()}, {"count", 1}});
  std::optional<cla::Result<cla::EventsDocument, cla::ImdsFailure>> r;
  asio::co_spawn(
      ioc, [&]() -> asio::awaitable<void> { r.emplace(co_await watched.get_scheduled_events()); },
      asio::detached);
  const auto start = std::chrono::steady_clock::now();
  ioc.restart();
  ioc.run_for(2 * timeout);  // past the deadline, unchecked: still waiting for the delayed answer
  BOOST_TEST_REQUIRE(!r.has_value());
  watched.expire_overdue(start);  // before the deadline: not yet
  ioc.poll();
  BOOST_TEST_REQUIRE(!r.has_value());
  watched.expire_overdue(std::chrono::steady_clock::now());
  ioc.restart();
  while (!r && ioc.run_one_until(start + delay) > 0) {
  }
  BOOST_TEST_REQUIRE(r.has_value(), "the call outlived the delayed answer");
  BOOST_TEST_REQUIRE(!r->ok());
  BOOST_TEST((r->error().kind == Kind::timeout), cla::describe(r->error()));
  BOOST_TEST(await(ioc, watched.get_scheduled_events()).ok());  // answered again, on a new connection
}

// AnswerWatch::caller (the agent's poll, read at its run loop's wake-ups): no Asio operation reads the
// answer; woke() does, right inside the call. cancel() ends a call that waits for it.
BOOST_FIXTURE_TEST_CASE(an_answer_watched_by_the_caller_is_read_by_woke, Fixture) {
  auto options = options_for(emulator, "vm0");
  options.answer_watch = cla::AnswerWatch::caller;
  cla::ImdsClient watched(ioc.get_executor(), options);
  std::optional<cla::Result<cla::EventsDocument, cla::ImdsFailure>> r;
  const auto start = [&] {
    r.reset();
    asio::co_spawn(
        ioc, [&]() -> asio::awaitable<void> { r.emplace(co_await watched.get_scheduled_events()); },
        asio::detached);
  };
  // woke() until the answer is read, running the loop between tries as the agent does; a generous ceiling.
  const auto read_by_woke = [&] {
    const auto limit = std::chrono::steady_clock::now() + 5s;
    ioc.restart();
    while (!r && std::chrono::steady_clock::now() < limit) {
      watched.woke();
      if (!r) ioc.run_one_for(100ms);
    }
  };
  start();
  ioc.run_for(300ms);  // connected, sent; whatever has arrived stays unread
  BOOST_TEST_REQUIRE(!r.has_value());
  read_by_woke();
  BOOST_TEST_REQUIRE(r.has_value());
  BOOST_TEST(r->ok());
  for (int i = 0; i < 3; ++i) {  // again on the kept-alive connection
    start();
    read_by_woke();
    BOOST_TEST_REQUIRE(r.has_value());
    BOOST_TEST(r->ok());
  }
  start();
  ioc.restart();
  ioc.poll();  // sent; waits for woke()
  BOOST_TEST_REQUIRE(!r.has_value());
  watched.cancel();
  while (!r && ioc.run_one_for(1s) > 0) {
  }
  BOOST_TEST_REQUIRE(r.has_value());
  BOOST_TEST_REQUIRE(!r->ok());
  BOOST_TEST((r->error().kind == Kind::cancelled), cla::describe(r->error()));
}

BOOST_FIXTURE_TEST_CASE(cancel_aborts_the_call_in_flight_and_those_queued, Fixture) {
  get();
  constexpr auto cancel_after = 200ms;
  constexpr auto delay = 25 * cancel_after;
  emulator.set_fault({{"delay_ms", delay.count()}});
  std::optional<cla::Result<cla::EventsDocument, cla::ImdsFailure>> polled;
  std::optional<std::optional<cla::ImdsFailure>> approved;
  asio::co_spawn(
      ioc, [&]() -> asio::awaitable<void> { polled.emplace(co_await client.get_scheduled_events()); },
      asio::detached);
  asio::co_spawn(
      ioc, [&]() -> asio::awaitable<void> { approved.emplace(co_await client.approve("X")); },
      asio::detached);
  const auto start = std::chrono::steady_clock::now();
  asio::steady_timer later(ioc, cancel_after);
  later.async_wait([&](boost::system::error_code) { client.cancel(); });
  ioc.restart();
  while (!(polled && approved) && ioc.run_one_until(start + delay) > 0) {
  }
  // Ended by the cancel: the client's timeout (shorter than the delay) would have ended it later.
  BOOST_TEST((std::chrono::steady_clock::now() - start < options.request_timeout));
  BOOST_TEST_REQUIRE((polled && approved));
  BOOST_TEST_REQUIRE(!polled->ok());
  BOOST_TEST((polled->error().kind == Kind::cancelled));
  BOOST_TEST(!polled->error().retryable());
  BOOST_TEST_REQUIRE(approved->has_value());
  BOOST_TEST(((*approved)->kind == Kind::cancelled));
  emulator.set_fault({});
  get();  // later calls run normally
}

BOOST_FIXTURE_TEST_CASE(overlapping_calls_queue_on_the_one_connection, Fixture) {
  get();
  emulator.clear_requests();
  int finished = 0;
  for (int i = 0; i < 3; ++i)
    asio::co_spawn(
        ioc,
        [&]() -> asio::awaitable<void> {
          BOOST_TEST((co_await client.get_scheduled_events()).ok());
          ++finished;
        },
        asio::detached);
  // Each call ends by its timeout at the latest, one after the other.
  const auto deadline = std::chrono::steady_clock::now() + 3 * options.request_timeout + cla::test::kMargin;
  ioc.restart();
  while (finished < 3 && ioc.run_one_until(deadline) > 0) {
  }
  BOOST_TEST(finished == 3);
  const auto requests = emulator.requests();
  BOOST_TEST_REQUIRE(requests.size() == 3u);
  for (const auto& r : requests) BOOST_TEST(r.at("connection") == requests[0].at("connection"));
}

BOOST_FIXTURE_TEST_CASE(an_oversized_body_is_refused, Fixture) {
  auto small_options = options_for(emulator, "vm0");
  small_options.body_limit = 256;
  cla::ImdsClient small(ioc.get_executor(), small_options);
  emulator.add_event(
      {{"type", "Freeze"}, {"resources", {"vm0", "vm1"}}, {"description", std::string(400, 'x')}});
  const auto r = await(ioc, small.get_scheduled_events());
  BOOST_TEST_REQUIRE(!r.ok());
  BOOST_TEST((r.error().kind == Kind::body_too_large), cla::describe(r.error()));
}

BOOST_AUTO_TEST_CASE(an_invalid_endpoint_fails_every_call_without_throwing) {
  asio::io_context ioc;
  cla::ImdsClientOptions options;
  options.endpoint = "https://127.0.0.1:1";
  cla::ImdsClient client(ioc.get_executor(), options);
  const auto r = await(ioc, client.get_scheduled_events());
  BOOST_TEST_REQUIRE(!r.ok());
  BOOST_TEST((r.error().kind == Kind::connect));
  BOOST_TEST(r.error().detail.find("scheme must be http") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
