"""Ctrl-C and SIGTERM while a rig moves: stop it cleanly, and a second Ctrl-C stops it now.

The first interrupt (SIGINT, or SIGTERM from ``kill``) asks the rig to stop after the turn in
progress (:meth:`Rig.stop`), which ends the stream; meanwhile a second interrupt sends the
single-byte emergency stop. Either way the person is told how many moves the rig made, read
back from the rig, and how to go on; the command exits with status 130.

While the rig is talked to, an interrupt never raises inside that code
(:func:`interrupts_stop_rig`): an exception thrown at an arbitrary point of it can leave a lock
or the reader's queue broken (``release unlocked lock``), and then neither the stop nor the
emergency stop could be sent. Each signal received writes its number to a pipe (the interpreter's
wakeup file, :func:`signal.set_wakeup_fd`); a thread of this module reads it and stops the rig
the way another terminal's ``cubebot stop`` does.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import os
import signal
import sys
import threading
from types import FrameType
from typing import Callable, Iterator, Optional

from cubebot.robot import EmergencyStopError, JobStatus, Rig, RigFault, RobotError
from cubebot.solver.progress import break_status_line

__all__ = ["EXIT_STOPPED", "RigInterrupts", "DeferredInterrupts", "interrupts_raise",
           "interrupts_deferred", "interrupts_stop_rig", "stop_rig", "stopped_message",
           "report_unreachable"]

log = logging.getLogger(__name__)

#: The exit status of a command stopped by Ctrl-C or SIGTERM (128 + SIGINT).
EXIT_STOPPED = 130


def _raise_interrupt(signum: int, frame: Optional[FrameType]) -> None:
    raise KeyboardInterrupt


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


@dataclasses.dataclass
class DeferredInterrupts:
    """What Ctrl-C and SIGTERM did within :func:`interrupts_deferred`'s block: ``asked`` is set
    by the first, which the block answers at its next safe point."""

    asked: bool = False


@contextlib.contextmanager
def interrupts_deferred(told: str) -> Iterator[DeferredInterrupts]:
    """Within the block, the first SIGINT or SIGTERM only sets ``asked`` and tells the person
    ``told``; the block stops at a point of its own choosing (where it has put back what it
    changed). The second raises KeyboardInterrupt, for someone who will not wait.

    In a thread other than the main one nothing changes (only the main thread receives
    signals), and ``asked`` stays False.
    """
    deferred = DeferredInterrupts()

    def on_signal(signum: int, frame: Optional[FrameType]) -> None:
        if deferred.asked:
            raise KeyboardInterrupt
        deferred.asked = True
        _tell(told)

    with _signals_handled_by(on_signal):
        yield deferred


@dataclasses.dataclass
class RigInterrupts:
    """What Ctrl-C and SIGTERM did within :func:`interrupts_stop_rig`'s block.

    ``presses`` counts the interrupts; ``stop_asked`` and ``estopped`` say whether the polite
    stop was asked and the emergency stop sent; ``error`` is the rig's error when the stop or
    the emergency stop could not be sent (the rig may still be turning).
    """

    presses: int = 0
    stop_asked: bool = False
    estopped: bool = False
    error: Optional[RobotError] = None

    def stopped_job(self, rig: Rig, ended: RigFault) -> tuple[JobStatus, bool]:
        """Return the rig's job after a stream in the block ended stopped (``ended``: its
        :class:`RigStoppedError` or :class:`EmergencyStopError`), and whether it was
        emergency-stopped: by the rig's own button, ``cubebot stop --estop``, or the second
        press here.

        Raises:
            RobotError: the rig does not answer.
        """
        estopped = isinstance(ended, EmergencyStopError) or self.estopped
        return (rig.job_after_estop() if estopped else rig.job()), estopped


#: The byte that ends the thread that stops the rig (signal numbers are all below it).
_DONE = b"q"
#: The signals that count as a press, as the wakeup pipe names them.
_PRESSES = (int(signal.SIGINT), int(signal.SIGTERM))


@contextlib.contextmanager
def interrupts_stop_rig(rig: Rig, *, stopping: bool = False) -> Iterator[RigInterrupts]:
    """Within the block, Ctrl-C and SIGTERM stop ``rig`` from a thread of their own; yield
    what they did (read it after the block).

    - The first asks the rig to stop after the turn in progress (:meth:`Rig.stop`): a stream
      in progress in the block then ends with :class:`RigStoppedError`. With ``stopping`` (the
      block itself stops the rig) the first counts as the second.
    - The second sends the emergency stop: the stream or the stop in the block ends with
      :class:`EmergencyStopError` once the rig says so.
    - A third raises KeyboardInterrupt in the block, for someone who will not wait for a rig
      that does not answer.

    Nothing is raised inside the code that talks to the rig before the third (see the module
    doc). Presses are counted as the process receives them (:func:`signal.set_wakeup_fd`
    writes each signal's number to a pipe), not as Python runs the handler: two that come
    while the main thread is busy run the handler once, and still send the emergency stop.
    In a thread other than the main one nothing changes: only the main thread receives
    signals, and the caller's own handling applies.
    """
    done = RigInterrupts(presses=1 if stopping else 0)
    if threading.current_thread() is not threading.main_thread():
        yield done
        return
    read_end, write_end = os.pipe()
    os.set_blocking(write_end, False)  # the interpreter's own writes must never block
    stops: list[threading.Thread] = []
    handled = done.presses

    def on_signal(signum: int, frame: Optional[FrameType]) -> None:
        # the press itself reached the pipe already; only a third is acted on here, where a
        # person who will not wait must get the block back
        nonlocal handled
        handled += 1
        if max(handled, done.presses) > 2:
            raise KeyboardInterrupt

    def stop_politely() -> None:
        try:
            rig.stop()
        except EmergencyStopError:  # the second press came first: that is what is told
            log.info("the stop after the turn gave way to the emergency stop")
        except RobotError as err:
            done.error = done.error or err
            log.warning("could not stop the rig: %s", err)

    def act() -> None:
        while (byte := os.read(read_end, 1)) not in (_DONE, b""):
            if byte[0] not in _PRESSES:
                continue  # another signal some library handles (the pipe hears them all)
            done.presses += 1
            if done.presses == 1:
                done.stop_asked = True
                _tell("stopping after the turn in progress (Ctrl-C again: emergency stop)")
                stops.append(threading.Thread(target=stop_politely, name="cubebot-stop",
                                              daemon=True))
                stops[-1].start()
            elif done.presses == 2:
                try:
                    rig.estop()
                except RobotError as err:
                    done.error = err
                    _tell(f"error: {report_unreachable(err)}")
                    continue
                done.estopped = True
                _tell("emergency stop sent")

    acting = threading.Thread(target=act, name="cubebot-interrupts", daemon=True)
    acting.start()
    woken = signal.set_wakeup_fd(write_end, warn_on_full_buffer=False)
    try:
        with _signals_handled_by(on_signal):
            try:
                yield done
            finally:  # before the handlers before come back: their signals are not presses
                signal.set_wakeup_fd(woken)
    finally:
        os.write(write_end, _DONE)
        acting.join()
        if done.presses <= 2:  # after a third, the person will not wait for a silent rig
            for stop in stops:
                stop.join(_STOP_JOIN)
        os.close(read_end)
        os.close(write_end)


def _tell(text: str) -> None:
    """Print a line about the stop from the thread making it, below any progress bar."""
    break_status_line()
    print(f"cubebot: {text}", file=sys.stderr, flush=True)


#: Seconds the block's end waits for a polite stop still under way (a rig that answers has
#: stopped within the turn in progress; this bounds the wait for one that went silent).
_STOP_JOIN = 15.0


def stop_rig(rig: Rig) -> tuple[JobStatus, bool]:
    """Return the rig's job once it has stopped, and whether it was emergency-stopped.

    Asks the rig to stop after the turn in progress; a second Ctrl-C (or SIGTERM) meanwhile
    sends the emergency-stop byte instead, and a third stops waiting (KeyboardInterrupt).

    Raises:
        RobotError: the rig could not be reached to stop it (the message says so).
        KeyboardInterrupt: a third interrupt, the rig not yet answering.
    """
    with interrupts_stop_rig(rig, stopping=True) as interrupts:
        try:
            status: Optional[JobStatus] = rig.stop()
        except EmergencyStopError:  # ours, or someone pressed the rig's own stop
            status = None
    if interrupts.error is not None and not interrupts.estopped:
        raise interrupts.error
    if status is None or interrupts.estopped:
        return rig.job_after_estop(), True
    return status, False


def stopped_message(status: JobStatus, estopped: bool, resume: str, unit: str = "moves", *,
                    scanning: bool = False) -> str:
    """Return the lines telling how far the rig got and how to go on (``resume``: a command;
    ``unit``: what the job counts, ``"moves"`` or an action rig's ``"actions"``; ``scanning``:
    the rig was turning the cube to scan it, so nothing of a solution was made and
    ``resume`` scans it again)."""
    during = " while turning the cube to scan it" if scanning else ""
    if estopped:
        out = (" a layer may be half-turned: straighten it by hand and re-scan the cube"
               if status.out_of_line else "")
        return (f"emergency-stopped{during} after {status.done} of {status.total} {unit};"
                f"{out}\nclear the rig with `cubebot stop --port PORT --clear` before it moves "
                "again")
    if scanning:
        return (f"stopped{during} after {status.done} of {status.total} {unit}; nothing of "
                f"the solution was made\nscan the cube again with: {resume}")
    if status.total > 0 and status.done >= status.total:
        return (f"stopped after the last move: all {status.total} {unit} were made, so "
                "there is nothing to resume; the cube was not checked afterwards: look at it")
    return (f"stopped after {status.done} of {status.total} {unit}\n"
            f"resume with: {resume}")


def report_unreachable(err: RobotError) -> str:
    """Return the message when the rig could not be stopped (it may still be turning)."""
    return (f"could not stop the rig ({err}): it may still be turning; press its own stop "
            "button or unplug its motor supply")
