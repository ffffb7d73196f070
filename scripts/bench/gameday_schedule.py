"""The game day's schedule (scripts/bench-gameday.sh, SPEC 10): drawn from a seed, the same seed gives the same
schedule. Prints it as JSON on stdout; --describe prints it as one line per episode instead.

The cluster is scripts/cassandra-cluster.sh's 6 nodes: VM k (1-6) is node 127.0.0.k in rack (k-1)%3+1.

An episode is what happens to one rack: one or two events, or a node's Cassandra killed (with --faults), and at
most one fault. Episodes are played in order. An episode starts `offset_s` after the one before it is back:
every posted event gone and every node serving (its agent restored, its JVM running), its own rack's too; or,
for an episode marked `early`, once the episode before it has its impact: it is then announced during that
outage with a notice long enough (180-240 s) that its own drain comes after it. Every event kind of SPEC 3.2 is
drawn at least once when there are as many events as kinds: a shuffled round of every kind first, then kinds
drawn by weight.

Each event is the imds-emulator admin API's body (POST /admin/events), plus "post_after_s" (after the episode's
start) and, for an event first seen Started, "delay_impact_s" (its impact that long after it appears, as a
hardware failure's).

Faults (--faults), at most one per event episode, and episodes of their own:
  agent_kill_drain      kill -9 the VM's agent when it logs drain_started for the episode's event; started
                        again (same boot id) restart_after_s later
  agent_kill_restore    the same at its restore_started after the episode's impact
  etcd_kill             kill -9 etcd member `member` at_s after the episode's start; started again down_s later
  jmx_hang_gate         the VM's JMX (nodetool) or Jolokia hangs for hang_s (longer than command_timeout_s),
                        ending 40 s before NotBefore (before the forced drain's instant): the gate check hangs,
                        times out, and is retried
  jmx_hang_restore      the VM's JMX or Jolokia hangs for hang_s from the impact's last second (a Freeze) or the
                        VM's boot (the others): the restore's steps hang, time out, and are retried
  clock_step            the wall clock stepped shift_s ahead at_s after the episode's start, set right when its
                        events are gone (the emulator serves NotBefore shifted by -shift_s: what the agent sees)
  disk_full             the VM's state disk (a tmpfs) full from the episode's start until its events are gone
  cassandra_kill        (an episode, once every rack is back and every other node sees the node UN) the node's
                        JVM killed; once every other node sees it down, a single-VM event
                        on another rack whose drain the gate must refuse (2 racks would be out), forced at
                        NotBefore - unsafe_drain_lead_s; the node started again down_s after the kill
"""
import argparse
import json
import random
import sys

VMS_PER_RACK = 2
RACKS = 3

EVENT_KINDS = ["freeze", "reboot", "redeploy", "preempt", "terminate", "started", "back_to_back", "user"]
WEIGHTS = {"freeze": 3.0, "reboot": 1.0, "redeploy": 0.7, "preempt": 0.7, "terminate": 0.5, "started": 1.2,
           "back_to_back": 1.0, "user": 0.8, "cassandra_kill": 0.6}
GATED = {"freeze", "reboot", "redeploy", "preempt", "terminate", "back_to_back"}  # waits for NotBefore's lead
FREEZE_LIKE = {"freeze", "started", "user"}  # short outages: the next episode may be announced during them
EPISODE_FAULTS = ["agent_kill_drain", "agent_kill_restore", "etcd_kill", "jmx_hang_gate", "jmx_hang_restore",
                  "clock_step", "disk_full"]


def rack_vms(rack):
    return [f"vm{k}" for k in range(rack, RACKS * VMS_PER_RACK + 1, RACKS)]


def rack_of(vm):
    return (int(vm[2:]) - 1) % RACKS + 1


class Draw:
    def __init__(self, seed, events, faults, command_timeout_s):
        self.rng = random.Random(seed)
        self.seed, self.events_wanted, self.faults, self.timeout_s = seed, events, faults, command_timeout_s
        kinds = EVENT_KINDS + (["cassandra_kill"] if faults else [])
        self.first_round = self.rng.sample(kinds, len(kinds))

    def kind(self, index):
        if index < len(self.first_round):
            return self.first_round[index]
        names = list(WEIGHTS) if self.faults else [k for k in WEIGHTS if k != "cassandra_kill"]
        return self.rng.choices(names, weights=[WEIGHTS[k] for k in names])[0]

    def scope(self, rack):
        vms = rack_vms(rack)
        return vms if self.rng.random() < 0.5 else [self.rng.choice(vms)]

    def notice(self, early):
        return self.rng.randint(180, 240) if early else self.rng.randint(60, 120)

    def episode(self, index, previous):
        kind = self.kind(index)
        rack = self.rng.randint(1, RACKS)
        early = (kind in GATED and previous is not None and previous["kind"] in FREEZE_LIKE
                 and previous.get("fault", {}).get("kind") != "clock_step" and self.rng.random() < 0.35)
        ep = {"index": index, "kind": kind, "rack": rack, "early": early, "offset_s": self.rng.randint(0, 20)}
        if kind == "cassandra_kill":
            return self.kill_episode(ep)
        vms = self.scope(rack)
        n = self.notice(early)
        rnd = self.rng
        if kind == "freeze":
            ev = [{"type": "Freeze", "not_before_in_s": n, "duration_s": rnd.choice([2, 5, 10, 20, 30]),
                   "complete_after_s": 5}]
        elif kind in ("reboot", "redeploy", "preempt"):
            ev = [{"type": kind.capitalize(), "not_before_in_s": n, "complete_after_s": rnd.randint(10, 20)}]
        elif kind == "terminate":
            ev = [{"type": "Terminate", "not_before_in_s": n, "complete_after_s": 10}]
        elif kind == "started":
            ev = [{"type": "Freeze", "started": True, "delay_impact_s": rnd.randint(6, 12),
                   "duration_s": rnd.choice([5, 10, 20]), "complete_after_s": 10}]
        elif kind == "user":
            ev = [{"type": "Freeze", "source": "User", "not_before_in_s": n, "duration_s": rnd.choice([5, 10]),
                   "complete_after_s": 5}]
        else:  # back_to_back: a Freeze, then a Reboot within hold_between_events_s of its end
            d = rnd.choice([5, 10])
            ev = [{"type": "Freeze", "not_before_in_s": n, "duration_s": d, "complete_after_s": 5},
                  {"type": "Reboot", "not_before_in_s": n + d + 5 + rnd.randint(10, 40),
                   "complete_after_s": rnd.randint(10, 20)}]
        for e in ev:
            e["resources"] = vms
            e["post_after_s"] = 0
        ep.update(vms=vms, events=ev)
        if self.faults and rnd.random() < 0.6:
            ep["fault"] = self.episode_fault(ep)
        return ep

    def episode_fault(self, ep):
        rnd = self.rng
        choices = [f for f in EPISODE_FAULTS if f != "jmx_hang_gate" or ep["kind"] in GATED]
        kind = rnd.choice(choices)
        vm = rnd.choice(ep["vms"])
        first = ep["events"][0]
        if kind in ("agent_kill_drain", "agent_kill_restore"):
            restart_after_s = rnd.randint(1, 6)
            if kind == "agent_kill_drain" and first.get("started"):
                # An emergency drain killed: the agent must be back, and drain, before the impact (an agent that
                # is not running cannot drain; the fault tests what it does when it is).
                restart_after_s = min(restart_after_s, max(1, first["delay_impact_s"] - 4))
            return {"kind": kind, "vm": vm, "restart_after_s": restart_after_s}
        if kind == "etcd_kill":
            latest = max(first.get("not_before_in_s", 10) - 20, 1)
            return {"kind": kind, "member": rnd.randint(0, 2), "at_s": rnd.randint(0, latest),
                    "down_s": rnd.randint(5, 30)}
        if kind == "jmx_hang_gate":
            # Over 40 s before NotBefore: before the forced drain's instant (NotBefore - unsafe_drain_lead_s)
            # less a drain's steps, so the node is drained before its impact; it covers the gate check (due at
            # NotBefore - drain_lead_s - the expected drain). The notice leaves the hang room after the event
            # is seen.
            hang_s = self.timeout_s + rnd.randint(5, 15)
            first["not_before_in_s"] = max(first["not_before_in_s"], hang_s + 50)
            return {"kind": kind, "vm": vm, "before_not_before_s": hang_s + 40, "hang_s": hang_s}
        if kind == "jmx_hang_restore":
            return {"kind": kind, "vm": vm, "hang_s": self.timeout_s + rnd.randint(5, 10)}
        if kind == "clock_step":
            return {"kind": kind, "at_s": rnd.randint(0, 10), "shift_s": rnd.randint(15, 60)}
        return {"kind": "disk_full", "vm": vm}

    def kill_episode(self, ep):
        rnd = self.rng
        vm = rnd.choice(rack_vms(ep["rack"]))
        other_rack = rnd.choice([r for r in range(1, RACKS + 1) if r != ep["rack"]])
        refused_vm = rnd.choice(rack_vms(other_rack))
        # The refused event: announced once every live node sees the killed one down, its drain's gate check
        # refused until the forced drain at NotBefore - unsafe_drain_lead_s; the killed node comes back after
        # it (down_s from the kill: the wait for the views, the notice, the Freeze and its completion).
        notice, duration = rnd.randint(45, 60), rnd.choice([5, 10])
        ep.update(early=False, vms=[vm], events=[{
            "type": "Freeze", "resources": [refused_vm], "not_before_in_s": notice, "duration_s": duration,
            "complete_after_s": 5, "post_after_s": "down_everywhere"}],
            fault={"kind": "cassandra_kill", "vm": vm, "after_refused_event_s": rnd.randint(5, 20)})
        return ep


def draw(seed, events, faults, command_timeout_s):
    d = Draw(seed, events, faults, command_timeout_s)
    episodes, count = [], 0
    while count < events:
        ep = d.episode(len(episodes), episodes[-1] if episodes else None)
        episodes.append(ep)
        count += len(ep["events"])
    return {"seed": seed, "events": count, "faults": faults, "command_timeout_s": command_timeout_s,
            "episodes": episodes}


def describe(schedule):
    lines = [f"seed={schedule['seed']} events={schedule['events']} "
             f"faults={'on' if schedule['faults'] else 'off'}"]
    for ep in schedule["episodes"]:
        evs = "; ".join(
            f"{e.get('source', 'Platform') + ' ' if e.get('source') else ''}{e['type']}"
            f"{' ' + str(e['duration_s']) + ' s' if 'duration_s' in e else ''}"
            f"{' first seen Started, impact +' + str(e['delay_impact_s']) + ' s' if e.get('started') else ''}"
            f"{' NotBefore +' + str(e['not_before_in_s']) + ' s' if 'not_before_in_s' in e else ''}"
            f" on {','.join(e['resources'])}" for e in ep["events"])
        fault = ep.get("fault")
        fault_text = ""
        if fault:
            fault_text = " | fault " + " ".join(f"{k}={v}" for k, v in fault.items())
        start = "during the previous impact" if ep["early"] else "when every rack is back"
        lines.append(f"  {ep['index']:2d} {ep['kind']:<14} rack{ep['rack']} +{ep['offset_s']} s {start}: {evs}"
                     f"{fault_text}")
    return "\n".join(lines)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seed", type=int, required=True)
    p.add_argument("--events", type=int, default=30)
    p.add_argument("--faults", action="store_true")
    p.add_argument("--command-timeout-s", type=int, default=120, help="the agents' cassandra.command_timeout_s")
    p.add_argument("--describe", action="store_true", help="one line per episode instead of JSON")
    a = p.parse_args()
    if a.events < 1:
        p.error("--events must be at least 1")
    schedule = draw(a.seed, a.events, a.faults, a.command_timeout_s)
    print(describe(schedule) if a.describe else json.dumps(schedule, indent=1))


if __name__ == "__main__":
    sys.exit(main())
