# The lab's checks and their PASS/FAIL summary (sourced by scripts/lab.sh).

CHECK_NAMES=()
CHECK_RESULTS=()
CHECK_DETAILS=()

record() {
  CHECK_NAMES+=("$1")
  CHECK_RESULTS+=("$2")
  CHECK_DETAILS+=("$3")
  local colour="$C_GREEN"
  [[ "$2" == PASS ]] || colour="$C_RED"
  printf '    %s%s%s  %s\n' "$colour" "$2" "$C_OFF" "$1"
  [[ -z "$3" ]] || printf '          %s\n' "$3"
}

# check NAME COMMAND...: PASS when the command exits 0; the detail is its last output line.
check() {
  local name="$1" out
  shift
  if out="$("$@" 2>&1)"; then
    record "$name" PASS "$(tail -n 1 <<<"$out")"
  else
    record "$name" FAIL "$(tail -n 2 <<<"$out" | tr '\n' ' ')"
  fi
}

# check_fails NAME COMMAND...: PASS when the command fails (something that must not work without routerd).
check_fails() {
  local name="$1" out
  shift
  if out="$("$@" 2>&1)"; then
    record "$name" FAIL "unexpectedly succeeded: $(tail -n 1 <<<"$out")"
  else
    record "$name" PASS "$(tail -n 1 <<<"$out")"
  fi
}

probe() {
  local ns="$1"
  shift
  ip netns exec "$ns" node "$LAB_JS/probe.mjs" "$@"
}

plan_is_empty() {
  routerd_lab plan --config "$CONFIG" --detailed-exitcode >/dev/null || return 1
  echo "routerd plan --detailed-exitcode: exit 0, nothing to change"
}

ledger_is_complete() {
  routerd_lab ledger --json | node -e '
    const doc = JSON.parse(require("fs").readFileSync(0, "utf8"));
    const pending = doc.entries.filter((e) => e.state !== "present");
    if (!doc.entries.length || pending.length) { console.log(`${doc.entries.length} entries, ${pending.length} not present`); process.exit(1); }
    const kinds = [...new Set(doc.entries.map((e) => e.kind))].join(", ");
    console.log(`${doc.entries.length} artifacts recorded as created and present (${kinds})`);'
}

run_checks() {
  check "reconcile is idempotent (a second plan has no changes)" plan_is_empty
  check "ledger records what routerd created" ledger_is_complete
  check_fails "isp has no route back to the LAN (so answers need NAT)" ip -n "$NS_ISP" route get "$WEB_ADDR"
  check "LAN client pings the isp ($WEB_ADDR → $ISP_ADDR)" ip netns exec "$NS_LAN" "${PING[@]}" -c 1 -W 2 "$ISP_ADDR"
  check "masquerade: isp sees LAN traffic from $ROUTER_WAN_ADDR" \
    probe "$NS_LAN" http "$ISP_ADDR" 80 --expect-peer "$ROUTER_WAN_ADDR"
  check "port forward tcp $ROUTER_WAN_ADDR:8080 → $WEB_ADDR:80 (source kept)" \
    probe "$NS_ISP" http "$ROUTER_WAN_ADDR" 8080 --expect-local "$WEB_ADDR" --expect-peer "$ISP_ADDR"
  check "port forward udp $ROUTER_WAN_ADDR:27015 → $GAME_ADDR:27015" \
    probe "$NS_ISP" udp "$ROUTER_WAN_ADDR" 27015 --expect-local "$GAME_ADDR" --expect-peer "$ISP_ADDR"
  check "hairpin: LAN $GAME_ADDR reaches $ROUTER_WAN_ADDR:8080 → $WEB_ADDR:80" \
    probe "$NS_LAN" http "$ROUTER_WAN_ADDR" 8080 --source "$GAME_ADDR" --expect-local "$WEB_ADDR" --expect-peer "$ROUTER_LAN_ADDR"
}

# Prints the table of results; returns 1 when any check failed.
summary() {
  local i failed=0 width=0
  for i in "${!CHECK_NAMES[@]}"; do ((${#CHECK_NAMES[i]} > width)) && width=${#CHECK_NAMES[i]}; done
  step "Summary"
  for i in "${!CHECK_NAMES[@]}"; do
    local colour="$C_GREEN"
    [[ "${CHECK_RESULTS[i]}" == PASS ]] || { colour="$C_RED"; failed=$((failed + 1)); }
    printf '    %s%s%s  %s\n' "$colour" "${CHECK_RESULTS[i]}" "$C_OFF" "${CHECK_NAMES[i]}"
  done
  printf '\n    %d passed, %d failed\n' $((${#CHECK_NAMES[@]} - failed)) "$failed"
  ((failed == 0))
}

poke_around() {
  step "Poke around"
  cat <<EOF
    $LAB_DIR/routerd plan --config $CONFIG      # routerd in the router namespace, state in the lab dir
    $LAB_DIR/routerd ledger                          # what routerd created (artifacts.json)
    ip netns exec $NS_ROUTER nft list ruleset       # the rendered routerd_nat table
    ip -n $NS_ROUTER address; ip -n $NS_ROUTER route
    ip netns exec $NS_LAN node $LAB_JS/probe.mjs http $ISP_ADDR 80
    ip netns exec $NS_ISP node $LAB_JS/probe.mjs http $ROUTER_WAN_ADDR 8080
    ls $LAB_DIR                       # state/ (ledger, status, backups/), root/, logs/, pids/

    npm run lab -- status             # is it up?
    npm run lab -- check              # run the checks again
    npm run lab -- down               # remove everything the lab created
EOF
}
