"""An open-loop, auditing Cassandra client for scripts/bench-availability.sh: writes and reads at LOCAL_QUORUM,
token-aware, idempotent, 2 s request timeout, on a fixed send schedule until SIGTERM; then every acknowledged
write is read back at ALL.

Run with the interpreter whose driver is measured, isolated (-I): /usr/bin/python3 -I (Debian's
python3-cassandra) or a venv's python -I (the repo's cassandra/ would shadow the driver otherwise).

Open loop: slot i is due at start + i/rate whatever the cluster does; a slot the client could not send within
0.5 s of its time (the process starved, a driver call blocked) is counted as missed, not sent late in a burst.
Every sent request ends in exactly one outcome (a callback, or "unanswered" when none came within the request
timeout plus 10 s): sent = answered + failed.
Every write is a new key whose value names it ("<key>|<random>"); every read asks a key whose write was
acknowledged and checks the value: ok, wrong (a value never written for that key, e.g. another request's late
answer handed over by the driver: apache/cassandra-python-driver#1114) or empty (no row although the write
was acknowledged at LOCAL_QUORUM).

--out gets one line per request: start_unix_ms op latency_ms outcome error coordinator late_ms
(outcome: ok | wrong | empty | timeout | failed | unanswered; coordinator: the node of the last attempt).
--summary gets one JSON object at the end: driver, slots, sent, missed, answered, failed, wrong, empty, acked,
lost, unverified (acknowledged writes the read-back at ALL could not read after retries: not checked).
Prints "ready" on stdout once connected and the table exists.
"""
import argparse
import collections
import json
import random
import signal
import sys
import threading
import time

import cassandra
from cassandra import ConsistencyLevel, OperationTimedOut, ReadTimeout, WriteTimeout
from cassandra.cluster import EXEC_PROFILE_DEFAULT, Cluster, ExecutionProfile
from cassandra.concurrent import execute_concurrent_with_args
from cassandra.policies import ConstantReconnectionPolicy, DCAwareRoundRobinPolicy, TokenAwarePolicy

TIMEOUTS = (OperationTimedOut, ReadTimeout, WriteTimeout)
REQUEST_TIMEOUT_S = 2.0
MISS_AFTER_S = 0.5      # a slot not sent within this of its time is missed
RECENT_KEYS = 2000      # reads pick among the most recently acknowledged writes
READBACK_ROUNDS = 5     # the read-back at ALL retries what it could not read, 2 s apart


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--contacts", required=True, help="comma-separated node addresses")
    parser.add_argument("--rate", type=float, default=50, help="requests per second, half writes (default 50)")
    parser.add_argument("--out", required=True, help="where each request's line goes")
    parser.add_argument("--summary", required=True, help="where the run's JSON summary goes")
    parser.add_argument("--run-id", required=True, help="prefix of this run's keys (unique per run)")
    args = parser.parse_args()

    def profile(level):
        return ExecutionProfile(load_balancing_policy=TokenAwarePolicy(DCAwareRoundRobinPolicy(local_dc="dc1")),
                                consistency_level=level, request_timeout=REQUEST_TIMEOUT_S)

    cluster = Cluster(args.contacts.split(","), protocol_version=5,
                      execution_profiles={EXEC_PROFILE_DEFAULT: profile(ConsistencyLevel.LOCAL_QUORUM)},
                      reconnection_policy=ConstantReconnectionPolicy(1.0))
    session = cluster.connect()
    session.execute("CREATE TABLE IF NOT EXISTS lifecycle.audit (k text PRIMARY KEY, v text)", timeout=60)
    write = session.prepare("INSERT INTO lifecycle.audit (k, v) VALUES (?, ?)")
    read = session.prepare("SELECT v FROM lifecycle.audit WHERE k = ?")
    read_all = session.prepare("SELECT v FROM lifecycle.audit WHERE k = ?")
    read_all.consistency_level = ConsistencyLevel.ALL  # the statement's level overrides the profile's
    write.is_idempotent = read.is_idempotent = read_all.is_idempotent = True

    out = open(args.out, "w", buffering=1)
    lock = threading.Lock()
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    counts = collections.Counter()
    acked = {}                                  # key -> value, every acknowledged write
    recent = collections.deque(maxlen=RECENT_KEYS)
    pending = {}                                # slot -> ((sent_at, late_ms), op), until its one outcome

    def finish(slot, op, future, outcome, error="-"):
        with lock:
            sent, _ = pending.pop(slot, (None, None))
            if sent is None:
                return  # already counted (a second callback, or counted unanswered)
            started, late_ms = sent
            counts["answered" if outcome in ("ok", "wrong", "empty") else "failed"] += 1
            counts[outcome] += 1
            latency_ms = (time.time() - started) * 1000
            # (coordinator_host is set by a response only; a client-side timeout leaves the attempt's host)
            host = future.coordinator_host or getattr(future, "_current_host", None) if future else None
            coordinator = getattr(host, "endpoint", host) or "-"
            out.write(f"{int(started * 1000)} {op} {latency_ms:.1f} {outcome} {error} {coordinator} {late_ms:.0f}\n")

    def on_write(slot, future, key, value):
        def ok(_):
            with lock:
                acked[key] = value
                recent.append(key)
            finish(slot, "write", future, "ok")
        return ok

    def on_read(slot, future, key):
        def ok(rows):
            rows = list(rows or [])
            if not rows:
                finish(slot, "read", future, "empty", key)
                return
            value = getattr(rows[0], "v", None)
            finish(slot, "read", future, "ok" if value == acked.get(key) else "wrong",
                   "-" if value == acked.get(key) else f"{key}->{value}")
        return ok

    def on_error(slot, op, future):
        return lambda e: finish(slot, op, future, "timeout" if isinstance(e, TIMEOUTS) else "failed",
                                type(e).__name__)

    def issue(slot, late_s):
        with lock:
            key = random.choice(recent) if slot % 2 and recent else None
        op = "read" if key else "write"
        with lock:
            pending[slot] = ((time.time(), late_s * 1000), op)
            counts["sent"] += 1
        if op == "write":
            key = f"{args.run_id}-{slot}"
            value = f"{key}|{random.getrandbits(64):016x}"
            future = session.execute_async(write.bind((key, value)))
            future.add_callbacks(on_write(slot, future, key, value), on_error(slot, op, future))
        else:
            future = session.execute_async(read.bind((key,)))
            future.add_callbacks(on_read(slot, future, key), on_error(slot, op, future))

    print("ready", flush=True)
    interval = 1.0 / args.rate
    start = time.monotonic()
    slot = 0
    while not stop.is_set():
        now = time.monotonic()
        due = start + slot * interval
        if now < due:
            stop.wait(due - now)
            continue
        counts["slots"] += 1
        if now - due > MISS_AFTER_S:
            counts["missed"] += 1
        else:
            issue(slot, now - due)
        slot += 1

    # Every sent request gets its outcome: the driver's callback, or "unanswered" after its timeout + 10 s.
    deadline = time.monotonic() + REQUEST_TIMEOUT_S + 10
    while time.monotonic() < deadline:
        with lock:
            if not pending:
                break
        time.sleep(0.1)
    with lock:
        left = list(pending.items())
    for slot, (_, op) in left:
        finish(slot, op, None, "unanswered")

    # Every acknowledged write read back at ALL (every replica): a row missing or holding another value is lost.
    with lock:
        to_check = dict(acked)
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
    summary = {"driver": cassandra.__version__, "slots": counts["slots"], "sent": counts["sent"],
               "missed": counts["missed"], "answered": counts["answered"], "failed": counts["failed"],
               "wrong": counts["wrong"], "empty": counts["empty"], "acked": len(to_check), "lost": lost,
               "unverified": len(keys)}
    with open(args.summary, "w") as f:
        json.dump(summary, f)
    out.close()
    cluster.shutdown()
    return 0 if summary["sent"] == summary["answered"] + summary["failed"] else 1


if __name__ == "__main__":
    sys.exit(main())
