"""The C firmware in simavr, read from its pins: the motion profile against the limits, the
drivers' power, the emergency stop's race with a frame, the stop button and the watchdog."""

from __future__ import annotations

import time
from typing import Any, Iterator

import pytest

from cubebot.robot import EmergencyStopError, Rig, RigModel, RigResetError
from cubebot.robot.avr import AvrRig, config_int, toolchain_missing
from cubebot.robot.protocol import Frame, encode

pytestmark = pytest.mark.skipif(toolchain_missing() is not None,
                                reason=f"the AVR firmware cannot run here: {toolchain_missing()}")

VMAX = config_int("MAX_SPEED_SPS")
ACC = config_int("ACCEL_SPS2")
IDLE_US = config_int("IDLE_OFF_MS") * 1000
SETTLE_US = config_int("SETTLE_MS") * 1000


@pytest.fixture
def avr() -> Iterator[AvrRig]:
    with AvrRig() as board:
        yield board


def _settled(avr: AvrRig, seconds: float = 0.05) -> list[dict[str, Any]]:
    time.sleep(seconds)  # the harness writes a movement once its motor has rested 8 ms
    return avr.movements()


def test_every_turn_accelerates_and_brakes_within_the_limits_including_u2_d(avr: AvrRig) -> None:
    with Rig(avr.port) as rig:
        rig.stream("U2 D R L' F B2 U D' R2")
    movements = _settled(avr)
    assert len(movements) == 9
    for m in movements:
        assert m["peak_sps"] <= VMAX * 1.02, m
        assert m["accel_sps2"] <= ACC * 1.03 and m["decel_sps2"] <= ACC * 1.03, m
        assert m["first_sps"] < 0.15 * VMAX and m["last_sps"] < 0.15 * VMAX, m  # from rest, to rest
    # the longer turn of each slot sets the pace at the full acceleration (a floor, not only a cap)
    slots: dict[int, list[dict[str, Any]]] = {}
    for m in movements:
        slots.setdefault(m["start_us"], []).append(m)
    pace = [max(slot, key=lambda m: abs(m["steps"])) for slot in slots.values()]
    assert len(pace) == 5
    assert all(m["accel_sps2"] > 0.9 * ACC and m["decel_sps2"] > 0.9 * ACC for m in pace)
    u2, d = movements[1], movements[0]
    assert (u2["motor"], u2["steps"], d["motor"], d["steps"]) == ("U", 1600, "D", 800)
    assert u2["start_us"] == d["start_us"]
    assert abs(u2["end_us"] - d["end_us"]) < 5000  # they stop together: D did not stop at speed
    assert 0.4 * ACC < d["decel_sps2"] < 0.6 * ACC  # D brakes at half U's rate, to rest


def test_turn_times_on_the_pins_are_the_plans(avr: AvrRig) -> None:
    model = RigModel.load("six-motor")
    with Rig(avr.port) as rig:
        rig.stream("R U2")
    quarter, half = _settled(avr)
    first_interval = (2 / ACC) ** 0.5  # the first step comes one interval after the start
    for movement, turns in ((quarter, 1), (half, 2)):
        made = (movement["end_us"] - movement["start_us"]) / 1e6 + first_interval
        assert made == pytest.approx(model.turn_time(turns), rel=0.03)


def test_drivers_are_off_before_the_first_move_within_the_idle_time_after_and_at_an_estop(
        avr: AvrRig) -> None:
    with Rig(avr.port) as rig:
        rig.stream("R U")
        time.sleep(IDLE_US / 1e6 + 0.2)
        rig.stream("F2 B2 F2 B2 F2 B2", wait=False)
        time.sleep(0.25)
        rig.estop()
        time.sleep(0.1)
    movements = _settled(avr)
    enable = avr.enable_changes()
    assert enable[0] == {"pin": "EN", "on": False, "driven": False, "t_us": 0}  # floating at reset
    assert enable[1]["driven"] and not enable[1]["on"]  # driven off before anything moved
    ons = [e for e in enable if e["on"]]
    offs = [e for e in enable if e["driven"] and not e["on"]][1:]
    r, u, cut = movements[0], movements[1], movements[-1]
    assert ons[0]["t_us"] < r["start_us"] and ons[1]["t_us"] < cut["start_us"]
    idle = offs[0]["t_us"] - u["end_us"]
    assert IDLE_US <= idle <= IDLE_US + SETTLE_US + 20_000  # off within the idle time
    assert offs[1]["t_us"] - cut["end_us"] < 1000  # the emergency stop: off at once
    assert abs(cut["steps"]) % 800 != 0  # it did cut a turn short


@pytest.fixture
def hooked() -> Iterator[AvrRig]:
    with AvrRig(test_hooks=True) as board:
        yield board


def _retry(action: Any) -> Any:
    for _ in range(5):  # the stop's notice may arrive in the middle of an exchange
        try:
            return action()
        except EmergencyStopError:
            continue
    return action()


def test_a_stop_arriving_while_a_move_is_decoded_is_never_overtaken(hooked: AvrRig) -> None:
    # the hooked build pauses 200 us between checking the stop and queueing the move, so a sweep
    # of delays lands stop bytes inside that window too
    with Rig(hooked.port) as rig:
        for delay in range(0, 1400, 100):
            seq = int(_retry(rig.status)["N"])
            hooked.race(encode(Frame(f"S{seq}", "MOVE", ("U",))), delay)
            time.sleep(0.08)
            _retry(rig.clear)
    time.sleep(0.05)
    trace = hooked.trace()
    races = [e["t_us"] for e in trace if e.get("event") == "race_in"]
    stops = [e["t_us"] for e in trace if e.get("event") == "estop_in"]
    assert len(races) == len(stops) == 14
    # a turn starts by powering the drivers (its first step comes milliseconds later)
    starts = [e["t_us"] for e in trace if e.get("pin") == "EN" and e["on"]]
    assert starts, "no move ever started: the sweep never reached past the decoding"
    assert len(starts) < len(races), "no stop ever came before the move was queued"
    for start in starts:  # every turn began between its frame and its stop byte
        assert any(race < start < stop for race, stop in zip(races, stops)), (start, stops)


def test_the_stop_button_stops_and_holds_the_stop_until_released(avr: AvrRig) -> None:
    with Rig(avr.port) as rig:
        rig.stream("R U R' U'", wait=False)
        avr.press_stop()
        time.sleep(0.1)
        assert _retry(rig.job).state == "estop"
        with pytest.raises(EmergencyStopError, match="stop button"):
            _retry(rig.clear)
        avr.release_stop()
        time.sleep(0.01)
        _retry(rig.clear)
        rig.stream("F")
    assert [str(m) for m in avr.turns().moves[-1:]] == ["F"]


def test_a_stalled_main_loop_is_reset_by_the_watchdog(hooked: AvrRig) -> None:
    with Rig(hooked.port) as rig:
        before = rig.info.boot_id if rig.info else ""
        asked = time.monotonic()
        with pytest.raises(RigResetError, match="WDT"):
            rig.command("HANG")
        assert time.monotonic() - asked < 2.0
    with Rig(hooked.port) as rig:
        assert rig.info is not None and rig.info.reset_cause == "WDT"
        assert rig.info.boot_id != before
    resets = [e for e in hooked.trace() if e.get("event") == "reset"]
    assert [e["cause"] for e in resets] == ["PWR"]  # the watchdog did it, not the harness
