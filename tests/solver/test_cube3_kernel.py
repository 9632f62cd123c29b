"""The compiled (numba) 3x3 search and the NumPy one give the same answers, node for node."""

from __future__ import annotations

import importlib.util
import itertools
import os
import random
import subprocess
import sys

import pytest

from cubebot.solver import Cube, solve
from cubebot.solver.cube3 import twophase
from cubebot.solver.cube3.twophase import SEARCH_ENV, search_kernel
from cubebot.solver.notation import FACE_MOVES

needs_numba = pytest.mark.skipif(importlib.util.find_spec("numba") is None,
                                 reason="numba is not installed: only the NumPy search runs")


def _solve_with(monkeypatch: pytest.MonkeyPatch, search: str, cube: Cube, **options: object):
    monkeypatch.setenv(SEARCH_ENV, search)
    return solve(cube, **options)


@needs_numba
@pytest.mark.parametrize("seed", [*range(5), *(pytest.param(seed, marks=pytest.mark.slow)
                                              for seed in range(5, 20))])
def test_compiled_and_numpy_searches_give_the_same_solution(
        monkeypatch: pytest.MonkeyPatch, seed: int) -> None:
    cube = Cube.random(3, 1000 + seed)
    numpy_answer = _solve_with(monkeypatch, "numpy", cube)
    compiled_answer = _solve_with(monkeypatch, "numba", cube)
    assert compiled_answer.moves == numpy_answer.moves
    assert cube.apply(compiled_answer.moves).is_solved


@needs_numba
@pytest.mark.parametrize("options", [{"faces": "URFDL"}, {"max_length": 19}])
def test_compiled_and_numpy_searches_agree_with_options(
        monkeypatch: pytest.MonkeyPatch, options: dict) -> None:
    for seed in range(3):
        cube = Cube.random(3, 2000 + seed)
        assert (_solve_with(monkeypatch, "numba", cube, **options).moves
                == _solve_with(monkeypatch, "numpy", cube, **options).moves)


@needs_numba
@pytest.mark.parametrize("length", [4, 6, 7, 8])
def test_compiled_and_numpy_short_optimal_searches_agree(
        monkeypatch: pytest.MonkeyPatch, length: int) -> None:
    rng = random.Random(length)
    for _ in range(5):
        cube = Cube.solved().apply(tuple(rng.choice(FACE_MOVES) for _ in range(length)))
        numpy_answer = _solve_with(monkeypatch, "numpy", cube)
        compiled_answer = _solve_with(monkeypatch, "numba", cube)
        assert compiled_answer.moves == numpy_answer.moves
        assert compiled_answer.optimal == numpy_answer.optimal


@needs_numba
def test_auto_runs_the_compiled_search_from_the_second_solve(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(SEARCH_ENV, raising=False)
    monkeypatch.setattr(twophase, "_solves_prepared", 0)
    assert search_kernel() is None
    monkeypatch.setattr(twophase, "_solves_prepared", twophase.AUTO_COMPILED_FROM)
    kernel = search_kernel()
    assert kernel is not None and kernel.__name__.endswith("cube3.kernel")


@needs_numba
def test_a_process_that_solves_once_does_not_load_numba() -> None:
    probe = ("import sys, os; os.environ.pop('CUBEBOT_SEARCH', None)\n"
             "from cubebot.solver import Cube, solve\n"
             "solve(Cube.random(3, 1)); print('numba' in sys.modules)\n"
             "solve(Cube.random(3, 2)); print('numba' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          check=True)
    assert done.stdout.split() == ["False", "True"]


def test_numpy_search_is_chosen_on_request(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(SEARCH_ENV, "numpy")
    assert search_kernel() is None


def test_unknown_search_choice_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(SEARCH_ENV, "fortran")
    with pytest.raises(ValueError, match="numba, numpy or auto"):
        search_kernel()


def test_without_numba_the_numpy_search_solves(tmp_path) -> None:
    # a fresh interpreter in which "import numba" fails, as on a machine without it
    probe = ("import sys; sys.modules['numba'] = None\n"
             "from cubebot.solver import Cube, solve\n"
             "from cubebot.solver.cube3.twophase import search_kernel\n"
             "cube = Cube.random(3, 7)\n"
             "assert search_kernel() is None\n"
             "assert cube.apply(solve(cube).moves).is_solved\n"
             "print('numba' in sys.modules and sys.modules['numba'] is not None)")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          check=True)
    assert done.stdout.strip() == "False"


def test_importing_the_solver_does_not_import_numba() -> None:
    probe = "import sys; import cubebot.solver.cube3.strategy; print('numba' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          check=True)
    assert done.stdout.strip() == "False"


@needs_numba
def test_compiled_code_is_cached_beside_the_tables(tmp_path) -> None:
    probe = ("import os\n"
             "from cubebot.solver.cube3.twophase import search_kernel\n"
             "search_kernel()\n"
             "print(os.environ['NUMBA_CACHE_DIR'])")
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env.update({"CUBEBOT_CACHE_DIR": str(tmp_path), SEARCH_ENV: "numba"})
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          check=True, env=env)
    assert done.stdout.strip() == str(tmp_path / "numba")


@needs_numba
def test_two_searches_interleaved_in_one_thread_do_not_share_buffers(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from cubebot.solver.cube3.twophase import TwoPhaseSearch
    from cubebot.solver.cube3.views import VIEWS

    monkeypatch.setenv(SEARCH_ENV, "numba")
    cubes = [Cube.random(3, 40 + k).cubies for k in range(2)]

    def stream(k: int):
        """Yield (moves, work so far) of each solution of cube k, nodes counted as it goes."""
        search = TwoPhaseSearch(cubes[k], VIEWS, "URFDLB", bound=24)
        return ((found.moves, search.work) for found in search.solutions())

    alone = [list(itertools.islice(stream(k), 3)) for k in range(2)]
    first, second = stream(0), stream(1)
    together: list[list] = [[], []]
    for _ in range(3):  # one solution of each in turn: each search resumes after the other
        for k, solutions in enumerate((first, second)):
            found = next(solutions, None)
            if found is not None:
                together[k].append(found)
    assert together == alone and len(alone[0]) > 1


@needs_numba
@pytest.mark.parametrize("seed", [0, *(pytest.param(seed, marks=pytest.mark.slow) for seed in (1, 2))])
def test_compiled_and_numpy_long_optimal_searches_agree(
        monkeypatch: pytest.MonkeyPatch, seed: int) -> None:
    from cubebot.solver.cube3.optimal import COMPILED_DEPTH, OptimalSearch

    rng = random.Random(300 + seed)
    cube = Cube.solved().apply(tuple(rng.choice(FACE_MOVES) for _ in range(11)))
    answers, nodes = [], []
    for search in ("numpy", "numba"):
        monkeypatch.setenv(SEARCH_ENV, search)
        optimal = OptimalSearch(cube.cubies)
        answers.append(optimal.search(COMPILED_DEPTH + 3))
        nodes.append(optimal.nodes)
    assert answers[0] is not None and answers[0] == answers[1]
    assert cube.apply(answers[0]).is_solved
    assert min(nodes) > 0


def test_a_long_optimal_search_runs_compiled_only_when_asked(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(SEARCH_ENV, raising=False)
    monkeypatch.setattr(twophase, "_solves_prepared", twophase.AUTO_COMPILED_FROM)
    assert search_kernel(long_search=True) is None
    monkeypatch.setenv(SEARCH_ENV, "numpy")
    assert search_kernel(long_search=True) is None
    if importlib.util.find_spec("numba") is not None:
        monkeypatch.setenv(SEARCH_ENV, "numba")
        assert search_kernel(long_search=True) is not None
