"""A steady Cassandra client for scripts/bench-availability.sh: writes and reads of a small table at
LOCAL_QUORUM, token-aware, idempotent, 2 s request timeout, at a fixed rate until SIGTERM.

Run with /usr/bin/python3 -I (Debian's python3-cassandra; the repo's cassandra/ would shadow the driver).
Writes one line per request to --out: start_unix_ms op latency_ms outcome error_class coordinator
(outcome: ok | timeout | failed; coordinator: the node of the driver's last attempt). Prints "ready" on
stdout once connected and the table exists.
"""
import argparse
import random
import signal
import sys
import threading
import time

from cassandra import ConsistencyLevel, OperationTimedOut, ReadTimeout, WriteTimeout
from cassandra.cluster import EXEC_PROFILE_DEFAULT, Cluster, ExecutionProfile
from cassandra.policies import ConstantReconnectionPolicy, DCAwareRoundRobinPolicy, TokenAwarePolicy

KEYS = 1000
TIMEOUTS = (OperationTimedOut, ReadTimeout, WriteTimeout)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--contacts", required=True, help="comma-separated node addresses")
    parser.add_argument("--rate", type=float, default=40, help="requests per second, half writes (default 40)")
    parser.add_argument("--out", required=True, help="where each request's line goes")
    args = parser.parse_args()

    profile = ExecutionProfile(
        load_balancing_policy=TokenAwarePolicy(DCAwareRoundRobinPolicy(local_dc="dc1")),
        consistency_level=ConsistencyLevel.LOCAL_QUORUM,
        request_timeout=2.0,
    )
    cluster = Cluster(args.contacts.split(","), execution_profiles={EXEC_PROFILE_DEFAULT: profile},
                      protocol_version=5, reconnection_policy=ConstantReconnectionPolicy(1.0))
    session = cluster.connect()
    session.execute("CREATE TABLE IF NOT EXISTS lifecycle.availability (k int PRIMARY KEY, v text)",
                    timeout=30)
    write = session.prepare("INSERT INTO lifecycle.availability (k, v) VALUES (?, ?)")
    read = session.prepare("SELECT v FROM lifecycle.availability WHERE k = ?")
    write.is_idempotent = read.is_idempotent = True

    out = open(args.out, "w", buffering=1)
    lock = threading.Lock()
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())

    def record(started, op, future, outcome, error=""):
        latency_ms = (time.time() - started) * 1000
        # (coordinator_host is set by a response only; a client-side timeout leaves the attempt's host)
        host = future.coordinator_host or getattr(future, "_current_host", None)
        coordinator = getattr(host, "endpoint", host) or "-"
        with lock:
            out.write(f"{int(started * 1000)} {op} {latency_ms:.1f} {outcome} {error or '-'} {coordinator}\n")

    def issue(op):
        started = time.time()
        key = random.randrange(KEYS)
        bound = write.bind((key, f"value-{started}")) if op == "write" else read.bind((key,))
        future = session.execute_async(bound)
        future.add_callbacks(lambda _: record(started, op, future, "ok"),
                             lambda e: record(started, op, future,
                                              "timeout" if isinstance(e, TIMEOUTS) else "failed", type(e).__name__))

    print("ready", flush=True)
    interval = 1.0 / args.rate
    next_at = time.monotonic()
    n = 0
    while not stop.is_set():
        issue("write" if n % 2 == 0 else "read")
        n += 1
        # A stalled loop (a starved machine, a blocking driver call) skips the slots it missed instead of
        # sending them in a burst that would overload the cluster by itself.
        next_at = max(next_at + interval, time.monotonic())
        stop.wait(next_at - time.monotonic())
    time.sleep(2.5)  # the last requests end (ok or by their 2 s timeout) before the file closes
    with lock:
        out.close()
    cluster.shutdown()


if __name__ == "__main__":
    sys.exit(main())
