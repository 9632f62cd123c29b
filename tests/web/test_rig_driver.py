"""The dashboard's rig driver on a simulated rig behind a real pseudo-terminal (no browser)."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from cubebot.robot import SimulatedRig
from cubebot.solver import SOLVED_3, Cube, invert, parse_moves


def _driver() -> tuple[Any, list[dict[str, Any]], threading.Event]:
    """Return a rig driver, the snapshots it publishes, and an event set on each."""
    pytest.importorskip("starlette", reason="the web extra is not installed: "
                                            "pip install 'cubebot[web]'")
    from cubebot.web import RigDriver

    seen: list[dict[str, Any]] = []
    changed = threading.Event()

    def publish(snapshot: dict[str, Any]) -> None:
        seen.append(snapshot)
        changed.set()
    return RigDriver(publish), seen, changed


def _wait_for(driver: Any, *states: str, timeout: float = 30) -> None:
    """Return once the driver is in one of ``states`` (fail after ``timeout`` seconds)."""
    deadline = time.monotonic() + timeout
    while driver.state not in states:
        assert time.monotonic() < deadline, f"rig stayed {driver.state}: {driver.message}"
        time.sleep(0.02)


def test_a_run_cut_by_a_pulled_cable_resumes_after_reconnecting() -> None:
    driver, seen, _ = _driver()
    scramble = "R U F' D2 L B R' U2 F D' L2 B'"
    start = Cube(SOLVED_3).apply(scramble)
    moves = [str(m) for m in invert(parse_moves(scramble))]
    with SimulatedRig(3, start.facelets, seed=1, time_scale=1.0) as sim:
        driver.connect(sim.port)
        driver.run(moves)
        _wait_for(driver, "moving")
        while driver.moves_done < 3:
            time.sleep(0.01)
        sim.unplug()
        _wait_for(driver, "fault")
        assert "stopped after" not in driver.message
        sim.plug()
        driver.connect(sim.port)
        assert driver.state == "stopped", driver.message
        assert "resume continues" in driver.message
        made = driver.moves_done
        assert 3 <= made < len(moves)
        driver.resume()
        _wait_for(driver, "solved")
        assert sim.facelets == SOLVED_3  # every move made exactly once
        assert seen[-1]["percent"] == 100
    driver.close()


def test_a_rebooted_rig_drops_the_unfinished_run() -> None:
    driver, _, _ = _driver()
    with SimulatedRig(3, seed=2, time_scale=1.0) as sim:
        driver.connect(sim.port)
        driver.run(["R", "U", "F", "L", "B", "D", "R", "U", "F", "L"])
        _wait_for(driver, "moving")
        driver.stop()
        _wait_for(driver, "stopped")
        sim.reset()  # a power glitch: new boot id, its cube's position unknown
        driver.connect(sim.port)
        assert driver.state == "idle"
        assert "re-scan" in driver.message
        with pytest.raises(ValueError, match="no moves at hand to resume"):
            driver.resume()
    driver.close()


def test_an_action_rig_runs_the_moves_as_actions_through_a_stop_and_an_emergency_stop() -> None:
    driver, seen, _ = _driver()
    scramble = "R U F' D2 L B R' U2 F D' L2 B'"
    start = Cube(SOLVED_3).apply(scramble)
    moves = [str(m) for m in invert(parse_moves(scramble))]
    states = [start.facelets]
    for move in moves:
        states.append(Cube(states[-1]).apply(move).facelets)
    with SimulatedRig(3, start.facelets, model="flipper", seed=3, time_scale=0.2) as sim:
        driver.connect(sim.port)
        assert driver.handshake["kind"] == "flipper" and "faces" not in driver.handshake
        driver.run(moves, states)
        assert seen[-1]["actions_total"] > len(moves)  # the flipper turns the cube over
        _wait_for(driver, "moving")
        while driver.actions_done < 4:
            time.sleep(0.01)
        driver.stop()
        _wait_for(driver, "stopped")
        stopped_at = driver.actions_done
        assert 0 < stopped_at < seen[-1]["actions_total"]
        assert driver.moves_done < len(moves)
        assert seen[-1]["cube"] == states[driver.moves_done]  # the 3D cube follows the moves
        driver.resume()
        _wait_for(driver, "moving")
        while driver.moves_done < len(moves) // 2:
            time.sleep(0.01)
        driver.estop()  # mid-action, perhaps: the rest is planned again from the pose
        _wait_for(driver, "estop")
        made = driver.moves_done
        driver.resume()
        _wait_for(driver, "solved", timeout=60)
        assert "again" in " ".join(s["message"] for s in seen)
        assert Cube(sim.facelets).is_solved  # every move made once, in the rig's own frame
        assert made <= len(moves) and seen[-1]["percent"] == 100
    driver.close()


def _solution(scramble: str) -> tuple[Cube, list[str], list[str]]:
    start = Cube(SOLVED_3).apply(scramble)
    moves = [str(m) for m in invert(parse_moves(scramble))]
    states = [start.facelets]
    for move in moves:
        states.append(Cube(states[-1]).apply(move).facelets)
    return start, moves, states


def _stopped_run(driver: Any, sim: Any, moves: list[str], states: list[str]) -> int:
    """Run ``moves``, stop after a few; return how many the rig made."""
    driver.connect(sim.port)
    driver.run(moves, states)
    _wait_for(driver, "moving")
    while driver.moves_done < 3:
        time.sleep(0.01)
    driver.stop()
    _wait_for(driver, "stopped")
    return int(driver.moves_done)


def test_run_after_a_stop_is_refused_and_resume_makes_every_move_once() -> None:
    driver, _, _ = _driver()
    start, moves, states = _solution("R U F' D2 L B R' U2 F D' L2 B'")
    with SimulatedRig(3, start.facelets, seed=4, time_scale=1.0) as sim:
        made = _stopped_run(driver, sim, moves, states)
        assert 3 <= made < len(moves)
        step = driver.next_step(moves)
        assert step.resume.allowed and step.clear.allowed and not step.start.allowed
        with pytest.raises(ValueError, match="twice"):
            driver.run(moves, states)
        driver.resume(moves)
        _wait_for(driver, "solved")
        executed = [m for slot in sim.executed for m in slot.moves]
        assert executed == list(parse_moves(" ".join(moves)))  # each once, in order
        with pytest.raises(ValueError, match="already made"):
            driver.run(moves, states)
    driver.close()


def test_clear_after_a_stop_gives_the_rigs_cube_and_new_moves_start_from_it() -> None:
    driver, _, _ = _driver()
    start, moves, states = _solution("R U F' D2 L B R' U2 F D' L2 B'")
    with SimulatedRig(3, start.facelets, seed=5, time_scale=1.0) as sim:
        made = _stopped_run(driver, sim, moves, states)
        cube = driver.clear(moves)
        assert cube == states[made] == sim.facelets
        rest = moves[made:]
        assert driver.next_step(rest).start.allowed
        driver.run(rest)
        _wait_for(driver, "solved")
        assert sim.facelets == SOLVED_3
    driver.close()
