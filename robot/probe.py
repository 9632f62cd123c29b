"""The probe: the conformance suite's side of the conversation with a rig under test.

A :class:`Probe` asks queries and sends sequenced frames over a
:class:`~cubebot.robot.link.Link`, each repeated until answered (so the checks work on a noisy
line), writes raw bytes (broken frames, the stop byte), waits for the rig to rest, and chooses
the slot the checks make and undo: a quarter turn of a face with a motor, or on an action rig
an action it can undo. A check that sees the rig break the protocol raises :class:`Failed`.
The checks themselves are in :mod:`cubebot.robot.protocol_checks`.
"""

from __future__ import annotations

import time
from typing import Callable, Optional

from cubebot.robot.errors import EmergencyStopError
from cubebot.robot.limits import RigLimits
from cubebot.robot.link import Link
from cubebot.robot.protocol import Frame

__all__ = ["Probe", "Failed", "EXCHANGE_WAIT", "REST_WAIT", "OPPOSITE", "undo_turn"]

#: Seconds one exchange is repeated before the rig counts as silent.
EXCHANGE_WAIT = 8.0
#: Seconds the rig may take to come to rest after its last move.
REST_WAIT = 15.0
#: The face opposite each face.
OPPOSITE = {"U": "D", "D": "U", "R": "L", "L": "R", "F": "B", "B": "F"}


class Failed(Exception):
    """A check saw the rig break the protocol (the message says how)."""


class Probe:
    """A conversation with the rig for the checks: queries and sequenced frames, each repeated
    until answered, and raw bytes. ``n`` is the number the rig expects next."""

    def __init__(self, link: Link, baudrate: int) -> None:
        self.link = link
        self.baudrate = baudrate
        self.n = 0
        self.rig: Optional[Frame] = None
        self.limits: Optional[RigLimits] = None
        self.notices = 0  # emergency-stop notices heard
        self._last_seq = -1
        self.kind = ""  # an action rig's kind (RIG's KIND=), "" for a motor rig
        self.slot_word = "MOVE"
        self._forth: tuple[str, ...] = ()
        self._back: tuple[str, ...] = ()

    # -- exchanges ------------------------------------------------------------------------------

    def next(self, timeout: float) -> Optional[Frame]:
        """Return the rig's next frame within ``timeout`` seconds (None), counting and
        passing over emergency-stop notices."""
        try:
            return self.link.next_frame(timeout)
        except EmergencyStopError:
            self.notices += 1
            return None

    def ask(self, word: str) -> Frame:
        """Return the rig's reply to the query ``word`` (an ``ERR`` reply too)."""
        deadline = time.monotonic() + EXCHANGE_WAIT
        asked: set[str] = set()
        while time.monotonic() < deadline:
            asked.add(self.link.ask(word)[1:])
            until = time.monotonic() + self.link.round_trip.timer(0.25)
            while (left := until - time.monotonic()) > 0:
                frame = self.next(left)
                if frame is not None and frame.kind == "R" and frame.tag[1:] in asked:
                    return frame
        raise Failed(f"the rig did not answer the query {word} within {EXCHANGE_WAIT:.0f} s")

    def fields(self, word: str) -> dict[str, str]:
        """Return the fields of the reply to ``word``."""
        return dict(self.ask(word).fields)

    def send(self, word: str, *args: str, number: Optional[int] = None) -> Frame:
        """Return the rig's answer (``OK`` or ``ERR``) to the sequenced frame ``word args``,
        numbered ``number`` (default: the next), sent again until answered."""
        seq = self.n if number is None else number
        frame = Frame(f"S{seq}", word, args)
        if seq == self._last_seq:  # a number used again: late answers to the last frame go
            time.sleep(3 * self.link.round_trip.seconds + 0.005)
            self.link.drain()
        self._last_seq = seq
        deadline = time.monotonic() + EXCHANGE_WAIT
        while time.monotonic() < deadline:
            self.link.send(frame)
            until = time.monotonic() + self.link.round_trip.timer(0.25)
            while (left := until - time.monotonic()) > 0:
                got = self.next(left)
                if got is None or got.kind != "A" or got.number != seq:
                    continue
                if got.word == "OK" and number is None:
                    self.n = got.field_int("N")
                return got
        raise Failed(f"the rig did not answer frame {frame} within {EXCHANGE_WAIT:.0f} s")

    def accept(self, word: str, *args: str) -> Frame:
        """Return the ``OK`` answer to ``word args``, waiting for room in the queue when the
        rig says it is full (back-pressure); any other refusal fails the check."""
        deadline = time.monotonic() + REST_WAIT
        while True:
            answer = self.send(word, *args)
            if answer.word == "OK":
                return answer
            if answer.args[:1] != ("QUEUE_FULL",) or time.monotonic() > deadline:
                raise Failed(f"the rig refused {word} {' '.join(args)}: {answer}")
            time.sleep(0.02)  # a turn or two finishes, then the frame goes again

    def refusal(self, word: str, *args: str) -> Frame:
        """Return the ``ERR`` answer to ``word args`` after checking that nothing moved on:
        ``N`` is the frame's own number, and the frame left no trace (its number still free)."""
        before = self.n
        answer = self.send(word, *args)
        if answer.word != "ERR":
            self.settle()
            raise Failed(f"the rig accepted {word} {' '.join(args)}: {answer}")
        if answer.field_int("N") != before:
            raise Failed(f"a refused frame moved N from {before} to {answer.fields['N']}")
        return answer

    def raw(self, data: bytes) -> None:
        """Write bytes as they are (broken frames, the stop byte)."""
        self.link.write(data)

    def raw_until(self, data: bytes, wanted: Callable[[Frame], bool],
                  wait: float = 0.5) -> Optional[Frame]:
        """Return the first frame ``wanted`` accepts, writing ``data`` again and again for up
        to :data:`EXCHANGE_WAIT` seconds (None if none came).

        Each try ends when its answer is complete: a resend request (which a rig sends after
        answering anything else the bytes held) or ``wait`` seconds of quiet. On a noisy
        line a try's bytes or its answer are often damaged, so one silent try proves nothing;
        only a rig that never answers in the whole exchange fails.
        """
        deadline = time.monotonic() + EXCHANGE_WAIT
        while time.monotonic() < deadline:
            self.raw(data)
            try_ends = time.monotonic() + wait
            while (left := try_ends - time.monotonic()) > 0:
                frame = self.next(left)
                if frame is None:
                    continue
                if wanted(frame):
                    return frame
                if frame.kind == "N":
                    break
        return None

    def expected(self) -> int:
        """Return the number the rig expects now (from its status), and remember it."""
        self.n = int(self.fields("STATUS")["N"])
        return self.n

    def settle(self) -> dict[str, str]:
        """Return the status once nothing is queued or turning."""
        deadline = time.monotonic() + REST_WAIT
        while True:
            fields = self.fields("STATUS")
            if fields.get("L") == "0":
                return fields
            if time.monotonic() > deadline:
                raise Failed(f"the rig still had {fields.get('L')} frames queued after "
                             f"{REST_WAIT:.0f} s")
            time.sleep(0.02)

    def job(self) -> dict[str, str]:
        """Return the ``JOB`` query's fields."""
        return self.fields("JOB")

    def forth(self) -> tuple[str, ...]:
        """Return the arguments of a slot the rig can make from rest (a quarter turn of a face
        with a motor, or an action that the rig can undo)."""
        if not self._forth:
            self._forth = (self.pair()[0],)
        return self._forth

    def back(self) -> tuple[str, ...]:
        """Return the arguments of the slot that undoes :meth:`forth`."""
        if not self._back:
            self._back = tuple(undo_turn(t) for t in self.forth())
        return self._back

    def choose_actions(self, kind: str) -> None:
        """Take an action rig of ``kind``: slots are ``ACT`` frames of an action its built-in
        model can make from home and undo (a quarter one way and back).

        Raises:
            Failed: no built-in model of that kind, or none of its actions can be undone.
        """
        from cubebot.robot.actions import advance, start_setting
        from cubebot.robot.errors import ImpossibleActionError, RigModelError
        from cubebot.robot.model import RigModel

        try:
            model = RigModel.load(kind.lower()).actions
        except RigModelError as err:
            raise Failed(f"KIND={kind}: no rig model of that kind to choose actions from "
                         f"({err})") from err
        assert model is not None
        home = start_setting(model)
        for action in model.vocabulary():
            stroke = action.strokes[0]
            if stroke.angle != 90:
                continue
            undo = f"{stroke.verb}-90"
            try:
                there = advance(model, home, action).setting
                back = advance(model, there, undo).setting
            except (ImpossibleActionError, ValueError):
                continue
            if (back.joints, back.switches) == (home.joints, home.switches):
                self.kind, self.slot_word = kind, "ACT"
                self._forth, self._back = (str(action).upper(),), (undo.upper(),)
                return
        raise Failed(f"KIND={kind}: none of its actions can be made from home and undone")

    def pair(self) -> tuple[str, str]:
        """Return two opposite faces with motors (or one face twice when there are none)."""
        faces = self.rig.fields["FACES"] if self.rig else "UD"
        for face in faces:
            if OPPOSITE[face] in faces:
                return face, OPPOSITE[face]
        return faces[0], faces[0]


def undo_turn(turn: str) -> str:
    """Return the face turn that undoes ``turn``: ``R'`` for ``R``, ``R`` for ``R'``, ``R2``
    for ``R2``."""
    return turn if turn.endswith("2") else turn[0] if turn.endswith("'") else turn + "'"
