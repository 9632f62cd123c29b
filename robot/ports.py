"""One host at a time on a rig's port, a board that does not reset on every open, and a way in
for ``cubebot stop`` from another terminal.

**Ownership.** :func:`claim` takes the port for one :class:`~cubebot.robot.host.Rig`: an
exclusive lock on a file named after the port in the user's runtime folder (``flock``, so it
goes with the process), holding who has it (program, pid, since when). A second claim, from
another process or the same one, raises :class:`PortBusyError` naming the holder. Two programs
reading one serial port would steal each other's bytes, and two hosts numbering frames on one
rig would have their frames answered with each other's acknowledgements.

**The way in.** The holder listens on a Unix socket beside the lock; :func:`ask_holder` sends it
one request (``status``, ``stop``, ``estop``, ``clear``) and returns its JSON answer, so
``cubebot stop`` stops a stream running in another terminal through the process that owns the
conversation, without opening the port (and without resetting the board).

**DTR.** A stock Arduino resets when DTR rises, which happens at every open after a close that
dropped it (termios' HUPCL, set by default on USB serial devices). :func:`keep_dtr` clears
HUPCL right after an open, so the next close keeps DTR up and the next open (``--resume`` from a
new process, ``rig-info``) finds the rig as it was. The first open after the board was plugged
in still resets it: only the hardware can prevent that (the firmware README says how).
:func:`send_estop_now` writes the emergency-stop byte the moment the port is open, before any
handshake.

Where the OS has no ``flock`` or Unix sockets (Windows), claims rely on the OS, which opens a
COM port for one program only, and there is no way in: stop the stream in its own terminal.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import logging
import os
import socket
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Callable, Optional

import serial

from cubebot.robot.errors import PortBusyError, RigConnectionError
from cubebot.robot.protocol import ESTOP

__all__ = ["PortClaim", "claim", "ask_holder", "keep_dtr", "open_port", "open_error",
           "send_estop_now", "port_identity", "Handler"]

log = logging.getLogger(__name__)

#: Answers a request from another program (``status``, ``stop``, ``estop``, ``clear``).
Handler = Callable[[str], dict[str, Any]]

_POSIX = os.name == "posix" and hasattr(socket, "AF_UNIX")
if _POSIX:
    import fcntl
    import termios


def port_identity(url: str) -> str:
    """Return the name one port has for every program on this machine.

    A device path is followed to the device (``/dev/serial/by-id/...`` and ``/dev/ttyACM0`` are
    one port); ``rigsim://`` rigs live inside one process, so their name includes its pid.
    """
    if url.startswith("rigsim://"):
        return f"rigsim:{os.getpid()}:{url[len('rigsim://'):]}"
    if "://" in url:
        return url
    return os.path.realpath(url) if _POSIX else url.upper()


def _run_folder() -> Path:
    base = os.environ.get("XDG_RUNTIME_DIR")
    folder = (Path(base) / "cubebot" if base and os.path.isdir(base)
              else Path(tempfile.gettempdir()) / f"cubebot-{os.getuid()}")
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    return folder


def _paths(url: str) -> tuple[Path, Path]:
    key = hashlib.sha256(port_identity(url).encode()).hexdigest()[:16]
    folder = _run_folder()
    return folder / f"port-{key}.lock", folder / f"port-{key}.sock"


def _program() -> str:
    """Return a short name of this program for messages (``cubebot stream``, ``pytest``)."""
    argv = sys.argv or ["python"]
    if Path(argv[0]).name in ("__main__.py", "cubebot") and len(argv) > 1:
        return f"cubebot {argv[1]}"
    return Path(argv[0]).name or "python"


class PortClaim:
    """This program's hold on a port (see the module doc); :meth:`release` lets it go.

    ``handler`` answers requests from other programs (None: none are taken).
    """

    def __init__(self, url: str, handler: Optional[Handler]) -> None:
        self.url = url
        self._handler = handler
        self._lock_file: Optional[int] = None
        self._server: Optional[socket.socket] = None
        self._thread: Optional[threading.Thread] = None
        self._socket_path: Optional[Path] = None
        self._answering: list[threading.Thread] = []
        if _POSIX:
            self._take()

    def _take(self) -> None:
        lock_path, socket_path = _paths(self.url)
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as err:
            os.close(fd)
            if err.errno in (errno.EWOULDBLOCK, errno.EACCES):
                raise PortBusyError(_busy_message(self.url, _holder(lock_path))) from None
            raise
        self._lock_file = fd
        os.ftruncate(fd, 0)
        os.write(fd, json.dumps({"pid": os.getpid(), "program": _program(), "url": self.url,
                                 "since": time.strftime("%H:%M:%S")}).encode())
        if self._handler is not None:
            self._listen(socket_path)

    def _listen(self, path: Path) -> None:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()  # left by a holder that died: the lock is ours now
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        server.bind(str(path))
        server.listen(4)
        server.settimeout(0.2)
        self._server, self._socket_path = server, path
        self._thread = threading.Thread(target=self._serve, name=f"port-{self.url}",
                                        daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        server = self._server
        while server is not None and self._server is server:
            try:
                connection, _ = server.accept()
            except socket.timeout:
                continue
            except OSError:
                return  # released
            answering = threading.Thread(target=self._answer, args=(connection,), daemon=True)
            self._answering = [t for t in self._answering if t.is_alive()] + [answering]
            answering.start()

    def _answer(self, connection: socket.socket) -> None:
        with connection:
            connection.settimeout(5.0)
            try:
                request = connection.makefile("r").readline().strip()
            except OSError:
                return
            assert self._handler is not None
            try:
                answer = self._handler(request)
            except Exception as err:  # the asker must hear what went wrong, whatever it was
                log.warning("request %r from another program failed: %s", request, err)
                answer = {"error": str(err)}
            with contextlib.suppress(OSError):
                connection.sendall(json.dumps(answer).encode() + b"\n")

    def release(self, wait: float = 15.0) -> None:
        """Let the port go (another program may claim it), once requests being answered are
        answered (at most ``wait`` seconds: ``cubebot stop`` waits for its answer)."""
        server, self._server = self._server, None
        if server is not None:  # no new requests: an asker not yet taken finds no holder
            server.close()
            if self._socket_path is not None:
                with contextlib.suppress(FileNotFoundError):
                    self._socket_path.unlink()
            if self._thread is not None and self._thread is not threading.current_thread():
                self._thread.join(1.0)
        for answering in self._answering:
            if answering is not threading.current_thread():
                answering.join(wait)
        if self._lock_file is not None:
            os.close(self._lock_file)  # closing drops the flock
            self._lock_file = None


def claim(url: str, handler: Optional[Handler] = None) -> PortClaim:
    """Return this program's claim on the port at ``url`` (see :class:`PortClaim`).

    Raises:
        PortBusyError: another program, or another rig in this one, holds the port.
    """
    return PortClaim(url, handler)


def _holder(lock_path: Path) -> dict[str, Any]:
    try:
        found = json.loads(lock_path.read_text() or "{}")
    except (OSError, ValueError):
        return {}
    return found if isinstance(found, dict) else {}


def _busy_message(url: str, holder: dict[str, Any]) -> str:
    who = (f"{holder.get('program', 'another program')} (pid {holder.get('pid', '?')}, "
           f"since {holder.get('since', '?')})" if holder else "another program")
    return (f"port {url} is busy: {who} has it open. One program talks to a rig at a time; "
            f"`cubebot stop --port {url}` stops what it is doing")


def ask_holder(url: str, request: str, timeout: float = 30.0) -> Optional[dict[str, Any]]:
    """Return the answer of the program holding ``url`` to ``request``, or None when no
    program holds it (or it takes no requests, or let go of the port before answering).

    Raises:
        RigConnectionError: the holder did not answer within ``timeout`` seconds.
    """
    if not _POSIX:
        return None
    lock_path, socket_path = _paths(url)
    if not _held(lock_path) or not socket_path.exists():
        return None
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
        connection.settimeout(timeout)
        try:
            connection.connect(str(socket_path))
            connection.sendall(request.encode() + b"\n")
            line = connection.makefile("r").readline()
        except (FileNotFoundError, ConnectionError):
            return None  # it let go of the port meanwhile (refused, reset or a broken pipe)
        except OSError as err:
            raise RigConnectionError(
                f"the program holding {url} ({_busy_message(url, _holder(lock_path))}) did not "
                f"answer {request!r}: {err}") from err
    try:
        answer = json.loads(line)
    except ValueError:
        return None
    return answer if isinstance(answer, dict) else None


def _held(lock_path: Path) -> bool:
    """Return whether some program holds the lock at ``lock_path`` now."""
    try:
        fd = os.open(lock_path, os.O_RDWR)
    except FileNotFoundError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(fd)  # also drops the lock if we got it
    return False


def open_error(url: str, err: BaseException) -> RigConnectionError:
    """Return the connection error for a port that would not open, saying how to fix it."""
    code = getattr(err, "errno", None)
    if code == errno.EACCES:
        return RigConnectionError(
            f"permission denied opening {url}: add your user to the group that owns the device "
            f"(see `ls -l {url}`; usually dialout: `sudo usermod -aG dialout $USER`), then log "
            "out and back in")
    if code == errno.ENOENT:
        return RigConnectionError(f"no such port {url}: is the rig plugged in? "
                                  "`python -m serial.tools.list_ports` lists the ports")
    if code in (errno.EBUSY, errno.EAGAIN) or "exclusively lock" in str(err):
        return PortBusyError(f"port {url} is busy: another program has it open (a serial "
                             "monitor, another cubebot); close it and try again")
    return RigConnectionError(f"could not open {url}: {err}")


def open_port(url: str, baudrate: int, timeout: float) -> serial.Serial:
    """Return the port at ``url`` opened for a rig: exclusively where the OS allows it, DTR
    kept up on close (:func:`keep_dtr`).

    Raises:
        RigConnectionError: it cannot be opened (the message says how to fix it).
        PortBusyError: another program has it open.
    """
    options: dict[str, Any] = {"baudrate": baudrate, "timeout": timeout, "write_timeout": 2.0}
    if "://" not in url and _POSIX:
        options["exclusive"] = True  # other pyserial programs are refused (flock)
    try:
        port = serial.serial_for_url(url, **options)
    except serial.SerialException as err:
        raise open_error(url, err) from err
    except ValueError as err:
        raise RigConnectionError(f"cannot open {url!r}: {err}") from err
    keep_dtr(port)
    return port


def keep_dtr(port: serial.SerialBase) -> bool:
    """Return True after making ``port``'s next close keep DTR up (HUPCL cleared), False
    where the port has no such line (a socket, a loop)."""
    if hasattr(port, "hupcl"):  # a rigsim:// port models the line itself
        port.hupcl = False
        return True
    fileno = getattr(port, "fileno", None)
    if not _POSIX or fileno is None:
        return False
    try:
        fd = fileno()
        attributes = termios.tcgetattr(fd)
        attributes[2] &= ~termios.HUPCL
        termios.tcsetattr(fd, termios.TCSANOW, attributes)
    except (termios.error, OSError, ValueError, serial.SerialException):
        return False
    return True


def send_estop_now(url: str, baudrate: int) -> None:
    """Write the emergency-stop byte (three times) the moment the port at ``url`` is open,
    without claiming it or greeting the rig; DTR is kept up on close.

    The byte is outside every frame, so it may land in the middle of another program's frame
    (the rig honours it there too). On a board whose open resets it, the reset stops it first.

    Raises:
        RigConnectionError: the port cannot be opened.
    """
    try:
        port = serial.serial_for_url(url, baudrate=baudrate, timeout=0.1, write_timeout=1.0)
    except serial.SerialException as err:
        raise open_error(url, err) from err
    except ValueError as err:
        raise RigConnectionError(f"cannot open {url!r}: {err}") from err
    try:
        keep_dtr(port)
        port.write(bytes([ESTOP]) * 3)
        port.flush()
    except (serial.SerialException, OSError) as err:
        raise RigConnectionError(f"could not write the emergency stop to {url}: {err}") from err
    finally:
        port.close()
    log.warning("emergency stop written to %s", url)
