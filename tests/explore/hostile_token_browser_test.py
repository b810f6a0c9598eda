#!/usr/bin/python3
"""A token that opens a comment and a script, in a real browser (headless Chromium, no Selenium).

    hostile_token_browser_test.py TAPEGRAD WORK_DIR

Inside a <script> element, "<!--<script>" makes the HTML parser swallow everything up to a
second "</script>": the page's own scripts never run. A tiny run is trained on a labelled file
whose every line holds that token (so validation example 0 does), then its report.html and
`tapegrad explore RUN --example 0`'s page are loaded from disk with `chromium --dump-dom`, and
each page's script must have filled in what it fills: the report's subtitle, the explorer's
title and tape list. Chromium failing to start is a failure, not a skip.
"""
import pathlib
import re
import subprocess
import sys

TOKEN = "<!--<script>"


def run(*args):
    result = subprocess.run(list(args), capture_output=True, text=True, timeout=300)
    if result.returncode != 0:
        sys.exit(f"FAIL: {' '.join(args)} exited {result.returncode}: {result.stderr}")
    return result.stdout


def dom(page):
    return run("/usr/bin/chromium", "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
               "--disable-background-networking", f"--user-data-dir={page.parent / 'profile'}", "--dump-dom",
               page.resolve().as_uri())


def main():
    tapegrad, work = sys.argv[1], pathlib.Path(sys.argv[2])
    work.mkdir(parents=True, exist_ok=True)
    data = work / "hostile.tsv"
    data.write_text(f"{TOKEN} a b\tX Y Z\n" * 20)
    out = work / "run"
    run(tapegrad, "train", "--task", "file", "--data", str(data), "--steps", "2", "--warmup", "1", "--d-model",
        "16", "--heads", "2", "--layers", "1", "--ff", "16", "--batch-size", "4", "--overwrite", "--out", str(out))
    page = work / "explore.html"
    run(tapegrad, "explore", str(out), "--example", "0", "--out", str(page))

    failures = []
    report = dom(out / "report.html")
    if not re.search(r'<p id="subtitle">[^<]+</p>', report):
        failures.append("report.html: the script did not run (no subtitle)")
    explorer = dom(page)
    if not re.search(r'<h1 id="title">[^<]+</h1>', explorer):
        failures.append("explore page: the script did not run (no title)")
    if "<li" not in explorer.split('id="entry-list"', 1)[-1]:
        failures.append("explore page: the script did not run (no tape entries)")
    for failure in failures:
        print(f"FAIL: {failure}", file=sys.stderr)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
