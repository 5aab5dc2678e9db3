"""Where the browser is, and small waits shared by the browser tests."""

from __future__ import annotations

import shutil
from pathlib import Path

CHROMEDRIVER = "/usr/bin/chromedriver"


def chromium_present() -> bool:
    return Path(CHROMEDRIVER).exists() and shutil.which("chromium") is not None
