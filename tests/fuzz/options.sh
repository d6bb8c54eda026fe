# options.sh — per-target libFuzzer options, sourced by tools/fuzz.sh and tests/fuzz/run_target.sh.
#
# max_len_option NAME prints the -max_len option for target NAME, or nothing for libFuzzer's default (4096 bytes,
# or the longest seed when that is longer). Inputs are capped only where the long ones slow a target down without
# reaching more code; each cap says why it still reaches what the target's opening comment promises.
max_len_option() {
  case "$1" in
    # A line of 128 bytes is up to 128 char tokens, far past the learned-positions run's cut at model.max_len 12,
    # so that cut is still reached. The sinusoidal run's cut at 1024 tokens is not (a 1024-token line costs
    # [2, 1024, 1024] attention scores per layer: the target ran 9 inputs a second with 1400-byte lines, 90 with
    # 128-byte ones); tests/cli/cli_test.sh "translate a runaway line" checks that cut with a 3000-token line.
    translate) echo "-max_len=128" ;;
    # The corpus readers work line by line: a few short lines reach every branch (a 3·10⁵-run with the default
    # limit grew inputs to 676 bytes, yet the 389 inputs it kept average 60 bytes); 612 inputs a second before.
    corpus) echo "-max_len=256" ;;
  esac
}
