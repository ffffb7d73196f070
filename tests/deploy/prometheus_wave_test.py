#!/usr/bin/python3 -I
"""The alert rules and the dashboard against a real Prometheus (Debian's), scraping the game day's nine agents
(scripts/demo.sh) through its rolling maintenance wave, all on 127.0.0.1.

Prometheus starts on a free loopback port with a 1 s scrape and evaluation interval, the rules of
deploy/prometheus/alerts.yml with their `for:` shortened (TEST_FOR below: the wave lasts about 45 s), and a
file_sd target file that demo.sh fills with its agents' addresses once they are up (DEMO_PROMETHEUS_TARGETS).
Through Prometheus' HTTP API it then asserts that:
  - the alerts the wave must cause fired, and resolved while the agents still ran (every node drained for a
    while: CassandraNodeDrainedTooLong; the safety gate holding fault domain 1's drains while rack1 is out:
    CassandraDrainUnsafePersisting);
  - CassandraUnprotectableKeyspace fired for every agent and kept firing while it ran (the demo's system_auth
    is SimpleStrategy RF 1, unprotectable for as long as it stays so);
  - no other alert fired while the agents ran;
  - every panel query of deploy/grafana/cassandra-lifecycle-agent.json returns series over the wave.
Usage: prometheus_wave_test.py --source-dir DIR --bin-dir DIR   (DEMO_KEEP=1 / PROMETHEUS_WAVE_KEEP=1 keep
the work dir, which is kept on failure too)"""
import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

import yaml

JOB = "cassandra-lifecycle-agent"
SCRAPE_S = EVALUATION_S = 1  # an alert's last firing sample may precede its agent's last scrape by one of each
# The wave's drains last 8-20 s, the gate holds fault domain 1 for about 3 s, and a restore takes well under
# a second: each `for:` below keeps that alert's meaning at the wave's scale.
TEST_FOR = {
    "CassandraLifecycleAgentDown": "2s",
    "CassandraLifecycleImdsUnreachable": "2s",
    "CassandraNodeDrainedWithoutEvent": "5s",
    "CassandraNodeDrainedTooLong": "2s",
    "CassandraDrainUnsafePersisting": "0s",
    "CassandraUnprotectableKeyspace": "2s",
}
MUST_FIRE_AND_RESOLVE = {
    # alert: the VMs that must have had it
    "CassandraNodeDrainedTooLong": {f"vm{i}" for i in range(9)},
    "CassandraDrainUnsafePersisting": None,  # at least one of fault domain 1's VMs
}
# The demo's cluster keeps system_auth at SimpleStrategy RF 1 (Cassandra's default): every agent reports it
# unprotectable from its first schema refresh on, and the alert stays firing as long as the keyspace is so.
MUST_FIRE_AND_PERSIST = {"CassandraUnprotectableKeyspace": {f"vm{i}" for i in range(9)}}
FD1 = {"vm3", "vm4", "vm5"}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Prometheus:
    def __init__(self, work, rules, targets):
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        config = {
            "global": {"scrape_interval": f"{SCRAPE_S}s", "scrape_timeout": "900ms",
                       "evaluation_interval": f"{EVALUATION_S}s"},
            "rule_files": [rules],
            "scrape_configs": [
                {"job_name": JOB, "file_sd_configs": [{"files": [targets], "refresh_interval": "1s"}]}
            ],
        }
        config_file = os.path.join(work, "prometheus.yml")
        with open(config_file, "w", encoding="utf-8") as f:
            yaml.safe_dump(config, f)
        self.log = open(os.path.join(work, "prometheus.log"), "w", encoding="utf-8")
        self.proc = subprocess.Popen(
            ["prometheus", f"--config.file={config_file}", f"--storage.tsdb.path={work}/tsdb",
             f"--web.listen-address=127.0.0.1:{self.port}", "--storage.tsdb.retention.time=1h",
             f"--web.console.templates={work}", f"--web.console.libraries={work}"],
            stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.time() + 60
        while True:
            try:
                with urllib.request.urlopen(self.base + "/-/ready", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if self.proc.poll() is not None or time.time() > deadline:
                raise SystemExit(f"prometheus did not get ready (see {self.log.name})")
            time.sleep(0.2)

    def api(self, path, **params):
        url = f"{self.base}/api/v1/{path}?{urllib.parse.urlencode(params)}"
        with urllib.request.urlopen(url, timeout=30) as r:
            body = json.load(r)
        if body.get("status") != "success":
            raise AssertionError(f"{path} {params}: {body}")
        return body["data"]

    def query_range(self, expr, start, end, step="1s"):
        return self.api("query_range", query=expr, start=f"{start:.3f}", end=f"{end:.3f}", step=step)["result"]

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


def test_rules(source_dir, work):
    with open(os.path.join(source_dir, "deploy/prometheus/alerts.yml"), encoding="utf-8") as f:
        rules = yaml.safe_load(f)
    names = set()
    for group in rules["groups"]:
        for rule in group["rules"]:
            names.add(rule["alert"])
            if rule["alert"] in TEST_FOR:
                rule["for"] = TEST_FOR[rule["alert"]]
    unknown = (set(TEST_FOR) | set(MUST_FIRE_AND_RESOLVE)) - names
    if unknown:
        raise SystemExit(f"alerts.yml has no alert {sorted(unknown)}")
    path = os.path.join(work, "rules.yml")
    with open(path, "w", encoding="utf-8") as f:
        yaml.safe_dump(rules, f, sort_keys=False)
    return path, names


def firing_intervals(prom, start, end):
    """(alertname, vm or instance) -> [first, last] firing sample times."""
    out = {}
    for series in prom.query_range('ALERTS{alertstate="firing"}', start, end):
        m = series["metric"]
        times = [float(t) for t, _ in series["values"]]
        key = (m["alertname"], m.get("vm", m.get("instance", "")))
        first, last = out.get(key, (times[0], times[-1]))
        out[key] = (min(first, times[0]), max(last, times[-1]))
    return out


def dashboard_queries(source_dir):
    with open(os.path.join(source_dir, "deploy/grafana/cassandra-lifecycle-agent.json"), encoding="utf-8") as f:
        dashboard = json.load(f)
    for panel in dashboard["panels"]:
        for target in panel.get("targets", []):
            expr = target["expr"].replace("$job", JOB).replace("$__rate_interval", "4s")
            yield panel["title"], target["refId"], expr


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--source-dir", required=True)
    parser.add_argument("--bin-dir", required=True)
    args = parser.parse_args()
    for tool in ("prometheus", "jq", "curl"):
        if not shutil.which(tool):
            raise SystemExit(f"{tool} is missing (scripts/install-deps.sh)")

    work = tempfile.mkdtemp(prefix="cla-prometheus-wave.")
    keep = os.environ.get("PROMETHEUS_WAVE_KEEP") == "1"
    failures = []
    prom = None
    started = time.time()
    try:
        rules, names = test_rules(args.source_dir, work)
        targets = os.path.join(work, "targets.json")
        prom = Prometheus(work, rules, targets)
        print(f"== Prometheus on {prom.base}, rules {rules}, targets {targets}", flush=True)

        # The agents idle 5 s after the wave before demo.sh stops them: the last restores are scraped and the
        # alerts they end resolve (1 s scrapes and evaluations) while the agents still run.
        env = dict(os.environ, DEMO_PROMETHEUS_TARGETS=targets, DEMO_LINGER_S="5")
        with open(os.path.join(work, "demo.out"), "w", encoding="utf-8") as demo_out:
            demo = subprocess.run(
                [os.path.join(args.source_dir, "scripts/demo.sh"), "--no-build", "--bin-dir", args.bin_dir],
                env=env, stdout=demo_out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, timeout=280)
        end = time.time()
        if demo.returncode != 0:
            with open(os.path.join(work, "demo.out"), encoding="utf-8") as f:
                tail = f.read()[-3000:]
            raise AssertionError(f"demo.sh exited {demo.returncode}:\n{tail}")
        time.sleep(3)  # the last scrapes and evaluations (agents now gone: up 0)
        end = time.time()

        # The wave, as Prometheus saw it: from the first scrape of an agent to the last one that worked.
        up = prom.query_range(f'up{{job="{JOB}"}}', started, end)
        if len(up) != 9:
            raise AssertionError(f"Prometheus scraped {len(up)} agents, not 9: {[s['metric'] for s in up]}")
        first = min(float(s["values"][0][0]) for s in up)
        last_up = min(max(float(t) for t, v in s["values"] if v == "1") for s in up)
        print(f"== scraped 9 agents from {first - started:.1f} s to {last_up - started:.1f} s after the start",
              flush=True)

        fired = firing_intervals(prom, first, end)
        for (alert, who), (f0, f1) in sorted(fired.items()):
            print(f"   {alert} {who}: firing {f0 - started:.1f}-{f1 - started:.1f} s")
        # Resolved while the agents ran: the last firing sample is before the first agent stopped.
        for alert, vms in MUST_FIRE_AND_RESOLVE.items():
            had = {who for (a, who) in fired if a == alert}
            expected = vms if vms is not None else FD1
            missing = expected - had if vms is not None else (set() if had & FD1 else FD1)
            if missing:
                failures.append(f"{alert} did not fire for {sorted(missing)} (fired for {sorted(had)})")
            for who in had:
                if fired[(alert, who)][1] >= last_up:
                    failures.append(f"{alert} for {who} still firing when the agents stopped")
        for alert, vms in MUST_FIRE_AND_PERSIST.items():
            for who in sorted(vms):
                interval = fired.get((alert, who))
                if interval is None:
                    failures.append(f"{alert} did not fire for {who}")
                elif interval[1] < last_up - SCRAPE_S - EVALUATION_S:
                    failures.append(f"{alert} for {who} resolved at {interval[1] - started:.1f} s, while "
                                    "the keyspace was still unprotectable")
        for (alert, who), (f0, _) in fired.items():
            if alert in MUST_FIRE_AND_RESOLVE or alert in MUST_FIRE_AND_PERSIST:
                continue
            if f0 < last_up:
                failures.append(f"{alert} fired for {who} during the wave (at {f0 - started:.1f} s)")
        if not any(a == "CassandraLifecycleAgentDown" for (a, _) in fired):
            print("   (the agents stopped too recently for CassandraLifecycleAgentDown: fine)")

        queries = 0
        for title, ref, expr in dashboard_queries(args.source_dir):
            queries += 1
            result = prom.query_range(expr, first, last_up)
            if not any(s["values"] for s in result):
                failures.append(f"dashboard panel '{title}' query {ref} returned no series: {expr}")
        print(f"== {queries} dashboard queries run over the wave; rules checked: {len(names)}")
    except (AssertionError, SystemExit, subprocess.TimeoutExpired, OSError) as e:
        failures.append(str(e))
    finally:
        if prom:
            prom.stop()
    duration = time.time() - started
    if failures:
        print("== FAILED")
        for f in failures:
            print(f"   - {f}")
        print(f"   work dir kept: {work} (prometheus.log, demo.out, rules.yml, targets.json)")
        return 1
    if keep or os.environ.get("DEMO_KEEP") == "1":
        print(f"   work dir kept: {work}")
    else:
        shutil.rmtree(work, ignore_errors=True)
    print(f"== PASSED in {duration:.0f} s: the wave's alerts fired and resolved, no other alert fired, "
          "every dashboard query returned series")
    return 0


if __name__ == "__main__":
    sys.exit(main())
