#!/usr/bin/python3
"""What a student and an instructor need of tapegrad explore's lesson pages, in a real browser
(headless Chromium driven by Selenium, as browser_test.py drives it).

- stepping_keeps_the_controls: stepping backward never scrolls the window (the buttons and the
  status stay on the screen), and the tape list scrolls itself to keep the current entry in view.
- small_tensors_print_their_values: a slice of at most 8x8 values has them printed in its cells
  (3 significant digits), grid lines between the cells, and a colour bar with its scale's range;
  the "one colour scale" choice colours every tensor of the entry on one scale.
- gradients_have_one_notation: every gradient the page names is dL/dx (dL/d(#11 mul) for an
  unnamed entry's output), the backward formulas typeset it as a fraction of partials (no
  overline, which Chromium drew as "oūt"), and the page says once what it means.
- fits_a_projector: at 1024x768 a lesson's and a trained model's page do not scroll sideways, the detail pane
  does not either (through every entry), and the attention maps' column labels ("<mask>") fit
  inside their canvas.
- lesson_prose_in_view: at 1200x900 the lesson's first paragraph is on the first screen, and a
  mention of a tape entry in it ("#7") is a link that selects that entry.

It writes the lesson pages it reads into WORK_DIR and saves screenshots there. Chromium failing
to start is a failure, not a skip.

usage: page_usability_browser_test.py TAPEGRAD WORK_DIR
"""
import json
import math
import pathlib
import sys
import tempfile

from selenium.webdriver.common.by import By

from browser_test import browser, tapegrad

# The current row's box and the part of the tape list inside the window.
CURRENT_ROW_IN_LIST = """
const row = document.querySelector('#entry-list li.current'), pane = document.getElementById('list-pane');
if (!row) return null;
const r = row.getBoundingClientRect(), p = pane.getBoundingClientRect();
return {row: [r.top, r.bottom], pane: [Math.max(p.top, 0), Math.min(p.bottom, window.innerHeight)],
        scrolled: pane.scrollTop};
"""


# The detail pane's heatmaps: the tensor, the values printed (the canvas' fallback table), the
# colour bar's range, the first cell's colour as drawn and as the page's colour map gives it for
# that range, how many colours the first cell's middle holds (one when nothing is printed there),
# and the colour between the first two cells (a grid line).
READ_DETAIL_FIGURES = """
return [...document.querySelectorAll('#detail figure.heatmap')].map(f => {
  const canvas = f.querySelector('canvas'), bar = f.querySelector('.colour-bar'), d = canvas.dataset;
  const ratio = window.devicePixelRatio || 1, ctx = canvas.getContext('2d');
  const [left, top, w, h] = [d.left, d.top, d.cellWidth, d.cellHeight].map(Number);
  const pixel = (x, y) => `rgb(${ctx.getImageData(Math.round((left + x) * ratio), Math.round((top + y) * ratio), 1, 1)
                                  .data.slice(0, 3).join(',')})`;
  const middle = new Set();
  for (let x = Math.round(w * 0.2); x < w * 0.8; x++) for (let y = Math.round(h * 0.3); y < h * 0.7; y++) middle.add(pixel(x, y));
  const first = Number(rec.tensors[f.dataset.tensor].value.values[0]);
  return {tensor: f.dataset.tensor, printed: [...canvas.querySelectorAll('td')].map(td => td.textContent),
          range: bar && [Number(bar.dataset.min), Number(bar.dataset.max)], barText: bar && bar.textContent,
          drawn: pixel(3, 3), mapped: bar && colour(first, Number(bar.dataset.max)), middleColours: middle.size,
          gridLine: w > 6 ? pixel(w, 3) : null};
});
"""


def printed_as(shown, value):
    """A value printed with 3 significant digits against the recorded one."""
    value = float(value)
    if not math.isfinite(value):
        return shown == {math.inf: "inf", -math.inf: "-inf"}.get(value, "NaN")
    return abs(float(shown) - value) <= 5e-3 * abs(value) + 1e-12


def small_tensors_print_their_values(driver, pages, recordings, work):
    """The attention head's entry #1, matmul(x, Wq) (after #0, the tokens' lookup): 4x4 tensors
    with their own ranges."""
    driver.set_window_size(1500, 1000)
    driver.get(pages["attention_head"].as_uri())
    rec = recordings["attention_head"]
    assert rec["entries"][1]["op"] == "matmul", rec["entries"][1]["op"]
    driver.find_element(By.CSS_SELECTOR, '#entry-list li[data-position="1"]').click()
    figures = driver.execute_script(READ_DETAIL_FIGURES)
    assert len(figures) >= 3, f"the first entry shows {len(figures)} heatmaps"
    for f in figures:
        value = rec["tensors"][f["tensor"]]["value"]
        assert value["shape"] == [4, 4], f"tensor {f['tensor']}: expected a 4x4 tensor, got {value['shape']}"
        assert len(f["printed"]) == 16 and all(printed_as(p, v) for p, v in zip(f["printed"], value["values"])), \
            f"tensor {f['tensor']}: printed {f['printed']}, recorded {value['values']}"
        assert f["middleColours"] > 2, f"tensor {f['tensor']}: nothing printed in the first cell"
        assert f["gridLine"] == "rgb(203,210,217)", f"tensor {f['tensor']}: no grid line between the cells ({f['gridLine']})"
        end = max(abs(float(value["min"])), abs(float(value["max"])))
        assert f["range"] and math.isclose(f["range"][1], end) and math.isclose(f["range"][0], -end), \
            f"tensor {f['tensor']}: colour bar {f['range']}, the tensor's largest magnitude {end}"
        assert f["drawn"] == f["mapped"], f"tensor {f['tensor']}: first cell {f['drawn']}, its scale gives {f['mapped']}"
    assert len({tuple(f["range"]) for f in figures}) > 1, "the tensors' own ranges are all equal: nothing to share"
    driver.save_screenshot(str(work / "values-own-scale.png"))

    driver.find_element(By.ID, "shared-scale").click()
    shared = driver.execute_script(READ_DETAIL_FIGURES)
    end = max(max(abs(float(rec["tensors"][f["tensor"]]["value"][k])) for k in ("min", "max")) for f in shared)
    for f in shared:
        assert f["range"] and math.isclose(f["range"][1], end), f"tensor {f['tensor']}: shared range {f['range']}, expected {end}"
        assert f["drawn"] == f["mapped"], f"tensor {f['tensor']}: first cell {f['drawn']}, the shared scale gives {f['mapped']}"
    driver.save_screenshot(str(work / "values-shared-scale.png"))


# Steps backward to the end, reading at each step the names of the gradients shown and the
# backward formulas' MathML; then the lesson's figure names and the notation line.
READ_GRADIENT_NAMES = """
const names = [], formulas = [];
for (let k = 0; k < rec.backward.length; k++) {
  document.getElementById('bw-step').click();
  document.querySelectorAll('#detail figure.grad-in .name, #detail figure.grad-out .name').forEach(n => names.push(n.textContent));
  document.querySelectorAll('#detail .formula').forEach(f => {
    if (f.querySelector('.label').textContent.startsWith('backward')) formulas.push(f.querySelector('math').outerHTML);
  });
}
return {names, formulas, lesson: [...document.querySelectorAll('#lesson figure .name')].map(n => n.textContent),
        notation: document.getElementById('notation').textContent};
"""


def gradients_have_one_notation(driver, pages, recordings, work):
    """The attention head's 12 backward steps and its lesson text."""
    driver.get(pages["attention_head"].as_uri())
    shown = driver.execute_script(READ_GRADIENT_NAMES)
    assert shown["names"], "no gradient shown while stepping backward"
    assert all(n.startswith("dL/d") for n in shown["names"]), f"gradients named {shown['names']}"
    assert "dL/d(#11 mul)" in shown["names"], f"an unnamed entry's output's gradient: {shown['names']}"
    gradients = [n for n in shown["lesson"] if n.startswith("d")]
    assert gradients and all(n.startswith("dL/d") for n in gradients), f"the lesson's gradients {shown['lesson']}"
    assert shown["formulas"], "no backward formula"
    for f in shown["formulas"]:
        assert "∂" in f and "<mfrac>" in f, f"a backward formula without dL/dx typeset: {f}"
        assert "‾" not in f and "¯" not in f, f"a backward formula with an overline or bar: {f}"
    assert "dL/dx" in shown["notation"] and "gradient of the loss L" in shown["notation"], shown["notation"]


# How far the window and the detail pane scroll sideways, selecting every entry in turn.
READ_OVERFLOW = """
const pane = document.getElementById('detail-pane'), widest = {pane: 0, window: 0};
for (const row of document.querySelectorAll('#entry-list li[data-position]')) {
  row.click();
  widest.pane = Math.max(widest.pane, pane.scrollWidth - pane.clientWidth);
  widest.window = Math.max(widest.window, document.scrollingElement.scrollWidth - window.innerWidth);
}
return widest;
"""

# For each attention map: by how many pixels its column labels, rising at 45 degrees from above
# their column (as the page draws them), reach past the canvas' right and top edges.
LABELS_CLIPPED = """
const ctx = document.createElement('canvas').getContext('2d');
ctx.font = '11px ui-monospace, monospace';
return [...document.querySelectorAll('#attention figure.heatmap canvas')].map((canvas, k) => {
  const d = canvas.dataset, keys = rec.attention[k].keys, reach = l => ctx.measureText(l).width * Math.SQRT1_2;
  const right = Math.max(...keys.map((l, c) => Number(d.left) + (c + 0.5) * Number(d.cellWidth) + reach(l)));
  const up = Math.max(...keys.map(l => reach(l) + 4)) - Number(d.top);
  return [right - canvas.getBoundingClientRect().width, up];
});
"""


def fits_a_projector(driver, pages, recordings, work):
    """A tiny trained run's example, whose keys include <sep> and <mask>."""
    driver.set_window_size(1024, 768)
    size = driver.execute_script("return [window.innerWidth, window.outerWidth]")
    driver.set_window_size(1024 + size[1] - size[0], 768)  # the window's inside, as a projector shows it
    for name in ("attention_head", "run"):  # a lesson's page (its prose above the panes) and a run's
        driver.get(pages[name].as_uri())
        assert driver.execute_script("return window.innerWidth") == 1024
        widest = driver.execute_script(READ_OVERFLOW)
        assert widest["window"] <= 0, f"{name}: the page scrolls {widest['window']} px sideways at 1024 px"
        assert widest["pane"] <= 0, f"{name}: the detail pane scrolls {widest['pane']} px sideways at 1024 px"
    clipped = driver.execute_script(LABELS_CLIPPED)
    assert clipped, "no attention maps on the run's page"
    for k, (right, up) in enumerate(clipped):
        assert right <= 0 and up <= 0, f"attention map {k}: its column labels reach {right} px past the right, {up} px past the top"
    driver.execute_script("document.getElementById('attention-pane').scrollIntoView()")
    driver.save_screenshot(str(work / "projector-attention.png"))
    driver.execute_script("window.scrollTo(0, 0); document.querySelector('#entry-list li[data-position]').click()")
    driver.save_screenshot(str(work / "projector.png"))


def lesson_prose_in_view(driver, pages, recordings, work):
    """The attention head lesson, whose prose names its two masked_fill entries."""
    driver.set_window_size(1200, 900)
    driver.get(pages["attention_head"].as_uri())
    first = driver.find_element(By.CSS_SELECTOR, "#lesson p")
    box = driver.execute_script("const r = arguments[0].getBoundingClientRect(); "
                                "return [r.top, r.bottom, window.innerHeight, window.scrollY]", first)
    assert box[3] == 0 and 0 <= box[0] and box[1] <= box[2], f"the lesson's first paragraph {box[:2]} is off the first screen ({box[2]} px)"
    assert first.text.startswith("Self-attention"), first.text
    links = driver.find_elements(By.CSS_SELECTOR, "#lesson a.entry-link")
    assert [link.text for link in links] == ["#7", "#8"], f"entry links {[link.text for link in links]}"
    entries = {e["position"]: e for e in recordings["attention_head"]["entries"]}
    for link in links:
        driver.execute_script("const box = document.getElementById('lesson'); "
                              "box.scrollTop += arguments[0].getBoundingClientRect().top - box.getBoundingClientRect().top - 20",
                              link)
        link.click()  # WebDriver's mouse: the link must be visible to take it
        position = int(link.text[1:])
        shown = driver.execute_script("return [document.getElementById('detail').dataset.position, "
                                      "document.querySelector('#entry-list li.selected').dataset.position, window.scrollY]")
        assert shown[:2] == [str(position)] * 2, f"clicking {link.text} selected {shown[:2]}"
        assert entries[position]["op"] == "masked_fill", f"{link.text} is {entries[position]['op']}, not a mask"
        assert shown[2] == 0, f"clicking {link.text} scrolled the window to {shown[2]}"
    driver.save_screenshot(str(work / "lesson.png"))


def stepping_keeps_the_controls(driver, pages, recordings, work):
    """Steps the encoder layer's 27 backward entries in a window too short for its 52-entry tape."""
    driver.set_window_size(1200, 700)
    driver.get(pages["encoder_layer"].as_uri())
    before = driver.execute_script("return window.scrollY")
    step = driver.find_element(By.ID, "bw-step")
    list_scrolled = False
    for k in range(1, 28):
        step.click()  # WebDriver's mouse: the button must still be on the screen to take the click
        assert driver.execute_script("return window.scrollY") == before, f"step {k} scrolled the window"
        shown = driver.execute_script(CURRENT_ROW_IN_LIST)
        assert shown, f"step {k}: no current row in the tape list"
        top, bottom = shown["row"]
        assert shown["pane"][0] - 0.5 <= top and bottom <= shown["pane"][1] + 0.5, \
            f"step {k}: the current row {shown['row']} is outside the tape list's visible box {shown['pane']}"
        list_scrolled |= shown["scrolled"] > 0
    assert list_scrolled, "the tape list never scrolled: the test did not reach a row below the fold"
    driver.save_screenshot(str(work / "stepping.png"))


CHECKS = [stepping_keeps_the_controls, small_tensors_print_their_values, gradients_have_one_notation, fits_a_projector,
          lesson_prose_in_view]


def main(binary, work):
    work = pathlib.Path(work)
    work.mkdir(parents=True, exist_ok=True)
    pages, recordings = {}, {}
    for lesson in ("attention_head", "encoder_layer"):
        pages[lesson], dump = work / f"{lesson}.html", work / f"{lesson}.json"
        tapegrad(binary, "explore", "--lesson", lesson, "--out", str(pages[lesson]), "--json", str(dump))
        recordings[lesson] = json.loads(dump.read_text())
    run = work / "run"
    tapegrad(binary, "train", "--task", "reverse", "--max-len", "6", "--steps", "2", "--val-examples", "4",
             "--eval-every", "0", "--d-model", "16", "--heads", "2", "--ff", "32", "--layers", "1", "--out", str(run),
             "--overwrite")
    pages["run"] = work / "run.html"
    tapegrad(binary, "explore", str(run), "--example", "2", "--out", str(pages["run"]))
    with tempfile.TemporaryDirectory() as profile:
        driver = browser(profile)
        try:
            for check in CHECKS:
                check(driver, pages, recordings, work)
                print(f"{check.__name__}: holds")
        finally:
            driver.quit()


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
