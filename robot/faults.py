"""Line faults for the simulated rig: drop, corrupt, duplicate and delay bytes on the wire.

Each direction of the simulated cable is a :class:`FaultyWire`: bytes go in, and come out
(some lost, some with one bit flipped -- the usual shape of line noise -- some twice, all late
by ``delay`` milliseconds) when their time has come.
"""

from __future__ import annotations

from cubebot.robot.errors import OptionError

import os
import random
import select
import termios
import threading
import time
import tty
from collections import deque
from dataclasses import dataclass
from typing import Optional

__all__ = [
    "Faults", "FaultyWire", "FaultyLine", "DIRECTIONS"]

#: Which way line faults act: both ways, host to rig only, or rig to host only.
DIRECTIONS = ("both", "to-rig", "to-host")


def _rate(name: str, value: float) -> float:
    if not 0.0 <= value <= 1.0:
        raise OptionError(f"{name}={value!r} is a probability: give a number from 0 to 1")
    return float(value)


@dataclass(frozen=True)
class Faults:
    """The faults a simulated rig injects.

    ``drop``, ``corrupt`` and ``duplicate`` are per-byte probabilities and ``delay`` is
    milliseconds added to every byte, on the wire in ``direction``: ``"both"``, ``"to-rig"``
    (host to rig only) or ``"to-host"``. ``stall_at`` and ``endstop_at``
    make the rig's n-th executed move (counting from 1) fail with that fault; ``boot_delay`` is
    the seconds a rig stays deaf after (re)booting; ``reset_on_open`` reboots the rig whenever
    a host's open raises the port's DTR line, as a stock Arduino Mega or Uno resets: at the
    first open, and at every open after a close that dropped DTR (HUPCL left set).

    Raises (from the constructor):
        ValueError: a probability outside 0..1 or a negative time.
    """

    drop: float = 0.0
    corrupt: float = 0.0
    duplicate: float = 0.0
    delay: float = 0.0
    direction: str = "both"
    stall_at: Optional[int] = None
    endstop_at: Optional[int] = None
    boot_delay: float = 0.0
    reset_on_open: bool = False

    def __post_init__(self) -> None:
        for name in ("drop", "corrupt", "duplicate"):
            _rate(name, getattr(self, name))
        if self.delay < 0 or self.boot_delay < 0:
            raise OptionError("delay and boot_delay are times: give numbers >= 0")
        if self.direction not in DIRECTIONS:
            raise OptionError(f"direction={self.direction!r}: choose one of "
                             f"{', '.join(DIRECTIONS)}")

    def on(self, direction: str) -> "Faults":
        """Return the line faults that apply to bytes going ``direction`` (to-rig, to-host)."""
        if self.direction in ("both", direction):
            return self
        return Faults()

    @property
    def on_wire(self) -> bool:
        """Return True when bytes on the wire are touched at all."""
        return bool(self.drop or self.corrupt or self.duplicate or self.delay)


class FaultyWire:
    """One direction of the simulated cable: bytes in, faulty bytes out when due."""

    def __init__(self, faults: Faults, rng: random.Random) -> None:
        self.faults = faults
        self._rng = rng
        self._due: deque[tuple[float, bytes]] = deque()
        self.dropped = 0
        self.corrupted = 0
        self.duplicated = 0

    def send(self, data: bytes, now: float) -> None:
        """Put ``data`` on the wire at time ``now`` (seconds)."""
        if not data:
            return
        f = self.faults
        if f.drop or f.corrupt or f.duplicate:
            out = bytearray()
            for byte in data:
                if f.drop and self._rng.random() < f.drop:
                    self.dropped += 1
                    continue
                if f.corrupt and self._rng.random() < f.corrupt:
                    byte ^= 1 << self._rng.randrange(8)
                    self.corrupted += 1
                out.append(byte)
                if f.duplicate and self._rng.random() < f.duplicate:
                    out.append(byte)
                    self.duplicated += 1
            data = bytes(out)
        if data:
            self._due.append((now + f.delay / 1000.0, data))

    def receive(self, now: float) -> bytes:
        """Return the bytes whose time has come by ``now``."""
        out = bytearray()
        while self._due and self._due[0][0] <= now:
            out += self._due.popleft()[1]
        return bytes(out)

    def clear(self) -> None:
        """Forget the bytes still on the wire (the cable was pulled)."""
        self._due.clear()


class FaultyLine:
    """A faulty cable between a rig's pty and a new pty for the host, in a thread.

    Bytes each way pass through a :class:`FaultyWire` (``faults.on("to-rig")`` and
    ``on("to-host")``), so a rig that runs elsewhere (the AVR firmware in simavr) meets the
    same line faults as the simulated rig. :attr:`port` is the host's end. The cable carries
    the DTR line too: the rig's end is open exactly while a host has the host's end open, and
    closes with the host's HUPCL, so a rig that resets on open sees what the host did.

    Raises (from the constructor):
        OSError: the rig's pty cannot be opened.
    """

    def __init__(self, rig_port: str, faults: Faults, seed: Optional[int] = None) -> None:
        rng = random.Random(seed)
        self._to_rig = FaultyWire(faults.on("to-rig"), random.Random(rng.random()))
        self._to_host = FaultyWire(faults.on("to-host"), random.Random(rng.random()))
        self._rig_port = rig_port
        self._rig: Optional[int] = None
        self._master, slave = os.openpty()
        tty.setraw(slave)
        attributes = termios.tcgetattr(slave)
        attributes[2] |= termios.HUPCL  # a USB serial device's default
        termios.tcsetattr(slave, termios.TCSANOW, attributes)
        os.set_blocking(self._master, False)
        self.port = os.ttyname(slave)
        os.close(slave)
        self._poll = select.poll()
        self._poll.register(self._master, select.POLLIN)
        self._running = True
        self._t0 = time.monotonic()
        self._thread = threading.Thread(target=self._serve, name="faulty-line", daemon=True)
        self._thread.start()

    def _follow_host(self) -> None:
        """Open the rig's end while a host has the host's end open (see the class doc)."""
        host_open = not any(event & select.POLLHUP for _, event in self._poll.poll(0))
        if host_open and self._rig is None:
            self._rig = os.open(self._rig_port, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
        elif not host_open and self._rig is not None:
            hupcl = termios.tcgetattr(self._master)[2] & termios.HUPCL
            attributes = termios.tcgetattr(self._rig)
            attributes[2] = (attributes[2] & ~termios.HUPCL) | hupcl
            termios.tcsetattr(self._rig, termios.TCSANOW, attributes)
            os.close(self._rig)
            self._rig = None
            self._to_rig.clear()
            self._to_host.clear()

    def _serve(self) -> None:
        while self._running:
            try:
                self._follow_host()
                fds = [self._master] + ([self._rig] if self._rig is not None else [])
                readable, _, _ = select.select(fds, [], [], 0.002)
            except (OSError, ValueError, termios.error):
                return
            if self._rig is None:
                time.sleep(0.001)  # no host: the host's end reads as hung up, always ready
                continue
            now = time.monotonic() - self._t0
            for fd, wire in ((self._master, self._to_rig), (self._rig, self._to_host)):
                if fd in readable:
                    try:
                        wire.send(os.read(fd, 4096), now)
                    except OSError:
                        pass  # nobody on that end yet: bytes are lost, as on a cable
            for fd, wire in ((self._rig, self._to_rig), (self._master, self._to_host)):
                data = wire.receive(now)
                if data:
                    try:
                        os.write(fd, data)
                    except OSError:
                        pass

    def close(self) -> None:
        """Stop the thread and close both ends."""
        self._running = False
        self._thread.join(timeout=2)
        for fd in (self._rig, self._master):
            if fd is None:
                continue
            try:
                os.close(fd)
            except OSError:
                pass
