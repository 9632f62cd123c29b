"""The 3x3 solver's cost mode: candidates collected by searches side by side, the cheapest taken."""

from __future__ import annotations

import importlib.util
from typing import Iterator, Sequence

import pytest

from cubebot.solver import Cube, solve
from cubebot.solver.cube3 import strategy
from cubebot.solver.cube3.twophase import SEARCH_ENV, Found, TwoPhaseSearch
from cubebot.solver.cube3.views import VIEWS
from cubebot.solver.notation import Move

needs_numba = pytest.mark.skipif(importlib.util.find_spec("numba") is None,
                                 reason="numba is not installed: only the NumPy search runs")


def _rig_time(moves: Sequence[Move]) -> float:
    """Return a rig's time in quarter turns, a half turn costing 1.4 (as on the six-motor rig)."""
    return sum(1.4 if move.turns == 2 else 1.0 for move in moves)


@needs_numba
@pytest.mark.parametrize("seed", range(4))
def test_side_by_side_searches_return_a_cheap_solution(
        monkeypatch: pytest.MonkeyPatch, seed: int) -> None:
    monkeypatch.setenv(SEARCH_ENV, "numba")
    monkeypatch.setattr(strategy, "COST_THREADS", 2)
    cube = Cube.random(3, 500 + seed)
    picked = solve(cube, cost=_rig_time, timeout=0.3)
    assert cube.apply(picked.moves).is_solved
    # the default answer is no cheaper than what a third of a second of collecting picks
    assert _rig_time(picked.moves) <= _rig_time(solve(cube).moves)


@needs_numba
def test_the_views_are_shared_out_among_the_searches(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(SEARCH_ENV, "numba")
    monkeypatch.setattr(strategy, "COST_THREADS", 2)
    monkeypatch.setattr(strategy.os, "cpu_count", lambda: 2)
    seen: list[tuple] = []
    original = TwoPhaseSearch.solutions

    def recording(self: TwoPhaseSearch, every: bool = False) -> Iterator[Found]:
        seen.append(self.views)
        return original(self, every)

    monkeypatch.setattr(TwoPhaseSearch, "solutions", recording)
    cube = Cube.random(3, 77)
    assert cube.apply(solve(cube, cost=_rig_time, timeout=0.2).moves).is_solved
    assert sorted(seen, key=lambda views: VIEWS.index(views[0])) == [VIEWS[0::2], VIEWS[1::2]]


def test_one_search_without_the_compiled_kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(SEARCH_ENV, "numpy")
    monkeypatch.setattr(strategy, "COST_THREADS", 2)
    monkeypatch.setattr(strategy.os, "cpu_count", lambda: 8)
    assert strategy._cost_threads(len(VIEWS)) == 1


@needs_numba
def test_cores_and_views_bound_the_searches(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(SEARCH_ENV, "numba")
    monkeypatch.setattr(strategy, "COST_THREADS", 4)
    monkeypatch.setattr(strategy.os, "cpu_count", lambda: 1)
    assert strategy._cost_threads(len(VIEWS)) == 1
    monkeypatch.setattr(strategy.os, "cpu_count", lambda: 8)
    assert strategy._cost_threads(len(VIEWS)) == 4
    assert strategy._cost_threads(2) == 2


@needs_numba
def test_a_failure_in_a_search_thread_reaches_the_caller(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(SEARCH_ENV, "numba")
    monkeypatch.setattr(strategy, "COST_THREADS", 2)
    monkeypatch.setattr(strategy.os, "cpu_count", lambda: 2)
    original = TwoPhaseSearch.solutions

    def failing(self: TwoPhaseSearch, every: bool = False) -> Iterator[Found]:
        if self.views[0] != VIEWS[0]:  # only the search in the second thread
            raise MemoryError("no room for the search's buffers")
        return original(self, every)

    monkeypatch.setattr(TwoPhaseSearch, "solutions", failing)
    with pytest.raises(MemoryError, match="buffers"):
        solve(Cube.random(3, 78), cost=_rig_time, timeout=0.2)


def test_a_work_budget_collects_the_same_candidates_every_time() -> None:
    cube = Cube.random(3, 79)
    first = strategy.cost_candidates(cube, work_limit=150_000, searches=2)
    assert first and all(cube.apply(moves).is_solved for moves in first)
    assert strategy.cost_candidates(cube, work_limit=150_000, searches=2) == first


@pytest.mark.parametrize("options", [{"work_limit": 0}, {"work_limit": 10, "searches": 0}])
def test_a_work_budget_below_one_is_refused(options: dict) -> None:
    with pytest.raises(ValueError, match="work_limit"):
        strategy.cost_candidates(Cube.random(3, 80), **options)
