"""Where a run moves the rig: each block that turns it runs under the run's interrupt guard.

A run moves the rig in its stream, and also while it scans: an action rig turns the cube over
to its camera look after look, and a rig with cameras turns a face to look again at stickers
in doubt. Ctrl-C in any of those blocks must stop the rig from outside the code talking to it
(see :func:`cubebot.commands.stopping.interrupts_stop_rig`); between them (a frame being read,
the cube being solved) the rig is still and Ctrl-C ends the run at once.
"""

from __future__ import annotations

import contextlib
from typing import Callable, ContextManager, Iterator, Optional, Protocol

from cubebot.robot import JobStatus, Rig, RigFault

__all__ = ["Interrupts", "InterruptGuard", "RigMotion", "InterruptedInMotion"]


class Interrupts(Protocol):
    """What the person's interrupts did while a block moved the rig: how many there were, and
    the rig's job once the block ended stopped (see
    :meth:`cubebot.commands.stopping.RigInterrupts.stopped_job`)."""

    presses: int

    def stopped_job(self, rig: Rig, ended: RigFault) -> tuple[JobStatus, bool]:
        """Return the rig's job after the block ended with ``ended``, and whether it was
        emergency-stopped."""


#: Runs a block that moves the rig with interrupts turned into stopping it from elsewhere (the
#: block then ends with RigStoppedError or EmergencyStopError), yielding what they did; see
#: :func:`cubebot.commands.stopping.interrupts_stop_rig`.
InterruptGuard = Callable[[Rig], ContextManager[Interrupts]]


class InterruptedInMotion(KeyboardInterrupt):
    """Ctrl-C raised inside a block that moved the rig with no guard: the rig may still be
    turning, and whoever catches it stops it."""


class RigMotion:
    """The blocks of one run that move ``rig``, each under ``guard`` (when given).

    Call it for a block: ``with motion(): rig.stream(...)``. Afterwards :attr:`interrupts` is
    what the guard saw in the last block. A press that came as a block ended without stopping
    anything (the rig had just finished) raises KeyboardInterrupt when the block ends: the rig
    is still, and the person asked the run to stop.
    """

    def __init__(self, rig: Rig, guard: Optional[InterruptGuard] = None) -> None:
        self.rig = rig
        self.guard = guard
        self.interrupts: Optional[Interrupts] = None

    @contextlib.contextmanager
    def __call__(self) -> Iterator[None]:
        """Run the block with the rig's interrupts guarded; see the class.

        Raises:
            InterruptedInMotion: (without a guard) a press in the block.
            KeyboardInterrupt: (with a guard) a press came in the block and the block ended
                anyway, or a third press.
        """
        if self.guard is None:
            try:
                yield
            except InterruptedInMotion:
                raise
            except KeyboardInterrupt as pressed:
                raise InterruptedInMotion() from pressed
            return
        with self.guard(self.rig) as self.interrupts:
            yield
        if self.interrupts.presses:
            raise KeyboardInterrupt
