"""Ctrl-C and SIGTERM while a rig moves: stop it cleanly, and a second Ctrl-C stops it now.

The first interrupt (SIGINT, or SIGTERM from ``kill``) ends the stream and asks the rig to stop
after the turn in progress (:meth:`Rig.stop`); while it does, a second interrupt sends the
single-byte emergency stop. Either way the person is told how many moves the rig made, read
back from the rig, and how to go on; the command exits with status 130.
"""

from __future__ import annotations

import contextlib
import logging
import signal
import sys
import threading
from types import FrameType
from typing import Callable, Iterator, Optional

from cubebot.robot import EmergencyStopError, JobStatus, Rig, RobotError

__all__ = ["EXIT_STOPPED", "interrupts_raise", "stop_rig", "stopped_message",
           "report_unreachable", "stop_rig_after_estop"]

log = logging.getLogger(__name__)

#: The exit status of a command stopped by Ctrl-C or SIGTERM (128 + SIGINT).
EXIT_STOPPED = 130


class _SecondInterrupt(Exception):
    """A second Ctrl-C arrived while the rig was being stopped."""


def _raise_interrupt(signum: int, frame: Optional[FrameType]) -> None:
    raise KeyboardInterrupt


def _raise_second(signum: int, frame: Optional[FrameType]) -> None:
    raise _SecondInterrupt


@contextlib.contextmanager
def _signals_handled_by(handler: Callable[[int, Optional[FrameType]], None]) -> Iterator[None]:
    """Within the block, SIGINT and SIGTERM go to ``handler``; the previous handlers come back.

    Python delivers signals to the main thread only, and only it may set handlers: elsewhere
    (a command run from a worker thread, as the dashboard and the tests do) nothing changes
    and the caller's own handling applies.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    before = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    for sig in before:
        signal.signal(sig, handler)
    try:
        yield
    finally:
        for sig, previous in before.items():
            signal.signal(sig, previous)


@contextlib.contextmanager
def interrupts_raise() -> Iterator[None]:
    """Within the block, SIGINT and SIGTERM raise KeyboardInterrupt.

    Also when the command was started in the background, where the shell makes SIGINT
    ignored, and for ``kill``'s SIGTERM, which would otherwise end the process with the
    motors still turning. The previous handlers come back afterwards. In a thread other than
    the main one the handlers stay as they are (only the main thread receives signals).
    """
    with _signals_handled_by(_raise_interrupt):
        yield


def stop_rig(rig: Rig) -> tuple[JobStatus, bool]:
    """Return the rig's job once it has stopped, and whether it was emergency-stopped.

    Asks the rig to stop after the turn in progress; a second Ctrl-C (or SIGTERM) meanwhile
    sends the emergency-stop byte instead.

    Raises:
        RobotError: the rig could not be reached to stop it (the message says so).
    """
    with _signals_handled_by(_raise_second):
        try:
            return rig.stop(), False
        except (_SecondInterrupt, KeyboardInterrupt):
            pass
        except EmergencyStopError:
            return stop_rig_after_estop(rig), True  # someone pressed the rig's own stop
    rig.estop()
    print("cubebot: emergency stop sent", file=sys.stderr, flush=True)
    return stop_rig_after_estop(rig), True


def stop_rig_after_estop(rig: Rig) -> JobStatus:
    """Return the rig's job after an emergency stop was sent (its notice may come first).

    Raises:
        RobotError: the rig does not answer.
    """
    for _ in range(3):  # the rig's stop notice may arrive before the answer
        try:
            return rig.job()
        except EmergencyStopError:
            continue
    return rig.job()


def stopped_message(status: JobStatus, estopped: bool, resume: str, unit: str = "moves") -> str:
    """Return the lines telling how far the rig got and how to go on (``resume``: a command;
    ``unit``: what the job counts, ``"moves"`` or an action rig's ``"actions"``)."""
    if estopped:
        out = (" a layer may be half-turned: straighten it by hand and re-scan the cube"
               if status.out_of_line else "")
        return (f"emergency-stopped after {status.done} of {status.total} {unit};{out}\n"
                "clear the rig with `cubebot stop --port PORT --clear` before it moves again")
    return (f"stopped after {status.done} of {status.total} {unit}\n"
            f"resume with: {resume}")


def report_unreachable(err: RobotError) -> str:
    """Return the message when the rig could not be stopped (it may still be turning)."""
    return (f"could not stop the rig ({err}): it may still be turning; press its own stop "
            "button or unplug its motor supply")
