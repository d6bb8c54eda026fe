#!/usr/bin/env bash
# bench_ab_test.sh — tools/bench_ab.sh, two builds against each other, on two stand-ins for attnlab whose steps are
# known: A always 100 ms; B 90, 95 and 120 ms in rounds 1–3. So the table must say A 100.0, B 95.0, B ÷ A 0.950 by
# the medians and 0.950 by the rounds' ratios (0.90, 0.95, 1.20), B faster in 2 of 3 rounds; A runs first in
# round 1 and 3 and B first in round 2; a failing run and bad arguments end with one message and a non-zero exit.
# Skips (77) without python3.
#   tests/tools/bench_ab_test.sh SOURCE_DIR WORK_DIR
set -uo pipefail
source_dir="$1"; work="$2"
command -v python3 >/dev/null || { echo "python3 is not installed: skipping"; exit 77; }
rm -rf "$work" && mkdir -p "$work" || exit 1
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# fake NAME STEPS...: a program that answers --version, and for `bench` logs its name and prints its next step.
fake() {
  local name=$1; shift
  printf '%s\n' "$@" > "$work/$name.steps"
  cat > "$work/$name" <<FAKE
#!/usr/bin/env bash
[ "\$1" = --version ] && { echo "fake $name"; exit 0; }
echo "$name \$*" >> "$work/calls.txt"
step=\$(head -n 1 "$work/$name.steps"); sed -i 1d "$work/$name.steps"
[ -n "\$step" ] || exit 3
echo "{\"step_ms\": \$step, \"threads\": 2}"
FAKE
  chmod +x "$work/$name"
}
fake A 100 100 100
fake B 90 95 120
out=$("$source_dir/tools/bench_ab.sh" --rounds 3 --configs base "$work/A" "$work/B" 2>&1) || fail "exited non-zero: $out"
grep -qF "| base | 100.0 | 95.0 | 0.950 | 0.950 | 2 of 3 rounds |" <<< "$out" || fail "the table: $out"
grep -qF "A: $work/A (fake A)" <<< "$out" && grep -qF "B: $work/B (fake B)" <<< "$out" || fail "the programs: $out"
order=$(cut -d' ' -f1 "$work/calls.txt" | tr -d '\n')
[ "$order" = ABBAAB ] || fail "the order of the runs is $order, not A B, B A, A B"
grep -q -- "--config configs/bench/base.yaml --json --steps 10 --threads 0 --decode-sentences 0" "$work/calls.txt" ||
  fail "the bench command: $(head -n 1 "$work/calls.txt")"

# A run that fails (B has no fourth step), and bad arguments: one line, exit 2.
refuse() { # expected-message args...
  local expected=$1; shift
  local status=0 said; said=$("$source_dir/tools/bench_ab.sh" "$@" 2>&1 >/dev/null) || status=$?
  [ "$status" = 2 ] && [[ "$said" == *"$expected"* ]] || fail "bench_ab.sh $*: exit $status, said: $said"
}
fake A 100; fake B
refuse "round 1, base: '$work/B bench' failed" --rounds 1 --configs base "$work/A" "$work/B"
refuse "give two attnlab programs, A and B" "$work/A"
refuse "'$work/none' is not a program that runs here" "$work/A" "$work/none"
refuse "no model configs/bench/huge.yaml" --configs huge "$work/A" "$work/B"
refuse "--rounds needs a whole number" --rounds x "$work/A" "$work/B"
[ "$failures" = 0 ] && echo "bench_ab.sh: the table, the order of the runs and 5 refusals checked"
exit $((failures > 0))
