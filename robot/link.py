"""One open port to a rig: the reader thread, frame writes, queries, and the handshake record.

A :class:`Link` opens its URL with ``serial.serial_for_url`` (so a device path, ``COM3``,
``socket://``, ``rfc2217://``, a pty or ``rigsim://`` all work), reads in one
``serial.threaded.ReaderThread`` that turns bytes into checked frames, and turns what arrives
into errors where it must: a lost port, an emergency-stop notice, a changed boot id.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from dataclasses import dataclass
from typing import Optional, Union

import serial
import serial.threaded

from cubebot.robot.errors import (
    EmergencyStopError,
    ProtocolError,
    RigConnectionError,
    RigResetError,
    RigTimeoutError,
)
from cubebot.robot.limits import RigLimits
from cubebot.robot.ports import open_port
from cubebot.robot.protocol import PROTOCOL_VERSION, Frame, FrameParser, encode
from cubebot.robot.state import RigState

__all__ = ["Link", "RigInfo"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class RigInfo:
    """The rig's handshake: versions, boot id, geometry, queue depth, counters, why it last
    reset (``reset_cause``: ``PWR``, ``EXT``, ``BOR``, ``WDT`` or ``NONE``), its limits, and
    whether it reset as this host opened the port (``reset_on_open``: its boot banner came
    during the handshake)."""

    protocol: int
    firmware: str
    boot_id: str
    faces: str
    steps_per_quarter: int
    microsteps: int
    queue_depth: int
    parallel_opposite: bool
    size: int
    state: RigState
    next_seq: int
    done: int
    reset_cause: str
    limits: RigLimits
    reset_on_open: bool = False
    kind: str = ""  # an action rig's kind (docs/protocol.md section 15); "" for a motor rig

    @property
    def is_action_rig(self) -> bool:
        """Return True for a rig that turns the cube over (it takes ACT frames, not MOVE)."""
        return bool(self.kind)

    @property
    def job_unit(self) -> str:
        """Return what this rig's jobs count: ``"actions"`` on an action rig, else ``"moves"``."""
        return "actions" if self.is_action_rig else "moves"

    @classmethod
    def from_frames(cls, hello: Frame, rig: Frame, limits: Frame,
                    reset_on_open: bool = False) -> "RigInfo":
        """Return the handshake the ``HELLO`` reply (versions, state, counters, boot id), the
        ``RIG`` reply (geometry, queue depth, cube size) and the ``LIMITS`` reply carry.

        Raises:
            ProtocolError: a field is missing or malformed.
        """
        try:
            if "KIND" in rig.fields:
                return cls(hello.field_int("PROTO"), hello.fields["FW"], hello.fields["B"],
                           "", 0, 0, rig.field_int("QUEUE"), False, rig.field_int("SIZE"),
                           RigState.from_wire(hello.fields.get("STATE", "READY")),
                           hello.field_int("N"), hello.field_int("D"), hello.fields["RST"],
                           RigLimits(0, 0, False, 0.0, 0.0,
                                     limits.field_int("IDLE") / 1000.0, 0.0, 0),
                           reset_on_open, rig.fields["KIND"].lower())
            return cls(hello.field_int("PROTO"), hello.fields["FW"], hello.fields["B"],
                       rig.fields["FACES"], rig.field_int("STEPS"), rig.field_int("MICRO"),
                       rig.field_int("QUEUE"), rig.fields.get("PAR") == "1",
                       rig.field_int("SIZE"),
                       RigState.from_wire(hello.fields.get("STATE", "READY")),
                       hello.field_int("N"), hello.field_int("D"), hello.fields["RST"],
                       RigLimits.from_frames(rig, limits), reset_on_open)
        except KeyError as err:
            raise ProtocolError(f"handshake {hello} / {rig} / {limits} lacks the field "
                                f"{err}") from err

    def as_dict(self) -> dict[str, object]:
        """Return the handshake as a JSON-ready dict (the state as its word, the limits as
        ``limits``: ``max_speed`` in rev/s, ``acceleration`` in rev/s², times in seconds; an
        action rig's ``kind`` and ``idle_off`` instead of motors and limits)."""
        if self.is_action_rig:  # no motors: geometry and step limits do not apply
            motor = ("faces", "steps_per_quarter", "microsteps", "parallel_opposite", "limits")
            return {**{k: v for k, v in self.__dict__.items() if k not in motor},
                    "state": self.state.value, "idle_off": self.limits.idle_off}
        return {**self.__dict__, "state": self.state.value, "limits": self.limits.as_dict()}


class RoundTrip:
    """The one round-trip estimate of a link: smoothed seconds of answered frames and queries.

    Queries and moves both feed it (:meth:`sample`) and both time their retries from it
    (:meth:`timer`), so a slow line slows every retry and a fast one speeds them up.
    """

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds

    def sample(self, seconds: float) -> None:
        """Fold in one measured round trip (of a frame answered at its first sending)."""
        self.seconds = 0.875 * self.seconds + 0.125 * max(seconds, 0.0)

    def timer(self, cap: float, backoffs: int = 0) -> float:
        """Return the seconds to wait before sending again: a few round trips, doubled after
        each of ``backoffs`` timeouts in a row, at most ``cap``."""
        return min(cap, max(4 * self.seconds, 0.01) * (1 << min(backoffs, 16)))


class _Lost:
    """Marks the reader thread's end (the connection was lost)."""

    def __init__(self, error: Optional[BaseException]) -> None:
        self.error = error


class _FrameReader(serial.threaded.Protocol):
    """Reader-thread protocol: checked frames and connection loss go into one queue."""

    def __init__(self, inbox: "queue.Queue[Union[Frame, _Lost]]") -> None:
        self._inbox = inbox
        self.parser = FrameParser()
        #: When the last good frame arrived (``time.monotonic()``), 0.0 before the first.
        self.heard_at = 0.0

    def data_received(self, data: bytes) -> None:
        """Queue the checked frames that ``data`` completes."""
        for frame in self.parser.feed(data):
            self.heard_at = time.monotonic()
            self._inbox.put(frame)

    def connection_lost(self, exc: Optional[BaseException]) -> None:
        """Queue the news that the port is gone."""
        self._inbox.put(_Lost(exc))


class _Reader(serial.threaded.ReaderThread):
    """pyserial's reader thread, also ending cleanly on a bare ``OSError``.

    On a hung-up pseudo-terminal pyserial's ``in_waiting`` raises ``OSError`` (EIO) rather than
    ``SerialException``; the stock thread would die with a traceback and never report the loss.
    """

    def run(self) -> None:
        """Read until stopped or the port fails, then tell the protocol the connection is lost."""
        protocol = self.protocol = self.protocol_factory()
        protocol.connection_made(self)
        # pyserial's own "connected" event, which its stubs do not declare
        self._connection_made.set()  # type: ignore[attr-defined]
        error: Optional[BaseException] = None
        while self.alive and self.serial.is_open:
            try:
                data = self.serial.read(self.serial.in_waiting or 1)
            except (serial.SerialException, OSError) as err:
                error = err
                break
            if data:
                protocol.data_received(data)
        self.alive = False
        protocol.connection_lost(error)


#: Seconds since the last good frame during which the rig counts as heard (queries not backed off).
_HEARD_LATELY = 1.0
#: Good version-2 frames that name a rig with older firmware before a query's deadline (one
#: alone could be line damage that happens to fit the old check).
_OLD_FRAMES_ENOUGH = 3


class Link:
    """An open port to a rig (see the module doc).

    ``timeout`` is the longest wait before a query is asked again; ``boot_id``, once set, is
    the boot id every answer must carry. The port is opened exclusively where the OS allows
    it, with DTR kept up when it closes (:func:`~cubebot.robot.ports.open_port`); ``banner``
    is the rig's last boot banner heard (``$H BOOT ...``), if any.

    Raises (from the constructor):
        RigConnectionError: the port cannot be opened (the message says how to fix it).
    """

    def __init__(self, url: str, baudrate: int = 250000, timeout: float = 0.25,
                 boot_id: Optional[str] = None) -> None:
        self.url = url
        self.timeout = timeout
        self.boot_id = boot_id
        self._new_boot: Optional[str] = None  # another boot id seen once, not yet confirmed
        #: The link's round-trip estimate, shared by queries and the sender.
        self.round_trip = RoundTrip(0.005)
        self._inbox: "queue.Queue[Union[Frame, _Lost]]" = queue.Queue()
        self._lock = threading.Lock()
        self._query_id = 0
        self.banner: Optional[Frame] = None
        self._port = open_port(url, baudrate, 0.05)
        self._reader = _Reader(self._port, lambda: _FrameReader(self._inbox))
        self._reader.start()
        self._reader.connect()

    def close(self) -> None:
        """Stop the reader thread and close the port."""
        if self._reader.alive:
            self._reader.stop()
        try:
            self._port.close()
        except (serial.SerialException, OSError):
            pass  # the device is already gone

    def _lost(self, detail: object = "") -> RigConnectionError:
        return RigConnectionError(f"lost the connection to the rig at {self.url}"
                                  + (f": {detail}" if detail else ""))

    def write(self, data: bytes) -> None:
        """Send raw bytes (a frame, or the emergency-stop byte).

        Raises:
            RigConnectionError: the port is gone.
        """
        if not (self._reader.alive and self._reader.is_alive()):
            raise self._lost()
        try:
            with self._lock:
                self._reader.write(data)
        except (serial.SerialException, OSError) as err:
            raise self._lost(err) from err

    def send(self, frame: Frame) -> None:
        """Send one frame (see :meth:`write`)."""
        self.write(encode(frame))

    def next_frame(self, timeout: float) -> Optional[Frame]:
        """Return the next frame from the rig, or None after ``timeout`` seconds of quiet.

        Raises:
            RigConnectionError: the port was lost.
            EmergencyStopError: the rig announced an emergency stop.
            RigResetError: two frames in a row carry the same other boot id than
                :attr:`boot_id` (one alone may be line damage the CRC missed; a rig that reset
                says its new id in every answer).
        """
        deadline = time.monotonic() + max(timeout, 0.0)
        while True:
            try:
                item = self._inbox.get(timeout=max(deadline - time.monotonic(), 0.0))
            except queue.Empty:
                if not self._reader.is_alive():
                    raise self._lost() from None
                return None
            if isinstance(item, _Lost):
                self._inbox.put(item)  # stays lost until the port is opened again
                raise self._lost(item.error or "port closed")
            if item.kind == "E":
                raise EmergencyStopError("the rig was emergency-stopped; queued moves were "
                                         "discarded. Check the rig, then call clear()",
                                         item.fields)
            boot = item.fields.get("B")
            if item.kind == "H":
                self.banner = item
                log.info("the rig at %s booted (%s), boot id %s", self.url,
                         item.fields.get("RST", "?"), boot)
                if self.boot_id is not None and boot != self.boot_id:
                    raise RigResetError(
                        f"the rig reset (boot id {self.boot_id} -> {boot}, cause "
                        f"{item.fields.get('RST', '?')}) and lost its queue: the cube's "
                        "position is unknown. Re-scan the cube and solve again")
                return item
            if self.boot_id is None or boot is None or boot == self.boot_id:
                self._new_boot = None
                return item
            if boot == self._new_boot:
                raise RigResetError(
                    f"the rig reset (boot id {self.boot_id} -> {boot}) and lost its queue: the "
                    "cube's position is unknown. Re-scan the cube and solve again"
                )
            log.warning("a frame carries boot id %s, not %s: waiting for the next to confirm",
                        boot, self.boot_id)
            self._new_boot = boot

    def drain(self) -> None:
        """Forget frames already received (answers to earlier exchanges)."""
        while True:
            try:
                item = self._inbox.get_nowait()
            except queue.Empty:
                return
            if isinstance(item, _Lost):
                self._inbox.put(item)
                return

    def ask(self, word: str) -> str:
        """Return the tag of a query sent once (its answer comes through :meth:`next_frame`)."""
        self._query_id = (self._query_id + 1) % 10000
        tag = f"Q{self._query_id}"
        self.send(Frame(tag, word))
        return tag

    def query(self, word: str, deadline: float) -> Frame:
        """Return the rig's answer to a query, asked again until ``deadline``.

        Copies go out a few measured round trips apart while the rig is heard (any good frame
        in the last second: its answers are being damaged, so many quick chances win), and
        further apart the longer it is silent (back-off, at most ``timeout``), so a board
        still booting is not flooded; an answer to any copy counts (each copy has its own
        number, so every answer also measures the round trip).

        Raises:
            RigTimeoutError: no answer by ``deadline`` (a ``time.monotonic()`` value).
            ProtocolError: the rig does not know the query, or it answered only in protocol
                version 2.
            RigConnectionError, EmergencyStopError, RigResetError: see :meth:`next_frame`.
        """
        asked: dict[str, float] = {}  # query number -> when asked
        unheard = 0  # copies sent since the rig was last heard
        while time.monotonic() < deadline or not asked:
            if self._old_frames() >= _OLD_FRAMES_ENOUGH:
                raise self._old_protocol()
            unheard = 0 if time.monotonic() - self._heard_at() < _HEARD_LATELY else unheard + 1
            interval = self.round_trip.timer(self.timeout, unheard // 16)
            asked[self.ask(word)[1:]] = time.monotonic()
            until = min(deadline, time.monotonic() + interval)
            while (left := until - time.monotonic()) > 0:
                frame = self.next_frame(left)
                if frame is not None and frame.kind == "H":
                    break  # the rig has just booted: ask again now, not after the back-off
                if frame is None or frame.kind != "R" or frame.tag[1:] not in asked:
                    continue
                if frame.word == "ERR":
                    raise ProtocolError(f"the rig does not know the query {word}: {frame}")
                self.round_trip.sample(time.monotonic() - asked[frame.tag[1:]])
                return frame
        if self._old_frames():
            raise self._old_protocol()
        raise RigTimeoutError(f"the rig at {self.url} did not answer {word} "
                              f"({len(asked)} tries)")

    def _old_frames(self) -> int:
        reader = self._reader.protocol
        return reader.parser.old_frames if isinstance(reader, _FrameReader) else 0

    def _heard_at(self) -> float:
        reader = self._reader.protocol
        return reader.heard_at if isinstance(reader, _FrameReader) else 0.0

    def _old_protocol(self) -> ProtocolError:
        return ProtocolError(
            f"the rig at {self.url} speaks protocol version 2 (frames checked by a CRC-16), "
            f"this host version {PROTOCOL_VERSION}: flash the rig with the firmware of this "
            "cubebot (`make -C robot/firmware/avr flash`) or use the cubebot that matches it")
