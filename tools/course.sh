#!/usr/bin/env bash
# course.sh — keeps the course's pages current: what their commands print, and their pictures.
#
#   tools/course.sh            build attnlab and course_figures (the release preset), then check that
#                              - every runnable block of docs/course/ and docs/guide/ runs and prints what the
#                                output block under it shows (tests/docs/docs_test.py . build/release/attnlab);
#                              - the pictures course_figures draws today are, byte for byte, those in
#                                docs/course/figures/ (positions, positions_dot, masks, schedule).
#                              Exits 1 naming each block and each picture that differs; changes nothing.
#   tools/course.sh --update   the same, but rewrites what is stale instead of failing: each output block that no
#                              longer matches (docs_test.py --update keeps its `…` lines), each picture that
#                              differs, and docs/course/figures/heads-reverse.svg: the cross-attention of the
#                              decoder's last layer for "a b c d e f" in runs/reverse, the model chapter 5 trains,
#                              the head that follows the anti-diagonal most. Says what it rewrote: review the diff
#                              (git diff docs/), then commit.
#   tools/course.sh --help     this text
#
# Runs from anywhere (it works at the top of the tree); needs cmake, ninja and python3. The pages train a few small
# models: a minute or so. The heads picture is regenerated only by --update and never checked: its numbers come
# from a training run, and another CPU's vector width rounds them differently (the other pictures are the same
# bytes on every CPU; ctest docs.figures_current checks them too).
set -euo pipefail
shopt -s nullglob      # a glob that matches nothing is no word at all

usage() { sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; }
die() { echo "course.sh: $*" >&2; exit 2; }

update=false
while [ $# -gt 0 ]; do
  case "$1" in
    --update) update=true; shift ;;
    -h|--help) usage; exit 0 ;;
    *) die "unknown argument '$1' (tools/course.sh [--update]; see --help)" ;;
  esac
done

cd "$(dirname "$0")/.."
command -v cmake >/dev/null || die "needs cmake (tools/install-deps.sh installs it)"
command -v python3 >/dev/null || die "needs python3 (for tests/docs/docs_test.py)"
attnlab=build/release/attnlab
course_figures=build/release/course_figures
figures=docs/course/figures

scratch="$(mktemp -d "${TMPDIR:-/tmp}/attnlab-course.XXXXXX")"
trap 'rm -rf "$scratch"' EXIT

echo "course.sh: building attnlab and course_figures (cmake --preset release) …"
cmake --preset release >"$scratch/configure.log" 2>&1 || { cat "$scratch/configure.log" >&2; die "cmake --preset release failed"; }
cmake --build --preset release --target attnlab_cli course_figures engine_tour number_formats   # the pages run the last two

stale=0
docs_failed=false

# ---- The pictures course_figures draws ----
echo "course.sh: drawing the course's pictures (course_figures) …"
"$course_figures" "$scratch/figures" --config configs/toy-en-fr.yaml >/dev/null
mkdir -p "$figures"
for drawn in "$scratch"/figures/*.svg; do
  name="$(basename "$drawn")"
  if cmp -s "$drawn" "$figures/$name"; then
    echo "course.sh: $figures/$name is current"
  elif $update; then
    cp "$drawn" "$figures/$name"
    echo "course.sh: rewrote $figures/$name"
  else
    [ -f "$figures/$name" ] && what="differs from what course_figures draws today" || what="is missing"
    echo "course.sh: $figures/$name $what (tools/course.sh --update regenerates it)" >&2
    stale=1
  fi
done
for committed in "$figures"/*.svg; do
  name="$(basename "$committed")"
  [ "$name" = heads-reverse.svg ] || [ -f "$scratch/figures/$name" ] ||
    echo "course.sh: note: $committed is drawn by nothing (neither course_figures nor --update); remove it if no page needs it"
done

# ---- The pages' commands and what they print ----
if $update; then
  echo "course.sh: running every runnable block of the pages, rewriting stale output blocks (it trains a few small models: a minute or so) …"
  if ! python3 tests/docs/docs_test.py . "$attnlab" --update --work "$scratch/work"; then
    docs_failed=true
  fi
else
  echo "course.sh: running every runnable block of the pages and comparing what they print (it trains a few small models: a minute or so) …"
  if ! python3 tests/docs/docs_test.py . "$attnlab"; then
    echo "course.sh: the pages are not current (above); tools/course.sh --update rewrites stale output blocks" >&2
    stale=1
  fi
fi

# ---- The heads picture, from the model the pages trained (--update only) ----
if $update; then
  run="$scratch/work/runs/reverse"
  if [ ! -f "$run/checkpoints/best.safetensors" ]; then
    echo "course.sh: no trained $run (chapter 5's runnable block failed above): heads-reverse.svg left as it was" >&2
    stale=1
  else
    echo "course.sh: drawing the reverse model's attention (attnlab attention) …"
    "$attnlab" attention --run "$run" --text "a b c d e f" --out "$scratch/attention" >/dev/null
    # The cross-attention of the decoder's last layer; of its heads, the one with the most weight on the
    # anti-diagonal (row i, which predicts the i-th output symbol, reading source symbol n − 1 − i).
    choice="$(python3 - "$scratch/attention/attention.json" <<'EOF'
import json, sys
picture = json.load(open(sys.argv[1], encoding="utf-8"))
cross = [m for m in picture["maps"] if m["type"] == "cross"]
last = max(m["layer"] for m in cross)
n = len(picture["tokens"]["source"])
def on_anti_diagonal(rows):
    return sum(rows[i][n - 1 - i] for i in range(min(n, len(rows))))
weights = next(m for m in cross if m["layer"] == last)["weights"]
head = max(range(len(weights)), key=lambda h: on_anti_diagonal(weights[h]))
print(f"cross-layer{last}-head{head}.svg {on_anti_diagonal(weights[head]) / n:.2f}")
EOF
)"
    read -r chosen share <<<"$choice"
    echo "course.sh: $chosen puts on average ${share} of a row's weight on the anti-diagonal, the most of its layer's heads"
    if cmp -s "$scratch/attention/$chosen" "$figures/heads-reverse.svg"; then
      echo "course.sh: $figures/heads-reverse.svg is current"
    else
      cp "$scratch/attention/$chosen" "$figures/heads-reverse.svg"
      echo "course.sh: rewrote $figures/heads-reverse.svg (from $chosen)"
    fi
  fi
fi

# A failure of the first pass may be one this run has mended (a link to a picture it has just drawn): check again.
if $docs_failed; then
  echo "course.sh: checking the pages again, as they are now …"
  if ! python3 tests/docs/docs_test.py . "$attnlab"; then
    echo "course.sh: tests/docs/docs_test.py fails for a reason --update cannot fix (above)" >&2
    stale=1
  fi
fi

if [ "$stale" != 0 ]; then
  $update && echo "course.sh: done, with failures (above)" >&2 || echo "course.sh: not current (above)" >&2
  exit 1
fi
$update && echo "course.sh: done; review the changes with git diff docs/ before committing" || echo "course.sh: the pages and their pictures are current"
