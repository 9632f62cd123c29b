"""Ctrl-C in ``cubebot rig-check``: the first waits for the check under way, whose pairs of
turns put the cube back, and the second stops at once. Real processes, a real signal, the
Python rig at its real motor timing on a pseudo-terminal."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from typing import ClassVar

import pytest

from cubebot.commands.stopping import EXIT_STOPPED
from cubebot.robot import SimulatedRig
from cubebot.robot.protocol import Frame
from cubebot.robot.protocol_checks import checks_for
from cubebot.robot.simfirmware import Firmware


class _PressesCtrlC(Firmware):
    """Sends SIGINT to :attr:`target` as it takes the suite's first turn of a face, that is
    between the two turns of a pair (``presses`` times)."""

    target: ClassVar[int] = 0
    presses: ClassVar[int] = 1

    def _execute(self, frame: Frame, now: float) -> Frame:
        answer = super()._execute(frame, now)
        if frame.word == "MOVE" and answer.word == "OK" and type(self).target:
            for _ in range(type(self).presses):
                os.kill(type(self).target, signal.SIGINT)
                time.sleep(0.05)
            type(self).target = 0
        return answer


def _rig_check(port: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "cubebot", "rig-check", "--port", port],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


@pytest.mark.parametrize("presses", [1, 2])
def test_ctrl_c_in_rig_check_between_the_turns_of_a_pair(presses: int) -> None:
    with SimulatedRig(seed=4, firmware=_PressesCtrlC) as sim:
        start = sim.facelets
        process = _rig_check(sim.port)
        _PressesCtrlC.target, _PressesCtrlC.presses = process.pid, presses
        try:
            out, err = process.communicate(timeout=120)
        finally:
            if process.poll() is None:
                process.kill()
        time.sleep(1.0)  # a turn already taken ends at the rig's own speed
        end = sim.facelets
    assert process.returncode == EXIT_STOPPED, (out, err)
    if presses == 1:
        # the check under way finished its pair: the cube is as it was, and the suite said so
        assert end == start
        ran = [line for line in out.splitlines() if line.startswith(("pass", "FAIL"))]
        assert 0 < len(ran) < len(checks_for(action_rig=False))
        assert f"stopped after {len(ran)} checks" in out
    else:
        assert "interrupted" in err  # at once: the person was warned a face may stay turned
    assert "stopping after this check" in err and "Traceback" not in err
