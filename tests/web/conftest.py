"""Fixtures for the dashboard tests: a real ``cubebot serve`` and headless Chromium.

The server runs as a subprocess (``python -m cubebot serve --demo --port 0``), exactly as a
user starts it; its first line is the page's address. The browser is Debian's Chromium driven
by Selenium through the system ``chromedriver`` (never a downloaded one). Tests skip with a
message when the web extra, Selenium or the browser is missing.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Optional

import pytest

REPO = Path(__file__).resolve().parents[2]
CHROMIUM = os.environ.get("CUBEBOT_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("CUBEBOT_CHROMEDRIVER", "/usr/bin/chromedriver")


def need_web_extra() -> None:
    """Skip the calling test, with a message, when the web extra is not installed."""
    for module in ("starlette", "uvicorn"):
        try:
            __import__(module)
        except ImportError:
            pytest.skip(f"the web extra is not installed ({module} missing): "
                        "pip install 'cubebot[web]'")


@dataclass
class Server:
    """A running ``cubebot serve``: its page address, token (if any) and process."""

    url: str
    process: subprocess.Popen
    token: Optional[str] = None

    @property
    def base(self) -> str:
        """Return the address without the query (``http://127.0.0.1:PORT/``)."""
        return self.url.split("?", 1)[0]

    def post(self, path: str, body: Any = None, *, token: Optional[str] = None,
             data: Optional[bytes] = None, content_type: str = "application/json",
             headers: Optional[dict[str, str]] = None) -> tuple[int, dict[str, Any]]:
        """Return the status and JSON answer of a POST to ``path``, sent as the page sends it."""
        payload = data if data is not None else json.dumps(body or {}).encode()
        sent = {"Content-Type": content_type, "X-Cubebot-Page": "1", **(headers or {})}
        request = urllib.request.Request(self.base + path.lstrip("/"), data=payload,
                                         method="POST", headers=sent)
        if token:
            request.add_header("X-Cubebot-Token", token)
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:
                return answer.status, json.loads(answer.read())
        except urllib.error.HTTPError as err:
            return err.code, json.loads(err.read())

    def get(self, path: str) -> tuple[int, dict[str, str], bytes]:
        """Return the status, headers and body of a GET of ``path``."""
        try:
            with urllib.request.urlopen(self.base + path.lstrip("/"), timeout=30) as answer:
                return answer.status, dict(answer.headers), answer.read()
        except urllib.error.HTTPError as err:
            return err.code, dict(err.headers), err.read()


def start_server(*args: str) -> Server:
    """Return a started ``cubebot serve`` with ``args`` (its first line read as the address)."""
    need_web_extra()
    env = dict(os.environ)
    # the web port's option, by either of its names (`--port` became `--web-port`, so that
    # `--port` is the serial port everywhere)
    serve = (REPO / "cubebot" / "commands" / "web.py").read_text(encoding="utf-8")
    web_port = "--web-port" if '"--web-port"' in serve else "--port"
    process = subprocess.Popen([sys.executable, "-m", "cubebot", "serve", web_port, "0", *args],
                               cwd=REPO, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    assert process.stdout is not None
    first = process.stdout.readline().strip()
    if not first.startswith("http://"):
        process.kill()
        _, err = process.communicate(timeout=10)
        raise AssertionError(f"cubebot serve printed {first!r} first; stderr: {err}")
    token = first.split("?token=", 1)[1] if "?token=" in first else None
    return Server(first, process, token)


def stop_server(server: Server) -> None:
    """Stop the server (SIGTERM, then kill) and close its pipes."""
    server.process.terminate()
    try:
        server.process.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        server.process.kill()
        server.process.communicate(timeout=10)


@pytest.fixture
def demo_server(tmp_path: Path) -> Iterator[Server]:
    """Return a fresh ``cubebot serve --demo`` on 127.0.0.1 (its own scrambled cube and rig).

    Its colour profile is saved to ``tmp_path / "profile.json"``.
    """
    server = start_server("--demo", "--seed", "3", "--profile", str(tmp_path / "profile.json"))
    yield server
    stop_server(server)


@pytest.fixture
def browser() -> Iterator[Any]:
    """Return a headless Chromium driven by Selenium, logging console and network events."""
    need_web_extra()
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        pytest.skip("selenium is not installed: pip install 'cubebot[test]'")
    for path in (CHROMIUM, CHROMEDRIVER):
        if not (Path(path).exists() or shutil.which(path)):
            pytest.skip(f"no headless browser: {path} is missing "
                        "(apt install chromium chromium-driver)")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--window-size=1280,1500", "--no-first-run", "--disable-extensions",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--disable-default-apps", "--metrics-recording-only",
                 # the page's own camera: Chromium's test pattern, allowed without asking
                 "--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(30)
    try:
        yield driver
    finally:
        driver.quit()
