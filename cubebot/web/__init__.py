"""The web dashboard: ``cubebot serve`` -- scan, see, solve, run and stop the rig in a browser.

Needs the ``[web]`` extra (Starlette and uvicorn); the core install does not import this
package. :mod:`cubebot.web.session` holds the scan, net and solution; :mod:`cubebot.web.rig`
the rig connection and the run; :mod:`cubebot.web.app` serves them as a JSON API with
server-sent events and the packaged page under ``static/`` (plain ES modules, no build step,
nothing fetched from the internet).
"""

from cubebot.web.app import TOKEN_HEADER, Dashboard, create_app
from cubebot.web.rig import RigBusyError, RigDriver
from cubebot.web.session import ImageError, ScanSession, decode_image

__all__ = ["Dashboard", "create_app", "TOKEN_HEADER", "RigDriver", "RigBusyError",
           "ScanSession", "ImageError", "decode_image"]
