#!/usr/bin/python3
"""The page tests' Chromium session (tests/chromium_session.py) on this machine's Chromium:
it starts on about:blank, not on the new-tab page, and gives a page's own requests, one to the
network included.

    chromium_session_test.py WORK_DIR
"""
import pathlib
import sys
import tempfile

import chromium_session


def main(work):
    work = pathlib.Path(work)
    work.mkdir(parents=True, exist_ok=True)
    quiet, fetching = work / "quiet.html", work / "fetching.html"
    quiet.write_text("<!doctype html><title>quiet</title><img src='data:image/gif;base64,R0lGODlhAQABAAAAACw='>")
    fetching.write_text("<!doctype html><title>fetching</title><img src='http://127.0.0.1:9/pixel.png'>")
    with tempfile.TemporaryDirectory() as profile:
        driver = chromium_session.start(profile, 800, 600)
        try:
            driver.get(quiet.as_uri())
            requests = chromium_session.page_requests(driver, quiet.as_uri())
            assert requests[0] == quiet.as_uri() and all(u.startswith("data:") for u in requests[1:]), requests
            driver.get(fetching.as_uri())
            requests = chromium_session.page_requests(driver, fetching.as_uri())
            assert "http://127.0.0.1:9/pixel.png" in requests, f"the page's request was not seen: {requests}"
            try:
                chromium_session.page_requests(driver, quiet.as_uri())
                refusal = ""
            except AssertionError as error:
                refusal = str(error)
            assert "does not show" in refusal, "a page that was not loaded was reported as loaded"
        finally:
            driver.quit()
    print(f"Chromium {driver.capabilities['browserVersion']}: started on about:blank; a page's own requests "
          "seen")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
