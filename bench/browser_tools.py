"""What the browser benchmarks share: a free local port and headless Chromium."""

from __future__ import annotations

import os

from machine import free_port  # bench/, beside this script
from selenium import webdriver

__all__ = ["browser", "free_port"]




def browser() -> webdriver.Chrome:
    """Headless Chromium (Debian's, when installed) with the flags this sandbox needs."""
    options = webdriver.ChromeOptions()
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--window-size=1600,1000"):
        options.add_argument(flag)
    if os.path.exists("/usr/bin/chromium"):
        options.binary_location = "/usr/bin/chromium"
    return webdriver.Chrome(options=options)
