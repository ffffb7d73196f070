"""An open-loop, auditing Cassandra client for scripts/bench-availability.sh: writes and reads at LOCAL_QUORUM
in its --local-dc (its nodes coordinate), token-aware, idempotent, 2 s request timeout, on a fixed send schedule
until SIGTERM; then every acknowledged write is read back at ALL.

Run with the interpreter whose driver is measured, isolated (-I): /usr/bin/python3 -I (Debian's
python3-cassandra) or a venv's python -I (the repo's cassandra/ would shadow the driver otherwise).

Open loop (SPEC 10): slot i is a request due at start + i/rate whatever the cluster does. A slot the client
could not send within 0.5 s of its due instant (the process starved, a driver call blocked) is not sent late in a
burst: it is "missed", and a missed slot is a failed request. Every slot the schedule reached before SIGTERM is
either sent or missed; every sent request ends in exactly one outcome (a callback, or "unanswered" when none came
within the request timeout plus 10 s). So: slots = sent + missed = answered + failed, missed counted in failed.
Latency runs from the slot's due instant, not from the send: a request sent 0.3 s late and answered 0.1 s after
its send took 400 ms; a missed slot's is how late it was when the client gave it up.
Every write is a new key whose value names it ("<key>|<random>"); every read asks a key whose write was
acknowledged and checks the value: ok, wrong (a value never written for that key, e.g. another request's late
answer handed over by the driver: apache/cassandra-python-driver#1114) or empty (no row although the write
was acknowledged at LOCAL_QUORUM).

--out gets one line per slot: due_unix_ms op latency_ms outcome error coordinator late_ms
(outcome: ok | wrong | empty | timeout | failed | unanswered | missed; op "-" for a missed slot; coordinator: the
node of the last attempt; late_ms: how late the send was, or the slot when it was missed).
--summary gets one JSON object at the end: driver, slots, sent, missed, answered, failed (missed included), wrong,
empty, acked, lost, unverified (acknowledged writes the read-back at ALL could not read after retries: not
checked). The exit status is 1 when slots != sent + missed or slots != answered + failed.
Prints "ready" on stdout once connected and the table exists. Why the schedule fell behind goes to stderr
(StallWatch: where the schedule thread was blocked, a pause of the whole process, long full collections).
Its scheduling and accounting are tested with a fake clock by tests/bench/availability_client_test.py.
"""
import argparse
import collections
import gc
import json
import random
import signal
import sys
import threading
import time
import traceback

REQUEST_TIMEOUT_S = 2.0
MISS_AFTER_S = 0.5      # a slot not sent within this of its time is missed
RECENT_KEYS = 2000      # reads pick among the most recently acknowledged writes
READBACK_ROUNDS = 5     # the read-back at ALL retries what it could not read, 2 s apart


class Books:
    """Every request's one outcome, its line in --out and the counts; callbacks come from the driver's threads.
    clock: monotonic seconds; unix_offset: unix seconds minus clock() (for the lines' start_unix_ms)."""

    def __init__(self, out, clock, unix_offset):
        self.out, self.clock, self.unix_offset = out, clock, unix_offset
        self.lock = threading.Lock()
        self.counts = collections.Counter()
        self.acked = {}                                   # key -> value, every acknowledged write
        self.recent = collections.deque(maxlen=RECENT_KEYS)
        self.pending = {}                                 # slot -> ((due, late_ms), op), until its one outcome

    def slot(self):
        with self.lock:
            self.counts["slots"] += 1

    def missed(self, slot, due, now):
        """A slot not sent in time: a failed request, its latency how late it was when given up."""
        late_ms = (now - due) * 1000
        with self.lock:
            self.counts["missed"] += 1
            self.counts["failed"] += 1
            self.out.write(f"{self.unix_ms(due)} - {late_ms:.1f} missed - - {late_ms:.0f}\n")

    def sent(self, slot, due, op):
        now = self.clock()
        with self.lock:
            self.pending[slot] = ((due, (now - due) * 1000), op)
            self.counts["sent"] += 1

    def unix_ms(self, t):
        return int((t + self.unix_offset) * 1000)

    def acknowledged(self, key, value):
        with self.lock:
            self.acked[key] = value
            self.recent.append(key)

    def read_key(self, slot):
        """A recently acknowledged key for an odd slot to read, or None (a write)."""
        with self.lock:
            return random.choice(self.recent) if slot % 2 and self.recent else None

    def finish(self, slot, op, future, outcome, error="-"):
        with self.lock:
            sent, _ = self.pending.pop(slot, (None, None))
            if sent is None:
                return  # already counted (a second callback, or counted unanswered)
            due, late_ms = sent
            self.counts["answered" if outcome in ("ok", "wrong", "empty") else "failed"] += 1
            self.counts[outcome] += 1
            latency_ms = (self.clock() - due) * 1000  # from the due instant, not the send
            # (coordinator_host is set by a response only; a client-side timeout leaves the attempt's host)
            host = future.coordinator_host or getattr(future, "_current_host", None) if future else None
            coordinator = getattr(host, "endpoint", host) or "-"
            self.out.write(f"{self.unix_ms(due)} {op} {latency_ms:.1f} {outcome} {error} {coordinator} {late_ms:.0f}\n")

    def unanswered(self):
        """Every request still without an outcome gets "unanswered"."""
        with self.lock:
            left = list(self.pending.items())
        for slot, (_, op) in left:
            self.finish(slot, op, None, "unanswered")

    def outstanding(self):
        with self.lock:
            return len(self.pending)

    def summary(self):
        with self.lock:
            c = self.counts
            return {"slots": c["slots"], "sent": c["sent"], "missed": c["missed"], "answered": c["answered"],
                    "failed": c["failed"], "wrong": c["wrong"], "empty": c["empty"]}


class Requests:
    """What one slot sends: a write of a new key, or (odd slots) a read of an acknowledged one, its value checked.
    session.execute_async(statement) returns a future with add_callbacks(ok, error)."""

    def __init__(self, session, write, read, run_id, books, timeouts):
        self.session, self.write, self.read, self.run_id = session, write, read, run_id
        self.books, self.timeouts = books, timeouts

    def issue(self, slot, due):
        books = self.books
        key = books.read_key(slot)
        op = "read" if key else "write"
        books.sent(slot, due, op)
        if op == "write":
            key = f"{self.run_id}-{slot}"
            value = f"{key}|{random.getrandbits(64):016x}"
            future = self.session.execute_async(self.write.bind((key, value)))
            future.add_callbacks(self.on_write(slot, future, key, value), self.on_error(slot, op, future))
        else:
            future = self.session.execute_async(self.read.bind((key,)))
            future.add_callbacks(self.on_read(slot, future, key), self.on_error(slot, op, future))

    def on_write(self, slot, future, key, value):
        def ok(_):
            self.books.acknowledged(key, value)
            self.books.finish(slot, "write", future, "ok")
        return ok

    def on_read(self, slot, future, key):
        def ok(rows):
            rows = list(rows or [])
            if not rows:
                self.books.finish(slot, "read", future, "empty", key)
                return
            value = getattr(rows[0], "v", None)
            expected = self.books.acked.get(key)
            self.books.finish(slot, "read", future, "ok" if value == expected else "wrong",
                              "-" if value == expected else f"{key}->{value}")
        return ok

    def on_error(self, slot, op, future):
        return lambda e: self.books.finish(slot, op, future,
                                           "timeout" if isinstance(e, self.timeouts) else "failed",
                                           type(e).__name__)


class StallWatch:
    """Says on stderr why the schedule fell behind, for the missed slots' explanation: every 50 ms it looks at
    whether the schedule reached a new slot; once it has not for 0.3 s, it prints the schedule thread's stack
    (where it is blocked) once per stall, and how late its own tick came (a pause of the whole process, a long
    garbage collection or the process not running, delays this thread too). Collections of Python's oldest
    generation over 0.1 s are printed as well."""

    def __init__(self, books, stopped, thread_id, clock=time.monotonic, err=sys.stderr):
        self.books, self.stopped, self.thread_id, self.clock, self.err = books, stopped, thread_id, clock, err
        self.gc_started = None
        gc.callbacks.append(self.on_gc)
        threading.Thread(target=self.run, name="stall-watch", daemon=True).start()

    def say(self, text):
        print(f"{time.strftime('%H:%M:%S', time.gmtime())} {text}", file=self.err, flush=True)

    def on_gc(self, phase, info):
        if info.get("generation") != 2:
            return
        if phase == "start":
            self.gc_started = self.clock()
        elif self.gc_started is not None and self.clock() - self.gc_started > 0.1:
            self.say(f"stall-watch: a full garbage collection took {self.clock() - self.gc_started:.3f} s")

    def run(self):
        slots, moved, reported, tick = self.books.counts["slots"], self.clock(), False, self.clock()
        while not self.stopped():
            time.sleep(0.05)
            now = self.clock()
            if now - tick > 0.3:
                self.say(f"stall-watch: this thread's 50 ms sleep took {now - tick:.3f} s (the process paused)")
            tick = now
            if self.books.counts["slots"] != slots:
                slots, moved, reported = self.books.counts["slots"], now, False
            elif now - moved > 0.3 and not reported:
                reported = True
                frame = sys._current_frames().get(self.thread_id)
                stack = "".join(traceback.format_stack(frame)) if frame else "(no frame)\n"
                self.say(f"stall-watch: the schedule has not reached a slot for {now - moved:.3f} s; it is at:\n"
                         f"{stack}")


def run_schedule(rate, clock, wait, stopped, books, issue, miss_after_s=MISS_AFTER_S):
    """The open-loop schedule: slot i is due at start + i/rate; wait(s) sleeps (or returns early when stopped).
    Every slot due before the stop is accounted, sent or missed, before the loop ends: a stop that comes while
    the client is behind does not drop the slots it had not reached."""
    interval = 1.0 / rate
    start = clock()
    slot = 0
    while True:
        now = clock()
        due = start + slot * interval
        if now < due:
            if stopped():
                break
            wait(due - now)
            continue
        books.slot()
        if now - due > miss_after_s:
            books.missed(slot, due, now)
        else:
            issue(slot, due)
        slot += 1


def main():
    import cassandra
    from cassandra import ConsistencyLevel, OperationTimedOut, ReadTimeout, WriteTimeout
    from cassandra.cluster import EXEC_PROFILE_DEFAULT, Cluster, ExecutionProfile
    from cassandra.concurrent import execute_concurrent_with_args
    from cassandra.policies import ConstantReconnectionPolicy, DCAwareRoundRobinPolicy, TokenAwarePolicy

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--contacts", required=True, help="comma-separated node addresses")
    parser.add_argument("--rate", type=float, default=50, help="requests per second, half writes (default 50)")
    parser.add_argument("--out", required=True, help="where each request's line goes")
    parser.add_argument("--summary", required=True, help="where the run's JSON summary goes")
    parser.add_argument("--run-id", required=True, help="prefix of this run's keys (unique per run)")
    parser.add_argument("--keyspace", default="lifecycle", help="the keyspace of its table audit (default lifecycle)")
    parser.add_argument("--local-dc", default="dc1",
                        help="the DC whose nodes coordinate its requests, LOCAL_QUORUM's DC (default dc1)")
    args = parser.parse_args()
    table = f"{args.keyspace}.audit"

    def profile(level):
        return ExecutionProfile(load_balancing_policy=TokenAwarePolicy(DCAwareRoundRobinPolicy(local_dc=args.local_dc)),
                                consistency_level=level, request_timeout=REQUEST_TIMEOUT_S)

    cluster = Cluster(args.contacts.split(","), protocol_version=5,
                      execution_profiles={EXEC_PROFILE_DEFAULT: profile(ConsistencyLevel.LOCAL_QUORUM)},
                      reconnection_policy=ConstantReconnectionPolicy(1.0))
    session = cluster.connect()
    session.execute(f"CREATE TABLE IF NOT EXISTS {table} (k text PRIMARY KEY, v text)", timeout=60)
    write = session.prepare(f"INSERT INTO {table} (k, v) VALUES (?, ?)")
    read = session.prepare(f"SELECT v FROM {table} WHERE k = ?")
    read_all = session.prepare(f"SELECT v FROM {table} WHERE k = ?")
    read_all.consistency_level = ConsistencyLevel.ALL  # the statement's level overrides the profile's
    write.is_idempotent = read.is_idempotent = read_all.is_idempotent = True

    out = open(args.out, "w", buffering=1)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    books = Books(out, time.monotonic, time.time() - time.monotonic())
    requests = Requests(session, write, read, args.run_id, books, (OperationTimedOut, ReadTimeout, WriteTimeout))

    print("ready", flush=True)
    StallWatch(books, stop.is_set, threading.get_ident())
    run_schedule(args.rate, time.monotonic, stop.wait, stop.is_set, books, requests.issue)

    # Every sent request gets its outcome: the driver's callback, or "unanswered" after its timeout + 10 s.
    deadline = time.monotonic() + REQUEST_TIMEOUT_S + 10
    while time.monotonic() < deadline and books.outstanding():
        time.sleep(0.1)
    books.unanswered()

    # Every acknowledged write read back at ALL (every replica): a row missing or holding another value is lost.
    with books.lock:
        to_check = dict(books.acked)
    lost, keys = 0, list(to_check)
    for round_ in range(READBACK_ROUNDS):
        if not keys:
            break
        if round_:
            time.sleep(2)
        results = execute_concurrent_with_args(session, read_all, [(k,) for k in keys], concurrency=32,
                                               raise_on_first_error=False)
        unread = []
        for key, (success, result) in zip(keys, results):
            if not success:
                unread.append(key)
                continue
            rows = list(result or [])
            if not rows or rows[0].v != to_check[key]:
                lost += 1
                print(f"lost: {key} acknowledged as {to_check[key]!r}, read at ALL: "
                      f"{rows[0].v if rows else None!r}", file=sys.stderr)
        keys = unread
    summary = {"driver": cassandra.__version__, **books.summary(), "acked": len(to_check), "lost": lost,
               "unverified": len(keys)}
    with open(args.summary, "w") as f:
        json.dump(summary, f)
    out.close()
    cluster.shutdown()
    balanced = summary["slots"] == summary["sent"] + summary["missed"] == summary["answered"] + summary["failed"]
    if not balanced:
        print(f"unbalanced books: {summary}", file=sys.stderr)
    return 0 if balanced else 1

if __name__ == "__main__":
    sys.exit(main())
