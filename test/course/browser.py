#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Loads every page of the built course, in both languages, in headless Chromium (Debian's
chromium and chromium-driver, driven by Selenium), served over HTTP from this machine's loopback:

    test/course/browser.py docs/site [--report FILE]

Each page must load with no error in the browser's console (a script that fails, a resource that
is not there: Chromium reports a 404 there too), every image must have loaded (naturalWidth > 0),
and every link, stylesheet and script inside the site must point at a file that exists, with the
#fragment it names (links to other sites are not followed; nothing may be loaded from one). Course pages must carry the switch to the same page in the other language.
The site's front page and the API reference's front page are loaded too, and each language's
search page with a query. Writes a report (one line per page, then the problems) and ends with
'N passed, N failed'; exits 1 if a page failed.
"""
import argparse
import functools
import html.parser
import http.server
import os
import sys
import threading
import time
import urllib.parse

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

QUERIES = {"en": "reduction", "zh": "归约"}


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


class Anchors(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids = set()

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name in ("id", "name") and value:
                self.ids.add(value)


@functools.lru_cache(maxsize=None)
def anchors(path):
    parser = Anchors()
    with open(path, encoding="utf-8", errors="replace") as f:
        parser.feed(f.read())
    return parser.ids


def serve(site):
    handler = functools.partial(Quiet, directory=site)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def browser(chromium, driver):
    os.environ.setdefault("SE_OFFLINE", "true")  # the browser and its driver are given: fetch nothing
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--window-size=1280,1000", "--lang=en-US"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(executable_path=driver), options=options)


COLLECT = """
const out = {links: [], resources: [], images: [], switch: null};
for (const a of document.querySelectorAll('a[href]')) out.links.push(a.href);
for (const e of document.querySelectorAll('link[href]')) out.resources.push(e.href);
for (const e of document.querySelectorAll('script[src]')) out.resources.push(e.src);
for (const i of document.images) out.images.push([i.currentSrc || i.src, i.complete && i.naturalWidth > 0]);
const s = document.querySelector('a.language-switch');
if (s) out.switch = s.href;
return out;
"""


def check_page(driver, base, site, url, course_page):
    """The problems of one page (an empty list: it passed)."""
    problems = []
    driver.get(url)
    for _ in range(100):
        if driver.execute_script("return document.readyState") == "complete":
            break
        time.sleep(0.05)
    time.sleep(0.2)  # scripts that run on load (search) report their errors by now
    for entry in driver.get_log("browser"):
        if entry.get("level") == "SEVERE":
            problems.append(f"console error: {entry.get('message')}")
    found = driver.execute_script(COLLECT)
    for src, loaded in found["images"]:
        if not loaded:
            problems.append(f"image not loaded: {src}")
    for target in found["links"] + found["resources"]:
        parsed = urllib.parse.urlsplit(target)
        if parsed.scheme in ("mailto", "javascript", "data"):
            continue
        if f"{parsed.scheme}://{parsed.netloc}" != base:
            if target in found["resources"]:  # a stylesheet or script from elsewhere: needs a network
                problems.append(f"loads from outside the site: {target}")
            continue  # a link to another site is the reader's to follow
        path = os.path.join(site, urllib.parse.unquote(parsed.path).lstrip("/"))
        if path.endswith("/"):
            path += "index.html"
        if not os.path.isfile(path):
            problems.append(f"broken link: {target}")
            continue
        if parsed.fragment and path.endswith(".html") and urllib.parse.unquote(parsed.fragment) not in anchors(path):
            problems.append(f"broken anchor: {target}")
    if course_page and not found["switch"]:
        problems.append("no language switch")
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("site")
    parser.add_argument("--report", help="write the report here too")
    parser.add_argument("--chromium", default=os.environ.get("CHROMIUM", "/usr/bin/chromium"))
    parser.add_argument("--driver", default=os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver"))
    args = parser.parse_args()
    site = os.path.abspath(args.site)

    pages = [("index.html", False)]
    for language in ("en", "zh"):
        names = sorted(f for f in os.listdir(os.path.join(site, language)) if f.endswith(".html"))
        if not names:
            sys.exit(f"browser: no pages in {site}/{language}")
        pages += [(f"{language}/{name}", True) for name in names]
        pages.append((f"{language}/search.html?q={urllib.parse.quote(QUERIES[language])}", True))
    pages.append(("api/index.html", False))

    server = serve(site)
    base = f"http://127.0.0.1:{server.server_address[1]}"
    driver = browser(args.chromium, args.driver)
    lines, failed = [], 0
    started = time.time()
    try:
        version = driver.capabilities.get("browserVersion", "?")
        lines.append(f"Chromium {version} (headless), {len(pages)} pages of {site}, served at {base}")
        for name, course_page in pages:
            problems = check_page(driver, base, site, f"{base}/{name}", course_page)
            lines.append(f"{'FAIL' if problems else 'ok  '}  {name}")
            lines += [f"        {p}" for p in problems]
            failed += bool(problems)
    finally:
        driver.quit()
        server.shutdown()
    lines.append(f"{len(pages)} pages in {time.time() - started:.1f} s: every console, link, anchor and image "
                 f"checked" if not failed else f"{failed} of {len(pages)} pages have problems")
    lines.append(f"browser: {len(pages) - failed} passed, {failed} failed")
    text = "\n".join(lines) + "\n"
    print(text, end="")
    if args.report:
        with open(args.report, "w", encoding="utf-8") as f:
            f.write(text)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
