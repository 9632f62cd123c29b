"""Scanning by the robot: the actions that show every sticker to an action rig's one camera.

An action rig has one fixed camera (the model's ``camera``: the position it sees, the switch
positions it needs). :func:`plan_scan` finds actions that bring the cube's stickers in front
of it, one look after another, each look chosen as the one that shows the most new stickers
per second of robot time (a cost-bounded search over the rig's states from where the last look
left it; reorienting the whole cube first, layer turns where reorienting cannot show a sticker,
as on a rig whose grippers hold two faces in place), and ends with the mechanism back at home
so that the solve is planned from there. Stickers no look can show (centres under a gripper)
are listed as ``hidden``: the mounting and the cube's rules supply them, never a guess.

Every look says which of the cube's stickers (facelet indices of the cube as it was scanned)
the camera sees at each position of its picture, so a reading maps straight back to the cube;
layer turns made while scanning are in ``moves`` (cube frame) and ``cube_after`` applies them.
"""

from __future__ import annotations

import heapq
import itertools
import logging
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable, Sequence

from cubebot.robot.actions.action import Action
from cubebot.robot.actions.definition import ActionModel
from cubebot.robot.actions.machine import Outcome, Setting, possible_actions, start_setting
from cubebot.robot.actions.orientation import START, Orientation
from cubebot.robot.errors import RigModelError
from cubebot.solver.geometry import check_size, move_permutation
from cubebot.solver.notation import FACE_LETTERS, Move

__all__ = ["ScanLook", "ScanPlan", "plan_scan", "plan_look_again", "homing_actions"]

log = logging.getLogger(__name__)

#: States a search for the next look may visit before it settles for the best found.
_SEARCH_NODES = 600


@dataclass(frozen=True)
class ScanLook:
    """One picture: the actions made before it, and the cube sticker at each picture position
    (facelet order of the position the camera sees)."""

    actions: tuple[Action, ...]
    stickers: tuple[int, ...]


@dataclass(frozen=True)
class ScanPlan:
    """The looks of a scan, the actions that bring the rig home after them, the robot time
    (actions and frames, by the model), the stickers no look shows, the layer turns made (in
    the cube's frame), the orientation the cube is left in, and the cube sticker then at each
    rig position (``where``, facelet order)."""

    looks: tuple[ScanLook, ...]
    finish: tuple[Action, ...]
    seconds: float
    hidden: tuple[int, ...]
    moves: tuple[Move, ...]
    orientation: Orientation
    where: tuple[int, ...] = ()

    @property
    def actions(self) -> list[str]:
        """Return every action of the scan in order, as strings."""
        done = [str(a) for look in self.looks for a in look.actions]
        return done + [str(a) for a in self.finish]


@dataclass(frozen=True)
class _Node:
    setting: Setting
    where: tuple[int, ...]  # the cube sticker at each rig position (facelet order)
    orientation: Orientation
    moves: tuple[Move, ...]  # layer turns so far, in the cube's frame


def _step(model: ActionModel, node: _Node, action: Action, outcome: Outcome,
          size: int) -> _Node:
    where, orientation, moves = list(node.where), node.orientation, list(node.moves)
    for move in outcome.moves:
        if move.is_rotation:
            orientation = orientation.rotated(move)
        else:
            moves.append(Move(node.orientation.face_at(move.name), move.turns))
    for move in outcome.moves:
        perm = move_permutation(move, size)
        where = [where[i] for i in perm]
    return _Node(outcome.setting, tuple(where), orientation, tuple(moves))


def _can_see(model: ActionModel, setting: Setting) -> bool:
    positions = {s.name: p for s, p in zip(model.switches, setting.switches)}
    return all(positions.get(s) == p for s, p in model.camera.needs)


def _seen(model: ActionModel, node: _Node, size: int) -> tuple[int, ...]:
    first = FACE_LETTERS.index(model.camera.sees) * size * size
    return node.where[first:first + size * size]


def _next_look(model: ActionModel, start: _Node, size: int,
               gain: Callable[[tuple[int, ...]], int]
               ) -> tuple[float, list[tuple[Action, Outcome]], _Node] | None:
    """Return the cost, actions and node of the look whose ``gain`` (of the stickers the
    camera would see, in picture order) per second is highest; None when no look gains."""
    tick = itertools.count()
    heap: list[tuple[float, int, _Node, list[tuple[Action, Outcome]]]] = [(0.0, 0, start, [])]
    visited: set[tuple[Setting, tuple[int, ...]]] = set()
    best: tuple[float, float, list[tuple[Action, Outcome]], _Node] | None = None
    while heap and len(visited) < _SEARCH_NODES:
        cost, _, node, path = heapq.heappop(heap)
        key = (node.setting, node.where)
        if key in visited:
            continue
        visited.add(key)
        if best is not None and (size * size) / (cost + model.camera.seconds) <= best[0]:
            break  # even a look of all new stickers from here shows fewer per second
        if path and _can_see(model, node.setting):
            new = gain(_seen(model, node, size))
            if new:
                spent = cost + model.camera.seconds
                if best is None or new / spent > best[0]:
                    best = (new / spent, spent, path, node)
        for action, outcome in possible_actions(model, node.setting):
            following = _step(model, node, action, outcome, size)
            if (following.setting, following.where) not in visited:
                heapq.heappush(heap, (cost + outcome.seconds, next(tick), following,
                                      path + [(action, outcome)]))
    if best is None:
        return None
    return best[1] - model.camera.seconds, best[2], best[3]


def _looks_until(model: ActionModel, node: _Node, size: int, wanted: set[int],
                 covered: set[int], new: Callable[[tuple[int, ...]], set[int]]
                 ) -> tuple[list[ScanLook], float, _Node]:
    """Return looks, one after another, each the one whose ``new`` stickers (of those the
    camera would see, in picture order) per second are most, until ``covered`` (updated in
    place) holds every ``wanted`` sticker or no look shows a new one; with their seconds and
    the node the last leaves."""
    looks: list[ScanLook] = []
    seconds = 0.0
    while covered != wanted:
        found = _next_look(model, node, size, lambda shown: len(new(shown)))
        if found is None:
            break
        cost, path, node = found
        shown = _seen(model, node, size)
        covered.update(new(shown))
        looks.append(ScanLook(tuple(a for a, _ in path), shown))
        seconds += cost + model.camera.seconds
    return looks, seconds, node


def _home(model: ActionModel, start: _Node, size: int) -> tuple[float, list[Action], _Node]:
    """Return the cheapest actions that bring the mechanism home without turning a layer."""
    home = start_setting(model)
    tick = itertools.count()
    heap: list[tuple[float, int, _Node, list[Action]]] = [(0.0, 0, start, [])]
    visited: set[Setting] = set()
    while heap:
        cost, _, node, path = heapq.heappop(heap)
        if node.setting in visited:
            continue
        visited.add(node.setting)
        if node.setting.joints == home.joints and node.setting.switches == home.switches:
            return cost, path, node
        for action, outcome in possible_actions(model, node.setting):
            if not outcome.turns_layers:
                heapq.heappush(heap, (cost + outcome.seconds, next(tick),
                                      _step(model, node, action, outcome, size), path + [action]))
    raise RigModelError(f"{model.source}: the rig cannot bring its joints home without turning "
                        "a layer; give it a way back (a joint's range, a switch's verbs)")


def homing_actions(model: ActionModel, setting: Setting
                   ) -> tuple[list[Action], Orientation, float]:
    """Return the cheapest actions that bring the mechanism from ``setting`` home without
    turning a layer, the reorientation they make (where a cube starting as ``START`` ends;
    compose with :meth:`Orientation.then`) and their seconds by the model.

    Raises:
        RigModelError: the rig cannot get home without turning a layer.
    """
    start = _Node(setting, tuple(range(54)), START, ())
    seconds, actions, node = _home(model, start, 3)
    return actions, node.orientation, seconds


def plan_scan(model: object, size: int = 3) -> ScanPlan:
    """Return the looks that show an action rig's camera every sticker it can show.

    ``model`` is a :class:`~cubebot.robot.RigModel` of an action kind (or its ActionModel);
    the cube starts in the rig's start orientation with the mechanism at home.

    Raises:
        RigModelError: ``model`` is not an action rig, or cannot return home.
        ValueError: a size other than 2 or 3.
    """
    check_size(size)
    actions = getattr(model, "actions", model)
    if not isinstance(actions, ActionModel):
        name = getattr(model, "name", model)
        raise RigModelError(f"rig model {name!r} turns faces with motors: it has no camera to "
                            "show the cube to; scan it with its fixed cameras or by hand")
    return _plan_scan(actions, size)


@lru_cache(maxsize=None)
def _plan_scan(model: ActionModel, size: int) -> ScanPlan:
    count = 6 * size * size
    node = _Node(start_setting(model), tuple(range(count)), START, ())
    wanted = set(range(count))
    seen: set[int] = set()
    looks: list[ScanLook] = []
    seconds = 0.0
    if _can_see(model, node.setting):
        looks.append(ScanLook((), _seen(model, node, size)))
        seen.update(looks[-1].stickers)
        seconds += model.camera.seconds
    more, spent, node = _looks_until(model, node, size, wanted, seen,
                                     lambda shown: wanted.intersection(shown) - seen)
    looks += more
    seconds += spent
    cost, finish, node = _home(model, node, size)
    hidden = tuple(sorted(wanted - seen))
    log.info("%s: scan in %d looks, %.2f s, %d hidden", model.source, len(looks),
             seconds + cost, len(hidden))
    return ScanPlan(tuple(looks), tuple(finish), round(seconds + cost, 6), hidden, node.moves,
                    node.orientation, node.where)


def plan_look_again(model: object, before: Sequence[ScanPlan], stickers: Sequence[int],
                    size: int = 3, *, new_place: bool = True) -> ScanPlan:
    """Return looks that show each of ``stickers`` at a picture position it was not seen at
    (with ``new_place`` False: in a new picture, anywhere; for a look that found no grid).

    A lamp fixed beside the camera puts its glare spot and shadow at the same place of every
    picture, so a sticker read in doubt there is read anew only at another place. ``before``
    are the plans the rig has followed since the scan began (the scan's own first, each
    ending with the mechanism home); the new looks start where the last left the cube and end
    with the mechanism home again. Their ``moves`` are the layer turns they add (cube frame,
    after the earlier plans'), ``hidden`` the stickers asked for that no look could show at a
    new place (a centre stays in the middle of every picture). Stickers are facelet indices
    of the cube as it was scanned.

    Raises:
        RigModelError: ``model`` is not an action rig, ``before`` is empty, or the rig cannot
            return home.
        ValueError: a size other than 2 or 3.
    """
    check_size(size)
    actions = getattr(model, "actions", model)
    if not isinstance(actions, ActionModel) or not before:
        raise RigModelError("looking again needs an action rig's model and the scan plan it "
                            "followed")
    shown_at: dict[int, set[int]] = {}
    for plan in before:
        for look in plan.looks:
            for place, sticker in enumerate(look.stickers):
                shown_at.setdefault(sticker, set()).add(place)
    last = before[-1]
    node = _Node(start_setting(actions), last.where, last.orientation, ())
    wanted = {int(i) for i in stickers}
    found_again: set[int] = set()

    def new(shown: tuple[int, ...]) -> set[int]:
        return {sticker for place, sticker in enumerate(shown) if sticker in wanted
                and sticker not in found_again
                and not (new_place and place in shown_at.get(sticker, ()))}

    looks, seconds, node = _looks_until(actions, node, size, wanted, found_again, new)
    cost, finish, node = _home(actions, node, size)
    log.info("%s: looking again in %d looks, %.2f s; %d of %d stickers shown at a new place",
             actions.source, len(looks), seconds + cost, len(found_again), len(wanted))
    return ScanPlan(tuple(looks), tuple(finish), round(seconds + cost, 6),
                    tuple(sorted(wanted - found_again)), node.moves, node.orientation, node.where)
