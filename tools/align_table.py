#!/usr/bin/python3
"""align_table.py — the results page of tools/align_study.sh: every attention kind × every alignment method.

    tools/align_table.py DIR               writes DIR/alignment.md and DIR/alignment.svg, prints the page's path
    tools/align_table.py --summary FILE    one line about one run's scores (FILE: align's JSON), for progress

DIR is a folder tools/align_study.sh made:
    DIR/made-by.txt            line 1 the budget, line 2 the "Made by `command` on machine (version, date)." line,
                               line 3 "kinds: K1 K2 …" (the order of the rows)
    DIR/align/KIND-SEED.json   `attnlab align --run RUN --split test --json` of the run trained with that
                               cross-attention kind and seed
    DIR/align/KIND.refused     attnlab's message when the config refused KIND as cross-attention
    DIR/align/KIND-SEED.failed why that run has no scores (training or scoring failed)

Each run's methods become the page's columns, one number per run and family of `align`'s JSON:
    best head                  the cross-attention head with the lowest AER in that run (chosen on the scored
                               pairs themselves, so it flatters the heads a little)
    head mean, last layer      the mean of the last decoder layer's heads (and so for every family with a layer)
    rollout, ALTI+, …          a family with one method: that method
Then per kind, over the seeds: AER and AOPC as mean ± sample standard deviation, and the stability of the
methods' ranking: Kendall's τ-b between two seeds' AERs of the methods both scored, averaged over every pair of
seeds. τ-b = (C − D) / √((n0 − n_x)(n0 − n_y)): C and D the pairs of methods the two seeds put in the same and
in the opposite order, n0 = n(n − 1)/2 the pairs, n_x and n_y the pairs each seed ties (Kendall 1945).
Plain python3, no packages. tests/tools/align_table_test.py checks it on made-up scores.
"""
import collections
import html
import itertools
import json
import math
import re
import statistics
import sys
from pathlib import Path

# Column names for the method families `attnlab align --json` writes (src/inspect/align/alignment_methods.cpp);
# a family not listed here keeps its own name.
FAMILY_LABELS = {"head": "best head", "head_mean": "head mean, last layer", "value_norms": "value norms, last layer",
                 "rollout": "rollout", "alti_plus": "ALTI+", "gradient_x_input": "gradient × input",
                 "integrated_gradients": "integrated gradients"}
RUN_FILE = re.compile(r"^(?P<kind>[A-Za-z0-9_]+)-(?P<seed>[0-9]+)\.(?P<what>json|failed)$")


Run = collections.namedtuple("Run", "report columns")   # align's JSON of one run, and columns_of() it


class StudyError(Exception):
    """A folder or file that is not what tools/align_study.sh writes: the message names it."""


# ---- Statistics ------------------------------------------------------------------------------------------------

def sign(value):
    return (value > 0) - (value < 0)


def kendall_tau(x, y):
    """Kendall's τ-b of two scorings x, y of the same items; None if either ties every pair (or n < 2)."""
    if len(x) != len(y):
        raise ValueError(f"kendall_tau: {len(x)} scores against {len(y)}")
    concordant = discordant = tied_x = tied_y = 0
    for i, j in itertools.combinations(range(len(x)), 2):
        order_x, order_y = sign(x[i] - x[j]), sign(y[i] - y[j])
        tied_x += order_x == 0
        tied_y += order_y == 0
        concordant += order_x * order_y > 0
        discordant += order_x * order_y < 0
    pairs = len(x) * (len(x) - 1) // 2
    denominator = math.sqrt((pairs - tied_x) * (pairs - tied_y))
    return None if denominator == 0 else (concordant - discordant) / denominator


def seed_stability(aer_by_seed):
    """{seed: {column: AER}} → (the mean of τ over every pair of seeds, the number of pairs); (None, 0) if none."""
    taus = []
    for a, b in itertools.combinations(sorted(aer_by_seed), 2):
        shared = [c for c in aer_by_seed[a] if c in aer_by_seed[b]]
        tau = kendall_tau([aer_by_seed[a][c] for c in shared], [aer_by_seed[b][c] for c in shared])
        if tau is not None:
            taus.append(tau)
    return (statistics.mean(taus), len(taus)) if taus else (None, 0)


def fixed(value, digits):
    """The value with that many decimals, and "0.00" rather than "-0.00" for a tiny negative one."""
    text = f"{value:.{digits}f}"
    return text[1:] if text.startswith("-") and float(text) == 0 else text


def mean_sd(values, digits):
    """"0.123 ± 0.004" (sample standard deviation), "0.123" for one value, "–" for none."""
    if not values:
        return "–"
    if len(values) == 1:
        return fixed(values[0], digits)
    return f"{fixed(statistics.mean(values), digits)} ± {fixed(statistics.stdev(values), digits)}"


# ---- One run: align's JSON → one method per column -----------------------------------------------------------

def columns_of(report, where):
    """{column: the method of align's JSON it shows} for one run, in the JSON's order of families."""
    if not isinstance(report.get("methods"), list) or not report["methods"]:
        raise StudyError(f"{where}: no \"methods\" list; is it the output of `attnlab align --json`?")
    families = {}
    for method in report["methods"]:
        if "family" not in method or "aer" not in method:
            raise StudyError(f"{where}: a method without \"family\" or \"aer\": {json.dumps(method)[:120]}")
        families.setdefault(method["family"], []).append(method)
    chosen = {}
    for family, methods in families.items():
        if family == "head":
            chosen[FAMILY_LABELS[family]] = min(methods, key=lambda m: m["aer"])
        elif any(m.get("layer") is not None for m in methods):
            chosen[FAMILY_LABELS.get(family, family)] = max(methods, key=lambda m: m.get("layer") or 0)
        else:
            chosen[FAMILY_LABELS.get(family, family)] = methods[0]   # rollout, ALTI+, …: one method each
    return chosen


# ---- The study folder ----------------------------------------------------------------------------------------

def read_made_by(folder):
    """(budget, made-by line, [kinds in order]) from DIR/made-by.txt."""
    path = folder / "made-by.txt"
    if not path.is_file():
        raise StudyError(f"no {path}: {folder} was not made by tools/align_study.sh")
    lines = path.read_text(encoding="utf-8").splitlines() + ["", "", ""]
    kinds = lines[2][len("kinds:"):].split() if lines[2].startswith("kinds:") else []
    return lines[0], lines[1], kinds


def read_runs(folder):
    """{kind: {seed: Run}}, {kind: refusal}, {(kind, seed): why it failed} from DIR/align."""
    align = folder / "align"
    if not align.is_dir():
        raise StudyError(f"no {align}: {folder} was not made by tools/align_study.sh")
    reports, refused, failed = {}, {}, {}
    for path in sorted(align.iterdir()):
        if path.suffix == ".refused":
            refused[path.stem] = path.read_text(encoding="utf-8").strip()
            continue
        name = RUN_FILE.match(path.name)
        if name is None:
            continue   # a KIND-SEED.json.part being written, or anything else
        kind, seed = name["kind"], int(name["seed"])
        if name["what"] == "failed":
            failed[(kind, seed)] = path.read_text(encoding="utf-8").strip()
            continue
        try:
            report = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as e:
            raise StudyError(f"{path}: not JSON ({e}); run the study again for kind {kind}, seed {seed}") from None
        reports.setdefault(kind, {})[seed] = Run(report, columns_of(report, path))
    if not reports and not refused and not failed:
        raise StudyError(f"{align} holds no KIND-SEED.json: nothing to tabulate")
    return reports, refused, failed


def kind_order(kinds_in_made_by, *found):
    """The kinds of the study in its own order, then any other kind found, alphabetically."""
    seen = list(kinds_in_made_by)
    for kind in sorted(set().union(*found)):
        if kind not in seen:
            seen.append(kind)
    return [k for k in seen if any(k in f for f in found)]


def column_order(reports):
    """Every column any run has, in the order of first appearance."""
    order = []
    for runs in reports.values():
        for seed in sorted(runs):
            order += [column for column in runs[seed].columns if column not in order]
    return order


# ---- The page --------------------------------------------------------------------------------------------------

def values(runs, column, field):
    """The field (aer, aopc) of one column in every seed that has it."""
    found = [run.columns[column].get(field) for run in runs.values() if column in run.columns]
    return [v for v in found if v is not None]


def best_column(runs, columns):
    """'ALTI+ (0.038)': the column with the lowest mean AER over the seeds."""
    means = {c: statistics.mean(values(runs, c, "aer")) for c in columns if values(runs, c, "aer")}
    if not means:
        return "–"
    best = min(means, key=means.get)
    return f"{best} ({means[best]:.3f})"


def stability(runs):
    """'0.81 (3 pairs)': Kendall's τ between the seeds' AERs of the methods, averaged over the pairs of seeds."""
    tau, pairs = seed_stability({seed: {c: m["aer"] for c, m in run.columns.items()} for seed, run in runs.items()})
    return "–" if tau is None else f"{fixed(tau, 2)} ({pairs} pair{'s' if pairs > 1 else ''})"


def chance(runs):
    """The random ranking's AOPC, mean ± sd over the seeds."""
    return mean_sd([run.report["random"]["aopc"] for run in runs.values()
                    if (run.report.get("random") or {}).get("aopc") is not None], 2)


def score_table(kinds, reports, columns, field, digits, extra):
    """Kinds × columns, each cell the mean ± sd of FIELD (aer, aopc); then the columns {header: cell(runs)}."""
    lines = ["| kind | seeds | " + " | ".join(columns + list(extra)) + " |",
             "|---|---|" + "---|" * (len(columns) + len(extra))]
    for kind in kinds:
        runs = reports[kind]
        cells = [mean_sd(values(runs, c, field), digits) for c in columns] + [cell(runs) for cell in extra.values()]
        lines.append(f"| {kind} | {len(runs)} | " + " | ".join(cells) + " |")
    return lines


def models_table(kinds, reports):
    lines = ["| kind | seeds | step of the best checkpoint | teacher-forced loss (nats/token) | translated exactly |",
             "|---|---|---|---|---|"]
    for kind in kinds:
        runs = reports[kind]
        steps = ", ".join(str(runs[seed].report.get("step", "–")) for seed in sorted(runs))
        losses = [run.report["loss"] for run in runs.values() if run.report.get("loss") is not None]
        exact = [run.report["own_sentences"] / run.report["sentences"] for run in runs.values()
                 if run.report.get("sentences")]
        exact_text = mean_sd([100 * e for e in exact], 1) + " %" if exact else "–"
        lines.append(f"| {kind} | {len(runs)} | {steps} | {mean_sd(losses, 3)} | {exact_text} |")
    return lines


def spread(reports, field):
    """'200', or '150–200' when the runs differ, of one number every report has."""
    found = sorted({run.report.get(field) for runs in reports.values() for run in runs.values()} - {None})
    if not found:
        return "?"
    return str(found[0]) if len(found) == 1 else f"{found[0]}–{found[-1]}"


def how_scored(reports):
    return (f"Scored on the first {spread(reports, 'sentences')} test pairs, teacher-forced on the reference; "
            f"gradient × input, integrated gradients ({spread(reports, 'integration_steps')} steps) and the "
            f"deletion test (k = 1 … {spread(reports, 'deletions')}, so AOPC) on the first "
            f"{spread(reports, 'gradient_sentences')} of them.")


def kind_notes(kinds, reports, refused, failed):
    """One line per kind: its best head in each seed, and the notes `attnlab align` printed for it."""
    lines = []
    for kind in kinds:
        runs = reports.get(kind, {})
        heads = [f"{runs[s].columns['best head']['name']} (seed {s})" for s in sorted(runs)
                 if "best head" in runs[s].columns]
        notes = list(dict.fromkeys(n for run in runs.values() for n in run.report.get("notes", [])))
        parts = ([f"best head {', '.join(heads)}"] if heads else []) + notes
        parts += [f"seed {seed}: no scores — {why}" for (k, seed), why in sorted(failed.items()) if k == kind]
        if kind in refused:
            parts.append(f"not scored: the config refuses it as cross-attention — {refused[kind]}")
        if parts:
            lines.append(f"- **{kind}**: " + "; ".join(parts) + ".")
    return lines


EXPLANATION = """\
Each run trains the config with `model.attention.cross` set to the kind (the encoder and decoder self-attention as
the config has them) and `train.seed` set to the seed, and `attnlab align --split test --json` scores its best
checkpoint (lowest validation loss): every method's map read as a hard alignment (each target word to its
highest-scoring source word) against the gold alignments the grammar wrote (docs/guide/alignment.md).

- **AER** (Och & Ney 2003): 1 − (|A ∩ S| + |A ∩ P|) / (|A| + |S|); 0 = every sure link found and none outside the
  possible ones. Lower = closer to the gold.
- **AOPC**: how far, in nats, log p(target word) falls on average as the method's top 1 … k source words are
  replaced by `<unk>`. Higher = the method points at what the model uses; the random ranking is chance.
- Cells are the mean ± the sample standard deviation over the seeds. **best head** is each seed's head with the
  lowest AER (picked on the scored pairs, so it flatters the heads a little; its AOPC is that head's); **head
  mean** and **value norms** are those of the last decoder layer.
- **τ across seeds**: Kendall's τ-b between two seeds' AERs of the methods both scored (their rankings), averaged
  over the pairs of seeds: 1 = every seed ranks the methods alike, 0 = unrelated, −1 = reversed."""


TITLE = "# Does attention explain? Every attention kind as cross-attention, against the gold alignments"


def page(folder):
    """The Markdown of DIR/alignment.md."""
    budget, made_by, kinds_in_order = read_made_by(folder)
    reports, refused, failed = read_runs(folder)
    kinds, columns = kind_order(kinds_in_order, reports), column_order(reports)
    lines = [TITLE, "", f"{budget}. {made_by}", ""]
    if reports:
        lines += [EXPLANATION, "", how_scored(reports)]
        lines += ["", "## AER (lower = closer to the gold)", ""]
        def lowest(runs):
            return best_column(runs, columns)
        lines += score_table(kinds, reports, columns, "aer", 3, {"lowest mean AER": lowest, "τ across seeds": stability})
        lines += ["", "## AOPC (nats; higher = more faithful to what the model uses)", ""]
        lines += score_table(kinds, reports, columns, "aopc", 2, {"random ranking": chance})
        lines += ["", "## The models", ""] + models_table(kinds, reports)
        lines += ["", "The picture: [alignment.svg](alignment.svg), the mean AER and AOPC of every kind and method."]
    else:
        lines += ["No run was scored: the notes below say why."]
    notes = kind_notes(kind_order(kinds_in_order, reports, refused, {k for k, _ in failed}), reports, refused, failed)
    if notes:
        lines += ["", "## How each kind was scored", ""] + notes
    return "\n".join(lines) + "\n"


# ---- The picture: two heat maps, kinds × methods, darker = worse ---------------------------------------------

CELL_WIDTH, CELL_HEIGHT, LABEL_WIDTH = 140, 26, 110


def heatmap(top, title, kinds, columns, means, badness, digits):
    """SVG elements of one heat map at y = top; means {(kind, column): value}; badness(value) in [0, 1]."""
    out = [f'<text x="10" y="{top + 16}" font-size="14">{html.escape(title)}</text>']
    for c, column in enumerate(columns):
        x = LABEL_WIDTH + c * CELL_WIDTH + CELL_WIDTH / 2
        out.append(f'<text x="{x:.0f}" y="{top + 40}" font-size="11" text-anchor="middle">{html.escape(column)}</text>')
    for r, kind in enumerate(kinds):
        y = top + 48 + r * CELL_HEIGHT
        out.append(f'<text x="{LABEL_WIDTH - 8}" y="{y + 17}" font-size="12" text-anchor="end">'
                   f'{html.escape(kind)}</text>')
        for c, column in enumerate(columns):
            if (kind, column) not in means:
                continue
            value, x = means[(kind, column)], LABEL_WIDTH + c * CELL_WIDTH
            t = min(1.0, max(0.0, badness(value)))
            out.append(f'<rect x="{x}" y="{y}" width="{CELL_WIDTH - 2}" height="{CELL_HEIGHT - 2}" '
                       f'fill="hsl(210, 60%, {92 - 62 * t:.0f}%)"/>')
            out.append(f'<text x="{x + CELL_WIDTH / 2 - 1:.0f}" y="{y + 17}" font-size="12" text-anchor="middle" '
                       f'fill="{"white" if t > 0.5 else "black"}">{fixed(value, digits)}</text>')
    return out


def picture(folder):
    """The SVG of DIR/alignment.svg: mean AER (darker = further from the gold), mean AOPC (darker = less faithful)."""
    reports, _, _ = read_runs(folder)
    kinds, columns = kind_order(read_made_by(folder)[2], reports), column_order(reports)
    means = {field: {(k, c): statistics.mean(values(reports[k], c, field))
                     for k in kinds for c in columns if values(reports[k], c, field)} for field in ("aer", "aopc")}
    top_aopc = max(means["aopc"].values(), default=1.0) or 1.0
    panel = 60 + CELL_HEIGHT * len(kinds)
    width, height = LABEL_WIDTH + CELL_WIDTH * len(columns) + 10, 2 * panel + 10
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif">',
           '<rect width="100%" height="100%" fill="white"/>']
    out += heatmap(0, "AER, mean over the seeds (darker = further from the gold)", kinds, columns, means["aer"],
                   lambda v: v, 3)
    out += heatmap(panel, "AOPC in nats, mean over the seeds (darker = less faithful)", kinds, columns,
                   means["aopc"], lambda v: 1 - v / top_aopc, 2)
    return "\n".join(out + ["</svg>"]) + "\n"


def summary(path):
    """'1000 pairs, best method alti_plus (AER 0.038), best head cross.l1.h3 (AER 0.041)' of one align JSON."""
    report = json.loads(Path(path).read_text(encoding="utf-8"))
    best = [f"{what} {report[key]['name']} (AER {report[key]['aer']:.3f})"
            for what, key in (("best method", "best_method"), ("best head", "best_head")) if report.get(key)]
    return ", ".join([f"{report.get('sentences', '?')} pairs"] + best)


def main(argv):
    if len(argv) == 3 and argv[1] == "--summary":
        print(summary(argv[2]))
        return 0
    if len(argv) != 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(argv) == 2 else 2
    folder = Path(argv[1])
    try:
        text = page(folder)
        svg = picture(folder) if read_runs(folder)[0] else None
    except StudyError as e:
        print(f"align_table.py: {e}", file=sys.stderr)
        return 2
    (folder / "alignment.md").write_text(text, encoding="utf-8")
    if svg:
        (folder / "alignment.svg").write_text(svg, encoding="utf-8")
    print(folder / "alignment.md")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
