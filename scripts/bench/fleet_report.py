"""Report of one scripts/bench-fleet.sh run: CPU and RSS of the fleet, reaction latencies, invariant violations.

Reads the run's work dir: agents.jsonl (each agent: its DC, the emulator region and VM name, fault domain, rack,
node and dir), agents/<dc>/<vm>/agent.jsonl (the agents' logs), events.jsonl (each DC's Freeze of each fault
domain as the emulator's admin API last showed it, with its region, created_at_ms, started_at_ms, removal_at_ms),
approvals.json (the emulator's approvals, with the approving VM's region), nodetool-calls.jsonl (nodetool-sim's
call log) and cluster.json (the cluster at the end). A VM is its region (= its DC) and name: names repeat across
regions.

Reactions: the document changed when the emulator added the event (created_at_ms) and when it removed it
(removal_at_ms: the emulator drops an event at its first request or 100 ms tick past that instant, and with N
agents polling at 1 Hz a request comes every 1/N s). Each listed agent's event_seen, drain_started (after the
safety gate's nodetool status and info) and restore_started are measured from those instants.

Racks out: the call log replayed in time order; a node is out from a successful disablebinary or disablegossip
to the enablebinary and enablegossip that undo it, a rack is out while any of its nodes is out; counted per DC
(cluster.json's datacenters[].racks[].nodes[].address), since each DC keeps its own replicas (LOCAL_QUORUM).

Coordinated (--etcd): the 3-member etcd's CPU idle and through the wave, and the Txn requests its members
handled during the wave (drain admissions, each a guarded transaction) per second of the wave. Where the
reaction goes: for each listed agent's drain, event added -> event_seen (the poll), event_seen -> its first
admission asked (the drain timer and the gate's nodetool calls), first admission asked -> the admission that
admitted asked (refusals: other racks' records, re-checked every unsafe_recheck_s), that admission (etcd read
and transaction; its attempts: another agent's commit first makes it read and try again), and admitted ->
drain_started. From the agents' drain_admission lines (duration_ms, attempts). etcd's own commit latency
through the wave (--etcd-metrics: each member's /metrics before and after it): etcd_disk_wal_fsync_duration_seconds
and etcd_disk_backend_commit_duration_seconds, the mean (delta sum / delta count) and the p99 estimated from the
delta histogram's buckets (linear within a bucket, as Prometheus' histogram_quantile), per member. And the
requests all members served, per method and second, idle (mI.idle to mI.before) and through the wave (mI.before to
mI.after; each snapshot's instant in <when>.t_ms): grpc_server_handled_total of the unary methods (a JSON gateway
request is one), LeaseKeepAlive's grpc_server_msg_received_total (one per keepalive), with the keys, the watchers
and the database's size at the end of the idle window: the figures docs/benchmarks.md scales to the case
study's 300 clusters.

Violations: more racks of one DC out at once than RF allows (each time the count goes above), an approval by a VM whose
node had not completed its drain for that event, an agent that logged impact_without_drain, a listed agent
that never drained or never restored, a node not fully up at the end, an agent that died or did not exit 0,
and (--agentless) a VM without an agent for which no agent of its DC logged agentless_impact for its fault
domain's event.
"""
import argparse
import calendar
import json
import math
import os
import time


def percentile(sorted_values, p):
    if not sorted_values:
        return 0
    rank = math.ceil(p / 100 * len(sorted_values))  # nearest rank
    return sorted_values[max(rank, 1) - 1]


def ts_ms(text):  # "2026-11-22T03:04:05.123Z" -> Unix ms
    seconds = calendar.timegm(time.strptime(text[:19], "%Y-%m-%dT%H:%M:%S"))
    return seconds * 1000 + int(text[20:23])


def read_jsonl(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def first(lines, msg, event_id=None, after_ms=None):
    for line in lines:
        if line.get("msg") != msg:
            continue
        if event_id is not None and str(line.get("event_id", "")).upper() != event_id.upper():
            continue
        if after_ms is not None and line["t_ms"] < after_ms:
            continue
        return line
    return None


def asked_ms(admission):  # when a drain_admission line's admission was asked
    return admission["t_ms"] - int(admission.get("duration_ms", 0))


def admission_breakdown(seen_line, admissions, drain_line):
    """The parts of one coordinated drain's reaction (ms), or None when it had no admission that admitted:
    (seen -> first asked, first asked -> admitting one asked, admitting one, admitted -> drain_started,
    attempts of the admitting one, refusals before it)."""
    awaited = [a for a in admissions if not a.get("beside_drain")]
    admitted = next((a for a in awaited if a.get("result") == "admitted"), None)
    if not seen_line or not drain_line or not admitted:
        return None
    first_asked = asked_ms(awaited[0])
    refusals = sum(1 for a in awaited if a is not admitted and asked_ms(a) < asked_ms(admitted))
    return (first_asked - seen_line["t_ms"], asked_ms(admitted) - first_asked, int(admitted.get("duration_ms", 0)),
            drain_line["t_ms"] - admitted["t_ms"], int(admitted.get("attempts", 0)), refusals)


def racks_out(calls, rack_of, allowed):
    """Replays the call log, racks counted per DC (rack_of: address -> (dc, rack)): ({dc: (most racks of the DC out
    at once, times its count went above `allowed`, first such time)}, every DC of rack_of listed; the most racks
    out at once over all DCs, which shows whether the DCs' racks were out together)."""
    off = {}  # address -> set of {"binary", "gossip"} switched off
    result = {dc: (0, 0, None) for dc, _ in rack_of.values()}
    previous = {dc: 0 for dc in result}
    most_overall = 0
    for call in sorted(calls, key=lambda c: c["t_ms"]):
        sub, node = call["subcommand"], call["node"]
        if call["exit_code"] != 0 or node not in rack_of:
            continue
        if sub in ("disablebinary", "disablegossip"):
            off.setdefault(node, set()).add(sub[len("disable"):])
        elif sub in ("enablebinary", "enablegossip"):
            off.get(node, set()).discard(sub[len("enable"):])
        elif sub in ("restart", "start"):
            off.pop(node, None)
        else:
            continue
        dc = rack_of[node][0]  # only this node's DC can have changed
        count = len({rack_of[n] for n, what in off.items() if what and rack_of[n][0] == dc})
        most, above, first_above = result[dc]
        if count > allowed >= previous[dc]:
            above += 1
            first_above = first_above or call["t"]
        result[dc] = (max(most, count), above, first_above)
        previous[dc] = count
        most_overall = max(most_overall, len({rack_of[n] for n, what in off.items() if what}))
    return result, most_overall


def samples(path):
    """A Prometheus text page's samples: (the name with its labels, the value), comments and blank lines left
    out."""
    with open(path) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            key, _, value = line.rpartition(" ")
            yield key, float(value)


def members(directory, when):
    """The etcd members with a snapshot `when` (mI.<when>) in `directory`."""
    return sorted({f.split(".")[0] for f in os.listdir(directory) if f.endswith("." + when)})


def read_histograms(path, names):
    """A Prometheus text page -> {name: (buckets {le: cumulative count}, sum, count)} for the unlabelled (but
    for le) histograms `names`."""
    found = {name: ({}, 0.0, 0.0) for name in names}
    for key, value in samples(path):
        for name in names:
            buckets, total, count = found[name]
            if key.startswith(name + "_bucket{"):
                le = key.split('le="', 1)[1].split('"', 1)[0]
                buckets[math.inf if le == "+Inf" else float(le)] = value
            elif key == name + "_sum":
                found[name] = (buckets, value, count)
            elif key == name + "_count":
                found[name] = (buckets, total, value)
    return found


def histogram_quantile(q, buckets):
    """The q-quantile of a histogram's cumulative buckets {le: count}, as Prometheus' histogram_quantile (linear
    within the bucket; in the +Inf bucket, the largest finite bound); 0 without observations."""
    bounds = sorted(buckets)
    if not bounds or buckets[bounds[-1]] <= 0:
        return 0.0
    rank = q * buckets[bounds[-1]]
    lower, below = 0.0, 0.0
    for le in bounds:
        if buckets[le] >= rank:
            if math.isinf(le):
                return lower
            if buckets[le] == below:
                return le
            return lower + (le - lower) * (rank - below) / (buckets[le] - below)
        lower, below = le, buckets[le]
    return lower


ETCD_LATENCIES = (("etcd_disk_wal_fsync_duration_seconds", "WAL fsync"),
                  ("etcd_disk_backend_commit_duration_seconds", "backend commit"))


def etcd_latencies(directory):
    """Per member (mI.before / mI.after in `directory`), per histogram of ETCD_LATENCIES over the wave:
    {member: {name: (count, mean_ms, p99_ms)}}."""
    names = [name for name, _ in ETCD_LATENCIES]
    result = {}
    for member in members(directory, "before"):
        before = read_histograms(os.path.join(directory, member + ".before"), names)
        after = read_histograms(os.path.join(directory, member + ".after"), names)
        result[member] = {}
        for name in names:
            (b0, s0, c0), (b1, s1, c1) = before[name], after[name]
            delta = {le: b1[le] - b0.get(le, 0.0) for le in b1}
            count = c1 - c0
            mean_ms = (s1 - s0) / count * 1000 if count > 0 else 0.0
            result[member][name] = (int(count), mean_ms, histogram_quantile(0.99, delta) * 1000)
    return result


ETCD_GAUGES = ("etcd_debugging_mvcc_keys_total", "etcd_debugging_mvcc_watcher_total",
               "etcd_mvcc_db_total_size_in_bytes")


def read_requests(path):
    """A member's Prometheus text page -> ({method: requests}, {gauge: value}): the unary methods' handled
    requests, LeaseKeepAlive's received messages, and ETCD_GAUGES."""
    requests, gauges = {}, {}
    for key, value in samples(path):
        method = key.split('grpc_method="', 1)[1].split('"', 1)[0] if 'grpc_method="' in key else ""
        if key.startswith("grpc_server_handled_total{") and 'grpc_type="unary"' in key:
            requests[method] = requests.get(method, 0.0) + value
        elif key.startswith("grpc_server_msg_received_total{") and method == "LeaseKeepAlive":
            requests[method] = requests.get(method, 0.0) + value
        elif key in ETCD_GAUGES:
            gauges[key] = value
    return requests, gauges


def etcd_request_rates(directory, start, end):
    """Requests per second all members served from snapshot `start` to `end` ({method: rate}), and the gauges at
    `end` (the largest over the members). None when a snapshot is missing."""
    try:
        with open(os.path.join(directory, start + ".t_ms")) as f:
            t0 = int(f.read())
        with open(os.path.join(directory, end + ".t_ms")) as f:
            t1 = int(f.read())
    except FileNotFoundError:
        return None
    rates, gauges = {}, {}
    for member in members(directory, start):
        r0, _ = read_requests(os.path.join(directory, f"{member}.{start}"))
        r1, g1 = read_requests(os.path.join(directory, f"{member}.{end}"))
        for method, count in r1.items():
            rates[method] = rates.get(method, 0.0) + (count - r0.get(method, 0.0)) * 1000 / max(t1 - t0, 1)
        for name, value in g1.items():
            gauges[name] = max(gauges.get(name, 0.0), value)
    return {m: r for m, r in rates.items() if r > 0}, gauges


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", required=True)
    parser.add_argument("--agents", type=int, required=True)
    parser.add_argument("--dcs", type=int, default=1, help="how many DCs the agents are in")
    parser.add_argument("--racks-allowed", type=int, required=True)
    parser.add_argument("--bad-exits", type=int, required=True)
    parser.add_argument("--idle", required=True, help="window_ms agents_cpu_ns emulator_cpu_ns polls")
    parser.add_argument("--wave", required=True, help="window_ms agents_cpu_ns emulator_cpu_ns children_cpu_ms")
    parser.add_argument("--rss", required=True, help="agents_sum_kb agents_max_kb emulator_kb")
    parser.add_argument("--etcd", help="coordinated: idle_cpu_ns wave_cpu_ns wave_txn_count")
    parser.add_argument("--etcd-nice", type=int, default=0, help="coordinated: etcd's members' nice value")
    parser.add_argument("--etcd-tls", type=int, choices=(0, 1), default=0,
                        help="coordinated: 1 when the agents reach etcd over TLS")
    parser.add_argument("--agentless", default="",
                        help="coordinated: the VMs whose agent was stopped before the wave (space-separated "
                        "DC/VM, as agents.jsonl's key)")
    parser.add_argument("--etcd-metrics",
                        help="coordinated: a dir of each etcd member's /metrics before and after the wave "
                        "(mI.before, mI.after)")
    args = parser.parse_args()
    n = args.agents
    idle_ms, idle_agents_ns, idle_emu_ns, idle_polls = map(int, args.idle.split())
    wave_ms, wave_agents_ns, wave_emu_ns, wave_children_ms = map(int, args.wave.split())
    rss_sum, rss_max, emu_rss = map(int, args.rss.split())

    def pct(ns, ms):
        return 100.0 * ns / (ms * 1e6)

    idle_pct, wave_pct = pct(idle_agents_ns, idle_ms), pct(wave_agents_ns, wave_ms)
    print(f"idle {idle_ms / 1000:.1f} s: {idle_polls} polls answered ({idle_polls / idle_ms * 1000:.1f}/s for {n} agents)")
    print(f"  agents   {idle_pct:6.2f} % of one core  ({idle_agents_ns / 1e6 / n * 60000 / idle_ms:.1f} ms CPU/min per agent)")
    print(f"  emulator {pct(idle_emu_ns, idle_ms):6.2f} % of one core")
    print(f"  RSS: agents {rss_sum / 1024:.0f} MB in all, largest {rss_max / 1024:.1f} MB; emulator {emu_rss / 1024:.1f} MB")
    txn_per_s = 0.0
    if args.etcd:
        etcd_idle_ns, etcd_wave_ns, wave_txn = map(int, args.etcd.split())
        txn_per_s = wave_txn / wave_ms * 1000
        print(f"  etcd     {pct(etcd_idle_ns, idle_ms):6.2f} % of one core (3 members, {n} leases kept alive)")
    print(f"wave {wave_ms / 1000:.1f} s (3 fault domains, one after the other"
          f"{f'; each one of the {args.dcs} DCs at once' if args.dcs > 1 else ''}):")
    print(f"  agents   {wave_pct:6.2f} % of one core")
    print(f"  emulator {pct(wave_emu_ns, wave_ms):6.2f} % of one core")
    print(f"  nodetool-sim runs (the agents' children) {100.0 * wave_children_ms / wave_ms:6.2f} % of one core")
    if args.etcd:
        print(f"  etcd     {pct(etcd_wave_ns, wave_ms):6.2f} % of one core; {wave_txn} transactions "
              f"({txn_per_s:.1f}/s)")

    agents = {a["key"]: a for a in read_jsonl(os.path.join(args.work, "agents.jsonl"))}  # "dc/vm" -> agent
    if len(agents) != n:
        raise SystemExit(f"agents.jsonl lists {len(agents)} agents, not {n}")
    logs = {}
    for key, agent in agents.items():
        lines = read_jsonl(os.path.join(args.work, agent["dir"], "agent.jsonl"))
        for line in lines:
            line["t_ms"] = ts_ms(line["ts"])
        logs[key] = lines
    events = read_jsonl(os.path.join(args.work, "events.jsonl"))
    with open(os.path.join(args.work, "approvals.json")) as f:
        approvals = json.load(f)
    violations = []

    agentless = set(args.agentless.split())
    seen, drain, gate, restore, parts = [], [], [], [], []
    drain_of_dc, restore_of_dc = {}, {}  # dc -> reactions of its agents
    for event in events:
        event_id = event["EventId"]
        for vm in event["resources"]:
            key = f"{event['region']}/{vm}"
            dc = agents[key]["dc"]
            what = f"{key} (fault domain {event['fd']}'s Freeze {event_id} in {dc})"
            if key in agentless:
                # The watcher's leader of its DC (whichever agent led then) holds its rack: agentless_impact names it.
                if not any(agents[other]["dc"] == dc and line.get("msg") == "agentless_impact"
                           and line.get("vm") == vm and str(line.get("event_id", "")).upper() == event_id.upper()
                           for other, lines in logs.items() for line in lines):
                    violations.append(f"{what}: no agent, and no agentless_impact from its DC")
                continue
            lines = logs[key]
            seen_line = first(lines, "event_seen", event_id)
            drain_line = first(lines, "drain_started", event_id)
            restore_line = first(lines, "restore_started", after_ms=event["removal_at_ms"])
            if seen_line:
                seen.append(seen_line["t_ms"] - event["created_at_ms"])
            if drain_line:
                drain.append(drain_line["t_ms"] - event["created_at_ms"])
                drain_of_dc.setdefault(dc, []).append(drain[-1])
                if seen_line:
                    gate.append(drain_line["t_ms"] - seen_line["t_ms"])
                admissions = [line for line in lines if line.get("msg") == "drain_admission"
                              and str(line.get("event_id", "")).upper() == event_id.upper()]
                part = admission_breakdown(seen_line, admissions, drain_line)
                if part:
                    parts.append(part)
            else:
                violations.append(f"{what}: never drained")
            if restore_line:
                restore.append(restore_line["t_ms"] - event["removal_at_ms"])
                restore_of_dc.setdefault(dc, []).append(restore[-1])
            else:
                violations.append(f"{what}: never restored")
    print("reactions (ms from the document change):          p50      p99      max   count")
    for label, values in (("event added -> event_seen", seen), ("event added -> drain_started", drain),
                          ("  of which the safety gate (its nodetool calls)", gate),
                          ("event removed -> restore_started", restore)):
        values.sort()
        print(f"  {label:<44} {percentile(values, 50):7d}  {percentile(values, 99):7d}  "
              f"{(values or [0])[-1]:7d}  {len(values):6d}")
    react_p99 = max(percentile(drain, 99), percentile(restore, 99))
    if args.dcs > 1:
        for dc in sorted(set(drain_of_dc) | set(restore_of_dc)):
            d, r = sorted(drain_of_dc.get(dc, [])), sorted(restore_of_dc.get(dc, []))
            print(f"  {dc}: drain_started p50/p99 {percentile(d, 50)}/{percentile(d, 99)} ms ({len(d)}), "
                  f"restore_started p50/p99 {percentile(r, 50)}/{percentile(r, 99)} ms ({len(r)})")
    if parts:
        print(f"where a coordinated drain's reaction goes ({len(parts)} drains; ms):  p50      p99      max")
        labels = ("event_seen -> first admission asked (timer, gate)", "  -> the admitting one asked (refusals)",
                  "  the admitting one (etcd read + txn)", "  admitted -> drain_started")
        for i, label in enumerate(labels):
            values = sorted(part[i] for part in parts)
            print(f"  {label:<52} {percentile(values, 50):7d}  {percentile(values, 99):7d}  {values[-1]:7d}")
        attempts = sorted(part[4] for part in parts)
        refused = sorted(part[5] for part in parts)
        print(f"  transactions per admission: p50 {percentile(attempts, 50)}, p99 {percentile(attempts, 99)}, "
              f"max {attempts[-1]}; drains refused first: {sum(1 for r in refused if r)} "
              f"(refusals p99 {percentile(refused, 99)}, max {refused[-1]})")

    if args.etcd_metrics:
        latencies = etcd_latencies(args.etcd_metrics)
        print("etcd's own commit latency through the wave (ms; p99 from the histogram's buckets):")
        for member, per_name in latencies.items():
            print("  " + member + ": " + "; ".join(
                f"{label} x{per_name[name][0]}, mean {per_name[name][1]:.2f}, p99 {per_name[name][2]:.2f}"
                for name, label in ETCD_LATENCIES))
        for label, start, end in (("idle", "idle", "before"), ("through the wave", "before", "after")):
            measured = etcd_request_rates(args.etcd_metrics, start, end)
            if measured is None:
                continue
            rates, gauges = measured
            print(f"etcd requests per second {label}, all members: {sum(rates.values()):.1f} ("
                  + ", ".join(f"{m} {r:.1f}" for m, r in sorted(rates.items(), key=lambda kv: -kv[1])) + ")"
                  + (f"; keys {gauges.get(ETCD_GAUGES[0], 0):.0f}, watchers {gauges.get(ETCD_GAUGES[1], 0):.0f}, "
                     f"db {gauges.get(ETCD_GAUGES[2], 0) / 1e6:.1f} MB" if label == "idle" else ""))
        fsync_p99 = max((m[ETCD_LATENCIES[0][0]][2] for m in latencies.values()), default=0.0)
        commit_p99 = max((m[ETCD_LATENCIES[1][0]][2] for m in latencies.values()), default=0.0)

    for approval in approvals:
        key = f"{approval.get('region', '')}/{approval['vm']}"
        done = first(logs.get(key, []), "drain_completed", approval["event_id"])
        if not done or done["t_ms"] > approval["t_ms"]:
            violations.append(f"{key} approved {approval['event_id']} before its drain completed")
    for key, lines in logs.items():
        for line in lines:
            if line.get("msg") == "impact_without_drain":
                violations.append(f"{key}: impact_without_drain for {line.get('event_id')}")

    with open(os.path.join(args.work, "cluster.json")) as f:
        cluster = json.load(f)
    rack_of = {}  # address -> (dc, rack)
    for dc in cluster["datacenters"]:
        for rack in dc["racks"]:
            for node in rack["nodes"]:
                rack_of[node["address"]] = (dc["name"], rack["name"])
                if not (node.get("running", True) and node.get("gossip", True) and node.get("binary", True)
                        and not node.get("drained", False)):
                    violations.append(f"node {node['address']} ({dc['name']} {rack['name']}) left out of service")
    if len({dc for dc, _ in rack_of.values()}) != args.dcs:
        violations.append(f"cluster.json has {len({dc for dc, _ in rack_of.values()})} DCs, not {args.dcs}")
    calls = read_jsonl(os.path.join(args.work, "nodetool-calls.jsonl"))
    for call in calls:
        call["t_ms"] = ts_ms(call["t"])
    out, most_overall = racks_out(calls, rack_of, args.racks_allowed)
    most = max((m for m, _, _ in out.values()), default=0)
    for dc, (_, above, first_above) in sorted(out.items()):
        if above:
            violations.append(f"{dc}: more than {args.racks_allowed} rack out at once {above} time(s), "
                              f"first at {first_above}")
    if args.bad_exits:
        violations.append(f"{args.bad_exits} agent(s) died or did not exit 0 on SIGTERM")
    errors = sum(1 for lines in logs.values() for line in lines if line.get("level") == "error")
    impacts = sum(1 for lines in logs.values() for line in lines if line.get("msg") == "agentless_impact")
    if agentless:
        print(f"without an agent: {len(agentless)} VMs; agentless_impact lines: {impacts}")
    print(f"approvals: {len(approvals)}; nodetool calls: {len(calls)}; error lines in the agents' logs: {errors}")
    print(f"most racks of one DC out at once: {most} (RF 3 in each DC allows {args.racks_allowed}): "
          + ", ".join(f"{dc} {m}" for dc, (m, _, _) in sorted(out.items())) + f"; violations: {len(violations)}")
    if args.dcs > 1:
        print(f"most racks out at once over the {args.dcs} DCs: {most_overall} ({args.dcs} when every DC's rack of a "
              "fault domain was out together)")
    for v in violations[:20]:
        print(f"  - {v}")
    print("targets (SPEC 4): agents idle < 5 % of one core (150 agents; 450 in 3 DCs: < 10 %); reaction p99 within "
          "2 s in a coordinated wave; each DC's racks out at most 1 at a time; violations 0")
    summary = (f"agents={n} idle_cpu_pct={idle_pct:.2f} wave_cpu_pct={wave_pct:.2f} react_p99_ms={react_p99} "
               f"racks_out_max={most} violations={len(violations)} etcd_txn_per_s={txn_per_s:.1f} "
               f"coordinated={1 if args.etcd else 0} etcd_tls={args.etcd_tls} agentless={len(agentless)} "
               f"dcs={args.dcs} " + " ".join(f"racks_out_max_{dc}={m}" for dc, (m, _, _) in sorted(out.items())))
    if args.etcd_metrics:
        summary += f" etcd_fsync_p99_ms={fsync_p99:.1f} etcd_commit_p99_ms={commit_p99:.1f}"
    if args.etcd:
        summary += f" etcd_nice={args.etcd_nice}"
    print(summary)


if __name__ == "__main__":
    main()
