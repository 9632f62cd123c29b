"""The labelled real corner views in tests/data/corner-views: every label is read and checked
against the cube's rules, so a wrong label fails here before it misleads a finder or a colour
model measured on it."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from cubebot.solver import SOLVED_3, Cube
from cubebot.solver.geometry import corner_facelets
from tests.corner_data import (
    CORNER_VIEWS,
    CornerDataError,
    CornerPhoto,
    load_corner_views,
    whole_cube_facelets,
)

def _solved_corners(scheme: str) -> set[tuple[str, str, str]]:
    """Return every corner of the solved cube in a scheme (colours of U R F D L B) as its
    colours clockwise, each way round."""
    colours = "".join(scheme["URFDLB".index(face)] for face in SOLVED_3)
    corners = set()
    for stickers in corner_facelets(3):
        triple = [colours[i] for i in stickers]
        for turn in range(3):
            corners.add(tuple(triple[turn:] + triple[:turn]))
    return corners


@pytest.fixture(scope="module")
def views():
    return load_corner_views()


def _signed_area(points) -> float:
    return sum(x0 * y1 - x1 * y0 for (x0, y0), (x1, y1) in zip(points, points[1:] + points[:1])) / 2


def test_every_photo_is_on_disk_at_its_labelled_size(views):
    assert len(views.photos) >= 90
    for photo in views.photos:
        picture = photo.image()
        assert picture.shape[:2] == (photo.height, photo.width), photo.id


def test_every_source_has_its_licence_beside_its_photos(views):
    for name, source in views.sources.items():
        licence = CORNER_VIEWS / source["licence_file"]
        assert source["licence"].split()[0] in licence.read_text(encoding="utf-8"), name
        assert len(source["commit"]) == 40
        assert all(p.path.parent == licence.parent for p in views.photos if p.source == name)


def test_outline_points_lie_inside_the_image(views):
    for photo in views.photos:
        for x, y in photo.outline.points():
            assert 0 <= x < photo.width and 0 <= y < photo.height, photo.id


def test_each_face_of_an_outline_is_a_convex_quad_clockwise_on_screen(views):
    for photo in views.photos:
        for face in range(3):
            quad = list(photo.outline.face_quad(face))
            # y points down, so clockwise on the screen is a positive signed area
            assert _signed_area(quad) > 0, (photo.id, face)
            for k in range(4):
                corners = quad[k:] + quad[:k]
                assert _signed_area(corners[:3]) > 0, (photo.id, face, "not convex")


def test_the_first_face_has_the_highest_far_corner(views):
    for photo in views.photos:
        far = [photo.outline.hexagon[i][1] for i in (0, 2, 4)]
        assert far[0] == min(far), photo.id


def test_no_photo_shows_more_than_nine_of_a_colour(views):
    for photo in views.photos:
        counts = Counter("".join(photo.stickers))
        assert sum(counts.values()) == 27
        assert max(counts.values()) <= 9, (photo.id, counts)
        assert len(set(photo.centres)) == 3, photo.id


def test_solved_photos_show_one_colour_per_face_and_a_real_corner(views):
    solved = [p for p in views.photos if p.solved]
    assert len(solved) >= 60
    for photo in solved:
        assert all(len(set(face)) == 1 for face in photo.stickers), photo.id
        assert photo.centres in _solved_corners(photo.scheme), (photo.id, photo.centres)


def test_the_corner_at_the_junction_is_a_real_piece_in_clockwise_order(views):
    for photo in views.photos:
        corners = _solved_corners(photo.scheme)
        junction = tuple(face[8] for face in photo.stickers)
        if photo.mirrored:
            assert junction[::-1] in corners, photo.id
        else:
            assert junction in corners, (photo.id, junction)


def test_every_state_is_a_real_cube_that_its_two_photos_show(views):
    assert len(views.states) >= 3
    for state, first, second in views.pairs():
        assert whole_cube_facelets(first.stickers, second.stickers) == state.facelets
        cube = Cube.from_facelets(state.facelets)
        assert not cube.is_solved
        assert Counter(state.facelets) == Counter({colour: 9 for colour in "WYGBRO"})
        assert first.state == second.state == state.id


def test_mirrored_photos_make_no_cube_with_the_opposite_corner(views):
    s2 = views.photo("cubecolor/s2")
    assert whole_cube_facelets(views.photo("cubecolor/s1").stickers, s2.stickers)
    for mirrored in ("cubecolor/s5", "cubecolor/s6"):
        assert views.photo(mirrored).mirrored
        with pytest.raises(CornerDataError, match="no single real cube"):
            whole_cube_facelets(views.photo(mirrored).stickers, s2.stickers)


def test_a_wrong_sticker_label_breaks_its_cube(views):
    state, first, second = views.pairs()[0]
    stickers = list(first.stickers)
    # swap the two stickers of an edge on the first face: an edge no cube has, or a flipped one
    face = stickers[0]
    stickers[0] = face[:5] + face[7] + face[6] + face[5] + face[8]
    with pytest.raises(CornerDataError):
        whole_cube_facelets(stickers, second.stickers)


def test_photos_of_the_same_corner_are_not_a_pair(views):
    with pytest.raises(CornerDataError, match="repeat a colour"):
        whole_cube_facelets(views.photo("cubecolor/s1").stickers, views.photo("cubecolor/c1").stickers)


def test_a_third_is_held_out_and_never_split_within_a_video_or_cube(views):
    share = len(views.held_out().photos) / len(views.photos)
    assert 0.25 <= share <= 0.45
    assert views.held_out().states and views.tuning().states
    for group in ({p.video for p in views.photos if p.video} | {p.state for p in views.photos if p.state}):
        members = [p for p in views.photos if group in (p.video, p.state)]
        assert len({p.held_out for p in members}) == 1, group
    for state in views.states:
        assert all(views.photo(i).held_out == state.held_out for i in state.photos)


def test_sticker_points_lie_inside_their_face(views):
    import cv2
    import numpy as np

    photo = views.photo("cubecolor/s1")
    for face in range(3):
        quad = np.float32(photo.outline.face_quad(face))
        for point in photo.outline.sticker_points(face):
            assert cv2.pointPolygonTest(quad, point, False) > 0


def test_a_malformed_label_is_refused_with_its_photo_named(tmp_path: Path):
    data = json.loads((CORNER_VIEWS / "manifest.json").read_text(encoding="utf-8"))
    data["photos"][0]["stickers"][1] = "WWWWWWWW"
    (tmp_path / "manifest.json").write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(CornerDataError, match=data["photos"][0]["id"]):
        load_corner_views(tmp_path)


def test_an_unknown_photo_id_is_refused(views):
    with pytest.raises(CornerDataError, match="no corner photo"):
        views.photo("cubecolor/s9")
    assert isinstance(views.photo("elfarhan/photo-1"), CornerPhoto)
