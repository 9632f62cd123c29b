"""pyserial handler for ``rigsim://NAME``: an in-process link to a running simulated rig.

``rigsim://sim3`` connects to the :class:`~cubebot.robot.simulator.SimulatedRig` registered as
``sim3`` (its ``.url``). ``rigsim://`` with no name starts a private simulated rig for this
port (options ``?size=2``, ``?rig=five-motor``, ``?time_scale=0``) that stops when the port
closes. Reads and writes raise :class:`serial.SerialException` once the rig is unplugged,
as a USB adapter's do.
"""

from __future__ import annotations

import urllib.parse
from typing import TYPE_CHECKING, Any, Optional

from serial.serialutil import PortNotOpenError, SerialBase, SerialException

from cubebot.robot.simulator import HostLink, SimulatedRig, find_simulated_rig

if TYPE_CHECKING:
    from _typeshed import ReadableBuffer

__all__ = ["Serial"]


class Serial(SerialBase):
    """A pyserial port whose other end is a simulated rig (see the module doc)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._link: Optional[HostLink] = None
        self._own_rig: Optional[SimulatedRig] = None
        self._cancelled = False
        #: Whether closing the port drops DTR (as termios' HUPCL on a serial device).
        self.hupcl = True
        super().__init__(*args, **kwargs)

    def open(self) -> None:
        """Connect to the simulated rig named by the URL.

        Raises:
            SerialException: already open, no such rig, or the rig is unplugged.
        """
        if self.is_open:
            raise SerialException("port is already open")
        if self.port is None:
            raise SerialException("port must be configured before it can be used")
        rig = self._rig_for_url(str(self.port))
        try:
            self._link = rig.attach()
        except ConnectionError as err:
            raise SerialException(f"could not open {self.port}: {err}") from err
        self.is_open = True

    def _rig_for_url(self, url: str) -> SimulatedRig:
        parts = urllib.parse.urlsplit(url)
        if parts.scheme.lower() != "rigsim":
            raise SerialException(f"expected a rigsim:// URL, got {url!r}")
        name = parts.netloc or parts.path.strip("/")
        if name:
            try:
                return find_simulated_rig(name)
            except KeyError:
                raise SerialException(
                    f"no simulated rig named {name!r} is running; start one with SimulatedRig() "
                    "and use its .url, or open rigsim:// for a private one"
                ) from None
        options = dict(urllib.parse.parse_qsl(parts.query))
        try:
            self._own_rig = SimulatedRig(size=int(options.pop("size", 3)),
                                         model=options.pop("rig", "six-motor"),
                                         time_scale=float(options.pop("time_scale", 1.0)),
                                         use_pty=False)
        except ValueError as err:
            raise SerialException(f"bad rigsim:// option: {err}") from err
        if options:
            raise SerialException(f"unknown rigsim:// option(s): {', '.join(sorted(options))}")
        return self._own_rig.start()

    def close(self) -> None:
        """Disconnect from the rig (stopping a private one)."""
        if self._link is not None and self._own_rig is None:
            self._link.hupcl = self.hupcl
            self._link._rig.detach(self._link)
        if self._own_rig is not None:
            self._own_rig.close()
            self._own_rig = None
        self._link = None
        self.is_open = False

    def _reconfigure_port(self) -> None:
        """Nothing to configure: the simulated cable takes any speed and framing."""

    def _connected_link(self) -> HostLink:
        if not self.is_open or self._link is None:
            raise PortNotOpenError()
        if not self._link.connected:
            raise SerialException("device disconnected (the simulated rig was unplugged)")
        return self._link

    @property
    def in_waiting(self) -> int:
        """Return the bytes ready to read."""
        return self._connected_link().waiting

    def read(self, size: int = 1) -> bytes:
        """Return up to ``size`` bytes, waiting up to the port's timeout for the first.

        Raises:
            SerialException: the rig was unplugged.
        """
        link = self._connected_link()
        self._cancelled = False
        data = link.read(size, self.timeout)
        if not data and not link.connected:
            raise SerialException("device disconnected (the simulated rig was unplugged)")
        return data

    def cancel_read(self) -> None:
        """Wake a blocked read."""
        if self._link is not None:
            self._cancelled = True
            self._link.wake()

    def write(self, data: "ReadableBuffer") -> int:
        """Send ``data`` to the rig and return its length.

        Raises:
            SerialException: the rig was unplugged.
        """
        link = self._connected_link()
        payload = bytes(data)
        try:
            link.write(payload)
        except ConnectionError as err:
            raise SerialException(str(err)) from err
        return len(payload)

    def reset_input_buffer(self) -> None:
        """Discard bytes not yet read."""
        link = self._connected_link()
        link.read(link.waiting, 0)

    def reset_output_buffer(self) -> None:
        """Nothing to discard: writes reach the rig at once."""

    @property
    def out_waiting(self) -> int:
        """Return 0: writes are never buffered."""
        return 0
