"""The simulated rig: the firmware served on a real pseudo-terminal and in-process by URL.

``with SimulatedRig() as sim:`` starts a background thread that runs :class:`Firmware` behind
a pty (``sim.port`` is its ``/dev/pts/N`` path, opened by the host like any serial device) and
behind the in-process URL ``sim.url`` (``rigsim://NAME``, served by the pyserial handler in
:mod:`cubebot.robot.urlhandler.protocol_rigsim`). Both transports pass through the same
:class:`FaultyWire` pair, and the rig can be unplugged, plugged back, reset and stopped by its
button on demand.

The cable's DTR line is modelled as a USB serial board sees it: down until a host opens the
port, up while one has it open, and down again after the last close unless that host cleared
HUPCL (on the pty the sim reads the host's own termios; ``rigsim://`` ports have a ``hupcl``
attribute). With ``Faults(reset_on_open=True)`` the rig resets whenever DTR goes up, as a stock
Arduino Mega does through its auto-reset capacitor; bytes sent while it boots are lost, and
nothing it says reaches a closed port.
"""

from __future__ import annotations

import errno
import itertools
import logging
import os
import random
import select
import termios
import threading
import time
import tty
import weakref
from types import TracebackType
from typing import Optional, Union

from cubebot.robot.faults import Faults, FaultyWire
from cubebot.robot.simfirmware import ExecutedSlot, Firmware
from cubebot.robot.model import RigModel

__all__ = ["SimulatedRig", "find_simulated_rig"]

log = logging.getLogger(__name__)

_REGISTRY: "weakref.WeakValueDictionary[str, SimulatedRig]" = weakref.WeakValueDictionary()
_NAMES = itertools.count(1)


def find_simulated_rig(name: str) -> "SimulatedRig":
    """Return the running simulated rig registered as ``name``.

    Raises:
        KeyError: no running simulated rig has that name.
    """
    return _REGISTRY[name]


class HostLink:
    """The in-process end of the simulated cable, as seen by the URL handler."""

    def __init__(self, rig: "SimulatedRig") -> None:
        self._rig = rig
        self._inbox = bytearray()
        self._ready = threading.Condition()
        self._cancel = False
        self.connected = True
        #: Whether closing this end drops DTR (a serial device's default; a host clears it).
        self.hupcl = True

    def write(self, data: bytes) -> None:
        """Send ``data`` to the rig."""
        self._rig._from_link(data)

    def deliver(self, data: bytes) -> None:
        """Queue bytes from the rig for :meth:`read`."""
        with self._ready:
            self._inbox += data
            self._ready.notify_all()

    def read(self, size: int, timeout: Optional[float]) -> bytes:
        """Return up to ``size`` bytes from the rig, waiting at most ``timeout`` seconds."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._ready:
            self._cancel = False
            while not self._inbox and self.connected and not self._cancel:
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    break
                self._ready.wait(left)
            data = bytes(self._inbox[:size])
            del self._inbox[:size]
            return data

    @property
    def waiting(self) -> int:
        """Return the bytes ready to read."""
        return len(self._inbox)

    def wake(self) -> None:
        """Wake a blocked :meth:`read` (cancel or disconnect)."""
        with self._ready:
            self._cancel = True
            self._ready.notify_all()

    def disconnect(self) -> None:
        """Mark the cable pulled; blocked readers wake up."""
        self.connected = False
        self.wake()


class SimulatedRig:
    """A rig's firmware served in a background thread (see the module doc).

    ``size`` and ``facelets`` give the cube held by the rig (solved by default); ``model`` a
    rig model or built-in name; ``faults`` the line and motor faults (and ``reset_on_open``);
    ``seed`` makes faults and boot ids repeatable; ``time_scale`` multiplies motor times
    (0 = instant); ``idle_off`` the seconds its drivers stay on after a move; ``use_pty=False``
    serves the URL handler only; ``firmware`` the class of firmware to run (a test's
    deliberately broken one, for instance; an action rig's model is served by
    :class:`~cubebot.robot.simactions.ActionFirmware`).

    Raises (from the constructor):
        ValueError: bad size, facelets, model or fault rates.
    """

    def __init__(self, size: int = 3, facelets: Optional[str] = None,
                 model: Union[str, RigModel] = "six-motor", faults: Faults = Faults(), *,
                 seed: Optional[int] = None, queue_depth: int = 8, time_scale: float = 1.0,
                 idle_off: float = 0.5, use_pty: bool = True,
                 firmware: type[Firmware] = Firmware) -> None:
        self.model = model if isinstance(model, RigModel) else RigModel.load(model)
        self.faults = faults
        rng = random.Random(seed)
        if firmware is Firmware and self.model.is_action_rig:
            from cubebot.robot.simactions import ActionFirmware
            firmware = ActionFirmware
        self.firmware = firmware(self.model, size, facelets, queue_depth=queue_depth,
                                 faults=faults, rng=random.Random(rng.random()),
                                 time_scale=time_scale, idle_off=idle_off)
        self._to_rig = FaultyWire(faults.on("to-rig"), random.Random(rng.random()))
        self._to_host = FaultyWire(faults.on("to-host"), random.Random(rng.random()))
        self.name = f"sim{next(_NAMES)}"
        self._use_pty = use_pty
        self._lock = threading.RLock()
        self._links: list[HostLink] = []
        self._pending = bytearray()
        self._master: Optional[int] = None
        self._port = ""
        self._plugged = False
        self._dtr = False  # the board's DTR line: up while a host holds the port (see above)
        self._pty_open = False  # a host has the pty open
        self.resets_on_open = 0  # resets the DTR line caused
        self._running = False
        self._thread: Optional[threading.Thread] = None
        self._wake_r, self._wake_w = -1, -1
        self._t0 = time.monotonic()

    # -- context and life cycle -------------------------------------------------------------

    def __enter__(self) -> "SimulatedRig":
        self.start()
        return self

    def __exit__(self, exc_type: Optional[type[BaseException]], exc: Optional[BaseException],
                 tb: Optional[TracebackType]) -> None:
        self.close()

    def start(self) -> "SimulatedRig":
        """Return self after starting the serving thread (and the pty, unless disabled)."""
        if self._running:
            return self
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_w, False)
        with self._lock:  # what it says at power-on, with no host there, is lost
            self.firmware.take_output(self._now())
        self._running = True
        self.plug()
        _REGISTRY[self.name] = self
        self._thread = threading.Thread(target=self._serve, name=f"rig-{self.name}", daemon=True)
        self._thread.start()
        log.info("simulated rig %s serving on %s and %s", self.name, self._port or "-", self.url)
        return self

    def close(self) -> None:
        """Stop serving, close the pty and disconnect in-process hosts."""
        if not self._running:
            return
        self._running = False
        self._poke()
        if self._thread is not None:
            self._thread.join(2.0)
        self.unplug()
        _REGISTRY.pop(self.name, None)
        for fd in (self._wake_r, self._wake_w):
            os.close(fd)
        self._wake_r = self._wake_w = -1

    # -- what tests and the pipeline look at ------------------------------------------------

    @property
    def port(self) -> str:
        """Return the pty path the host opens (``/dev/pts/N``); it changes after a replug."""
        if not self._port:
            raise RuntimeError("the simulated rig has no pty: start it with use_pty=True")
        return self._port

    @property
    def url(self) -> str:
        """Return the in-process URL of this rig (``rigsim://NAME``)."""
        return f"rigsim://{self.name}"

    @property
    def facelets(self) -> str:
        """Return the facelet string of the cube in the rig, as its motors left it."""
        with self._lock:
            return self.firmware.cube.facelets

    @property
    def executed(self) -> list[ExecutedSlot]:
        """Return the move frames the rig has executed, in order."""
        with self._lock:
            return list(self.firmware.executed)

    @property
    def boot_id(self) -> str:
        """Return the current boot id."""
        return self.firmware.boot_id

    @property
    def wire_faults(self) -> dict[str, int]:
        """Return how many bytes were dropped, corrupted and duplicated, both ways together."""
        wires = (self._to_rig, self._to_host)
        return {"dropped": sum(w.dropped for w in wires),
                "corrupted": sum(w.corrupted for w in wires),
                "duplicated": sum(w.duplicated for w in wires)}

    # -- faults on demand -------------------------------------------------------------------

    def unplug(self) -> None:
        """Pull the cable: close the pty, disconnect in-process hosts, lose bytes in flight
        (DTR drops: a board that resets on open resets at the next open)."""
        with self._lock:
            self._plugged = False
            self._dtr = self._pty_open = False
            if self._master is not None:
                os.close(self._master)
            self._master = None
            for link in self._links:
                link.disconnect()
            self._links.clear()
            self._pending.clear()
            self._to_rig.clear()
            self._to_host.clear()
        log.info("simulated rig %s unplugged", self.name)

    def plug(self) -> None:
        """Plug the cable back in: a new pty (see :attr:`port`) and new in-process opens."""
        with self._lock:
            if self._plugged:
                return
            if self._use_pty:
                self._master, slave = os.openpty()
                tty.setraw(slave)
                # a USB serial device drops DTR on its last close unless a host says otherwise
                attributes = termios.tcgetattr(slave)
                attributes[2] |= termios.HUPCL
                termios.tcsetattr(slave, termios.TCSANOW, attributes)
                os.set_blocking(self._master, False)
                self._port = os.ttyname(slave)
                os.close(slave)  # the sim holds only the master: it sees when a host opens
            self._plugged = True
        self._poke()

    def replug(self) -> str:
        """Return the new port after pulling the cable and plugging it back in."""
        self.unplug()
        self.plug()
        return self._port

    def reset(self, cause: str = "BOR") -> None:
        """Reset the rig (by default as a power glitch would: a brown-out): new boot id, queue
        and counters lost."""
        with self._lock:
            self.firmware.boot(self._now(), cause)

    def press_stop(self) -> None:
        """Press the rig's stop button (an emergency stop; ``CLEAR`` waits for the release)."""
        with self._lock:
            self.firmware.press_stop(self._now())
        self._poke()

    def release_stop(self) -> None:
        """Release the rig's stop button."""
        with self._lock:
            self.firmware.release_stop()

    @property
    def dtr(self) -> bool:
        """Return whether the DTR line is up (a host has the port open, or closed it keeping
        DTR up)."""
        return self._dtr

    def _dtr_up(self) -> None:
        """A host opened the port: DTR goes up, and resets the rig if it was down."""
        if not self._dtr and self.faults.reset_on_open:
            self.resets_on_open += 1
            log.info("simulated rig %s: DTR rose on open: resetting", self.name)
            self.firmware.boot(self._now(), "EXT")
        self._dtr = True

    def _host_closed(self, hupcl: bool) -> None:
        """The last host closed the port: DTR drops if it left HUPCL set."""
        if hupcl:
            self._dtr = False

    # -- the in-process transport ------------------------------------------------------------

    def attach(self) -> HostLink:
        """Return a new in-process link to the rig (what opening ``self.url`` does).

        Raises:
            ConnectionError: the rig is unplugged or stopped.
        """
        with self._lock:
            if not (self._running and self._plugged):
                raise ConnectionError(f"simulated rig {self.name} is unplugged")
            self._dtr_up()
            link = HostLink(self)
            self._links.append(link)
            return link

    def detach(self, link: HostLink) -> None:
        """Forget an in-process link (the host closed its port)."""
        with self._lock:
            if link in self._links:
                self._links.remove(link)
                if not self._links and not self._pty_open:
                    self._host_closed(link.hupcl)

    def _from_link(self, data: bytes) -> None:
        with self._lock:
            if not self._plugged:
                raise ConnectionError(f"simulated rig {self.name} is unplugged")
            self._pending += data
        self._poke()

    def _poke(self) -> None:
        if self._wake_w >= 0:
            try:
                os.write(self._wake_w, b"x")
            except (BlockingIOError, OSError):
                pass  # a wake-up is already pending, or we are closing

    def _now(self) -> float:
        return time.monotonic() - self._t0

    # -- the serving loop -------------------------------------------------------------------

    def _serve(self) -> None:
        while self._running:
            master = self._master
            fds = [self._wake_r] + ([master] if master is not None else [])
            try:
                readable, _, _ = select.select(fds, [], [], 0.002)
            except (OSError, ValueError):
                readable = []  # the pty was closed under us by unplug()
            incoming = bytearray()
            if self._wake_r in readable:
                os.read(self._wake_r, 4096)
            if master is not None:
                with self._lock:  # unplug() may have closed it (and the number been reused)
                    data = self._read_pty(master) if master == self._master else b""
                if data is None:
                    time.sleep(0.002)  # nobody has the pty open (EIO): wait for a host
                else:
                    incoming += data
            self._step(bytes(incoming))

    def _read_pty(self, master: int) -> Optional[bytes]:
        """Return the bytes the host wrote, or None when no host has the pty open; follow the
        host's opens and closes on the DTR line (called with the lock held)."""
        try:
            data = os.read(master, 4096)
        except BlockingIOError:
            data = b""
        except OSError as err:
            if err.errno not in (errno.EIO, errno.EBADF):
                log.warning("pty read failed: %s", err)
            if self._pty_open:  # the last host closed: its HUPCL says what DTR does
                self._pty_open = False
                if not self._links:
                    self._host_closed(bool(termios.tcgetattr(master)[2] & termios.HUPCL))
            return None
        if not self._pty_open:  # a host opened it (perhaps writing before we looked)
            self._pty_open = True
            self._dtr_up()
        return data

    def _step(self, incoming: bytes) -> None:
        with self._lock:
            now = self._now()
            incoming += bytes(self._pending)
            self._pending.clear()
            if self._plugged:
                self._to_rig.send(incoming, now)
            arriving = self._to_rig.receive(now)
            answer = self.firmware.receive(arriving, now) if arriving else b""
            answer += self.firmware.take_output(now)
            self._to_host.send(answer, now)
            outgoing = self._to_host.receive(now)
            if not outgoing or not self._plugged:
                return
            for link in self._links:
                link.deliver(outgoing)
            if self._master is not None and self._pty_open:  # a closed port hears nothing
                try:
                    os.write(self._master, outgoing)
                except OSError:
                    pass  # the host is not reading (buffer full) or not there: bytes are lost
