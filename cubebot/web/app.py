"""The dashboard's ASGI app (Starlette): JSON API, server-sent events, packaged static page.

Routes (all answers JSON; errors are ``{"error": message}`` with a 4xx status, never a
traceback page):

- ``GET /`` the page; ``GET /static/...`` its modules and style (package files);
- ``GET /api/state`` everything the page shows (scan, net, solution, rig);
- ``GET /api/events`` server-sent events: ``state`` with the same body after every change
  (only its ``rig`` part while the rig runs);
- ``POST /api/scan`` scan the faces still missing from the server's camera;
  ``POST /api/scan/face?face=U`` one face from the server's camera, or from the request's body
  (a PNG or JPEG picture: the browser's camera or an uploaded photo);
  ``POST /api/scan/corner`` a photo of a corner of the cube (three faces, the body as above):
  two of opposite corners read the whole cube;
  ``POST /api/scan/preview`` the same picture with the grid and colours drawn, not kept
  (the live view while a face is lined up); ``POST /api/scan/retake`` ``{"face": "U"}``;
  ``POST /api/scan/reset``;
- ``POST /api/net`` ``{"facelets": "..."}`` the net as edited on the page (``.``: a sticker not
  painted yet); ``POST /api/net/blank`` a net to paint; ``POST /api/net/enter``
  ``{"text": "..."}`` a facelet string or a scramble typed or pasted;
- ``POST /api/solve``; ``POST /api/rig/connect`` ``{"url": "..."}``; ``POST /api/rig/run``,
  ``/stop``, ``/estop``, ``/resume``, ``/clear`` (each as the rig's next step allows: the state's
  ``rig.next``); ``POST /api/camera/frame?faces=URF`` a frame of a rig camera (the body, as
  above), ``/api/camera/click`` ``{"x": .., "y": ..}`` its next face corner, ``/api/camera/undo``,
  ``/api/camera/save`` ``{"name": "upper"}`` (see :mod:`cubebot.web.camera_setup`);
  ``POST /api/calibrate/profile``; ``GET /api/calibrate/lab``.

Every POST must carry ``X-Cubebot-Page: 1`` (so no other web site can post through the user's
browser) and, without a token, be addressed to 127.0.0.1 or localhost. With a ``token``, every
POST must carry it in the ``X-Cubebot-Token`` header (the page reads it from its own address),
so that nobody else on the network can turn the motors or write files.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, AsyncIterator, Awaitable, Callable, Optional

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import Message, Receive, Scope, Send

from cubebot.robot import RobotError
from cubebot.vision import VisionError
from cubebot.web.camera_setup import CameraSetup
from cubebot.web.rig import RigDriver
from cubebot.web.session import (
    MAX_IMAGE_BYTES,
    ImageError,
    ScanSession,
    decode_image,
    face_drawing,
)

__all__ = ["Dashboard", "create_app", "TOKEN_HEADER", "PAGE_HEADER"]

log = logging.getLogger(__name__)

TOKEN_HEADER = "X-Cubebot-Token"
#: Sent by the page with every action. A web page from elsewhere cannot send a custom header
#: to this server without its permission (the browser asks first, and is refused), so a
#: site the user happens to visit cannot drive the rig through the user's browser.
PAGE_HEADER = "X-Cubebot-Page"
_LOCAL_NAMES = ("127.0.0.1", "localhost", "[::1]")
#: Largest JSON body accepted (a net is 54 letters; this leaves room and no more).
_MAX_JSON = 64 * 1024
#: The page may load only what this server serves; images may be data: URLs (the overlays)
#: and blob: (the browser camera's frames).
_CSP = ("default-src 'self'; img-src 'self' data: blob:; media-src 'self' blob:; "
        "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'")


@dataclass
class Dashboard:
    """What the server owns: the scan session, the rig, the default rig port, the token."""

    session: ScanSession
    rig_port: str = ""
    token: Optional[str] = None
    profile_path: Optional[Path] = None
    demo: bool = False
    #: the rig model a camera set up on the page is saved in (None: the connected rig's model,
    #: as a file of that name in the user's config directory)
    rig_model_path: Optional[Path] = None
    _listeners: set[asyncio.Queue[str]] = field(default_factory=set)
    _loop: Optional[asyncio.AbstractEventLoop] = None
    rig: RigDriver = field(init=False)
    camera: CameraSetup = field(init=False)

    def __post_init__(self) -> None:
        self.rig = RigDriver(self._rig_changed)
        self.camera = CameraSetup(self.session.size)
        self._faces = face_drawing()

    def save_camera(self, name: str) -> str:
        """Return the rig model file the camera set up on the page was saved in: the model
        at :attr:`rig_model_path` (made from the connected rig's model the first time)."""
        from cubebot.calibration.profile import config_dir

        target = self.rig_model_path or config_dir() / "rigs" / f"{self.rig.model.name}.json"
        base = str(target) if target.is_file() else self.rig.model.name
        return self.camera.save(base, name, target)

    def state(self) -> dict[str, Any]:
        """Return everything the page shows, as a JSON-ready dict."""
        return {"scan": self.session.as_dict(), "rig": self._with_next(self.rig.snapshot()),
                "camera": self.camera.as_dict(),
                "faces": self._faces, "rig_port": self.rig_port, "demo": self.demo,
                "token_required": self.token is not None}

    def solution_moves(self) -> Optional[list[str]]:
        """Return the moves of the solution the page shows (None: no solution)."""
        solution = self.session.solution
        return None if solution is None else list(solution.moves)

    def _with_next(self, snapshot: dict[str, Any]) -> dict[str, Any]:
        """Return the rig's snapshot with what may be done next with it (``next``: the
        :class:`~cubebot.robot.next_step.NextStep` for the page's solution, None without a
        rig), which the page's buttons show and the actions obey."""
        step = self.rig.next_step(self.solution_moves())
        return {**snapshot, "next": None if step is None else step.as_dict()}

    def _rig_changed(self, snapshot: dict[str, Any]) -> None:
        # a run changes only the rig: its events leave out the scan and its pictures
        self.push({"rig": self._with_next(snapshot)})

    def serve_events(self, loop: asyncio.AbstractEventLoop) -> None:
        """Push from now on through ``loop``, the server's event loop (its start-up calls this)."""
        self._loop = loop

    def listen(self) -> asyncio.Queue[str]:
        """Return a new event stream's queue, holding the whole state first (call from the
        server's loop); :meth:`forget` it when the stream closes."""
        queue: asyncio.Queue[str] = asyncio.Queue(maxsize=4)
        self._loop = asyncio.get_running_loop()
        self._listeners.add(queue)
        queue.put_nowait(json.dumps(self.state()))
        return queue

    def forget(self, queue: asyncio.Queue[str]) -> None:
        """Stop pushing to a closed event stream's queue."""
        self._listeners.discard(queue)

    def push(self, part: Optional[dict[str, Any]] = None) -> None:
        """Send the state (or ``part`` of it) to every open event stream (from any thread)."""
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        body = json.dumps(self.state() if part is None else part)
        for queue in list(self._listeners):
            loop.call_soon_threadsafe(_offer, queue, body)


def _offer(queue: asyncio.Queue[str], body: str) -> None:
    if queue.full():  # a slow page only needs the newest state
        queue.get_nowait()
    queue.put_nowait(body)


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


async def _json_body(request: Request) -> dict[str, Any]:
    body = await request.body()
    if len(body) > _MAX_JSON:
        raise HTTPException(413, f"the request body is {len(body)} bytes; at most {_MAX_JSON}")
    if not body:
        return {}
    try:
        data = json.loads(body)
    except ValueError as err:
        raise HTTPException(400, f"the body is not JSON: {err}") from err
    if not isinstance(data, dict):
        raise HTTPException(400, "the body must be a JSON object")
    return data


def create_app(dashboard: Dashboard) -> "_SecurityHeaders":
    """Return the ASGI app serving ``dashboard`` (see the module doc for its routes)."""
    static = resources.files("cubebot.web") / "static"

    def guarded(handler: Callable[[Request], Awaitable[Any]], push: bool = True
                ) -> Callable[[Request], Awaitable[Response]]:
        """Wrap a POST handler: token check, errors as JSON, state pushed after a change."""
        async def endpoint(request: Request) -> Response:
            if request.headers.get(PAGE_HEADER) != "1":
                return _error(403, f"actions must come from the dashboard page (the "
                                   f"{PAGE_HEADER} header is missing): cross-site requests "
                                   "are refused")
            host = request.headers.get("host", "").rsplit(":", 1)[0]
            if dashboard.token is None and host not in _LOCAL_NAMES:
                # a name that resolves to this machine (DNS rebinding) is not a local page
                return _error(403, f"this server only answers actions addressed to 127.0.0.1 "
                                   f"or localhost, not {host!r}")
            if dashboard.token is not None:
                given = request.headers.get(TOKEN_HEADER, "")
                if not hmac.compare_digest(given.encode(), dashboard.token.encode()):
                    return _error(403, "this server needs its token for actions: open the "
                                       "address with ?token=... that `cubebot serve` printed")
            try:
                result = await handler(request)
            except HTTPException as err:
                return _error(err.status_code, str(err.detail))
            except (ValueError, RobotError, VisionError, OSError) as err:
                # bad input (400), or a rig or camera that cannot do it now (409)
                log.info("%s refused: %s", request.url.path, err)
                busy = isinstance(err, (RobotError, VisionError)) and not isinstance(
                    err, ValueError)
                return _error(409 if busy else 400, str(err))
            if push:
                dashboard.push()
            return JSONResponse(result if result is not None else dashboard.state())
        return endpoint

    async def page(request: Request) -> Response:
        html = (static / "index.html").read_text(encoding="utf-8")
        return Response(html, media_type="text/html; charset=utf-8")

    async def state(request: Request) -> Response:
        return JSONResponse(dashboard.state())

    async def events(request: Request) -> Response:
        queue = dashboard.listen()

        async def stream() -> AsyncIterator[str]:
            try:
                while True:
                    try:
                        body = await asyncio.wait_for(queue.get(), timeout=15)
                    except asyncio.TimeoutError:
                        yield ": keep-alive\n\n"  # keeps proxies and phones from closing it
                        continue
                    yield f"event: state\ndata: {body}\n\n"
            finally:
                dashboard.forget(queue)

        return StreamingResponse(stream(), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-store"})

    async def scan_all(request: Request) -> None:
        await run_in_threadpool(dashboard.session.scan_all)

    async def read_picture(request: Request) -> Any:
        """Return the frame in the request's body (None for an empty body)."""
        declared = int(request.headers.get("content-length") or 0)
        if declared > MAX_IMAGE_BYTES:
            raise ImageError(f"the picture is {declared} bytes, more than the "
                             f"{MAX_IMAGE_BYTES} allowed: send a smaller photo")
        body = bytearray()
        async for chunk in request.stream():
            body += chunk
            if len(body) > MAX_IMAGE_BYTES:
                raise ImageError(f"the picture is more than the {MAX_IMAGE_BYTES} bytes "
                                 "allowed: send a smaller photo")
        return await run_in_threadpool(decode_image, bytes(body)) if body else None

    async def scan_face(request: Request) -> None:
        face = request.query_params.get("face") or None
        frame = await read_picture(request)
        await run_in_threadpool(dashboard.session.capture, face, frame)

    async def scan_corner(request: Request) -> dict[str, Any]:
        frame = await read_picture(request)
        if frame is None:
            raise ImageError("send a photo of a corner of the cube (three faces) as the body")
        faces = await run_in_threadpool(dashboard.session.capture_corner, frame)
        return {**dashboard.state(), "corner_faces": "".join(faces)}

    async def preview(request: Request) -> dict[str, Any]:
        frame = await read_picture(request)
        return await run_in_threadpool(dashboard.session.preview, frame)

    async def retake(request: Request) -> None:
        dashboard.session.retake(str((await _json_body(request)).get("face", "")))

    async def reset(request: Request) -> None:
        dashboard.session.reset()

    async def set_net(request: Request) -> None:
        dashboard.session.set_net((await _json_body(request)).get("facelets"))

    async def blank_net(request: Request) -> None:
        dashboard.session.blank()

    async def enter_net(request: Request) -> None:
        dashboard.session.enter((await _json_body(request)).get("text"))

    async def solve(request: Request) -> None:
        await run_in_threadpool(dashboard.session.solve, dashboard.rig.model)

    async def connect(request: Request) -> None:
        url = (await _json_body(request)).get("url") or dashboard.rig_port
        await run_in_threadpool(dashboard.rig.connect, str(url))

    async def run(request: Request) -> None:
        solution = dashboard.session.solution
        if solution is None:
            raise ValueError("solve the cube before running the rig")
        await run_in_threadpool(dashboard.rig.run, solution.moves, solution.states)

    async def stop(request: Request) -> None:
        dashboard.rig.stop()

    async def estop(request: Request) -> None:
        await run_in_threadpool(dashboard.rig.estop)

    async def resume(request: Request) -> None:
        await run_in_threadpool(dashboard.rig.resume, dashboard.solution_moves())

    async def clear(request: Request) -> None:
        cube = await run_in_threadpool(dashboard.rig.clear, dashboard.solution_moves())
        if cube is not None:  # the rig's cube after the moves it made: solve it from there
            dashboard.session.enter(cube)

    async def camera_frame(request: Request) -> None:
        frame = await read_picture(request)
        if frame is None:
            raise ImageError("send a frame of the rig's camera (PNG or JPEG) as the body")
        faces = request.query_params.get("faces", "URF")
        await run_in_threadpool(dashboard.camera.take_frame, frame, faces)

    async def camera_click(request: Request) -> None:
        body = await _json_body(request)
        dashboard.camera.click(body.get("x"), body.get("y"))

    async def camera_undo(request: Request) -> None:
        dashboard.camera.undo()

    async def camera_save(request: Request) -> dict[str, Any]:
        name = str((await _json_body(request)).get("name") or "")
        path = await run_in_threadpool(dashboard.save_camera, name)
        return {**dashboard.state(), "saved": path}

    async def save_profile(request: Request) -> dict[str, Any]:
        path = await run_in_threadpool(dashboard.session.save_profile, dashboard.profile_path)
        return {"saved": str(path)}

    async def lab(request: Request) -> Response:
        return JSONResponse({"points": dashboard.session.lab_points()})

    async def not_found(request: Request, exc: Exception) -> Response:
        status = getattr(exc, "status_code", 500)
        detail = getattr(exc, "detail", "")
        return _error(status, f"{request.method} {request.url.path}: {detail or 'not found'}")

    async def server_error(request: Request, exc: Exception) -> Response:
        log.exception("internal error on %s", request.url.path)
        return _error(500, f"internal error: {type(exc).__name__}: {exc}")

    actions = {
        "/api/scan": scan_all, "/api/scan/face": scan_face, "/api/scan/retake": retake,
        "/api/scan/reset": reset, "/api/scan/corner": scan_corner, "/api/net": set_net,
        "/api/net/blank": blank_net, "/api/net/enter": enter_net, "/api/rig/clear": clear,
        "/api/solve": solve,
        "/api/rig/connect": connect, "/api/rig/run": run, "/api/rig/stop": stop,
        "/api/rig/estop": estop, "/api/rig/resume": resume,
        "/api/calibrate/profile": save_profile,
        "/api/camera/frame": camera_frame, "/api/camera/click": camera_click,
        "/api/camera/undo": camera_undo, "/api/camera/save": camera_save,
    }
    routes: list[BaseRoute] = [Route("/", page), Route("/api/state", state),
                               Route("/api/events", events), Route("/api/calibrate/lab", lab)]
    routes += [Route(path, guarded(handler), methods=["POST"]) for path, handler in actions.items()]
    routes.append(Route("/api/scan/preview", guarded(preview, push=False), methods=["POST"]))
    routes.append(Mount("/static", StaticFiles(directory=str(static)), name="static"))

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        dashboard.serve_events(asyncio.get_running_loop())
        yield
        dashboard.rig.close()

    inner = Starlette(routes=routes, lifespan=lifespan,
                      exception_handlers={HTTPException: not_found, Exception: server_error})
    return _SecurityHeaders(inner)


class _SecurityHeaders:
    """ASGI wrapper adding the content-security and no-sniff headers to every answer.

    A plain ASGI wrapper rather than ``BaseHTTPMiddleware``, which would sit between the event
    stream and the page.
    """

    _HEADERS = [(b"content-security-policy", _CSP.encode()),
                (b"x-content-type-options", b"nosniff"),
                (b"referrer-policy", b"no-referrer")]

    def __init__(self, app: Starlette) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = list(message.get("headers", [])) + self._HEADERS
            await send(message)

        await self.app(scope, receive, with_headers)
