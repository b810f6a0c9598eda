#!/usr/bin/python3
"""What a student and an instructor need of tapegrad explore's lesson pages, in a real browser
(headless Chromium driven by Selenium, as browser_test.py drives it).

- stepping_keeps_the_controls: stepping backward never scrolls the window (the buttons and the
  status stay on the screen), and the tape list scrolls itself to keep the current entry in view.

It writes the lesson pages it reads into WORK_DIR and saves screenshots there. Chromium failing
to start is a failure, not a skip.

usage: page_usability_browser_test.py TAPEGRAD WORK_DIR
"""
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


def stepping_keeps_the_controls(driver, pages, work):
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
        assert shown["pane"][0] <= top and bottom <= shown["pane"][1], \
            f"step {k}: the current row {shown['row']} is outside the tape list's visible box {shown['pane']}"
        list_scrolled |= shown["scrolled"] > 0
    assert list_scrolled, "the tape list never scrolled: the test did not reach a row below the fold"
    driver.save_screenshot(str(work / "stepping.png"))


CHECKS = [stepping_keeps_the_controls]


def main(binary, work):
    work = pathlib.Path(work)
    work.mkdir(parents=True, exist_ok=True)
    pages = {}
    for lesson in ("attention_head", "encoder_layer"):
        pages[lesson] = work / f"{lesson}.html"
        tapegrad(binary, "explore", "--lesson", lesson, "--out", str(pages[lesson]))
    with tempfile.TemporaryDirectory() as profile:
        driver = browser(profile)
        try:
            for check in CHECKS:
                check(driver, pages, work)
                print(f"{check.__name__}: holds")
        finally:
            driver.quit()


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
