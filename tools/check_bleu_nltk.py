#!/usr/bin/env python3
"""check_bleu_nltk.py — attnlab's BLEU against an independent implementation, NLTK's corpus_bleu.

  usage: check_bleu_nltk.py SCORE_TEXT_FILES WORK_DIR     (exit 77 = skipped: NLTK is not installed)

Two checks, on hand-written and on randomly generated sentences (fixed seed):
  1. tokens: attnlab's 13a tokenizer (C++, written as scans) gives exactly the tokens of sacreBLEU's
     regular expressions run by Python's re module (written out below from sacreBLEU's tokenizer_re.py);
  2. score: NLTK's corpus_bleu on those same tokens, with SmoothingFunction().method3 — NLTK's name for
     mteval's "exp" smoothing, sacreBLEU's default — gives attnlab's BLEU to 1e-9.
NLTK differs from sacreBLEU where a sentence has fewer than n tokens: NLTK counts at least one n-gram per
sentence and order (its denominator is max(1, count)), sacreBLEU counts none. The comparison therefore uses
sentences of at least 4 tokens, and one last case shows the difference on purpose (see docs/guide/decoding-and-evaluation.md).
"""
import json
import math
import random
import re
import subprocess
import sys
from pathlib import Path

try:
    from nltk.translate.bleu_score import SmoothingFunction, corpus_bleu
except ImportError:
    print("check_bleu_nltk: NLTK is not installed (Debian: python3-nltk); skipped")
    sys.exit(77)

# sacreBLEU's 13a, as regular expressions (mteval-v13a normalisation, then tokenizer_re.py's four rules).
RULES = [
    (re.compile(r"([\{-\~\[-\` -\&\(-\+\:-\@\/])"), r" \1 "),
    (re.compile(r"([^0-9])([\.,])"), r"\1 \2 "),
    (re.compile(r"([\.,])([^0-9])"), r" \1 \2"),
    (re.compile(r"([0-9])(-)"), r"\1 \2 "),
]


def tokenize_13a(line):
    line = line.rstrip()
    for old, new in [("<skipped>", ""), ("-\n", ""), ("\n", " "), ("&quot;", '"'), ("&amp;", "&"),
                     ("&lt;", "<"), ("&gt;", ">")]:
        line = line.replace(old, new)
    line = f" {line} "
    for pattern, replacement in RULES:
        line = pattern.sub(replacement, line)
    return line.split()


def score_with_attnlab(tool, work, name, hypotheses, references):
    hyp_file, ref_file = work / f"{name}.hyp", work / f"{name}.ref"
    hyp_file.write_text("".join(h + "\n" for h in hypotheses), encoding="utf-8")
    ref_file.write_text("".join(r + "\n" for r in references), encoding="utf-8")
    out = subprocess.run([tool, str(hyp_file), str(ref_file)], check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def nltk_bleu(hyp_tokens, ref_tokens):
    return 100 * corpus_bleu([[r] for r in ref_tokens], hyp_tokens,
                             smoothing_function=SmoothingFunction().method3)


# ---- test material ----
HAND_WRITTEN = [
    ("The cat sat on the mat.", "The cat is on the mat."),
    ("It costs $3.50, or 1,000 yen!", "It costs 3.50 dollars, or 1,000 yen."),
    ("A 10-fold increase (well-known) in Zürich.", "A ten-fold increase, well known, in Zurich."),
    ("&quot;Don't&quot; &amp; he said: no/yes?", "\"Don't\" & she said: yes/no?"),
    ("Ich möchte ein Bier, bitte.", "Ich hätte gern ein Bier, bitte."),
    ("Le chat dort sur le tapis rouge.", "Le chat dort sur le tapis rouge."),
]

WORDS = "the a cat dog sat ran on under mat house red big small quickly and or".split()
PUNCTUATION = list(".,;:!?-'\"()/$%&") + ["&amp;", "&quot;", "&lt;", "&gt;", "<skipped>", "3.5", "1,000",
                                           "10-", "-", "..", ".,", "é", "ß", "\u00a0", "\t"]


def random_noisy_line(rng):
    """Text that exercises every tokenizer rule: words, digits, punctuation, escapes, odd spaces."""
    pieces = []
    for _ in range(rng.randint(0, 14)):
        kind = rng.random()
        if kind < 0.4:
            pieces.append(rng.choice(WORDS))
        elif kind < 0.6:
            pieces.append(str(rng.randint(0, 999)))
        else:
            pieces.append(rng.choice(PUNCTUATION))
    glue = lambda: rng.choice(["", " ", " ", "  "])
    return "".join(p + glue() for p in pieces)


def random_pair(rng):
    """A reference of 4–14 words and a hypothesis made from it by dropping, swapping and replacing words."""
    reference = [rng.choice(WORDS) for _ in range(rng.randint(4, 14))]
    hypothesis = list(reference)
    for _ in range(rng.randint(0, 4)):
        edit, i = rng.random(), rng.randrange(len(hypothesis))
        if edit < 0.3 and len(hypothesis) > 4:
            del hypothesis[i]
        elif edit < 0.6:
            hypothesis[i] = rng.choice(WORDS)
        elif edit < 0.8:
            j = rng.randrange(len(hypothesis))
            hypothesis[i], hypothesis[j] = hypothesis[j], hypothesis[i]
        else:
            hypothesis.insert(i, rng.choice(WORDS))
    end = rng.choice(["", ".", " !", ", ok."])
    return " ".join(hypothesis) + end, " ".join(reference) + end


def main():
    tool, work = sys.argv[1], Path(sys.argv[2])
    work.mkdir(parents=True, exist_ok=True)
    rng = random.Random(20240521)
    failures = 0

    # 1. Tokens, on text made to trip the rules.
    noisy = [random_noisy_line(rng) for _ in range(400)] + [h for h, _ in HAND_WRITTEN]
    result = score_with_attnlab(tool, work, "tokens", noisy, noisy)
    for line, ours in zip(noisy, result["hyp_tokens"]):
        if ours != tokenize_13a(line):
            failures += 1
            print(f"FAIL tokens of {line!r}:\n  attnlab {ours}\n  re      {tokenize_13a(line)}")
    print(f"tokens: {len(noisy)} lines compared")

    # 2. Scores: NLTK on the same tokens.
    corpora = {
        "hand-written": HAND_WRITTEN,
        "random-small": [random_pair(rng) for _ in range(5)],
        "random-large": [random_pair(rng) for _ in range(300)],
        "short-hypotheses": [(" ".join(r.split()[:4]), r) for r in
                             (" ".join(rng.choice(WORDS) for _ in range(12)) for _ in range(20))],
        "no-4-gram-match": [("a b c d", "a b d c"), ("x a y b", "a x b y")],
    }
    for name, pairs in corpora.items():
        hypotheses, references = [h for h, _ in pairs], [r for _, r in pairs]
        result = score_with_attnlab(tool, work, name, hypotheses, references)
        assert all(len(t) >= 4 for t in result["hyp_tokens"]), name  # see the docstring
        theirs = nltk_bleu(result["hyp_tokens"], result["ref_tokens"])
        ok = math.isclose(result["bleu"], theirs, rel_tol=1e-9, abs_tol=1e-9)
        failures += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {name:18s} attnlab {result['bleu']:.10f}  NLTK {theirs:.10f}")

    # 3. The documented difference: hypotheses shorter than 4 tokens. sacreBLEU (and attnlab) find no
    #    4-grams and give 0; NLTK counts one 4-gram per sentence and, smoothed, gives a positive score.
    result = score_with_attnlab(tool, work, "too-short", ["a b c", "d e"], ["a b c", "d e"])
    theirs = nltk_bleu(result["hyp_tokens"], result["ref_tokens"])
    ok = result["bleu"] == 0 and theirs > 0
    failures += not ok
    print(f"{'ok  ' if ok else 'FAIL'} too-short (differs by design) attnlab {result['bleu']:.4f}  NLTK {theirs:.4f}")

    print(f"check_bleu_nltk: {failures} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
