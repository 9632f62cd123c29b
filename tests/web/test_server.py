"""The dashboard's server without a browser: token, JSON errors, upload checks, missing extra."""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys
from pathlib import Path

from conftest import REPO, Server, need_web_extra, start_server, stop_server


def test_open_host_refuses_actions_without_the_token() -> None:
    server = start_server("--demo", "--host", "0.0.0.0")
    try:
        assert server.token, "an address open to the network must print a token"
        local = Server(f"http://127.0.0.1:{server.base.rsplit(':', 1)[1]}", server.process,
                       server.token)
        status, _, page = local.get("/")
        assert status == 200 and b"data-test=\"estop\"" in page
        for path in ("/api/rig/connect", "/api/rig/estop", "/api/scan", "/api/solve"):
            status, answer = local.post(path)
            assert status == 403, path
            assert "token" in answer["error"]
        status, answer = local.post("/api/rig/connect", token="not-the-token")
        assert status == 403
        status, answer = local.post("/api/rig/connect", token=server.token)
        assert status == 200, answer
        assert answer["rig"]["state"] == "idle"
    finally:
        stop_server(server)


def test_actions_from_other_sites_are_refused(demo_server: Server) -> None:
    # a form or fetch from another web site cannot add the page's header
    status, answer = demo_server.post("/api/rig/connect", data=b"url=rigsim://x",
                                      content_type="text/plain",
                                      headers={"X-Cubebot-Page": ""})
    assert status == 403 and "cross-site" in answer["error"]
    # a name that resolves here (DNS rebinding) is not this machine's own page
    status, answer = demo_server.post("/api/rig/connect", headers={"Host": "evil.example:80"})
    assert status == 403 and "evil.example" in answer["error"]
    status, answer = demo_server.post("/api/rig/connect")
    assert status == 200 and answer["rig"]["state"] == "idle"


def test_bad_requests_get_clear_json_errors(demo_server: Server) -> None:
    status, answer = demo_server.post("/api/net", data=b"{not json")
    assert status == 400 and "not JSON" in answer["error"]
    status, answer = demo_server.post("/api/net", {"facelets": "UUU"})
    assert status == 400 and "54 letters" in answer["error"]
    status, answer = demo_server.post("/api/rig/run")
    assert status == 400 and "solve" in answer["error"]
    status, answer = demo_server.post("/api/rig/stop")
    assert status == 400 and "not moving" in answer["error"]
    status, answer = demo_server.post("/api/rig/connect", {"url": "/dev/no-such-rig"})
    assert status == 409 and "no-such-rig" in answer["error"]
    status, answer = demo_server.post("/api/scan/retake", {"face": "Q"})
    assert status == 400 and "U R F D L B" in answer["error"]
    status, _, body = demo_server.get("/api/nothing-here")
    assert status == 404 and b"error" in body and b"Traceback" not in body
    # the state was not changed by any of that
    status, _, body = demo_server.get("/api/state")
    assert status == 200 and json.loads(body)["scan"]["facelets"] is None


def test_uploads_are_checked_and_size_limited(demo_server: Server) -> None:
    status, answer = demo_server.post("/api/scan/face?face=U", data=b"GIF89a....",
                                      content_type="image/gif")
    assert status == 400 and "not a PNG or JPEG" in answer["error"]
    status, answer = demo_server.post("/api/scan/face?face=U",
                                      data=b"\x89PNG\r\n\x1a\n" + b"\0" * 100,
                                      content_type="image/png")
    assert status == 400 and "could not be decoded" in answer["error"]
    # a picture too large is refused from its declared length, before its bytes are read
    host, port = demo_server.base.split("//")[1].strip("/").split(":")
    with socket.create_connection((host, int(port)), timeout=30) as conn:
        conn.sendall(b"POST /api/scan/face?face=U HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                     b"X-Cubebot-Page: 1\r\nContent-Type: image/jpeg\r\n"
                     b"Content-Length: 13631488\r\n\r\n\xff\xd8\xff")
        reply = b""
        while b"\r\n\r\n" not in reply or len(reply.split(b"\r\n\r\n", 1)[1]) < int(
                reply.lower().split(b"content-length:", 1)[1].split(b"\r\n", 1)[0]):
            chunk = conn.recv(65536)
            assert chunk, f"the server closed the connection after {reply!r}"
            reply += chunk
    head, body = reply.decode().split("\r\n\r\n", 1)
    assert head.startswith("HTTP/1.1 400")
    assert "more than" in json.loads(body)["error"]
    status, _, body = demo_server.get("/api/state")
    assert json.loads(body)["scan"]["scanned_faces"] == []


def test_page_forbids_loading_anything_from_elsewhere(demo_server: Server) -> None:
    status, headers, page = demo_server.get("/")
    assert status == 200
    csp = {k.lower(): v for k, v in headers.items()}["content-security-policy"]
    assert "default-src 'self'" in csp and "connect-src 'self'" in csp
    for asset in ("/static/app.js", "/static/cube3d.js", "/static/labplot.js",
                  "/static/style.css"):
        status, _, body = demo_server.get(asset)
        assert status == 200 and b"http://" not in body and b"https://" not in body, asset


def test_serve_without_the_web_extra_says_what_to_install() -> None:
    code = ("import sys; sys.modules['starlette'] = None; sys.modules['uvicorn'] = None; "
            "from cubebot.cli import main; sys.exit(main(['serve', '--demo']))")
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "pip install 'cubebot[web]'" in lines[0], done.stderr


def test_a_scan_that_is_not_a_cube_says_what_to_retake(demo_server: Server) -> None:
    import cv2

    from cubebot.solver import Cube
    from cubebot.vision import SyntheticCamera

    frame = SyntheticCamera(Cube.random(3, 5), seed=5).read_face("F")
    ok, jpeg = cv2.imencode(".jpg", frame)
    assert ok
    for face in "URFDLB":  # the same picture six times: no real cube looks like that
        status, answer = demo_server.post(f"/api/scan/face?face={face}", data=jpeg.tobytes(),
                                          content_type="image/jpeg")
        assert status == 200, answer
    scan = answer["scan"]
    assert scan["facelets"] is None and scan["next_face"] is None
    assert scan["scan_error"].startswith("re-shoot face(s)")
    assert len(scan["overlays"]) == 6
    # retaking a face named in the error asks for it again
    named = scan["scan_error"].split("re-shoot face(s) ", 1)[1][0]
    status, answer = demo_server.post("/api/scan/retake", {"face": named})
    assert status == 200 and answer["scan"]["next_face"] == named
    assert answer["scan"]["scan_error"] == ""


def test_serve_with_a_missing_camera_folder_says_so_in_one_line(tmp_path: Path) -> None:
    need_web_extra()
    done = subprocess.run([sys.executable, "-m", "cubebot", "serve", "--port", "0", "--images",
                           str(tmp_path / "nowhere")], cwd=REPO, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 2 and done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "nowhere" in lines[0] and "does not exist" in lines[0]


def test_images_folder_scan_keeps_good_faces_when_one_photo_is_damaged(tmp_path: Path) -> None:
    import cv2

    from cubebot.solver import Cube
    from cubebot.vision import SyntheticCamera

    need_web_extra()
    camera = SyntheticCamera(Cube.random(3, 8), seed=8)
    for face in "URFDLB":
        cv2.imwrite(str(tmp_path / f"{face}.jpg"), camera.read_face(face))
    (tmp_path / "R.jpg").write_bytes(b"\xff\xd8\xff not really a photo")
    server = start_server("--images", str(tmp_path))
    try:
        status, answer = server.post("/api/scan")
        assert status == 409 and "R.jpg" in answer["error"], answer
        status, _, body = server.get("/api/state")
        scan = json.loads(body)["scan"]
        assert scan["scanned_faces"] == ["U"] and scan["next_face"] == "R"
        cv2.imwrite(str(tmp_path / "R.jpg"), camera.read_face("R"))  # the photo taken again
        status, answer = server.post("/api/scan")
        assert status == 200, answer
        assert answer["scan"]["facelets"] == Cube.random(3, 8).facelets
        _overlays_show_letters_and_confidences(answer["scan"]["overlays"], tmp_path)
    finally:
        stop_server(server)


def _overlays_show_letters_and_confidences(overlays: dict[str, str], folder: Path) -> None:
    """The page's pictures of a read cube are the saved overlays': letters in the colours
    seen, each sticker's confidence, a legend."""
    import base64

    import cv2
    import numpy as np

    from cubebot.vision import FolderCamera, face_overlays, scan_cube

    result, scan = scan_cube(FolderCamera(folder), 3, profile=False)
    full = face_overlays(scan, facelets=result.facelets, confidence=result.confidence)
    bare = face_overlays(scan, facelets=result.facelets)
    assert sorted(overlays) == sorted(full)
    for face, url in overlays.items():
        assert url.startswith("data:image/jpeg;base64,")
        jpeg = np.frombuffer(base64.b64decode(url.split(",", 1)[1]), np.uint8)
        shown = cv2.imdecode(jpeg, cv2.IMREAD_COLOR).astype(float)
        height, width = shown.shape[:2]
        want, without = (cv2.resize(p[face], (width, height), interpolation=cv2.INTER_AREA)
                         .astype(float) for p in (full, bare))
        # where the confidences are written, the page's picture shows them (up to the
        # shrinking and JPEG's loss), not the sticker without them
        written = np.abs(want - without).max(axis=2) > 60
        assert written.sum() > 100, face
        near, far = (np.abs(shown - p)[written].mean() for p in (want, without))
        assert near < 0.5 * far, (face, near, far)


def test_the_page_takes_its_faces_colours_and_net_from_the_state(demo_server: Server) -> None:
    from cubebot.calibration import load_scheme
    from cubebot.render import NET_CELLS

    status, _, body = demo_server.get("/api/state")
    faces = json.loads(body)["faces"]
    assert status == 200 and faces["order"] == "URFDLB"
    scheme = load_scheme()
    assert faces["colours"] == {f: "#{:02x}{:02x}{:02x}".format(*rgb)
                                for f, rgb in zip("URFDLB", scheme.rgb)}
    assert faces["names"] == dict(zip("URFDLB", scheme.colours))
    assert faces["net"] == {f: list(cell) for f, cell in NET_CELLS.items()}
    # ... so the page's modules hold no copy of them
    static = REPO / "cubebot" / "web" / "static"
    for script in static.glob("*.js"):
        text = script.read_text()
        assert "URFDLB" not in text and not re.search(r"#[0-9a-fA-F]{6}", text), script.name


def _corner_photo(cube: object, corner: str, seed: int) -> bytes:
    import cv2

    from cubebot.vision import Conditions
    from cubebot.vision.scene import CornerCamera, Pose

    frame = CornerCamera(cube, Pose.hand(corner), seed=seed,  # type: ignore[arg-type]
                         conditions=Conditions.moderate()).read()
    ok, data = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, 92])
    assert ok
    return bytes(data)


def test_two_corner_photos_read_the_cube_and_bad_ones_say_why(demo_server: Server) -> None:
    from cubebot.solver import Cube

    cube = Cube.random(3, 11)
    status, answer = demo_server.post("/api/scan/corner", data=_corner_photo(cube, "URF", 6),
                                      content_type="image/jpeg")
    assert status == 200 and sorted(answer["corner_faces"]) == sorted("URF")
    assert answer["scan"]["facelets"] is None  # three faces so far
    # the same corner again: the page is told to take the opposite one
    status, answer = demo_server.post("/api/scan/corner", data=_corner_photo(cube, "URF", 7),
                                      content_type="image/jpeg")
    assert status == 200 and "opposite corner" in answer["scan"]["scan_error"]
    # a third photo replaces the older: the opposite corner completes the cube
    status, answer = demo_server.post("/api/scan/corner", data=_corner_photo(cube, "DLB", 5),
                                      content_type="image/jpeg")
    assert status == 200 and sorted(answer["corner_faces"]) == sorted("DLB")
    assert answer["scan"]["facelets"] == cube.facelets
    assert len(answer["scan"]["corner_photos"]) == 2
    # a picture with no cube in it says what to change, and the scan is kept
    blank = _blank_jpeg()
    status, answer = demo_server.post("/api/scan/corner", data=blank, content_type="image/jpeg")
    assert status == 400 and answer["error"]
    status, _, body = demo_server.get("/api/state")
    assert json.loads(body)["scan"]["facelets"] == cube.facelets
    demo_server.post("/api/scan/reset")


def _blank_jpeg() -> bytes:
    import cv2
    import numpy as np

    ok, data = cv2.imencode(".jpg", np.full((480, 640, 3), 90, np.uint8))
    assert ok
    return bytes(data)
