"""The rig's limits in the handshake, the host planning within them, and the small items of a
real board's link: a rig that never finishes, a job started while the last one turns."""

from __future__ import annotations

import dataclasses
import json
import time

import pytest

from cubebot.cli import main
from cubebot.robot import Rig, RigModel, RigModelError, RigTimeoutError, SimulatedRig
from cubebot.robot.avr import AvrRig, config_int, toolchain_missing

SIX = RigModel.load("six-motor")


def test_rig_info_json_shows_the_limits_in_a_persons_units(
        capsys: pytest.CaptureFixture[str]) -> None:
    with SimulatedRig(seed=1, time_scale=0.0, idle_off=0.25) as sim:
        assert main(["rig-info", "--port", sim.port, "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["limits"] == {"steps_per_quarter": 50, "microsteps": 16,
                              "parallel_opposite": True, "max_speed": 5.0, "acceleration": 55.0,
                              "idle_off": 0.25, "settle_time": 0.015, "max_step_rate": 40000}
    assert info["reset_cause"] == "PWR" and info["state"] == "idle"


@pytest.mark.skipif(toolchain_missing() is not None, reason=str(toolchain_missing()))
def test_the_firmwares_limits_are_its_config_and_the_built_in_models(
        capsys: pytest.CaptureFixture[str]) -> None:
    with AvrRig() as avr:
        assert main(["rig-info", "--port", avr.port, "--json"]) == 0
    limits = json.loads(capsys.readouterr().out)["limits"]
    per_rev = 4 * config_int("STEPS_PER_QUARTER") * config_int("MICROSTEPS")
    assert limits["max_speed"] == config_int("MAX_SPEED_SPS") / per_rev == SIX.max_speed
    assert limits["acceleration"] == config_int("ACCEL_SPS2") / per_rev == SIX.acceleration
    assert limits["idle_off"] == config_int("IDLE_OFF_MS") / 1000 <= 1.0


@pytest.mark.parametrize(("change", "named"), [
    ({"max_speed": 6.0}, "max_speed 6 rev/s where the rig allows 5 rev/s"),
    ({"acceleration": 80.0}, "acceleration 80 rev/s² where the rig allows 55 rev/s²"),
    ({"microsteps": 8}, "microsteps 8 where the rig's drivers are set to 16"),
], ids=["speed", "acceleration", "microsteps"])
def test_a_model_asking_more_than_the_rig_allows_is_refused_naming_both(
        change: dict[str, object], named: str) -> None:
    greedy = dataclasses.replace(SIX, name="greedy", **change)  # type: ignore[arg-type]
    with SimulatedRig(seed=2, time_scale=0.0) as sim:
        with pytest.raises(RigModelError, match=named):
            Rig(sim.port, model=greedy).open()
        gentle = dataclasses.replace(SIX, name="gentle", max_speed=4.0, acceleration=40.0)
        with Rig(sim.port, model=gentle) as rig:  # asking less is fine
            assert rig.model is gentle


def test_opposite_faces_together_on_a_rig_that_turns_them_one_at_a_time_is_refused() -> None:
    five = RigModel.load("five-motor")
    with SimulatedRig(seed=3, model=five, time_scale=0.0) as sim:
        eager = dataclasses.replace(five, parallel_opposite=True)
        with pytest.raises(RigModelError, match="PAR=0"):
            Rig(sim.port, model=eager).open()


def test_without_a_model_the_host_plans_with_the_rigs_own_limits() -> None:
    slow = dataclasses.replace(SIX, name="slow-rig", max_speed=2.0, acceleration=20.0)
    with SimulatedRig(seed=4, model=slow, time_scale=0.0) as sim, Rig(sim.port) as rig:
        assert rig.model is not None
        assert (rig.model.max_speed, rig.model.acceleration) == (2.0, 20.0)
        assert rig.plan("R").seconds == pytest.approx(slow.turn_time(1) + slow.settle_time)


def test_a_rig_that_keeps_its_queue_full_and_finishes_nothing_is_given_up_on() -> None:
    with SimulatedRig(seed=5, time_scale=1e6) as sim:  # moves that never end
        with Rig(sim.port, stall_timeout=1.0) as rig:
            began = time.monotonic()
            with pytest.raises(RigTimeoutError, match="queue full") as stuck:
                rig.stream("R U R' U' " * 5)
            assert time.monotonic() - began < 10  # not forever
        assert stuck.value.report is not None


def test_a_new_stream_waits_for_the_last_ones_moves_and_counts_only_its_own() -> None:
    with SimulatedRig(seed=6, time_scale=0.3) as sim, Rig(sim.port) as rig:
        rig.stream("R U R' U' F2", wait=False)  # still turning when the next job comes
        rig.stream("D L")
        job = rig.job()
    assert (job.done, job.total) == (2, 2)
    assert [m for s in sim.executed for m in map(str, s.moves)] == \
        ["R", "U", "R'", "U'", "F2", "D", "L"]
