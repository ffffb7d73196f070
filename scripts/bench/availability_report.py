"""Tables of scripts/bench-availability.sh.

run: one run's table from availability_client.py's request lines and summary and the bench's phase starts
     ("unix_ms label" lines; a phase lasts until the next one starts). Prints the table, then one line
     "totals key=value ..." (requests, failed, timed_out, wrong, empty, lost, missed, unverified, p50_ms, p99_ms,
     max_ms, impact_s, failed_per_impact_s).
catchup: one --catch-up run's catch-up figures from the hints files counted on the nodes' disks ("unix_ms files
     bytes" lines, every 0.5 s) and the instants the bench took from the logs: the files held for the restored
     rack when the next rack's impact landed, the most during the outage, when they were gone, and p99 in the
     catch-up window (the restore until no file is left) beside the steady state. Prints them, then one line
     "catchup key=value ..."; writes the window's latencies to --window-out.
spread: over runs given as MODE=DIR (DIR/report ends with the totals line, DIR/requests holds the requests):
     per mode the runs' failed, wrong, lost, p99 and failures per impact-second (min, median, max), then the
     SPEC 10 line over all runs of each mode: failed, wrong and lost summed, p99 over all their requests. The
     line's "wrong" counts every answered read whose value was not the acknowledged one: a wrong value, or no
     row at all ("empty": a LOCAL_QUORUM read cannot miss a LOCAL_QUORUM write acknowledged before it was sent;
     with Debian's driver it is a write's late answer handed to a read).
"requests" counts every send slot of the client's open-loop schedule; "failed" every request that did not
succeed (timed out, unanswered and missed included); "timed_out" is the part that hit a timeout (the client's
2 s, or Cassandra's read/write timeout); "missed" the part the client could not send within 0.5 s of its due
instant (SPEC 10: a missed slot is a failed request). Latencies run from each slot's due instant (a missed slot's:
how late it was when given up), and a request belongs to the phase its due instant falls in. "wrong" and "empty"
are answered reads (a value never written for the key; no row for an acknowledged write).
Runs before this accounting (docs/benchmarks.md) left missed slots out of "failed" and measured from the send.
"""
import argparse
import bisect
import collections
import json
import math
import statistics
import sys


def percentile(sorted_values, p):
    if not sorted_values:
        return 0
    rank = math.ceil(p / 100 * len(sorted_values))  # nearest rank
    return sorted_values[max(rank, 1) - 1]


def read_requests(path):
    """(start_ms, op, latency_ms, outcome) per line."""
    with open(path) as f:
        for line in f:
            start, op, latency, outcome = line.split()[:4]
            yield int(start), op, float(latency), outcome


FAILED = ("timeout", "failed", "unanswered", "missed")


def run(args):
    phases = []
    with open(args.phases) as f:
        for line in f:
            start, label = line.rstrip("\n").split(" ", 1)
            phases.append((int(start), label))
    starts = [s for s, _ in phases]
    stats = collections.OrderedDict((label, []) for _, label in phases)
    errors = collections.Counter()
    rows = []
    for start, _op, latency, outcome in read_requests(args.requests):
        index = max(bisect.bisect_right(starts, start) - 1, 0)
        stats[phases[index][1]].append((latency, outcome))
        rows.append((latency, outcome))
        if outcome != "ok":
            errors[outcome] += 1
    with open(args.summary) as f:
        summary = json.load(f)

    def counted(values):
        latencies = sorted(v for v, _ in values)
        out = collections.Counter(o for _, o in values)
        return latencies, sum(out[o] for o in FAILED), out

    def line_of(label, values):
        latencies, failed, out = counted(values)
        return (f"{label:<46} {len(values):>8} {failed:>7} {out['timeout']:>9} {out['missed']:>6} {out['wrong']:>6} "
                f"{out['empty']:>6} "
                f"{percentile(latencies, 50):>7.0f} {percentile(latencies, 99):>7.0f} "
                f"{(latencies[-1] if latencies else 0):>7.0f}")

    print(f"== {args.title}")
    print(f"{'phase':<46} {'requests':>8} {'failed':>7} {'timed_out':>9} {'missed':>6} {'wrong':>6} {'empty':>6} "
          f"{'p50_ms':>7} {'p99_ms':>7} {'max_ms':>7}")
    for label, values in stats.items():
        print(line_of(label, values))
    print(line_of("all", rows))
    if errors:
        print("not ok: " + ", ".join(f"{k}={v}" for k, v in errors.most_common()))
    latencies, failed, out = counted(rows)
    # SPEC 10's failed_agent_scheduled: the phases whose events were seen Scheduled, i.e. all but the one whose
    # event appears already Started (there no quiet before an approval can help: see --announce-ms).
    failed_scheduled = sum(counted(values)[1] for label, values in stats.items() if "seen Started" not in label)
    per_impact_s = failed / args.impact_s if args.impact_s > 0 else 0
    if len(rows) != summary["slots"] or failed != summary["failed"] or out["missed"] != summary["missed"]:
        sys.exit(f"the request lines ({len(rows)}, {failed} failed, {out['missed']} missed) disagree with the "
                 f"client's summary {summary}")
    print(f"client ({summary['driver']}): {summary['slots']} requests (send slots) = {summary['sent']} sent + "
          f"{summary['missed']} missed = {summary['answered']} answered + {summary['failed']} failed "
          f"({summary['missed']} of them missed); "
          f"{summary['acked']} writes acknowledged, read back at ALL: {summary['lost']} lost, "
          f"{summary['unverified']} unreadable; impacts {args.impact_s:.0f} s, "
          f"{per_impact_s:.2f} failed per impact-second")
    print(f"totals requests={len(rows)} failed={failed} timed_out={out['timeout']} wrong={out['wrong']} "
          f"empty={out['empty']} lost={summary['lost']} missed={summary['missed']} "
          f"unverified={summary['unverified']} p50_ms={percentile(latencies, 50):.0f} "
          f"p99_ms={percentile(latencies, 99):.0f} max_ms={(latencies[-1] if latencies else 0):.0f} "
          f"impact_s={args.impact_s:.0f} failed_per_impact_s={per_impact_s:.2f} "
          f"failed_scheduled={failed_scheduled}")


def read_hints(path):
    """(unix_ms, files, bytes) per sample."""
    with open(path) as f:
        return [tuple(int(v) for v in line.split()[:3]) for line in f if line.strip()]


def catchup(args):
    samples = read_hints(args.hints)
    outage = [n for t, n, _ in samples if args.outage_from_ms <= t <= args.restored_ms]
    most = max(outage, default=0)
    if most == 0:
        sys.exit(f"no hints file for the restored rack was seen on any node between its impact and its restore "
                 f"({len(outage)} samples): the writes made no hint, there was nothing to catch up")
    before_impact = [(t, n, b) for t, n, b in samples if t <= args.next_impact_ms]
    if not before_impact:
        sys.exit("no hints sample before the next rack's impact")
    _, at_impact, bytes_at_impact = before_impact[-1]
    gone = next((t for t, n, _ in samples if t > args.restored_ms and n == 0), None)
    window_end = gone if gone is not None else samples[-1][0]
    window, steady = [], []
    for start, _op, latency, outcome in read_requests(args.requests):
        if args.restored_ms <= start < window_end:
            window.append((latency, outcome))
        elif args.steady_from_ms <= start < args.steady_to_ms:
            steady.append((latency, outcome))
    with open(args.window_out, "w") as f:
        f.writelines(f"{latency:.1f}\n" for latency, _ in window)
    window_lat = sorted(v for v, _ in window)
    steady_lat = sorted(v for v, _ in steady)
    failed = sum(1 for _, o in window if o in FAILED)
    gone_text = f"{(gone - args.restored_ms) / 1000:.1f} s after the restore" if gone is not None else "never"
    # A later buffer flush can open a new file for the node after the first ones were delivered.
    if gone is not None and any(n > 0 for t, n, _ in samples if t > gone):
        gone_text += " (files for it appeared again later)"
    print(f"   catch-up: hints files for the restored rack on the nodes' disks: at most {most} during its outage; "
          f"{at_impact} ({bytes_at_impact} bytes) when the next rack's impact landed, "
          f"{(args.next_impact_ms - args.restored_ms) / 1000:.1f} s after the restore; none left {gone_text}")
    print(f"   catch-up window ({(window_end - args.restored_ms) / 1000:.1f} s): {len(window)} requests, {failed} "
          f"failed, p50 {percentile(window_lat, 50):.0f} ms, p99 {percentile(window_lat, 99):.0f} ms; steady state "
          f"({len(steady)} requests): p50 {percentile(steady_lat, 50):.0f} ms, p99 {percentile(steady_lat, 99):.0f} ms")
    print(f"catchup hints_at_next_impact={at_impact} hints_max={most} window_ms={window_end - args.restored_ms} "
          f"p99_catchup_ms={percentile(window_lat, 99):.0f} p99_steady_ms={percentile(steady_lat, 99):.0f} "
          f"next_impact_after_restore_ms={args.next_impact_ms - args.restored_ms}")


def totals_of(path):
    with open(path) as f:
        last = f.read().splitlines()[-1]
    return {k: float(v) for k, v in (kv.split("=") for kv in last.split()[1:])}


def spread(args):
    runs = collections.defaultdict(list)
    for item in args.run:
        mode, directory = item.split("=", 1)
        runs[mode].append(directory)
    keys = ("failed", "wrong", "lost", "p99_ms", "failed_per_impact_s")
    line = {}
    print("== spread over runs (min / median / max)")
    print(f"{'mode':<12} {'runs':>4} " + " ".join(f"{k:>22}" for k in keys))
    for mode, dirs in runs.items():
        totals = [totals_of(f"{d}/report") for d in dirs]
        for t in totals:  # the SPEC line's wrong: a wrong value or no row (see the module's docstring)
            t["wrong"] += t["empty"]

        def three(k):
            values = [t[k] for t in totals]
            fmt = "{:.2f}" if k == "failed_per_impact_s" else "{:.0f}"
            return " / ".join(fmt.format(v) for v in (min(values), statistics.median(values), max(values)))
        print(f"{mode:<12} {len(dirs):>4} " + " ".join(f"{three(k):>22}" for k in keys))
        latencies = sorted(r[2] for d in dirs for r in read_requests(f"{d}/requests"))
        line[mode] = {"failed": sum(int(t["failed"]) for t in totals),
                      "wrong": sum(int(t["wrong"]) for t in totals),
                      "lost": sum(int(t["lost"]) for t in totals), "p99": round(percentile(latencies, 99)),
                      "failed_scheduled": sum(int(t["failed_scheduled"]) for t in totals)}

    def get(mode, key):
        return line[mode][key] if mode in line else -1
    catch_up_keys = ""
    if args.catch_up:
        hints, p99 = {}, {}
        for mode in ("agent", "nowait"):
            if mode not in runs:
                hints[mode] = p99[mode] = -1
                continue
            hints[mode] = sum(int(totals_of(f"{d}/catchup")["hints_at_next_impact"]) for d in runs[mode])
            window = []
            for d in runs[mode]:
                with open(f"{d}/catchup-latencies") as f:
                    window.extend(float(v) for v in f)
            p99[mode] = round(percentile(sorted(window), 99))
        print(f"catch-up: hints files left for the restored rack when the next rack's impact landed, summed over runs:"
              f" agent {hints['agent']}, nowait {hints['nowait']}")
        catch_up_keys = (f" catchup_hints_at_next_impact_agent={hints['agent']} catchup_p99_ms_agent={p99['agent']}"
                         f" catchup_p99_ms_nowait={p99['nowait']}")
    print(f"failed_agent={get('agent', 'failed')} failed_noagent={get('noagent', 'failed')} "
          f"failed_approve_now={get('approve_now', 'failed')} wrong_agent={get('agent', 'wrong')} "
          f"wrong_noagent={get('noagent', 'wrong')} lost_agent={get('agent', 'lost')} "
          f"lost_noagent={get('noagent', 'lost')} p99_agent_ms={get('agent', 'p99')} "
          f"p99_noagent_ms={get('noagent', 'p99')} "
          f"failed_agent_scheduled={get('agent', 'failed_scheduled')} announce_ms={args.announce_ms}{catch_up_keys}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    one = sub.add_parser("run")
    one.add_argument("--requests", required=True)
    one.add_argument("--phases", required=True)
    one.add_argument("--summary", required=True)
    one.add_argument("--impact-s", type=float, required=True, help="seconds of impact in the run")
    one.add_argument("--title", required=True)
    over = sub.add_parser("spread")
    over.add_argument("--run", action="append", required=True, help="MODE=DIR, repeatable")
    over.add_argument("--announce-ms", required=True, help="the nodes' shutdown announce: default or N")
    over.add_argument("--catch-up", action="store_true", help="add the catch-up keys (DIR/catchup*)")
    catch = sub.add_parser("catchup")
    catch.add_argument("--requests", required=True)
    catch.add_argument("--hints", required=True, help="the hints samples")
    for name in ("outage-from-ms", "restored-ms", "next-impact-ms", "steady-from-ms", "steady-to-ms"):
        catch.add_argument(f"--{name}", type=int, required=True)
    catch.add_argument("--window-out", required=True, help="the window's latencies, one a line")
    args = parser.parse_args()
    {"run": run, "spread": spread, "catchup": catchup}[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
