"""The simulated cable's faults: rates, bit flips, duplicates, delays and directions."""

from __future__ import annotations

import random

import pytest

from cubebot.robot import Faults
from cubebot.robot.faults import FaultyWire


def test_clean_wire_passes_bytes_unchanged() -> None:
    wire = FaultyWire(Faults(), random.Random(1))
    wire.send(b"$Q1 HELLO*1234\n", 0.0)
    assert wire.receive(0.0) == b"$Q1 HELLO*1234\n"


def test_corruption_flips_exactly_one_bit() -> None:
    wire = FaultyWire(Faults(corrupt=1.0), random.Random(1))
    data = bytes(range(32, 127))
    wire.send(data, 0.0)
    out = wire.receive(0.0)
    assert all(bin(a ^ b).count("1") == 1 for a, b in zip(data, out))
    assert wire.corrupted == len(data)


def test_drop_rate_is_roughly_the_probability() -> None:
    wire = FaultyWire(Faults(drop=0.1), random.Random(2))
    wire.send(bytes(10000), 0.0)
    assert 800 < 10000 - len(wire.receive(0.0)) < 1200


def test_duplicates_repeat_a_byte() -> None:
    wire = FaultyWire(Faults(duplicate=1.0), random.Random(3))
    wire.send(b"AB", 0.0)
    assert wire.receive(0.0) == b"AABB"


def test_delayed_bytes_arrive_when_due() -> None:
    wire = FaultyWire(Faults(delay=5.0), random.Random(4))
    wire.send(b"X", 1.0)
    assert wire.receive(1.004) == b"" and wire.receive(1.005) == b"X"


def test_faults_apply_only_in_their_direction() -> None:
    faults = Faults(drop=0.5, direction="to-host")
    assert faults.on("to-host") is faults and not faults.on("to-rig").on_wire


@pytest.mark.parametrize("options", [{"drop": 1.5}, {"corrupt": -0.1}, {"delay": -1},
                                     {"direction": "sideways"}])
def test_bad_fault_settings_are_refused(options: dict) -> None:
    with pytest.raises(ValueError):
        Faults(**options)
