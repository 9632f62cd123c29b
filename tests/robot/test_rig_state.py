"""One state word for the rig, one progress value for a stream, and a stop from another thread."""

from __future__ import annotations

import threading

import pytest

from cubebot.robot import (
    ProtocolError,
    Rig,
    RigState,
    RigStoppedError,
    SimulatedRig,
    StreamProgress,
)
from tests.robot.test_rig_host import random_moves


@pytest.mark.parametrize("wire", ["READY", "BUSY", "STOPPED", "ESTOP", "STALL", "ENDSTOP"])
def test_every_wire_state_round_trips(wire: str) -> None:
    assert RigState.from_wire(wire).wire == wire


def test_the_states_read_as_words_and_only_faults_are_latched() -> None:
    assert [str(s) for s in RigState] == ["idle", "moving", "stopped", "estop", "stall",
                                          "endstop"]
    assert [s for s in RigState if s.latched] == [RigState.ESTOP, RigState.STALL,
                                                  RigState.ENDSTOP]
    assert [s for s in RigState if s.takes_moves] == [RigState.IDLE, RigState.MOVING]


def test_an_unknown_wire_state_is_a_protocol_error_naming_it() -> None:
    with pytest.raises(ProtocolError, match="'DANCING'"):
        RigState.from_wire("DANCING")


def test_progress_counts_turned_and_accepted_moves_and_ends_idle() -> None:
    moves = "U D' R2 L F B' U2 D"  # four slots: U D' | R2 L | F B' | U2 D
    with SimulatedRig(seed=3, time_scale=0.05) as sim, Rig(sim.url) as rig:
        seen: list[StreamProgress] = []
        rig.stream(moves, progress=seen.append)
        slots = len(rig.plan(moves))
    last = seen[-1]
    assert last.state is RigState.IDLE
    assert last.moves_done == last.moves_accepted == last.moves_total == 8
    assert last.slots_done == last.slots_total == slots == 4
    assert any(p.state is RigState.MOVING and p.moves_done < p.moves_accepted for p in seen)
    assert [p.moves_done for p in seen] == sorted(p.moves_done for p in seen)
    assert all(p.job == last.job and len(p.job) == 8 for p in seen)


def test_a_stop_from_another_thread_ends_the_stream_with_its_count() -> None:
    moves = random_moves(30, seed=8)
    with SimulatedRig(seed=8) as sim, Rig(sim.url) as rig:  # real motor timing
        seen: list[StreamProgress] = []
        stopped: list[object] = []

        def progress(now: StreamProgress) -> None:
            seen.append(now)
            if now.moves_done >= 3 and not stopped:
                stopped.append(True)
                # the page's Stop button: another thread, while this one streams
                threading.Thread(target=lambda: stopped.append(rig.stop())).start()

        with pytest.raises(RigStoppedError, match="stopped after") as ended:
            rig.stream(moves, progress=progress)
        made = sum(len(slot.moves) for slot in sim.executed)
        assert ended.value.done == made and ended.value.total == 30 and 3 <= made < 30
        assert seen[-1].state is RigState.STOPPED and seen[-1].moves_done == made
        for _ in range(100):
            if len(stopped) == 2:
                break
            threading.Event().wait(0.05)
        status = stopped[1]
        assert getattr(status, "state") is RigState.STOPPED and getattr(status, "done") == made
        # the same job, resumed: progress counts the whole job, from where it stopped
        resumed: list[StreamProgress] = []
        rig.resume(moves, progress=resumed.append)
        assert resumed[0].moves_done >= made and resumed[0].moves_total == 30
        assert resumed[-1].moves_done == 30 and resumed[-1].state is RigState.IDLE
    assert [m for slot in sim.executed for m in slot.moves] == moves


def test_the_older_two_argument_progress_still_hears_accepted_moves() -> None:
    with SimulatedRig(seed=4, time_scale=0.0) as sim, Rig(sim.url) as rig:
        calls: list[tuple[int, int]] = []
        rig.stream("R U R' U'", progress=lambda done, total: calls.append((done, total)))
    assert calls[-1] == (4, 4) and all(total == 4 for _, total in calls)
