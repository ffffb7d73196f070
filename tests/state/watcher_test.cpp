// The watcher's pure decisions: which role an agent tries for, and the leader's agentless drain records on a
// made-up clock (when they are written, listed and logged once, and when they go).
#include "state/watcher.hpp"

#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

namespace {

using namespace std::chrono_literals;
using cla::RoleHolder;
using cla::WatcherRole;

const cla::WallTime kT0 = cla::WallTime{} + 1'700'000'000s;

std::string name(const std::optional<WatcherRole>& r) {
  return r ? std::string(cla::to_string(*r)) : "nothing";
}

cla::ScheduledEvent event(std::string id, std::vector<std::string> vms, cla::EventStatus status,
                          std::optional<cla::WallTime> not_before) {
  cla::ScheduledEvent e;
  e.id = std::move(id);
  e.type = "Freeze";
  e.resources = std::move(vms);
  e.status = status;
  e.not_before = not_before;
  e.not_before_text = not_before ? "Mon, 01 Jan 2024 00:00:20 GMT" : "";
  return e;
}

cla::WatcherInput base() {
  cla::WatcherInput in;
  in.self = "vm0";
  cla::MemberRecord m0;
  m0.vm = "vm0";
  in.members = {m0};
  in.known = {{"vm0", 0, "dc1", "rack1", "127.0.1.1", "h0"}, {"vm2", 2, "dc1", "rack3", "127.0.1.3", "h2"}};
  in.drain_lead = 10s;
  in.now = kT0;
  return in;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(watcher_test)

BOOST_AUTO_TEST_CASE(roles_leader_first_then_secondary_in_another_rack) {
  const RoleHolder a{"vm0", 0, "rack1"}, b{"vm1", 1, "rack2"};
  struct Row {
    const char* what;
    RoleHolder self;
    std::optional<RoleHolder> leader, secondary;
    WatcherRole current;
    std::optional<WatcherRole> try_for;
  };
  const std::vector<Row> rows = {
      {"nobody holds either: everyone tries to lead",
       {"vm1", 1, "rack2"},
       {},
       {},
       WatcherRole::none,
       WatcherRole::leader},
      {"the leader holds its key", {"vm0", 0, "rack1"}, a, {}, WatcherRole::leader, {}},
      {"another rack takes the secondary's key",
       {"vm1", 1, "rack2"},
       a,
       {},
       WatcherRole::none,
       WatcherRole::secondary},
      {"the leader's rack never is secondary", {"vm3", 0, "rack1"}, a, {}, WatcherRole::none, {}},
      {"both held: nothing to try", {"vm3", 0, "rack1"}, a, b, WatcherRole::none, {}},
      {"the secondary holds its key", {"vm1", 1, "rack2"}, a, b, WatcherRole::secondary, {}},
      {"leader gone: the secondary takes over",
       {"vm1", 1, "rack2"},
       {},
       b,
       WatcherRole::secondary,
       WatcherRole::leader},
      {"leader gone: the others leave it to the secondary",
       {"vm3", 0, "rack1"},
       {},
       b,
       WatcherRole::none,
       {}},
      {"names compare case-insensitively", {"VM0", 0, "rack1"}, a, {}, WatcherRole::leader, {}},
      {"after a takeover a third rack's agent is secondary",
       {"vm2", 2, "rack3"},
       b,
       {},
       WatcherRole::none,
       WatcherRole::secondary},
      {"zonal: one fault domain everywhere, another rack is secondary",
       {"vm4", 0, "rack2"},
       a,
       {},
       WatcherRole::none,
       WatcherRole::secondary},
      {"the leader's rack in another fault domain is not secondary either",
       {"vm5", 2, "rack1"},
       a,
       {},
       WatcherRole::none,
       {}},
      {"an older leader's value names no rack: its fault domain decides",
       {"vm6", 0, "rack3"},
       RoleHolder{"vm0", 0, ""},
       {},
       WatcherRole::none,
       {}},
      {"and the old leader's rack too",
       {"vm3", 0, "rack1"},
       b,
       {},
       WatcherRole::none,
       WatcherRole::secondary},
  };
  for (const auto& row : rows) {
    BOOST_TEST_CONTEXT(row.what) {
      const auto d = cla::decide_role(row.self, row.leader, row.secondary);
      BOOST_TEST(name(d.current) == name(row.current));
      BOOST_TEST(name(d.try_for) == name(row.try_for));
    }
  }
}

BOOST_AUTO_TEST_CASE(role_holder_round_trips_and_bad_values_are_refused) {
  const RoleHolder h{"vm4", 1, "rack2"};
  const auto back = cla::role_holder_from_json(boost::json::serialize(cla::to_json(h)));
  BOOST_TEST_REQUIRE(back.ok());
  BOOST_TEST((*back == h));
  BOOST_TEST(!cla::role_holder_from_json("[]").ok());
  BOOST_TEST(!cla::role_holder_from_json(R"({"vm":"a"})").ok());
  BOOST_TEST(!cla::role_holder_from_json("not json").ok());
  BOOST_TEST(!cla::role_holder_from_json(R"({"vm":"a","fault_domain":1,"rack":2})").ok());
  const auto older = cla::role_holder_from_json(R"({"vm":"a","fault_domain":1})");  // an older agent's value
  BOOST_TEST_REQUIRE(older.ok());
  BOOST_TEST(older->rack.empty());
}

// vm2 (no member key) is listed in a Scheduled event due at kT0 + 20 s: nothing before NotBefore - 10 s,
// then one record listing the event and one agentless_impact, nothing more at the next polls.
BOOST_AUTO_TEST_CASE(an_agentless_vm_is_recorded_from_not_before_minus_the_lead_and_logged_once) {
  cla::AgentlessWatch watch;
  auto in = base();
  in.events = {event("ev-1", {"vm2"}, cla::EventStatus::scheduled, kT0 + 20s)};
  in.now = kT0 + 9s;
  BOOST_TEST((watch.decide(in) == cla::WatcherPlan{}));
  in.now = kT0 + 10s;
  const auto plan = watch.decide(in);
  BOOST_TEST_REQUIRE(plan.put.size() == 1u);
  const auto& r = plan.put[0];
  BOOST_TEST(r.vm == "vm2");
  BOOST_TEST(r.agentless);
  BOOST_TEST(r.rack == "rack3");
  BOOST_TEST(r.host_id == "h2");
  BOOST_TEST(r.mod_revision == 0);  // absent: put only if still absent
  BOOST_TEST(r.events == std::vector<std::string>{"EV-1"}, boost::test_tools::per_element());
  BOOST_TEST_REQUIRE(plan.impacts.size() == 1u);
  BOOST_TEST(
      (plan.impacts[0] == cla::AgentlessImpact{"vm2", "ev-1", "Freeze", "Mon, 01 Jan 2024 00:00:20 GMT"}));
  // Written: the next poll (or a new leader) reads it back and has nothing to do.
  auto written = r;
  written.mod_revision = 7;
  in.drains = {written};
  in.now = kT0 + 11s;
  BOOST_TEST((watch.decide(in) == cla::WatcherPlan{}));
  BOOST_TEST((cla::AgentlessWatch{}.decide(in) == cla::WatcherPlan{}));
}

BOOST_AUTO_TEST_CASE(what_is_not_recorded) {
  struct Row {
    const char* what;
    std::function<void(cla::WatcherInput&)> change;
  };
  const std::vector<Row> rows = {
      {"a VM with a live member key",
       [](auto& in) {
         cla::MemberRecord m;
         m.vm = "VM2";
         in.members.push_back(m);
       }},
      {"this agent's own VM", [](auto& in) { in.self = "vm2"; }},
      {"a VM no known record names",
       [](auto& in) { in.events = {event("ev-1", {"vm9"}, cla::EventStatus::started, {})}; }},
      {"a VM whose agent left its own record while its node is down (it counts already)",
       [](auto& in) {
         cla::DrainRecord own;
         own.vm = "vm2";
         own.host_id = "h2";
         own.events = {"EV-0"};
         in.drains = {own};
       }},
      {"an event far from NotBefore",
       [](auto& in) { in.events = {event("ev-1", {"vm2"}, cla::EventStatus::scheduled, kT0 + 1h)}; }},
  };
  for (const auto& row : rows) {
    BOOST_TEST_CONTEXT(row.what) {
      auto in = base();
      in.events = {event("ev-1", {"vm2"}, cla::EventStatus::started, {})};
      row.change(in);
      BOOST_TEST((cla::AgentlessWatch{}.decide(in) == cla::WatcherPlan{}));
    }
  }
}

// vm2's agent left its record and its node shows UN (it stopped while the node caught up, SPEC 3.10): the
// record is stale and the next admission would delete it, so the leader takes it over as agentless, only if
// it is still as read.
BOOST_AUTO_TEST_CASE(a_stale_record_of_a_gone_agent_is_taken_over_when_its_vm_is_impacted) {
  auto in = base();
  in.events = {event("ev-1", {"vm2"}, cla::EventStatus::started, {})};
  cla::DrainRecord own;
  own.vm = "vm2";
  own.rack = "rack3";
  own.host_id = "h2";
  own.events = {"EV-0"};
  own.mod_revision = 12;
  in.drains = {own};
  in.up_host_ids = {"h2"};
  in.now = kT0 + 5s;
  const auto plan = cla::AgentlessWatch{}.decide(in);
  BOOST_TEST_REQUIRE(plan.put.size() == 1u);
  BOOST_TEST(plan.put[0].agentless);
  BOOST_TEST(plan.put[0].mod_revision == 12);
  BOOST_TEST(plan.put[0].events == std::vector<std::string>{"EV-1"}, boost::test_tools::per_element());
  BOOST_TEST((plan.put[0].since == kT0 + 5s));
  BOOST_TEST(plan.impacts.size() == 1u);
  in.events.clear();
  BOOST_TEST((cla::AgentlessWatch{}.decide(in) == cla::WatcherPlan{}), "not impacted: left to the admission");
}

BOOST_AUTO_TEST_CASE(a_started_event_is_recorded_at_once_and_a_second_event_is_added_and_logged) {
  cla::AgentlessWatch watch;
  auto in = base();
  cla::DrainRecord existing;
  existing.vm = "vm2";
  existing.rack = "rack3";
  existing.host_id = "h2";
  existing.events = {"EV-1"};
  existing.agentless = true;
  existing.mod_revision = 9;
  in.drains = {existing};
  in.events = {event("ev-1", {"vm2"}, cla::EventStatus::started, {}),
               event("ev-2", {"vm1", "vm2"}, cla::EventStatus::started, {})};
  const auto plan = watch.decide(in);
  BOOST_TEST_REQUIRE(plan.put.size() == 1u);
  BOOST_TEST(plan.put[0].mod_revision == 9);  // replaces exactly the record read
  BOOST_TEST(plan.put[0].events == (std::vector<std::string>{"EV-1", "EV-2"}),
             boost::test_tools::per_element());
  BOOST_TEST_REQUIRE(plan.impacts.size() == 1u);
  BOOST_TEST(plan.impacts[0].event_id == "ev-2");
  BOOST_TEST(plan.remove.empty());
}

// The event is removed at kT0 + 30 s: the record stays until a status started after that shows the node UN.
BOOST_AUTO_TEST_CASE(the_record_goes_once_the_event_is_removed_and_a_later_status_shows_the_node_up) {
  cla::AgentlessWatch watch;
  auto in = base();
  cla::DrainRecord record;
  record.vm = "vm2";
  record.host_id = "h2";
  record.events = {"EV-1"};
  record.agentless = true;
  in.drains = {record};
  in.events = {event("ev-1", {"vm2"}, cla::EventStatus::started, {})};
  in.up_host_ids = {"h0", "h2"};  // a frozen node still shows UN
  in.status_taken_at = kT0 + 29s;
  in.now = kT0 + 29s;
  BOOST_TEST((watch.decide(in) == cla::WatcherPlan{}));  // held while the event is there
  in.events.clear();
  in.now = kT0 + 30s;
  auto plan = watch.decide(in);  // the status is older than the removal: ask for one
  BOOST_TEST(plan.needs_status);
  BOOST_TEST(plan.remove.empty());
  in.status_taken_at = kT0 + 31s;
  in.up_host_ids = {"h0"};  // not UN yet
  in.now = kT0 + 31s;
  plan = watch.decide(in);
  BOOST_TEST(plan.needs_status);
  BOOST_TEST(plan.remove.empty());
  in.status_taken_at = kT0 + 32s;
  in.up_host_ids = {"h0", "h2"};
  in.now = kT0 + 32s;
  plan = watch.decide(in);
  BOOST_TEST(!plan.needs_status);
  BOOST_TEST_REQUIRE(plan.remove.size() == 1u);
  BOOST_TEST(plan.remove[0].vm == "vm2");
  // An agent's ordinary record is never the watcher's to remove.
  in.drains[0].agentless = false;
  BOOST_TEST((cla::AgentlessWatch{}.decide(in) == cla::WatcherPlan{}));
}

BOOST_AUTO_TEST_CASE(a_new_leader_counts_the_removal_from_its_own_first_sighting) {
  auto in = base();
  cla::DrainRecord record;
  record.vm = "vm2";
  record.host_id = "h2";
  record.events = {"EV-1"};
  record.agentless = true;
  in.drains = {record};
  in.up_host_ids = {"h2"};
  in.status_taken_at = kT0 - 1s;  // before this leader saw the event gone
  cla::AgentlessWatch watch;
  BOOST_TEST(watch.decide(in).needs_status);
  in.status_taken_at = kT0;
  BOOST_TEST(watch.decide(in).remove.size() == 1u);
}

BOOST_AUTO_TEST_SUITE_END()
