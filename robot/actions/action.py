"""Action strings: what a rig that turns the cube over is told to do, as small values.

An action is one stroke (``"flip"``, ``"spin+90"``, ``"turn-180"``, ``"open-down"``) or strokes
that run together, joined by ``&`` (``"top-90&bottom-180"`` on the ud-arm). A stroke is a verb
and, for verbs that move a joint, a signed angle in degrees. :meth:`Action.parse` reads the
syntax only; whether a rig knows the verb and the angle is the rig model's question
(:meth:`cubebot.robot.actions.ActionModel.action`), and whether it can do it now is the
state machine's (:mod:`cubebot.robot.actions.machine`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Optional, Union

from cubebot.robot.errors import InvalidActionError

__all__ = ["Stroke", "Action", "ActionSequence", "as_actions", "format_actions"]

_STROKE = re.compile(r"([a-z][a-z0-9]*(?:-[a-z][a-z0-9]*)*)(?:([+-])(\d+))?")


@dataclass(frozen=True)
class Stroke:
    """One verb with its signed angle in degrees (None for verbs without one, like ``flip``)."""

    verb: str
    angle: Optional[int] = None

    def __str__(self) -> str:
        return self.verb if self.angle is None else f"{self.verb}{self.angle:+d}"


@dataclass(frozen=True)
class Action:
    """Strokes executed together (usually one); ``str()`` gives the action string.

    >>> Action.parse("spin+90")
    Action.parse('spin+90')
    >>> str(Action.parse("top-90&bottom-180"))
    'top-90&bottom-180'
    """

    strokes: tuple[Stroke, ...]

    def __post_init__(self) -> None:
        if not self.strokes:
            raise InvalidActionError("an action needs at least one stroke, e.g. 'flip'")

    @classmethod
    def parse(cls, text: str) -> "Action":
        """Return the action written in ``text`` (strokes joined by ``&``, no spaces).

        Raises:
            InvalidActionError: ``text`` is not of the form ``verb``, ``verb+90``, ``verb-180``
                or such strokes joined by ``&``.
        """
        if not isinstance(text, str):
            raise InvalidActionError(f"an action is text such as 'spin+90', got "
                                     f"{type(text).__name__}")
        strokes = []
        for part in text.strip().split("&"):
            found = _STROKE.fullmatch(part)
            if found is None:
                raise InvalidActionError(
                    f"not an action: {text!r}; an action is a verb, optionally with a signed "
                    "angle in degrees (e.g. 'flip', 'spin+90', 'turn-180'), or such strokes "
                    "joined by '&'")
            verb, sign, digits = found.groups()
            angle = None if sign is None else int(sign + digits)
            strokes.append(Stroke(verb, angle))
        return cls(tuple(strokes))

    @property
    def verbs(self) -> tuple[str, ...]:
        """Return the verbs of the strokes, in order."""
        return tuple(s.verb for s in self.strokes)

    def __str__(self) -> str:
        return "&".join(str(s) for s in self.strokes)

    def __repr__(self) -> str:
        return f"Action.parse({str(self)!r})"


ActionSequence = Union[str, Iterable[Union[str, Action]]]


def as_actions(actions: ActionSequence) -> tuple[Action, ...]:
    """Return ``actions`` as Action values: a space-separated string or a list of strings/Actions.

    Raises:
        InvalidActionError: an item does not parse.
    """
    items = actions.split() if isinstance(actions, str) else list(actions)
    return tuple(a if isinstance(a, Action) else Action.parse(a) for a in items)


def format_actions(actions: Iterable[Action]) -> str:
    """Return the actions as one string separated by single spaces."""
    return " ".join(str(a) for a in actions)
