"""Entering a cube without a camera, in a real browser: a net painted from blank with the
palette, a facelet string or a scramble pasted, a scanned sticker changed by a tap; the 3D cube
and the validation messages (the solver's own, as the command line prints them) follow."""

from __future__ import annotations

from typing import Any

import pytest

from conftest import Server
from test_dashboard import _all, _check_clean_logs, _click, _el, _net_letters, _open, _tap, _wait

NET = '[data-test="net"] [data-sticker]'


def _paint(driver: Any, letter: str) -> None:
    _tap(driver, f'[data-test="palette"] [data-paint="{letter}"]')
    _wait(driver, lambda d: _all(d, f'[data-paint="{letter}"]')[0].get_attribute(
        "aria-checked") == "true", f"the palette at {letter!r}")


def _tap_sticker(driver: Any, index: int, letter: str) -> None:
    _tap(driver, f'{NET}[data-sticker="{index}"]')
    _wait(driver, lambda d: _net_letters(d)[index] == letter, f"sticker {index} to be {letter}")


def _type(driver: Any, text: str) -> None:
    box = _el(driver, "net-text")
    box.clear()
    box.send_keys(text)
    _click(driver, "enter-net")


def _cube3d_matches_net(driver: Any) -> bool:
    """Return whether every sticker of the 3D cube has its net sticker's colour."""
    return driver.execute_script("""
        const net = [...document.querySelectorAll('[data-test="net"] [data-sticker]')];
        const cube = [...document.querySelectorAll('[data-test="cube3d"] .side div')];
        const paint = (letter) => getComputedStyle(
          document.querySelector(`[data-test="palette"] [data-paint="${letter}"]`)).backgroundColor;
        return cube.length === net.length && cube.every((s, i) =>
          getComputedStyle(s).backgroundColor === paint(net[i].dataset.letter));""")


def _cli_error(facelets: str, capsys: pytest.CaptureFixture[str]) -> str:
    """Return what ``cubebot solve FACELETS`` says is wrong (its one-line error)."""
    from cubebot.cli import main

    assert main(["solve", facelets]) == 2
    return capsys.readouterr().err.strip().removeprefix("cubebot: error: ")


def test_a_net_painted_from_blank_is_checked_and_drawn_as_painted(
        demo_server: Server, browser: Any, capsys: pytest.CaptureFixture[str]) -> None:
    from cubebot.solver import Cube

    target = Cube.random(3, 21).facelets
    _open(browser, demo_server)
    _click(browser, "blank-net")
    _wait(browser, lambda d: _net_letters(d) == "".join(
        face if k == 4 else "." for face in "URFDLB" for k in range(9)), "a blank net")
    assert _el(browser, "validity").text.startswith("48 stickers are not painted yet")
    assert not _el(browser, "solve").is_enabled()
    assert "not painted" in _el(browser, "solve").get_attribute("title")
    for letter in "URFDLB":
        _paint(browser, letter)
        for index in (i for i, wanted in enumerate(target) if wanted == letter and i % 9 != 4):
            _tap_sticker(browser, index, letter)
        if letter == "U":  # part-way: the count of stickers still to paint follows
            assert _el(browser, "validity").text.startswith("40 stickers are not painted yet")
    _wait(browser, lambda d: "A real cube" in _el(d, "validity").text, "a real cube")
    assert _net_letters(browser) == target
    _wait(browser, _cube3d_matches_net, "the 3D cube painted as the net")
    assert _el(browser, "solve").is_enabled()

    # one sticker painted wrong: the solver's reason, word for word as the command line's
    wrong = next(i for i in range(54) if i % 9 != 4 and target[i] != "U")
    _paint(browser, "U")
    _tap_sticker(browser, wrong, "U")
    broken = target[:wrong] + "U" + target[wrong + 1:]
    _wait(browser, lambda d: _el(d, "validity").text.startswith("Not a real cube"), "the reason")
    assert _el(browser, "validity").text == f"Not a real cube: {_cli_error(broken, capsys)}"
    assert not _el(browser, "solve").is_enabled()
    _wait(browser, _cube3d_matches_net, "the 3D cube with the wrong sticker")
    _paint(browser, target[wrong])
    _tap_sticker(browser, wrong, target[wrong])
    _wait(browser, lambda d: "A real cube" in _el(d, "validity").text, "a real cube again")
    _click(browser, "solve")
    _wait(browser, lambda d: len(_all(d, '[data-test="moves"] li')) > 0, "the moves listed")
    _check_clean_logs(browser, demo_server.base)


def test_pasted_facelets_or_a_scramble_fill_the_net_and_a_scanned_sticker_is_repainted(
        demo_server: Server, browser: Any) -> None:
    from cubebot.solver import Cube

    _open(browser, demo_server)
    pasted = Cube.random(3, 8).facelets
    _type(browser, pasted)
    _wait(browser, lambda d: _net_letters(d) == pasted, "the pasted facelets in the net")
    _wait(browser, _cube3d_matches_net, "the 3D cube of the pasted facelets")
    scramble = "R U R' U' F2 D L' B2"
    _type(browser, scramble)
    _wait(browser, lambda d: _net_letters(d) == Cube.solved().apply(scramble).facelets,
          "the scrambled cube in the net")
    _wait(browser, _cube3d_matches_net, "the 3D cube of the scramble")
    assert "A real cube" in _el(browser, "validity").text
    _type(browser, "not a cube")
    _wait(browser, lambda d: "nor moves" in d.find_element("id", "notice").text, "the refusal")
    assert "not a facelet string" in browser.find_element("id", "notice").text
    assert _net_letters(browser) == Cube.solved().apply(scramble).facelets  # kept
    refused = [e["message"] for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert len(refused) == 1 and "/api/net/enter" in refused[0] and "400" in refused[0]

    # a scan's sticker tapped with a colour picked takes that colour
    _click(browser, "scan")
    _wait(browser, lambda d: len(_all(d, '#overlays img')) == 6, "the six faces scanned")
    scanned = _net_letters(browser)
    other = next(letter for letter in "URFDLB" if letter != scanned[0])
    _paint(browser, other)
    _tap_sticker(browser, 0, other)
    assert _net_letters(browser)[1:] == scanned[1:]
    _wait(browser, lambda d: _el(d, "validity").text.startswith("Not a real cube"), "the reason")
    _check_clean_logs(browser, demo_server.base)
