"""Figures of scripts/bench-drain.sh for one backend: per cycle from the agent's own log lines, CPU from the
samples of the agent's cgroup, and when the node's peers marked it down from the nodes' system.log.

A cycle is one Freeze of the node's VM: its drain timer fires at NotBefore - drain_lead_s - expected_drain_s
(drain_started's own fields), the agent asks the gate (the instant drain_completed's gate_and_drain_ms counts
from), drain_started when the gate said safe, drain_step_done per step (command_ms), drain_completed,
event_approved; after the event is gone restore_started, the calls of the restore (nodetool_ran, debug level)
and restore_completed. CPU at an instant is the cgroup's cumulative usage interpolated between the two samples
around it ("epoch_us usage_ns" lines). Prints the table, then one line "summary key=value ...".
Exits 1 when a cycle lacks a drain, an approval or a restore, or its event was seen after its drain timer.
"""
import argparse
import bisect
import datetime
import email.utils
import json
import math
import re
import sys


def percentile(sorted_values, p):
    rank = math.ceil(p / 100 * len(sorted_values))  # nearest rank
    return sorted_values[max(rank, 1) - 1]


def ts_ms(line):
    t = datetime.datetime.strptime(line["ts"], "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=datetime.timezone.utc)
    return t.timestamp() * 1000


def read_log(path):
    lines = []
    with open(path) as f:
        for raw in f:
            line = json.loads(raw)
            line["t"] = ts_ms(line)
            lines.append(line)
    return lines


class Cpu:
    """The cgroup's cumulative CPU (seconds) at any instant of the run, from its samples."""

    def __init__(self, path):
        self.t, self.s = [], []
        with open(path) as f:
            for raw in f:
                fields = raw.split()
                if len(fields) == 2:
                    self.t.append(int(fields[0]) / 1000)  # ms
                    self.s.append(int(fields[1]) / 1e9)

    def at(self, t_ms):
        i = bisect.bisect_left(self.t, t_ms)
        if i == 0 or i == len(self.t):
            raise SystemExit(f"no CPU sample around {t_ms:.0f} ms (sampler stopped?)")
        t0, t1, s0, s1 = self.t[i - 1], self.t[i], self.s[i - 1], self.s[i]
        return s0 + (s1 - s0) * (t_ms - t0) / (t1 - t0) if t1 > t0 else s1

    def between(self, a_ms, b_ms):
        return self.at(b_ms) - self.at(a_ms)


MARK = re.compile(r"(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}) .*InetAddress /([0-9.]+):\d+ is now (DOWN|UP)")
STOP = re.compile(r"(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}) .*Stopping gossip by operator request")
START = re.compile(r"(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}) .*Starting gossip by operator request")


def log_ms(stamp):  # logback's ISO8601, the machine's local time
    return datetime.datetime.strptime(stamp, "%Y-%m-%d %H:%M:%S,%f").timestamp() * 1000


def gossip_times(node_log, peer_logs, address):
    """When the node began stopGossiping and startGossiping (its own log), and when each peer marked it DOWN
    and UP."""
    with open(node_log, errors="replace") as f:
        lines = f.readlines()
    stops = [log_ms(m.group(1)) for m in map(STOP.search, lines) if m]
    starts = [log_ms(m.group(1)) for m in map(START.search, lines) if m]
    downs, ups = {}, {}
    for peer in peer_logs:
        with open(peer, errors="replace") as f:
            marks = [m for m in map(MARK.search, f) if m and m.group(2) == address]
        downs[peer] = [log_ms(m.group(1)) for m in marks if m.group(3) == "DOWN"]
        ups[peer] = [log_ms(m.group(1)) for m in marks if m.group(3) == "UP"]
    return stops, starts, downs, ups


def peers_up_again(stop, starts, downs, ups):
    """How many peers marked the node UP again after their DOWN, while its gossip stayed stopped (before its
    next startGossiping): Cassandra's gossip can bring a node that announced its shutdown back UP in a peer's
    view (docs/benchmarks.md), and that peer then sends it replica reads until its failure detector convicts it."""
    end = min((t for t in starts if t > stop), default=math.inf)
    flipped = 0
    for peer, peer_downs in downs.items():
        down = min((t for t in peer_downs if stop <= t < end), default=None)
        if down is not None and any(down <= t < end for t in ups[peer]):
            flipped += 1
    return flipped


def first_after(times, t, limit_ms):
    later = [x for x in times if t <= x <= t + limit_ms]
    return min(later) if later else None


def cycle_figures(log, event_id, lead_s, cpu):
    """One cycle's figures (ms, CPU-s), or the reason it does not count."""
    def lines(msg, after=0.0, before=math.inf):
        return [l for l in log if l["msg"] == msg and after <= l["t"] <= before and
                l.get("event_id", event_id).upper() == event_id.upper()]

    seen, started, completed = lines("event_seen"), lines("drain_started"), lines("drain_completed")
    approved, removed = lines("event_approved"), lines("event_removed")
    if not (seen and started and completed and approved and removed):
        missing = [n for n, v in (("event_seen", seen), ("drain_started", started), ("drain_completed", completed),
                                  ("event_approved", approved), ("event_removed", removed)) if not v]
        return None, f"event {event_id}: no {', '.join(missing)}"
    s, c = started[0], completed[0]
    bad = [l["msg"] for l in log if l["msg"] in ("drain_forced_unsafe", "unsafe_to_drain", "nodetool_failed")
           and l.get("event_id", "").upper() == event_id.upper()]
    if bad or s["forced_unsafe"] or s["emergency"]:
        return None, f"event {event_id}: not a plain gated drain ({', '.join(bad) or 'forced or emergency'})"
    not_before = email.utils.parsedate_to_datetime(s["not_before"]).timestamp() * 1000
    timer = not_before - lead_s * 1000 - s["expected_drain_s"] * 1000
    asked = c["t"] - c["gate_and_drain_ms"]
    if seen[0]["t"] > timer:
        return None, f"event {event_id}: seen {seen[0]['t'] - timer:.0f} ms after its drain timer (notice too short)"
    rs = [l for l in log if l["msg"] == "restore_started" and l["t"] >= removed[0]["t"]]
    rc = [l for l in log if l["msg"] == "restore_completed" and rs and l["t"] >= rs[0]["t"]]
    if not rs or not rc:
        return None, f"event {event_id}: no restore after it was removed"
    r0, r1 = rs[0]["t"], rc[0]["t"]
    f = {"wake_ms": asked - timer, "gate_ms": s["t"] - asked, "drain_ms": c["t"] - timer,
         "steps_ms": c["t"] - s["t"], "approve_ms": approved[0]["t"] - c["t"],
         "removed_to_restore_ms": r0 - removed[0]["t"], "restore_ms": r1 - r0,
         "cpu_gate_s": cpu.between(asked, s["t"]), "cpu_steps_s": cpu.between(s["t"], c["t"]),
         "cpu_drain_s": cpu.between(timer, c["t"]), "cpu_restore_s": cpu.between(r0, r1),
         "disablegossip_at": None, "timer": timer}
    for step in lines("drain_step_done", s["t"], c["t"]):
        f[step["step"] + "_ms"] = step["command_ms"]
        if step["step"] == "disablebinary":
            f["clients_out_ms"] = step["t"] - timer
        if step["step"] == "disablegossip":
            f["disablegossip_at"] = step["t"] - step["command_ms"]
    calls = [l for l in log if l["msg"] == "nodetool_ran"]
    f["gate_calls"] = sorted({l["subcommand"] for l in calls if asked <= l["t"] <= s["t"]})
    f["gate_refreshed"] = any(l["msg"] == "schema_refreshed" and asked <= l["t"] <= s["t"] for l in log)
    for l in calls:
        if r0 <= l["t"] <= r1 and l["subcommand"] in ("enablegossip", "enablebinary", "statusgossip", "statusbinary"):
            f.setdefault(l["subcommand"] + "_ms", l["duration_ms"])
    return f, None


def idle_cpu(log, cpu):
    """CPU-s a second of the agent only polling: from 1 s after its start-up's schema refresh to the first event."""
    start = next((l["t"] + 1000 for l in log if l["msg"] == "schema_refreshed"), None)
    seen = next((l["t"] for l in log if l["msg"] == "event_seen"), None)
    if start is None or seen is None or seen - start < 2000:
        return None
    return cpu.between(start, seen) / ((seen - start) / 1000)


ROWS = [  # key, label
    ("wake_ms", "timer -> gate asked (the agent's wake-up)"),
    ("gate_ms", "gate check (asked -> safe, drain_started)"),
    ("disablebinary_ms", "  disablebinary (command_ms)"),
    ("disablegossip_ms", "  disablegossip (command_ms)"),
    ("steps_ms", "drain steps (drain_started -> drain_completed)"),
    ("clients_out_ms", "timer -> disablebinary done (clients away)"),
    ("drain_ms", "DRAIN from its timer -> drain_completed"),
    ("approve_ms", "drain_completed -> event_approved"),
    ("peers_down_ms", "stopGossiping begun -> last peer marks it DOWN"),
    ("peers_out_ms", "timer -> last peer marks it DOWN (replica traffic away)"),
    ("removed_to_restore_ms", "event removed (seen) -> restore_started"),
    ("enablegossip_ms", "  enablegossip (nodetool_ran)"),
    ("enablebinary_ms", "  enablebinary (nodetool_ran)"),
    ("statusgossip_ms", "  statusgossip (confirmation, beside statusbinary)"),
    ("statusbinary_ms", "  statusbinary (confirmation)"),
    ("restore_ms", "RESTORE restore_started -> restore_completed"),
]
CPU_ROWS = [
    ("cpu_gate_s", "gate check"),
    ("cpu_steps_s", "drain steps"),
    ("cpu_drain_s", "drain from its timer (gate + steps)"),
    ("cpu_restore_s", "restore"),
]


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--log", required=True, help="the agent's log (debug level)")
    p.add_argument("--events", required=True, help="'EVENT_ID measured|warmup' lines, one a cycle")
    p.add_argument("--cpu", required=True, help="'epoch_us usage_ns' samples of the agent's cgroup")
    p.add_argument("--lead-s", type=float, required=True, help="the agent's policy.drain_lead_s")
    p.add_argument("--address", required=True, help="the drained node's address")
    p.add_argument("--node-log", required=True, help="the drained node's system.log")
    p.add_argument("--peer-log", action="append", default=[], help="a peer's system.log (repeatable)")
    p.add_argument("--title", required=True)
    args = p.parse_args()

    log, cpu = read_log(args.log), Cpu(args.cpu)
    stops, starts, downs, ups = gossip_times(args.node_log, args.peer_log, args.address)
    cycles, problems = [], []
    with open(args.events) as f:
        for raw in f:
            event_id, kind = raw.split()
            figures, problem = cycle_figures(log, event_id, args.lead_s, cpu)
            if problem:
                problems.append(problem)
                continue
            if figures["disablegossip_at"] is not None:
                stop = first_after(stops, figures["disablegossip_at"] - 50, 60_000)
                peers = [first_after(d, stop, 30_000) for d in downs.values()] if stop else []
                if peers and None not in peers:
                    figures["peers_down_ms"] = max(peers) - stop
                    figures["peers_out_ms"] = max(peers) - figures["timer"]
                if stop:
                    figures["peers_up_again"] = peers_up_again(stop, starts, downs, ups)
            if kind == "measured":
                cycles.append(figures)
    if problems:
        print(f"{args.title}: cycles that did not drain, approve and restore as planned:", file=sys.stderr)
        for problem in problems:
            print(f"  {problem}", file=sys.stderr)
        sys.exit(1)
    if not cycles:
        sys.exit(f"{args.title}: no measured cycle")

    n = len(cycles)
    print(f"{args.title}: {n} measured cycles (p99 is the nearest rank of {n} samples"
          f"{': the largest' if n < 100 else ''})")
    print(f"  {'latency, ms':<58} {'n':>3} {'p50':>8} {'p99':>8} {'max':>8}")
    summary = {}
    for key, label in ROWS:
        values = sorted(c[key] for c in cycles if c.get(key) is not None)
        if not values:
            continue
        p50, p99 = percentile(values, 50), percentile(values, 99)
        print(f"  {label:<58} {len(values):>3} {p50:>8.1f} {p99:>8.1f} {values[-1]:>8.1f}")
        summary[key] = (p50, p99)
    print(f"  {'CPU-seconds (agent + every process it started)':<58} {'n':>3} {'mean':>8} {'p50':>8} {'p99':>8}")
    for key, label in CPU_ROWS:
        values = sorted(c[key] for c in cycles)
        mean = sum(values) / len(values)
        print(f"  {label:<58} {n:>3} {mean:>8.4f} {percentile(values, 50):>8.4f} {percentile(values, 99):>8.4f}")
        summary[key] = mean
    idle = idle_cpu(log, cpu)
    if idle is not None:
        print(f"  the agent idle before the first cycle (1 Hz polls): {idle * 1000:.3f} ms of CPU a second")
    refreshed = sum(c["gate_refreshed"] for c in cycles)
    calls = sorted({call for c in cycles for call in c["gate_calls"]})
    print(f"  gate checks' reads: {', '.join(calls)}; {refreshed} of {n} began with a schema refresh "
          f"(topology.schema_refresh_s)")
    peers = sum(1 for c in cycles if "peers_down_ms" in c)
    if peers < n:
        print(f"  peers' DOWN marks found for {peers} of {n} cycles")
    flips = [c["peers_up_again"] for c in cycles if "peers_up_again" in c]
    print(f"  peers that marked the node UP again while its gossip was stopped: {sum(flips)} of "
          f"{len(flips) * len(args.peer_log)} (peer, cycle) pairs, in {sum(1 for f in flips if f)} of {len(flips)} cycles")
    print(f"summary drain_p99_ms={summary['drain_ms'][1]:.0f} gate_p99_ms={summary['gate_ms'][1]:.0f} "
          f"cpu_s_per_drain={summary['cpu_drain_s']:.4f} cpu_s_per_gate={summary['cpu_gate_s']:.4f} "
          f"cpu_s_per_restore={summary['cpu_restore_s']:.4f} disablegossip_p99_ms={summary['disablegossip_ms'][1]:.0f} "
          f"disablebinary_p99_ms={summary['disablebinary_ms'][1]:.0f} cycles={n} peers_up_again={sum(flips)}")


if __name__ == "__main__":
    main()
