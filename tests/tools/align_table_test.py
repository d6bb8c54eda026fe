#!/usr/bin/python3
"""align_table_test.py — tools/align_table.py on made-up scores: Kendall's τ-b against hand-computed values, and
the page's cells against means and standard deviations worked out by hand.

    tests/tools/align_table_test.py SOURCE_DIR WORK_DIR

Facts checked: τ is 1 for the same order, −1 for the reverse, (C − D)/n0 for one swap, corrected for ties, and
undefined when one side ties everything; the stability of a kind is τ averaged over its pairs of seeds, over the
methods both seeds scored. The page picks each seed's best head and the LAST layer's head mean, writes mean ± sample
sd, leaves a method no seed scored as "–", orders the kinds as the study did, names the kinds the config refused and
the runs that failed, and the picture is well-formed SVG. Files that are not the study's are refused by name.
"""
import contextlib
import importlib.util
import io
import json
import math
import shutil
import sys
import xml.dom.minidom
from pathlib import Path

source_dir, work = Path(sys.argv[1]), Path(sys.argv[2])
spec = importlib.util.spec_from_file_location("align_table", source_dir / "tools" / "align_table.py")
align_table = importlib.util.module_from_spec(spec)
spec.loader.exec_module(align_table)
failures = []


def check(fact, condition, detail=""):
    if not condition:
        failures.append(f"{fact}{': ' + detail if detail else ''}")


def close(a, b):
    return a is not None and math.isclose(a, b, abs_tol=1e-12)


# ---- Kendall's τ-b ---------------------------------------------------------------------------------------------
tau = align_table.kendall_tau
check("the same order gives τ = 1", close(tau([0.1, 0.2, 0.3, 0.4], [1, 2, 3, 4]), 1.0))
check("the reverse order gives τ = −1", close(tau([0.1, 0.2, 0.3, 0.4], [4, 3, 2, 1]), -1.0))
# One swap among 4: C = 5, D = 1 of n0 = 6 pairs.
check("one swapped pair of four gives (5 − 1) / 6", close(tau([1, 2, 3, 4], [1, 3, 2, 4]), 4 / 6),
      str(tau([1, 2, 3, 4], [1, 3, 2, 4])))
# x ties one pair (items 2 and 3): C = 5, D = 0, τ-b = 5 / √((6 − 1)(6 − 0)).
check("a tie is corrected for (τ-b)", close(tau([1, 2, 2, 3], [1, 2, 3, 4]), 5 / math.sqrt(30)),
      str(tau([1, 2, 2, 3], [1, 2, 3, 4])))
check("a side that ties everything has no τ", tau([0.5, 0.5, 0.5], [1, 2, 3]) is None)
check("one item has no τ", tau([0.5], [1]) is None)

# Seeds 1 and 2 swap b and c (τ = 1/3); seed 3 scored only a and b, in seed 1's and seed 2's order (τ = 1 each).
stability, pairs = align_table.seed_stability({1: {"a": 0.1, "b": 0.2, "c": 0.3}, 2: {"a": 0.1, "b": 0.3, "c": 0.2},
                                               3: {"a": 0.1, "b": 0.2}})
check("stability is τ averaged over the pairs of seeds, on the methods both scored", close(stability, (1 / 3 + 2) / 3)
      and pairs == 3, f"{stability}, {pairs} pairs")
check("one seed has no stability", align_table.seed_stability({1: {"a": 0.1, "b": 0.2}}) == (None, 0))


# ---- The page, from a made-up study ----------------------------------------------------------------------------
def method(name, family, aer, aopc, layer=None, head=None):
    return {"name": name, "family": family, "layer": layer, "head": head, "aer": aer, "aopc": aopc}


def report(heads, means, rollout, gradient_aopc, random_aopc=0.5, own=50, step=300):
    """align's JSON with two layers of two heads: heads {(layer, head): AER}, means {layer: AER}."""
    methods = [method(f"cross.l{l}.h{h}", "head", aer, 1.0, l, h) for (l, h), aer in heads.items()]
    methods += [method(f"cross.l{l}.mean", "head_mean", aer, 2.0 + l, l) for l, aer in means.items()]
    methods += [method("rollout", "rollout", rollout, 1.5),
                method("gradient_x_input", "gradient_x_input", 0.6, gradient_aopc)]
    return {"methods": methods, "random": {"aopc": random_aopc}, "sentences": 100, "own_sentences": own,
            "gradient_sentences": 20, "integration_steps": 16, "deletions": 3, "step": step, "loss": 0.5,
            "notes": ["cross-attention is linear: a note"] if own == 40 else [], "best_head": None}


study = work / "study"
shutil.rmtree(work, ignore_errors=True)
(study / "align").mkdir(parents=True)
(study / "made-by.txt").write_text("300 steps each\nMade by `tools/align_study.sh …` on a CPU, 2 cores.\n"
                                   "kinds: scaled_dot additive external\n")
runs = {
    # best heads 0.2 and 0.35; last-layer means 0.1 and 0.3 (the first layer's 0.9 must not be picked); both seeds
    # rank mean < best head < rollout < gradient
    "scaled_dot-1": report({(0, 0): 0.5, (1, 1): 0.2}, {0: 0.9, 1: 0.1}, 0.4, 0.8),
    "scaled_dot-2": report({(0, 0): 0.4, (1, 1): 0.35}, {0: 0.9, 1: 0.3}, 0.5, None, random_aopc=0.7),
    # the two seeds rank best head < mean < rollout < gradient, then the reverse
    "additive-1": report({(0, 0): 0.1}, {1: 0.2}, 0.3, 0.5, own=40),
    "additive-2": report({(0, 0): 0.9}, {1: 0.8}, 0.7, 0.5, own=40),
}
for name, content in runs.items():
    (study / "align" / f"{name}.json").write_text(json.dumps(content))
(study / "align" / "external.refused").write_text("external attention cannot be cross-attention\n")
(study / "align" / "additive-3.failed").write_text("training failed; see logs/additive-3.train.log\n")
(study / "align" / "scaled_dot-1.align.log").write_text("not a result: ignored\n")

page = align_table.page(study)


def row(section, kind):
    """{column: cell} of KIND's row in the table under the heading that starts with SECTION."""
    lines = page[page.index("## " + section):].splitlines()
    header = [c.strip() for c in next(l for l in lines if l.startswith("| kind")).strip("|").split("|")]
    found = next((l for l in lines if l.startswith(f"| {kind} |")), None)
    return dict(zip(header, [c.strip() for c in found.strip("|").split("|")])) if found else {}


aer, aer_additive = row("AER", "scaled_dot"), row("AER", "additive")
check("the best head is each seed's lowest-AER head, mean ± sample sd", aer.get("best head") == "0.275 ± 0.106",
      str(aer))
check("the head mean is the last layer's", aer.get("head mean, last layer") == "0.200 ± 0.141", str(aer))
check("every family of align's JSON is a column", list(aer)[2:7] ==
      ["best head", "head mean, last layer", "rollout", "gradient × input", "lowest mean AER"], str(list(aer)))
check("the lowest mean AER names its column", aer.get("lowest mean AER") == "head mean, last layer (0.200)", str(aer))
check("seeds that rank the methods alike have τ = 1", aer.get("τ across seeds") == "1.00 (1 pair)", str(aer))
check("seeds that rank them in reverse have τ = −1", aer_additive.get("τ across seeds") == "-1.00 (1 pair)",
      str(aer_additive))
check("the seeds are counted", aer.get("seeds") == "2" and aer_additive.get("seeds") == "2")
aopc = row("AOPC", "scaled_dot")
check("an AOPC one seed lacks is the other seed's alone", aopc.get("gradient × input") == "0.80", str(aopc))
check("the random ranking's AOPC is a column", aopc.get("random ranking") == "0.60 ± 0.14", str(aopc))
models = row("The models", "additive")
check("the models' table: steps, loss, exact matches", models.get("step of the best checkpoint") == "300, 300" and
      models.get("teacher-forced loss (nats/token)") == "0.500 ± 0.000" and
      models.get("translated exactly") == "40.0 ± 0.0 %", str(models))
check("the kinds are in the study's order", page.index("| scaled_dot |") < page.index("| additive |"))
check("the made-by line is on the page", "300 steps each. Made by `tools/align_study.sh …` on a CPU, 2 cores." in page)
check("the scoring subset is said", "first 100 test pairs" in page and "first 20 of them" in page)
check("a refused kind is named with attnlab's reason",
      "**external**: not scored: the config refuses it as cross-attention — external attention cannot" in page)
check("a failed run is named with its log", "seed 3: no scores — training failed; see logs/additive-3.train.log" in page)
check("each seed's best head is named", "best head cross.l1.h1 (seed 1), cross.l1.h1 (seed 2)" in page)
check("align's notes for a kind are kept once", page.count("cross-attention is linear: a note") == 1)
check("a tiny negative number is written 0.00", align_table.fixed(-0.0004, 2) == "0.00" and
      align_table.fixed(-0.05, 2) == "-0.05")

svg = align_table.picture(study)
try:
    cells = len(xml.dom.minidom.parseString(svg).getElementsByTagName("rect")) - 1
    # AER: 2 kinds × 4 columns; AOPC: the same, less scaled_dot's and additive's … none missing: 8 + 8.
    check("the picture has a cell per kind and column in each map", cells == 16, f"{cells} cells")
except Exception as e:   # noqa: BLE001 — any parse error is the failure
    failures.append(f"the picture is not well-formed SVG: {e}")

# ---- Files that are not the study's ----------------------------------------------------------------------------
def refused(fact, folder, expected):
    try:
        align_table.page(folder)
        failures.append(f"{fact}: accepted")
    except align_table.StudyError as e:
        check(fact, expected in str(e), str(e))


refused("a folder the study did not make", work / "nothing", "was not made by tools/align_study.sh")
(study / "align" / "hard-1.json").write_text('{"step": 3}')
refused("a JSON without methods, named", study, "hard-1.json: no \"methods\" list")
(study / "align" / "hard-1.json").write_text("{not json")
refused("a file that is not JSON, named", study, "hard-1.json: not JSON")
for path in (study / "align").iterdir():
    path.unlink()
refused("an empty study", study, "holds no KIND-SEED.json")
said = io.StringIO()
with contextlib.redirect_stderr(said):
    status = align_table.main(["align_table.py", str(study)])
check("the command line says what went wrong and exits 2", status == 2 and said.getvalue().startswith(
      "align_table.py: ") and "nothing to tabulate" in said.getvalue(), said.getvalue())

if failures:
    print("\n".join("FAIL: " + f for f in failures))
    sys.exit(1)
print("align_table.py: OK")
