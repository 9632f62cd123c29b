"""The handshake: what a rig says of itself when its port opens, and the model that plans for it.

On every open and reconnect the host asks ``HELLO`` (protocol version, boot id, counters), then
``RIG`` and ``LIMITS`` (faces or kind, queue depth, limits), and keeps the answers as a
:class:`~cubebot.robot.link.RigInfo`. A boot banner heard meanwhile means opening the port
reset the board; a boot id other than the last connection's means the rig rebooted while the
host was away, and its position is unknown. :func:`choose_model` then settles the model the
host plans with: the one asked for, if it matches the rig and asks no more than the rig's
limits allow, else the built-in one that fits the rig.
"""

from __future__ import annotations

import logging
import time
from typing import Optional, Union

from cubebot.robot.errors import EmergencyStopError, ProtocolError, RigModelError, RigResetError
from cubebot.robot.limits import check_model, model_for_rig
from cubebot.robot.link import Link, RigInfo
from cubebot.robot.model import RigModel
from cubebot.robot.protocol import PROTOCOL_VERSION, Frame

__all__ = ["HANDSHAKE_WAIT", "handshake", "choose_model"]

log = logging.getLogger(__name__)

#: Seconds the handshake keeps asking (backing off) before the rig counts as silent.
HANDSHAKE_WAIT = 10.0


def handshake(link: Link, url: str, wait: float, known: Optional[RigInfo]) -> RigInfo:
    """Return what the rig at ``url`` says of itself, each reply asked for up to ``wait``
    seconds; ``known`` is the last connection's handshake (None on the first).

    Raises:
        RigTimeoutError: a reply did not come within ``wait`` seconds.
        ProtocolError: the rig speaks another protocol version, or a reply is malformed.
        RigResetError: the boot id differs from ``known``'s: the rig rebooted meanwhile.
        RigConnectionError, EmergencyStopError: see :meth:`Link.next_frame
            <cubebot.robot.link.Link.next_frame>` (a stop notice before the greeting is only
            logged).
    """
    hello = _hello(link, url, time.monotonic() + wait)
    version = hello.fields.get("PROTO", "?")
    if version != str(PROTOCOL_VERSION):
        raise ProtocolError(f"the rig speaks protocol {version}, this host "
                            f"{PROTOCOL_VERSION}; update the rig's firmware or cubebot")
    info = RigInfo.from_frames(hello, link.query("RIG", time.monotonic() + wait),
                               link.query("LIMITS", time.monotonic() + wait),
                               reset_on_open=_reset_by_opening(link.banner))
    if info.reset_on_open:
        log.warning("the rig at %s reset as its port opened (boot id %s): a board whose "
                    "DTR line resets it; its job and counters are gone", url, info.boot_id)
    if known is not None and info.boot_id != known.boot_id:
        raise RigResetError(
            f"the rig reset (boot id {known.boot_id} -> {info.boot_id}) while "
            "disconnected: its position is unknown. Re-scan the cube and solve again"
        )
    return info


def _hello(link: Link, url: str, deadline: float) -> Frame:
    """Return the rig's HELLO answer.

    A rig sends its notice of an emergency stop once; one that arrives before the greeting
    (a stop written just before this open, by this program or another, or left unread by
    the last connection) is logged, not raised: the rig stays stopped and says so to every
    move until it is cleared.
    """
    for _ in range(3):
        try:
            return link.query("HELLO", deadline)
        except EmergencyStopError:
            log.warning("the rig at %s is emergency-stopped (its notice came before the "
                        "greeting)", url)
    return link.query("HELLO", deadline)


def _reset_by_opening(banner: Optional[Frame]) -> bool:
    """Return whether a boot banner heard during the handshake means that opening the port
    reset the rig (its reset pin: ``EXT``, or ``NONE`` through a bootloader that clears the
    flags), not that it has just been powered up."""
    return banner is not None and banner.fields.get("RST") in ("EXT", "NONE")


def choose_model(wanted: Union[str, RigModel, None], info: RigInfo, url: str) -> RigModel:
    """Return the model to plan with for the rig at ``url`` whose handshake is ``info``:
    ``wanted`` (a model or a built-in name), or without one the rig's own: the built-in
    model of its kind, or of its faces cut to its limits.

    Raises:
        RigModelError: the model is of another kind than the rig, has motors on other
            faces, or asks for more than the rig's limits allow; or no such built-in model.
    """
    if isinstance(wanted, RigModel):
        model = wanted
    elif wanted is not None:
        model = RigModel.load(wanted)
    elif info.is_action_rig:
        model = RigModel.load(info.kind)
    else:
        builtin = RigModel.load("six-motor" if len(info.faces) == 6 else "five-motor")
        model = model_for_rig(builtin, info.limits)
    if info.is_action_rig or model.is_action_rig:
        if model.kind_value.value != (info.kind or "a motor rig"):
            raise RigModelError(
                f"rig model {model.name!r} is a {model.kind_value.value} rig but the rig at "
                f"{url} reports {info.kind or 'motors on ' + info.faces}; choose a "
                "model of the rig's kind")
        return model
    if model.faces != info.faces:
        raise RigModelError(
            f"rig model {model.name!r} has motors on {model.faces} but the rig at {url} "
            f"reports {info.faces}; choose a model that matches the rig"
        )
    check_model(model, info.limits, url)
    return model
