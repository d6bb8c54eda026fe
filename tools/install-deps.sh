#!/usr/bin/env bash
# install-deps.sh — install what attnlab needs to build and test, from Debian 12 packages.
#
# Checks each package with dpkg and calls apt-get only for the missing ones, so on a machine that has
# everything it does nothing (and needs no network). Runs apt-get through sudo when not root.
set -euo pipefail

packages=(
  g++ cmake ninja-build pkg-config ccache   # compiler and build (ccache: faster rebuilds)
  libeigen3-dev                             # matrices (tensor maps, GEMM)
  libspdlog-dev                             # logging
  libyaml-cpp-dev                           # configs
  libsentencepiece-dev                      # subword tokenizers
  doctest-dev                               # tests
  libcli11-dev                              # command line
  nlohmann-json3-dev                        # JSON (safetensors headers, metrics)
  python3-numpy                             # only for the test that opens our safetensors files from Python
  python3-nltk                              # only for the test that compares our BLEU with NLTK's
  libmicrohttpd-dev                         # the HTTP server of `attnlab serve` (GNU libmicrohttpd)
  chromium                                  # only for the test that opens the attention and report pages
  chromium-driver python3-selenium          # only for the explorer's browser tests (tests/inspect/explorer_browser_test.py)
  jq                                        # tools/compare.sh reads metrics.jsonl with it
  gdb                                       # the debugger walkthrough; tests/tools/gdb_test.sh checks tools/gdb/
  clang libclang-rt-14-dev libomp-14-dev    # the fuzz preset: clang, its libFuzzer and OpenMP (tests/fuzz)
  openmpi-bin libopenmpi-dev                # data parallelism: mpirun -np N attnlab train (optional at build time)
)
if [ "${1:-}" = "--print" ]; then printf '%s\n' "${packages[@]}"; exit 0; fi

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [ "$status" = "install ok installed" ] || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "install-deps: installing ${missing[*]}"
if [ "$(id -u)" -eq 0 ]; then sudo=(); else sudo=(sudo); fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
