#!/usr/bin/python3 -I
"""Unit test of scripts/bench/availability_client.py's open-loop schedule and books (SPEC 10): a fake clock and
a fake session whose calls block, no Cassandra and no driver. A slot the client could not send in time counts as
a failed request ("missed"), and every latency runs from the slot's due instant, also for a request sent late.
Usage: availability_client_test.py [unittest args]"""
import heapq
import io
import os
import sys
import unittest

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "bench"))
import availability_client as client  # noqa: E402

T0 = 1000.0          # the fake monotonic clock at the schedule's start
UNIX_OFFSET = 1.7e9  # unix seconds minus the fake clock
RATE = 10            # slots 0.1 s apart
ANSWER_S = 0.05      # every request is answered this long after its call returns


class FakeClock:
    """Monotonic seconds that move only when the client waits or a fake call blocks; answers fire on time."""

    def __init__(self, stop_at):
        self.t, self.stop_at, self.queue, self.seq = T0, stop_at, [], 0

    def __call__(self):
        return self.t

    def at(self, when, fn):
        self.seq += 1
        heapq.heappush(self.queue, (when, self.seq, fn))

    def advance(self, seconds):
        target = self.t + seconds
        while self.queue and self.queue[0][0] <= target:
            when, _, fn = heapq.heappop(self.queue)
            self.t = max(self.t, when)
            fn()
        self.t = target

    def wait(self, seconds):  # as threading.Event.wait: returns early when the stop comes
        self.advance(min(seconds, max(self.stop_at - self.t, 0)))

    def stopped(self):
        return self.t >= self.stop_at


class FakeStatement:
    def __init__(self, op):
        self.op = op

    def bind(self, values):
        return self.op, values


class Row:
    def __init__(self, v):
        self.v = v


class FakeFuture:
    coordinator_host = "127.0.0.1:9042"

    def add_callbacks(self, ok, error):
        self.ok, self.error = ok, error


class BlockingSession:
    """execute_async blocks (the fake clock runs on) for the calls numbered in `blocks` (call number -> seconds);
    each call is answered ANSWER_S after it returns: a write acknowledged, a read with the value written."""

    def __init__(self, clock, blocks):
        self.clock, self.blocks, self.calls, self.stored = clock, blocks, 0, {}

    def execute_async(self, statement):
        op, values = statement
        self.clock.advance(self.blocks.get(self.calls, 0))
        self.calls += 1
        future = FakeFuture()
        if op == "write":
            self.stored[values[0]] = values[1]
            self.clock.at(self.clock.t + ANSWER_S, lambda: future.ok(None))
        else:
            self.clock.at(self.clock.t + ANSWER_S, lambda: future.ok([Row(self.stored.get(values[0]))]))
        return future


def play(blocks, stop_after_s=1.95):
    """Runs the schedule at RATE until T0 + stop_after_s, answers everything, returns (summary, lines): each line
    its fields split, as availability_report.py reads them."""
    clock = FakeClock(T0 + stop_after_s)
    out = io.StringIO()
    books = client.Books(out, clock, UNIX_OFFSET)
    requests = client.Requests(BlockingSession(clock, blocks), FakeStatement("write"), FakeStatement("read"),
                               "test", books, (TimeoutError,))
    client.run_schedule(RATE, clock, clock.wait, clock.stopped, books, requests.issue)
    clock.advance(10)  # every answer delivered
    books.unanswered()
    return books.summary(), [line.split() for line in out.getvalue().splitlines()]


def due_ms(slot):
    return int((T0 + slot / RATE + UNIX_OFFSET) * 1000)


class OpenLoopTest(unittest.TestCase):
    def test_on_time(self):
        summary, lines = play({})
        self.assertEqual(summary["slots"], 20)
        self.assertEqual((summary["sent"], summary["missed"], summary["answered"], summary["failed"]), (20, 0, 20, 0))
        self.assertEqual(len(lines), 20)
        for fields in lines:
            self.assertAlmostEqual(float(fields[2]), ANSWER_S * 1000, delta=0.2)

    def test_missed_slot_counts_failed(self):
        # The first call blocks 1.27 s: slots 1-7 (due 0.1-0.7 s) are more than 0.5 s late when the loop comes
        # back (missed), slots 8-12 are sent late, 13-19 on time.
        summary, lines = play({0: 1.27})
        self.assertEqual(summary["slots"], 20)
        self.assertEqual(summary["missed"], 7)
        self.assertEqual(summary["sent"], 13)
        self.assertEqual(summary["answered"], 13)
        self.assertEqual(summary["failed"], 7, "a missed slot is a failed request")
        self.assertEqual(summary["slots"], summary["sent"] + summary["missed"])
        self.assertEqual(summary["slots"], summary["answered"] + summary["failed"])
        missed = [f for f in lines if f[3] == "missed"]
        self.assertEqual(len(lines), 20, "every slot has its line, a missed one too")
        self.assertEqual(sorted(int(f[0]) for f in missed), [due_ms(s) for s in range(1, 8)])
        for fields in missed:  # how late the slot was when the client gave it up
            self.assertGreater(float(fields[2]), 500)

    def test_latency_from_due(self):
        summary, lines = play({0: 1.27})
        answered = {int(f[0]): float(f[2]) for f in lines if f[3] == "ok"}
        self.assertEqual(len(answered), 13, "each answered line starts at its own slot's due instant")
        # Slot 0: its call blocked 1.27 s, answered 0.05 s after.
        self.assertAlmostEqual(answered[due_ms(0)], 1320, delta=1)
        # Slots 8-12, sent at 1.27 s (late by 0.47-0.07 s), answered 0.05 s after their send: from their due instant.
        for slot in range(8, 13):
            self.assertIn(due_ms(slot), answered, f"slot {slot}'s line starts at its due instant")
            self.assertAlmostEqual(answered[due_ms(slot)], (1.27 + ANSWER_S - slot / RATE) * 1000, delta=1)
        for slot in range(13, 20):
            self.assertAlmostEqual(answered[due_ms(slot)], ANSWER_S * 1000, delta=1)

    def test_stop_while_behind(self):
        # The stop (SIGTERM) comes at 1.0 s while the first call blocks until 1.5 s: the slots due meanwhile are
        # still accounted (1-9 missed, 10-15 sent late), none dropped.
        summary, lines = play({0: 1.5}, stop_after_s=1.0)
        self.assertEqual((summary["slots"], summary["missed"], summary["sent"]), (16, 9, 7))
        self.assertEqual(summary["failed"], 9)
        self.assertEqual(len(lines), 16)

    def test_unanswered_from_due(self):
        clock = FakeClock(T0 + 0.05)
        out = io.StringIO()
        books = client.Books(out, clock, UNIX_OFFSET)
        books.slot()
        books.sent(0, T0, "write")
        clock.advance(0.3)
        books.sent(1, T0 + 0.1, "read")  # sent 0.2 s late
        clock.advance(12)
        books.unanswered()
        summary = books.summary()
        self.assertEqual((summary["failed"], summary["answered"]), (2, 0))
        lines = sorted(line.split() for line in out.getvalue().splitlines())
        self.assertEqual([int(f[0]) for f in lines], [due_ms(0), due_ms(1)])
        self.assertAlmostEqual(float(lines[0][2]), 12300, delta=1)
        self.assertAlmostEqual(float(lines[1][2]), 12200, delta=1)


if __name__ == "__main__":
    unittest.main()
