"""The dashboard in a real browser: scan, edit, solve, run, stop, emergency stop, resume."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from conftest import Server, start_server, stop_server

WAIT = 60  # seconds: generous, the machine is shared


def _wait(driver: Any, condition: Any, what: str, timeout: float = WAIT) -> Any:
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.support.ui import WebDriverWait

    # the page redraws parts on every pushed state: an element found a moment ago may be gone
    return WebDriverWait(driver, timeout, poll_frequency=0.05,
                         ignored_exceptions=(StaleElementReferenceException,)
                         ).until(condition, message=what)


def _el(driver: Any, test: str) -> Any:
    from selenium.webdriver.common.by import By

    return driver.find_element(By.CSS_SELECTOR, f'[data-test="{test}"]')


def _all(driver: Any, css: str) -> list[Any]:
    from selenium.webdriver.common.by import By

    return driver.find_elements(By.CSS_SELECTOR, css)


def _tap(driver: Any, css: str) -> None:
    """Click the element at ``css`` once, finding it again if the page redrew it."""
    def click(d: Any) -> bool:
        element = _all(d, css)[0]
        # to the middle of the screen, as a person scrolls: not under the sticky header
        d.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
        element.click()
        return True
    _wait(driver, click, f"to click {css}")


def _click(driver: Any, test: str) -> None:
    _wait(driver, lambda d: _el(d, test).is_enabled(), f"{test} to be enabled")
    _tap(driver, f'[data-test="{test}"]')


def _rig_state(driver: Any) -> str:
    return _el(driver, "rig-state").text


def _percent(driver: Any) -> int:
    return int(_el(driver, "progress").get_attribute("aria-valuenow"))


def _wait_state(driver: Any, *states: str) -> str:
    _wait(driver, lambda d: _rig_state(d) in states, f"rig state in {states}")
    return _rig_state(driver)


def _open(driver: Any, server: Server) -> None:
    driver.get(server.url)
    _wait(driver, lambda d: d.find_element("tag name", "body").get_attribute("data-ready"),
          "the first pushed state")
    assert _rig_state(driver) == "idle", "the demo's rig is connected from the start"


def _scan_and_solve(driver: Any) -> list[str]:
    """Return the moves listed after clicking Scan and Solve."""
    _click(driver, "scan")
    _wait(driver, lambda d: len(_all(d, '[data-test="net"] [data-sticker]')) == 54,
          "54 stickers in the net")
    _click(driver, "solve")
    _wait(driver, lambda d: len(_all(d, '[data-test="moves"] li')) > 0, "the moves listed")
    return [li.text for li in _all(driver, '[data-test="moves"] li')]


def _net_letters(driver: Any) -> str:
    return "".join(s.get_attribute("data-letter")
                   for s in _all(driver, '[data-test="net"] [data-sticker]'))


def _cube3d_sides(driver: Any) -> list[set[str]]:
    """Return the colours on each side of the 3D cube."""
    return [{s.value_of_css_property("background-color")
             for s in side.find_elements("css selector", "div")}
            for side in _all(driver, '[data-test="cube3d"] .side')]


def _check_clean_logs(driver: Any, base: str) -> None:
    """Fail on any console error and any request to a place other than this server."""
    errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    assert errors == [], f"console errors: {errors}"
    urls = []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message["method"] == "Network.requestWillBeSent":
            urls.append(message["params"]["request"]["url"])
    assert urls, "no requests were logged"
    # the page is pushed its state: it never asks for it again and again
    assert sum("/api/events" in u for u in urls) <= 2, urls
    assert not any("/api/state" in u for u in urls), urls
    outside = [u for u in urls if not (u.startswith(base) or u.startswith(("data:", "blob:")))]
    assert outside == [], f"requests leaving 127.0.0.1: {outside}"
    assert base.startswith("http://127.0.0.1:")


def test_demo_runs_to_solved_in_three_clicks_and_the_page_follows_the_rig(
        demo_server: Server, browser: Any) -> None:
    _open(browser, demo_server)
    moves = _scan_and_solve(browser)  # clicks one and two
    scrambled = _net_letters(browser)
    assert len(moves) > 1 and scrambled != "".join(face * 9 for face in "URFDLB")
    _click(browser, "run")  # click three

    # while the rig turns, the net shows the rig's cube and the 3D view the rig's move
    seen: set[str] = set()

    def watch(d: Any) -> bool:
        text = _el(d, "validity").text
        if "The rig's cube after" in text:
            seen.add(text)
        return _rig_state(d) == "solved"
    _wait(browser, watch, "the rig to solve the cube")
    partway = [t for t in seen if f"of {len(moves)} moves" in t and
               not t.startswith(f"The rig's cube after {len(moves)} ")]
    assert partway, f"the net never showed the rig's cube part-way: {seen}"

    # at the end: the bar full, the panel's count, the net and the 3D cube the rig's solved cube
    assert _percent(browser) == 100
    _wait(browser, lambda d: f"moves done: {len(moves)} of {len(moves)}" in
          _el(d, "handshake").text, "the rig panel's count")
    assert "state: solved" in _el(browser, "handshake").text
    _wait(browser, lambda d: _net_letters(d) == "".join(face * 9 for face in "URFDLB"),
          "the net to show the rig's solved cube")
    assert "as the rig reports it" in _el(browser, "validity").text
    _wait(browser, lambda d: d.find_element("id", "step-label").text ==
          f"{len(moves)} / {len(moves)}", "the 3D view at the rig's last move")
    sides = _cube3d_sides(browser)
    assert len(sides) == 6 and all(len(colours) == 1 for colours in sides), sides
    assert len(set.union(*sides)) == 6
    _check_clean_logs(browser, demo_server.base)


def test_demo_scans_solves_and_runs_to_solved(demo_server: Server, browser: Any,
                                              tmp_path: Path) -> None:
    _open(browser, demo_server)
    _click(browser, "scan")
    _wait(browser, lambda d: len(_all(d, '[data-test="net"] [data-sticker]')) == 54,
          "54 stickers in the net")
    assert len(_all(browser, '#overlays img')) == 6
    assert "A real cube" in _el(browser, "validity").text

    # tapping a sticker changes it and the page says why the cube is impossible; six taps
    # bring it back
    sticker = '[data-test="net"] [data-sticker="1"]'
    original = _wait(browser, lambda d: _all(d, sticker)[0].get_attribute("data-letter"),
                     "the sticker")
    for tap in range(6):
        before = _wait(browser, lambda d: _all(d, sticker)[0].get_attribute("data-letter"),
                       "the sticker")
        _tap(browser, sticker)
        _wait(browser, lambda d: _all(d, sticker)[0].get_attribute("data-letter") != before,
              "the tapped sticker to change")
        if tap == 0:
            _wait(browser, lambda d: "Not a real cube" in _el(d, "validity").text, "the reason")
            assert _el(browser, "solve").get_attribute("disabled") is not None
    _wait(browser, lambda d: _all(d, sticker)[0].get_attribute("data-letter") == original,
          "the sticker back to its letter")
    _wait(browser, lambda d: "A real cube" in _el(d, "validity").text, "valid again")

    _click(browser, "solve")
    _wait(browser, lambda d: len(_all(d, '[data-test="moves"] li')) > 0, "the moves listed")
    moves = [li.text for li in _all(browser, '[data-test="moves"] li')]
    assert f"{len(moves)} moves (HTM)" in browser.find_element("id", "solve-summary").text

    # the 3D cube is drawn, and stepping through the solution changes it
    stickers3d = _all(browser, '[data-test="cube3d"] .side div')
    assert len(stickers3d) == 54
    colours = [s.value_of_css_property("background-color") for s in stickers3d]
    assert len(set(colours)) == 6
    _click(browser, "step")
    _wait(browser, lambda d: [s.value_of_css_property("background-color") for s in
                              _all(d, '[data-test="cube3d"] .side div')] != colours,
          "the 3D cube to show the first move")
    turned = _all(browser, '[data-test="cube3d"] .side.turned')
    assert [side.get_attribute("data-face") for side in turned] == [moves[0][0]]
    _el(browser, "scrub").send_keys("\ue010")  # End: the last state, the solved cube
    _wait(browser, lambda d: len({s.value_of_css_property("background-color") for s in
                                  _all(d, '[data-test="cube3d"] .side:first-child div')}) == 1,
          "the 3D cube solved at the end of the solution")

    assert "firmware" in _el(browser, "handshake").text
    _click(browser, "run")
    _wait_state(browser, "solved")
    assert _percent(browser) == 100

    _click(browser, "plot")
    _wait(browser, lambda d: _el(d, "lab-plot").get_attribute("data-points") == "54",
          "the 54 sticker colours plotted")
    browser.save_screenshot(str(tmp_path / "dashboard.png"))
    assert (tmp_path / "dashboard.png").stat().st_size > 10_000
    shot = os.environ.get("CUBEBOT_DASHBOARD_SHOT")  # docs/dashboard.png is made this way
    if shot:
        browser.save_screenshot(shot)
    # the demo camera now sees the solved cube: scan it again and learn its colours
    _tap(browser, "#reset-scan")
    _wait(browser, lambda d: not _all(d, '[data-test="net"] [data-sticker]'), "the scan cleared")
    _click(browser, "scan")
    _wait(browser, lambda d: len(_all(d, '[data-test="net"] [data-sticker]')) == 54,
          "the solved cube scanned")
    letters = "".join(s.get_attribute("data-letter")
                      for s in _all(browser, '[data-test="net"] [data-sticker]'))
    assert letters == "".join(face * 9 for face in "URFDLB")
    _click(browser, "save-profile")
    _wait(browser, lambda d: "profile saved" in d.find_element("id", "notice").text,
          "the profile saved")
    profile = json.loads((tmp_path / "profile.json").read_text())
    assert profile["scans"] == 1 and len(profile["colours"]) == 6
    _check_clean_logs(browser, demo_server.base)


def test_stop_and_emergency_stop_mid_run_then_resume_finish(demo_server: Server,
                                                            browser: Any) -> None:
    _open(browser, demo_server)
    _scan_and_solve(browser)
    _click(browser, "run")
    _wait(browser, lambda d: _percent(d) > 0, "the rig to finish a move")
    _click(browser, "stop")
    _wait_state(browser, "stopped")
    stopped_at = _percent(browser)
    assert 0 < stopped_at < 100
    assert "stopped after" in browser.find_element("id", "rig-message").text

    _click(browser, "resume")
    _wait(browser, lambda d: _percent(d) > stopped_at, "the rig to move again")
    _click(browser, "estop")
    state = _wait_state(browser, "estop", "solved")
    if state == "solved":
        pytest.fail("the run finished before the emergency stop reached the rig")
    estopped_at = _percent(browser)
    assert stopped_at < estopped_at < 100
    assert _el(browser, "run").get_attribute("disabled") is not None

    _click(browser, "resume")
    _wait_state(browser, "solved")
    assert _percent(browser) == 100
    _check_clean_logs(browser, demo_server.base)


def test_live_views_and_a_photo_uploaded_from_the_page(demo_server: Server, browser: Any,
                                                       tmp_path: Path) -> None:
    import cv2

    from cubebot.solver import Cube
    from cubebot.vision import SyntheticCamera

    camera = SyntheticCamera(Cube.random(3, 5), seed=5)
    photo = tmp_path / "u.jpg"
    cv2.imwrite(str(photo), camera.read_face("U"))
    _open(browser, demo_server)
    assert browser.find_element("id", "next-face").text == "U"

    # the server camera's live view draws the grid it found on the face to show next
    _click(browser, "live-view")
    _wait(browser, lambda d: d.find_element("id", "live-why").text == "face U: grid found",
          "the live view of face U")
    assert _el(browser, "live-overlay").get_attribute("src").startswith("data:image/jpeg")
    _click(browser, "live-view")  # stop it
    # the browser's own camera (Chromium's test pattern here: no cube, so no grid) is sent to
    # the server frame by frame and the answer shown
    _tap(browser, "#phone-camera")
    _wait(browser, lambda d: d.find_element("id", "live-why").text not in
          ("", "face U: grid found"), "the browser camera's frames read by the server")
    _click(browser, "live-view")  # stop the camera
    _el(browser, "upload").send_keys(str(photo))
    _wait(browser, lambda d: d.find_element("id", "next-face").text == "R",
          "U scanned")
    assert len(_all(browser, '#overlays img')) == 1
    _tap(browser, '[data-test="retake"]')
    _wait(browser, lambda d: d.find_element("id", "next-face").text == "U", "U to retake")
    _check_clean_logs(browser, demo_server.base)


def test_two_corner_photos_chosen_on_the_page_fill_the_net(demo_server: Server, browser: Any,
                                                            tmp_path: Path) -> None:
    import cv2

    from cubebot.solver import Cube
    from cubebot.vision import Conditions
    from cubebot.vision.scene import CornerCamera, Pose

    cube = Cube.random(3, 11)
    photos = []
    for corner, seed in (("DLB", 5), ("URF", 6)):
        path = tmp_path / f"{corner}.jpg"
        cv2.imwrite(str(path), CornerCamera(cube, Pose.hand(corner), seed=seed,
                                            conditions=Conditions.moderate()).read())
        photos.append(str(path))
    _open(browser, demo_server)
    _el(browser, "corner-upload").send_keys("\n".join(photos))  # both at once, as a phone picks
    _wait(browser, lambda d: len(_all(d, '[data-test="net"] [data-sticker]')) == 54,
          "the net filled from two corner photos")
    assert _net_letters(browser) == cube.facelets
    assert len(_all(browser, '[data-test="corner-photo"]')) == 2
    _check_clean_logs(browser, demo_server.base)
    demo_server.post("/api/scan/reset")


def test_page_on_an_open_address_acts_only_with_its_token(browser: Any) -> None:
    server = start_server("--demo", "--host", "0.0.0.0")
    try:
        assert server.token
        port = server.base.rsplit(":", 1)[1].strip("/")
        local = f"http://127.0.0.1:{port}/"
        browser.get(local)  # the address without the token: the page shows, actions refused
        _wait(browser, lambda d: d.find_element("tag name", "body").get_attribute("data-ready"),
              "the first pushed state")
        _click(browser, "scan")
        _wait(browser, lambda d: "token" in d.find_element("id", "notice").text,
              "the refusal shown")
        assert not _all(browser, '[data-test="net"] [data-sticker]')
        browser.get(f"{local}?token={server.token}")  # as printed: actions work
        _wait(browser, lambda d: d.find_element("tag name", "body").get_attribute("data-ready"),
              "the first pushed state")
        _click(browser, "scan")
        _wait(browser, lambda d: len(_all(d, '[data-test="net"] [data-sticker]')) == 54,
              "54 stickers in the net")
    finally:
        stop_server(server)
