"""Captures the Jolokia backend's requests and Jolokia's answers (scripts/cluster/capture-jolokia-corpus.sh).

reads URL USER PASSWORD_FILE DIR: the reads of cassandra/jolokia/jolokia_requests.hpp against the agent at URL, each round
     as DIR/jolokia_<round>.request.json and DIR/jolokia_<round>.answer.json (the body sent and the body answered):
     ring_view and places (status and ring), describe and describe_second (describecluster), info, running. The
     second rounds are built from the first answers as the agent builds them (tests/cassandra/jolokia/jolokia_corpus_test.cpp
     checks that the agent's own requests equal these).
step URL USER PASSWORD_FILE DIR NAME: one step's request and answer (NAME: disablebinary, disablegossip, drain,
     enablegossip, enablebinary) as DIR/jolokia_step_<NAME>.{request,answer}.json, then the running read after it
     as DIR/jolokia_running_after_<NAME>.{request,answer}.json.
stages URL USER PASSWORD_FILE DIR NAME: the replica stages' CompletedTasks gauges (ReadStage, MutationStage,
     CounterMutationStage) as DIR/jolokia_stages_<NAME>.{request,answer}.json; a gauge Cassandra has not created yet
     (its stage ran no task) answers 404, which is kept.
hints URL USER PASSWORD_FILE DIR NAME: the pending hints read (cassandra/jolokia/jolokia_requests.cpp): HintsService's
     PendingHints, the HintsService metrics' Count (Hints_created-<peer>, Hint_delays-<peer>, ...) and StorageService's
     EndpointWithPortToHostId in one bulk request, as DIR/jolokia_<NAME>.{request,answer}.json.
attribute URL USER PASSWORD_FILE DIR NAME MBEAN ATTRIBUTE: one attribute of one MBean (e.g. HintsService's PendingHints)
     as DIR/jolokia_<NAME>.{request,answer}.json; an MBean Cassandra has not registered yet (a metric never
     updated) answers 404, which is kept.
forbidden URL USER PASSWORD_FILE DIR: a read the policy does not allow (StorageService's ReleaseVersion), as
     DIR/jolokia_forbidden.{request,answer}.json; and the HTTP status of a POST with a wrong password, as
     DIR/jolokia_wrong_password.status.
same DIR_A DIR_B: exits 0 when the reads' answers in both dirs are equal but for their timestamps.
"""
import base64
import json
import pathlib
import sys
import urllib.error
import urllib.request

SS = "org.apache.cassandra.db:type=StorageService"
SNITCH = "org.apache.cassandra.db:type=EndpointSnitchInfo"
LIVENESS = ["LiveNodesWithPort", "UnreachableNodesWithPort", "JoiningNodesWithPort", "LeavingNodesWithPort",
            "MovingNodesWithPort"]
CONFIG = {"includeRequest": False, "includeStackTrace": False}
READS = ["ring_view", "places", "describe", "describe_second", "info", "running"]
STEPS = {"disablebinary": ("stopNativeTransport(boolean)", [False]), "disablegossip": ("stopGossiping", []),
         "drain": ("drain", []), "enablegossip": ("startGossiping", []),
         "enablebinary": ("startNativeTransport", [])}


def read(mbean, attributes):
    return {"mbean": mbean, "config": CONFIG, "type": "read", "attribute": attributes}


def execute(mbean, operation, arguments):
    return {"mbean": mbean, "config": CONFIG, "type": "exec", "operation": operation, "arguments": arguments}


def body(calls):
    return calls[0] if len(calls) == 1 else calls


def ring_order(token_map):
    """The endpoints of a token map, each once, in ring order (integer tokens by value, others after, by text)."""
    def key(token):
        digits = token[1:] if token.startswith("-") else token
        return (0, int(token), "") if digits.isdigit() else (1, 0, token)
    endpoints = []
    for token in sorted(token_map, key=key):
        if token_map[token] not in endpoints:
            endpoints.append(token_map[token])
    return endpoints


def places(endpoints):
    calls = []
    for endpoint in endpoints:
        calls.append(execute(SNITCH, "getDatacenter(java.lang.String)", [endpoint]))
        calls.append(execute(SNITCH, "getRack(java.lang.String)", [endpoint]))
    return calls


class Agent:
    def __init__(self, url, user, password_file):
        self.url = url
        password = pathlib.Path(password_file).read_text().rstrip("\n")
        self.auth = "Basic " + base64.b64encode(("%s:%s" % (user, password)).encode()).decode()

    def post(self, payload, auth=None):
        """(HTTP status, body text) of one POST."""
        request = urllib.request.Request(self.url, data=json.dumps(payload).encode(), method="POST",
                                         headers={"Authorization": auth or self.auth,
                                                  "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=60) as answer:
                return answer.status, answer.read().decode()
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode()


def capture(agent, directory, name, calls, allowed=(200,)):
    """POSTs calls, keeps the request and the answer under name, returns the answer's entries."""
    payload = body(calls)
    status, text = agent.post(payload)
    if status != 200:
        sys.exit("jolokia_capture: %s: HTTP %d: %s" % (name, status, text[:300]))
    (directory / ("jolokia_%s.request.json" % name)).write_text(json.dumps(payload, indent=1) + "\n")
    (directory / ("jolokia_%s.answer.json" % name)).write_text(text + "\n")
    answer = json.loads(text)
    entries = answer if isinstance(answer, list) else [answer]
    for entry in entries:
        if entry.get("status") not in allowed:
            sys.exit("jolokia_capture: %s: %s" % (name, json.dumps(entry)[:300]))
    return entries


def running():
    return [read(SS, ["GossipRunning", "NativeTransportRunning", "OperationMode"])]


def capture_reads(agent, directory):
    view = capture(agent, directory, "ring_view", [read(SS, [
        "LoadMapWithPort", "TokenToEndpointWithPortMap", "EndpointWithPortToHostId"] + LIVENESS)])[0]["value"]
    capture(agent, directory, "places", places(ring_order(view["TokenToEndpointWithPortMap"])))
    described = capture(agent, directory, "describe", [
        read(SS, ["ClusterName", "PartitionerName", "Keyspaces", "TokenToEndpointWithPortMap"] + LIVENESS),
        read(SNITCH, ["SnitchName"]),
        read("org.apache.cassandra.db:type=DynamicEndpointSnitch", ["SubsnitchClassName"]),
        read("org.apache.cassandra.db:type=StorageProxy", ["SchemaVersionsWithPort"]),
        read("org.apache.cassandra.net:type=Gossiper", ["ReleaseVersionsWithPort"])])[0]["value"]
    capture(agent, directory, "describe_second",
            places(ring_order(described["TokenToEndpointWithPortMap"])) +
            [execute(SS, "getKeyspaceReplicationInfo(java.lang.String)", [ks]) for ks in described["Keyspaces"]])
    capture(agent, directory, "info", [read(SS, ["LocalHostId", "GossipRunning", "NativeTransportRunning"]),
                                       read(SNITCH, ["Datacenter", "Rack"])])
    capture(agent, directory, "running", running())


def capture_stages(agent, directory, name):
    gauges = [read("org.apache.cassandra.metrics:type=ThreadPools,path=request,scope=%s,name=CompletedTasks" % stage,
                   ["Value"]) for stage in ("ReadStage", "MutationStage", "CounterMutationStage")]
    capture(agent, directory, "stages_" + name, gauges, allowed=(200, 404))


def capture_hints(agent, directory, name):
    capture(agent, directory, name, [read("org.apache.cassandra.hints:type=HintsService", ["PendingHints"]),
                                     read("org.apache.cassandra.metrics:type=HintsService,name=*", ["Count"]),
                                     read(SS, ["EndpointWithPortToHostId"])])


def capture_attribute(agent, directory, name, mbean, attribute):
    capture(agent, directory, name, [read(mbean, [attribute])], allowed=(200, 404))


def capture_step(agent, directory, name):
    operation, arguments = STEPS[name]
    payload = execute(SS, operation, arguments)
    status, text = agent.post(payload)
    if status != 200:
        sys.exit("jolokia_capture: step %s: HTTP %d: %s" % (name, status, text[:300]))
    (directory / ("jolokia_step_%s.request.json" % name)).write_text(json.dumps(payload, indent=1) + "\n")
    (directory / ("jolokia_step_%s.answer.json" % name)).write_text(text + "\n")
    capture(agent, directory, "running_after_" + name, running())


def capture_forbidden(agent, directory):
    payload = read(SS, ["ReleaseVersion"])
    status, text = agent.post(payload)
    (directory / "jolokia_forbidden.request.json").write_text(json.dumps(payload, indent=1) + "\n")
    (directory / "jolokia_forbidden.answer.json").write_text(text + "\n")
    wrong = "Basic " + base64.b64encode(b"cla:not-the-password").decode()
    status, _ = agent.post(payload, auth=wrong)
    (directory / "jolokia_wrong_password.status").write_text("%d\n" % status)


def without_timestamps(value):
    if isinstance(value, dict):
        return {k: without_timestamps(v) for k, v in value.items() if k != "timestamp"}
    if isinstance(value, list):
        return [without_timestamps(v) for v in value]
    return value


def same(dir_a, dir_b):
    for name in READS:
        a, b = (json.loads((pathlib.Path(d) / ("jolokia_%s.answer.json" % name)).read_text()) for d in (dir_a, dir_b))
        if without_timestamps(a) != without_timestamps(b):
            return False
    return True


def main(argv):
    if len(argv) >= 5 and argv[0] in ("reads", "step", "stages", "hints", "attribute", "forbidden"):
        agent, directory = Agent(*argv[1:4]), pathlib.Path(argv[4])
        directory.mkdir(parents=True, exist_ok=True)
        if argv[0] == "reads":
            capture_reads(agent, directory)
        elif argv[0] == "step":
            capture_step(agent, directory, argv[5])
        elif argv[0] == "stages":
            capture_stages(agent, directory, argv[5])
        elif argv[0] == "hints" and len(argv) == 6:
            capture_hints(agent, directory, argv[5])
        elif argv[0] == "attribute" and len(argv) == 8:
            capture_attribute(agent, directory, argv[5], argv[6], argv[7])
        elif argv[0] == "forbidden":
            capture_forbidden(agent, directory)
        else:
            sys.exit(__doc__)
        return 0
    if len(argv) == 3 and argv[0] == "same":
        return 0 if same(argv[1], argv[2]) else 1
    sys.exit(__doc__)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
