#!/bin/sh
# Broker start script of sharebench's container provider, copied into every
# broker container (the public apache/kafka image and the local
# sharebench/kafka image alike). It formats the node's storage on the first
# start only, so a broker started again after a kill or stop runs on its own
# data, then replaces itself with the broker JVM: java "$@".
#
# Environment: SHAREBENCH_CLUSTER_ID (the KRaft cluster id);
# SHAREBENCH_FORMAT_FEATURES (optional, space-separated NAME=LEVEL feature
# levels to format with, e.g. share.version=1 on Kafka 4.1).
set -eu
dir=/opt/sharebench
data=$(sed -n 's/^log\.dirs=//p' "$dir/server.properties")

# java from PATH, else the public image's JRE (eclipse-temurin keeps it in
# /opt/java/openjdk), else a Debian JRE.
java=$(command -v java 2>/dev/null || true)
if [ -z "$java" ]; then
  for j in "${JAVA_HOME:-/nonexistent}/bin/java" /opt/java/openjdk/bin/java /usr/lib/jvm/*/bin/java; do
    if [ -x "$j" ]; then java=$j; break; fi
  done
fi
if [ -z "$java" ]; then
  echo "sharebench start: no java on PATH, in \$JAVA_HOME, /opt/java/openjdk or /usr/lib/jvm" >&2
  exit 127
fi

if [ -f "$data/meta.properties" ]; then
  echo "sharebench start: $data is formatted; starting on its data"
else
  mkdir -p "$data"
  features=""
  for f in ${SHAREBENCH_FORMAT_FEATURES:-}; do features="$features --feature $f"; done
  echo "sharebench start: formatting $data for cluster $SHAREBENCH_CLUSTER_ID${features:+ with$features}"
  "$java" -Xmx256m -XX:TieredStopAtLevel=1 -XX:+UseSerialGC \
    "-Dlog4j2.configurationFile=$dir/log4j2.properties" -cp '/opt/kafka/libs/*' \
    kafka.tools.StorageTool format -t "$SHAREBENCH_CLUSTER_ID" -c "$dir/server.properties" $features
fi
exec "$java" "$@"
