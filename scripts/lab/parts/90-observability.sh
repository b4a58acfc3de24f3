# Part observability: ObservabilityPipeline telemetry in examples/home-router.yaml sends the events and
# log lines of routerd serve and of every daemon it runs to a syslog collector on the LAN host (RFC 5424
# over UDP to 192.168.10.10:5514, where the lab keeps each line in a file), and turns on serve's Prometheus
# endpoint (its default: the Unix socket <run-dir>/routerd/metrics.sock). See docs/observability.md.

needs curl curl

OBS_SYSLOG_PORT=5514
obs_dir() { echo "$LAB_DIR/observability"; }
obs_log() { echo "$(obs_dir)/syslog.log"; }
obs_metrics_sock() { echo "$LAB_DIR/run/routerd/metrics.sock"; }

observability_setup() {
  mkdir -p "$(obs_dir)"
  : >"$(obs_log)"
  # The LAN's syslog collector: one line per datagram, as received.
  start_bg syslog-collector "$NS_LAN" node -e '
    const fs = require("fs");
    const out = fs.createWriteStream(process.argv[2], { flags: "a" });
    const s = require("dgram").createSocket("udp4");
    s.on("message", (m) => out.write(m.toString("utf8").replace(/\n/g, " ") + "\n"));
    s.bind(Number(process.argv[1]), "0.0.0.0");' "$OBS_SYSLOG_PORT" "$(obs_log)"
  info "$NS_LAN: syslog collector on udp :$OBS_SYSLOG_PORT, lines in $(obs_log)"
}

# obs_syslog_from DAEMON_REGEX TOPIC_REGEX: the newest collected line of such an event (RFC 5424: MSGID is the topic).
obs_syslog_from() {
  local line
  line="$(grep -E "^<[0-9]+>1 [^ ]+ [^ ]+ routerd [0-9]+ ($2) \[routerd@32473 daemon=\"($1)\" instance=\"[^\"]+\" kind=\"event\"" "$(obs_log)" 2>/dev/null | tail -n 1)"
  [[ -n "$line" ]] || { echo "no $2 event from $1 in $(obs_log) ($(wc -l <"$(obs_log)" 2>/dev/null || echo 0) lines so far)"; return 1; }
  echo "${line:0:200}"
}

# obs_daemons_seen: which daemons' events reached the collector (at least one besides routerd serve).
obs_daemons_seen() {
  local seen
  seen="$(grep -oE '\[routerd@32473 daemon="[a-z0-9-]+" instance="[^"]+" kind="event"' "$(obs_log)" 2>/dev/null | sed -E 's/.*daemon="([^"]+)" instance="([^"]+)".*/\1\/\2/' | sort -u | tr '\n' ' ')"
  [[ "$seen" == *routerd/core* && "$(wc -w <<<"$seen")" -ge 2 ]] || { echo "events from: ${seen:-nobody}"; return 1; }
  echo "events from: $seen"
}

obs_metrics() { curl -sf --max-time 3 --unix-socket "$(obs_metrics_sock)" http://localhost/metrics; }

# obs_metrics_answer: serve's endpoint answers with its families; prints a few of the numbers.
obs_metrics_answer() {
  local text
  text="$(obs_metrics)" || { echo "no answer on $(obs_metrics_sock)"; return 1; }
  grep -q '^# TYPE routerd_events_total counter' <<<"$text" || { echo "routerd_events_total missing"; return 1; }
  awk '/^routerd_daemons /{d=$2} /^routerd_events_total\{/{e+=$2} /^routerd_telemetry_records_total\{.*sink="lan-syslog".*outcome="sent"/{s=$2}
    END { if (d < 1) { print "routerd_daemons " d; exit 1 } printf "routerd_daemons %d, routerd_events_total %d (serve), lan-syslog sent %d\n", d, e, s }' <<<"$text"
}

# obs_sink_healthy: status of ObservabilityPipeline/telemetry: the LAN sink sends (state ok). Records sent
# before the LAN was up (lan0 without its address, the collector's host without its lease) are dropped and
# counted: the sink never waits for its receiver.
obs_sink_healthy() {
  local s
  s="$(routerctl_patient status --json)" || { echo "$s"; return 1; }
  node -e '
    const r = JSON.parse(process.argv[1]).resources.find((x) => x.name === "ObservabilityPipeline/telemetry");
    const sink = r?.details?.sinks?.find((x) => x.name === "lan-syslog");
    if (!sink) { console.log("no lan-syslog sink in the status of ObservabilityPipeline/telemetry"); process.exit(1); }
    console.log(`lan-syslog: state ${sink.state}, sent ${sink.sent}, dropped ${sink.dropped} (before the LAN was up), buffered ${sink.buffered}`);
    process.exit(sink.sent > 0 && sink.state === "ok" ? 0 : 1);' "$s"
}

observability_converge() {
  wait_for "routerd's events reach the LAN's syslog collector (ObservabilityPipeline)" 60 obs_syslog_from routerd '[a-z0-9.-]+'
  wait_for "serve's Prometheus endpoint answers on $(obs_metrics_sock)" 30 obs_metrics_answer
}

observability_checks() {
  check "observability: serve's events reach the LAN's syslog collector (RFC 5424 over udp, facility local0)" \
    obs_syslog_from routerd '[a-z0-9.-]+'
  check "observability: …and the daemons' events too (each process sends its own)" within 30 obs_daemons_seen
  check "observability: the Prometheus endpoint answers on the Unix socket (events, daemons, sink counters)" within 10 obs_metrics_answer
  check "observability: the sink's counters in status (routerctl status --json): sending, drops counted" within 30 obs_sink_healthy
}

observability_status() {
  echo "  observability: $(wc -l <"$(obs_log)" 2>/dev/null || echo 0) syslog lines at the LAN collector; metrics: $(obs_metrics_answer 2>/dev/null || echo 'endpoint not answering')"
}

observability_poke() {
  cat <<EOF
    tail -f $(obs_log)                                    # routerd's and its daemons' events, as the LAN's syslog collector got them
    curl -s --unix-socket $(obs_metrics_sock) http://localhost/metrics | grep ^routerd_   # serve's Prometheus endpoint
EOF
}
