"""Table of one scripts/bench-availability.sh run: requests per wave phase from availability_client.py's
lines and the driver's phase starts ("unix_ms label" lines; a phase lasts until the next one starts).

Prints the table, then one line "totals requests=N failed=N timed_out=N p50_ms=N p99_ms=N max_ms=N".
"failed" counts every request that did not succeed (timed out included); "timed_out" is the part of it
that hit a timeout (the client's 2 s, or Cassandra's read/write timeout).
"""
import argparse
import bisect
import collections
import math


def percentile(sorted_values, p):
    if not sorted_values:
        return 0
    rank = math.ceil(p / 100 * len(sorted_values))  # nearest rank
    return sorted_values[max(rank, 1) - 1]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", required=True)
    parser.add_argument("--phases", required=True)
    parser.add_argument("--title", required=True)
    args = parser.parse_args()

    phases = []
    for line in open(args.phases):
        start, label = line.rstrip("\n").split(" ", 1)
        phases.append((int(start), label))
    starts = [s for s, _ in phases]
    stats = collections.OrderedDict((label, []) for _, label in phases)
    errors = collections.Counter()
    rows = []
    for line in open(args.requests):
        start, _op, latency, outcome, error = line.split()[:5]
        index = bisect.bisect_right(starts, int(start)) - 1
        if index < 0:
            continue
        row = (float(latency), outcome)
        stats[phases[index][1]].append(row)
        rows.append(row)
        if outcome != "ok":
            errors[f"{outcome}:{error}"] += 1

    def line_of(label, values):
        latencies = sorted(v for v, _ in values)
        failed = sum(1 for _, o in values if o != "ok")
        timed_out = sum(1 for _, o in values if o == "timeout")
        return (f"{label:<22} {len(values):>8} {failed:>7} {timed_out:>9} {percentile(latencies, 50):>8.0f} "
                f"{percentile(latencies, 99):>8.0f} {(latencies[-1] if latencies else 0):>8.0f}")

    print(f"== {args.title}")
    print(f"{'phase':<22} {'requests':>8} {'failed':>7} {'timed_out':>9} {'p50_ms':>8} {'p99_ms':>8} {'max_ms':>8}")
    for label, values in stats.items():
        print(line_of(label, values))
    print(line_of("all", rows))
    if errors:
        print("errors: " + ", ".join(f"{k}={v}" for k, v in errors.most_common()))
    latencies = sorted(v for v, _ in rows)
    print(f"totals requests={len(rows)} failed={sum(1 for _, o in rows if o != 'ok')} "
          f"timed_out={sum(1 for _, o in rows if o == 'timeout')} p50_ms={percentile(latencies, 50):.0f} "
          f"p99_ms={percentile(latencies, 99):.0f} max_ms={(latencies[-1] if latencies else 0):.0f}")


if __name__ == "__main__":
    main()
