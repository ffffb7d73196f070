"""Plays a game day's schedule (scripts/bench/gameday_schedule.py) on the rig scripts/bench-gameday.sh set up.

--rig names a JSON file: admin (the emulator's admin URL), cluster (scripts/cassandra-cluster.sh), agent_bin,
impacts (the impact hook's record), delay_dir (IMPACT_HOOK_DELAY_DIR), hang_dir (a file DIR/VM hangs that VM's
JMX or Jolokia while it exists: scripts/bench/hang_gate.sh and hang_proxy.py), vms ({"vm1": {"address", "dir",
"system_log"}}: each agent's directory holds config.json and boot_id, its state disk DIR/state a tmpfs when disk
faults are drawn; system_log is its node's Cassandra log), etcd ([{"argv", "pid"}] per member). The player
starts and stops the agents itself: at the start, when a VM boots after a Reboot, Redeploy, Preempt or
Terminate (the impact hook kills the JVM; the player kills the VM's agent with it, and at the event's end starts
it with a new boot id: the hook starts Cassandra, or for a Terminate the player does, as the VM's replacement
would), and for the faults.

Every action goes to --actions as a JSON line (t_ms, action, and what it acted on); the checker reads them.
Ends once every episode is over and every node is back in service (its JVM running, its agent restored);
exit 1 when an episode does not end within its bound or a drawn fault was never applied.
"""
import argparse
import ctypes
import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.request
import uuid

POLL_S = 0.2
NODE_STATES_S = 2
ETCD_ALIVE_S = 3  # a restarted etcd member that exits on its command line does so at once
KILL_TYPES = {"Reboot", "Redeploy", "Preempt", "Terminate"}
PR_SET_PDEATHSIG = 1
# Gossiper's line when this node's failure detector convicts a peer (Cassandra logs in the machine's local time).
DOWN_LINE = re.compile(r"(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d),(\d{3}) .*InetAddress /([0-9.]+):\d+ is now DOWN")
# Server's line when a node opens its native transport.
CQL_LINE = re.compile(r"(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d),(\d{3}) .*Starting listening for CQL clients on "
                      r"[^/\s]*/([0-9.]+):\d+")


def now_ms():
    return int(time.time() * 1000)


def first_line_since(path, pattern, address, since_ms):
    """The instant (ms) of path's first line that pattern matches for address at or after since_ms, or None (a
    Cassandra log: local time, milliseconds after a comma; pattern's groups 1-3 are those and the address)."""
    try:
        with open(path, errors="replace") as f:
            for line in f:
                m = pattern.search(line)
                if m and m.group(3) == address:
                    t = int(time.mktime(time.strptime(m.group(1), "%Y-%m-%d %H:%M:%S")) * 1000) + int(m.group(2))
                    if t >= since_ms:
                        return t
    except OSError:
        pass
    return None


def die_with_parent():
    ctypes.CDLL("libc.so.6", use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def http(method, url, body=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as r:
        text = r.read()
    return json.loads(text) if text else None


class AgentLog:
    """The new lines of one agent's JSON log since the last read (every line kept for the triggers)."""

    def __init__(self, path):
        self.path, self.offset, self.partial = path, 0, b""

    def new_lines(self):
        try:
            with open(self.path, "rb") as f:
                f.seek(self.offset)
                data = f.read()
        except FileNotFoundError:
            return []
        self.offset += len(data)
        data = self.partial + data
        *lines, self.partial = data.split(b"\n")
        out = []
        for raw in lines:
            try:
                out.append(json.loads(raw))
            except ValueError:
                continue
        return out


class Rig:
    def __init__(self, rig, actions_path):
        self.rig = rig
        self.admin = rig["admin"]
        self.actions = open(actions_path, "a", buffering=1)
        self.agents = {}             # vm -> Popen of its running agent
        self.vm_down = set()         # VMs whose VM is down (a kill-type impact), their agent with them
        self.logs = {vm: AgentLog(os.path.join(v["dir"], "agent.jsonl")) for vm, v in rig["vms"].items()}
        self.last_msg = {}           # vm -> the last of drain_started / restore_completed / agent start
        self.events = {}             # EventId -> its emulator entry, refreshed each tick
        self.posted = {}             # EventId -> (episode index, body)
        self.timers = []             # (due_ms, description, fn)
        self.triggers = []           # (vm, predicate(line), fn, description): on an agent's log line
        self.conditions = []         # (predicate(), fn): checked every tick
        self.downed, self.booted = set(), set()  # (EventId, vm) of kill-type impacts played on the VM's agent
        self.on_boot = {}            # (EventId, vm) -> what to do when that VM boots
        self.children = []           # background commands: (Popen, description)
        self.etcd = {i: None for i in range(len(rig["etcd"]))}  # member -> Popen when the player restarted it
        self.impacts_offset = 0
        self.impacts = []            # the hook's records so far
        self.node_states_at, self.node_states_seen = 0, {}

    # ---- bookkeeping ------------------------------------------------------------------------------------------
    def act(self, action, **fields):
        self.actions.write(json.dumps({"t_ms": now_ms(), "action": action, **fields}) + "\n")
        print(f"   {time.strftime('%H:%M:%S')} {action} " + " ".join(f"{k}={v}" for k, v in fields.items()),
              flush=True)

    def at(self, delay_s, description, fn):
        self.timers.append((now_ms() + int(delay_s * 1000), description, fn))

    def run_background(self, argv, description, log_name):
        with open(os.path.join(self.rig["work"], log_name), "ab") as log:
            p = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, preexec_fn=die_with_parent)
        self.children.append((p, description))
        return p

    # ---- agents -----------------------------------------------------------------------------------------------
    def agent_start(self, vm, reason, new_boot_id=False):
        if vm in self.agents or vm in self.vm_down:
            return
        d = self.rig["vms"][vm]["dir"]
        if new_boot_id:
            with open(os.path.join(d, "boot_id"), "w") as f:
                f.write(str(uuid.uuid4()) + "\n")
        env = dict(os.environ, CLA_BOOT_ID_FILE=os.path.join(d, "boot_id"))
        # At the niceness of the packaged unit (Nice=-5), as bench-availability.sh runs them.
        with open(os.path.join(d, "stdout"), "ab") as out, open(os.path.join(d, "stderr"), "ab") as err:
            self.agents[vm] = subprocess.Popen(
                ["nice", "-n", "-5", self.rig["agent_bin"], "--config", os.path.join(d, "config.json")],
                env=env, stdout=out, stderr=err, preexec_fn=die_with_parent)
        self.last_msg[vm] = "agent_started"
        self.act("agent_started", vm=vm, pid=self.agents[vm].pid, reason=reason, new_boot_id=new_boot_id)

    def agent_kill(self, vm, reason):
        p = self.agents.pop(vm, None)
        if p is None:
            return False
        p.send_signal(signal.SIGKILL)
        p.wait()
        self.act("agent_killed", vm=vm, pid=p.pid, reason=reason)
        return True

    def agent_settled(self, vm):
        """Its agent runs and holds the node in service (its state file's node.drained is false)."""
        if vm not in self.agents or self.last_msg.get(vm) == "drain_started":
            return False
        try:
            with open(os.path.join(self.rig["vms"][vm]["dir"], "state", "state.json")) as f:
                return not json.load(f).get("node", {}).get("drained", False)
        except (OSError, ValueError):
            return True  # no state written yet: a first start, nothing drained

    # ---- Cassandra, etcd, hangs, disks, the clock -------------------------------------------------------------
    def node_states(self):
        """Each VM's node JVM: running, frozen or stopped (cassandra-cluster.sh status: a bash and a jq a node,
        so read at most every NODE_STATES_S while the player waits)."""
        if now_ms() - self.node_states_at < NODE_STATES_S * 1000:
            return self.node_states_seen
        out = subprocess.run([self.rig["cluster"], "status"], capture_output=True, text=True, check=True).stdout
        by_address = {json.loads(line)["address"]: json.loads(line)["state"] for line in out.splitlines() if line}
        self.node_states_at = now_ms()
        self.node_states_seen = {vm: by_address.get(v["address"]) for vm, v in self.rig["vms"].items()}
        return self.node_states_seen

    def node_kill(self, vm, reason):
        subprocess.run([self.rig["cluster"], "kill", self.rig["vms"][vm]["address"]], check=True,
                       capture_output=True)
        self.act("node_killed", vm=vm, reason=reason)

    def node_start(self, vm, reason):
        """Started in the background (it returns once the node is UN in every view); without its native
        transport when the VM's agent holds the node drained, as the unit's drop-in would. True when the start
        opens the native transport itself."""
        argv = [self.rig["cluster"], "start", self.rig["vms"][vm]["address"]]
        try:
            with open(os.path.join(self.rig["vms"][vm]["dir"], "state", "state.json")) as f:
                if json.load(f).get("node", {}).get("drained"):
                    argv.append("--no-binary")
        except (OSError, ValueError):
            pass
        self.act("node_starting", vm=vm, reason=reason, no_binary="--no-binary" in argv)
        self.run_background(argv, f"start of {vm}'s node", f"node-start-{vm}.log")
        return "--no-binary" not in argv

    def etcd_kill(self, member):
        p = self.etcd[member]
        pid = p.pid if p else self.rig["etcd"][member]["pid"]
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        if p:
            p.wait()
        self.act("etcd_killed", member=member, pid=pid)

    def etcd_start(self, member):
        argv = self.rig["etcd"][member]["argv"]
        with open(self.rig["etcd"][member]["log"] + ".restarted", "ab") as log:
            self.etcd[member] = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT,
                                                 preexec_fn=die_with_parent)
        self.act("etcd_started", member=member, pid=self.etcd[member].pid)
        self.at(ETCD_ALIVE_S, f"etcd member {member} still running", lambda: self.etcd_alive(member))

    def etcd_alive(self, member):
        """A member that exits at once (a bad command line) would leave the rest of the run without it, and
        without a quorum at the next member's kill: the game day fails instead."""
        p = self.etcd[member]
        if p.poll() is not None:
            raise SystemExit(f"game day: etcd member {member} exited ({p.returncode}) after its restart; see "
                             f"{self.rig['etcd'][member]['log']}.restarted")

    def hang(self, vm, on, hang_s=None):
        path = os.path.join(self.rig["hang_dir"], vm)
        if on:
            open(path, "w").close()
            self.act("jmx_hang_started", vm=vm, hang_s=hang_s)
        else:
            try:
                os.unlink(path)
            except FileNotFoundError:
                pass
            self.act("jmx_hang_ended", vm=vm)

    def disk(self, vm, full):
        filler = os.path.join(self.rig["vms"][vm]["dir"], "state", "filler")
        if full:
            fd = os.open(filler, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            try:
                while os.write(fd, b"\0" * 4096):
                    pass
            except OSError:
                pass  # ENOSPC: the disk is full
            finally:
                os.close(fd)
            self.act("disk_full", vm=vm, filler_bytes=os.path.getsize(filler))
        else:
            os.unlink(filler)
            self.act("disk_freed", vm=vm)

    def clock(self, shift_s):
        http("POST", f"{self.admin}/admin/faults", {"not_before_shift_s": -shift_s} if shift_s else {})
        self.act("clock_stepped" if shift_s else "clock_set_right", shift_s=shift_s)

    # ---- events -----------------------------------------------------------------------------------------------
    def post(self, episode, body):
        body = dict(body)
        body.pop("post_after_s", None)
        delay = body.pop("delay_impact_s", None)
        if delay is not None:
            for vm in body["resources"]:
                with open(os.path.join(self.rig["delay_dir"], vm), "w") as f:
                    f.write(str(now_ms() + delay * 1000))
        event_id = http("POST", f"{self.admin}/admin/events", body)["EventId"]
        self.posted[event_id] = (episode, body)
        entry = next(e for e in http("GET", f"{self.admin}/admin/events") if e["EventId"] == event_id)
        self.events[event_id] = entry
        self.act("event_posted", episode=episode, event_id=event_id, type=body["type"],
                 resources=body["resources"], source=body.get("source", "Platform"),
                 started=bool(body.get("started")), delay_impact_s=delay, duration_s=body.get("duration_s"),
                 not_before_ms=entry.get("not_before_ms"))
        return event_id, entry

    def pending(self, event_id):
        return event_id in self.events

    # ---- the tick: what happens whatever the episode -----------------------------------------------------------
    def tick(self):
        self.events = {e["EventId"]: e for e in http("GET", f"{self.admin}/admin/events")}
        self.read_impacts()
        self.vm_reboots()
        for vm, log in self.logs.items():
            for line in log.new_lines():
                if line.get("msg") in ("drain_started", "restore_completed"):
                    self.last_msg[vm] = line["msg"]
                for trig in list(self.triggers):
                    if trig[0] == vm and trig[1](line):
                        self.triggers.remove(trig)
                        trig[2]()
        for cond in list(self.conditions):
            if cond[0]():
                self.conditions.remove(cond)
                cond[1]()
        due = [t for t in self.timers if t[0] <= now_ms()]
        for t in due:
            self.timers.remove(t)
            t[2]()
        for p, description in list(self.children):
            if p.poll() is not None:
                self.children.remove((p, description))
                self.act("command_done", what=description, exit=p.returncode)
                if p.returncode != 0:
                    raise SystemExit(f"{description} failed (exit {p.returncode}); see {self.rig['work']}")
        for vm, p in list(self.agents.items()):
            if p.poll() is not None:
                self.agents.pop(vm)
                self.act("agent_exited", vm=vm, exit=p.returncode)
                raise SystemExit(f"{vm}'s agent exited by itself (exit {p.returncode})")

    def read_impacts(self):
        try:
            with open(self.rig["impacts"]) as f:
                f.seek(self.impacts_offset)
                data = f.read()
        except FileNotFoundError:
            return
        complete = data[:data.rfind("\n") + 1]
        self.impacts_offset += len(complete.encode())
        self.impacts += [json.loads(line) for line in complete.splitlines() if line.strip()]

    def impact_of(self, event_id, vm=None, phase="start"):
        return next((r for r in self.impacts if r["event_id"].lower() == event_id.lower() and r["phase"] == phase
                     and (vm is None or r["vm"] == vm)), None)

    def vm_reboots(self):
        """A kill-type event's impact takes the VM's agent down with the JVM; its end boots the VM."""
        for event_id, (episode, body) in self.posted.items():
            if body["type"] not in KILL_TYPES:
                continue
            for vm in body["resources"]:
                key = (event_id, vm)
                if key in self.booted:
                    continue
                if key not in self.downed and self.impact_of(event_id, vm):
                    self.downed.add(key)
                    self.agent_kill(vm, f"VM down: {body['type']} {event_id}")
                    self.vm_down.add(vm)
                elif key in self.downed and not self.pending(event_id):
                    self.booted.add(key)
                    self.vm_down.discard(vm)
                    if body["type"] == "Terminate":
                        self.node_start(vm, f"replaces the VM {event_id} terminated")
                    self.agent_start(vm, f"VM booted after {body['type']} {event_id}", new_boot_id=True)
                    for fn in self.on_boot.pop(key, []):
                        fn()


class Player:
    def __init__(self, rig, schedule):
        self.rig, self.schedule = rig, schedule
        self.vms = sorted(rig.rig["vms"])
        self.faults_drawn, self.faults_applied = [], []

    def wait(self, what, predicate, limit_s):
        deadline = time.time() + limit_s
        while not predicate():
            if time.time() > deadline:
                raise SystemExit(f"game day: {what}: not within {limit_s:.0f} s")
            time.sleep(POLL_S)
            self.rig.tick()

    def sleep(self, seconds):
        end = time.time() + seconds
        while time.time() < end:
            time.sleep(POLL_S)
            self.rig.tick()

    def back(self):
        """Every VM serving: no posted event listing it pending, its JVM running, its agent running and restored;
        no node start in flight."""
        r = self.rig
        if r.children:
            return False
        for vm in self.vms:
            for eid, (_, body) in r.posted.items():
                if vm not in body["resources"]:
                    continue
                if r.pending(eid):
                    return False
                # Gone, but its impact (the hook's record can come late on a loaded machine) and the boot
                # after it not yet played: the VM is still to go down, or is down.
                if body["type"] in KILL_TYPES and (eid, vm) not in r.booted:
                    return False
            if not r.agent_settled(vm):
                return False
        states = r.node_states()
        return all(states.get(vm) == "running" for vm in self.vms)

    def seen_everywhere(self, vm, state):
        """Every other node's nodetool status shows vm's node in state (UN, DN)."""
        address = self.rig.rig["vms"][vm]["address"]
        for other in self.vms:
            if other == vm:
                continue
            out = subprocess.run([self.rig.rig["cluster"], "nodetool", self.rig.rig["vms"][other]["address"],
                                  "status"], capture_output=True, text=True).stdout
            if not any(line.split()[:2] == [state, address] for line in out.splitlines() if line.strip()):
                return False
        return True

    def applied(self, ep, fault, **fields):
        self.faults_applied.append(ep["index"])
        self.rig.act("fault_applied", episode=ep["index"], fault=fault["kind"], **fields)

    def convicted(self, vm, since_ms):
        """Records when the last other node's failure detector marked vm's killed node down: its Cassandra log's
        "is now DOWN" after since_ms (the kill), read once nodetool shows the node DN everywhere. Until then
        coordinators still send it requests that wait for it. A node whose log has no such line had it down
        already (a node killed while it was still starting): it adds nothing past the kill."""
        address = self.rig.rig["vms"][vm]["address"]
        by = {}
        for other, v in self.rig.rig["vms"].items():
            if other != vm:
                by[other] = first_line_since(v["system_log"], DOWN_LINE, address, since_ms)
        last = max([since_ms] + [t for t in by.values() if t is not None])
        self.rig.act("node_convicted", vm=vm, t_convicted_ms=last, by=by,
                     without_down_line=sorted(other for other, t in by.items() if t is None))

    def cql_opened(self, vm, since_ms):
        """Records when vm's node, started again after the cassandra_kill fault, opened its native transport: its
        Cassandra log's "Starting listening for CQL clients" at or after since_ms. False until that line is
        there."""
        v = self.rig.rig["vms"][vm]
        t = first_line_since(v["system_log"], CQL_LINE, v["address"], since_ms)
        if t is not None:
            self.rig.act("node_cql_open", vm=vm, t_cql_ms=t, address=v["address"])
        return t is not None

    def play(self):
        r = self.rig
        for vm in self.vms:
            r.agent_start(vm, "game day start")
        self.wait("the agents' start-up (schema_refreshed or gate_fallback)", self.agents_started, 300)
        previous_ids = []
        for ep in self.schedule["episodes"]:
            fault = ep.get("fault")
            if fault:
                self.faults_drawn.append(ep["index"])
            if ep["early"]:
                self.wait(f"episode {ep['index']}: the previous impact",
                          lambda: any(r.impact_of(i) for i in previous_ids), 900)
            else:
                # Its own rack too: an episode played on a rack whose last events are still pending finds its
                # nodes already drained (no drain for its fault to hit) or down (no impact lands), and one
                # played while that rack's JVMs start finds nodetool's JVMs starved by theirs on two cores.
                # Events that follow each other on one node are drawn as such (back_to_back, early).
                self.wait(f"episode {ep['index']}: every rack back in service", self.back, 1200)
            self.sleep(ep["offset_s"])
            r.act("episode_started", episode=ep["index"], kind=ep["kind"], rack=ep["rack"])
            previous_ids = self.play_episode(ep, fault)
        self.wait("every node back in service at the end", lambda: self.back() and not r.timers, 1200)
        missing = sorted(set(self.faults_drawn) - set(self.faults_applied))
        if missing:
            raise SystemExit(f"game day: faults drawn but never applied, in episodes {missing}")
        r.act("game_day_over", faults=len(self.faults_applied))

    def agents_started(self):
        for vm in self.vms:
            path = os.path.join(self.rig.rig["vms"][vm]["dir"], "agent.jsonl")
            try:
                with open(path) as f:
                    text = f.read()
            except FileNotFoundError:
                return False
            if '"msg":"schema_refreshed"' not in text and '"msg":"gate_fallback"' not in text:
                return False
        return True

    def play_episode(self, ep, fault):
        r = self.rig
        kind = fault["kind"] if fault else None
        if kind == "cassandra_kill":
            self.wait(f"episode {ep['index']}: every other node to see {fault['vm']} up",
                      lambda: self.seen_everywhere(fault["vm"], "UN"), 300)
            killed_at = now_ms()
            r.node_kill(fault["vm"], f"fault of episode {ep['index']}")
            self.applied(ep, fault, vm=fault["vm"])
            self.wait(f"episode {ep['index']}: every live node to see {fault['vm']} down",
                      lambda: self.seen_everywhere(fault["vm"], "DN"), 300)
            self.convicted(fault["vm"], killed_at)
        if kind == "disk_full":
            r.disk(fault["vm"], True)
            self.applied(ep, fault, vm=fault["vm"])
        if kind == "clock_step":
            r.at(fault["at_s"], "clock step", lambda: (r.clock(fault["shift_s"]),
                                                       self.applied(ep, fault, shift_s=fault["shift_s"])))
        if kind == "etcd_kill":
            def kill_member():
                r.etcd_kill(fault["member"])
                self.applied(ep, fault, member=fault["member"])
                r.at(fault["down_s"], "etcd member restart", lambda: r.etcd_start(fault["member"]))
            r.at(fault["at_s"], "etcd member kill", kill_member)
        ids = []
        for body in ep["events"]:
            event_id, entry = r.post(ep["index"], body)
            ids.append(event_id)
        if kind in ("agent_kill_drain", "agent_kill_restore"):
            self.arm_agent_kill(ep, fault, ids)
        if kind == "jmx_hang_gate":
            nb_ms = r.events[ids[0]]["not_before_ms"]
            start_in_s = max((nb_ms - fault["before_not_before_s"] * 1000 - now_ms()) / 1000, 0)

            def hang_on():
                r.hang(fault["vm"], True, fault["hang_s"])
                self.applied(ep, fault, vm=fault["vm"], hang_s=fault["hang_s"])
                r.at(fault["hang_s"], "JMX hang end", lambda: r.hang(fault["vm"], False))
            r.at(start_in_s, "JMX hang", hang_on)
        if kind == "jmx_hang_restore":
            self.arm_restore_hang(ep, fault, ids)
        bound = max(body.get("not_before_in_s", 0) for body in ep["events"]) + 900
        self.wait(f"episode {ep['index']}: its events gone", lambda: not any(r.pending(i) for i in ids), bound)
        if kind == "clock_step":
            r.clock(0)
        if kind == "disk_full":
            r.disk(fault["vm"], False)
        if kind == "cassandra_kill":
            self.sleep(fault["after_refused_event_s"])
            started_at = now_ms()
            if r.node_start(fault["vm"], f"the end of episode {ep['index']}'s kill"):
                self.wait(f"episode {ep['index']}: {fault['vm']}'s native transport open again",
                          lambda: self.cql_opened(fault["vm"], started_at), 300)
        return ids

    def arm_agent_kill(self, ep, fault, ids):
        r, vm = self.rig, fault["vm"]
        lowered = {i.lower() for i in ids}
        msg = "drain_started" if fault["kind"] == "agent_kill_drain" else "restore_started"

        def matches(line):
            if line.get("msg") != msg:
                return False
            if msg == "drain_started":
                return str(line.get("event_id", "")).lower() in lowered
            return any(r.impact_of(i, vm) for i in ids)  # the restore after this episode's impact

        def kill():
            if r.agent_kill(vm, f"fault of episode {ep['index']}: at its {msg}"):
                self.applied(ep, fault, vm=vm, at=msg)
                r.at(fault["restart_after_s"], "agent restart", lambda: r.agent_start(vm, "after its kill -9"))
            else:
                r.triggers.append((vm, matches, kill, fault["kind"]))  # the VM is down: the next one
        r.triggers.append((vm, matches, kill, fault["kind"]))

    def arm_restore_hang(self, ep, fault, ids):
        """From the Freeze's last second, or the VM's boot, for hang_s."""
        r, vm = self.rig, fault["vm"]

        def hang_on():
            r.hang(vm, True, fault["hang_s"])
            self.applied(ep, fault, vm=vm, hang_s=fault["hang_s"])
            r.at(fault["hang_s"], "JMX hang end", lambda: r.hang(vm, False))
        body = r.posted[ids[-1]][1]
        if body["type"] in KILL_TYPES and vm in body["resources"]:
            r.on_boot.setdefault((ids[-1], vm), []).append(hang_on)
            return
        duration = body.get("duration_s", 0)

        def after_impact():
            start = r.impact_of(ids[-1], vm)
            if not start:
                return False
            r.at(max((start["t_ms"] + max(duration - 1, 0) * 1000 - now_ms()) / 1000, 0), "JMX hang", hang_on)
            return True
        r.conditions.append((after_impact, lambda: None))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rig", required=True)
    p.add_argument("--schedule", required=True)
    p.add_argument("--actions", required=True)
    a = p.parse_args()
    with open(a.rig) as f:
        rig_spec = json.load(f)
    with open(a.schedule) as f:
        schedule = json.load(f)
    rig = Rig(rig_spec, a.actions)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    try:
        Player(rig, schedule).play()
    finally:
        for vm in list(rig.agents):
            rig.agents.pop(vm).terminate()
        for p_, _ in rig.children:
            p_.terminate()
        for member in rig.etcd.values():
            if member:
                member.terminate()


if __name__ == "__main__":
    sys.exit(main())
