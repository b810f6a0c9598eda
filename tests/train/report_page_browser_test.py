#!/usr/bin/python3
"""report.html in headless Chromium (Debian's chromium, chromium-driver, python3-selenium).

    report_page_browser_test.py <tapegrad program> <work dir>

Trains two tiny runs (a labelled file whose every line has the same input, so validation
example 0 is known; and the reverse task with other layer and head counts), then opens the
trainer's report.html and the page `tapegrad report a b` writes, from disk, and checks:
  - no console message at level SEVERE, and nothing loaded but the file itself (Chrome's
    network log and the page's resource timing entries);
  - every point the Chart.js charts plot equals metrics.jsonl's (tokens/s = tokens / ms);
  - one heatmap per layer x head of each run, labelled with validation example 0's tokens;
  - the overlay has both runs' lines, named by their directories;
  - `tapegrad report a` rewrites a's report.html as the trainer wrote it;
  - a seq2seq run's page says why it has no attention maps.
Screenshots go into the work directory. Chromium failing to start is a failure, not a skip.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import chromium_session  # noqa: E402

SENTENCE = "the cat sat on the mat".split()
TAGS = "DET NOUN VERB ADP DET NOUN".split()
TINY = ["--d-model", "16", "--ff", "32", "--batch-size", "8", "--steps", "30", "--warmup", "3",
        "--eval-every", "10", "--seed", "1"]

failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print(f"FAIL: {what}", file=sys.stderr)


def tapegrad(program, *args):
    result = subprocess.run([program, *args], capture_output=True, text=True, timeout=300)
    if result.returncode != 0:
        sys.exit(f"FAIL: tapegrad {' '.join(args)} exited {result.returncode}: {result.stderr}")
    return result.stdout


def read_log(run_dir):
    records = [json.loads(line) for line in open(os.path.join(run_dir, "metrics.jsonl")) if line.strip()]
    return [r for r in records if r["type"] == "train"], [r for r in records if r["type"] == "eval"]


PAGE_STATE = """
const report = window.tapegradReport;
if (!report || !report.complete) return null;
const charts = {};
for (const [id, chart] of Object.entries(report.charts))
  charts[id] = {
    onCanvas: Chart.getChart(document.getElementById(id)) === chart,
    datasets: chart.data.datasets.map((d) => ({label: d.label, points: (d._data || d.data).map((p) => [p.x, p.y])})),
  };
const heatmaps = report.heatmaps.map((h) => {
  const pixels = h.canvas.getContext('2d').getImageData(0, 0, h.canvas.width, h.canvas.height).data;
  let coloured = 0;
  for (let i = 0; i < pixels.length; i += 4) if (pixels[i + 3] > 0 && pixels[i] < 200) coloured++;
  return {run: h.run, layer: h.layer, head: h.head, tokens: h.tokens, label: h.canvas.getAttribute('aria-label'),
          coloured};
});
return {charts, heatmaps, resources: performance.getEntriesByType('resource').map((e) => e.name)};
"""


def open_page(driver, path, screenshot):
    url = "file://" + os.path.abspath(path)
    driver.get(url)
    state = driver.execute_script(PAGE_STATE)
    check(state is not None, f"{path}: the page's script did not finish (window.tapegradReport.complete)")
    severe = [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    check(not severe, f"{path}: console errors: {severe}")
    requests = chromium_session.page_requests(driver, url)
    check(requests == [url], f"{path}: requests other than the file itself: {requests}")
    if state:
        check(state["resources"] == [], f"{path}: resources loaded: {state['resources']}")
    height = driver.execute_script("return document.documentElement.scrollHeight")
    driver.set_window_size(1400, height)
    driver.save_screenshot(screenshot)
    driver.set_window_size(1400, 1000)
    return state or {"charts": {}, "heatmaps": []}


def dataset(state, chart, label):
    for d in state["charts"].get(chart, {}).get("datasets", []):
        if d["label"] == label:
            return d["points"]
    check(False, f"{chart}: no line labelled {label!r}")
    return []


def check_curves(state, run_dir, prefix):
    train, evals = read_log(run_dir)
    name = lambda part: f"{prefix}{part}"
    points = lambda records, key: [[r["step"], r[key]] for r in records]
    check(len(train) == 30 and len(evals) == 3, f"{run_dir}: expected 30 steps and 3 evaluations in metrics.jsonl")
    for chart, key in [("chart-loss", "loss"), ("chart-token-acc", "token_acc")]:
        check(dataset(state, chart, name("train")) == points(train, key), f"{chart}: train points differ from {run_dir}")
        check(dataset(state, chart, name("validation")) == points(evals, key),
              f"{chart}: validation points differ from {run_dir}")
    check(dataset(state, "chart-exact-match", name("validation")) == points(evals, "exact_match"),
          f"chart-exact-match: points differ from {run_dir}")
    check(dataset(state, "chart-lr", name("train")) == points(train, "lr"), f"chart-lr: points differ from {run_dir}")
    check(dataset(state, "chart-grad-norm", name("train")) == points(train, "grad_norm"),
          f"chart-grad-norm: points differ from {run_dir}")
    speed = dataset(state, "chart-tokens-per-s", name("train"))
    expected = [[r["step"], r["tokens"] / (r["ms"] / 1000)] for r in train]
    check(len(speed) == len(expected) and all(s == e[0] and abs(v - w) <= 1e-9 * w
                                              for (s, v), e, w in zip(speed, expected, (e[1] for e in expected))),
          f"chart-tokens-per-s: points differ from tokens / ms of {run_dir}")
    for chart, content in state["charts"].items():
        check(content["onCanvas"], f"{chart}: the chart object is not the one drawn on its canvas")


def check_heatmaps(heatmaps, run_index, run_dir, layers, heads, tokens):
    maps = [h for h in heatmaps if h["run"] == run_index]
    check(sorted((h["layer"], h["head"]) for h in maps) == [(l, h) for l in range(layers) for h in range(heads)],
          f"{run_dir}: expected one heatmap per layer x head ({layers} x {heads}), got {len(maps)}")
    for h in maps:
        where = f"{run_dir} layer {h['layer']} head {h['head']}"
        if tokens is not None:
            check(h["tokens"] == tokens, f"{where}: tokens {h['tokens']}, expected {tokens}")
        check(h["label"] == f"{run_dir}, layer {h['layer']}, head {h['head']}", f"{where}: label {h['label']}")  # from 0
        check(h["coloured"] > 0, f"{where}: nothing drawn")


def main():
    program, work = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    os.chdir(work)  # the runs are named by relative paths, as a user would
    with open("tags.tsv", "w") as f:
        f.write(f"{' '.join(SENTENCE)}\t{' '.join(TAGS)}\n" * 40)
    tapegrad(program, "train", "--task", "file", "--data", "tags.tsv", "--layers", "2", "--heads", "2", *TINY,
             "--out", "run_a")
    tapegrad(program, "train", "--task", "reverse", "--val-examples", "32", "--layers", "1", "--heads", "4", *TINY,
             "--out", "run_b")
    trainer_page = open("run_a/report.html", "rb").read()
    tapegrad(program, "report", "run_a")
    check(open("run_a/report.html", "rb").read() == trainer_page,
          "tapegrad report run_a wrote another page than the trainer's")
    tapegrad(program, "report", "run_a", "run_b", "--out", "both.html")
    tapegrad(program, "train", "--arch", "seq2seq", "--task", "addition", "--layers", "1", "--heads", "2", *TINY,
             "--out", "run_s")

    profile = tempfile.mkdtemp(prefix="tapegrad_chromium_")
    try:
        driver = chromium_session.start(profile, 1400, 1000, "--hide-scrollbars")
    except Exception as e:  # no browser is a failure: the page would go untested
        sys.exit(f"FAIL: Chromium did not start: {e}")
    try:
        single = open_page(driver, "run_a/report.html", os.path.join(work, "report_run_a.png"))
        check_curves(single, "run_a", "")
        check_heatmaps(single["heatmaps"], 0, "run_a", 2, 2, SENTENCE)

        both = open_page(driver, "both.html", os.path.join(work, "report_run_a_and_b.png"))
        labels = [d["label"] for d in both["charts"].get("chart-loss", {}).get("datasets", [])]
        check(labels == ["run_a \u00b7 train", "run_a \u00b7 validation", "run_b \u00b7 train", "run_b \u00b7 validation"],
              f"both.html: the loss chart's lines are {labels}")
        check_curves(both, "run_a", "run_a \u00b7 ")
        check_curves(both, "run_b", "run_b \u00b7 ")
        check_heatmaps(both["heatmaps"], 0, "run_a", 2, 2, SENTENCE)
        check_heatmaps(both["heatmaps"], 1, "run_b", 1, 4, None)

        seq2seq = open_page(driver, "run_s/report.html", os.path.join(work, "report_run_s.png"))
        headings = driver.execute_script("return [...document.querySelectorAll('#attention h3')].map(h => h.textContent)")
        expected = "run_s: no attention maps (an encoder-decoder run: the page draws self-attention of an encoder or a GPT)"
        check(headings == [expected] and seq2seq["heatmaps"] == [], f"run_s/report.html: attention section {headings}")
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)
    if failures:
        sys.exit(f"{len(failures)} check(s) failed")
    print(f"report pages checked in Chromium; screenshots in {work}")


main()
