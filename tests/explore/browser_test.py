#!/usr/bin/python3
"""tapegrad explore's pages in a real browser (headless Chromium driven by Selenium).

For tapegrad trace's example, every lesson and a tiny trained run, it writes the page and the
recording it shows (--json), loads the page from disk, clicks every entry in the list (and, for
the small pages, every entry in the graph), steps backward to the end and back (the first click
of each kind with the mouse, the rest from a script), and checks that
what the page shows is the recording's: each heatmap's tensor, statistics and hovered values,
and the backward status of every step; on the run's page, that the tape is grouped by the
module that made each entry, each group folding away and outlining its entries in the graph,
and that the prediction table shows each position's prediction and target. It fails on a console error, on any request that is not
the file itself, and when Chromium cannot start. Screenshots go to the work directory.

usage: browser_test.py TAPEGRAD WORK_DIR
"""
import json
import math
import pathlib
import re
import subprocess
import sys
import tempfile

from selenium.webdriver.common.by import By

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
import chromium_session  # noqa: E402


def tapegrad(binary, *args):
    result = subprocess.run([binary, *args], capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"tapegrad {' '.join(args)} failed ({result.returncode}): {result.stderr}")
    return result.stdout


def lesson_names(binary):
    """The lessons, as the error for an unknown one lists them."""
    result = subprocess.run([binary, "explore", "--lesson", "no-such-lesson"], capture_output=True, text=True)
    match = re.search(r"\(the lessons: ([^)]*)\)", result.stderr)
    if result.returncode == 0 or not match:
        sys.exit(f"an unknown lesson should be an error listing the lessons, got: {result.stderr}")
    return [name.strip() for name in match.group(1).split(",")]


def browser(profile):
    return chromium_session.start(profile, 1500, 1000)


def number(v):
    return None if v is None else float(v)  # "-Infinity" and "NaN" as Python reads them


def same(shown, expected):
    """A value as the page prints it against the recording's."""
    expected = number(expected)
    if shown in ("–",):
        return expected is None
    value = {"inf": math.inf, "-inf": -math.inf, "NaN": math.nan}.get(shown)
    value = float(shown) if value is None else value
    if math.isnan(expected):
        return math.isnan(value)
    return value == expected or abs(value - expected) <= 1e-6 * max(1.0, abs(expected))


# For every heatmap under the selector `where`: its tensor id, caption and the tooltip of its first
# and last cell (mouse moves dispatched at the corners of the cells, inside the labels' margins).
READ_FIGURES = """
const readFigures = where => {
  const tooltip = document.getElementById('tooltip');
  const hover = (canvas, x, y) => {
    canvas.dispatchEvent(new MouseEvent('mousemove', {clientX: x, clientY: y, bubbles: true}));
    return tooltip.hidden ? null : tooltip.textContent;
  };
  return [...document.querySelectorAll(where + ' figure.heatmap')].map(f => {
    const canvas = f.querySelector('canvas'), box = canvas && canvas.getBoundingClientRect();
    const d = canvas ? canvas.dataset : {}, left = box && box.left + Number(d.left), top = box && box.top + Number(d.top);
    const right = left + Number(d.cols) * Number(d.cellWidth), bottom = top + Number(d.rows) * Number(d.cellHeight);
    return {tensor: f.dataset.tensor, role: f.dataset.role, stats: f.querySelector('.stats').textContent,
            first: canvas ? hover(canvas, left + 1, top + 1) : null,
            last: canvas ? hover(canvas, right - 1, bottom - 1) : null};
  });
};
"""

# What the page shows after a click: the detail pane's title, entry and heatmaps, and the
# backward status line.
READ_PAGE = READ_FIGURES + """
const detail = document.getElementById('detail'), title = detail.querySelector('.entry-title');
return {title: title ? title.innerText : null, position: detail.dataset.position,
        status: document.getElementById('bw-status').innerText, figures: readFigures('#detail')};
"""

# The colour of a heatmap's bottom-right cell (inside its corner: the cells' geometry is on the
# canvas, whose right margin holds the column labels), and the report's colour (heatmapColour)
# for `weight`.
LAST_CELL_COLOUR = """
const canvas = arguments[0].querySelector('canvas'), d = canvas.dataset, ratio = window.devicePixelRatio || 1;
const right = Number(d.left) + arguments[2] * Number(d.cellWidth), bottom = Number(d.top) + arguments[3] * Number(d.cellHeight);
const [r, g, b] = canvas.getContext('2d').getImageData(Math.round((right - 2) * ratio), Math.round((bottom - 2) * ratio), 1, 1).data;
return [`rgb(${r},${g},${b})`, heatmapColour(arguments[1])];
"""

# A click from a script, then READ_PAGE: one WebDriver round trip, where a mouse click through
# WebDriver takes about 0.1 s and reading the page a dozen more calls.
CLICK_AND_READ = """
const target = arguments[0];
target.scrollIntoView({block: 'center', inline: 'center'});
target.dispatchEvent(new MouseEvent('click', {bubbles: true, cancelable: true, view: window}));
""" + READ_PAGE


def click(driver, element, mouse):
    """Clicks element, with WebDriver's mouse when mouse is set (the first of each kind, so that
    a control a user could not reach fails), else from a script, and returns READ_PAGE's record."""
    if not mouse:
        return driver.execute_script(CLICK_AND_READ, element)
    driver.execute_script("arguments[0].scrollIntoView({block: 'center', inline: 'center'})", element)
    element.click()
    return driver.execute_script(READ_PAGE)


def check_figures(figures, rec, context):
    for f in figures:
        if f["tensor"] == "":
            continue
        value = rec["tensors"][f["tensor"]]["value"]
        stats = re.match(r"min (\S+) · max (\S+) · mean (\S+)", f["stats"])
        assert stats, f"{context}: no statistics in '{f['stats']}'"
        for shown, key in zip(stats.groups(), ("min", "max", "mean")):
            assert same(shown, value[key]), f"{context}: tensor {f['tensor']} {key} shown {shown}, recorded {value[key]}"
        left_out = [f"{value[key]} × {what}" for key, what in (("neg_inf", "-inf"), ("pos_inf", "inf"), ("nan", "NaN"))
                    if value[key]]
        if left_out:  # the values min, max and mean leave out are counted (a masked score's -inf)
            expected = f"over {value['finite']} finite · " + " · ".join(left_out)
            assert f["stats"].endswith(expected) or f" {expected} · shown as" in f["stats"], \
                f"{context}: tensor {f['tensor']} stats '{f['stats']}' do not say '{expected}'"
        if value["grid_rows"] and value["grid_cols"]:
            for hovered, expected in ((f["first"], value["values"][0]), (f["last"], value["values"][-1])):
                assert hovered, f"{context}: hovering tensor {f['tensor']} showed nothing"
                shown = hovered.rsplit(" ", 1)[1]
                assert same(shown, expected), f"{context}: tensor {f['tensor']} hover '{hovered}', recorded {expected}"


def ids(figures, role):
    return [int(f["tensor"]) for f in figures if f["role"] == role]


def check_page(driver, page, rec, screenshot, click_graph):
    driver.get(page.as_uri())
    rows = driver.find_elements(By.CSS_SELECTOR, "#entry-list li[data-position]")
    assert len(rows) == len(rec["entries"]), f"{page}: {len(rows)} rows for {len(rec['entries'])} entries"
    for k, (row, entry) in enumerate(zip(rows, rec["entries"])):
        shown = click(driver, row, mouse=k == 0)
        context = f"{page.name} #{entry['position']} {entry['op']}"
        assert shown["title"] == f"#{entry['position']} {entry['op']}", f"{context}: the detail shows '{shown['title']}'"
        figures = shown["figures"]
        check_figures(figures, rec, context)
        assert ids(figures, "input") == [i["tensor"] for i in entry["inputs"] if i["tensor"] is not None], context
        assert ids(figures, "output") == entry["outputs"], context
        assert ids(figures, "saved") == [s["tensor"] for s in entry["saved"] if s["tensor"] is not None], context
    if click_graph:
        nodes = driver.find_elements(By.CSS_SELECTOR, "#graph .node.entry")
        assert len(nodes) == len(rec["entries"]), f"{page}: {len(nodes)} graph nodes for {len(rec['entries'])} entries"
        for k, node in enumerate(nodes):
            shown = click(driver, node, mouse=k == 0)
            assert shown["position"] == node.get_attribute("data-position"), page.name
    driver.save_screenshot(str(screenshot.with_name(screenshot.stem + "-forward.png")))

    step = driver.find_element(By.ID, "bw-step")
    for k, s in enumerate(rec["backward"], start=1):
        shown = click(driver, step, mouse=k == 1)
        entry = next(e for e in rec["entries"] if e["position"] == s["position"])
        context = f"{page.name} backward step {k}"
        assert shown["status"].startswith(f"step {k} of {len(rec['backward'])}: #{s['position']} {entry['op']}"), \
            f"{context}: status '{shown['status']}'"
        figures = shown["figures"]
        check_figures(figures, rec, context)
        assert ids(figures, "grad-in") == [g for g in s["grads_in"] if g is not None], context
        assert ids(figures, "grad-out") == [g for g in s["grads_out"] if g is not None], context
        if k == max(1, len(rec["backward"]) // 2):
            driver.save_screenshot(str(screenshot.with_name(screenshot.stem + "-backward.png")))
    assert not step.is_enabled(), f"{page.name}: step is still enabled after the last entry"
    driver.find_element(By.ID, "bw-back").click()
    before_last = len(rec["backward"]) - 1
    expected = f"step {before_last} of" if before_last else "forward pass"
    assert driver.find_element(By.ID, "bw-status").text.startswith(expected), page.name
    driver.find_element(By.ID, "bw-end").click()
    assert "backward done" in driver.find_element(By.ID, "bw-status").text, page.name

    heads = driver.find_elements(By.CSS_SELECTOR, "#attention figure.heatmap")
    assert len(heads) == len(rec.get("attention", [])), f"{page.name}: {len(heads)} attention maps"
    # numbered from 0 and coloured as the report numbers and colours them (report/page/heatmap.js)
    names = [h.find_element(By.CSS_SELECTOR, "figcaption .name").text for h in heads]
    assert names == [f"head {a['head']}" for a in rec.get("attention", [])], f"{page.name}: heads {names}"
    assert not heads or min(a["head"] for a in rec["attention"]) == 0, f"{page.name}: no head 0"
    for head, a in zip(heads, rec.get("attention", [])):
        weight = a["weights"]["values"][-1]
        if isinstance(weight, str):  # NaN (the NaN lesson's broken mask) has a colour of its own
            continue
        drawn, expected = driver.execute_script(LAST_CELL_COLOUR, head, weight, a["weights"]["grid_cols"],
                                                a["weights"]["grid_rows"])
        assert drawn == expected, f"{page.name}: {names[0]}'s last cell drawn {drawn}, the report's colour {expected}"
    if heads:
        driver.execute_script("arguments[0].scrollIntoView()", heads[0])
        driver.save_screenshot(str(screenshot.with_name(screenshot.stem + "-attention.png")))

    severe = [m for m in driver.get_log("browser") if m["level"] == "SEVERE"]
    assert not severe, f"{page.name}: console errors {severe}"
    for url in chromium_session.page_requests(driver, page.as_uri()):
        assert url.startswith(("file:", "data:", "blob:")), f"{page.name}: the page requested {url}"


# Each entry's row: the names of the groups it sits in, outermost first, joined as a module path.
ROW_GROUPS = """
return [...document.querySelectorAll('#entry-list li[data-position]')].map(row => {
  const names = [];
  for (let d = row.closest('details'); d !== null; d = d.parentNode.closest('details'))
    names.unshift(d.querySelector(':scope > summary').firstChild.textContent);
  return names.join('.');
});"""


def check_model_page(driver, page, rec):
    """A model's page: the tape grouped by module, each group folding away, and the prediction table."""
    driver.get(page.as_uri())
    modules = [e["module"] for e in rec["entries"]]
    assert "encoder.layers.0.self_attn.q_proj" in modules, modules
    assert driver.execute_script(ROW_GROUPS) == modules, "the rows are not in their modules' groups"
    group = driver.find_element(By.CSS_SELECTOR, "#entry-list li.group details summary")
    first_row = driver.find_element(By.CSS_SELECTOR, "#entry-list li.group li[data-position]")
    group.click()
    assert not first_row.is_displayed(), "a folded group still shows its entries"
    group.click()
    assert first_row.is_displayed(), "an unfolded group hides its entries"
    q_proj = driver.find_element(By.XPATH, "//ol[@id='entry-list']//summary[starts-with(., 'q_proj')]")
    q_proj.find_element(By.CSS_SELECTOR, "button.group-graph").click()
    outlined = driver.execute_script("return [...document.querySelectorAll('#graph .node.in-group')]"
                                     ".map(g => Number(g.dataset.position))")
    first_layer = [e["position"] for e in rec["entries"] if e["module"] == "encoder.layers.0.self_attn.q_proj"]
    assert sorted(outlined) == first_layer, (outlined, first_layer)
    # and the group's own graph, laid out when the page was written, holds its entries alone
    own = driver.execute_script("return [...document.querySelectorAll('#group-graph-svg .node.entry')]"
                                ".map(g => Number(g.dataset.position))")
    assert driver.find_element(By.ID, "group-graph").is_displayed(), "no group graph after its button"
    assert sorted(own) == first_layer, (own, first_layer)
    driver.find_element(By.ID, "group-graph-close").click()
    assert not driver.find_element(By.ID, "group-graph").is_displayed(), "the group graph stays after 'whole tape'"
    rows = driver.find_elements(By.CSS_SELECTOR, "#prediction tr")
    assert len(rows) == len(rec["prediction"]) + 1, (len(rows), len(rec["prediction"]))
    for row, p in zip(rows[1:], rec["prediction"]):
        cells = [c.text for c in row.find_elements(By.TAG_NAME, "td")]
        assert cells[3] == p["predicted"] and cells[2] == (p["target"] or "\u2014"), (cells, p)
    print(f"{page.name}: the tape in {len(driver.find_elements(By.CSS_SELECTOR, '#entry-list li.group'))} module "
          f"groups that fold, each with its own graph and its entries outlined in the whole graph; the prediction "
          f"next to the target at "
          f"{len(rec['prediction'])} positions")


def main(binary, work):
    work = pathlib.Path(work)
    work.mkdir(parents=True, exist_ok=True)
    pages = []  # (page, recording, small)
    def explore(name, *args):
        page, dump = work / f"{name}.html", work / f"{name}.json"
        print(tapegrad(binary, "explore", *args, "--out", str(page), "--json", str(dump)), end="")
        pages.append((page, json.loads(dump.read_text()), len(json.loads(dump.read_text())["entries"]) <= 60))
    explore("trace", "--trace")
    for lesson in lesson_names(binary):
        explore(f"lesson-{lesson}", "--lesson", lesson)
    run = work / "run"
    tapegrad(binary, "train", "--task", "reverse", "--max-len", "6", "--steps", "30", "--val-examples", "8",
             "--eval-every", "0", "--out", str(run), "--overwrite")
    explore("run", str(run), "--example", "2")
    # A computation written op by op shows the weights of its softmax: the trace's by position, the
    # attention lesson's labelled with its tokens.
    recordings = {page.stem: rec for page, rec, _ in pages}
    assert len(recordings["trace"]["attention"]) == 1, recordings["trace"]["attention"]
    lesson_keys = recordings["lesson-attention_head"]["attention"][0]["keys"]
    assert lesson_keys == ["the", "cat", "sat", "<pad>"], lesson_keys

    with tempfile.TemporaryDirectory() as profile:
        driver = browser(profile)
        try:
            for page, rec, small in pages:
                check_page(driver, page, rec, work / f"{page.stem}.png", click_graph=small)
                if page.stem == "lesson-attention_head":  # the lesson's tokens figure shows their texts
                    shown = driver.execute_script("return givenLabels('tokens', rec.inputs[0].value).colLabels")
                    assert shown == ["the", "cat", "sat", "<pad>"], shown
                print(f"{page.name}: {len(rec['entries'])} entries and {len(rec['backward'])} backward steps shown "
                      f"as recorded")
            check_model_page(driver, pages[-1][0], pages[-1][1])
        finally:
            driver.quit()


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
