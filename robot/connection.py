"""The connection to a rig: its port opened by URL and held alone, the handshake, the queries.

:class:`RigConnection` opens the port (:class:`~cubebot.robot.link.Link`), claims it for this
program (:mod:`cubebot.robot.ports`: a second program is refused with the holder's name, and
may ask the holder to stop), greets the rig (:mod:`cubebot.robot.handshake`) and settles the
model to plan with. It reconnects to a port that was lost, and a changed boot id then stops
everything with :class:`RigResetError`. It asks what needs no sequenced frame: status, the
cube, the job, an action rig's pose, and sends the emergency-stop byte. The jobs themselves,
sequenced frames sent exactly once, are :class:`~cubebot.robot.host.Rig`'s.
"""

from __future__ import annotations

import logging
import threading
import time
from abc import ABC, abstractmethod
from types import TracebackType
from typing import Any, Optional, Self, Union

from cubebot.robot.errors import OptionError, ProtocolError, RigConnectionError
from cubebot.robot.handshake import HANDSHAKE_WAIT, choose_model, handshake
from cubebot.robot.job_status import JobStatus
from cubebot.robot.link import Link, RigInfo
from cubebot.robot.model import RigModel
from cubebot.robot.ports import PortClaim, claim
from cubebot.robot.protocol import ESTOP, Frame
from cubebot.robot.sender import Job, StreamProgress
from cubebot.robot.state import RigState

__all__ = ["RigConnection"]

log = logging.getLogger(__name__)


class RigConnection(ABC):
    """A connection to a rig, opened by URL; :class:`~cubebot.robot.host.Rig` adds its jobs.

    ``model`` plans the moves (a model or a built-in name; by default the built-in model whose
    faces match the handshake); ``timeout`` is the seconds before a frame is sent again and
    ``retries`` how many times in a row that may happen; ``boot_wait`` the seconds to wait for
    a board that resets when its port opens; ``reconnect_wait`` the seconds a stream keeps
    trying to reopen a lost port before it gives up; ``window`` caps the frames in flight;
    ``stall_timeout`` the seconds the rig may go without finishing a move before the host
    gives up waiting; ``query_wait`` the seconds a query (status, cube) is asked again before
    the rig counts as silent. The port opens in :meth:`open` (or ``with Rig(url) as rig:``),
    for this rig alone. Without a ``model`` the host plans with the rig's own geometry and
    limits; a model that asks for more than the rig allows is refused.

    Like pyserial's ``SerialBase``, the constructor takes every setting and sets up every
    piece of state, the jobs' too, so a rig is whole before any method runs.

    Raises (from the constructor):
        ValueError: a time that is not positive, negative retries, or a window below 1.
    """

    def __init__(self, url: str, *, model: Union[str, RigModel, None] = None,
                 timeout: float = 0.25, retries: int = 20, boot_wait: float = 3.0,
                 reconnect_wait: float = 2.0, baudrate: int = 250000,
                 window: Optional[int] = None, stall_timeout: float = 10.0,
                 query_wait: float = 5.0) -> None:
        for name, value in (("timeout", timeout), ("stall_timeout", stall_timeout)):
            if not value > 0:
                raise OptionError(f"{name}={value!r}: give a number of seconds > 0")
        if min(boot_wait, reconnect_wait, query_wait, retries) < 0:
            raise OptionError("boot_wait, reconnect_wait, query_wait and retries must be >= 0")
        if window is not None and window < 1:
            raise OptionError(f"window={window!r}: at least one frame must be in flight")
        self.url = url
        self._model_arg = model
        self.model: Optional[RigModel] = None
        self.timeout = timeout
        self.retries = retries
        self.boot_wait = boot_wait
        self.reconnect_wait = reconnect_wait
        self.baudrate = baudrate
        self.window = window
        self.stall_timeout = stall_timeout
        self.query_wait = query_wait
        self.info: Optional[RigInfo] = None
        self._link: Optional[Link] = None
        self._next_seq = 0
        self._job: Optional[Job] = None
        self._resync = False
        self._talk = threading.RLock()  # held by whoever talks to the rig
        self._stop_asked = threading.Event()
        self._claim: Optional[PortClaim] = None
        #: The last progress of a stream (what another program asking is told).
        self.last_progress: Optional[StreamProgress] = None

    @abstractmethod
    def _from_elsewhere(self, request: str) -> dict[str, Any]:
        """Return the answer to another program's request for the port this rig holds (see
        :mod:`cubebot.robot.ports`)."""

    # -- connection -------------------------------------------------------------------------

    def __enter__(self) -> Self:
        self.open()
        return self

    def __exit__(self, exc_type: Optional[type[BaseException]], exc: Optional[BaseException],
                 tb: Optional[TracebackType]) -> None:
        self.close()

    def open(self) -> RigInfo:
        """Return the handshake after opening the port and greeting the rig.

        Nothing stays open when it fails.

        Raises:
            PortBusyError: another program (or another Rig) has the port.
            RigConnectionError: the port cannot be opened (the message says how to fix it).
            RigTimeoutError: nothing answered within ``boot_wait`` seconds.
            ProtocolError: the rig speaks another protocol version.
            RigModelError: the model's faces differ from the rig's, or it asks for more than
                the rig allows.
        """
        with self._talk:
            self._claim = claim(self.url, self._from_elsewhere)
            try:
                self._connect()
                info = self._handshake()
                self.model = choose_model(self._model_arg, info, self.url)
            except BaseException:
                self.close()
                raise
            self.info = info
            self._connected().boot_id = info.boot_id
            self._next_seq = info.next_seq
            log.info("rig %s: firmware %s, boot %s, faces %s, queue %d", self.url,
                     info.firmware, info.boot_id, info.faces, info.queue_depth)
            return info

    def _connect(self) -> None:
        self._link = Link(self.url, self.baudrate, self.timeout,
                          self.info.boot_id if self.info else None)

    def _disconnect(self) -> None:
        link, self._link = self._link, None
        if link is not None:
            link.close()

    def _connected(self) -> Link:
        if self._link is None:
            raise RigConnectionError(f"the rig at {self.url} is not connected: use "
                                     "`with Rig(url) as rig:` or reconnect()")
        return self._link

    def close(self) -> None:
        """Close the port (the rig keeps its queue and counters) and let it go, once another
        program's request being answered (a stop) is answered."""
        held, self._claim = self._claim, None
        if held is not None:
            held.release()
        self._disconnect()

    def reconnect(self, url: Optional[str] = None) -> RigInfo:
        """Return the handshake after reopening the port (at ``url`` if it moved).

        Raises:
            RigResetError: the rig rebooted meanwhile: the cube must be re-scanned.
            RigConnectionError, RigTimeoutError: as for :meth:`open`.
        """
        with self._talk:
            self._disconnect()
            if url is not None and url != self.url:
                if self._claim is not None:
                    self._claim.release()
                    self._claim = None
                self.url = url
                self._claim = claim(url, self._from_elsewhere)
            self._connect()
            try:
                info = self._handshake()
            except BaseException:
                self._disconnect()
                raise
            self._next_seq = info.next_seq
            self.info = info
            self._connected().boot_id = info.boot_id
            return info

    def _query_wait(self) -> float:
        # A long reply (the 54-letter cube) is often damaged on a noisy line: keep asking for a
        # while, not just `retries` times.
        return max(self.timeout * (self.retries + 1), self.query_wait)

    def _query(self, word: str) -> Frame:
        with self._talk:
            return self._connected().query(word, time.monotonic() + self._query_wait())

    def _handshake(self) -> RigInfo:
        # A board that resets when the port opens is deaf while it boots, and a noisy line
        # damages many long replies: keep asking, backing off, until the handshake deadline.
        wait = max(self.boot_wait, self._query_wait(), HANDSHAKE_WAIT)
        return handshake(self._connected(), self.url, wait, self.info)

    # -- queries ----------------------------------------------------------------------------

    def status(self) -> dict[str, str]:
        """Return the rig's status fields (``STATE``, ``N``, ``D``, ``L``, ``B``, fault detail).

        Raises:
            RigTimeoutError, RigConnectionError, RigResetError.
        """
        return dict(self._query("STATUS").fields)

    def state(self) -> RigState:
        """Return what the rig is doing now.

        Raises:
            RigTimeoutError, RigConnectionError, RigResetError, ProtocolError.
        """
        return RigState.from_wire(self.status().get("STATE", "READY"))

    def facelets(self) -> str:
        """Return the facelet string of the cube in the rig, as the rig reports it.

        Raises:
            RigTimeoutError, RigConnectionError, RigResetError.
        """
        return self._query("CUBE").fields["F"]

    def job(self) -> JobStatus:
        """Return the rig's current job: state, id, moves done and total.

        Raises:
            RigTimeoutError, RigConnectionError, RigResetError.
        """
        f = self._query("JOB").fields
        try:
            return JobStatus(RigState.from_wire(f["STATE"]), None if f["J"] == "-" else f["J"],
                             int(f["JD"]), int(f["JT"]), int(f["L"]), f.get("OUT") == "1",
                             f["B"])
        except (KeyError, ValueError) as err:
            raise ProtocolError(f"the rig's job reply {f} is malformed ({err})") from err

    def orientation(self) -> str:
        """Return the cube's faces at an action rig's up and front positions (``"UF"`` as
        loaded), as the rig's actions since its boot left them (``POSE``'s ``O=``).

        Raises:
            ProtocolError: the rig does not say (a motor rig, or older firmware).
            RigTimeoutError, RigConnectionError, RigResetError.
        """
        found = self._query("POSE").fields.get("O")
        if found is None:
            raise ProtocolError(f"the rig at {self.url} does not report the cube's orientation")
        return found

    def pose(self) -> tuple[str, ...]:
        """Return an action rig's joints and switches as it reports them (``HOLDER:+90``,
        ``COVER:OPEN``), after the actions accepted so far.

        Raises:
            ProtocolError: the rig does not say (a motor rig, or older firmware).
            RigTimeoutError, RigConnectionError, RigResetError.
        """
        return self._query("POSE").args

    def estop(self) -> None:
        """Send the single-byte emergency stop (three times, in case one is lost).

        Safe from any thread, at any time: it does not wait for a stream in progress.

        Raises:
            RigConnectionError: the port is gone.
        """
        self._connected().write(bytes([ESTOP]) * 3)
        log.warning("emergency stop sent to %s", self.url)
