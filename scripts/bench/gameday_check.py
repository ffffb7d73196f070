"""The game day's checker and picture (scripts/bench-gameday.sh, SPEC 10).

From the player's actions, the impact hook's record, the emulator's approvals, every agent's log and the auditing
client's requests and summary it decides:
  impacts_undrained  impacts that landed on a node that was not drained (its agent's drain_completed, not
                     followed by a restore_started, a boot or a restart of its JVM): the impact of an event
                     the gate refused lands on a forced drain, which is a drain too; impacts_at_hang left out
  impacts_at_hang    impacts at NotBefore (no approval of the event before them) on a node whose drain had
                     begun but whose JMX or Jolokia the jmx_hang fault held between the drain's start and the
                     impact (hang_windows): no nodetool step can reach such a node, whatever the agent does
  early_approvals    approvals (the emulator saw the POST) of a VM whose node was not drained then, or, for a
                     platform event, while a node of another rack was out (draining, drained or down): more
                     than the budget of one rack out (user events skip the gate, SPEC 3.5)
  failed, wrong, lost  the client's (wrong counts a wrong value and no row for an acknowledged write); failed
                     leaves out failed_at_crash
  failed_at_crash    the client's failed requests due while a node whose JVM the cassandra_kill fault killed
                     was not yet convicted by every other node's failure detector (from a request timeout
                     before the kill: requests then in flight): coordinators send that node requests until
                     then, and no agent step precedes or shortens a crash with no event; and those that node
                     coordinated in its first catch_up_min_s of CQL once started again, cold, as systemd
                     restarts a crashed unit: the agent's binary hold keeps that span closed only for a node
                     the agent starts; cut short by a drain, restore or impact, and none when one was under way
                     at the open (crash_windows)
It prints each finding, the forced drains with the gate's reason, the faults applied, then the last line:
  seed=N events=N faults=N failed=N wrong=N lost=N impacts_undrained=N early_approvals=N failed_at_crash=N
  impacts_at_hang=N
and draws the run (gnuplot, --picture): the client's latency and failures over time; per node its drains,
impacts, catch-up and restores as bands, approvals and faults as marks. Exit 1 when an impact did not land,
the client's books could not verify every acknowledged write, or any count above is not 0 (failed excepted
with --allow-client-failures).
"""
import argparse
import calendar
import collections
import json
import os
import subprocess
import sys
import time

# python3 -I leaves this script's directory off sys.path: the schedule's module is beside it.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from availability_client import REQUEST_TIMEOUT_S  # noqa: E402
from gameday_schedule import rack_of  # noqa: E402

KILL_TYPES = {"Reboot", "Redeploy", "Preempt", "Terminate"}
FAILED_OUTCOMES = {"timeout", "failed", "unanswered"}  # a request sent and not answered; not missed, wrong, empty


def crash_windows(actions, timeout_ms, hold_ms, steps):
    """(vm, first, last, coordinator): the due instants of the requests a kill of a node's JVM with no event can
    fail, and through which coordinator (None: any).
    The kill: from a request timeout before it (requests in flight to it) to the player's node_convicted, when the
    last other node's failure detector marked it down; a kill with no node_convicted after it has no window.
    The start after it: the requests the node coordinates in its first hold_ms of CQL (the player's node_cql_open),
    a cold JVM that has just replayed its commit log. For a node the agent starts again, its binary hold keeps CQL
    closed that long (catch_up_min_s, SPEC 3.10); a crashed node started as systemd restarts a unit opens CQL at
    once, and no agent step comes before it. Any of steps (agent_steps: a drain, restore or impact, start to end)
    that could have failed a request in that span takes it back: one under way at the open, or ended less than a
    request timeout before it, leaves no window; one begun after it ends the window a request timeout before."""
    windows = []
    for a in actions:
        if a["action"] == "fault_applied" and a["fault"] == "cassandra_kill":
            convicted = next((c for c in actions if c["action"] == "node_convicted" and c["vm"] == a["vm"]
                              and c["t_ms"] >= a["t_ms"]), None)
            if convicted:
                windows.append((a["vm"], a["t_ms"] - timeout_ms, convicted["t_convicted_ms"], None))
        elif a["action"] == "node_cql_open":
            opened = a["t_cql_ms"]
            if any(start <= opened and end > opened - timeout_ms for start, end in steps):
                continue
            last = min([opened + hold_ms] + [start - timeout_ms for start, _ in steps if start > opened])
            if last >= opened:
                windows.append((a["vm"], opened, last, a["address"]))
    return windows


def agent_steps(logs, impacts):
    """(start, end) of each step that can fail requests besides a crash, sorted: an agent's drain (drain_started to
    its drain_completed or drain_failed, or the restore_started that cut it) and restore (restore_started to its
    restore_completed or restore_failed, or the drain_started that cut it), and every impact that landed (the
    hook's start to its end). A step with no end lasts to the end of the run."""
    ends = {"drain_started": ("drain_completed", "drain_failed", "restore_started"),
            "restore_started": ("restore_completed", "restore_failed", "drain_started")}
    steps = []
    for lines in logs.values():
        marks = [(log_ms(line["ts"]), line["msg"]) for line in lines if line.get("msg") in
                 ("drain_started", "drain_completed", "drain_failed", "restore_started", "restore_completed",
                  "restore_failed")]
        marks.sort()
        for i, (t, msg) in enumerate(marks):
            if msg in ends:
                steps.append((t, next((u for u, m in marks[i + 1:] if m in ends[msg]), float("inf"))))
    for r in impacts:
        if r["phase"] == "start" and r.get("landed") is True:
            steps.append((r["t_ms"], next((e["t_ms"] for e in impacts if e["phase"] == "end" and e["vm"] == r["vm"]
                                           and e["event_id"] == r["event_id"] and e["t_ms"] >= r["t_ms"]),
                                          float("inf"))))
    return sorted(steps)


def at_crash(due_ms, outcome, coordinator, windows):
    return outcome in FAILED_OUTCOMES and any(first <= due_ms <= last and via in (None, coordinator)
                                              for _, first, last, via in windows)


Request = collections.namedtuple("Request", "due_ms latency_ms outcome coordinator")


def read_requests(path):
    """The client's requests file (availability_client.py: due ms, kind, latency ms, outcome, error, coordinator
    host:port, ...), one Request a line; the coordinator's address is "-" when the line names none."""
    requests = []
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 4:
                coordinator = parts[5].rsplit(":", 1)[0] if len(parts) >= 6 else "-"
                requests.append(Request(int(parts[0]), float(parts[2]), parts[3], coordinator))
    return requests


def failed_at_crash(requests, windows):
    return sum(at_crash(r.due_ms, r.outcome, r.coordinator, windows) for r in requests)


def agents_catch_up_min_ms(logs):
    """policy.catch_up_min_s of the agents' effective configuration (agent_started logs it), in ms; the game day
    runs every agent with one."""
    values = {line["config"]["policy"]["catch_up_min_s"] for lines in logs.values() for line in lines
              if line.get("msg") == "agent_started"}
    if len(values) != 1:
        raise SystemExit(f"gameday_check: the agents' catch_up_min_s: expected one value in their agent_started "
                         f"lines, found {sorted(values)}")
    return values.pop() * 1000


def hang_windows(actions):
    """(vm, first, last): each JMX or Jolokia hang the player applied, from jmx_hang_started to jmx_hang_ended (to
    the end of the run when it never ended)."""
    windows, started = [], {}
    for a in actions:
        if a["action"] == "jmx_hang_started":
            started[a["vm"]] = a["t_ms"]
        elif a["action"] == "jmx_hang_ended" and a["vm"] in started:
            windows.append((a["vm"], started.pop(a["vm"]), a["t_ms"]))
    windows += [(vm, first, float("inf")) for vm, first in started.items()]
    return windows


def drain_held_by_hang(vm, drain_started_ms, impact_ms, windows):
    return any(v == vm and first < impact_ms and last > drain_started_ms for v, first, last in windows)


def jsonl(path):
    out = []
    try:
        with open(path) as f:
            for line in f:
                line = line.strip()
                if line:
                    try:
                        out.append(json.loads(line))
                    except ValueError:
                        pass
    except FileNotFoundError:
        pass
    return out


def log_ms(ts):
    secs = calendar.timegm(time.strptime(ts[:19], "%Y-%m-%dT%H:%M:%S"))
    return int(secs * 1000) + int(ts[20:23] or 0)


class Timeline:
    """Per VM, what its node was at each instant: serving, draining, drained or down."""

    def __init__(self):
        self.changes = collections.defaultdict(list)  # vm -> [(t_ms, state, why)]

    def add(self, vm, t_ms, state, why):
        self.changes[vm].append((t_ms, state, why))

    def finish(self):
        """Sorted; a drain_started while the node is drained (a second event's drain: back to back, or a Reboot's
        flush after a Freeze's drain) leaves it drained."""
        for vm, v in self.changes.items():
            v.sort(key=lambda c: c[0])
            kept, state = [], "serving"
            for change in v:
                if change[1] == "draining" and state == "drained":
                    continue
                kept.append(change)
                state = change[1]
            self.changes[vm] = kept

    def at(self, vm, t_ms):
        state, why, _ = self.since(vm, t_ms)
        return state, why

    def since(self, vm, t_ms):
        """(state, why, since_ms) at t_ms."""
        state, why, since_ms = "serving", "start", 0
        for t, s, w in self.changes.get(vm, []):
            if t > t_ms:
                break
            state, why, since_ms = s, w, t
        return state, why, since_ms


def build(args):
    actions = jsonl(args.actions)
    impacts = jsonl(args.impacts)
    with open(args.approvals) as f:
        approvals = json.load(f)
    vms = sorted({a["vm"] for a in actions if "vm" in a} | {f"vm{k}" for k in range(1, 7)})
    logs = {vm: jsonl(os.path.join(args.agents, f"agent-{vm}", "agent.jsonl")) for vm in vms}
    posted = {a["event_id"].lower(): a for a in actions if a["action"] == "event_posted"}
    tl = Timeline()
    for vm, lines in logs.items():
        for line in lines:
            msg = line.get("msg")
            if msg in ("drain_started", "drain_completed", "restore_started"):
                state = {"drain_started": "draining", "drain_completed": "drained", "restore_started": "serving"}[msg]
                tl.add(vm, log_ms(line["ts"]), state, f"{msg} {line.get('event_id', '')}".strip())
    for r in impacts:
        if r.get("type") in KILL_TYPES and r.get("landed") is True and r["phase"] == "start":
            tl.add(r["vm"], r["t_ms"], "down", f"{r['type']} {r['event_id']}")
        if r.get("type") in KILL_TYPES - {"Terminate"} and r["phase"] == "end":
            tl.add(r["vm"], r["t_ms"], "serving", f"booted after {r['type']} {r['event_id']}")
    for a in actions:
        if a["action"] == "node_killed":
            tl.add(a["vm"], a["t_ms"], "down", "its JVM killed")
        elif a["action"] == "node_starting":
            tl.add(a["vm"], a["t_ms"], "serving", "its JVM started again")
    tl.finish()
    return actions, impacts, approvals, logs, posted, tl


def impact_findings(impacts, posted, approvals, tl, hangs):
    """(undrained, held, problems): one line per impact that landed on a node not drained, per impact at NotBefore
    on a drain a JMX hang held (drain_held_by_hang), per impact that did not land."""
    undrained, held, problems = [], [], []
    for r in impacts:
        if r["phase"] != "start" or r["event_id"].lower() not in posted:
            continue
        if r.get("landed") == "absorbed":
            continue
        if r.get("landed") is not True:
            problems.append(f"the impact of {r['event_id']} on {r['vm']} did not land ({r.get('state')})")
            continue
        state, why, since_ms = tl.since(r["vm"], r["t_ms"] - 1)
        approved_before = any(a["event_id"].lower() == r["event_id"].lower() and a["t_ms"] < r["t_ms"]
                              for a in approvals)
        what = f"impact of {r['type']} {r['event_id']} on {r['vm']} at {hms(r['t_ms'])}"
        if state == "draining" and not approved_before and drain_held_by_hang(r["vm"], since_ms, r["t_ms"], hangs):
            held.append(f"{what}: its drain ({why}) held by the JMX hang")
        elif state != "drained":
            undrained.append(f"{what}: the node was {state} ({why})")
    return undrained, held, problems


def check(args):
    actions, impacts, approvals, logs, posted, tl = build(args)
    findings, held, problems = impact_findings(impacts, posted, approvals, tl, hang_windows(actions))
    undrained = len(findings)
    early = 0
    for a in approvals:
        ev = posted.get(a["event_id"].lower())
        if not ev:
            continue
        state, why = tl.at(a["vm"], a["t_ms"])
        if state != "drained":
            early += 1
            findings.append(f"approval of {ev['type']} {a['event_id']} by {a['vm']} at {hms(a['t_ms'])}: its node "
                            f"was {state} ({why})")
            continue
        if ev.get("source") == "User":
            continue
        out = [f"{vm} {s} ({w})" for vm in tl.changes if rack_of(vm) != rack_of(a["vm"])
               for s, w in [tl.at(vm, a["t_ms"])] if s != "serving"]
        if out:
            early += 1
            findings.append(f"approval of {ev['type']} {a['event_id']} by {a['vm']} at {hms(a['t_ms'])} while "
                            f"another rack was out: {', '.join(out)}")
    with open(args.summary) as f:
        summary = json.load(f)
    if summary.get("unverified", 0):
        problems.append(f"{summary['unverified']} acknowledged writes could not be read back at ALL")
    faults = [a for a in actions if a["action"] == "fault_applied"]
    events = [a for a in actions if a["action"] == "event_posted"]
    forced = []
    for vm, lines in logs.items():
        reasons = {}
        for line in lines:
            if line.get("msg") == "unsafe_to_drain":
                reasons[str(line.get("event_id", "")).lower()] = line.get("reason", "?")
            if line.get("msg") == "drain_forced_unsafe":
                eid = str(line.get("event_id", "")).lower()
                forced.append(f"{vm} {eid}: refused ({reasons.get(eid, 'no unsafe_to_drain logged')}), forced at "
                              f"{hms(log_ms(line['ts']))}")
    print(f"   events posted: {len(events)}, approvals seen: {sum(a['event_id'].lower() in posted for a in approvals)},"
          f" impacts: {sum(r['phase'] == 'start' and r['event_id'].lower() in posted for r in impacts)}")
    print(f"   faults applied ({len(faults)}):")
    for a in faults:
        detail = " ".join(f"{k}={v}" for k, v in a.items() if k not in ("t_ms", "action", "episode", "fault"))
        print(f"     {hms(a['t_ms'])} episode {a['episode']}: {a['fault']} {detail}")
    print(f"   forced drains (the gate refused; no approval): {len(forced)}")
    for line in forced:
        print(f"     {line}")
    requests = read_requests(args.requests)
    for line in failure_causes(requests, actions, impacts, logs):
        print(line)
    windows = crash_windows(actions, int(REQUEST_TIMEOUT_S * 1000), agents_catch_up_min_ms(logs),
                            agent_steps(logs, impacts))
    crash_failed = failed_at_crash(requests, windows)
    for vm, first, last, via in windows:
        if via is None:
            print(f"   {vm}'s JVM killed with no event: requests due {hms(first)}-{hms(last)} can fail (a request "
                  f"timeout before the kill until every other node convicted it)")
        else:
            print(f"   {vm}'s JVM started again after its kill: requests it coordinated due {hms(first)}-{hms(last)} "
                  f"can fail (its first catch_up_min_s of CQL, which the agent's binary hold would have kept closed, "
                  f"or until a request timeout before the next drain, restore or impact)")
    for a in actions:
        if a["action"] == "node_cql_open" and not any(w[0] == a["vm"] and w[1] == a["t_cql_ms"] for w in windows):
            print(f"   {a['vm']}'s JVM started again after its kill opened CQL at {hms(a['t_cql_ms'])} with a drain, "
                  f"restore or impact under way within a request timeout of it: its failures stay failed")
    print(f"   failed at a crash: {crash_failed} of the client's {summary['failed']} failed requests")
    print(f"   impacts on a drain a JMX hang held (no approval before them): {len(held)}")
    for line in held:
        print(f"     {line}")
    for line in findings:
        print(f"   FINDING: {line}")
    for line in problems:
        print(f"   PROBLEM: {line}")
    counts = {"seed": args.seed, "events": len(events), "faults": len(faults),
              "failed": summary["failed"] - crash_failed, "wrong": summary["wrong"] + summary["empty"],
              "lost": summary["lost"], "impacts_undrained": undrained, "early_approvals": early,
              "failed_at_crash": crash_failed, "impacts_at_hang": len(held)}
    if args.picture:
        draw(args, requests, actions, impacts, approvals, logs, posted, tl, windows)
        print(f"   picture: {args.picture}")
    failing = ["wrong", "lost", "impacts_undrained", "early_approvals"]
    if not args.allow_client_failures:
        failing.append("failed")
    elif counts["failed"]:
        print(f"   the client's {counts['failed']} failed requests do not fail this run (--allow-client-failures)")
    print(" ".join(f"{k}={v}" for k, v in counts.items()))
    bad = problems or any(counts[k] for k in failing)
    return 1 if bad else 0


def failure_causes(requests, actions, impacts, logs, within_ms=60000):
    """The client's failed requests by coordinator, each beside the last thing that happened to any node before
    it failed (from a minute before it was due until it was answered or timed out, so that an impact while it
    was in flight is its cause): a fault, an impact, a restore, a JVM started again or killed."""
    marks = collections.defaultdict(list)  # vm -> [(t_ms, what)]
    address_vm = {}
    for a in actions:
        if a["action"] in ("fault_applied", "node_starting", "node_killed") and a.get("vm"):
            marks[a["vm"]].append((a["t_ms"], a.get("fault") or a["action"]))
        if a["action"] == "fault_applied" and not a.get("vm"):
            for vm in logs:
                marks[vm].append((a["t_ms"], a["fault"]))
    for r in impacts:
        marks[r["vm"]].append((r["t_ms"], f"{r['type']} {r['phase']}"))
    for vm, lines in logs.items():
        for line in lines:
            if line.get("msg") == "restore_completed":
                marks[vm].append((log_ms(line["ts"]), "restore_completed"))
        address_vm[f"127.0.0.{vm[2:]}"] = vm
    for v in marks.values():
        v.sort()
    causes = collections.Counter()
    for r in requests:
        if r.outcome == "ok":
            continue
        vm = address_vm.get(r.coordinator, r.coordinator)
        near = [(mt, f"{other}: {what}") for other, ms in marks.items() for mt, what in ms
                if r.due_ms - within_ms <= mt <= r.due_ms + r.latency_ms]
        cause = max(near)[1] if near else "nothing within a minute"
        causes[(vm, cause)] += 1
    if not causes:
        return []
    lines = ["   failed requests by coordinator, beside the last thing that happened to a node before them (60 s):"]
    for (vm, cause), n in sorted(causes.items(), key=lambda kv: -kv[1]):
        lines.append(f"     {n:5d} coordinated by {vm}, after {cause}")
    return lines


def hms(t_ms):
    return time.strftime("%H:%M:%S", time.localtime(t_ms / 1000)) + f".{t_ms % 1000:03d}"


def draw(args, requests, actions, impacts, approvals, logs, posted, tl, windows):
    """Writes the run's data beside the picture (PICTURE.d/) and draws it with gnuplot (pngcairo, or svg for a
    .svg name): the client's latency and failures on top, a lane per node below."""
    data = args.picture + ".d"
    os.makedirs(data, exist_ok=True)
    t0 = min([r.due_ms for r in requests] + [a["t_ms"] for a in actions])
    end = max([r.due_ms for r in requests] + [a["t_ms"] for a in actions])

    def x(t_ms):
        return (t_ms - t0) / 1000
    vms = sorted(set(tl.changes) | {f"vm{k}" for k in range(1, 7)}, key=lambda v: int(v[2:]))
    lane = {vm: i for i, vm in enumerate(vms)}
    files = collections.defaultdict(list)
    for t, latency, outcome, coordinator in requests:
        crash = at_crash(t, outcome, coordinator, windows)
        kind = "ok" if outcome == "ok" else "failed_at_crash" if crash else "failed"
        files[kind].append(f"{x(t):.3f} {max(latency, 1):.1f}")
    bands = {"draining": 0.4, "drained": 0.4, "down": 0.4, "impact": 0.25, "catching": 0.12}

    def band(kind, vm, start, stop):
        half = bands[kind]
        files[kind].append(f"{(start + stop) / 2:.3f} {lane[vm]} {start:.3f} {stop:.3f} "
                           f"{lane[vm] - half} {lane[vm] + half}")
    for vm in vms:
        changes = tl.changes.get(vm, [])
        for i, (t, state, _) in enumerate(changes):
            stop = changes[i + 1][0] if i + 1 < len(changes) else end
            if state in bands:
                band(state, vm, x(t), x(stop))
        catching = None
        for line in logs.get(vm, []):
            msg = line.get("msg")
            # A restarted node catches up with its CQL held, from binary_held; any other from restore_completed.
            if msg == "binary_held" or (msg == "restore_completed" and catching is None):
                catching = log_ms(line["ts"])
            elif msg == "drain_started":
                catching = None
            elif msg in ("caught_up", "catch_up_timeout") and catching:
                band("catching", vm, x(catching), x(log_ms(line["ts"])))
                catching = None
    for r in impacts:
        if r["phase"] != "start" or r["event_id"].lower() not in posted or r.get("landed") is not True:
            continue
        if r.get("type") == "Freeze":
            stop = r["t_ms"] + 1000 * (posted[r["event_id"].lower()].get("duration_s") or 5)
        else:
            stop = next((e["t_ms"] for e in impacts if e["vm"] == r["vm"] and e["event_id"] == r["event_id"]
                         and e["phase"] == "end"), end)
        band("impact", r["vm"], x(r["t_ms"]), x(stop))
    for a in approvals:
        if a["event_id"].lower() in posted:
            files["approvals"].append(f"{x(a['t_ms']):.3f} {lane[a['vm']] + 0.3}")
    for a in actions:
        if a["action"] == "fault_applied":
            y = lane.get(a.get("vm"), len(vms) - 0.5)
            files["faults"].append(f"{x(a['t_ms']):.3f} {y} {a['fault']}")
        if a["action"] == "event_posted":
            for vm in a["resources"]:
                files["posted"].append(f"{x(a['t_ms']):.3f} {lane[vm] - 0.45}")
    for name in ["ok", "failed", "failed_at_crash", "approvals", "faults", "posted", *bands]:
        with open(os.path.join(data, name), "w") as f:
            f.write("\n".join(files[name] or ["-1 -1 -1 -1 -1 -1"]) + "\n")
    terminal = "svg size 1600,900 dynamic" if args.picture.endswith(".svg") else "pngcairo size 1600,900"
    colors = {"draining": "#f0e68c", "drained": "#87cefa", "down": "#505050", "impact": "#e03030",
              "catching": "#ffa500"}
    labels = {"draining": "draining", "drained": "drained", "down": "down (VM or JVM)", "impact": "impact",
              "catching": "catching up"}
    n_faults = sum(a["action"] == "fault_applied" for a in actions)
    script = f"""set terminal {terminal} font "sans,10" noenhanced
set output "{args.picture}"
set multiplot layout 2,1 title "game day, seed {args.seed}: {len(posted)} events, {n_faults} faults"
set xrange [0:{x(end):.0f}]
set lmargin 14
set logscale y
set ylabel "client latency (ms)"
set key top right
plot "{data}/ok" using 1:2 with dots lc rgb "#1f77b4" title "answered (from its due instant)", \\
     "{data}/failed" using 1:2 with points pt 2 ps 1.2 lc rgb "red" title "failed or wrong ({len(files['failed'])})", \\
     "{data}/failed_at_crash" using 1:2 with points pt 6 ps 1.2 lc rgb "#ff8c00" \\
       title "failed at a JVM killed with no event ({len(files['failed_at_crash'])})"
unset logscale y
set ylabel ""
set yrange [-0.7:{len(vms) - 0.3}]
set ytics ({", ".join(f'"{vm} (rack{rack_of(vm)})" {i}' for vm, i in lane.items())})
set xlabel "seconds since the start"
set key below horizontal
set style fill solid 0.8 noborder
plot """ + ", \\\n     ".join(
        [f'"{data}/{k}" using 1:2:3:4:5:6 with boxxyerror lc rgb "{colors[k]}" title "{labels[k]}"' for k in bands]
        + [f'"{data}/approvals" using 1:2 with points pt 11 ps 1.5 lc rgb "#208020" title "approval"',
           f'"{data}/posted" using 1:2 with points pt 9 ps 0.8 lc rgb "#800080" title "event posted"',
           f'"{data}/faults" using 1:2 with points pt 2 ps 2 lw 2 lc rgb "black" title "fault"',
           f'"{data}/faults" using 1:2:3 with labels offset 0,0.8 font ",8" notitle']) + """
unset multiplot
"""
    with open(os.path.join(data, "plot.gp"), "w") as f:
        f.write(script)
    subprocess.run(["gnuplot", os.path.join(data, "plot.gp")], check=True)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seed", type=int, required=True)
    p.add_argument("--actions", required=True)
    p.add_argument("--impacts", required=True)
    p.add_argument("--approvals", required=True, help="the emulator's GET /admin/approvals at the end")
    p.add_argument("--agents", required=True, help="the directory of agent-vmK/agent.jsonl")
    p.add_argument("--requests", required=True)
    p.add_argument("--summary", required=True)
    p.add_argument("--picture", help="PNG or SVG to draw the run into")
    p.add_argument("--allow-client-failures", action="store_true",
                   help="the client's failed requests do not make the exit status 1 (the other counts do)")
    return check(p.parse_args())


if __name__ == "__main__":
    sys.exit(main())
