"""Frames on the wire: encode/parse round trips, checksums, resync, the e-stop byte."""

from __future__ import annotations

import pytest

from cubebot.robot.errors import ProtocolError
from cubebot.robot.protocol import ESTOP, FRAME_ALPHABET, Frame, FrameParser, encode, seq_after


def test_frame_round_trips_through_the_parser() -> None:
    frame = Frame("S12", "MOVE", ("R2", "L'"), {"N": "13"})
    [parsed] = FrameParser().feed(encode(frame))
    assert parsed == frame and parsed.number == 12 and parsed.kind == "S"


def test_frame_with_a_flipped_bit_is_dropped() -> None:
    data = bytearray(encode(Frame("S3", "MOVE", ("R",))))
    data[6] ^= 0x04
    parser = FrameParser()
    assert parser.feed(bytes(data)) == [] and parser.bad_frames == 1


def test_parser_resynchronises_on_the_next_frame_start() -> None:
    good = encode(Frame("Q1", "STATUS"))
    parser = FrameParser()
    assert parser.feed(b"garbage$S1 MO" + good) == [Frame("Q1", "STATUS")]


def test_frames_split_across_reads_are_joined() -> None:
    data = encode(Frame("Q7", "HELLO"))
    parser = FrameParser()
    assert parser.feed(data[:5]) == [] and parser.feed(data[5:]) == [Frame("Q7", "HELLO")]


def test_estop_byte_is_not_one_bit_away_from_any_frame_byte() -> None:
    for byte in FRAME_ALPHABET:
        assert bin(byte ^ ESTOP).count("1") >= 2


def test_estop_byte_is_seen_between_and_inside_frames() -> None:
    parser = FrameParser()
    parser.feed(bytes([ESTOP]) + b"$S1 MO" + bytes([ESTOP]))
    assert parser.take_estops() == 2 and parser.take_estops() == 0


def test_frame_with_bytes_outside_the_alphabet_cannot_be_encoded() -> None:
    with pytest.raises(ProtocolError, match="does not allow"):
        encode(Frame("S1", "MOVE", ("r~",)))


@pytest.mark.parametrize("seq, base, ahead", [(5, 3, 2), (3, 5, -2), (1, 65535, 2), (65535, 1, -2)])
def test_sequence_numbers_compare_across_the_wrap(seq: int, base: int, ahead: int) -> None:
    assert seq_after(seq, base) == ahead


def test_a_frame_whose_boot_id_is_not_four_hex_digits_is_dropped_even_with_a_good_crc() -> None:
    # a byte lost inside B= that the CRC happens to miss must not pass for a reset rig
    parser = FrameParser()
    damaged = encode(Frame("A7", "OK", (), {"N": "8", "B": "2F5"}))
    assert parser.feed(damaged) == []
    assert parser.bad_frames == 1
    good = Frame("A7", "OK", (), {"N": "8", "B": "2F5D"})
    assert parser.feed(encode(good)) == [good]


def test_a_checksum_that_is_not_four_upper_case_hex_digits_is_dropped() -> None:
    # the protocol writes the CRC as four upper-case hex digits; a lower-case one is damage
    frame = next(f for f in (encode(Frame("A7", "OK", (), {"N": str(n)})) for n in range(100))
                 if any(c in b"ABCDEF" for c in f[-5:-1]))
    lowered = frame[:-5] + frame[-5:-1].lower() + b"\n"
    parser = FrameParser()
    assert parser.feed(lowered) == [] and parser.bad_frames == 1
    assert parser.feed(frame) != []


def test_a_frame_whose_fields_are_misshapen_is_dropped() -> None:
    # shapes a frame damaged past its CRC was seen in: a lost field name, a counter with a letter
    parser = FrameParser()
    assert parser.feed(encode(Frame("A4", "OK", (), {"": "460", "D": "10"}))) == []
    assert parser.feed(encode(Frame("A4", "OK", (), {"N": "4A0"}))) == []
    assert parser.bad_frames == 2


def test_one_frame_with_another_boot_id_is_not_taken_for_a_reset() -> None:
    from cubebot.robot.errors import RigResetError
    from cubebot.robot.link import Link

    def answer(boot: str) -> bytes:
        return encode(Frame("R1", "STATUS", (), {"N": "1", "B": boot}))

    link = Link("loop://", boot_id="5492")
    try:
        link.write(answer("5C92"))  # a forgery: line damage the CRC missed
        link.write(answer("5492"))
        assert link.next_frame(1.0) == Frame("R1", "STATUS", (), {"N": "1", "B": "5492"})
        link.write(answer("0007"))  # a rig that reset says so in every answer
        link.write(answer("0007"))
        with pytest.raises(RigResetError, match="5492 -> 0007"):
            link.next_frame(1.0)
    finally:
        link.close()
