"""Browser tests: headless Chromium (Debian's `chromium` and `chromium-driver`) driven by
selenium against the real stack (gunicorn with gevent, an rq worker, a private Redis).

Without Chromium these tests are not collected; `make test` says so in one line.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.support.browser_support import CHROMEDRIVER, chromium_present

ROOT = Path(__file__).resolve().parents[3]

if not chromium_present():
    collect_ignore_glob = ["test_*.py"]

SCREENSHOTS = ROOT / "var" / "screenshots"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--window-size=1280,1400",
]


@pytest.fixture(scope="session")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """gunicorn and an rq worker on a private Redis; streams end after 1 s (so the pages
    resume with Last-Event-ID all the time)."""
    from tests.support.reliability_procs import PrivateRedis, Stack

    base = tmp_path_factory.mktemp("browser")
    server = PrivateRedis(base / "redis", appendonly=False)
    server.start()
    served = Stack(base, server.url)
    try:
        served.start_api(workers=1, DEADWOOD_SSE_MAX_SECONDS="1")
        yield served
    finally:
        served.stop()
        server.stop()


@pytest.fixture(scope="session")
def worker(stack: Any) -> Any:
    """The bots' worker, started on first use (the live test starts it itself)."""
    if not stack.workers:
        stack.start_worker()
    return stack.workers[0]


@pytest.fixture(scope="session")
def chrome() -> Iterator[Any]:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    for flag in FLAGS:
        options.add_argument(flag)
    profile = tempfile.TemporaryDirectory(prefix="deadwood-chromium-")
    options.add_argument(f"--user-data-dir={profile.name}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    try:
        yield driver
    finally:
        driver.quit()
        profile.cleanup()


class Page:
    """What one test did in the browser: its screenshot, console and requests are checked."""

    def __init__(self, driver: Any, base_url: str, name: str) -> None:
        self.driver = driver
        self.base_url = base_url
        self.name = name
        driver.get_log("browser")  # drop what earlier tests left
        driver.get_log("performance")

    def open(self, path: str) -> None:
        self.driver.get(self.base_url + path)

    def finish(self, allowed_errors: tuple[str, ...] = ()) -> Path:
        """Save the screenshot; no console error (but `allowed_errors`); no other host."""
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        shot = SCREENSHOTS / f"{self.name}.png"
        self.driver.save_screenshot(str(shot))
        errors = [
            entry["message"]
            for entry in self.driver.get_log("browser")
            if entry["level"] == "SEVERE" and not any(a in entry["message"] for a in allowed_errors)
        ]
        assert errors == [], errors
        foreign = [url for url in self.requested() if not self._ours(url)]
        assert foreign == [], foreign
        return shot

    def requested(self) -> list[str]:
        """Every URL the page asked for: the CDP network log and the page's resource timing."""
        urls: list[str] = []
        for entry in self.driver.get_log("performance"):
            message = json.loads(entry["message"])["message"]
            if message.get("method") == "Network.requestWillBeSent":
                urls.append(message["params"]["request"]["url"])
        urls += self.driver.execute_script(
            "return performance.getEntriesByType('resource').map(e => e.name)"
        )
        return urls

    def _ours(self, url: str) -> bool:
        parts = urlsplit(url)
        if parts.scheme in ("data", "blob", "about", "chrome"):
            return True  # inline, or Chromium's own bundled resources: no host is asked
        return f"{parts.scheme}://{parts.netloc}" == self.base_url


@pytest.fixture
def page(chrome: Any, stack: Any, request: pytest.FixtureRequest) -> Page:
    return Page(chrome, stack.base_url, request.node.name)
