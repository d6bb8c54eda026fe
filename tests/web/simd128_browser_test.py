#!/usr/bin/env python3
"""simd128_browser_test.py — in the browser build, the simd128 product (src/tensor/product/simd128_product.cpp,
model.gemm: simd128, what auto takes there) gives the packed GEMM's very bits, and Eigen's numbers to float rounding.

The doctest suite runs natively, where there is no simd128 product; so the check runs where the kernel does: headless
Chromium opens a page holding only the engine (build/wasm/web/attnlab_web.js) from disk and calls
attnlab_simd128_check() (web/simd128_check.cpp), which multiplies random matrices for every transpose and ragged sizes
through add_product with each backend. With --time R it also times a toy-en-fr training step's six large products on
each backend, one thread, and prints each one's fastest of R runs in milliseconds and GFLOP/s beside the load average
(R = 10 takes about 20 s more). About 10 s without --time.
Exits 77 (skipped) when selenium, chromium or chromedriver is missing, or the browser build is not built.
    usage: simd128_browser_test.py ENGINE_JS WORK_DIR [--time R]
"""
import json
import os
import shutil
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "inspect"))
from checklist import Checklist, console_errors, start_chromium  # noqa: E402

engine, work = [os.path.abspath(a) for a in sys.argv[1:3]]
repeats = int(sys.argv[sys.argv.index("--time") + 1]) if "--time" in sys.argv else 0
if not os.path.exists(engine):
    print("SKIP: the browser build is not built (%s is missing): cmake --preset wasm && cmake --build --preset wasm"
          % engine)
    sys.exit(77)
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
shutil.copy(engine, os.path.join(work, "attnlab_web.js"))
with open(os.path.join(work, "index.html"), "w") as page:
    page.write("<!doctype html><meta charset='utf-8'><title>simd128 check</title>"
               "<script src='attnlab_web.js'></script><body>the engine alone</body>")
checks = Checklist("the simd128 product in the browser")
check = checks.check


def ask(driver, request):
    """attnlab_simd128_check(request) in the page, once the engine has loaded."""
    return json.loads(driver.execute_async_script(
        "var done = arguments[arguments.length - 1], request = arguments[0];"
        "createAttnlab().then(function (m) { done(m.ccall('attnlab_simd128_check', 'string', ['string'],"
        " [JSON.stringify(request)])); }, function (e) { done(JSON.stringify({error: String(e)})); });", request))


driver, profile = start_chromium("simd128-")   # exits 77 (skipped) without selenium or chromium
driver.set_script_timeout(300)
try:
    driver.get("file://" + os.path.join(work, "index.html"))
    answer = ask(driver, {"repeats": repeats})
    print("engine: %s" % answer.get("description", answer.get("error")))
    for shape in answer.get("shapes", []):
        print("  [n, k, m, Xᵀ, Yᵀ] = %s: same bits as packed %s, |simd128 − Eigen| / (1 + |Eigen|) ≤ %.2g"
              % (shape["shape"], shape["same_bits"], shape["eigen_error"]))
    check(answer.get("available") is True, "the browser build has no simd128 product: %r" % answer)
    check(len(answer.get("shapes", [])) == 6, "the check multiplied %d shapes, not 6" % len(answer.get("shapes", [])))
    check(answer.get("same_bits") is True, "simd128 and packed differ in the browser")
    check(0 <= answer.get("eigen_error", 1) < 1e-4, "simd128 is %r from Eigen's GEMM" % answer.get("eigen_error"))
    if repeats:
        timing = answer.get("timing", {})
        packed, simd128 = timing.get("packed", {}), timing.get("simd128", {})
        print("a toy-en-fr step's large products, the fastest of %d runs each (load average %s):"
              % (repeats, " ".join(open("/proc/loadavg").read().split()[:3])))
        for p, s in zip(packed.get("shapes", []), simd128.get("shapes", [])):
            print("  [n, k, m, Xᵀ, Yᵀ] = %s: packed %6.1f ms %5.1f GFLOP/s, simd128 %6.1f ms %5.1f GFLOP/s"
                  % (s["shape"], p["milliseconds"], p["gflops"], s["milliseconds"], s["gflops"]))
        print("  all six: packed %.1f ms, simd128 %.1f ms (%.1f×)" % (packed.get("milliseconds", 0),
              simd128.get("milliseconds", 0), packed.get("milliseconds", 0) / max(simd128.get("milliseconds", 1), 1e-9)))
        check(len(simd128.get("shapes", [])) == 6 and all(s["gflops"] > 0 for s in simd128["shapes"]),
              "the timing is missing or empty: %r" % timing)
    refused = ask(driver, {"repeats": -1})
    check("\"repeats\" must be 0 to 100" in refused.get("error", ""), "repeats -1 not refused: %r" % refused)
    check(not console_errors(driver), "console errors " + repr(console_errors(driver))[:400])
finally:
    driver.quit()
    shutil.rmtree(profile, ignore_errors=True)
sys.exit(checks.finish())
