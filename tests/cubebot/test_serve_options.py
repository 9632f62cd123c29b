"""``cubebot serve``: --web-port is the page's port, --port the rig's, a busy port one line."""

from __future__ import annotations

import argparse
import socket

import pytest

from cubebot.cli import build_parser, main
from cubebot.commands.web import _ports


def serve_args(*argv: str) -> argparse.Namespace:
    return build_parser(["serve"]).parse_args(["serve", *argv])


def test_port_is_the_rigs_serial_port_and_web_port_the_pages() -> None:
    assert _ports(serve_args("--web-port", "8123", "--port", "/dev/ttyACM0")) == \
        (8123, "/dev/ttyACM0")
    assert _ports(serve_args("--port", "socket://rig.local:7000")) == \
        (8000, "socket://rig.local:7000")


def test_the_old_spellings_still_work() -> None:
    # a bare number was the web port, and --rig-port the serial port
    assert _ports(serve_args("--port", "0", "--rig-port", "rigsim://x")) == (0, "rigsim://x")


def test_two_web_ports_are_refused() -> None:
    with pytest.raises(ValueError, match="give the web port once"):
        _ports(serve_args("--port", "8001", "--web-port", "8002"))


def test_a_busy_web_port_is_one_line_naming_a_free_one(
        capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        busy = taken.getsockname()[1]
        status = main(["serve", "--web-port", str(busy)])
    out, err = capsys.readouterr()
    assert status == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err
    assert f"web port {busy} on 127.0.0.1 is in use" in lines[0]
    suggested = int(lines[0].split("use --web-port ", 1)[1].split(",")[0])
    with socket.socket() as free:  # the port named is one that can be listened on
        free.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        free.bind(("127.0.0.1", suggested))
