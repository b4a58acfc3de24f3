# The home-router lab (`npm run lab`): the parts set up the ISPs and the LAN client, `routerd serve` runs
# the router from the lab's copy of examples/home-router.yaml, then the parts wait for the router to
# converge, check it and show it (sourced by scripts/lab.sh).

LAB_CONFIG="$LAB_DIR/router.yaml"

home_up() {
  step "Creating the lab: namespaces ${HOME_NAMESPACES[*]}"
  create_topology
  # The parts start their servers in the background; nothing waits for them before the router starts.
  run_hook setup

  step "Starting routerd serve in $NS_ROUTER"
  cp "$REPO/examples/home-router.yaml" "$LAB_CONFIG"
  # Parts that bring resources of their own add them to the copy before serve reads it (one YAML list).
  local added
  added="$(run_hook resources)"
  [[ -z "$added" ]] || info "$(lab_config_add <<<"$added")"
  start_bg routerd "$NS_ROUTER" node "$ROUTERD_JS" serve --config "$LAB_CONFIG" --stop-daemons-on-exit \
    --state-dir "$LAB_DIR/state" --root "$LAB_DIR/root" --run-dir "$LAB_DIR/run"
  info "config: $LAB_CONFIG (a copy of examples/home-router.yaml with the parts' additions; serve applies edits within a second)"
  info "log: $LAB_DIR/logs/routerd.log; state, root and run dirs under $LAB_DIR"
  # From here on a problem is the router's, not the lab's: the lab stays up to be looked at.
  UP_STAGE=up

  step "Waiting for the router to converge"
  wait_for "routerd serve answers on its socket" 30 test -S "$LAB_DIR/run/routerd/core.sock" || true
  run_hook converge || true

  home_check
}

# routerctl_patient ARGS...: routerctl in the lab, asked up to three times. A loaded machine can keep serve
# from answering within routerctl's 2 s for a while.
routerctl_patient() {
  local out i
  for i in 1 2 3; do
    out="$(routerctl_lab "$@" 2>&1)" && break
    ((i < 3)) || { echo "$out"; return 1; }
  done
  echo "$out"
}

# serve's own account (routerctl status): running, last reconcile fine, every resource Ready.
serve_running() {
  local s
  s="$(routerctl_patient status --json)" || { echo "$s"; return 1; }
  node -e '
    const s = JSON.parse(process.argv[1]);
    const bad = s.resources.filter((r) => r.phase !== "Ready");
    console.log(`${s.phase.replace("PHASE_", "")}, ${s.resources.length} resources${bad.length ? `; not ready: ${bad.map((r) => `${r.name} ${r.phase} ${r.message}`).join(", ")}` : ""}, last reconcile ${s.details?.lastReconcile ?? "never"}${s.details?.ok === false ? " (failed)" : ""}`);
    process.exit(s.phase === "PHASE_RUNNING" && s.details?.ok && !bad.length ? 0 : 1);' "$s"
}

home_check() {
  step "Checking that the router works"
  wait_servers
  # A daemon that answers serve late (a loaded machine) leaves resources that read its facts Pending for
  # one reconcile: serve retries every cycle (at the latest every 30 s), so the check waits for the next one.
  check "routerd serve is running and its last reconcile succeeded (routerctl status)" within 45 serve_running
  check "the ledger records what routerd created" ledger_is_complete
  run_hook checks
  checks_wait
}

# The operator's view: what routerd and its daemons say about the router. Each piece is a Node.js
# program or two: they run side by side and print in order.
home_show() {
  step "The operator's view"
  local part fn pieces=(show_status) out=() pids=() i
  for part in "${LAB_PARTS[@]}"; do
    fn="${part//-/_}_show"
    if declare -F "$fn" >/dev/null; then pieces+=("$fn"); fi
  done
  pieces+=(show_ledger)
  for i in "${!pieces[@]}"; do
    out[i]="$(mktemp "$LAB_DIR/run-lab/show.XXXXXX")"
    (
      trap - ERR
      "${pieces[i]}" >"${out[i]}" 2>&1 || true
    ) &
    pids[i]=$!
  done
  for i in "${!pieces[@]}"; do
    wait "${pids[i]}" || true
    cat "${out[i]}"
    rm -f "${out[i]}"
  done
}

show_status() {
  info "\$ routerctl status"
  routerctl_patient status | sed 's/^/    /'
}

show_ledger() {
  info "\$ routerd ledger (summary)"
  routerd_lab ledger --json | node -e '
    const doc = JSON.parse(require("fs").readFileSync(0, "utf8"));
    const byKind = new Map();
    for (const e of doc.entries) byKind.set(e.kind, (byKind.get(e.kind) ?? 0) + 1);
    console.log(`    ${doc.entries.length} artifacts owned by routerd: ${[...byKind].map(([k, n]) => `${n} ${k}`).join(", ")}`);'
}

home_poke() {
  step "Poke around"
  cat <<EOF
    $LAB_DIR/routerctl status                 # routerctl and routerd in the router namespace, with the
    $LAB_DIR/routerctl events --follow        # lab's --run-dir, --state-dir and --root
    $LAB_DIR/routerd plan --config $LAB_CONFIG
    $LAB_DIR/routerd ledger
    \$EDITOR $LAB_CONFIG          # serve applies a changed config within a second
    tail -f $LAB_DIR/logs/routerd.log
EOF
  run_hook poke
  common_poke
}

home_status() {
  local line
  line="$(serve_running 2>&1)" && echo "  routerd serve: $line" || echo "  routerd serve: not answering ($line)"
  run_hook status
}
