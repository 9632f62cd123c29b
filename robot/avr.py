"""The real rig firmware (C, ATmega2560) running in simavr behind a pseudo-terminal.

:class:`AvrRig` builds ``robot/firmware/avr`` with ``avr-gcc`` and its harness with ``gcc`` and
libsimavr (once, into the cache folder), starts the harness, and serves the firmware on a pty at
real time, as :class:`~cubebot.robot.simulator.SimulatedRig` serves the Python firmware. The
harness traces the STEP/DIR pins (one JSON line per movement of one motor);
:meth:`AvrRig.turns` reads it back as the face turns the motors made, the ground truth of what
the rig did (the firmware itself does not know its cube). A reset is a restarted harness: the
firmware's boot counter lives in a saved EEPROM. Builds are kept per digest of the sources, so
a changed firmware is never served from an older build.
"""

from __future__ import annotations

import hashlib
import json
import logging
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, Optional

from cubebot.robot.errors import RigConnectionError
from cubebot.robot.faults import Faults, FaultyLine
from cubebot.solver.notation import FACE_LETTERS, Move, parse_moves
from cubebot.solver.tables import cache_dir

__all__ = ["AvrRig", "AvrTurns", "FIRMWARE_SOURCE", "toolchain_missing", "build"]

log = logging.getLogger(__name__)

#: Where the firmware's C sources, Makefile and harness live (in a checkout and installed).
FIRMWARE_SOURCE = Path(__file__).resolve().parent / "firmware" / "avr"

MICROSTEPS_PER_QUARTER = 50 * 16  # rig.h: STEPS_PER_QUARTER * MICROSTEPS


def toolchain_missing() -> Optional[str]:
    """Return what is missing to build and run the AVR firmware, or None when all is there."""
    for tool, package in (("avr-gcc", "gcc-avr avr-libc"), ("make", "make"), ("gcc", "gcc")):
        if shutil.which(tool) is None:
            return f"{tool} is not installed (apt-get install {package})"
    if not Path("/usr/include/simavr/sim_avr.h").exists():
        return "libsimavr's headers are not installed (apt-get install libsimavr-dev simavr)"
    return None


def source_digest() -> str:
    """Return 12 hex digits naming the firmware's sources (C files, headers, Makefile, harness).

    ``make`` compares file times, which say nothing when two checkouts or two installed versions
    share one cache folder: the build folder is named by content instead.
    """
    digest = hashlib.sha256()
    for path in sorted(FIRMWARE_SOURCE.rglob("*")):
        if path.is_file() and (path.suffix in (".c", ".h") or path.name == "Makefile") \
                and "build" not in path.relative_to(FIRMWARE_SOURCE).parts:
            digest.update(str(path.relative_to(FIRMWARE_SOURCE)).encode() + b"\0")
            digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


def build(folder: Optional[Path] = None, cube_size: int = 3) -> tuple[Path, Path]:
    """Return the firmware (``rig.elf``) and the harness (``rigsim-avr``), built if needed.

    Raises:
        RigConnectionError: the toolchain is missing or the build failed (with its output).
    """
    missing = toolchain_missing()
    if missing:
        raise RigConnectionError(f"cannot build the AVR firmware: {missing}")
    out = folder or cache_dir() / f"avr-build-{cube_size}-{source_digest()}"
    done = subprocess.run(["make", "-s", "-C", str(FIRMWARE_SOURCE), f"BUILD={out}",
                           f"CUBE_SIZE={cube_size}", "all", "sim"],
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise RigConnectionError(f"building the AVR firmware failed:\n{done.stdout}{done.stderr}")
    return out / "rig.elf", out / "rigsim-avr"


@dataclass(frozen=True)
class AvrTurns:
    """What the motors did, read from the STEP pulses: whole slots made, in order, and whether
    the last turn was cut short (an emergency stop mid-turn)."""

    slots: tuple[tuple[Move, ...], ...]
    cut_short: bool

    @property
    def moves(self) -> list[Move]:
        """Return every whole turn made, in order."""
        return [m for slot in self.slots for m in slot]


class AvrRig:
    """The C firmware in simavr on a pty (see the module doc); use ``with AvrRig() as rig:``.

    ``faults`` put a faulty cable (:class:`~cubebot.robot.faults.FaultyLine`) between the
    board and :attr:`port`; ``seed`` makes its faults repeatable; ``trace`` keeps the pin
    trace at that path (default: a temporary file, removed on :meth:`close`).

    Raises (from :meth:`start`):
        RigConnectionError: the toolchain is missing, the build failed, or the harness did not
            start.
    """

    def __init__(self, cube_size: int = 3, faults: Faults = Faults(),
                 seed: Optional[int] = None, trace: Optional[Path] = None) -> None:
        self.cube_size = cube_size
        self.faults = faults
        self.seed = seed
        self._line: Optional[FaultyLine] = None
        self._dir = Path(tempfile.mkdtemp(prefix="cubebot-avr-"))
        self.trace_path = Path(trace) if trace is not None else self._dir / "pins.jsonl"
        self.eeprom_path = self._dir / "eeprom.bin"
        self._process: Optional[subprocess.Popen[str]] = None
        self.port = ""

    def __enter__(self) -> "AvrRig":
        return self.start()

    def __exit__(self, exc_type: Optional[type[BaseException]], exc: Optional[BaseException],
                 tb: Optional[TracebackType]) -> None:
        self.close()

    @property
    def url(self) -> str:
        """Return the port to open (the pty's path)."""
        return self.port

    def start(self) -> "AvrRig":
        """Return this rig once the harness runs and its pty is known (see the class doc)."""
        elf, harness = build(cube_size=self.cube_size)
        self._process = subprocess.Popen(
            [str(harness), str(elf), "--trace", str(self.trace_path), "--eeprom",
             str(self.eeprom_path)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            text=True)
        assert self._process.stdout is not None
        for line in self._process.stdout:  # simavr may report the load before the path
            if line.startswith("/dev/"):
                self.port = line.strip()
                break
        if not self.port:
            self.close()
            raise RigConnectionError("the AVR harness did not start (no pty)")
        if self.faults.on_wire:  # the host talks to the board through a faulty cable
            self._line = FaultyLine(self.port, self.faults, self.seed)
            self.port = self._line.port
        log.info("AVR firmware in simavr on %s", self.port)
        return self

    def reset(self) -> str:
        """Return the new pty after resetting the board (the harness restarts; new boot id)."""
        self._stop_harness()
        return self.start().port

    def _stop_harness(self) -> None:
        line, self._line = self._line, None
        if line is not None:
            line.close()
        process, self._process = self._process, None
        if process is None:
            return
        process.terminate()  # the harness saves the EEPROM on SIGTERM
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if process.stdout is not None:
            process.stdout.close()

    def close(self) -> None:
        """Stop the harness and remove its files."""
        self._stop_harness()
        shutil.rmtree(self._dir, ignore_errors=True)

    def movements(self) -> list[dict[str, Any]]:
        """Return the trace so far: one dict per movement of one motor (see the harness)."""
        if not self.trace_path.exists():
            return []
        found = []
        for line in self.trace_path.read_text().splitlines():
            try:
                found.append(json.loads(line))
            except json.JSONDecodeError:
                continue  # a line still being written
        return found

    def turns(self) -> AvrTurns:
        """Return the turns the motors made so far, from the trace of STEP pulses."""
        movements = self.movements()
        slots: list[tuple[Move, ...]] = []
        cut = False
        group: list[dict[str, Any]] = []
        for movement in sorted(movements, key=lambda m: m["start_us"]) + [None]:
            if movement is not None and group and \
                    movement["start_us"] <= max(m["end_us"] for m in group):
                group.append(movement)  # overlaps the slot in progress: turned together
                continue
            if group:
                slot, whole = _slot_of(group)
                if slot:
                    slots.append(slot)
                cut = cut or not whole
            group = [movement] if movement is not None else []
        return AvrTurns(tuple(slots), cut)


def _slot_of(group: list[dict[str, Any]]) -> tuple[tuple[Move, ...], bool]:
    """Return the whole turns of one slot's movements, and whether every turn was whole."""
    moves: list[Move] = []
    whole = True
    for movement in sorted(group, key=lambda m: FACE_LETTERS.index(m["motor"])):
        quarters, rest = divmod(abs(int(movement["steps"])), MICROSTEPS_PER_QUARTER)
        whole = whole and rest == 0
        if quarters:
            suffix = "2" if quarters == 2 else ("'" if movement["steps"] < 0 else "")
            moves.extend(parse_moves(movement["motor"] + suffix))
    return tuple(moves), whole
