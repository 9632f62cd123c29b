"""``cubebot serve``: the web dashboard (scan, net, solve, 3D cube, rig with stop buttons)."""

from __future__ import annotations

import argparse
import errno
import ipaddress
import secrets
import signal
import socket
import sys
from contextlib import ExitStack
from pathlib import Path
from types import FrameType
from typing import Any, Optional

from cubebot.commands import CommandError, MissingExtraError, UsageError, summary

__all__ = ["register"]


def _import_web() -> Any:
    """Return the ``cubebot.web`` package; raises :class:`MissingExtraError` without the extra."""
    try:
        import uvicorn  # noqa: F401
        import starlette  # noqa: F401
    except ImportError as err:
        raise MissingExtraError(f"cubebot serve needs the web extra ({err.name} is missing): "
                                "pip install 'cubebot[web]'") from err
    import cubebot.web
    return cubebot.web


def _is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


def _page_host(host: str) -> str:
    """Return the host name to print in the page's address (this machine's, for 0.0.0.0)."""
    if host in ("0.0.0.0", "::"):
        try:
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
                probe.connect(("192.0.2.1", 9))  # no packet is sent: this only picks a route
                return str(probe.getsockname()[0])
        except OSError:
            return socket.gethostname()
    return f"[{host}]" if ":" in host else host


class PortInUseError(CommandError):
    """The web port is taken by another program (the message names a free one)."""


#: How many ports above a busy one are tried for a free one to suggest.
_PORTS_TRIED = 20


def _bind(host: str, port: int) -> socket.socket:
    """Return a socket bound to ``host:port``; raises OSError when it cannot be bound."""
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
    except OSError:
        sock.close()
        raise
    return sock


def _free_port(host: str, busy: int) -> int:
    """Return a port near ``busy`` that can be bound on ``host`` now (any free one, at worst)."""
    for port in range(busy + 1, min(busy + 1 + _PORTS_TRIED, 65536)):
        try:
            _bind(host, port).close()
            return port
        except OSError:
            continue
    with _bind(host, 0) as probe:
        return int(probe.getsockname()[1])


def _listen(host: str, port: int) -> socket.socket:
    """Return a socket listening on ``host:port`` for the dashboard.

    Raises:
        PortInUseError: another program listens on the port (naming a free one).
        UsageError: the address is not this machine's, or the port is not allowed.
    """
    try:
        sock = _bind(host, port)
    except OSError as err:
        if err.errno == errno.EADDRINUSE:
            raise PortInUseError(f"web port {port} on {host} is in use by another program "
                                 f"(another cubebot serve?): use --web-port "
                                 f"{_free_port(host, port)}, which is free, or --web-port 0 to "
                                 "pick one") from err
        if err.errno == errno.EACCES:
            raise UsageError(f"web port {port} needs more rights than this user has: use a port "
                             "above 1023, e.g. --web-port 8000") from err
        raise UsageError(f"cannot listen on {host}:{port} ({err.strerror}): give --host an "
                         "address of this machine, e.g. 127.0.0.1 or 0.0.0.0") from err
    sock.listen(128)  # connections made as soon as the address is printed wait, not fail
    return sock


def _ports(args: argparse.Namespace) -> tuple[int, str]:
    """Return the web port and the rig's serial port that ``args`` give.

    ``--port`` is the serial port, as in every other command; a bare number there is the web
    port of older releases (no serial port is a bare number), and ``--rig-port`` the serial
    port's older spelling.

    Raises:
        UsageError: two serial ports, or two web ports, were given.
    """
    web_port, serial_port = args.web_port, args.rig_port
    if args.port is not None and args.port.isdigit():
        if web_port is not None:
            raise UsageError(f"--port {args.port} and --web-port {web_port}: give the web port "
                             "once, as --web-port")
        web_port = int(args.port)
    elif args.port is not None:
        if serial_port is not None and serial_port != args.port:
            raise UsageError(f"--port {args.port} and --rig-port {serial_port}: give the rig's "
                             "serial port once, as --port")
        serial_port = args.port
    return (8000 if web_port is None else web_port), serial_port or ""


def _stop(signum: int, frame: Optional[FrameType]) -> None:
    raise KeyboardInterrupt


def _serve(args: argparse.Namespace) -> int:
    web = _import_web()
    import uvicorn

    from cubebot.run import Demo
    from cubebot.vision import DeviceCamera, FolderCamera

    token = None if _is_loopback(args.host) else secrets.token_urlsafe(16)
    web_port, rig_port = _ports(args)
    with ExitStack() as stack:
        # the port first: a busy one is told before a demo rig or a camera is started
        sock = stack.enter_context(_listen(args.host, web_port))
        camera: Any = None
        notes: list[str] = []  # printed after the address, which must come first
        if args.demo:
            # the embedded default, as `cubebot demo` sets it up: the simulated rig behind a
            # real pseudo-terminal (its rigsim:// URL reaches the same rig in-process) and the
            # synthetic camera looking at the rig's cube
            demo = stack.enter_context(Demo(args.size, args.seed, time_scale=args.time_scale))
            camera = demo.camera
            rig_port = rig_port or demo.port
            notes.append(f"simulated rig on {demo.port} (also {demo.rig.url})")
        if args.images:
            camera = FolderCamera(args.images)
        elif args.camera:
            camera = DeviceCamera(int(args.camera) if args.camera.isdigit() else args.camera)
        if camera is not None:
            stack.callback(camera.close)
        session = web.ScanSession(size=args.size, camera=camera,
                                  profile=False if args.demo else None)
        dashboard = web.Dashboard(session, rig_port=rig_port, token=token,
                                  profile_path=Path(args.profile) if args.profile else None,
                                  demo=args.demo)
        if args.demo:
            dashboard.rig.connect(rig_port)  # the demo's rig is there: the page starts connected
        app = web.create_app(dashboard)
        port = sock.getsockname()[1]
        query = f"?token={token}" if token else ""
        print(f"http://{_page_host(args.host)}:{port}/{query}", flush=True)
        for note in notes:
            print(note, file=sys.stderr, flush=True)
        if token:
            print(f"listening on {args.host}: every action needs the token {token} (it is in "
                  "the address above; do not share it)", file=sys.stderr, flush=True)
        config = uvicorn.Config(app, log_level="warning", access_log=False,
                                timeout_graceful_shutdown=1)
        server = uvicorn.Server(config)
        signal.signal(signal.SIGTERM, _stop)
        try:
            server.run(sockets=[sock])
        finally:
            dashboard.rig.close()
    return 0


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser],
             calibrate: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``serve`` to the command line."""
    p = commands.add_parser(
        "serve", help=summary("serve"),
        description="Serve the dashboard: scan with the server's or the phone's camera, edit "
                    "the net, solve, watch the 3D cube, run the rig with stop and emergency "
                    "stop. Needs the web extra: pip install 'cubebot[web]'.")
    p.add_argument("--demo", action="store_true",
                   help="synthetic camera and simulated rig (no hardware needed)")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1; 0.0.0.0 prints a token "
                        "every action needs)")
    p.add_argument("--web-port", type=int, metavar="N",
                   help="the dashboard's TCP port (default 8000; 0 picks a free one)")
    p.add_argument("--port", metavar="URL",
                   help="the rig's serial port URL to offer on the page (/dev/ttyACM0, "
                        "socket://..., rigsim://...); deprecated: a bare number here is read as "
                        "the web port, as before")
    source = p.add_mutually_exclusive_group()
    source.add_argument("--camera", metavar="SRC", help="server camera index (0) or stream URL")
    source.add_argument("--images", metavar="DIR", help="folder of six photos U R F D L B")
    p.add_argument("--rig-port", metavar="URL",
                   help="deprecated spelling of --port (the rig's serial port)")
    p.add_argument("--size", type=int, choices=(2, 3), default=3, help="cube size (default 3)")
    p.add_argument("--profile", help="where 'save colour profile' writes (default: the "
                                     "user's profile)")
    p.add_argument("--seed", type=int, default=0, help="--demo: the virtual cube's scramble")
    p.add_argument("--time-scale", type=float, default=1.0,
                   help="--demo: multiply the simulated rig's motor times (default 1)")
    p.set_defaults(func=_serve)
