"""Ctrl-C while the rig is talked to: the signal never raises inside that code before the third
press (:func:`cubebot.commands.stopping.interrupts_stop_rig`), in this process, against the
simulated rig at its real motor timing."""

from __future__ import annotations

import os
import signal
import time
from typing import Callable

import pytest

from cubebot.commands.stopping import interrupts_stop_rig, stop_rig
from cubebot.robot import EmergencyStopError, Rig, RigStoppedError, SimulatedRig, StreamProgress
from cubebot.solver import format_moves
from tests.robot.test_rig_host import random_moves

MOVES = format_moves(random_moves(30, seed=11))


def _press_at(moves_done: int, presses: int) -> Callable[[StreamProgress], None]:
    """Return a progress callback that sends this process ``presses`` SIGINTs, back to back,
    once the rig has turned ``moves_done`` moves (inside the stream's own loop)."""
    sent: list[bool] = []

    def progress(now: StreamProgress) -> None:
        if now.moves_done >= moves_done and not sent:
            sent.append(True)
            for _ in range(presses):
                os.kill(os.getpid(), signal.SIGINT)
    return progress


def _wait_for_state(sim: SimulatedRig, state: str, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while sim.firmware.state != state:
        assert time.monotonic() < deadline, f"the rig is {sim.firmware.state}, not {state}"
        time.sleep(0.01)


def test_one_press_inside_the_stream_stops_the_rig_after_the_turn() -> None:
    before = signal.getsignal(signal.SIGINT)  # ignored where the suite runs in the background
    with SimulatedRig(3, seed=11) as sim, Rig(sim.url) as rig:
        with pytest.raises(RigStoppedError):
            with interrupts_stop_rig(rig) as interrupts:
                rig.stream(MOVES, progress=_press_at(2, 1))
        assert interrupts.presses == 1 and interrupts.stop_asked and not interrupts.estopped
        status = rig.job()
        made = sum(len(slot.moves) for slot in sim.executed)
        assert status.state == "stopped" and status.done == made < 30
        assert sim.firmware.state == "STOPPED"
    assert signal.getsignal(signal.SIGINT) is before  # given back


def test_two_presses_back_to_back_inside_the_stream_send_the_emergency_stop() -> None:
    with SimulatedRig(3, seed=12) as sim, Rig(sim.url) as rig:
        with pytest.raises(EmergencyStopError):
            with interrupts_stop_rig(rig) as interrupts:
                rig.stream(MOVES, progress=_press_at(2, 2))
        assert interrupts.presses == 2 and interrupts.estopped and interrupts.error is None
        _wait_for_state(sim, "ESTOP")
        # the link still works: the job reads back after the stop's notice
        assert rig.job().done == sum(len(slot.moves) for slot in sim.executed)


def test_a_press_while_stopping_sends_the_emergency_stop_and_the_next_gives_up() -> None:
    with SimulatedRig(3, seed=13) as sim, Rig(sim.url) as rig:
        rig.stream(MOVES, wait=False)
        with pytest.raises(KeyboardInterrupt):
            with interrupts_stop_rig(rig, stopping=True) as interrupts:
                os.kill(os.getpid(), signal.SIGINT)  # counts as the second: emergency stop
                deadline = time.monotonic() + 10
                while not interrupts.estopped:
                    assert time.monotonic() < deadline, "the emergency stop was never sent"
                    time.sleep(0.01)
                os.kill(os.getpid(), signal.SIGINT)  # the third: stop waiting
                time.sleep(1.0)  # the KeyboardInterrupt arrives here
        _wait_for_state(sim, "ESTOP")  # once the turn in progress is cut


def test_stop_rig_returns_the_job_and_a_press_meanwhile_makes_it_an_emergency_stop() -> None:
    with SimulatedRig(3, seed=14) as sim, Rig(sim.url) as rig:
        rig.stream(MOVES, wait=False)
        status, estopped = stop_rig(rig)
        assert not estopped and status.state == "stopped"
        assert status.done == sum(len(slot.moves) for slot in sim.executed)
    with SimulatedRig(3, seed=15) as sim, Rig(sim.url) as rig:
        rig.stream(MOVES, wait=False)
        signal.signal(signal.SIGALRM, lambda signum, frame: os.kill(os.getpid(), signal.SIGINT))
        signal.setitimer(signal.ITIMER_REAL, 0.05)  # the press comes while the rig is stopping
        try:
            status, estopped = stop_rig(rig)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, signal.SIG_DFL)
        assert estopped
        _wait_for_state(sim, "ESTOP")
        assert status.done == sum(len(slot.moves) for slot in sim.executed)
