#!/usr/bin/python3 -I
"""Unit test of the game day's crash accounting (SPEC 10, issue 41): the player records when every other node
convicted a node whose JVM the cassandra_kill fault killed (gameday_player.py, Player.convicted, from their
Cassandra logs), and the checker counts the client's failures due from a request timeout before that kill until
then as failed_at_crash, every other failure as failed (gameday_check.py); a restarted etcd member that exits
fails the run (gameday_player.py). No Cassandra, no client, no etcd.
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


def kill(vm="vm1", t_ms=KILL_MS):
    return {"t_ms": t_ms, "action": "fault_applied", "episode": 2, "fault": "cassandra_kill", "vm": vm}


def convicted(vm="vm1", at_ms=KILL_MS + 5700, recorded_ms=KILL_MS + 9000):
    return {"t_ms": recorded_ms, "action": "node_convicted", "vm": vm, "t_convicted_ms": at_ms}


class CrashWindows(unittest.TestCase):
    def test_a_kill_spans_a_timeout_before_it_to_the_last_conviction(self):
        windows = check.crash_windows([kill(), convicted()], TIMEOUT_MS)
        self.assertEqual(windows, [("vm1", KILL_MS - TIMEOUT_MS, KILL_MS + 5700)])

    def test_a_kill_not_followed_by_its_conviction_has_no_window(self):
        stale = convicted(recorded_ms=KILL_MS - 60_000)  # an earlier kill's
        self.assertEqual(check.crash_windows([stale, kill()], TIMEOUT_MS), [])
        self.assertEqual(check.crash_windows([kill(), convicted(vm="vm2")], TIMEOUT_MS), [])

    def test_other_faults_have_none(self):
        disk = {"t_ms": KILL_MS, "action": "fault_applied", "episode": 0, "fault": "disk_full", "vm": "vm1"}
        self.assertEqual(check.crash_windows([disk, convicted()], TIMEOUT_MS), [])


class AtCrash(unittest.TestCase):
    WINDOWS = [("vm1", KILL_MS - TIMEOUT_MS, KILL_MS + 5700)]

    def test_unanswered_requests_due_in_the_window_are_the_crash_s(self):
        for due in (KILL_MS - TIMEOUT_MS, KILL_MS, KILL_MS + 5700):
            for outcome in ("timeout", "failed", "unanswered"):
                self.assertTrue(check.at_crash(due, outcome, self.WINDOWS), (due, outcome))

    def test_outside_the_window_or_not_a_failed_send_they_stay_failed(self):
        for due in (KILL_MS - TIMEOUT_MS - 1, KILL_MS + 5701):
            self.assertFalse(check.at_crash(due, "timeout", self.WINDOWS), due)
        for outcome in ("ok", "missed", "wrong", "empty"):  # the client starved, or a wrong answer: never a crash's
            self.assertFalse(check.at_crash(KILL_MS, outcome, self.WINDOWS), outcome)

    def test_the_requests_file_is_counted(self):
        lines = [f"{KILL_MS + 400} read 2000.8 timeout OperationTimedOut 127.0.0.3:9042 0",
                 f"{KILL_MS + 400} write 3.1 ok - 127.0.0.3:9042 0",
                 f"{KILL_MS + 500} - 700.0 missed - - 700",
                 f"{KILL_MS + 60_000} read 2000.5 timeout OperationTimedOut 127.0.0.6:9042 0"]
        with tempfile.NamedTemporaryFile("w", suffix=".requests", delete=False) as f:
            f.write("\n".join(lines) + "\n")
        try:
            self.assertEqual(check.failed_at_crash(f.name, self.WINDOWS), 1)
        finally:
            os.unlink(f.name)


class FakeRig:
    def __init__(self, vms):
        self.rig, self.acted = {"vms": vms}, []

    def act(self, action, **fields):
        self.acted.append(dict(action=action, **fields))


def log_line(t_ms, address):
    local = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(t_ms // 1000))
    return (f"INFO  [GossipStage:1] {local},{t_ms % 1000:03d} Gossiper.java:1508 - InetAddress /{address}:7000 "
            f"is now DOWN\n")


class Convicted(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.vms = {f"vm{k}": {"address": f"127.0.0.{k}", "system_log": os.path.join(self.dir.name, f"node{k}.log")}
                    for k in (1, 2, 3)}

    def tearDown(self):
        self.dir.cleanup()

    def write(self, vm, *lines):
        with open(self.vms[vm]["system_log"], "w") as f:
            f.writelines(lines)

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
