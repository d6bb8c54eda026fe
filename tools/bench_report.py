#!/usr/bin/python3
"""bench_report.py — the table tools/bench.sh prints: medians over rounds, ratios, and the targets.

    /usr/bin/python3 tools/bench_report.py build/bench/results.jsonl

Each input line is {"model": "base" | "small", "round": k, "result": <the JSON of attnlab bench or bench_torch.py>};
results whose "program" starts with "attnlab" are attnlab's, the others PyTorch's. Every figure is the median
over the rounds. Targets (a ratio is attnlab / PyTorch; issues #6, #13 and #19):
    base step time       ≤ 0.46 ×        small step time    ≤ 0.44 ×
    greedy sentences/s   ≥ 5 ×  (each model)
    batched greedy       ≥ 4 × attnlab's own one-sentence-at-a-time greedy (base)
    peak RSS             ≤ 0.5 ×  (each model, when its training steps end: "peak RSS during training")
    base model GFLOP/s   ≥ 50 % of the GEMM peak measured in the same run
"""
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


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: bench_report.py RESULTS.jsonl")
    rows = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
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
    print(f"medians over {max(len(v) for v in by.values())} rounds; PyTorch: {torch_version or 'not installed'}"
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
        step_bound = {"base": 0.46, "small": 0.44}.get(model)
        line(model, "training step (ms)", a.get("step_ms"), t.get("step_ms"),
             f"≤ {step_bound}×" if step_bound else None, "lower", step_bound)
        line(model, "  forward (ms)", a.get("forward_ms"), t.get("forward_ms"))
        line(model, "  backward (ms)", a.get("backward_ms"), t.get("backward_ms"))
        line(model, "  optimizer (ms)", a.get("optimizer_ms"), t.get("optimizer_ms"))
        line(model, "tokens/s", a.get("tokens_per_s"), t.get("tokens_per_s"), digits=0)
        line(model, "model GFLOP/s", a.get("model_gflop_per_s"), t.get("model_gflop_per_s"))
        line(model, "GEMM peak GFLOP/s", a.get("gemm_gflop_per_s"), t.get("gemm_gflop_per_s"))
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


if __name__ == "__main__":
    main()
