# tiny_corpus.sh — sourced by the tool tests: checks jq, makes an empty WORK folder, defines fail(), and writes
# a twelve-line English–French corpus WORK/tiny.en and WORK/tiny.fr that a 16-wide model learns in seconds.
#   source tests/cli/tiny_corpus.sh WORK
command -v jq >/dev/null || { echo "jq is not installed: skipping"; exit 77; }
rm -rf "$1"; mkdir -p "$1"
fail() { echo "FAIL: $*" >&2; exit 1; }
for i in 1 2 3; do
  printf 'the cat sleeps .\nthe dog eats .\na red cat .\na big dog sleeps .\n' >> "$1/tiny.en"
  printf 'le chat dort .\nle chien mange .\nun chat rouge .\nun grand chien dort .\n' >> "$1/tiny.fr"
done
