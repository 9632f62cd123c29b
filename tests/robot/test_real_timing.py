"""The link at the rig's real motor speed, with faults on both directions of a real pty.

A rig that turns at its real speed keeps its queue full, so these are the conditions where
back-pressure, refused frames and retransmissions meet; tests with time scaled to zero never
see a full queue. The long soak here is the representative slice; the benchmark runs more.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cubebot.robot import Faults, Rig, RigConnectionError, RigResetError, SimulatedRig
from cubebot.solver import Cube, Move
from tests.robot.test_rig_host import random_moves

NOISY = Faults(drop=0.01, corrupt=0.01, duplicate=0.005)


def made_moves(sim: SimulatedRig) -> list[Move]:
    return [m for slot in sim.executed for m in slot.moves]


def assert_prefix_of_job(sim: SimulatedRig, start: Cube, moves: list[Move]) -> int:
    """Check the rig made a prefix of the job, each frame once and in order; return its length."""
    made = made_moves(sim)
    assert made == moves[:len(made)], "a move was skipped, repeated or reordered"
    seqs = [(slot.boot, slot.seq) for slot in sim.executed]
    assert len(set(seqs)) == len(seqs), "a frame ran twice"
    assert sim.facelets == start.apply(made).facelets
    return len(made)


# a thousand moves take minutes at real speed: the default run streams the first 60 of them,
# -m slow all 1000
@pytest.mark.parametrize("count", [60, pytest.param(1000, marks=pytest.mark.slow)])
def test_a_long_stream_at_real_speed_on_a_noisy_line_ends_exact(count: int) -> None:
    moves = random_moves(1000, seed=21)[:count]
    start = Cube.random(3, 21)
    with SimulatedRig(3, start.facelets, faults=NOISY, seed=21) as sim:
        with Rig(sim.port) as rig:
            report = rig.stream(moves)
        assert report.sent == count and report.retransmits > 0
        assert assert_prefix_of_job(sim, start, moves) == count
        assert sim.wire_faults["dropped"] > 0 and sim.wire_faults["corrupted"] > 0


schedules = st.fixed_dictionaries({
    "drop": st.sampled_from([0.0, 0.005, 0.01, 0.02]),
    "corrupt": st.sampled_from([0.0, 0.005, 0.01, 0.02]),
    "duplicate": st.sampled_from([0.0, 0.005, 0.01]),
    "direction": st.sampled_from(["both", "to-rig", "to-host"]),
    "moves": st.integers(min_value=6, max_value=24),
    "event": st.sampled_from(["none", "unplug", "reset"]),
    "at": st.integers(min_value=1, max_value=5),
    "seed": st.integers(min_value=0, max_value=10_000),
})


@settings(max_examples=5, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(schedules)
def test_any_fault_schedule_leaves_a_prefix_and_ends_exact_or_asks_for_a_rescan(
        schedule: dict[str, object]) -> None:
    # five schedules at real speed in the default run; the fourteen of the soak under -m slow
    _fault_schedule_leaves_a_prefix_and_ends_exact_or_asks_for_a_rescan(schedule)


@pytest.mark.slow
@settings(max_examples=14, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(schedules)
def test_fourteen_fault_schedules_leave_a_prefix_and_end_exact_or_ask_for_a_rescan(
        schedule: dict[str, object]) -> None:
    _fault_schedule_leaves_a_prefix_and_ends_exact_or_asks_for_a_rescan(schedule)


def _fault_schedule_leaves_a_prefix_and_ends_exact_or_asks_for_a_rescan(
        schedule: dict[str, object]) -> None:
    faults = Faults(drop=float(schedule["drop"]), corrupt=float(schedule["corrupt"]),
                    duplicate=float(schedule["duplicate"]), direction=str(schedule["direction"]))
    seed = int(schedule["seed"])  # type: ignore[call-overload]
    moves = random_moves(int(schedule["moves"]), seed=seed)  # type: ignore[call-overload]
    start = Cube.random(3, seed)
    event, at = schedule["event"], int(schedule["at"])  # type: ignore[call-overload]
    fired: list[str] = []

    with SimulatedRig(3, start.facelets, faults=faults, seed=seed) as sim:
        def disturb(done: int, total: int) -> None:
            if fired or done < at:
                return
            fired.append(str(event))
            if event == "unplug":
                sim.replug()  # pull the cable and plug it back in (maybe a new pty)
            elif event == "reset":
                sim.reset()

        with Rig(sim.port, reconnect_wait=1.0) as rig:
            try:
                rig.stream(moves, progress=disturb)
            except RigConnectionError:
                assert fired == ["unplug"]
                rig.reconnect(sim.port)  # the cable came back under another name
                rig.continue_stream()
            except RigResetError as err:
                assert fired == ["reset"] and "re-scan" in str(err).lower()
                assert_prefix_of_job(sim, start, moves)
                return
        assert fired != ["reset"], "a reset went unnoticed"
        assert assert_prefix_of_job(sim, start, moves) == len(moves)


@pytest.mark.parametrize("direction", ["to-rig", "to-host"])
def test_each_fault_alone_at_real_speed_ends_exact(direction: str) -> None:
    moves = random_moves(30, seed=31)
    for faults in (Faults(drop=0.02, direction=direction),
                   Faults(corrupt=0.02, direction=direction),
                   Faults(duplicate=0.02, direction=direction)):
        with SimulatedRig(3, faults=faults, seed=31) as sim, Rig(sim.port) as rig:
            assert rig.stream(moves).sent == 30
            assert assert_prefix_of_job(sim, Cube.solved(3), moves) == 30
