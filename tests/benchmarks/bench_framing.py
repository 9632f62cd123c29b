"""Benchmark of the frame check: how many damaged frames pass for good ones, CRC-16 against CRC-32.

Run: ``python tests/benchmarks/bench_framing.py [--frames 300000] [--seed 1]``.

Rig answers of the shapes a stream carries (``OK``, ``STATUS``, ``RESEND``, with random
counters and boot ids) go through the simulated cable's :class:`FaultyWire` at the soak's line
faults (1 % of bytes dropped, 1 % with one bit flipped, 0.5 % doubled). Every frame that comes
out changed is then checked two ways:

* protocol version 2: a CRC-16/CCITT (:func:`binascii.crc_hqx`, start 0xFFFF) as four hex
  digits, then the fields' shapes (:func:`cubebot.robot.protocol.decode`);
* protocol version 3, the one in use: the real :class:`FrameParser` (CRC-32 as eight hex
  digits, then the same shapes).

A damaged frame that passes as a frame other than the one sent is a forgery: the host would
act on something the rig never said. (Damage outside the frame -- a doubled ``$`` or newline
-- leaves the frame as sent, and is not counted.) The table prints the forgeries per check.
"""

from __future__ import annotations

import argparse
import random
import sys
import time

from cubebot.robot.errors import ProtocolError
from cubebot.robot.faults import Faults, FaultyWire
from cubebot.robot.protocol import FRAME_ALPHABET, Frame, FrameParser, decode, encode
# version 2's check, which the parser keeps to recognise a rig with older firmware
from cubebot.robot.protocol import _checked_body, _crc16

SOAK = Faults(drop=0.01, corrupt=0.01, duplicate=0.005)


def rig_answer(rng: random.Random) -> Frame:
    """Return a rig answer of a shape a stream carries, with random counters."""
    n = rng.randrange(65536)
    counters = {"N": str(n), "D": str(rng.randrange(n + 1)), "L": str(rng.randrange(9)),
                "B": f"{rng.randrange(65536):04X}"}
    kind = rng.randrange(3)
    if kind == 0:
        return Frame(f"A{max(n - 1, 0)}", "OK", (), counters)
    if kind == 1:
        state = rng.choice(("READY", "BUSY", "STOPPED"))
        return Frame(f"R{rng.randrange(10000)}", "STATUS", (), {"STATE": state, **counters})
    return Frame("N", "RESEND", (), counters)


def v2_bytes(frame: Frame) -> bytes:
    """Return ``frame`` as protocol version 2 put it on the wire (CRC-16 as four hex digits)."""
    body = frame.body().encode("ascii")
    return b"$" + body + b"*" + b"%04X" % _crc16(body) + b"\n"


def v2_forged(line: bytes, sent: Frame) -> bool:
    """Return whether version 2's check took the damaged ``line`` for a frame other than ``sent``.

    As the parser does, a frame runs from the last ``$`` to the next newline.
    """
    start = line.rfind(b"$")
    end = line.find(b"\n", start)
    if start < 0 or end < 0:
        return False
    raw = line[start + 1:end]
    body = _checked_body(raw, 4, _crc16) if all(b in FRAME_ALPHABET for b in raw) else None
    if body is None:
        return False
    try:
        return decode(body) != sent
    except (ProtocolError, UnicodeDecodeError):
        return False


def v3_forged(line: bytes, sent: Frame) -> bool:
    """Return whether the real frame parser (version 3) took ``line`` for a frame not ``sent``."""
    return any(frame != sent for frame in FrameParser().feed(line))


def measure(frames: int, seed: int) -> dict[str, tuple[int, int]]:
    """Return, per protocol version, (damaged frames, forgeries among them)."""
    rng = random.Random(seed)
    wires = {"2": FaultyWire(SOAK, random.Random(seed + 1)),
             "3": FaultyWire(SOAK, random.Random(seed + 2))}
    checks = {"2": (v2_bytes, v2_forged), "3": (encode, v3_forged)}
    counts = {version: [0, 0] for version in wires}
    for _ in range(frames):
        frame = rig_answer(rng)
        for version, wire in wires.items():
            to_bytes, forged = checks[version]
            sent = to_bytes(frame)
            wire.send(sent, 0.0)
            line = wire.receive(0.0)
            if line != sent:
                counts[version][0] += 1
                counts[version][1] += forged(line, frame)
    return {version: (damaged, passed) for version, (damaged, passed) in counts.items()}


def main(argv: list[str] | None = None) -> int:
    """Print the table; return 0."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--frames", type=int, default=300_000,
                        help="rig answers sent through the faulty cable (default 300000)")
    parser.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    results = measure(args.frames, args.seed)
    print(f"{args.frames:,} rig answers, 1 % drop + 1 % corrupt + 0.5 % duplicate "
          f"({time.perf_counter() - started:.0f} s)")
    print(f"{'check':<34} {'damaged':>9} {'forged':>7} {'per damaged frame':>18}")
    labels = {"2": "v2: CRC-16 + field shapes", "3": "v3: CRC-32 + field shapes (in use)"}
    for version, (damaged, forged) in results.items():
        rate = f"1 in {damaged // forged:,}" if forged else f"0 in {damaged:,}"
        print(f"{labels[version]:<34} {damaged:>9,} {forged:>7} {rate:>18}")
    return 0


if __name__ == "__main__":
    import tables  # the benchmarks' folder is the script's own

    tables.run(main, "framing")
