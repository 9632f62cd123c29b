"""Every subcommand given bad input ends with status 2 and one ``error:`` line, no traceback.

Each case runs ``python -m cubebot`` as a fresh process, as a user's shell would.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from cubebot.commands import CALIBRATE_TARGETS, COMMANDS

REPO = Path(__file__).resolve().parents[2]
SOLVED3 = "UUUUUUUUURRRRRRRRRFFFFFFFFFDDDDDDDDDLLLLLLLLLBBBBBBBBB"
SCRAMBLED2 = "UUURBFLRBDLDBFDFFRLURLDB"
NO_PORT = "/nonexistent/ttyACM9"


def _json_file(tmp: Path, name: str, text: str) -> str:
    path = tmp / name
    path.write_text(text)
    return str(path)


# name -> list of argument lists (after ``cubebot``); a function of the temp folder for files
BAD_INPUT = {
    "solve": lambda tmp: [["solve", "XYZ"], ["solve", SOLVED3[:-1] + "Q"],
                          ["solve", SCRAMBLED2, "--faces", "DLB"],
                          ["solve", SOLVED3, "--faces", "UR"], ["solve", SOLVED3, "--timeout", "-1"]],
    "apply": lambda tmp: [["apply", "Q2"], ["apply", "R", "--from", "UUU"],
                          ["apply", "Q" * 100_000]],
    "show": lambda tmp: [["show", "abc"], ["show", SOLVED3, "--png", str(tmp / "no-suffix")]],
    "scramble": lambda tmp: [["scramble", "--size", "5"]],
    "game": lambda tmp: [["game", "--players", "0"], ["game", "--seed", "x"]],
    "classify": lambda tmp: [["classify", "--rgb", _json_file(tmp, "a.json",
                                                              '{"size": [3], "rgb": []}')],
                             ["classify", "--rgb", _json_file(tmp, "c.json", '{"size": [3]}')],
                             ["classify", "--rgb", _json_file(tmp, "b.json", "[" * 100_000)],
                             ["classify", "--rgb", str(tmp / "missing.json")]],
    "scan": lambda tmp: [["scan", "--images", str(tmp / "missing")]],
    "rig-sim": lambda tmp: [["rig-sim", "--rig", str(tmp / "missing.json")]],
    "stream": lambda tmp: [["stream", "R U", "--port", NO_PORT], ["stream", "Q", "--port", NO_PORT]],
    "rig-info": lambda tmp: [["rig-info", "--port", NO_PORT]],
    "stop": lambda tmp: [["stop", "--port", NO_PORT], ["stop", "--port", NO_PORT, "--clear"],
                         ["stop", "--port", NO_PORT, "--estop"]],
    "rig-check": lambda tmp: [["rig-check", "--port", NO_PORT]],
    "serve": lambda tmp: [["serve", "--images", str(tmp / "missing")]],
    "demo": lambda tmp: [["demo", "--conditions", "nonsense"], ["demo", "--size", "4"]],
    "run": lambda tmp: [["run", "--images", str(tmp / "missing"), "--port", NO_PORT]],
    "calibrate colours": lambda tmp: [["calibrate", "colours", "--images", str(tmp / "missing")]],
    "calibrate colors": lambda tmp: [["calibrate", "colors", "--images", str(tmp / "missing")]],
    "calibrate camera": lambda tmp: [["calibrate", "camera", "--image", str(tmp / "missing.png")]],
}


def _names() -> list[str]:
    return list(COMMANDS) + [f"calibrate {t}" for t in CALIBRATE_TARGETS]


def test_every_subcommand_has_a_bad_input_case() -> None:
    assert sorted(BAD_INPUT) == sorted(_names())


def _cases() -> list[object]:
    with tempfile.TemporaryDirectory() as scratch:
        counts = {name: len(BAD_INPUT[name](Path(scratch))) for name in _names()}
    # the default run tries each subcommand's first bad input; -m slow tries the rest
    return [pytest.param(name, index, id=f"{name}-{index}",
                         marks=[pytest.mark.slow] if index else [])
            for name in _names() for index in range(counts[name])]


@pytest.mark.parametrize(("name", "index"), _cases())
def test_bad_input_gives_one_error_line_and_status_2(name: str, index: int,
                                                     tmp_path: Path) -> None:
    env = dict(os.environ, CUBEBOT_CACHE_DIR=os.environ.get("CUBEBOT_CACHE_DIR",
                                                           str(tmp_path / "cache")))
    argv = BAD_INPUT[name](tmp_path)[index]
    done = subprocess.run([sys.executable, "-m", "cubebot", *argv], cwd=REPO, env=env,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=60)
    shown = " ".join(a if len(a) < 40 else a[:40] + "..." for a in argv)
    assert "Traceback" not in done.stderr, f"cubebot {shown}: {done.stderr[-800:]}"
    errors = [line for line in done.stderr.splitlines() if ": error: " in line]
    assert done.returncode == 2 and len(errors) == 1, (
        f"cubebot {shown}: status {done.returncode}, stderr {done.stderr[-800:]!r}")
    assert len(errors[0]) < 500, f"cubebot {shown}: an error line of {len(errors[0])} chars"


def test_an_unusable_cache_folder_is_named_with_how_to_choose_another() -> None:
    env = dict(os.environ, CUBEBOT_CACHE_DIR="/proc/nope")
    done = subprocess.run([sys.executable, "-m", "cubebot", "solve", SCRAMBLED2], cwd=REPO,
                          env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "/proc/nope" in done.stderr and "CUBEBOT_CACHE_DIR" in done.stderr
    assert "set CUBEBOT_CACHE_DIR to a folder" in done.stderr
    ok = subprocess.run([sys.executable, "-m", "cubebot", "solve", SCRAMBLED2], cwd=REPO,
                        stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120,
                        env=dict(os.environ, CUBEBOT_CACHE_DIR=os.environ.get(
                            "CUBEBOT_CACHE_DIR", tempfile.mkdtemp())))
    assert ok.returncode == 0 and ok.stdout.strip()  # a usable folder solves as before
