"""The dashboard's rig panel in a real browser, at desktop and at phone size: what may be done
next is the rig's own decision, no move is ever made twice, every greyed button says why, and
Stop and Emergency stop stay on screen while the rig turns."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

import pytest

from conftest import Server, start_server, stop_server
from test_dashboard import (
    _all,
    _check_clean_logs,
    _click,
    _el,
    _net_letters,
    _open,
    _percent,
    _scan_and_solve,
    _wait,
    _wait_state,
)

SOLVED = "".join(face * 9 for face in "URFDLB")
#: (width, height) of the page's viewport: a desktop window and a phone (390x844)
SIZES = {"desktop": (1280, 900), "phone": (390, 844)}


@pytest.fixture
def slow_demo(tmp_path: Path) -> Iterator[Server]:
    """Return ``cubebot serve --demo`` whose simulated motors turn four times slower than a
    real rig's, so that a stop lands mid-run however busy the machine is."""
    server = start_server("--demo", "--seed", "3", "--time-scale", "4",
                          "--profile", str(tmp_path / "profile.json"))
    yield server
    stop_server(server)


def _viewport(driver: Any, size: str) -> None:
    width, height = SIZES[size]
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": width, "height": height, "deviceScaleFactor": 1 if size == "desktop" else 3,
        "mobile": size == "phone"})


def _unexplained(driver: Any) -> list[str]:
    """Return the disabled buttons that do not say why (no visible reason, no title)."""
    return driver.execute_script("""
        return [...document.querySelectorAll('button')]
          .filter((b) => b.disabled && b.offsetParent !== null && !b.title.trim())
          .map((b) => b.id || b.dataset.test || b.dataset.sticker || b.textContent);""")


def _why(driver: Any, test: str) -> str:
    return _el(driver, test).get_attribute("title")


def _on_screen(driver: Any, test: str) -> bool:
    """Return whether the element is wholly inside the viewport."""
    return driver.execute_script("""
        const r = arguments[0].getBoundingClientRect();
        return r.width > 0 && r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight
          && r.right <= innerWidth;""", _el(driver, test))


def _state(server: Server) -> dict[str, Any]:
    import json

    status, _, body = server.get("/api/state")
    assert status == 200
    return json.loads(body)


@pytest.mark.parametrize("size", list(SIZES))
def test_stop_then_run_offers_resume_and_clear_and_no_move_is_made_twice(
        slow_demo: Server, browser: Any, size: str) -> None:
    _viewport(browser, size)
    _open(browser, slow_demo)
    assert _unexplained(browser) == []
    assert "connect" not in _why(browser, "run")  # the demo's rig is connected
    assert "solve the cube first" in _why(browser, "run")
    moves = _scan_and_solve(browser)
    assert _why(browser, "run") == f"start {len(moves)} moves from the first"
    _click(browser, "run")
    _wait(browser, lambda d: _percent(d) > 0, "the rig to make a move")

    # while the rig turns, Stop and Emergency stop are on screen wherever the page is scrolled
    for place in ("window.scrollTo(0, document.body.scrollHeight)",
                  "document.getElementById('cube3d').scrollIntoView()",
                  "window.scrollTo(0, 0)"):
        browser.execute_script(place)
        assert _on_screen(browser, "stop") and _on_screen(browser, "estop"), (size, place)
    assert _el(browser, "stop").is_enabled() and _el(browser, "estop").is_enabled()
    assert _unexplained(browser) == []

    _click(browser, "stop")
    _wait_state(browser, "stopped")
    rig = _state(slow_demo)["rig"]
    made = rig["moves_done"]
    assert 0 < made < len(moves)
    # Run never starts again from the first move: it says why, and so does the server
    assert not _el(browser, "run").is_enabled()
    assert "twice" in _why(browser, "run") and "resume, or clear" in _why(browser, "run")
    assert _why(browser, "resume") == f"resume at move {made + 1} of {len(moves)}"
    assert _el(browser, "clear").text == f"Clear ({made} of {len(moves)} moves made)"
    assert f"stopped after {made} of {len(moves)} moves" in _el(browser, "rig-next").text
    assert _unexplained(browser) == []
    status, refused = slow_demo.post("/api/rig/run")
    assert status == 400 and "twice" in refused["error"]
    assert _state(slow_demo)["rig"]["moves_done"] == made  # nothing was sent

    _click(browser, "resume")
    seen: list[int] = []

    def watch(d: Any) -> bool:
        seen.append(_percent(d))
        return _el(d, "rig-state").text == "solved"
    _wait(browser, watch, "the rig to solve the cube")
    assert seen == sorted(seen)  # the count never went back to the first move
    final = _state(slow_demo)
    # every move made once: the rig's own cube is solved, its count the solution's length
    assert final["rig"]["rig_facelets"] == SOLVED
    assert final["rig"]["moves_done"] == len(moves)
    assert final["rig"]["next"]["state"] == "finished" and final["rig"]["next"]["made"] == len(moves)

    # a finished run leaves the page ready for the next scan, and says why Run is greyed
    assert _why(browser, "run").startswith(f"all {len(moves)} moves already made")
    assert _el(browser, "scan").is_enabled() and _el(browser, "scan").text == "Scan the next cube"
    assert _unexplained(browser) == []
    _click(browser, "scan")
    _wait(browser, lambda d: _state(slow_demo)["scan"]["solution"] is None and
          _net_letters(d) == SOLVED, "the rig's solved cube scanned afresh")
    _click(browser, "solve")
    _wait(browser, lambda d: _why(d, "run") == "the cube is solved: nothing to run",
          "Run to say the cube is solved")
    assert _unexplained(browser) == []
    _check_clean_logs(browser, slow_demo.base)


def test_clear_after_a_stop_counts_the_moves_and_the_next_run_starts_from_the_rigs_cube(
        slow_demo: Server, browser: Any) -> None:
    _open(browser, slow_demo)
    moves = _scan_and_solve(browser)
    states = _state(slow_demo)["scan"]["solution"]["states"]
    _click(browser, "run")
    _wait(browser, lambda d: _percent(d) > 0, "the rig to make a move")
    _click(browser, "stop")
    _wait_state(browser, "stopped")
    made = _state(slow_demo)["rig"]["moves_done"]
    _click(browser, "clear")
    _wait_state(browser, "idle")
    assert f"cleared: {made} of {len(moves)} moves made" in browser.find_element(
        "id", "rig-message").text
    # the net is the rig's cube after the moves it made, a real cube to solve from there
    _wait(browser, lambda d: _net_letters(d) == states[made], "the net at the rig's cube")
    assert "A real cube" in _el(browser, "validity").text
    assert not _el(browser, "clear").is_enabled() and "nothing to clear" in _why(browser, "clear")
    _click(browser, "solve")
    _wait(browser, lambda d: _el(d, "run").is_enabled(), "Run for the new solution")
    _click(browser, "run")
    _wait_state(browser, "solved")
    assert _state(slow_demo)["rig"]["rig_facelets"] == SOLVED
    assert _unexplained(browser) == []
    _check_clean_logs(browser, slow_demo.base)
