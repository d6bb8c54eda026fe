#!/usr/bin/python3
"""bench_report_test.py — tools/bench_report.py's guard on made-up runs: the reference rows of this CPU and width
are checked (REGRESSION and exit 1 beyond the noise, a pass within it), --record writes this run's rows and keeps
the other CPUs' and widths', and a width whose row is faster than this run by more than the noise is named as the
build to use here — and not when it is faster by less than the noise, nor from another CPU's row.

    tests/tools/bench_report_test.py SOURCE_DIR WORK_DIR
"""
import json
import shutil
import subprocess
import sys
from pathlib import Path

source_dir, work = Path(sys.argv[1]), Path(sys.argv[2])
shutil.rmtree(work, ignore_errors=True)
work.mkdir(parents=True)
failures, checks = [], [0]
CPU = "Test CPU (family 1, model 2, 2 CPUs)"


def check(fact, condition, detail=""):
    checks[0] += 1
    print(("PASS " if condition else "FAIL ") + fact + ("" if condition else ": " + detail))
    if not condition:
        failures.append(fact)


def results(steps_by_model):
    """A results file of attnlab rounds only (no PyTorch), one round per step time given."""
    path = work / "results.jsonl"
    with open(path, "w") as f:
        for model, steps in steps_by_model.items():
            for k, step in enumerate(steps, 1):
                f.write(json.dumps({"model": model, "round": k, "result": {"program": "attnlab 0.1.0",
                                                                           "step_ms": step}}) + "\n")
    return path


def reference(rows):
    path = work / "reference.json"
    path.write_text(json.dumps({"about": "made up", "rows": [
        {"cpu": cpu, "arch": arch, "model": model, "step_ms": step, "noise": noise}
        for cpu, arch, model, step, noise in rows]}))
    return path


def report(results_path, reference_path, arch, *extra):
    run = subprocess.run([sys.executable, str(source_dir / "tools" / "bench_report.py"), str(results_path),
                          "--arch", arch, "--cpu", CPU, "--reference", str(reference_path), *extra],
                         capture_output=True, text=True)
    return run.returncode, run.stdout + run.stderr


# This run: base 600 ms (rounds 594 … 606: noise 2 %), small 100 ms (rounds 99 … 101).
run = results({"base": [594, 600, 606], "small": [99, 100, 101]})

# 1. The guard: a row 10 % faster than this run is a regression; rows within the noise pass.
code, out = report(run, reference([(CPU, "x86-64-v3", "base", 540, 0.01), (CPU, "x86-64-v3", "small", 99, 0.01)]),
                   "x86-64-v3")
check("a step 11 % over its row is a REGRESSION, exit 1", code == 1 and "REGRESSION: base" in out, out)
check("a step within its row's noise passes", "small, x86-64-v3: step 100.0 ms within" in out, out)
code, out = report(run, reference([(CPU, "x86-64-v3", "base", 600, 0.01)]), "x86-64-v3")
check("no REGRESSION at the row's own time, exit 0", code == 0 and "REGRESSION" not in out, out)
check("a model without a row says it was not checked", "small: no reference row" in out, out)

# 2. Another build is faster here: native's row beats this x86-64-v3 run by more than the noise (base); small's
#    native row is faster by less than the noise (99 against 100, noise 2 %); another CPU's far faster row is not
#    this machine's.
rows = [(CPU, "x86-64-v3", "base", 600, 0.01), (CPU, "x86-64-v3", "small", 100, 0.01),
        (CPU, "native", "base", 500, 0.03), (CPU, "native", "small", 99, 0.01),
        ("Another CPU", "x86-64-v2", "small", 10, 0.01)]
code, out = report(run, reference(rows), "x86-64-v3")
check("a faster width's row is named with its build command",
      "another build is faster here: base: the native build's step 500.0 ms" in out
      and "cmake --preset release;" in out, out)
check("a row faster by less than the noise is not", "faster here: small" not in out, out)
check("another CPU's row is not", "x86-64-v2" not in out, out)
check("naming a faster build is advice, not a failure", code == 0, out)
code, out = report(run, reference(rows + [(CPU, "x86-64-v2", "small", 80, 0.01)]), "x86-64-v3")
check("a width without a preset gets its configure line",
      "faster here: small: the x86-64-v2 build's step 80.0 ms" in out
      and "cmake --preset release -B build/release-x86-64-v2 -DATTNLAB_ARCH=x86-64-v2" in out, out)

# 3. --record writes this run's rows (median, noise = (max − min) / median) and keeps every other row.
path = reference(rows)
code, out = report(run, path, "x86-64-v3", "--record")
recorded = json.loads(path.read_text())["rows"]
mine = {r["model"]: r for r in recorded if (r["cpu"], r["arch"]) == (CPU, "x86-64-v3")}
check("--record writes the medians", code == 0 and mine["base"]["step_ms"] == 600 and mine["small"]["step_ms"] == 100,
      str(recorded))
check("--record writes the noise", mine["base"]["noise"] == 0.02 and mine["small"]["noise"] == 0.02, str(mine))
check("--record keeps the other widths' and CPUs' rows", len(recorded) == 5, str(recorded))

print(f"bench_report.py's guard: {checks[0] - len(failures)} passed, {len(failures)} failed")
sys.exit(1 if failures else 0)
