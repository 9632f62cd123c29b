"""The wire format both sides speak (see ``docs/protocol.md``): framed, checksummed ASCII lines.

A frame is ``$TAG WORD FIELD...*CRC\\n``. The host's ``TAG`` is ``S<n>`` for a sequenced command
(a move: executed exactly once) or ``Q<n>`` for a query (safe to repeat); the rig answers them
as ``A<n>`` and ``R<n>``, and sends ``N`` for a resend request, ``E`` for an emergency-stop
notice and ``H`` for its boot banner; ``CRC`` is the CRC-32 of zlib and Ethernet
(:func:`binascii.crc32`) of the bytes between ``$`` and ``*``, as eight upper-case hex digits
(since protocol version 3; version 2's CRC-16 let about one damaged frame in 65,536 through
once a byte was lost or doubled). Frames hold
only the bytes of :data:`FRAME_ALPHABET`; the emergency stop is the single byte :data:`ESTOP`,
which differs from every frame byte in at least two bits, so a one-bit error inside a frame can
never fake it.
"""

from __future__ import annotations

import binascii
from dataclasses import dataclass, field
from typing import Callable, Optional

from cubebot.robot.errors import ProtocolError

__all__ = [
    "PROTOCOL_VERSION",
    "ESTOP",
    "SEQ_MODULUS",
    "FRAME_ALPHABET",
    "Frame",
    "FrameParser",
    "encode",
    "seq_after",
]

PROTOCOL_VERSION = 4
#: The emergency-stop byte, sent outside frames (never a frame byte, nor one bit away from one).
ESTOP = 0x9B
#: Sequence numbers run 0..65535 and wrap (serial number arithmetic).
SEQ_MODULUS = 1 << 16
#: The CRC's length on the wire, in hex digits.
_CRC_DIGITS = 8
#: The longest frame either side accepts; longer input is line noise.
MAX_FRAME = 200
FRAME_ALPHABET = frozenset(
    b"$*\n =.,'-_:+&" + b"0123456789" + b"ABCDEFGHIJKLMNOPQRSTUVWXYZ"
)


def seq_after(seq: int, base: int) -> int:
    """Return how far ``seq`` lies after ``base`` modulo 2**16, in -32768..32767."""
    diff = (seq - base) % SEQ_MODULUS
    return diff - SEQ_MODULUS if diff >= SEQ_MODULUS // 2 else diff


@dataclass(frozen=True)
class Frame:
    """One decoded frame: a tag (``S12``, ``Q3``, ``A12``, ``R3``, ``N``, ``E``), word, fields.

    ``args`` are the bare words after ``word`` (e.g. the moves of ``MOVE R L'``), ``fields``
    the ``KEY=VALUE`` pairs; ``check`` is the CRC the frame arrived with (0 for a frame made
    here), which a rig's replay cache keeps beside each answer: a repeat must match it.
    """

    tag: str
    word: str
    args: tuple[str, ...] = ()
    fields: dict[str, str] = field(default_factory=dict)
    check: int = field(default=0, compare=False, repr=False)

    @property
    def kind(self) -> str:
        """Return the tag's letter: ``S``, ``Q`` (host), ``A``, ``R``, ``N``, ``E``, ``H`` (rig)."""
        return self.tag[:1]

    @property
    def number(self) -> Optional[int]:
        """Return the tag's number (sequence number or query id), or None."""
        return int(self.tag[1:]) if self.tag[1:].isdigit() else None

    def field_int(self, key: str) -> int:
        """Return the integer field ``key``.

        Raises:
            ProtocolError: the field is missing or not a number.
        """
        try:
            return int(self.fields[key])
        except (KeyError, ValueError) as err:
            raise ProtocolError(f"frame {self} lacks a numeric {key}= field") from err

    def body(self) -> str:
        """Return the frame text between ``$`` and ``*``."""
        parts = [self.tag, self.word, *self.args, *(f"{k}={v}" for k, v in self.fields.items())]
        return " ".join(parts)

    def __str__(self) -> str:
        return self.body()


def encode(frame: Frame) -> bytes:
    """Return the frame's bytes on the wire, checksum and newline included.

    Raises:
        ProtocolError: the frame would hold a byte outside the frame alphabet.
    """
    body = frame.body().encode("ascii", errors="replace")
    if any(b not in FRAME_ALPHABET or b in b"$*\n" for b in body):
        raise ProtocolError(f"frame {frame.body()!r} holds bytes the protocol does not allow")
    return b"$" + body + b"*" + b"%08X" % binascii.crc32(body) + b"\n"


def decode(body: bytes, check: int = 0) -> Frame:
    """Return the frame whose checked body (between ``$`` and ``*``) is ``body``; ``check`` is
    the CRC it came with.

    Raises:
        ProtocolError: fewer than two words, a malformed tag, a field name that is not
            upper-case letters, a counter that is not a whole number, or a boot id that is not
            four hex digits.
    """
    words = body.decode("ascii").split(" ")
    if len(words) < 2 or not words[0] or words[0][0] not in TAG_LETTERS:
        raise ProtocolError(f"malformed frame {body!r}")
    if words[0][0] in "SQAR" and not words[0][1:].isdigit():
        raise ProtocolError(f"malformed tag in frame {body!r}")
    args = tuple(w for w in words[2:] if "=" not in w)
    fields = dict(w.split("=", 1) for w in words[2:] if "=" in w)
    # the fields' own shapes are a second guard behind the CRC: a damaged frame that passes
    # both must fit the protocol's grammar as well
    if any(not key.isalpha() or not key.isupper() for key in fields):
        raise ProtocolError(f"malformed field name in frame {body!r}")
    if any(not fields[key].isdigit() for key in _NUMERIC_FIELDS & fields.keys()):
        raise ProtocolError(f"malformed number in frame {body!r}")
    boot = fields.get("B")
    if boot is not None and not _is_hex(boot, 4):
        # a boot id is always four hex digits: anything else is line damage the CRC missed,
        # and must not pass for a reset rig
        raise ProtocolError(f"malformed boot id in frame {body!r}")
    return Frame(words[0], words[1], args, fields, check)


#: The letters a tag starts with: host's S and Q, rig's A, R, N, E and H.
TAG_LETTERS = "SQARNEH"
#: Fields that always hold a whole number.
_NUMERIC_FIELDS = frozenset({"N", "D", "L", "JD", "JT", "QUEUE", "STEPS", "MICRO", "PAR", "SIZE",
                             "VMAX", "ACC", "IDLE", "RATE", "SETTLE"})


def _is_hex(text: str, digits: int) -> bool:
    """Return whether ``text`` is exactly ``digits`` upper-case hex digits (a CRC, a boot id)."""
    return len(text) == digits and all(c in "0123456789ABCDEF" for c in text)


class FrameParser:
    """Turns a byte stream into checked frames, resynchronising on ``$`` after line noise.

    ``feed`` returns the frames completed by the new bytes; frames with a bad checksum or
    stray bytes are counted in ``bad_frames`` and dropped (no more than :data:`MAX_FRAME`
    bytes of a frame are ever kept, however long the line goes without a newline),
    ``old_frames`` counts those among them that are good frames of protocol version 2 (a rig
    with older firmware), and ``estops`` counts emergency-stop bytes seen anywhere.
    """

    def __init__(self) -> None:
        self._buffer = bytearray()
        self._inside = False
        self._damaged = False
        self.bad_frames = 0
        self.old_frames = 0
        self.estops = 0

    def feed(self, data: bytes) -> list[Frame]:
        """Return the good frames that ``data`` completes (see the class doc)."""
        frames: list[Frame] = []
        for byte in data:
            if byte == ESTOP:
                self.estops += 1
                continue
            if byte == 0x24:  # '$' starts a frame, abandoning any partial one
                if self._inside:
                    self.bad_frames += 1
                self._buffer.clear()
                self._inside, self._damaged = True, False
                continue
            if not self._inside:
                continue
            if byte == 0x0A:  # '\n' ends it
                self._inside = False
                frame = self._check()
                if frame is None:
                    self.bad_frames += 1
                else:
                    frames.append(frame)
                continue
            if byte not in FRAME_ALPHABET or len(self._buffer) >= MAX_FRAME:
                self._damaged = True  # and nothing more is kept: the frame is lost anyway
                continue
            self._buffer.append(byte)
        return frames

    def take_estops(self) -> int:
        """Return and reset the count of emergency-stop bytes seen."""
        count, self.estops = self.estops, 0
        return count

    def _check(self) -> Optional[Frame]:
        if self._damaged:
            return None
        raw = bytes(self._buffer)
        body = _checked_body(raw, _CRC_DIGITS, binascii.crc32)
        if body is None:
            # version 2 ended a frame in a CRC-16/CCITT (start 0xFFFF) as four hex digits
            self.old_frames += _checked_body(raw, 4, _crc16) is not None
            return None
        try:
            return decode(body, binascii.crc32(body))
        except (ValueError, ProtocolError):
            return None


def _crc16(body: bytes) -> int:
    """Return the CRC-16/CCITT of ``body`` with start value 0xFFFF (protocol version 2)."""
    return binascii.crc_hqx(body, 0xFFFF)


def _checked_body(raw: bytes, digits: int, crc: Callable[[bytes], int]) -> Optional[bytes]:
    """Return the body of ``raw`` (a frame between ``$`` and the newline) whose ending ``*``
    and ``digits`` upper-case hex digits are ``crc`` of that body, or None."""
    if len(raw) < digits + 2 or raw[-digits - 1] != 0x2A:  # '*'
        return None
    body, text = raw[:-digits - 1], raw[-digits:].decode("ascii", errors="replace")
    return body if _is_hex(text, digits) and int(text, 16) == crc(body) else None
