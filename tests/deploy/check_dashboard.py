#!/usr/bin/python3 -I
"""Checks deploy/grafana/cassandra-lifecycle-agent.json: against deploy/grafana/dashboard.schema.json (Debian's
python3-jsonschema), then the rules a schema cannot say, after Grafana's dashboard linter: unique panel ids,
panels inside the 24-column grid and not overlapping, every query selecting the $job variable, every range
function over $__rate_interval, counters only under rate()/increase(). That each query is valid PromQL and
returns series is for the Prometheus test (tests/deploy/prometheus_wave_test.py).
Usage: check_dashboard.py DASHBOARD SCHEMA"""
import json
import re
import sys

import jsonschema

METRIC = re.compile(r"\b((?:cla|process)_[a-z0-9_]+|up)\b(\{[^}]*\})?")
RANGE = re.compile(r"\[([^\]]+)\]")


def problems(dashboard):
    found = []
    seen_ids = set()
    cells = {}
    for panel in dashboard["panels"]:
        where = f"panel {panel['id']} ({panel['title']})"
        if panel["id"] in seen_ids:
            found.append(f"{where}: id used twice")
        seen_ids.add(panel["id"])
        g = panel["gridPos"]
        if g["x"] + g["w"] > 24:
            found.append(f"{where}: wider than the grid (x {g['x']} + w {g['w']} > 24)")
        for x in range(g["x"], g["x"] + g["w"]):
            for y in range(g["y"], g["y"] + g["h"]):
                if (x, y) in cells:
                    found.append(f"{where}: overlaps {cells[(x, y)]}")
                    break
                cells[(x, y)] = where
            else:
                continue
            break
        for target in panel.get("targets", []):
            expr = target["expr"]
            for m in METRIC.finditer(expr):
                name, selector = m.group(1), m.group(2) or ""
                if name.startswith("cla_") or name.startswith("process_") or name == "up":
                    if 'job=~"$job"' not in selector:
                        found.append(f"{where}: {name} without the job=~\"$job\" selector: {expr}")
                if name.endswith("_total") and not re.search(r"(rate|increase)\(\s*" + name, expr):
                    found.append(f"{where}: counter {name} not under rate() or increase(): {expr}")
            for window in RANGE.findall(expr):
                if window != "$__rate_interval":
                    found.append(f"{where}: range [{window}] instead of [$__rate_interval]: {expr}")
    names = [v["name"] for v in dashboard["templating"]["list"]]
    if "job" not in names:
        found.append("no job variable")
    return found


def main():
    dashboard_path, schema_path = sys.argv[1], sys.argv[2]
    with open(dashboard_path, encoding="utf-8") as f:
        dashboard = json.load(f)
    with open(schema_path, encoding="utf-8") as f:
        schema = json.load(f)
    validator = jsonschema.Draft7Validator(schema)
    errors = sorted(validator.iter_errors(dashboard), key=lambda e: list(e.path))
    for e in errors:
        print(f"schema: {'/'.join(str(p) for p in e.path) or '(top)'}: {e.message}")
    found = problems(dashboard) if not errors else []
    for p in found:
        print(p)
    panels = [p for p in dashboard["panels"] if p["type"] != "row"]
    queries = sum(len(p["targets"]) for p in panels)
    if errors or found:
        print(f"{dashboard_path}: {len(errors)} schema errors, {len(found)} problems")
        return 1
    print(f"{dashboard_path}: valid ({len(panels)} panels, {queries} queries)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
