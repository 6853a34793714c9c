"""What the browser benchmarks share: a free local port and headless Chromium."""

from __future__ import annotations

import os
import socket

from selenium import webdriver


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


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
