"""Fewest-time plans: a face-turn solution as the actions of a rig that turns the cube over.

The search is exact over the rig's state (the cube's orientation x joint angles x switch
positions x the verbs the next action's time depends on), with every action's time given by
the model, previous action and overlaps included. It runs in two levels:

1. Between two layer turns a rig only reorients (flips, spins, regrips). From every setting a
   layer turn can leave the rig in, a Dijkstra search over the reorienting actions finds the
   cheapest way to every (relative orientation, setting), and from there every layer turn the
   rig can make. Reorienting does the same to any orientation, so these tables are computed
   once per model, from the start orientation only.
2. The solution's moves are then taken one group at a time (a move, or two moves of opposite
   faces, which commute) by dynamic programming over (orientation, setting after the turn):
   a group may be done in either order, both at once when the rig has such an action, and a
   half turn as one stroke or two quarter turns with any reorientation between.

Ties in time go to the plan with fewer actions.
"""

from __future__ import annotations

import heapq
import itertools
import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Iterator, Sequence

import numpy as np

from cubebot.robot.actions.action import Action
from cubebot.robot.actions.definition import ActionModel
from cubebot.robot.actions.machine import (
    Outcome,
    RigState,
    Setting,
    advance,
    possible_actions,
    start_setting,
)
from cubebot.robot.actions.orientation import ORIENTATIONS, START, Orientation
from cubebot.robot.errors import RigModelError, UnplannableMoveError
from cubebot.solver.notation import Move, MoveSequence, as_moves, simplify

__all__ = ["ActionPlan", "plan_actions", "planned_seconds", "face_turns"]

_TIE = 1e-9  # seconds added per action, so that equal times go to the shorter plan
_INDEX = {o: i for i, o in enumerate(ORIENTATIONS)}
_THEN = [[_INDEX[g.then(h)] for h in ORIENTATIONS] for g in ORIENTATIONS]
_START = _INDEX[START]

Key = tuple[tuple[str, int], ...]  # the layer turns of one action: (position before it, turns)
Node = tuple[int, Setting]  # (relative orientation index, setting)


@dataclass(frozen=True)
class ActionPlan:
    """A face-turn solution as actions; ``seconds`` is the robot's time by the model.

    ``moves`` are the face turns the plan makes (rotations folded in, same-face turns merged);
    ``end`` is where the cube and the mechanism stand afterwards.
    """

    moves: tuple[Move, ...]
    actions: tuple[Action, ...]
    seconds: float
    end: RigState

    def __len__(self) -> int:
        return len(self.actions)

    def __iter__(self) -> Iterator[Action]:
        return iter(self.actions)

    def __str__(self) -> str:
        return " ".join(str(a) for a in self.actions)

    @property
    def strings(self) -> list[str]:
        """Return the actions as strings (the form other tools read)."""
        return [str(a) for a in self.actions]


def face_turns(moves: MoveSequence) -> tuple[Move, ...]:
    """Return ``moves`` as face turns only: rotations folded into the face names, then merged.

    A rotation in a solution (``y R``) only renames what follows; a rig that turns the cube
    over never needs it, as any end orientation will do.

    Raises:
        InvalidMoveError: text that does not parse.
    """
    orientation = START
    turns = []
    for move in as_moves(moves):
        if move.is_rotation:
            orientation = orientation.rotated(move)
        else:
            turns.append(Move(orientation.face_at(move.name), move.turns))
    return simplify(turns)


def _groups(moves: Sequence[Move]) -> list[tuple[Move, ...]]:
    groups: list[tuple[Move, ...]] = []
    for move in moves:
        if groups and len(groups[-1]) == 1 and groups[-1][0].face == move.face.opposite:
            groups[-1] = groups[-1] + (move,)
        else:
            groups.append((move,))
    return groups


@dataclass
class _Transition:
    """One step of the dynamic programme: entries from a state to a state, sorted by target."""

    src: np.ndarray
    dst: np.ndarray
    cost: np.ndarray
    ref: np.ndarray
    targets: np.ndarray
    starts: np.ndarray

    def apply(self, layer: np.ndarray) -> np.ndarray:
        result = np.full(layer.shape, math.inf)
        if len(self.src):
            result[self.targets] = np.minimum.reduceat(layer[self.src] + self.cost, self.starts)
        return result


class _Tables:
    """The model's reorientation searches and layer-turn entries (see the module doc)."""

    def __init__(self, model: ActionModel) -> None:
        self.model = model
        self.boundaries: list[Setting] = [start_setting(model)]
        self._boundary_index = {self.boundaries[0]: 0}
        self.parents: list[dict[Node, tuple[Node, Action]]] = []
        # per boundary: key -> {(relative orientation, next boundary): (cost, ref)}
        self.entries: list[dict[Key, dict[tuple[int, int], tuple[float, int]]]] = []
        self.refs: list[tuple[int, Node, Action]] = []
        while len(self.parents) < len(self.boundaries):
            self._search(len(self.parents))
        self._transitions: dict[Key, _Transition] = {}

    def _search(self, boundary: int) -> None:
        start: Node = (_START, self.boundaries[boundary])
        dist = {start: 0.0}
        parents: dict[Node, tuple[Node, Action]] = {}
        entries: dict[Key, dict[tuple[int, int], tuple[float, int]]] = {}
        heap = [(0.0, 0, start)]
        tick = itertools.count(1)
        while heap:
            cost, _, node = heapq.heappop(heap)
            if cost > dist[node]:
                continue
            relative, setting = node
            for action, outcome in possible_actions(self.model, setting):
                total = cost + outcome.seconds + _TIE
                if outcome.turns_layers:
                    self._add_entry(entries, boundary, node, action, outcome, total)
                    continue
                orientation = ORIENTATIONS[relative]
                for move in outcome.moves:
                    orientation = orientation.rotated(move)
                target = (_INDEX[orientation], outcome.setting)
                if total < dist.get(target, math.inf):
                    dist[target] = total
                    parents[target] = (node, action)
                    heapq.heappush(heap, (total, next(tick), target))
        self.parents.append(parents)
        self.entries.append(entries)

    def _add_entry(self, entries: dict[Key, dict[tuple[int, int], tuple[float, int]]],
                   boundary: int, node: Node, action: Action, outcome: Outcome,
                   total: float) -> None:
        if any(m.is_rotation for m in outcome.moves):
            raise RigModelError(f"{self.model.source}: {action} both turns the cube and a layer;"
                                " give each its own action")
        orientation = ORIENTATIONS[node[0]]
        key = tuple(sorted((orientation.face_at(m.name), m.turns) for m in outcome.moves))
        after = self._boundary_index.get(outcome.setting)
        if after is None:
            after = self._boundary_index[outcome.setting] = len(self.boundaries)
            self.boundaries.append(outcome.setting)
        slot = entries.setdefault(key, {})
        best = slot.get((node[0], after))
        if best is None or total < best[0]:
            slot[(node[0], after)] = (total, len(self.refs))
            self.refs.append((boundary, node, action))

    def transition(self, turns: Key) -> _Transition:
        """Return the step that makes the face turns ``turns`` (cube faces) in one action."""
        found = self._transitions.get(turns)
        if found is not None:
            return found
        n = len(self.boundaries)
        rows: list[tuple[int, int, float, int]] = []
        for g, orientation in enumerate(ORIENTATIONS):
            key = tuple(sorted((orientation.position_of(face), k) for face, k in turns))
            for b, entries in enumerate(self.entries):
                for (h, after), (cost, ref) in entries.get(key, {}).items():
                    rows.append((g * n + b, _THEN[g][h] * n + after, cost, ref))
        rows.sort(key=lambda r: r[1])
        dst = np.array([r[1] for r in rows], dtype=np.int64)
        targets, starts = np.unique(dst, return_index=True)
        found = _Transition(np.array([r[0] for r in rows], dtype=np.int64), dst,
                            np.array([r[2] for r in rows], dtype=np.float64),
                            np.array([r[3] for r in rows], dtype=np.int64), targets, starts)
        self._transitions[turns] = found
        return found

    def path(self, ref: int) -> list[Action]:
        """Return the actions of one entry: the reorientation, then the layer turn."""
        boundary, node, action = self.refs[ref]
        parents = self.parents[boundary]
        actions = [action]
        while node in parents:
            node, previous = parents[node]
            actions.append(previous)
        return actions[::-1]


@lru_cache(maxsize=16)
def _tables(model: ActionModel) -> _Tables:
    return _Tables(model)


Chain = tuple[tuple[tuple[str, int], ...], ...]


def _move_chains(move: Move) -> list[Chain]:
    face = move.name
    chains: list[Chain] = [(((face, move.turns),),)]
    if move.turns == 2:
        chains += [(((face, 1),), ((face, 1),)), (((face, 3),), ((face, 3),))]
    return chains


def _group_chains(group: tuple[Move, ...]) -> list[Chain]:
    if len(group) == 1:
        return _move_chains(group[0])
    first, second = _move_chains(group[0]), _move_chains(group[1])
    chains = [a + b for a in first for b in second] + [b + a for a in first for b in second]
    chains.append((tuple((m.name, m.turns) for m in group),))
    return chains


class _Programme:
    """The dynamic programme over one solution's groups, kept for reading the plan back."""

    def __init__(self, tables: _Tables, moves: tuple[Move, ...], lookahead: bool = True) -> None:
        self.tables = tables
        self.groups = _groups(moves)
        n = len(tables.boundaries)
        layer = np.full(len(ORIENTATIONS) * n, math.inf)
        layer[_START * n] = 0.0
        self.layers = [layer]
        self.memo: list[dict[Chain, np.ndarray]] = []
        for group in self.groups:
            memo: dict[Chain, np.ndarray] = {(): layer}
            results = [self._through(memo, chain) for chain in _group_chains(group)]
            layer = np.minimum.reduce(results)
            if not lookahead:
                # keep only the cheapest state: the best any move-by-move rule can do
                kept = np.full(layer.shape, math.inf)
                kept[int(layer.argmin())] = layer.min()
                layer = kept
            self.memo.append(memo)
            self.layers.append(layer)

    def _through(self, memo: dict[Chain, np.ndarray], chain: Chain) -> np.ndarray:
        found = memo.get(chain)
        if found is None:
            before = self._through(memo, chain[:-1])
            found = memo[chain] = self.tables.transition(chain[-1]).apply(before)
        return found

    @property
    def best(self) -> float:
        return float(self.layers[-1].min())

    def refs(self) -> tuple[list[int], int]:
        """Return the entries of the best plan, in order, and its end state's index."""
        state = int(self.layers[-1].argmin())
        end = state
        refs: list[int] = []
        for index in range(len(self.groups) - 1, -1, -1):
            memo, target = self.memo[index], self.layers[index + 1][state]
            chain = next(c for c in _group_chains(self.groups[index])
                         if math.isclose(memo[c][state], target, abs_tol=1e-11))
            for step in range(len(chain), 0, -1):
                transition = self.tables.transition(chain[step - 1])
                before, value = memo[chain[:step - 1]], memo[chain[:step]][state]
                hits = np.nonzero((transition.dst == state) & np.isclose(
                    before[transition.src] + transition.cost, value, rtol=0, atol=1e-11))[0]
                state = int(transition.src[hits[0]])
                refs.append(int(transition.ref[hits[0]]))
        return refs[::-1], end


def _checked_tables(model: object) -> _Tables:
    actions = getattr(model, "actions", model)
    if not isinstance(actions, ActionModel):
        name = getattr(model, "name", model)
        raise UnplannableMoveError(f"rig model {name!r} turns faces with motors: plan its moves "
                                   "with cubebot.robot.plan, not as actions")
    return _tables(actions)


def planned_seconds(moves: MoveSequence, model: object) -> float:
    """Return the robot time of the fastest plan of ``moves`` (``math.inf`` if there is none).

    The same search as :func:`plan_actions` without reading the plan back: cheap enough to
    rank many candidate solutions.

    Raises:
        UnplannableMoveError: ``model`` is not an action rig.
    """
    programme = _Programme(_checked_tables(model), face_turns(moves))
    return round(programme.best, 6)  # the tie-break is far below a microsecond


def plan_actions(moves: MoveSequence, model: object, *, lookahead: bool = True) -> ActionPlan:
    """Return the fewest-time actions that make ``moves`` on an action rig (exact; see above).

    ``model`` is a :class:`~cubebot.robot.RigModel` of an action kind (or its ActionModel).
    The cube starts in the rig's start orientation and may end in any. With
    ``lookahead=False`` each group of moves is made in the fastest way from where the last one
    left the rig, without regard to what follows: the best a move-by-move rule can do, kept
    as a baseline for the benchmark.

    Raises:
        UnplannableMoveError: ``model`` is not an action rig, or it cannot make some move.
        InvalidMoveError: ``moves`` is text that does not parse.
    """
    tables = _checked_tables(model)
    turns = face_turns(moves)
    programme = _Programme(tables, turns, lookahead)
    if math.isinf(programme.best):
        raise UnplannableMoveError(f"{tables.model.source}: the rig cannot make these moves "
                                   "(some face never reaches a layer it can turn)")
    refs, end = programme.refs()
    actions = [a for ref in refs for a in tables.path(ref)]
    setting = start_setting(tables.model)
    orientation = START
    seconds = 0.0
    for action in actions:
        outcome = advance(tables.model, setting, action)
        for move in outcome.moves:
            if move.is_rotation:
                orientation = orientation.rotated(move)
        setting, seconds = outcome.setting, seconds + outcome.seconds
    assert _INDEX[orientation] * len(tables.boundaries) + tables.boundaries.index(setting) == end
    return ActionPlan(turns, tuple(actions), seconds, RigState(orientation, setting))
