// The served Scheduled Events document: the cached body equals the document serialized afresh, after every
// kind of change of the events.
#include "imds/emulator/emulator_document.hpp"

#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

namespace {

using namespace std::chrono_literals;

const cla::WallTime t0 = cla::WallTime{} + std::chrono::seconds(1700000000);

struct Fixture {
  cla::EventModel model{{{"vm0"}, {"vm1"}, {"vm2"}}, 42, cla::SharedApproval::all};
  cla::EventsDocumentCache cache;

  // The cached body of every VM must be what serializing the document afresh gives.
  void check_every_vm() {
    for (std::size_t vm = 0; vm < model.vms().size(); ++vm)
      BOOST_TEST(cache.body(model, model.vms()[vm].region, model.incarnation(vm)) ==
                 boost::json::serialize(cla::scheduled_events_document(model, vm)));
  }
};

struct Regions : Fixture {
  Regions() { model = cla::EventModel{{{"vm0", "east"}, {"vm0", "west"}, {"vm1", "west"}}, 42}; }
  std::size_t events_of(std::size_t vm) {
    return cla::scheduled_events_document(model, vm).at("Events").as_array().size();
  }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(emulator_document_test)

BOOST_FIXTURE_TEST_CASE(the_cached_body_follows_every_change, Fixture) {
  check_every_vm();  // no event
  const std::string body_before = cache.body(model, "", 7);
  const std::string id = model.add(cla::default_event_spec("Freeze", {"vm0", "vm1", "other-tenant"}), t0);
  BOOST_TEST(cache.body(model, "", 7) != body_before);
  check_every_vm();
  model.add(cla::default_event_spec("Reboot", {"vm2"}), t0);
  check_every_vm();
  model.approve(0, id, t0 + 1s);  // one of two emulated VMs listed: still Scheduled
  check_every_vm();
  model.approve(1, id, t0 + 2s);  // the other tenant never approves: Scheduled until NotBefore
  check_every_vm();
  model.advance(t0 + 900s);  // both Started
  check_every_vm();
  BOOST_TEST(cache.body(model, "", 1).find("\"NotBefore\":\"\"") != std::string::npos);
  model.advance(t0 + 2000s);  // both removed
  check_every_vm();
  BOOST_TEST(cache.body(model, "", 1) == R"({"DocumentIncarnation":1,"Events":[]})");
}

BOOST_FIXTURE_TEST_CASE(cancel_changes_the_body, Fixture) {
  const std::string id = model.add(cla::default_event_spec("Freeze", {"vm0"}), t0);
  check_every_vm();
  BOOST_TEST(model.cancel(id));
  check_every_vm();
}

BOOST_FIXTURE_TEST_CASE(each_region_serves_its_own_events, Regions) {
  cla::EventSpec east = cla::default_event_spec("Freeze", {"vm0"});
  east.region = "east";
  const std::string id = model.add(east, t0);
  check_every_vm();
  BOOST_TEST(events_of(0) == 1u);
  BOOST_TEST(events_of(1) == 0u);  // west's vm0 is another VM
  cla::EventSpec west = cla::default_event_spec("Reboot", {"vm0", "vm1"});
  west.region = "west";
  model.add(west, t0);
  check_every_vm();
  BOOST_TEST(events_of(2) == 1u);
  BOOST_TEST(cache.body(model, "east", 5).find(id) != std::string::npos);
  BOOST_TEST(cache.body(model, "west", 5).find(id) == std::string::npos);
  BOOST_TEST(model.cancel(id));
  check_every_vm();
  BOOST_TEST(cache.body(model, "east", 5) == R"({"DocumentIncarnation":5,"Events":[]})");
}

BOOST_AUTO_TEST_SUITE_END()
