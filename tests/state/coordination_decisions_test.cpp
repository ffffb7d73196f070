// Coordinated mode's pure decisions: rack budget, drain admission, the stale rule, shared-event approval.
#include "state/coordination_decisions.hpp"

#include <boost/test/unit_test.hpp>

namespace {

using Strings = std::vector<std::string>;

cla::DrainRecord record(std::string vm, std::string rack, std::string host, std::string dc = "dc1") {
  cla::DrainRecord r;
  r.vm = std::move(vm);
  r.datacenter = std::move(dc);
  r.rack = std::move(rack);
  r.host_id = std::move(host);
  r.events = {"EV-1"};
  return r;
}

cla::AdmissionInput input(std::vector<cla::DrainRecord> records, int rf = 3) {
  cla::AdmissionInput in;
  in.vm = "vm0";
  in.datacenter = "dc1";
  in.rack = "rack1";
  in.replication_factor = rf;
  in.records = std::move(records);
  for (const char* vm : {"vm0", "vm3", "vm4", "vm6"}) in.member_vms.insert(cla::vm_identity("dc1", vm));
  return in;
}

cla::MemberRecord member(std::string vm, cla::MemberPhase phase, Strings events = {}) {
  cla::MemberRecord m;
  m.vm = std::move(vm);
  m.phase = phase;
  m.events = std::move(events);
  return m;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(coordination_decisions_test)

BOOST_AUTO_TEST_CASE(rack_budget_keeps_a_quorum) {
  BOOST_TEST(cla::rack_budget(1) == 0);
  BOOST_TEST(cla::rack_budget(3) == 1);
  BOOST_TEST(cla::rack_budget(5) == 2);
}

BOOST_AUTO_TEST_CASE(no_record_admits_and_another_racks_record_refuses_under_rf3) {
  BOOST_TEST(cla::decide_admission(input({})).admitted);
  const auto refused = cla::decide_admission(input({record("vm3", "rack2", "h3")}));
  BOOST_TEST(!refused.admitted);
  BOOST_TEST(refused.out_racks == Strings{"rack2"}, boost::test_tools::per_element());
  BOOST_TEST(refused.reason.find("rack2") != std::string::npos, refused.reason);
  BOOST_TEST(refused.counted.size() == 1u);
}

BOOST_AUTO_TEST_CASE(own_rack_own_record_and_other_dcs_do_not_count) {
  const auto v = cla::decide_admission(input(
      {record("vm1", "rack1", "h1"), record("vm0", "rack1", "h0"), record("vm4", "rack2", "h4", "dc2")}));
  BOOST_TEST(v.admitted, v.reason);
  BOOST_TEST(v.out_racks.empty());
  BOOST_TEST(v.counted.size() == 2u);  // vm1 and dc2's vm4: the transaction still guards them
}

// A neighbour whose maintenance began (frozen, still UN) is out without a record (issue 40: with RF 5 a
// third rack used to be admitted beside a recorded drain and a frozen neighbour).
BOOST_AUTO_TEST_CASE(racks_with_a_neighbour_out_count_as_recorded_ones) {
  auto in = input({record("vm3", "rack2", "h3")}, 5);
  BOOST_TEST(cla::decide_admission(in).admitted);
  in.unavailable_racks = {"rack3"};
  const auto refused = cla::decide_admission(in);
  BOOST_TEST(!refused.admitted, refused.reason);
  BOOST_TEST(refused.out_racks == (Strings{"rack2", "rack3"}), boost::test_tools::per_element());
  in.unavailable_racks = {"rack1", "rack2"};
  BOOST_TEST(cla::decide_admission(in).admitted, "its own rack and a rack already out add nothing");
}

BOOST_AUTO_TEST_CASE(rf5_allows_a_second_rack_not_a_third) {
  BOOST_TEST(cla::decide_admission(input({record("vm3", "rack2", "h3")}, 5)).admitted);
  BOOST_TEST(!cla::decide_admission(input({record("vm3", "rack2", "h3"), record("vm6", "rack3", "h6")}, 5))
                  .admitted);
}

// With the replication verdict's answer (SPEC 9), it decides, over the counted records only; without it
// (nullopt: no schema), the rack count does.
BOOST_AUTO_TEST_CASE(the_exact_check_decides_over_the_counted_records_and_nullopt_falls_back_to_racks) {
  auto in = input({record("vm3", "rack2", "h3"), record("vm5", "rack3", "h5")});
  in.up_host_ids = {"h5"};  // vm5: no member key, node UN: stale, never shown to the check
  Strings seen;
  in.exact = [&](const std::vector<cla::DrainRecord>& counted) -> std::optional<cla::ExactAdmission> {
    for (const auto& r : counted) seen.push_back(r.vm);
    return cla::ExactAdmission{true, "every range keeps LOCAL_ONE"};
  };
  auto v = cla::decide_admission(in);
  BOOST_TEST(v.admitted, "the rack count alone would refuse rack2's record");
  BOOST_TEST(v.reason == "every range keeps LOCAL_ONE");
  BOOST_TEST(seen == Strings{"vm3"}, boost::test_tools::per_element());
  BOOST_TEST(v.stale.size() == 1u);
  BOOST_TEST(v.out_racks == Strings{"rack2"}, boost::test_tools::per_element());

  in.exact = [](const std::vector<cla::DrainRecord>&) -> std::optional<cla::ExactAdmission> {
    return cla::ExactAdmission{false, "keyspace app range (1, 2] would keep 1"};
  };
  auto none = input({});
  none.exact = in.exact;
  v = cla::decide_admission(none);
  BOOST_TEST(!v.admitted, "refused by the verdict even with no record (this node's leaving alone is short)");
  BOOST_TEST(v.reason == "keyspace app range (1, 2] would keep 1");

  in.exact = [](const std::vector<cla::DrainRecord>&) -> std::optional<cla::ExactAdmission> { return {}; };
  v = cla::decide_admission(in);
  BOOST_TEST(!v.admitted, "no answer: rack2's record and the own rack exceed RF 3's budget");
  BOOST_TEST(v.reason.find("rack2") != std::string::npos, v.reason);
}

// SPEC 9, "Several regions": VM names repeat across DCs. A member named vm5 in dc2 is not the agent of dc1's
// vm5; dc2's vm0 is not this agent; this agent's record under an older agent's flat key (no DC) is its own.
BOOST_AUTO_TEST_CASE(records_are_matched_by_dc_and_vm_not_by_name_alone) {
  auto in = input({record("vm5", "rack2", "h5"), record("vm0", "rack2", "h0-dc2", "dc2"),
                   record("vm0", "rack1", "h0", "")});
  in.member_vms.insert(cla::vm_identity("dc2", "vm5"));
  in.up_host_ids = {"h5"};
  const auto v = cla::decide_admission(in);
  BOOST_TEST_REQUIRE(v.stale.size() == 1u);
  BOOST_TEST(v.stale[0].datacenter == "dc1");
  BOOST_TEST_REQUIRE(v.counted.size() == 1u);
  BOOST_TEST(v.counted[0].host_id == "h0-dc2");
  BOOST_TEST_REQUIRE(v.own.size() == 1u);
  BOOST_TEST(v.own[0].datacenter.empty());
  BOOST_TEST(v.admitted, v.reason);  // dc2's rack does not count against dc1's budget

  in.member_vms.insert(cla::vm_identity("", "vm5"));  // an older agent's member key, written with no DC
  BOOST_TEST(cla::decide_admission(in).stale.empty());
}

BOOST_AUTO_TEST_CASE(a_record_without_member_whose_node_is_up_is_stale) {
  auto in = input({record("vm5", "rack2", "h5")});  // vm5 has no member key
  in.up_host_ids = {"h5"};
  const auto v = cla::decide_admission(in);
  BOOST_TEST(v.admitted, v.reason);
  BOOST_TEST_REQUIRE(v.stale.size() == 1u);
  BOOST_TEST(v.stale[0].vm == "vm5");
  BOOST_TEST(v.counted.empty());
}

BOOST_AUTO_TEST_CASE(with_the_member_keys_not_read_every_record_counts_so_only_a_refusal_needs_them) {
  auto in = input({record("vm5", "rack2", "h5")});  // stale, were the member keys read
  in.up_host_ids = {"h5"};
  in.members_read = false;
  const auto v = cla::decide_admission(in);
  BOOST_TEST(!v.admitted, v.reason);
  BOOST_TEST(v.stale.empty());
  BOOST_TEST(v.counted.size() == 1u);
  BOOST_TEST(v.out_racks == Strings{"rack2"}, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_record_is_not_stale_while_its_agent_lives_or_its_node_is_down) {
  BOOST_TEST(!cla::is_stale(record("vm5", "rack2", "h5"), {"vm0"}, {}));          // node down
  BOOST_TEST(!cla::is_stale(record("vm3", "rack2", "h3"), {"dc1/VM3"}, {"h3"}));  // agent alive
  BOOST_TEST(!cla::is_stale(record("vm5", "rack2", ""), {"vm0"}, {"h5"}));        // no host id: cannot tell
  BOOST_TEST(cla::is_stale(record("vm5", "rack2", "h5"), {"vm0"}, {"h5"}));
  auto in = input({record("vm5", "rack2", "h5")});
  BOOST_TEST(!cla::decide_admission(in).admitted);  // gone agent, node still down: its rack is out
}

BOOST_AUTO_TEST_CASE(an_agentless_record_is_never_stale_and_counts_while_its_node_shows_up) {
  auto agentless = record("vm5", "rack2", "h5");
  agentless.agentless = true;
  BOOST_TEST(!cla::is_stale(agentless, {"vm0"}, {"h5"}));  // no member key, node UN: still counted
  auto in = input({agentless});
  in.up_host_ids = {"h5"};
  const auto v = cla::decide_admission(in);
  BOOST_TEST(!v.admitted, v.reason);
  BOOST_TEST(v.stale.empty());
  BOOST_TEST(v.out_racks == Strings{"rack2"}, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(shared_event_waits_for_every_listed_member_then_the_first_listed_approves) {
  cla::SharedApprovalInput in;
  in.vm = "vm1";
  in.event_id = "ev-1";
  in.resources = {"vm0", "vm1", "vm2"};
  in.members = {member("vm0", cla::MemberPhase::drained, {"EV-1"}),
                member("vm1", cla::MemberPhase::drained, {"EV-1"}),
                member("vm2", cla::MemberPhase::draining, {"EV-1"})};
  auto v = cla::decide_shared_approval(in);
  BOOST_TEST(!v.ready);
  BOOST_TEST(v.waiting == Strings{"vm2"}, boost::test_tools::per_element());
  BOOST_TEST(v.approver == "vm0");

  in.members[2].phase = cla::MemberPhase::drained;
  v = cla::decide_shared_approval(in);
  BOOST_TEST(v.ready);
  BOOST_TEST(!v.this_agent_approves);  // vm0 approves, not vm1
  in.vm = "VM0";
  BOOST_TEST(cla::decide_shared_approval(in).this_agent_approves);
}

BOOST_AUTO_TEST_CASE(drained_for_another_event_is_not_drained_for_this_one) {
  cla::SharedApprovalInput in;
  in.vm = "vm0";
  in.event_id = "EV-1";
  in.resources = {"vm0", "vm1"};
  in.members = {member("vm0", cla::MemberPhase::drained, {"EV-1"}),
                member("vm1", cla::MemberPhase::drained, {"EV-2"})};
  const auto v = cla::decide_shared_approval(in);
  BOOST_TEST(!v.ready);
  BOOST_TEST(v.waiting == Strings{"vm1"}, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(listed_vms_without_member_key_are_reported_and_waited_for) {
  cla::SharedApprovalInput in;
  in.vm = "vm1";
  in.event_id = "EV-1";
  in.resources = {"vm0", "vm1"};  // vm0 has no member key: vm1 is the first listed live member
  in.members = {member("vm1", cla::MemberPhase::drained, {"EV-1"})};
  auto v = cla::decide_shared_approval(in);
  BOOST_TEST(v.unregistered == Strings{"vm0"}, boost::test_tools::per_element());
  BOOST_TEST(v.approver == "vm1");
  BOOST_TEST(!v.ready);
  in.wait_for_unregistered = false;
  v = cla::decide_shared_approval(in);
  BOOST_TEST(v.ready);
  BOOST_TEST(v.this_agent_approves);
  in.members.clear();
  BOOST_TEST(!cla::decide_shared_approval(in).ready);  // nobody to approve
}

BOOST_AUTO_TEST_CASE(records_round_trip_through_json_and_bad_values_are_refused) {
  auto m = member("vm2", cla::MemberPhase::restoring, {"EV-1"});
  m.fault_domain = 2;
  m.rack = "rack3";
  m.since = cla::WallTime{} + std::chrono::milliseconds(1700000000123);
  m.approved = {"EV-0"};
  const auto back = cla::member_from_json(boost::json::serialize(cla::to_json(m)));
  BOOST_TEST_REQUIRE(back.ok(), (back.ok() ? "" : back.error().message));
  BOOST_TEST((*back == m));
  const auto r = record("vm5", "rack2", "h5");
  const auto rback = cla::drain_record_from_json(boost::json::serialize(cla::to_json(r)));
  BOOST_TEST_REQUIRE(rback.ok());
  BOOST_TEST((*rback == r));
  BOOST_TEST(!rback->agentless);  // an agent's own record: the key is left out
  BOOST_TEST(cla::to_json(r).if_contains("agentless") == nullptr);
  auto a = r;
  a.agentless = true;
  const auto aback = cla::drain_record_from_json(boost::json::serialize(cla::to_json(a)));
  BOOST_TEST_REQUIRE(aback.ok());
  BOOST_TEST((*aback == a));
  BOOST_TEST(
      !cla::drain_record_from_json(
           R"({"vm":"a","datacenter":"","rack":"","host_id":"","events":[],"since_ms":0,"agentless":1})")
           .ok());
  BOOST_TEST(!cla::member_from_json("[]").ok());
  BOOST_TEST(!cla::member_from_json(R"({"vm":"a"})").ok());
  const auto bad_phase = cla::member_from_json(
      R"({"vm":"a","fault_domain":0,"datacenter":"","rack":"","host_id":"","phase":"x","events":[],"since_ms":0})");
  BOOST_TEST(!bad_phase.ok());
  BOOST_TEST(!cla::drain_record_from_json(R"({"vm":"a","events":[1]})").ok());
  // A member key of an agent from before `approved`: no approvals.
  const auto older = cla::member_from_json(
      R"({"vm":"a","fault_domain":0,"datacenter":"","rack":"","host_id":"","phase":"serving","events":[],"since_ms":0})");
  BOOST_TEST_REQUIRE(older.ok());
  BOOST_TEST(older->approved.empty());
  BOOST_TEST(older->hints_for.empty());
  BOOST_TEST(boost::json::serialize(cla::to_json(*older)).find("hints_for") == std::string::npos);
  // SPEC 3.10: a node catching up, and the hints another node holds for it.
  auto catching = member("vm3", cla::MemberPhase::catching_up, {});
  catching.hints_for = {{"h1", 3}, {"h2", 1}};
  const auto cback = cla::member_from_json(boost::json::serialize(cla::to_json(catching)));
  BOOST_TEST_REQUIRE(cback.ok());
  BOOST_TEST((*cback == catching));
  BOOST_TEST(cla::to_json(catching).at("phase").as_string() == "catching_up");
  BOOST_TEST(
      !cla::member_from_json(
           R"({"vm":"a","fault_domain":0,"datacenter":"","rack":"","host_id":"","phase":"serving","events":[],)"
           R"("since_ms":0,"hints_for":{"h1":"3"}})")
           .ok());
  const cla::KnownRecord k{"vm7", 1, "dc1", "rack2", "10.0.0.7", "h7"};
  const auto kback = cla::known_record_from_json(boost::json::serialize(cla::to_json(k)));
  BOOST_TEST_REQUIRE(kback.ok());
  BOOST_TEST((*kback == k));
  BOOST_TEST(!cla::known_record_from_json(R"({"vm":"vm7","fault_domain":1})").ok());
}

BOOST_AUTO_TEST_SUITE_END()
