#!/usr/bin/env bash
# demo.sh — the main job: build attnlab and show it working.
#
# For now: installs dependencies, builds, runs the engine tour (README, "The engine") and checks every op's
# gradient against finite differences. Later chapters make it train, translate and draw attention.
set -euo pipefail
cd "$(dirname "$0")/.."

tools/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release -j "$(nproc)"

echo
echo "== The engine: y = softmax(xW + b), backward, dL/dW  (tools/engine_tour.cpp) =="
./build/release/engine_tour
echo
echo "== Every op's backward against central differences (attnlab gradcheck) =="
./build/release/attnlab gradcheck
