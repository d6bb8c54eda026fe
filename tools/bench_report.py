#!/usr/bin/python3
"""bench_report.py — the table tools/bench.sh prints: medians over rounds, ratios, and the targets.

    /usr/bin/python3 tools/bench_report.py RESULTS.jsonl [--arch ARCH] [--cpu NAME] [--reference FILE [--record]]

Each input line is {"model": "base" | "small", "round": k, "result": <the JSON of attnlab bench or bench_torch.py>};
results whose "program" starts with "attnlab" are attnlab's, the others PyTorch's. Every figure is the median
over the rounds. Targets (a ratio is attnlab / PyTorch; issues #6, #13 and #19):
    base step time       ≤ 0.46 ×        small step time    ≤ 0.44 ×
    greedy sentences/s   ≥ 5 ×  (each model)
    batched greedy       ≥ 4 × attnlab's own one-sentence-at-a-time greedy (base)
    peak RSS             ≤ 0.5 ×  (each model, when its training steps end: "peak RSS during training")
    base model GFLOP/s   ≥ 50 % of the GEMM peak measured in the same run
For --arch x86-64-v3 (the AVX2 build; issue #34) the step targets are base ≤ 0.5 × and small ≤ 0.45 ×. And for
every width (issue #34), at the base model's shapes (src/lab/bench_gemm.h; torch.mm at the same products):
    the model's GEMM (model.gemm, auto)   ≥ 90 % of PyTorch's OpenBLAS GFLOP/s
    the packed GEMM                       ≥ 70 %
The guard: with --reference FILE (docs/results/bench_reference.json), the rows recorded for this CPU and width are
compared with this run, and the script exits 1, saying so, when a model's step time is worse than its row by more
than the noise measured (the spread of the rounds' step times, max − min over the median, this run's or the row's,
whichever is larger). --record writes this run's rows into FILE instead (for this CPU and width). And when another
width's row for this CPU has a model's step faster than this run's by more than the noise, it says so: that build
is the one to use on this machine.
"""
import argparse
import json
import statistics
import sys


def medians(runs):
    """The median of each numeric field over the runs (None when no run has it)."""
    keys = {k for r in runs for k, v in r.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
    out = {}
    for k in keys:
        values = [r[k] for r in runs if isinstance(r.get(k), (int, float))]
        out[k] = statistics.median(values) if values else None
    return out


def step_noise(runs):
    """The spread of the rounds' step times: (max − min) / median (0 for one round)."""
    steps = [r["step_ms"] for r in runs]
    return (max(steps) - min(steps)) / statistics.median(steps) if len(steps) > 1 else 0.0


# How a learner builds each width (CMakePresets.json; CMakeLists.txt's ATTNLAB_ARCH).
BUILD_COMMAND = {"native": "cmake --preset release", "x86-64-v3": "cmake --preset release-v3",
                 "other": "cmake --preset release -B build/release-{arch} -DATTNLAB_ARCH={arch}"}


def faster_build(model, runs, rows, args):
    """Says so when a build for another width ran this model's step faster on this CPU (its reference row) than this
    build did now, by more than the noise of both: the learner should use that build here."""
    if not runs:
        return
    now, noise = statistics.median(r["step_ms"] for r in runs), step_noise(runs)
    for row in rows:
        if row["cpu"] != args.cpu or row["arch"] == args.arch or row["model"] != model:
            continue
        if row["step_ms"] * (1 + max(noise, row["noise"])) < now:
            print(f"guard: another build is faster here: {model}: the {row['arch']} build's step "
                  f"{row['step_ms']:.1f} ms (its reference row) against this {args.arch} build's {now:.1f} ms: "
                  f"use that build on this CPU "
                  f"({BUILD_COMMAND.get(row['arch'], BUILD_COMMAND['other']).format(arch=row['arch'])}; "
                  f"tools/bench.sh --arch {row['arch']} measures it)")


def guard(by, models, args):
    """Compares this run with the reference rows of this CPU and width, or records them (--record).
    Returns the number of regressions."""
    try:
        with open(args.reference) as f:
            reference = json.load(f)
    except FileNotFoundError:
        reference = {"rows": []}
    key = lambda row: (row["cpu"], row["arch"], row["model"])
    if args.record:
        rows = [r for r in reference["rows"] if (r["cpu"], r["arch"]) != (args.cpu, args.arch)]
        for model in models:
            runs = by.get((model, "attnlab"), [])
            if runs:
                rows.append({"cpu": args.cpu, "arch": args.arch, "model": model,
                             "step_ms": round(statistics.median(r["step_ms"] for r in runs), 1),
                             "noise": round(step_noise(runs), 3)})
        with open(args.reference, "w") as f:
            json.dump({"about": reference.get("about", ""), "rows": sorted(rows, key=key)}, f, indent=1)
            f.write("\n")
        print(f"guard: recorded this run's step times for {args.cpu}, {args.arch} in {args.reference}")
        return 0
    regressions = 0
    for model in models:
        runs = by.get((model, "attnlab"), [])
        faster_build(model, runs, reference["rows"], args)
        row = next((r for r in reference["rows"] if key(r) == (args.cpu, args.arch, model)), None)
        if not runs or row is None:
            print(f"guard: {model}: no reference row for {args.cpu}, {args.arch} in {args.reference}: not checked")
            continue
        now, noise = statistics.median(r["step_ms"] for r in runs), max(step_noise(runs), row["noise"])
        limit = row["step_ms"] * (1 + noise)
        if now > limit:
            regressions += 1
            print(f"guard: REGRESSION: {model}, {args.arch}: step {now:.1f} ms, worse than the reference row's "
                  f"{row['step_ms']:.1f} ms by more than the noise ({100 * noise:.1f} %: limit {limit:.1f} ms)")
        else:
            print(f"guard: {model}, {args.arch}: step {now:.1f} ms within the reference row's {row['step_ms']:.1f} ms "
                  f"+ {100 * noise:.1f} % noise (limit {limit:.1f} ms)")
    return regressions


def gemm_lines(model, runs, torch_runs, verdicts):
    """Each backend's GFLOP/s at the model's shapes against torch.mm's at the same products (base: targets)."""
    if not runs or "gemm_backends_gflop_per_s" not in runs[0]:
        return
    theirs = [r["gemm_model_shapes_gflop_per_s"] for r in torch_runs if r.get("gemm_model_shapes_gflop_per_s")]
    theirs = statistics.median(theirs) if theirs else None
    chosen = runs[0].get("model_gemm", "packed")
    backends = list(runs[0]["gemm_backends_gflop_per_s"])
    for backend in backends:
        ours = statistics.median(r["gemm_backends_gflop_per_s"][backend] for r in runs)
        bound = 0.9 if backend == chosen else 0.7 if backend == "packed" else None
        label = f"GEMM shapes {backend}" + (" (model's)" if backend == chosen else "")
        ratio = ours / theirs if theirs else None
        verdict = ""
        if model == "base" and bound is not None and ratio is not None:
            verdict = "PASS" if ratio >= bound else "FAIL"
            verdicts.append(verdict)
        target = f"≥ {bound}×" if model == "base" and bound is not None else ""
        print(f"{model:6} {label:26} {ours:>10.1f} {'—' if theirs is None else f'{theirs:.1f}':>10} "
              f"{'—' if ratio is None else f'{ratio:.2f}×':>8}  {target:>10}  {verdict}")


def main():
    parser = argparse.ArgumentParser(description="the table tools/bench.sh prints")
    parser.add_argument("results")
    parser.add_argument("--arch", default="native", help="the width attnlab was built for (its targets)")
    parser.add_argument("--cpu", default="this CPU", help="the CPU's name, for the reference rows")
    parser.add_argument("--reference", help="the reference rows (JSON) to guard against")
    parser.add_argument("--record", action="store_true", help="write this run's rows into --reference instead")
    args = parser.parse_args()
    rows = [json.loads(line) for line in open(args.results) if line.strip()]
    by = {}
    for row in rows:
        side = "attnlab" if row["result"]["program"].startswith("attnlab") else "pytorch"
        by.setdefault((row["model"], side), []).append(row["result"])
    models = sorted({row["model"] for row in rows}, key=lambda m: (m != "base", m))
    torch_version = next((r["program"] for row in rows for r in [row["result"]]
                          if not r["program"].startswith("attnlab")), None)

    def fmt(x, digits=1):
        return "—" if x is None else f"{x:.{digits}f}"

    blas = next((r.get("blas_core") for row in rows for r in [row["result"]]
                 if not r["program"].startswith("attnlab") and r.get("blas_core")), None)
    print(f"attnlab built for {args.arch} on {args.cpu}; "
          f"medians over {max(len(v) for v in by.values())} rounds; PyTorch: {torch_version or 'not installed'}"
          + (f" (OpenBLAS kernel {blas})" if blas else ""))
    print(f"{'model':6} {'figure':26} {'attnlab':>10} {'PyTorch':>10} {'ratio':>8}  {'target':>10}  verdict")
    verdicts = []

    def line(model, figure, ours, theirs, target=None, better="lower", bound=None, digits=1):
        ratio = ours / theirs if ours is not None and theirs not in (None, 0) else None
        verdict = ""
        if bound is not None and ratio is not None:
            ok = ratio <= bound if better == "lower" else ratio >= bound
            verdict = "PASS" if ok else "FAIL"
            verdicts.append(verdict)
        print(f"{model:6} {figure:26} {fmt(ours, digits):>10} {fmt(theirs, digits):>10} "
              f"{(fmt(ratio, 2) + '×') if ratio is not None else '—':>8}  {target or '':>10}  {verdict}")

    for model in models:
        a = medians(by.get((model, "attnlab"), []))
        t = medians(by.get((model, "pytorch"), []))
        step_bounds = {"base": 0.5, "small": 0.45} if args.arch == "x86-64-v3" else {"base": 0.46, "small": 0.44}
        step_bound = step_bounds.get(model)
        line(model, "training step (ms)", a.get("step_ms"), t.get("step_ms"),
             f"≤ {step_bound}×" if step_bound else None, "lower", step_bound)
        line(model, "  forward (ms)", a.get("forward_ms"), t.get("forward_ms"))
        line(model, "  backward (ms)", a.get("backward_ms"), t.get("backward_ms"))
        line(model, "  optimizer (ms)", a.get("optimizer_ms"), t.get("optimizer_ms"))
        line(model, "tokens/s", a.get("tokens_per_s"), t.get("tokens_per_s"), digits=0)
        line(model, "model GFLOP/s", a.get("model_gflop_per_s"), t.get("model_gflop_per_s"))
        line(model, "GEMM peak GFLOP/s", a.get("gemm_gflop_per_s"), t.get("gemm_gflop_per_s"))
        gemm_lines(model, by.get((model, "attnlab"), []), by.get((model, "pytorch"), []), verdicts)
        share = a.get("peak_share")
        verdict = ""
        if model == "base" and share is not None:
            verdict = "PASS" if share >= 0.5 else "FAIL"
            verdicts.append(verdict)
        print(f"{model:6} {'share of GEMM peak (%)':26} {fmt(None if share is None else 100 * share, 0):>10} "
              f"{fmt(None if t.get('peak_share') is None else 100 * t['peak_share'], 0):>10} {'':>8}  "
              f"{'≥ 50%' if model == 'base' else '':>10}  {verdict}")
        line(model, "greedy sentences/s", a.get("greedy_sentences_per_s"), t.get("greedy_sentences_per_s"),
             "≥ 5×", "higher", 5.0, digits=2)
        line(model, "beam sentences/s", a.get("beam_sentences_per_s"), t.get("beam_sentences_per_s"), digits=2)
        line(model, "greedy batched sentences/s", a.get("greedy_batched_sentences_per_s"), None, digits=2)
        line(model, "beam batched sentences/s", a.get("beam_batched_sentences_per_s"), None, digits=2)
        # attnlab against itself: decoding a file in length-sorted batches against one sentence at a time.
        batched, alone = a.get("greedy_batched_sentences_per_s"), a.get("greedy_sentences_per_s")
        gain = batched / alone if batched and alone else None
        verdict = ""
        if model == "base" and gain is not None:
            verdict = "PASS" if gain >= 4.0 else "FAIL"
            verdicts.append(verdict)
        print(f"{model:6} {'greedy batched / alone':26} {fmt(gain, 2) + '×' if gain else '—':>10} {'':>10} {'':>8}  "
              f"{'≥ 4×' if model == 'base' else '':>10}  {verdict}")
        line(model, "peak RSS training (MiB)", a.get("training_peak_rss_mb"), t.get("training_peak_rss_mb"),
             "≤ 0.5×", "lower", 0.5)
        line(model, "peak RSS at end (MiB)", a.get("peak_rss_mb"), t.get("peak_rss_mb"))
    print(f"targets: {verdicts.count('PASS')} PASS, {verdicts.count('FAIL')} FAIL"
          + ("" if torch_version else " (the ratios need PyTorch)"))
    if args.reference:
        regressions = guard(by, models, args)
        if regressions:
            print(f"bench_report.py: {regressions} step time(s) worse than the reference rows by more than the noise",
                  file=sys.stderr)
            sys.exit(1)


if __name__ == "__main__":
    main()
