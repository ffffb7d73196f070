#!/usr/bin/python3 -I
"""Unit test of the game day's crash accounting (SPEC 10, issue 41): the player records when every other node
convicted a node whose JVM the cassandra_kill fault killed (gameday_player.py, Player.convicted, from their
Cassandra logs), and the checker counts the client's failures due from a request timeout before that kill until
then as failed_at_crash, and those the node coordinates in its first catch_up_min_s of CQL once the player starts
it again (Player.cql_opened), every other failure as failed (gameday_check.py); an impact on a drain a JMX hang held
counts as impacts_at_hang; a restarted etcd member that exits fails the run (gameday_player.py). No Cassandra, no
client, no etcd.
Usage: gameday_check_test.py [unittest args]"""
import os
import sys
import tempfile
import time
import unittest

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "bench"))
import gameday_check as check  # noqa: E402
import gameday_player as player  # noqa: E402

KILL_MS = 1_796_066_302_557
TIMEOUT_MS = 2000
HOLD_MS = 30_000
OPEN_MS = KILL_MS + 120_000


def kill(vm="vm1", t_ms=KILL_MS):
    return {"t_ms": t_ms, "action": "fault_applied", "episode": 2, "fault": "cassandra_kill", "vm": vm}


def convicted(vm="vm1", at_ms=KILL_MS + 5700, recorded_ms=KILL_MS + 9000):
    return {"t_ms": recorded_ms, "action": "node_convicted", "vm": vm, "t_convicted_ms": at_ms}


def cql_open(vm="vm1", at_ms=OPEN_MS):
    return {"t_ms": at_ms + 800, "action": "node_cql_open", "vm": vm, "t_cql_ms": at_ms, "address": "127.0.0.1"}


class CrashWindows(unittest.TestCase):
    def test_a_kill_spans_a_timeout_before_it_to_the_last_conviction(self):
        windows = check.crash_windows([kill(), convicted()], TIMEOUT_MS, HOLD_MS, [])
        self.assertEqual(windows, [("vm1", KILL_MS - TIMEOUT_MS, KILL_MS + 5700, None)])

    def test_the_start_after_it_spans_the_node_s_first_hold_of_cql_as_coordinator(self):
        windows = check.crash_windows([kill(), convicted(), cql_open()], TIMEOUT_MS, HOLD_MS, [])
        self.assertEqual(windows[1:], [("vm1", OPEN_MS, OPEN_MS + HOLD_MS, "127.0.0.1")])

    def test_an_agent_step_or_impact_after_the_open_ends_it_a_request_timeout_before(self):
        steps = [(OPEN_MS - 9000, OPEN_MS - TIMEOUT_MS),  # ended a request timeout before the open: no cause
                 (OPEN_MS + 12_000, OPEN_MS + 14_000), (OPEN_MS + 20_000, float("inf"))]
        windows = check.crash_windows([cql_open()], TIMEOUT_MS, HOLD_MS, steps)
        self.assertEqual(windows, [("vm1", OPEN_MS, OPEN_MS + 12_000 - TIMEOUT_MS, "127.0.0.1")])

    def test_a_step_under_way_at_the_open_or_just_ended_leaves_no_window(self):
        for step in [(OPEN_MS - 9000, OPEN_MS + 1), (OPEN_MS - 9000, float("inf")), (OPEN_MS, OPEN_MS + 500),
                     (OPEN_MS - 9000, OPEN_MS - TIMEOUT_MS + 1)]:
            self.assertEqual(check.crash_windows([cql_open()], TIMEOUT_MS, HOLD_MS, [step]), [], step)

    def test_a_step_begun_within_a_request_timeout_after_the_open_leaves_none(self):
        steps = [(OPEN_MS + TIMEOUT_MS - 1, OPEN_MS + 9000)]
        self.assertEqual(check.crash_windows([cql_open()], TIMEOUT_MS, HOLD_MS, steps), [])

    def test_the_steps_are_drains_restores_and_impacts_start_to_end(self):
        def line(t_ms, msg):
            return {"ts": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t_ms // 1000)) + f".{t_ms % 1000:03d}Z",
                    "msg": msg}
        logs = {"vm1": [line(OPEN_MS + 3000, "drain_started"), line(OPEN_MS + 1000, "event_seen"),
                        line(OPEN_MS + 6000, "drain_completed"), line(OPEN_MS + 9000, "restore_started")],
                "vm2": [line(OPEN_MS + 2000, "restore_started"), line(OPEN_MS + 2500, "restore_failed"),
                        line(OPEN_MS + 7000, "drain_started"), line(OPEN_MS + 8000, "restore_started")]}
        impacts = [{"t_ms": OPEN_MS + 4000, "phase": "start", "vm": "vm3", "event_id": "A", "landed": True},
                   {"t_ms": OPEN_MS + 5000, "phase": "end", "vm": "vm3", "event_id": "A"},
                   {"t_ms": OPEN_MS + 4500, "phase": "start", "vm": "vm4", "event_id": "A", "landed": "absorbed"},
                   {"t_ms": OPEN_MS + 4600, "phase": "start", "vm": "vm5", "event_id": "B", "landed": True}]
        inf = float("inf")
        self.assertEqual(check.agent_steps(logs, impacts),
                         [(OPEN_MS + 2000, OPEN_MS + 2500), (OPEN_MS + 3000, OPEN_MS + 6000),
                          (OPEN_MS + 4000, OPEN_MS + 5000), (OPEN_MS + 4600, inf), (OPEN_MS + 7000, OPEN_MS + 8000),
                          (OPEN_MS + 8000, inf), (OPEN_MS + 9000, inf)])

    def test_a_kill_not_followed_by_its_conviction_has_no_window(self):
        stale = convicted(recorded_ms=KILL_MS - 60_000)  # an earlier kill's
        self.assertEqual(check.crash_windows([stale, kill()], TIMEOUT_MS, HOLD_MS, []), [])
        self.assertEqual(check.crash_windows([kill(), convicted(vm="vm2")], TIMEOUT_MS, HOLD_MS, []), [])

    def test_other_faults_have_none(self):
        disk = {"t_ms": KILL_MS, "action": "fault_applied", "episode": 0, "fault": "disk_full", "vm": "vm1"}
        self.assertEqual(check.crash_windows([disk, convicted()], TIMEOUT_MS, HOLD_MS, []), [])

    def test_the_hold_is_the_agents_catch_up_min_s(self):
        started = {"msg": "agent_started", "config": {"policy": {"catch_up_min_s": 30}}}
        self.assertEqual(check.agents_catch_up_min_ms({"vm1": [started], "vm2": [{"msg": "x"}, started]}), 30_000)
        other = {"msg": "agent_started", "config": {"policy": {"catch_up_min_s": 5}}}
        for logs in ({"vm1": [started], "vm2": [other]}, {"vm1": []}):
            with self.assertRaises(SystemExit):
                check.agents_catch_up_min_ms(logs)


class AtCrash(unittest.TestCase):
    WINDOWS = [("vm1", KILL_MS - TIMEOUT_MS, KILL_MS + 5700, None), ("vm1", OPEN_MS, OPEN_MS + HOLD_MS, "127.0.0.1")]

    def test_unanswered_requests_due_in_the_window_are_the_crash_s(self):
        for due in (KILL_MS - TIMEOUT_MS, KILL_MS, KILL_MS + 5700):
            for outcome in ("timeout", "failed", "unanswered"):
                self.assertTrue(check.at_crash(due, outcome, "127.0.0.3", self.WINDOWS), (due, outcome))

    def test_outside_the_window_or_not_a_failed_send_they_stay_failed(self):
        for due in (KILL_MS - TIMEOUT_MS - 1, KILL_MS + 5701):
            self.assertFalse(check.at_crash(due, "timeout", "127.0.0.3", self.WINDOWS), due)
        for outcome in ("ok", "missed", "wrong", "empty"):  # the client starved, or a wrong answer: never a crash's
            self.assertFalse(check.at_crash(KILL_MS, outcome, "127.0.0.3", self.WINDOWS), outcome)

    def test_after_the_start_only_what_the_restarted_node_coordinates_is_the_crash_s(self):
        for due in (OPEN_MS, OPEN_MS + HOLD_MS):
            self.assertTrue(check.at_crash(due, "timeout", "127.0.0.1", self.WINDOWS), due)
            self.assertFalse(check.at_crash(due, "timeout", "127.0.0.3", self.WINDOWS), due)
        for due in (OPEN_MS - 1, OPEN_MS + HOLD_MS + 1):
            self.assertFalse(check.at_crash(due, "timeout", "127.0.0.1", self.WINDOWS), due)

    def test_the_requests_file_is_read_and_counted(self):
        lines = [f"{KILL_MS + 400} read 2000.8 timeout OperationTimedOut 127.0.0.3:9042 0",
                 f"{KILL_MS + 400} write 3.1 ok - 127.0.0.3:9042 0",
                 f"{KILL_MS + 500} - 700.0 missed - - 700",
                 f"{KILL_MS + 60_000} read 2000.5 timeout OperationTimedOut 127.0.0.6:9042 0",
                 f"{OPEN_MS + 3000} read 2000.4 timeout OperationTimedOut 127.0.0.1:9042 0",
                 f"{OPEN_MS + 3000} read 2000.4 timeout OperationTimedOut 127.0.0.6:9042 0"]
        with tempfile.NamedTemporaryFile("w", suffix=".requests", delete=False) as f:
            f.write("\n".join(lines) + "\n")
        try:
            requests = check.read_requests(f.name)
        finally:
            os.unlink(f.name)
        self.assertEqual(requests[0], check.Request(KILL_MS + 400, 2000.8, "timeout", "127.0.0.3"))
        self.assertEqual(requests[2], check.Request(KILL_MS + 500, 700.0, "missed", "-"))
        self.assertEqual(check.failed_at_crash(requests, self.WINDOWS), 2)


class FailureCauses(unittest.TestCase):
    def test_an_impact_while_a_request_was_in_flight_is_its_cause(self):
        impact = {"t_ms": KILL_MS, "vm": "vm1", "event_id": "E", "type": "Preempt", "phase": "start"}
        lines = [f"{KILL_MS - 1500} read 2000.6 timeout OperationTimedOut 127.0.0.3:9042 0",  # sent before it
                 f"{KILL_MS - 2500} read 2000.6 timeout OperationTimedOut 127.0.0.3:9042 0"]  # over before it
        with tempfile.NamedTemporaryFile("w", suffix=".requests", delete=False) as f:
            f.write("\n".join(lines) + "\n")
        try:
            out = check.failure_causes(check.read_requests(f.name), [], [impact], {"vm3": []})
        finally:
            os.unlink(f.name)
        self.assertEqual(out[1:], ["         1 coordinated by vm3, after vm1: Preempt start",
                                   "         1 coordinated by vm3, after nothing within a minute"])


class FakeRig:
    def __init__(self, vms):
        self.rig, self.acted = {"vms": vms}, []

    def act(self, action, **fields):
        self.acted.append(dict(action=action, **fields))


def log_line(t_ms, address):
    local = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(t_ms // 1000))
    return (f"INFO  [GossipStage:1] {local},{t_ms % 1000:03d} Gossiper.java:1508 - InetAddress /{address}:7000 "
            f"is now DOWN\n")


class NodeLogs(unittest.TestCase):
    """Three nodes' Cassandra logs in a temporary directory."""

    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.vms = {f"vm{k}": {"address": f"127.0.0.{k}", "system_log": os.path.join(self.dir.name, f"node{k}.log")}
                    for k in (1, 2, 3)}

    def tearDown(self):
        self.dir.cleanup()

    def write(self, vm, *lines):
        with open(self.vms[vm]["system_log"], "w") as f:
            f.writelines(lines)


class Convicted(NodeLogs):
    def convict(self):
        rig = FakeRig(self.vms)
        p = player.Player.__new__(player.Player)
        p.rig = rig
        p.convicted("vm1", KILL_MS)
        self.assertEqual([a["action"] for a in rig.acted], ["node_convicted"])
        return rig.acted[0]

    def test_the_last_peer_s_down_line_after_the_kill_ends_it(self):
        self.write("vm2", log_line(KILL_MS - 600_000, "127.0.0.1"),  # an earlier outage of vm1: not this kill's
                   log_line(KILL_MS + 3000, "127.0.0.3"),            # another node
                   log_line(KILL_MS + 4100, "127.0.0.1"))
        self.write("vm3", log_line(KILL_MS + 5700, "127.0.0.1"))
        seen = self.convict()
        self.assertEqual(seen["t_convicted_ms"], KILL_MS + 5700)
        self.assertEqual(seen["by"], {"vm2": KILL_MS + 4100, "vm3": KILL_MS + 5700})
        self.assertEqual(seen["without_down_line"], [])

    def test_a_peer_without_the_line_had_it_down_already(self):
        self.write("vm2", log_line(KILL_MS - 600_000, "127.0.0.1"))
        seen = self.convict()  # vm3's log does not exist
        self.assertEqual(seen["t_convicted_ms"], KILL_MS)
        self.assertEqual(seen["by"], {"vm2": None, "vm3": None})
        self.assertEqual(seen["without_down_line"], ["vm2", "vm3"])
        self.write("vm3", log_line(KILL_MS + 5700, "127.0.0.1"))
        self.assertEqual(self.convict()["t_convicted_ms"], KILL_MS + 5700)


def cql_line(t_ms, address):
    local = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(t_ms // 1000))
    return (f"INFO  [main] {local},{t_ms % 1000:03d} PipelineConfigurator.java:148 - Starting listening for CQL "
            f"clients on /{address}:9042 (unencrypted)...\n")


class CqlOpened(NodeLogs):
    """The restarted node's CQL opens at its log's first "Starting listening for CQL clients" since its start."""

    def opened(self):
        rig = FakeRig(self.vms)
        p = player.Player.__new__(player.Player)
        p.rig = rig
        return p.cql_opened("vm1", OPEN_MS - 20_000), rig.acted

    def test_the_first_line_since_the_start_is_the_open(self):
        self.write("vm1", cql_line(KILL_MS - 600_000, "127.0.0.1"),  # the start before the kill
                   cql_line(OPEN_MS, "127.0.0.1"),
                   cql_line(OPEN_MS + 90_000, "127.0.0.1"))  # an enablebinary later
        self.assertEqual(self.opened(), (True, [{"action": "node_cql_open", "vm": "vm1", "t_cql_ms": OPEN_MS,
                                                 "address": "127.0.0.1"}]))

    def test_nothing_is_recorded_before_the_line(self):
        self.write("vm1", cql_line(KILL_MS - 600_000, "127.0.0.1"))
        self.assertEqual(self.opened(), (False, []))


HANG_MS = KILL_MS + 600_000
EVENT = "01C3CD6B-4537-4DDB-A895-44C3D7708880"


class ImpactsAtHang(unittest.TestCase):
    """An impact at NotBefore on a node whose drain had begun but whose JMX the jmx_hang fault held is the fault's
    (impacts_at_hang): no step reaches such a node. Any other impact on a node not drained stays a finding (seed
    2's run at c756213: three impacts on drains a hang held, no client request failed)."""

    def hang(self, vm="vm6", first=HANG_MS, last=HANG_MS + 128_000):
        return [{"t_ms": first, "action": "jmx_hang_started", "vm": vm, "hang_s": 128},
                {"t_ms": last, "action": "jmx_hang_ended", "vm": vm}]

    def findings(self, state_changes, impact_ms, actions, approvals=()):
        tl = check.Timeline()
        for t_ms, state in state_changes:
            tl.add("vm6", t_ms, state, f"{state} {EVENT}")
        tl.finish()
        impact = {"phase": "start", "event_id": EVENT, "vm": "vm6", "type": "Terminate", "t_ms": impact_ms,
                  "landed": True}
        return check.impact_findings([impact], {EVENT.lower(): {}}, list(approvals), tl, check.hang_windows(actions))

    def test_hang_windows_pair_start_and_end_and_an_unended_one_lasts(self):
        unended = [{"t_ms": HANG_MS, "action": "jmx_hang_started", "vm": "vm1", "hang_s": 128}]
        self.assertEqual(check.hang_windows(self.hang() + unended),
                         [("vm6", HANG_MS, HANG_MS + 128_000), ("vm1", HANG_MS, float("inf"))])

    def test_a_drain_begun_during_the_hang_is_held(self):
        undrained, held, problems = self.findings([(HANG_MS + 60_000, "draining")], HANG_MS + 70_000, self.hang())
        self.assertEqual((len(undrained), len(held), problems), (0, 1, []))

    def test_a_drain_begun_before_a_hang_that_started_before_the_impact_is_held(self):
        undrained, held, _ = self.findings([(HANG_MS - 5_000, "draining")], HANG_MS + 1_000, self.hang())
        self.assertEqual((len(undrained), len(held)), (0, 1))

    def test_an_approval_before_the_impact_or_no_drain_or_no_hang_stays_a_finding(self):
        approval = {"event_id": EVENT, "vm": "vm3", "t_ms": HANG_MS + 65_000}
        cases = {
            "approved early": ([(HANG_MS + 60_000, "draining")], HANG_MS + 70_000, self.hang(), [approval]),
            "serving": ([(HANG_MS - 60_000, "serving")], HANG_MS + 70_000, self.hang(), []),
            "another VM's hang": ([(HANG_MS + 60_000, "draining")], HANG_MS + 70_000, self.hang(vm="vm3"), []),
            "the hang over before the drain": ([(HANG_MS + 200_000, "draining")], HANG_MS + 210_000, self.hang(), []),
        }
        for name, (changes, impact_ms, actions, approvals) in cases.items():
            undrained, held, _ = self.findings(changes, impact_ms, actions, approvals)
            self.assertEqual((len(undrained), len(held)), (1, 0), name)

    def test_a_drained_node_is_neither(self):
        changes = [(HANG_MS + 60_000, "draining"), (HANG_MS + 61_000, "drained")]
        self.assertEqual(self.findings(changes, HANG_MS + 70_000, self.hang()), ([], [], []))


class EtcdAlive(unittest.TestCase):
    """A restarted etcd member that exits at once fails the game day (before, a cut command line left every
    restart dead: the next member's kill then took the quorum, and the agents ran on their local gate)."""

    class Exited:
        returncode = 2

        def poll(self):
            return self.returncode

    class Running:
        def poll(self):
            return None

    def rig(self, process):
        r = player.Rig.__new__(player.Rig)
        r.rig, r.etcd = {"etcd": [{"log": "/tmp/m0.log"}]}, {0: process}
        return r

    def test_an_exited_member_fails_the_run(self):
        with self.assertRaises(SystemExit) as raised:
            self.rig(self.Exited()).etcd_alive(0)
        self.assertIn("etcd member 0 exited (2)", str(raised.exception))

    def test_a_running_member_passes(self):
        self.rig(self.Running()).etcd_alive(0)


if __name__ == "__main__":
    unittest.main()
