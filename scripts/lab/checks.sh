# Checks and their PASS/FAIL summary, shared by every part (sourced by scripts/lab.sh).

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
# check_fails NAME COMMAND...: PASS when the command fails (something that must not work without routerd).
# Checks run side by side (each is mostly a Node.js start-up or a timeout); checks_wait records them in
# the order they were started. The arguments are evaluated when check is called, the command in the background.
CHECKS_PENDING=()
check() { check_start pass "$@"; }
check_fails() { check_start fail "$@"; }

check_start() {
  local expect="$1" name="$2" out
  shift 2
  out="$(mktemp "$LAB_DIR/run-lab/check.XXXXXX")"
  # The background check's failure is its result, not the script's: no errexit, no ERR report there.
  (
    trap - ERR
    set +e
    "$@" >"$out" 2>&1
    echo $? >"$out.rc"
  ) &
  CHECKS_PENDING+=("$expect|$name|$out|$!")
}

checks_wait() {
  local entry expect name out pid rc text
  for entry in "${CHECKS_PENDING[@]}"; do
    IFS='|' read -r expect name out pid <<<"$entry"
    wait "$pid" 2>/dev/null || true
    rc="$(cat "$out.rc" 2>/dev/null || echo 1)"
    text="$(cat "$out" 2>/dev/null)"
    rm -f "$out" "$out.rc"
    if [[ "$expect" == pass && "$rc" == 0 ]]; then record "$name" PASS "$(tail -n 1 <<<"$text")"
    elif [[ "$expect" == pass ]]; then record "$name" FAIL "$(tail -n 2 <<<"$text" | tr '\n' ' ')"
    elif [[ "$rc" == 0 ]]; then record "$name" FAIL "unexpectedly succeeded: $(tail -n 1 <<<"$text")"
    else record "$name" PASS "$(tail -n 1 <<<"$text")"
    fi
  done
  CHECKS_PENDING=()
}

# probe NS ARGS...: scripts/lab/probe.mjs (a request to a lab server) from inside a namespace.
probe() {
  local ns="$1"
  shift
  inns "$ns" node "$LAB_JS/probe.mjs" "$@"
}

# Prints the table of results; returns 1 when any check failed.
summary() {
  checks_wait
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

ledger_is_complete() {
  routerd_lab ledger --json | node -e '
    const doc = JSON.parse(require("fs").readFileSync(0, "utf8"));
    const pending = doc.entries.filter((e) => e.state !== "present");
    if (!doc.entries.length || pending.length) { console.log(`${doc.entries.length} entries, ${pending.length} not present`); process.exit(1); }
    const kinds = [...new Set(doc.entries.map((e) => e.kind))].join(", ");
    console.log(`${doc.entries.length} artifacts recorded as created and present (${kinds})`);'
}
