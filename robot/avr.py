"""The real rig firmware (C, ATmega2560) running in simavr behind a pseudo-terminal.

:class:`AvrRig` builds ``robot/firmware/avr`` with ``avr-gcc`` and its harness with ``gcc`` and
libsimavr (once, into the cache folder), starts the harness, and serves the firmware on a pty at
real time, as :class:`~cubebot.robot.simulator.SimulatedRig` serves the Python firmware. The
harness traces the pins (one JSON line per movement of one motor, per change of the drivers'
ENABLE, per reset); :meth:`AvrRig.turns` reads the movements back as the face turns the motors
made, the ground truth of what the rig did (the firmware itself does not know its cube). The
flipper build (``AvrRig(kind="flipper")``, CUBOTino's two servos) is traced by its servos' pulse
widths instead, and :meth:`AvrRig.servo_actions` reads them back as the action strings the
servos performed (``docs/rigs.md``). The harness models the port's DTR line: with
``reset_on_open`` the chip resets when a host opens the port with DTR down, as a stock Arduino
Mega does. The firmware's boot counter lives in a saved EEPROM. Builds are kept per kind and
digest of the sources, so a changed firmware is never served from an older build. The rig's
constants are read from ``config.h`` (:func:`config`), never copied here.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from types import TracebackType
from typing import IO, Any, Optional

from cubebot.robot.errors import OptionError, RigConnectionError, RigModelError
from cubebot.robot.faults import Faults, FaultyLine
from cubebot.robot.model import RigKind
from cubebot.solver.notation import FACE_LETTERS, Move, parse_moves
from cubebot.solver.tables import cache_dir

__all__ = ["AvrRig", "AvrTurns", "FIRMWARE_SOURCE", "FIRMWARE_KINDS", "toolchain_missing", "build",
           "config", "firmware_kind", "actions_from_servos"]

log = logging.getLogger(__name__)

#: Where the firmware's C sources, Makefile and harness live (in a checkout and installed).
FIRMWARE_SOURCE = Path(__file__).resolve().parent / "firmware" / "avr"

_DEFINE = re.compile(r"^#define\s+([A-Z_][A-Z0-9_]*)\s+(\S.*?)\s*(?:/\*.*)?$")


@lru_cache(maxsize=None)
def config() -> dict[str, str]:
    """Return the ``#define``s of the firmware's ``config.h`` (name -> text, suffixes and
    quotes removed), the one place the rig's geometry and limits are written."""
    found: dict[str, str] = {}
    for line in (FIRMWARE_SOURCE / "config.h").read_text().splitlines():
        match = _DEFINE.match(line.strip())
        if match:
            value = match.group(2).strip().strip('"')
            found[match.group(1)] = re.sub(r"(?<=\d)[UL]+\b", "", value)
    return found


def config_int(name: str) -> int:
    """Return the whole number ``config.h`` defines as ``name``.

    Raises:
        KeyError: no such define; ValueError: not a plain number.
    """
    return int(config()[name])


#: The firmware's builds (``make KIND=``): a stepper per face, or the flipper's two servos.
FIRMWARE_KINDS = ("stepper", "flipper")


def firmware_kind(kind: str) -> str:
    """Return the firmware build (``"stepper"`` or ``"flipper"``) that drives a rig of ``kind``:
    a :class:`~cubebot.robot.model.RigKind` (``six-motor`` and ``five-motor`` are the stepper
    build; the motors a build has are in ``config.h``) or a build's own name.

    Raises:
        RigModelError: no firmware build drives that kind (naming the ones there are).
    """
    if kind in FIRMWARE_KINDS:
        return str(kind)
    if kind in (RigKind.SIX_MOTOR, RigKind.FIVE_MOTOR):
        return "stepper"
    raise RigModelError(f"no AVR firmware for rig kind {str(kind)!r}: the builds are "
                     f"{', '.join(FIRMWARE_KINDS)} (for six-motor, five-motor and flipper rigs)")


def microsteps_per_quarter() -> int:
    """Return the driver microsteps in a quarter turn of the firmware's rig."""
    return config_int("STEPS_PER_QUARTER") * config_int("MICROSTEPS")


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


def build(folder: Optional[Path] = None, cube_size: int = 3,
          test_hooks: bool = False, kind: str = "stepper") -> tuple[Path, Path]:
    """Return the firmware (``rig.elf``) and the harness (``rigsim-avr``), built if needed;
    ``test_hooks`` adds the ``HANG`` command the watchdog's test needs (never flash that one);
    ``kind`` chooses the build (:func:`firmware_kind`). The build folder is named by the kind,
    the size, the hooks and the sources' digest.

    Raises:
        ValueError: no firmware build for ``kind``.
        RigConnectionError: the toolchain is missing or the build failed (with its output).
    """
    build_kind = firmware_kind(kind)
    missing = toolchain_missing()
    if missing:
        raise RigConnectionError(f"cannot build the AVR firmware: {missing}")
    hooks = "-hooks" if test_hooks else ""
    out = folder or cache_dir() / f"avr-build-{build_kind}-{cube_size}{hooks}-{source_digest()}"
    done = subprocess.run(["make", "-s", "-C", str(FIRMWARE_SOURCE), f"BUILD={out}",
                           f"CUBE_SIZE={cube_size}", f"TEST_HOOKS={int(test_hooks)}",
                           f"KIND={build_kind}", "all", "sim"], capture_output=True, text=True)
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
    board and :attr:`port` (and ``faults.reset_on_open`` makes the board reset when its port is
    opened with DTR down, ``faults.boot_delay`` the seconds its bootloader then takes); ``seed``
    makes its faults repeatable; ``trace`` keeps the pin trace at that path (default: a
    temporary file, removed on :meth:`close`); ``test_hooks`` runs the build with the ``HANG``
    command; ``kind`` chooses the build: ``"stepper"`` (the default; or ``six-motor``,
    ``five-motor``) or ``"flipper"`` (:func:`firmware_kind`), which speaks ``ACT`` frames
    (``docs/protocol.md`` section 15) and is read back by :meth:`servo_actions`.

    Raises:
        ValueError: (from the constructor) no firmware build for ``kind``.
        RigConnectionError: (from :meth:`start`) the toolchain is missing, the build failed, or
            the harness did not start.
    """

    def __init__(self, cube_size: int = 3, faults: Faults = Faults(),
                 seed: Optional[int] = None, trace: Optional[Path] = None,
                 test_hooks: bool = False, kind: str = "stepper") -> None:
        self.kind = firmware_kind(kind)
        self.cube_size = cube_size
        self.faults = faults
        self.seed = seed
        self.test_hooks = test_hooks
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
        elf, harness = build(cube_size=self.cube_size, test_hooks=self.test_hooks,
                             kind=self.kind)
        command = [str(harness), str(elf), "--trace", str(self.trace_path), "--eeprom",
                   str(self.eeprom_path), "--boot-delay", str(round(self.faults.boot_delay * 1000))]
        if self.faults.reset_on_open:
            command.append("--reset-on-open")
        self._process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=subprocess.DEVNULL, text=True)
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

    def _tell(self, command: str) -> None:
        stdin: Optional[IO[str]] = self._process.stdin if self._process else None
        if stdin is None:
            raise RigConnectionError("the AVR harness is not running")
        stdin.write(command + "\n")
        stdin.flush()

    def reset(self) -> str:
        """Return the port after pulling the chip's reset pin (a new boot id; the port stays)."""
        self._tell("reset")
        return self.port

    def press_stop(self) -> None:
        """Press the stop button on D2 (held until :meth:`release_stop`)."""
        self._tell("press")

    def release_stop(self) -> None:
        """Release the stop button."""
        self._tell("release")

    def race(self, frame: bytes, delay_us: int) -> None:
        """Feed ``frame`` straight to the UART, then the emergency-stop byte ``delay_us``
        microseconds after its last byte (a stop arriving while the frame is decoded)."""
        self._tell(f"race {delay_us} {frame.hex().upper()}")

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
        for stream in (process.stdout, process.stdin):
            if stream is not None:
                try:
                    stream.close()
                except OSError:
                    pass  # the harness is gone: nothing more to flush

    def close(self) -> None:
        """Stop the harness and remove its files."""
        self._stop_harness()
        shutil.rmtree(self._dir, ignore_errors=True)

    def trace(self) -> list[dict[str, Any]]:
        """Return the pin trace so far: movements, ENABLE changes and events (see the harness)."""
        if not self.trace_path.exists():
            return []
        found = []
        for line in self.trace_path.read_text().splitlines():
            try:
                found.append(json.loads(line))
            except json.JSONDecodeError:
                continue  # a line still being written
        return found

    def movements(self) -> list[dict[str, Any]]:
        """Return one dict per movement of one motor so far (see the harness)."""
        return [entry for entry in self.trace() if "motor" in entry]

    def enable_changes(self) -> list[dict[str, Any]]:
        """Return the drivers' ENABLE changes so far: ``{"on", "driven", "t_us"}`` each."""
        return [entry for entry in self.trace() if entry.get("pin") == "EN"]

    def servo_pulses(self) -> list[dict[str, Any]]:
        """Return the servos' pulse trace so far (flipper build): ``{"servo", "us",
        "period_us", "t_us"}`` when a servo's pulse width changed, ``{"servo", "us": 0, "t_us",
        "pulses", "min_period_us", "max_period_us"}`` when its pulses stopped."""
        return [entry for entry in self.trace() if "servo" in entry]

    def servo_actions(self) -> list[str]:
        """Return the flipper actions the servos performed so far, in order, read from their
        pulse widths (:func:`actions_from_servos`).

        Raises:
            ValueError: a pulse width at no position of its servo.
        """
        return actions_from_servos(self.servo_pulses())

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
    quarter = microsteps_per_quarter()
    for movement in sorted(group, key=lambda m: FACE_LETTERS.index(m["motor"])):
        quarters, rest = divmod(abs(int(movement["steps"])), quarter)
        whole = whole and rest == 0
        if quarters:
            suffix = "2" if quarters == 2 else ("'" if movement["steps"] < 0 else "")
            moves.extend(parse_moves(movement["motor"] + suffix))
    return tuple(moves), whole


#: How far a pulse may be from a position's width and still be at that position (microseconds).
SERVO_TOLERANCE_US = 20


def actions_from_servos(pulses: list[dict[str, Any]]) -> list[str]:
    """Return the flipper actions (``docs/rigs.md``: ``flip``, ``spin+90``, ``turn-180``...)
    that servo pulse widths show, from a trace of the harness (:meth:`AvrRig.servo_pulses`).

    The rig starts at home (holder at 0 degrees, cover open). A change of the holder's angle
    (its width from home, times ``HOLDER_SIGN``) is
    a ``turn`` when the top servo holds the cover closed, else a ``spin``, by the angle it
    moved; the top servo reaching its flip position is a ``flip``. Positions come from
    ``config.h``; the end of a pulse train (``us`` 0) moves nothing.

    Raises:
        ValueError: a width at no position of its servo (e.g. a pulse an emergency stop cut
            short), naming the servo, the width and the time.
    """
    home, per_90 = config_int("HOLDER_HOME_US"), config_int("HOLDER_US_PER_90")
    sign = config_int("HOLDER_SIGN")
    top_positions = {"open": config_int("TOP_OPEN_US"), "closed": config_int("TOP_CLOSED_US"),
                     "flip": config_int("TOP_FLIP_US")}
    holder, top = 0, "open"
    actions: list[str] = []
    for entry in sorted(pulses, key=lambda e: e["t_us"]):
        width = int(entry["us"])
        if width == 0:
            continue
        if entry["servo"] == "HOLDER":
            quarters = round((width - home) / per_90)
            if abs(width - (home + quarters * per_90)) > SERVO_TOLERANCE_US:
                raise OptionError(f"holder pulse of {width} us at {entry['t_us']} us is at no "
                                 f"quarter turn ({home} us is home, {per_90} us a quarter)")
            if sign * quarters != holder:
                verb = "turn" if top == "closed" else "spin"
                actions.append(f"{verb}{(sign * quarters - holder) * 90:+d}")
                holder = sign * quarters
        else:
            near = [name for name, us in top_positions.items()
                    if abs(width - us) <= SERVO_TOLERANCE_US]
            if not near:
                raise OptionError(f"top pulse of {width} us at {entry['t_us']} us is at no "
                                 f"position ({top_positions})")
            if near[0] == "flip" and top != "flip":
                actions.append("flip")
            top = near[0]
    return actions
