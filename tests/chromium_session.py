"""Headless Chromium for the page tests, the same on every Chromium a Debian 12 user may have.

    start(profile, width, height, *flags) -> a Selenium driver on about:blank, its network log recorded
    page_requests(driver, url)            -> what the page at url requested since it was opened

A fresh profile opens Chromium's new-tab page, which requests the browser's own resources
(chrome://, and on some versions chrome-untrusted://new-tab-page/one-google-bar); a test that
counted those as the page's would fail on one Chromium and pass on another. So the profile is
told to start on about:blank (start refuses to go on otherwise), and page_requests leaves out the
requests made by the browser's own pages.
"""
import json
import os

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]

# The profile's start-up settings: open about:blank, never the new-tab page.
START_ON_BLANK = {"session": {"restore_on_startup": 4, "startup_urls": ["about:blank"]},
                  "homepage": "about:blank", "homepage_is_newtabpage": False}

BROWSER_SCHEMES = ("chrome:", "chrome-untrusted:", "devtools:")


def start(profile, width, height, *flags):
    os.makedirs(os.path.join(profile, "Default"), exist_ok=True)
    with open(os.path.join(profile, "Default", "Preferences"), "w") as preferences:
        json.dump(START_ON_BLANK, preferences)
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in FLAGS + [f"--user-data-dir={profile}", f"--window-size={width},{height}", *flags]:
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    if driver.current_url != "about:blank":
        url = driver.current_url
        driver.quit()
        raise RuntimeError(f"Chromium started on {url}, not about:blank: the profile's start-up settings were ignored")
    driver.get_log("performance")  # the start-up, before any page
    return driver


def page_requests(driver, url):
    """The URLs requested since the last call, from url's own navigation on, less those made by
    the browser's own pages (chrome:, chrome-untrusted:, devtools:). Raises when the log does not
    show url being loaded."""
    sent = [json.loads(entry["message"])["message"]["params"] for entry in driver.get_log("performance")
            if '"Network.requestWillBeSent"' in entry["message"]]
    urls = [event["request"]["url"] for event in sent]
    if url not in urls:
        raise AssertionError(f"Chromium's network log does not show {url} being loaded")
    own = sent[urls.index(url):]
    return [event["request"]["url"] for event in own if not event.get("documentURL", "").startswith(BROWSER_SCHEMES)]
