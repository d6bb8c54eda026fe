#!/usr/bin/python3
"""speedrun_record.py — the speedrun board: one row per scored speedrun, and whether it is a record.

    tools/speedrun_record.py record --summary FILE --board BOARD [--target BLEU] [--machine TEXT] [--commit TEXT]
    tools/speedrun_record.py ttest NEW_MEAN NEW_SD NEW_N OLD_MEAN OLD_SD OLD_N
    tools/speedrun_record.py --self-test

`record` reads a speedrun.md that tools/speedrun.sh wrote (its seeds' test BLEU column, the "test: BLEU mean ± sd"
line, the signature, the "made by" and "machine:" lines), copies it next to the board as
speedrun/DATE-CONFIG.md, and appends one row to BOARD (made with its rules at the head if it does not exist; its
folder must). A summary written before speedrun.sh had a "machine:" line needs --machine (the vector width, the
threads) and takes as commit the one that added the file to git, unless --commit says otherwise.
tools/speedrun.sh --record and --from-summary call it; tests/tools/speedrun_record_test.sh checks it.

The comparison is Welch's t-test on the rows' mean ± sample sd over n seeds, one-sided (is the new mean higher?):

    t  = (m_new − m_old) / √(s_new²/n_new + s_old²/n_old)
    ν  = (s_new²/n_new + s_old²/n_old)² / ((s_new²/n_new)²/(n_new − 1) + (s_old²/n_old)²/(n_old − 1))
    p  = P(T_ν ≥ t) = ½ · I_{ν/(ν+t²)}(ν/2, ½)  for t ≥ 0,  and 1 − ½ · I_{ν/(ν+t²)}(ν/2, ½)  for t < 0

I_x(a, b) is the regularized incomplete beta function, written out below (a continued fraction, Numerical
Recipes §6.4), so the board needs plain python3 and no scipy.
"""
import argparse
import math
import re
import shutil
import subprocess
import sys
from pathlib import Path

RECORD_P = 0.01       # a record beats the previous record with p below this
RECORD_SEEDS = 3      # and is the mean of at least this many seeds
COLUMNS = ["date", "config", "minutes", "checkpoint", "target", "test BLEU (mean ± sd, n)", "seeds' test BLEU",
           "signature", "machine", "commit", "against", "t, ν, p (one-sided)", "verdict", "run"]


class RecordError(Exception):
    """One message for a person: what was wrong, where, and how to fix it."""


# ---- Student's t distribution, written out ------------------------------------------------------------------

def incomplete_beta_fraction(a, b, x):
    """The continued fraction of I_x(a, b) (modified Lentz's method), converging for x < (a + 1)/(a + b + 2)."""
    tiny, qab, qap, qam = 1e-300, a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 300):
        m2 = 2 * m
        for numerator in (m * (b - m) * x / ((qam + m2) * (a + m2)),             # the even step d_2m
                          -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))):   # the odd step d_2m+1
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + numerator / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < 1e-15:
            break
    return h


def regularized_incomplete_beta(a, b, x):
    """I_x(a, b) = B(x; a, b) / B(a, b), for 0 ≤ x ≤ 1."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = (math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * incomplete_beta_fraction(a, b, x) / a
    return 1.0 - math.exp(log_front) * incomplete_beta_fraction(b, a, 1.0 - x) / b   # I_x(a,b) = 1 − I_1−x(b,a)


def student_t_upper_tail(t, nu):
    """P(T_ν ≥ t): the one-sided p of a t statistic with ν degrees of freedom (ν need not be whole)."""
    half_both_tails = 0.5 * regularized_incomplete_beta(nu / 2.0, 0.5, nu / (nu + t * t))
    return half_both_tails if t >= 0 else 1.0 - half_both_tails


def welch_t_test(new, old):
    """(t, ν, p): Welch's one-sided test that new's mean is higher than old's; each a (mean, sd, n)."""
    (m_new, s_new, n_new), (m_old, s_old, n_old) = new, old
    if n_new < 2 or n_old < 2:
        raise RecordError(f"a t-test needs at least 2 seeds on each side, got {n_new} (new) and {n_old} (old): "
                          "one seed has no spread to compare against")
    v_new, v_old = s_new * s_new / n_new, s_old * s_old / n_old   # each mean's squared standard error
    if v_new + v_old == 0.0:
        raise RecordError("a t-test needs a spread: both rows have a standard deviation of 0")
    t = (m_new - m_old) / math.sqrt(v_new + v_old)
    nu = (v_new + v_old) ** 2 / (v_new * v_new / (n_new - 1) + v_old * v_old / (n_old - 1))
    return t, nu, student_t_upper_tail(t, nu)


def self_test():
    """Known values: printed t tables (one-sided 0.05 and 0.01 columns) and closed forms (ν = 1, 2, 4)."""
    known = [(2.0, 4, 0.0581),        # ν = 4: 1 − (½ + ⅜·(t/√(1+t²/4))·(1 − t²/(12(1+t²/4))))
             (1.0, 1, 0.25),          # ν = 1 is Cauchy: ½ − atan(t)/π
             (2.0, 2, 0.0918),        # ν = 2: ½ − t/(2√(2+t²))
             (0.0, 7, 0.5), (-2.0, 4, 0.9419),
             (2.132, 4, 0.05), (3.747, 4, 0.01), (2.764, 10, 0.01), (1.812, 10, 0.05), (2.457, 30, 0.01),
             (2.326, 1e7, 0.01)]      # ν → ∞ is the normal distribution
    for t, nu, p in known:
        got = student_t_upper_tail(t, nu)
        if abs(got - p) > 1.5e-4:
            raise RecordError(f"self-test: P(T_{nu} ≥ {t}) = {got:.6f}, expected {p}")
    t, nu, p = welch_t_test((31.0, 0.1, 3), (30.0, 0.1, 3))   # equal spreads and sizes: ν = 2(n − 1) = 4
    if abs(t - 12.2474) > 1e-3 or abs(nu - 4.0) > 1e-9 or not 1e-4 < p < 2e-4:
        raise RecordError(f"self-test: Welch on 31.0 ± 0.1 vs 30.0 ± 0.1 (n 3): t {t}, ν {nu}, p {p}")
    print(f"speedrun_record.py self-test: {len(known)} t-tail values and one Welch test agree")


# ---- the summary (a speedrun.md) ----------------------------------------------------------------------------

def read_summary(path):
    """The fields of a speedrun.md that make a row; a clear error naming what is missing."""
    if not path.is_file():
        raise RecordError(f"no summary file '{path}' (a speedrun.md that tools/speedrun.sh wrote)")
    text = path.read_text(encoding="utf-8")

    def find(pattern, what):
        match = re.search(pattern, text, re.M)
        if not match:
            raise RecordError(f"{path}: no {what} (is it a speedrun.md that tools/speedrun.sh wrote?)")
        return match

    # The checkpoint, then the decoding (since 2026-12-01 always; before, only a beam given by --beam).
    title = find(r"^# speedrun: (.+), ([0-9.]+) minutes a seed, "
                 r"checkpoint (\w+(?:, beam \d+(?:, α [0-9.]+)?(?:, no repeated \d+-grams)?)?)$",
                 "'# speedrun:' title line")
    made = find(r"^made by: .* on (\d{4}-\d\d-\d\d) \d\d:\d\d, (.+)$", "'made by:' line with a date")
    mean = find(r"^test: BLEU ([0-9.]+) ± ([0-9.]+) .*over (\d+) seeds", "'test: BLEU mean ± sd' line")
    signature = find(r"^BLEU signature: (\S+)$", "'BLEU signature:' line").group(1)
    header = find(r"^\| seed \| steps \|(.*)$", "table of seeds")
    cells = [c.strip() for c in header.group(1).split("|")]
    if "test BLEU" not in cells:
        raise RecordError(f"{path}: the table of seeds has no 'test BLEU' column")
    column = 2 + cells.index("test BLEU")
    seeds = [(row[0], row[column]) for row in
             ([c.strip() for c in line.strip().strip("|").split("|")] for line in text.splitlines()
              if re.match(r"^\| \d+ \|", line))]
    machine = re.search(r"^machine: (.+)$", text, re.M)
    commit = re.search(r"^commit: (\S+)", text, re.M)
    return {"config": title.group(1), "minutes": title.group(2), "checkpoint": title.group(3),
            "date": made.group(1), "cpu_and_cores": made.group(2), "mean": float(mean.group(1)),
            "sd": float(mean.group(2)), "n": int(mean.group(3)), "signature": signature, "seeds": seeds,
            "machine": machine.group(1) if machine else None, "commit": commit.group(1) if commit else None}


def commit_that_added(path):
    """The short hash of the commit that added PATH to git (for summaries written before the commit line)."""
    try:
        out = subprocess.run(["git", "log", "--diff-filter=A", "--format=%h", "--", path.name], cwd=path.parent,
                             capture_output=True, text=True, check=True).stdout.split()
    except (OSError, subprocess.CalledProcessError):
        out = []
    if not out:
        raise RecordError(f"{path}: no 'commit:' line and no git commit added the file: give --commit HASH")
    return f"{out[-1]} (the commit that added the summary)"


# ---- the board ----------------------------------------------------------------------------------------------

def board_head():
    return f"""# The speedrun board

One row per speedrun that `tools/speedrun.sh --record` scored (docs/guide/training.md, "Keeping score").
The rules, as the nanoGPT speedrun keeps them:
- **Target**: test BLEU ≥ the row's target (for `configs/multi30k.yaml`: test2016 BLEU ≥ 39.8), the mean
  of at least {RECORD_SEEDS} seeds, each trained for the row's minutes (wall clock), scored on the checkpoint
  the row names (`average`: the mean of the last checkpoints) decoded as the row says (`beam 4, α 2`: beam search
  with GNMT's length penalty α; `beam 1`: greedy), with sacreBLEU's defaults on lower-cased text (the signature
  says `case:lc`).
- **Record**: a row is a record when its mean reaches the target and it beats the newest earlier record of the
  same config and target by Welch's t-test, one-sided (new mean > old), p < {RECORD_P}, in no more minutes (the
  first row to reach the target is a record). t, ν and p are computed from the two rows' mean ± sd and n
  (`tools/speedrun_record.py ttest`). Before the first record a row is compared with the previous row, to inform.
- Every attempt gets a row; one that is not a record says why. The run column links the run's own table.

| {" | ".join(COLUMNS)} |
|{"---|" * len(COLUMNS)}
"""


def split_row(line):
    """A Markdown table row's cells; '\\|' inside a cell (the signature) is not a separator."""
    return [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]


def read_board(board):
    """The board's rows as dicts keyed by COLUMNS (the board is created by write_row when missing)."""
    if not board.exists() or board.stat().st_size == 0:
        return []
    lines = board.read_text(encoding="utf-8").splitlines()
    if f"| {' | '.join(COLUMNS)} |" not in lines:
        raise RecordError(f"'{board}' is not a speedrun board (no '| date | config | …' header): give another BOARD")
    rows = [split_row(line) for line in lines if line.startswith("| ") and not line.startswith("| date |")]
    for cells in rows:
        if len(cells) != len(COLUMNS):
            raise RecordError(f"{board}: a row has {len(cells)} cells, expected {len(COLUMNS)}: {cells}")
    return [dict(zip(COLUMNS, cells)) for cells in rows]


def mean_sd_n(cell):
    """(mean, sd, n) from a cell such as '39.77 ± 0.07 (3)'."""
    m = re.match(r"^([0-9.]+) ± ([0-9.]+) \((\d+)\)$", cell)
    if not m:
        raise RecordError(f"a board row's BLEU cell '{cell}' is not 'mean ± sd (n)'")
    return float(m.group(1)), float(m.group(2)), int(m.group(3))


def compare(row, rows, target_cell):
    """(the row compared with, 't, ν, p' cell, p or None, why there is no test): the newest earlier record of the
    same config and target, else the newest earlier row of them."""
    same = [r for r in rows if r["config"] == row["config"] and r["target"] == target_cell]
    records = [r for r in same if r["verdict"] == "record"]
    previous = records[-1] if records else (same[-1] if same else None)
    if previous is None:
        return None, "—", None, "no earlier row"
    new, old = mean_sd_n(row["test BLEU (mean ± sd, n)"]), mean_sd_n(previous["test BLEU (mean ± sd, n)"])
    if new[2] < 2 or old[2] < 2:
        why = f"{min(new[2], old[2])} seed in {'this' if new[2] < 2 else 'that'} row"
    elif new[1] == 0.0 and old[1] == 0.0:
        why = "both rows have sd 0"
    else:
        t, nu, p = welch_t_test(new, old)
        return previous, f"t {t:.2f}, ν {nu:.1f}, p {p:.2g}", p, None
    return previous, f"no test: {why}", None, why


def verdict(row, previous, p, why_no_test, target):
    """'record', or 'not a record: ' and every reason."""
    mean, _, n = mean_sd_n(row["test BLEU (mean ± sd, n)"])
    reasons = []
    if n < RECORD_SEEDS:
        reasons.append(f"{n} seed{'s' if n != 1 else ''} (a record needs {RECORD_SEEDS})")
    if mean < target:
        reasons.append(f"mean {mean:.2f} < target {target:.2f}")
    if previous is not None and previous["verdict"] == "record":
        if p is None:
            reasons.append(f"no t-test against the record: {why_no_test}")
        elif p >= RECORD_P:
            reasons.append(f"p {p:.2g} ≥ {RECORD_P} against the record")
        if float(row["minutes"]) > float(previous["minutes"]):
            reasons.append(f"{row['minutes']} minutes > the record's {previous['minutes']}")
    return "record" if not reasons else "not a record: " + "; ".join(reasons)


def copy_summary(summary, board, fields):
    """Copy the run's speedrun.md to BOARD's folder/speedrun/DATE-CONFIG[-k].md; its path relative to the board.
    A summary already in the board's folder (a result page recorded with --from-summary) is linked where it is."""
    if summary.resolve().is_relative_to(board.parent.resolve()):
        return summary.resolve().relative_to(board.parent.resolve()).as_posix()
    folder = board.parent / "speedrun"
    folder.mkdir(exist_ok=True)
    stem = f"{fields['date']}-{Path(fields['config']).stem}"
    target, k = folder / f"{stem}.md", 1
    while target.exists():
        k += 1
        target = folder / f"{stem}-{k}.md"
    shutil.copyfile(summary, target)
    return target.relative_to(board.parent).as_posix()


def record(summary, board, target, machine=None, commit=None):
    """Append the summary's row to the board (made with its head when new); print the row."""
    if not board.parent.is_dir():
        raise RecordError(f"no folder '{board.parent}' for the board '{board}' (make it, or give another BOARD)")
    fields = read_summary(summary)
    if fields["machine"] and machine:
        raise RecordError(f"{summary} has a 'machine:' line: --machine is only for summaries without one")
    if not fields["machine"] and not machine:
        raise RecordError(f"{summary} has no 'machine:' line (written before speedrun.sh had one): give --machine "
                          "TEXT with the vector width and threads, e.g. --machine 'AVX-512, 2 threads'")
    rows = read_board(board)
    target_cell = f"≥ {target:.2f}"
    row = {"date": fields["date"], "config": fields["config"], "minutes": fields["minutes"],
           "checkpoint": fields["checkpoint"], "target": target_cell,
           "test BLEU (mean ± sd, n)": f"{fields['mean']:.2f} ± {fields['sd']:.2f} ({fields['n']})",
           "seeds' test BLEU": ", ".join(f"{seed}: {bleu}" for seed, bleu in fields["seeds"]),
           "signature": fields["signature"],
           "machine": fields["machine"] or f"{fields['cpu_and_cores']}; {machine}",
           "commit": commit or fields["commit"] or commit_that_added(summary)}
    previous, row["t, ν, p (one-sided)"], p, why_no_test = compare(row, rows, target_cell)
    row["against"] = previous["run"].split("](")[0].lstrip("[") if previous else "—"
    row["verdict"] = verdict(row, previous, p, why_no_test, target)
    name = copy_summary(summary, board, fields)
    row["run"] = f"[{Path(name).stem}]({name})"
    line = "| " + " | ".join(row[c].replace("|", "\\|") for c in COLUMNS) + " |\n"
    with board.open("a", encoding="utf-8") as out:
        if not rows and board.stat().st_size == 0:
            out.write(board_head())
        out.write(line)
    print(f"{board}: {line}", end="")


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--self-test", action="store_true", help="check the t distribution against known values")
    sub = parser.add_subparsers(dest="command")
    rec = sub.add_parser("record", help="append a speedrun.md's row to the board")
    rec.add_argument("--summary", type=Path, required=True, help="the speedrun.md to record")
    rec.add_argument("--board", type=Path, required=True, help="the board, e.g. docs/results/speedrun.md")
    rec.add_argument("--target", type=float, default=39.8, help="the target test BLEU (default 39.8)")
    rec.add_argument("--machine", help="for a summary without a 'machine:' line: vector width and threads")
    rec.add_argument("--commit", help="the commit, when the summary has no 'commit:' line")
    tt = sub.add_parser("ttest", help="Welch's one-sided t-test: is the new mean higher?")
    for name in ("new_mean", "new_sd", "new_n", "old_mean", "old_sd", "old_n"):
        tt.add_argument(name, type=int if name.endswith("_n") else float)
    args = parser.parse_args(argv)
    if args.self_test:
        self_test()
    elif args.command == "record":
        record(args.summary, args.board, args.target, args.machine, args.commit)
    elif args.command == "ttest":
        t, nu, p = welch_t_test((args.new_mean, args.new_sd, args.new_n), (args.old_mean, args.old_sd, args.old_n))
        print(f"t {t:.4f}  df {nu:.4f}  p {p:.6f}  (one-sided: new mean > old)")
    else:
        parser.error("give record, ttest or --self-test")


if __name__ == "__main__":
    try:
        main(sys.argv[1:])
    except RecordError as error:
        print(f"speedrun_record.py: {error}", file=sys.stderr)
        sys.exit(2)
