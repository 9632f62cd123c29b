"""Progress of table builds and long searches: drawn on a terminal, logged elsewhere."""

from __future__ import annotations

import io
import logging
import random

import pytest

from cubebot.solver.progress import Progress, SearchProgress, break_status_line


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_search_progress_draws_depth_nodes_and_rate_on_a_terminal() -> None:
    screen = _Terminal()
    with SearchProgress("optimal search", stream=screen) as progress:
        progress.update(12, 3_500_000)
    text = screen.getvalue()
    assert "optimal search: depth 12, 3.5M nodes" in text and "M nodes/s" in text
    assert text.endswith("\n")


def test_a_message_from_elsewhere_starts_below_the_bar_and_the_bar_goes_on() -> None:
    # the stop's "stopping after the turn in progress" comes from another thread while the
    # stream's bar is drawn in place on the same terminal
    screen = _Terminal()
    with Progress("streaming", 10, stream=screen) as bar:
        bar.update(4)
        break_status_line()
        screen.write("cubebot: stopping after the turn in progress\n")
        bar.update(6)
    lines = screen.getvalue().split("\n")
    assert lines[0].startswith("\rstreaming [")  # the bar as it stood
    assert lines[1] == "cubebot: stopping after the turn in progress"
    assert lines[2].startswith("\rstreaming [") and "100%" in lines[2]
    assert lines[3:] == [""]  # one end of line after the bar, not two
    break_status_line()  # no bar drawn now: nothing is written
    assert screen.getvalue().count("\n") == 3


def test_search_progress_logs_each_finished_depth_off_a_terminal(
        caplog: pytest.LogCaptureFixture) -> None:
    quiet = io.StringIO()
    with caplog.at_level(logging.INFO, logger="cubebot.solver.progress"):
        with SearchProgress("optimal search", stream=quiet) as progress:
            progress.update(11, 100)
            progress.update(12, 5000)
    assert quiet.getvalue() == ""
    assert any("depth 11 done, 5000 nodes" in r.getMessage() for r in caplog.records)


def test_a_long_optimal_search_reports_its_nodes(caplog: pytest.LogCaptureFixture) -> None:
    from cubebot.solver import Cube
    from cubebot.solver.cube3.optimal import OptimalSearch
    from cubebot.solver.notation import FACE_MOVES

    rng = random.Random(9)
    cube = Cube.solved().apply(tuple(rng.choice(FACE_MOVES) for _ in range(10)))
    with caplog.at_level(logging.INFO, logger="cubebot.solver.cube3.optimal"):
        search = OptimalSearch(cube.cubies)
        found = search.search(10)
    assert found is not None and cube.apply(found).is_solved
    record = next(r for r in caplog.records if hasattr(r, "nodes"))
    assert getattr(record, "nodes") == search.nodes > 0
