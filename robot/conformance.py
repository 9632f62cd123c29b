"""The protocol's conformance suite: does the rig at a port speak ``docs/protocol.md``?

:func:`run_checks` opens a port (any firmware: the Python rig, the AVR, an ESP32 or RP2040 of
someone else's making), greets the rig and runs :data:`CHECKS` in order; each check names the
section of the document it tests and ends passed or failed with what it saw. The suite works on
a noisy line (every exchange is repeated until answered), turns faces only in pairs that undo
each other, and emergency-stops the rig once, while it is idle. ``cubebot rig-check`` prints the
result and exits 0 only when every check passed.

This module runs the suite and keeps its outcomes (:class:`Check`, :class:`CheckResult`); the
checks are in :mod:`cubebot.robot.protocol_checks`, and the conversation they hold with the
rig, each exchange repeated until answered, is :mod:`cubebot.robot.probe`'s.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Optional

from cubebot.robot.errors import EmergencyStopError, ProtocolError, RobotError
from cubebot.robot.link import Link
from cubebot.robot.ports import claim
from cubebot.robot.probe import Failed, Probe
from cubebot.robot.protocol_checks import CHECKS, GREETING, ONLY_FOR

# Failed lives in probe.py and CHECKS in protocol_checks.py; both are still public here
__all__ = ["Check", "CheckResult", "CHECKS", "run_checks", "Failed"]


@dataclass(frozen=True)
class Check:
    """One check's outcome: its name, the section of docs/protocol.md, pass or fail, and what
    was seen."""

    name: str
    section: str
    passed: bool
    detail: str


@dataclass
class CheckResult:
    """The suite's outcome: every check run, in order; ``stopped`` when the person stopped the
    suite between two checks (the rest were not run)."""

    url: str
    checks: list[Check] = field(default_factory=list)
    stopped: bool = False

    @property
    def passed(self) -> bool:
        """Return True when every check was run and passed (and there were checks)."""
        return bool(self.checks) and not self.stopped and all(c.passed for c in self.checks)

    def as_dict(self) -> dict[str, object]:
        """Return the result as a JSON-ready dict."""
        return {"url": self.url, "passed": self.passed, "stopped": self.stopped,
                "checks": [check.__dict__ for check in self.checks]}


def run_checks(url: str, *, baudrate: int = 250000,
               progress: Optional[Callable[[Check], None]] = None,
               stop_asked: Optional[Callable[[], bool]] = None) -> CheckResult:
    """Return the outcome of every check of :data:`CHECKS` against the rig at ``url``;
    ``progress`` hears each check as it ends.

    ``stop_asked`` is asked before each check; once it says True the suite ends there, with
    ``stopped`` set. Each check turns back every face it turned, so a suite stopped between
    two checks leaves the cube as it found it (Ctrl-C in ``cubebot rig-check``).

    Raises:
        RigConnectionError: the port cannot be opened (or another program holds it).
    """
    result = CheckResult(url)
    held = claim(url)
    try:
        link = Link(url, baudrate)
    except BaseException:
        held.release()
        raise
    probe, broken = Probe(link, baudrate), ""
    try:
        for name, section, function in CHECKS:
            if stop_asked is not None and stop_asked():
                result.stopped = True
                break
            if function not in GREETING and \
                    ONLY_FOR.get(function, "action" if probe.kind else "motor") != \
                    ("action" if probe.kind else "motor"):
                continue  # a check of the other kind of rig
            if broken:
                outcome = Check(name, section, False, f"not run: {broken}")
            else:
                try:
                    outcome = Check(name, section, True, function(probe))
                except (Failed, RobotError) as err:
                    outcome = Check(name, section, False, str(err))
                    if function in GREETING or isinstance(err, RobotError) \
                            and not isinstance(err, (ProtocolError, EmergencyStopError)):
                        broken = f"{name} failed"
            result.checks.append(outcome)
            if progress is not None:
                progress(outcome)
    finally:
        link.close()
        held.release()
    return result
