#!/usr/bin/python3
"""The live lab (build/wasm/tapegrad-lab.html) in headless Chromium, against the native library.

- Every lesson, run in the page, gives the numbers the native program records for it
  (`tapegrad explore --lesson NAME --json`): the loss, every input, every input's gradient.
- Edits through window.tapegrad.set() and through a cell typed into give the numbers of the native
  run with the same `--set` edits (a computed tensor, the weights, included); so do settings
  (choose(), and a setting's menu), and a setting that removes tape entries redraws the graph
  without them.
- Backward, step by step (the buttons and stepTo()): every step's gradients in and out equal the
  native recording's, the current entry is marked in the tape list, which scrolls itself while
  the window does not, and an edit made at a step shows that step again.
- A bad edit ends in the library's own error, shown in the page, and the page keeps working.
- The page requests nothing but itself (and its inlined wasm, as a data: URL); it fits 1024x768
  and 1920x1080 without sideways scrolling (screenshots saved in WORK_DIR).
It prints the page's size, its load time and the median time of one lesson's forward + backward.
Chromium failing to start, or the native program missing, is a failure, not a skip.

usage: lab_browser_test.py LAB_PAGE TAPEGRAD WORK_DIR
"""
import json
import math
import pathlib
import statistics
import subprocess
import sys

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
import chromium_session  # noqa: E402

# Relative (absolute near 0). Both sides keep 5 significant digits (explore/tensor_summary.h), and the
# page runs one thread without AVX where the native build does not: a last digit may round apart.
TOLERANCE = 2e-4


def native(binary, work, lesson, edits):
    """The native program's recording of `lesson` with `edits` (["x[3]=0.5", ...])."""
    out = work / f"{lesson}-{len(edits)}.json"
    args = [binary, "explore", "--lesson", lesson, "--out", str(work / "native.html"), "--json", str(out)]
    for edit in edits:
        args += ["--set", edit]
    subprocess.run(args, check=True, capture_output=True)
    return json.loads(out.read_text())


def values(rec, tensor_id):
    return [float(v) for v in rec["tensors"][str(tensor_id)]["value"]["values"]]


def named(rec, name):
    """The recorded tensor named `name`, or None when the recorded loss never reads it."""
    for t in rec["tensors"].values():
        if t["name"] == name and t["kind"] in ("parameter", "constant", "computed"):
            return t
    return None


def native_value(rec, name):
    for given in rec["inputs"]:
        if given["name"] == name:
            return [float(v) for v in given["value"]["values"]]
    return values(rec, named(rec, name)["id"])


def native_grad(rec, name):
    """dL/dname as the recording holds it: a leaf's accumulated gradient, else what flowed into it."""
    t = named(rec, name)
    if t is None:
        return None
    if str(t["id"]) in rec["leaf_grads"]:
        return values(rec, rec["leaf_grads"][str(t["id"])])
    entries = {e["position"]: e for e in rec["entries"]}
    for step in rec["backward"]:
        outputs = entries[step["position"]]["outputs"]
        if t["id"] in outputs and step["grads_in"][outputs.index(t["id"])] is not None:
            return values(rec, step["grads_in"][outputs.index(t["id"])])
    return None


def close(a, b):
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if math.isinf(a) or math.isinf(b):
        return a == b
    return abs(a - b) <= TOLERANCE * max(1.0, abs(b))


def check_same(shown, expected, what):
    assert shown is not None and len(shown) == len(expected), f"{what}: {shown} against {expected}"
    bad = [(k, a, b) for k, (a, b) in enumerate(zip(shown, expected)) if not close(a, b)]
    assert not bad, f"{what}: the page differs from the native library at (index, page, native) {bad[:4]}"


def page_numbers(driver, names):
    """loss, and get()/grad() of each name, from the page (non-finite values as strings)."""
    return driver.execute_script("""
        const fix = a => a === null ? null : a.map(v => Number.isFinite(v) ? v : String(v));
        const out = {loss: fix(tapegrad.get('loss'))[0]};
        for (const name of arguments[0]) out[name] = {value: fix(tapegrad.get(name)), grad: fix(tapegrad.grad(name))};
        return out;""", names)


def as_floats(a):
    return None if a is None else [float(v) for v in a]


def check_against_native(driver, rec, names, context):
    page = page_numbers(driver, names)
    assert close(float(page["loss"]), float(rec["loss"])), f"{context}: loss {page['loss']} against {rec['loss']}"
    for name in names:
        check_same(as_floats(page[name]["value"]), native_value(rec, name), f"{context}: {name}")
        expected = native_grad(rec, name)
        if expected is None:
            assert page[name]["grad"] is None, f"{context}: the page shows a gradient of {name}, the library has none"
        else:
            check_same(as_floats(page[name]["grad"]), expected, f"{context}: dL/d{name}")


def no_sideways_scroll(driver, width, height, shot):
    driver.set_window_size(width, height)
    wide = driver.execute_script("return document.documentElement.scrollWidth - window.innerWidth")
    driver.save_screenshot(str(shot))
    assert wide <= 0, f"at {width}x{height} the page scrolls sideways by {wide} px"


def main(lab_page, binary, work):
    lab_page, work = pathlib.Path(lab_page).resolve(), pathlib.Path(work)
    work.mkdir(parents=True, exist_ok=True)
    if not pathlib.Path(binary).exists():
        raise SystemExit(f"{binary}: the native program is missing; build the ci preset first "
                         "(cmake --workflow --preset ci), then this one")
    driver = chromium_session.start(str(work / "profile"), 1280, 900)
    try:
        url = lab_page.as_uri()
        driver.get(url)
        driver.set_script_timeout(120)
        driver.execute_async_script("tapegrad.ready.then(arguments[0], e => arguments[0](String(e)))")
        load_ms = driver.execute_script("return tapegrad.loadMs()")
        # The module reads its inlined wasm through a data: URL, which is the page's own content.
        requests = [r for r in chromium_session.page_requests(driver, url) if not r.startswith("data:")]
        assert requests == [url], f"the lab requested more than itself: {requests}"

        lessons = driver.execute_script("return tapegrad.lessons()")
        assert len(lessons) >= 8, lessons
        for lesson in lessons:
            inputs = driver.execute_script("return tapegrad.lesson(arguments[0])", lesson)
            assert inputs, f"{lesson} declares no input a student may change"
            check_against_native(driver, native(binary, work, lesson, []), inputs, lesson)
        print(f"all {len(lessons)} lessons equal the native library's recordings")

        # Edits through the API: the native run with the same --set edits, a computed tensor included.
        driver.execute_script("tapegrad.lesson('attention_head'); tapegrad.set('x', 3, 0.5);"
                              "tapegrad.set('Wq', 0, -1.25); tapegrad.set('Wk', 5, -Infinity); tapegrad.run()")
        rec = native(binary, work, "attention_head", ["x[3]=0.5", "Wq[0]=-1.25", "Wk[5]=-inf"])
        check_against_native(driver, rec, ["x", "Wq", "Wk", "Wv", "weights", "scores"], "attention_head, edited")
        print("three edits (one to -inf) equal the native run with the same --set edits")

        # Settings: through the API, and through a menu as a student does; the graph follows the tape.
        driver.execute_script("tapegrad.lesson('multi_head'); tapegrad.choose('heads', 4); tapegrad.run()")
        check_against_native(driver, native(binary, work, "multi_head", ["heads=4"]), ["x", "Wq", "Wo", "weights"],
                             "multi_head with 4 heads")
        driver.execute_script("tapegrad.lesson('attention_head')")
        graph_ops = "return [...document.querySelectorAll('#graph .node.entry text')].map(t => t.textContent)"
        assert any("masked_fill" in op for op in driver.execute_script(graph_ops))
        menu = driver.find_element(By.CSS_SELECTOR, 'select[aria-label="masks"]')
        menu.find_element(By.CSS_SELECTOR, 'option[value="0"]').click()
        rec = native(binary, work, "attention_head", ["masks=0"])
        check_against_native(driver, rec, ["x", "Wq", "weights"], "attention_head without masks")
        shown_ops = driver.execute_script(graph_ops)
        assert len(shown_ops) == len(rec["entries"]) and not any("masked_fill" in op for op in shown_ops), shown_ops
        failing = driver.execute_script("return [...document.querySelectorAll('.fact.fails')].map(f => f.textContent)")
        assert any(f.startswith("query 0 can see only key 0") for f in failing), failing
        print("settings (heads=4, masks=0 from its menu) equal the native runs; the graph lost the masks' entries")

        # Backward, step by step.
        driver.execute_script("tapegrad.lesson('attention_head')")
        rec = native(binary, work, "attention_head", [])
        driver.find_element(By.ID, "bw-step").click()
        status = driver.find_element(By.ID, "bw-status").text
        assert status.startswith(f"backward step 1 of {len(rec['backward'])}"), status
        scroll = driver.execute_script("return window.scrollY")
        for k, step in enumerate(rec["backward"], start=1):
            shown = driver.execute_script("return tapegrad.stepTo(arguments[0])", k)
            assert shown["position"] == step["position"], (k, shown["position"], step["position"])
            for side, ids in (("gradsIn", step["grads_in"]), ("gradsOut", step["grads_out"])):
                for got, want in zip(shown[side], ids):
                    assert (got is None) == (want is None), (k, side)
                    if want is not None:
                        check_same(as_floats(got), values(rec, want), f"backward step {k} {side}")
            current = driver.find_element(By.CSS_SELECTOR, "#tape li.current").get_attribute("data-position")
            assert int(current) == step["position"], (k, current)
        assert driver.execute_script("return window.scrollY") == scroll, "stepping scrolled the window"
        driver.execute_script("tapegrad.stepTo(3); tapegrad.set('x', 0, 1); tapegrad.run()")
        assert driver.find_element(By.ID, "bw-status").text.startswith("backward step 3 of"), "the step was lost"
        print(f"backward stepped through all {len(rec['backward'])} steps: each step's gradients equal the native ones")

        # A cell typed into, as a student does.
        driver.execute_script("tapegrad.lesson('attention_head')")
        cell = driver.find_element(By.CSS_SELECTOR, 'input[aria-label="x[0]"]')
        cell.send_keys(Keys.CONTROL, "a")
        cell.send_keys("2" + Keys.ENTER)
        check_against_native(driver, native(binary, work, "attention_head", ["x[0]=2"]), ["x", "Wq", "weights"],
                             "attention_head, x[0] typed")
        assert driver.find_element(By.CSS_SELECTOR, 'input[aria-label="x[0]"]').find_element(By.XPATH, "..") \
            .get_attribute("class") == "edited", "the typed cell is not marked as changed"
        print("a typed cell equals the native run with --set x[0]=2")

        # A bad edit: the library's error, in the page; then the page still works.
        error = driver.execute_script("tapegrad.set('x', 99, 1); try { tapegrad.run(); return null; }"
                                      " catch (e) { return e.message; }")
        expected = "lesson: x[99] is out of range: x has 16 elements (indices 0 to 15)"
        assert error == expected, error
        shown = driver.find_element(By.ID, "error")
        assert shown.is_displayed() and shown.text == expected, shown.text
        cell = driver.find_element(By.CSS_SELECTOR, 'input[aria-label="x[1]"]')
        cell.send_keys(Keys.CONTROL, "a")
        cell.send_keys("abc" + Keys.ENTER)
        assert "the value 'abc' is not a number" in shown.text, shown.text
        driver.execute_script("tapegrad.lesson('multi_head')")
        assert not shown.is_displayed(), "the error stays after a lesson that runs"
        check_against_native(driver, native(binary, work, "multi_head", []), ["x"], "multi_head after an error")
        print("bad edits show the library's error, and the page keeps working")

        times = driver.execute_script("tapegrad.lesson('attention_head'); const ms = [];"
                                      "for (let i = 0; i < 21; ++i) ms.push(tapegrad.run().ms); return ms")
        size = lab_page.stat().st_size
        print(f"page {size / 1e6:.2f} MB; load (library and first lesson) {load_ms:.0f} ms; attention_head "
              f"forward + backward median {statistics.median(times):.1f} ms over {len(times)} runs")

        driver.execute_script("tapegrad.lesson('attention_head'); tapegrad.set('x', 3, 0.5); tapegrad.run()")
        no_sideways_scroll(driver, 1024, 768, work / "lab-1024x768.png")
        no_sideways_scroll(driver, 1920, 1080, work / "lab-1920x1080.png")
        print(f"no sideways scrolling at 1024x768 and 1920x1080; screenshots in {work}")
    finally:
        driver.quit()


if __name__ == "__main__":
    main(*sys.argv[1:])
