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
- A cell dragged sideways changes its value live, and the numbers equal the native run's.
- A bad edit ends in the library's own error, shown in the page, and the page keeps working.
- Training in the page (window.tapegrad.train) gives, step by step, the losses of `tapegrad train`
  with the same flags and --threads 1 (within 1% at step 30); a kept step's tape equals the native
  `tapegrad explore` recording of the trained run's example 0; the buttons train, pause, step and
  reset; the slider looks back at a kept step (its prediction, attention maps and a gradient).
- The page requests nothing but itself (and its inlined wasm, as a data: URL); it fits 1024x768
  and 1920x1080 without sideways scrolling (screenshots saved in WORK_DIR).
It prints the page's size, its load time, the median time of one lesson's forward + backward and
the page's ms per training step.
Chromium failing to start, or the native program missing, is a failure, not a skip.

usage: lab_browser_test.py LAB_PAGE TAPEGRAD WORK_DIR
"""
import json
import math
import pathlib
import statistics
import subprocess
import sys

from selenium.webdriver.common.action_chains import ActionChains
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


# The training the test runs in the page and natively: the example flags.
TRAIN_FLAGS = {"task": "reverse", "steps": 30, "warmup": 3, "d-model": 16, "heads": 2, "ff": 32, "layers": 1, "seed": 5}


def native_training(binary, work):
    """The per-step losses of `tapegrad train` with TRAIN_FLAGS on one thread, and its run directory."""
    run = work / "native-run"
    args = [binary, "train", "--threads", "1", "--out", str(run), "--overwrite"]
    for flag, value in TRAIN_FLAGS.items():
        args += [f"--{flag}", str(value)]
    subprocess.run(args, check=True, capture_output=True)
    records = [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines()]
    return [r["loss"] for r in records if r["type"] == "train"], run


def check_training(driver, binary, work):
    losses = driver.execute_async_script(
        "tapegrad.train(arguments[0]).then(arguments[1], e => arguments[1](String(e)))", TRAIN_FLAGS)
    assert isinstance(losses, list), losses
    native_losses, run = native_training(binary, work)
    assert len(losses) == len(native_losses) == 30, (len(losses), len(native_losses))
    worst = max(abs(a - b) / b for a, b in zip(losses, native_losses))
    assert abs(losses[-1] - native_losses[-1]) <= 0.01 * native_losses[-1], (losses[-1], native_losses[-1])
    print(f"30 steps trained in the page: loss {losses[0]:.4f} -> {losses[-1]:.4f}; the native run's "
          f"{native_losses[0]:.4f} -> {native_losses[-1]:.4f}; largest relative difference {worst:.2e}")

    # Step 30's tape: the native explorer's recording of the trained run's example 0.
    kept = driver.execute_script("return tapegrad.kept()")
    assert kept[0] == 0 and kept[-1] == 30, kept
    entries = driver.execute_script("return tapegrad.openTape(30)")
    out = work / "native-explore.json"
    subprocess.run([binary, "explore", str(run), "--example", "0", "--out", str(work / "explore.html"),
                    "--json", str(out)], check=True, capture_output=True)
    rec = json.loads(out.read_text())
    assert entries == len(rec["entries"]), (entries, len(rec["entries"]))
    # The list: every entry in the groups of the module that made it, as the native recording says.
    rows = driver.execute_script("""
        return [...document.querySelectorAll('#tape li[data-position]')].map(row => {
          const names = [];
          for (let d = row.closest('details'); d !== null; d = d.parentNode.closest('details'))
            names.unshift(d.querySelector(':scope > summary').firstChild.textContent);
          return [Number(row.dataset.position), names.join('.')];
        })""")
    assert rows == [[e["position"], e["module"]] for e in rec["entries"]], rows
    assert "encoder.layers.0.self_attn.q_proj" in [m for _, m in rows]
    page_loss = driver.execute_script("return tapegrad.get('loss')[0]")
    assert abs(page_loss - float(rec["loss"])) <= 0.01 * float(rec["loss"]), (page_loss, rec["loss"])
    last = driver.execute_script("return tapegrad.stepTo(arguments[0])", len(rec["backward"]))
    assert last["position"] == rec["backward"][-1]["position"], last
    # A group's own graph: its entries alone.
    q_proj = driver.find_element(By.XPATH, "//ol[@id='tape']//summary[starts-with(., 'q_proj')]")
    q_proj.find_element(By.CSS_SELECTOR, "button.group-graph").click()
    drawn = driver.execute_script("return [...document.querySelectorAll('#graph .node.entry')].length")
    in_group = [e for e in rec["entries"] if e["module"] == "encoder.layers.0.self_attn.q_proj"]
    assert drawn == len(in_group), (drawn, len(in_group))
    driver.find_element(By.ID, "graph-whole").click()
    print(f"step 30's tape: {entries} entries in their modules' groups, loss {page_loss:.4f} (the native "
          f"explorer's {float(rec['loss']):.4f}); backward stepped to its last entry; q_proj's graph alone "
          f"has its {drawn} entries")

    # Looking back at a kept step: example 0's prediction, the attention maps, a gradient.
    snap = driver.execute_script("return tapegrad.lookAt(arguments[0])", kept[len(kept) // 2])
    tokens = len(snap["tokens"])
    rows = driver.find_elements(By.CSS_SELECTOR, "table.prediction tr")
    assert len(rows) == tokens + 1, (len(rows), tokens)
    maps = driver.find_elements(By.CSS_SELECTOR, "#train-attention canvas")
    assert len(maps) == TRAIN_FLAGS["layers"] * TRAIN_FLAGS["heads"], len(maps)
    assert driver.find_element(By.ID, "kept-step-shown").text == str(kept[len(kept) // 2])
    assert driver.find_elements(By.CSS_SELECTOR, "#train-gradient canvas"), "no gradient is drawn"

    # The buttons, as a student uses them: reset (the form's flags), one step, train, pause, train
    # on to the end, where the form's model reverses every validation sequence.
    driver.execute_script("window.scrollTo(0, 0)")  # the buttons below the sticky header
    driver.find_element(By.ID, "train-reset").click()
    status = driver.find_element(By.ID, "train-status")
    assert status.text.startswith("step 0 of 600"), status.text
    driver.find_element(By.ID, "train-step").click()
    driver.execute_async_script("setTimeout(arguments[0], 200)")
    assert status.text.startswith("step 1 of 600"), status.text
    driver.find_element(By.ID, "train-run").click()
    driver.execute_async_script("setTimeout(arguments[0], 300)")
    driver.find_element(By.ID, "train-pause").click()
    driver.execute_async_script("setTimeout(arguments[0], 200)")
    paused = int(status.text.split()[1])
    assert 1 < paused < 600, status.text
    driver.execute_async_script("setTimeout(arguments[0], 300)")
    assert int(status.text.split()[1]) == paused, "training went on after the pause"
    driver.find_element(By.ID, "train-run").click()
    driver.execute_async_script("""
        const done = arguments[0], status = document.getElementById('train-status');
        const poll = () => (status.textContent.startsWith('step 600 of 600') &&
                            document.getElementById('train-pause').disabled ? done() : setTimeout(poll, 100));
        poll();""")
    ms = driver.execute_script("return tapegrad.trainMs()")
    evaluation = driver.execute_script("return tapegrad.evaluation()")
    assert evaluation["step"] == 600 and evaluation["exact_match"] >= 0.95, evaluation
    print(f"the buttons: reset, step, train, pause at step {paused}, and train to step 600 "
          f"({ms:.1f} ms per step in the page); {status.text}")


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
        driver.execute_script("tapegrad.lesson('attention_head'); tapegrad.set('E', 3, 0.5);"
                              "tapegrad.set('Wq', 0, -1.25); tapegrad.set('Wk', 5, -Infinity); tapegrad.run()")
        rec = native(binary, work, "attention_head", ["E[3]=0.5", "Wq[0]=-1.25", "Wk[5]=-inf"])
        check_against_native(driver, rec, ["E", "x", "Wq", "Wk", "Wv", "weights", "scores"], "attention_head, edited")
        print("three edits (one to -inf) equal the native run with the same --set edits")

        # A token chosen from its menu, as a student does: <pad> for "cat" masks that key as padding.
        driver.execute_script("tapegrad.lesson('attention_head')")
        assert driver.execute_script("return tapegrad.tokens('tokens')") == ["the", "cat", "sat", "<pad>"]
        menu = driver.find_element(By.CSS_SELECTOR, 'select[aria-label="tokens[1]"]')
        menu.find_element(By.CSS_SELECTOR, 'option[value="0"]').click()
        rec = native(binary, work, "attention_head", ["tokens[1]=0"])
        check_against_native(driver, rec, ["tokens", "x", "masked", "weights"], "attention_head, tokens[1] = <pad>")
        assert driver.execute_script("return tapegrad.tokens('tokens')") == ["the", "<pad>", "sat", "<pad>"]
        weights = driver.execute_script("return tapegrad.get('weights')")
        assert weights[1 * 4 + 1] == 0 and weights[2 * 4 + 1] == 0, weights  # key 1 is padding now
        header = driver.execute_script(
            "const f = [...document.querySelectorAll('#lesson figure')]"
            ".find(f => f.querySelector('figcaption').textContent.startsWith('weights '));"
            "return [...f.querySelectorAll('tr:first-child th')].map(th => th.textContent)")
        assert header == ["", "the", "<pad>", "sat", "<pad>"], header
        driver.execute_script("tapegrad.set('tokens', 2, 7); tapegrad.run()")  # "dog" for "sat", through the API
        rec = native(binary, work, "attention_head", ["tokens[1]=0", "tokens[2]=7"])
        check_against_native(driver, rec, ["tokens", "x", "weights"], "attention_head, tokens[2] = dog")
        error = driver.execute_script("tapegrad.set('tokens', 0, 9); try { tapegrad.run(); return null; }"
                                      " catch (e) { return e.message; }")
        assert error is not None and "a vocabulary of 9 tokens" in error, error
        print("tokens chosen from their menus and through the API equal the native runs; the weights' columns are "
              "labelled with the tokens; an id outside the vocabulary is the library's error")

        # Settings: through the API, and through a menu as a student does; the graph follows the tape.
        driver.execute_script("tapegrad.lesson('multi_head'); tapegrad.choose('heads', 4); tapegrad.run()")
        check_against_native(driver, native(binary, work, "multi_head", ["heads=4"]), ["x", "Wq", "Wo", "weights"],
                             "multi_head with 4 heads")
        driver.execute_script("tapegrad.lesson('cross_entropy'); tapegrad.choose('label_smoothing', 0.2);"
                              "tapegrad.set('targets', 1, 3); tapegrad.run()")
        rec = native(binary, work, "cross_entropy", ["label_smoothing=0.2", "targets[1]=3"])
        check_against_native(driver, rec, ["logits", "targets", "q", "log_probs"], "cross_entropy, smoothed")
        driver.execute_script("tapegrad.lesson('encoder_layer'); tapegrad.choose('T', 5); tapegrad.choose('causal', 1);"
                              "tapegrad.choose('gelu', 1); tapegrad.choose('norm_first', 1); tapegrad.run()")
        rec = native(binary, work, "encoder_layer", ["T=5", "causal=1", "gelu=1", "norm_first=1"])
        check_against_native(driver, rec, ["x", "y (pre-LN)"], "encoder_layer, every setting changed")
        driver.execute_script("tapegrad.lesson('forward_vs_reverse'); tapegrad.choose('inputs', 6);"
                              "tapegrad.choose('outputs', 1); tapegrad.run()")
        rec = native(binary, work, "forward_vs_reverse", ["inputs=6", "outputs=1"])
        check_against_native(driver, rec, ["W", "x", "u"], "forward_vs_reverse, 6 inputs and 1 output")
        driver.execute_script("tapegrad.lesson('gradcheck'); tapegrad.choose('eps', 0.01); tapegrad.run()")
        failing = driver.execute_script("return [...document.querySelectorAll('.fact.fails')].map(f => f.textContent)")
        assert any(f.startswith("the right rule passes gradcheck") for f in failing), failing
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
        print("settings (heads=4, label_smoothing=0.2, encoder_layer's four, forward_vs_reverse's two, masks=0 from "
              "its menu) equal the native runs; gradcheck's eps=0.01 turns its fact red; the graph lost the masks' "
              "entries")

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
        driver.execute_script("tapegrad.stepTo(3); tapegrad.set('E', 4, 1); tapegrad.run()")
        assert driver.find_element(By.ID, "bw-status").text.startswith("backward step 3 of"), "the step was lost"
        print(f"backward stepped through all {len(rec['backward'])} steps: each step's gradients equal the native ones")

        # A cell typed into, as a student does.
        driver.execute_script("tapegrad.lesson('attention_head')")
        cell = driver.find_element(By.CSS_SELECTOR, 'input[aria-label="E[4]"]')
        cell.send_keys(Keys.CONTROL, "a")
        cell.send_keys("2" + Keys.ENTER)
        check_against_native(driver, native(binary, work, "attention_head", ["E[4]=2"]), ["E", "x", "Wq", "weights"],
                             "attention_head, E[4] typed")
        assert driver.find_element(By.CSS_SELECTOR, 'input[aria-label="E[4]"]').find_element(By.XPATH, "..") \
            .get_attribute("class") == "edited", "the typed cell is not marked as changed"
        print("a typed cell equals the native run with --set E[4]=2")

        # A cell dragged sideways: the value moves with the pointer, and the numbers follow it.
        driver.execute_script("tapegrad.lesson('attention_head')")
        before = driver.execute_script("return tapegrad.get('E')[5]")
        cell = driver.find_element(By.CSS_SELECTOR, 'input[aria-label="E[5]"]')
        ActionChains(driver).click_and_hold(cell).move_by_offset(20, 0).move_by_offset(20, 0).release().perform()
        driver.execute_async_script("requestAnimationFrame(() => requestAnimationFrame(arguments[0]))")
        after = driver.execute_script("return tapegrad.get('E')[5]")
        expected = float(f"{before + 40 * max(abs(before), 1) / 100:.4g}")
        assert close(after, expected), f"E[5] dragged 40 px: {before} -> {after}, expected {expected}"
        rec = native(binary, work, "attention_head", [f"E[5]={after!r}"])
        check_against_native(driver, rec, ["E", "x", "Wq", "weights"], "attention_head, E[5] dragged")
        print(f"a cell dragged 40 px ({before} -> {after}) equals the native run with that edit")

        # A bad edit: the library's error, in the page; then the page still works.
        error = driver.execute_script("tapegrad.set('E', 99, 1); try { tapegrad.run(); return null; }"
                                      " catch (e) { return e.message; }")
        expected = "lesson: E[99] is out of range: E has 36 elements (indices 0 to 35)"
        assert error == expected, error
        shown = driver.find_element(By.ID, "error")
        assert shown.is_displayed() and shown.text == expected, shown.text
        cell = driver.find_element(By.CSS_SELECTOR, 'input[aria-label="E[1]"]')
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

        driver.execute_script("tapegrad.lesson('attention_head'); tapegrad.set('tokens', 1, 7); tapegrad.run()")
        no_sideways_scroll(driver, 1024, 768, work / "lab-1024x768.png")
        no_sideways_scroll(driver, 1920, 1080, work / "lab-1920x1080.png")
        driver.set_window_size(1280, 900)  # docs/guide.md's picture of facts turning red
        driver.execute_script("tapegrad.lesson('attention_head'); tapegrad.choose('fill', 0); tapegrad.run();"
                              "document.querySelector('.fact.fails').scrollIntoView({block: 'center'})")
        driver.save_screenshot(str(work / "lab-fill-0.png"))

        driver.set_window_size(1280, 900)
        check_training(driver, binary, work)
        driver.execute_script("tapegrad.openTape(600); tapegrad.stepTo(3)")  # the screenshots show a tape
        no_sideways_scroll(driver, 1024, 768, work / "lab-train-1024x768.png")
        no_sideways_scroll(driver, 1920, 1080, work / "lab-train-1920x1080.png")
        print(f"no sideways scrolling at 1024x768 and 1920x1080, lessons and training; screenshots in {work}")
    finally:
        driver.quit()


if __name__ == "__main__":
    main(*sys.argv[1:])
