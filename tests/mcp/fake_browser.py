"""The tests' ``BROWSER``: opens the authorization URL the way a browser would (following the
redirect to pi's loopback callback) and appends what it saw to ``FAKE_BROWSER_LOG``."""

from __future__ import annotations

import os
import sys

import httpx

url = sys.argv[1]
try:
    response = httpx.get(url, follow_redirects=True, timeout=30)
    line = f"{response.status_code} {response.url} {url}\n"
except httpx.HTTPError as error:
    line = f"error {error} {url}\n"
with open(os.environ["FAKE_BROWSER_LOG"], "a", encoding="utf-8") as log:
    log.write(line)
