"""``cubebot solve`` from photos, a scramble or standard input; moves typed where facelets go."""

from __future__ import annotations

import io
import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from cubebot.cli import main
from cubebot.render import net_image, solution_steps
from cubebot.solver import Cube, parse_moves
from cubebot.vision import SyntheticCamera


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def moves_line(out: str) -> str:
    """Return the printed moves: the line after the scan's "margin ..." line."""
    lines = out.splitlines()
    return lines[next(i for i, line in enumerate(lines) if line.startswith("margin")) + 1]


@pytest.fixture(scope="module")
def photographed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Cube]:
    """Return a folder of six photos of a virtual scrambled cube, and that cube."""
    cube = Cube.random(3, seed=11)
    folder = tmp_path_factory.mktemp("photos")
    with SyntheticCamera(cube, seed=11) as camera:
        for face in "URFDLB":
            cv2.imwrite(str(folder / f"{face}.png"), camera.read_face(face))
    return folder, cube


def test_solve_from_photos_prints_the_net_and_moves_that_solve_it(
        capsys: pytest.CaptureFixture[str], photographed: tuple[Path, Cube]) -> None:
    folder, cube = photographed
    status, out, _ = run(capsys, "solve", "--images", str(folder), "--no-profile")
    assert status == 0
    assert out.splitlines()[0] == cube.facelets
    assert cube.apply(parse_moves(moves_line(out))).is_solved


def test_solve_from_photos_as_json_carries_the_scans_confidences(
        capsys: pytest.CaptureFixture[str], photographed: tuple[Path, Cube]) -> None:
    folder, cube = photographed
    status, out, _ = run(capsys, "solve", "--images", str(folder), "--no-profile", "--json")
    assert status == 0
    data = json.loads(out)
    assert data["facelets"] == cube.facelets
    assert data["length"] == len(parse_moves(data["moves"]))
    assert cube.apply(data["moves"]).is_solved
    assert len(data["confidence"]) == 54 and all(0 <= c <= 1 for c in data["confidence"])
    assert data["margin"] > 0


def test_save_steps_writes_the_net_before_and_after_each_move(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    cube = Cube.solved().apply("R U F'")
    status, out, _ = run(capsys, "solve", cube.facelets, "--save-steps", str(tmp_path))
    assert status == 0
    moves = parse_moves(out.splitlines()[0])
    pictures = sorted(tmp_path.glob("*.png"))
    assert [p.name for p in pictures][0] == "00-start.png"
    assert len(pictures) == len(moves) + 1
    last = cv2.imread(str(pictures[-1]))
    # the last picture is the solved net under its title band
    solved = net_image(Cube.solved().facelets)
    assert np.array_equal(last[-solved.shape[0]:], solved)


def test_steps_follow_the_moves_to_solved() -> None:
    cube = Cube.solved(2).apply("R U2 F'")
    moves = parse_moves("F U2 R'")
    steps = solution_steps(cube, moves)
    assert [facelets for _, facelets in steps] == [
        cube.turned_facelets(moves[:k]) for k in range(len(moves) + 1)]
    assert Cube(steps[-1][1]).is_solved
    assert steps[1][0] == "after move 1 of 3: F, next U2"


@pytest.mark.parametrize("size", ["2", "3"])
def test_solve_a_scramble_solves_the_cube_it_makes(capsys: pytest.CaptureFixture[str],
                                                   size: str) -> None:
    scramble = "R U R' U' F2 D L' B2"
    status, out, _ = run(capsys, "solve", "--scramble", scramble, "--size", size, "--json")
    assert status == 0
    data = json.loads(out)
    made = Cube.solved(int(size)).apply(scramble)
    assert data["facelets"] == made.facelets and data["size"] == int(size)
    assert made.apply(data["moves"]).is_solved


def test_a_dash_reads_facelets_from_standard_input(capsys: pytest.CaptureFixture[str],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    cube = Cube.random(3, seed=5)
    # the first line of `cubebot scan` or `apply` (a net follows it)
    monkeypatch.setattr("sys.stdin", io.StringIO(f"{cube.facelets}\n{cube}\n"))
    status, out, _ = run(capsys, "solve", "-")
    assert status == 0
    assert cube.apply(parse_moves(out)).is_solved


def test_a_dash_reads_the_facelets_of_scan_json(capsys: pytest.CaptureFixture[str],
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    cube = Cube.random(2, seed=5)
    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps({"facelets": cube.facelets,
                                                             "margin": 3.0})))
    status, out, _ = run(capsys, "solve", "-")
    assert status == 0
    assert cube.apply(parse_moves(out)).is_solved


def test_scramble_dash_reads_moves_from_standard_input(capsys: pytest.CaptureFixture[str],
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("R U F'\n"))
    status, out, _ = run(capsys, "solve", "--scramble", "-")
    assert status == 0
    assert Cube.solved().apply("R U F'").apply(parse_moves(out)).is_solved


def test_a_dash_on_an_empty_input_says_what_was_expected(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    status, _, err = run(capsys, "solve", "-")
    assert status == 2
    assert "standard input was empty: expected a facelet string" in err


def test_moves_where_facelets_go_point_to_scramble_and_apply(
        capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "solve", "R U R' U' F2 D L' B2")
    assert status == 2 and out == ""
    assert "looks like moves" in err
    assert "cubebot solve --scramble \"R U R' U' F2 D L' B2\"" in err
    assert "cubebot apply \"R U R' U' F2 D L' B2\"" in err
    assert "got 13" not in err


def test_a_facelet_string_with_wrong_counts_keeps_its_own_error(
        capsys: pytest.CaptureFixture[str]) -> None:
    # 54 face letters parse as moves too, but they are plainly meant as facelets
    text = Cube.solved().facelets[:-1] + "U"
    status, _, err = run(capsys, "solve", text)
    assert status == 2
    assert "looks like moves" not in err and "appears 10 times" in err


def test_solve_from_real_photos_prints_moves_that_solve_the_scanned_cube(
        capsys: pytest.CaptureFixture[str], shared_data: Path) -> None:
    folder = shared_data / "photos" / "3x3x3-random-01-c1be101a"
    status, out, _ = run(capsys, "solve", "--images", str(folder), "--no-profile", "--json")
    assert status == 0
    data = json.loads(out)
    assert Cube(data["facelets"]).apply(data["moves"]).is_solved
    assert data["length"] > 0 and len(data["confidence"]) == 54


def test_solve_from_two_corner_photos_solves_the_cube_they_show(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    from cubebot.vision import Conditions
    from cubebot.vision.scene import CornerCamera, Pose

    cube = Cube.random(3, 11)
    photos = []
    for name, corner, seed in (("a.png", "DLB", 5), ("b.png", "URF", 6)):
        camera = CornerCamera(cube, Pose.hand(corner), seed=seed,
                              conditions=Conditions.moderate())
        photos.append(str(tmp_path / name))
        cv2.imwrite(photos[-1], camera.read())
    status, out, _ = run(capsys, "solve", "--corner-photos", *photos, "--no-profile", "--json")
    assert status == 0
    data = json.loads(out)
    assert data["facelets"] == cube.facelets and cube.apply(data["moves"]).is_solved
    assert data["stickers_per_photo"].keys() == {"a.png", "b.png"}


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("from_pictures", [True, False])
def test_a_window_steps_through_the_moves_of_a_cube_read_from_pictures(
        monkeypatch: pytest.MonkeyPatch, photographed: tuple[Path, Cube],
        from_pictures: bool) -> None:
    folder, cube = photographed
    shown: list[tuple[str, str]] = []
    monkeypatch.setattr("cubebot.vision.has_display", lambda: True)
    monkeypatch.setattr("cubebot.render.show_steps",
                        lambda start, moves: shown.append((start.facelets, " ".join(
                            str(m) for m in moves))))
    out = _Terminal()
    monkeypatch.setattr("sys.stdout", out)
    given = ["--images", str(folder), "--no-profile"] if from_pictures else [cube.facelets]
    assert main(["solve", *given]) == 0
    if from_pictures:
        assert len(shown) == 1 and shown[0][0] == cube.facelets
        assert cube.apply(shown[0][1]).is_solved
        # the moves are printed before the window opens
        assert shown[0][1] in out.getvalue() and "the steps are in a window" in out.getvalue()
    else:
        assert shown == []  # a typed cube opens no window


def test_the_step_window_goes_forward_back_and_closes(monkeypatch: pytest.MonkeyPatch) -> None:
    from cubebot import render

    keys = iter([ord(" "), ord("b"), ord(" "), ord(" "), ord("q")])
    titles: list[str] = []

    class FakeCv2:
        WINDOW_AUTOSIZE = WND_PROP_VISIBLE = 0

        @staticmethod
        def namedWindow(name: str, flags: int) -> None: ...

        @staticmethod
        def imshow(name: str, image: np.ndarray) -> None:
            titles.append(str(len(titles)))

        @staticmethod
        def waitKey(delay: int) -> int:
            return next(keys)

        @staticmethod
        def getWindowProperty(name: str, prop: int) -> float:
            return 1.0

        @staticmethod
        def destroyWindow(name: str) -> None:
            titles.append("closed")

    shown: list[str] = []
    monkeypatch.setitem(__import__("sys").modules, "cv2", FakeCv2)
    monkeypatch.setattr(render, "step_image", lambda facelets, title: shown.append(title))
    render.show_steps(Cube.solved().apply("R U"), parse_moves("U' R'"))
    assert [t.split(":")[0] for t in shown] == [
        "start", "after move 1 of 2", "start", "after move 1 of 2", "after move 2 of 2"]
    assert titles[-1] == "closed"
