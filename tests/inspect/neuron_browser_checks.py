"""neuron_browser_checks.py — the explorer's neuron view against attention.json, for every map type of a run (used by
explorer_browser_test.py, which owns the browser and the checklist): the weights shown are attention.json's, the
softmax (or the kind's own normalisation) of the recorded stages gives them again, q·k × scale gives the recorded
scores; the local kinds' centre and window and hard attention's chosen key as recorded.
"""
from selenium.webdriver.common.by import By
from selenium.webdriver.support.select import Select


def maps_of(data, kind):
    return sorted([m for m in data["maps"] if m["type"] == kind], key=lambda m: m["layer"])


def close(a, b, tolerance):
    return abs(a - b) <= tolerance * (1 + abs(b))


def neuron_checks(driver, data, label, check, view, click):
    """Every map type, the first and the last query, head 0 and the last head: the table's numbers against the
    page's own data (attention.json)."""
    view(driver, "neuron")
    for kind in ["encoder_self", "decoder_self", "cross"]:
        if not maps_of(data, kind):
            continue
        click(driver, '#view-neuron .seg button[data-value="%s"]' % kind)
        last_map = maps_of(data, kind)[-1]
        Select(driver.find_element(By.ID, "neuron-layer")).select_by_value(str(last_map["layer"]))
        Select(driver.find_element(By.ID, "neuron-head")).select_by_value(str(last_map["heads"] - 1))
        queries = len(last_map["weights"][0])
        for query in sorted({0, queries - 1}):
            click(driver, '#view-neuron .queries button[data-query="%d"]' % query)
            table = driver.find_element(By.ID, "neuron-table")
            m, h, i = (int(table.get_attribute(a)) for a in ("data-map", "data-head", "data-query"))
            where = "%s neuron %s layer %d head %d query %d" % (label, kind, last_map["layer"], h, i)
            the_map = data["maps"][m]
            check(the_map["type"] == kind and the_map["layer"] == last_map["layer"] and h == last_map["heads"] - 1
                  and i == query, where + ": the table is for map %d head %d query %d" % (m, h, i))
            weights = the_map["weights"][h][i]
            neuron = the_map["neuron"]
            scores = neuron.get("scores")
            # What the computed softmax of the recorded scores must give: the weight, but for local_p the softmax
            # before its Gaussian and for hard attention its distribution a (the weights are one-hot).
            softmax_gives = {"local_p": neuron.get("softmax"), "hard": neuron.get("distribution")}.get(the_map["kind"])
            softmax_gives = softmax_gives[h][i] if softmax_gives else weights
            cells = driver.execute_script(
                "return Array.from(document.querySelectorAll('#neuron-table td[data-stage]')).map(function (td) {"
                " return [td.dataset.stage, Number(td.dataset.key), td.dataset.value]; });")
            stages = {stage for stage, _, _ in cells}
            check("weight" in stages and len([c for c in cells if c[0] == "weight"]) == len(weights),
                  where + ": one weight per key, got stages " + repr(sorted(stages)))
            for stage, j, text in cells:
                value = float("-inf") if text == "-inf" else float(text)
                if stage == "weight":
                    check(value == weights[j], "%s key %d: weight %r, attention.json %r" % (where, j, value, weights[j]))
                elif stage == "softmax":
                    check(abs(value - softmax_gives[j]) < 2e-3, "%s key %d: softmax %r, the model's %r" %
                          (where, j, value, softmax_gives[j]))
                elif stage in ("ratio", "normalised", "product"):
                    check(abs(value - weights[j]) < 2e-3, "%s key %d: %s %r does not give the weight %r" %
                          (where, j, stage, value, weights[j]))
                elif stage in ("softmax_model", "gaussian", "distribution"):
                    recorded = neuron[{"softmax_model": "softmax"}.get(stage, stage)][h][i][j]
                    check(value == recorded, "%s key %d: %s %r, attention.json %r" % (where, j, stage, value, recorded))
                elif stage == "distance":
                    check(close(value, j - neuron["centre"][h][i], 1e-9),
                          "%s key %d: j - p_i %r, centre %r" % (where, j, value, neuron["centre"][h][i]))
                elif stage == "scores" and the_map["kind"] != "external":
                    recorded = scores[h][i][j]
                    check((recorded is None and text == "-inf") or (recorded is not None and value == recorded),
                          "%s key %d: masked score %r, attention.json %r" % (where, j, value, recorded))
                elif stage in ("scaled", "tanh_score"):
                    recorded = scores[h][i][j]
                    check(recorded is None or close(value, recorded, 1e-3),
                          "%s key %d: %s %r, the model's score %r" % (where, j, stage, value, recorded))
                elif stage == "scores":   # external: z = q · M_k[s], recorded
                    check(value == scores[h][i][j], "%s slot %d: z %r, attention.json %r" % (where, j, value, scores[h][i][j]))
            if the_map["kind"] in ("local_m", "local_p", "hard"):
                check_kind_line(driver, check, the_map, h, i, where)


def check_kind_line(driver, check, the_map, h, i, where):
    """The local kinds' centre and window, hard attention's chosen key: the line above the neuron table and the
    marked rows, against attention.json."""
    neuron = the_map["neuron"]
    line = driver.find_element(By.ID, "neuron-kind-line")
    marks = driver.execute_script(
        "return Array.from(document.querySelectorAll('#neuron-table tbody tr')).map(function (tr, j) {"
        " return [j, tr.classList.contains('hidden'), tr.classList.contains('centre'), tr.classList.contains('picked')]; });")
    if the_map["kind"] == "hard":
        chosen = neuron["chosen_key"][h][i]
        shown = line.get_attribute("data-chosen")
        check(shown == ("" if chosen is None else str(chosen)), "%s: chosen key %r, attention.json %r" % (where, shown, chosen))
        picked = [j for j, _, _, is_picked in marks if is_picked]
        check(picked == ([] if chosen is None else [chosen]), "%s: the rows marked chosen %r, expected %r" % (where, picked, chosen))
        if the_map["hard_eval"] == "argmax" and chosen is not None:   # the weights are a; the argmax is marked
            row, a = the_map["weights"][h][i], neuron["distribution"][h][i]
            check(all(abs(w - p) < 1e-5 for w, p in zip(row, a)) and a[chosen] == max(a),
                  "%s: the weights %r are not the distribution %r with the chosen key its argmax" % (where, row, a))
        return
    centre, (first, last), width = neuron["centre"][h][i], neuron["window"][h][i], the_map["local"]["width"]
    check(float(line.get_attribute("data-centre")) == centre, "%s: centre %r, attention.json %r" %
          (where, line.get_attribute("data-centre"), centre))
    check([float(line.get_attribute("data-first")), float(line.get_attribute("data-last"))] == [first, last],
          "%s: window %r … %r, attention.json %r" % (where, line.get_attribute("data-first"), line.get_attribute("data-last"),
                                                     [first, last]))
    check(first is not None and centre - width <= first <= last <= centre + width,
          "%s: the window %r is not inside [p - D, p + D] = [%r, %r]" % (where, [first, last], centre - width, centre + width))
    greyed = [j for j, hidden, _, _ in marks if hidden]
    outside = [j for j in range(len(marks)) if not first <= j <= last]
    check(greyed == outside, "%s: greyed keys %r, outside the window %r" % (where, greyed, outside))
    centred = [j for j, _, is_centre, _ in marks if is_centre]
    check(centred == [round(centre)], "%s: the centre is marked at %r, p_i = %r" % (where, centred, centre))
    if the_map["kind"] == "local_p":
        check(the_map["local"]["sigma"] == width / 2, where + ": sigma is not D/2")
