# Sourced by cassandra-cluster.sh: the per-node configuration the official distribution keeps in conf/
# (cassandra.yaml, cassandra-rackdc.properties, logback.xml, the JDK 17 options), written minimal.
# shellcheck shell=bash

# JDK 17 module flags of conf/jvm17-server.options and jvm17-clients.options (apache/cassandra, cassandra-5.0).
CASSANDRA_JPMS_FLAGS=(
  -Djdk.attach.allowAttachSelf=true
  --add-exports java.base/jdk.internal.misc=ALL-UNNAMED
  --add-exports java.management.rmi/com.sun.jmx.remote.internal.rmi=ALL-UNNAMED
  --add-exports java.management/com.sun.jmx.remote.security=ALL-UNNAMED
  --add-exports java.rmi/sun.rmi.registry=ALL-UNNAMED
  --add-exports java.rmi/sun.rmi.server=ALL-UNNAMED
  --add-exports java.sql/java.sql=ALL-UNNAMED
  --add-exports java.base/java.lang.ref=ALL-UNNAMED
  --add-exports jdk.unsupported/sun.misc=ALL-UNNAMED
  --add-opens java.base/java.lang.module=ALL-UNNAMED
  --add-opens java.base/jdk.internal.loader=ALL-UNNAMED
  --add-opens java.base/jdk.internal.ref=ALL-UNNAMED
  --add-opens java.base/jdk.internal.reflect=ALL-UNNAMED
  --add-opens java.base/jdk.internal.math=ALL-UNNAMED
  --add-opens java.base/jdk.internal.module=ALL-UNNAMED
  --add-opens java.base/jdk.internal.util.jar=ALL-UNNAMED
  --add-opens jdk.management/com.sun.management.internal=ALL-UNNAMED
  --add-opens java.base/sun.nio.ch=ALL-UNNAMED
  --add-opens java.base/java.io=ALL-UNNAMED
  --add-opens java.base/java.lang.reflect=ALL-UNNAMED
  --add-opens java.base/java.lang=ALL-UNNAMED
  --add-opens java.base/java.util=ALL-UNNAMED
  --add-opens java.base/java.nio=ALL-UNNAMED
  -Dio.netty.tryReflectionSetAccessible=true
)

# ccm's token formula: node i of n (0-based) owns i * (2^64 / n) - 2^63 (+ OFFSET: ccm gives DC d 100 * (d-1)).
node_token() {
  local index=$1 count=$2 offset=${3:-0}
  /usr/bin/python3 -I -c "print($index * (2**64 // $count) - 2**63 + $offset)"
}

# write_node_conf NODE_DIR ADDRESS RACK TOKEN SEEDS [DC [NUM_TOKENS [AUTO_BOOTSTRAP]]]: DC defaults to dc1;
# NUM_TOKENS to 1, which takes TOKEN as the initial_token; with more, TOKEN is ignored and Cassandra picks random
# tokens. AUTO_BOOTSTRAP (default false: the nodes of a new cluster) true: a node joining a running cluster.
write_node_conf() {
  local node_dir=$1 address=$2 rack=$3 token=$4 seeds=$5 dc=${6:-dc1} num_tokens=${7:-1}
  local auto_bootstrap=${8:-false} token_line
  token_line="initial_token: $token"
  ((num_tokens == 1)) || token_line="# initial_token: none (num_tokens > 1: random tokens)"
  mkdir -p "$node_dir/conf" "$node_dir/data" "$node_dir/logs"
  cat >"$node_dir/conf/cassandra.yaml" <<EOF
cluster_name: 'cla-real'
num_tokens: $num_tokens
$token_line
auto_bootstrap: $auto_bootstrap
partitioner: org.apache.cassandra.dht.Murmur3Partitioner
endpoint_snitch: GossipingPropertyFileSnitch
seed_provider:
  - class_name: org.apache.cassandra.locator.SimpleSeedProvider
    parameters:
      - seeds: "$seeds"
listen_address: $address
rpc_address: $address
storage_port: 7000
native_transport_port: 9042
start_native_transport: true
commitlog_sync: periodic
commitlog_sync_period: 10000ms
commitlog_segment_size: 8MiB
commitlog_directory: $node_dir/data/commitlog
hints_directory: $node_dir/data/hints
saved_caches_directory: $node_dir/data/saved_caches
cdc_raw_directory: $node_dir/data/cdc_raw
data_file_directories:
  - $node_dir/data/data
concurrent_compactors: 1
key_cache_size: 0MiB
EOF
  printf 'dc=%s\nrack=%s\n' "$dc" "$rack" >"$node_dir/conf/cassandra-rackdc.properties"
  cat >"$node_dir/conf/logback.xml" <<EOF
<configuration scan="false">
  <appender name="FILE" class="ch.qos.logback.core.FileAppender">
    <file>$node_dir/logs/system.log</file>
    <encoder><pattern>%-5level [%thread] %date{ISO8601} %F:%L - %msg%n</pattern></encoder>
  </appender>
  <root level="INFO"><appender-ref ref="FILE"/></root>
</configuration>
EOF
  cat >"$node_dir/conf/logback-tools.xml" <<'EOF'
<configuration scan="false">
  <appender name="STDERR" class="ch.qos.logback.core.ConsoleAppender">
    <target>System.err</target>
    <encoder><pattern>%-5level %date{"HH:mm:ss,SSS"} %msg%n</pattern></encoder>
  </appender>
  <root level="WARN"><appender-ref ref="STDERR"/></root>
</configuration>
EOF
}

# write_jolokia_conf NODE_DIR ADDRESS USER PASSWORD_FILE POLICY_FILE: the Jolokia JVM agent's options for the node
# (SPEC 8.1) in NODE_DIR/conf/jolokia.properties, mode 0600 (it holds the password, which thus stays off the
# command line): bound to ADDRESS:8778, basic auth, the policy, no multicast discovery, no stack traces in answers.
write_jolokia_conf() {
  local node_dir=$1 address=$2 user=$3 password_file=$4 policy_file=$5
  mkdir -p "$node_dir/conf"
  (
    umask 077
    printf '%s\n' "host=$address" port=8778 agentContext=/jolokia "user=$user" "password=$(<"$password_file")" \
      "policyLocation=file://$policy_file" discoveryEnabled=false includeStackTrace=false \
      serializeException=false >"$node_dir/conf/jolokia.properties"
  )
}

# server_jvm_flags NODE_DIR JMX_PORT [JOLOKIA_JAR]: printed one per line. With JOLOKIA_JAR, the Jolokia JVM agent
# with the options write_jolokia_conf wrote.
server_jvm_flags() {
  local node_dir=$1 jmx_port=$2 jolokia_jar=${3:-}
  [[ -z $jolokia_jar ]] || echo "-javaagent:$jolokia_jar=config=$node_dir/conf/jolokia.properties"
  printf '%s\n' -Xms512M -Xmx512M -XX:+UseG1GC -XX:+ParallelRefProcEnabled -XX:MaxTenuringThreshold=1 \
    -XX:G1HeapRegionSize=16m -XX:MaxGCPauseMillis=300 -Djava.net.preferIPv4Stack=true \
    "${CASSANDRA_JPMS_FLAGS[@]}" \
    -Dcassandra-foreground=yes \
    "-Dcassandra.config=file://$node_dir/conf/cassandra.yaml" \
    "-Dcassandra-rackdc.properties=file://$node_dir/conf/cassandra-rackdc.properties" \
    "-Dlogback.configurationFile=file://$node_dir/conf/logback.xml" \
    "-Dcassandra.logdir=$node_dir/logs" "-Dcassandra.storagedir=$node_dir/data" \
    "-Dcassandra.jmx.local.port=$jmx_port" -Dcom.sun.management.jmxremote.authenticate=false \
    -Dcassandra.skip_wait_for_gossip_to_settle=0
}
