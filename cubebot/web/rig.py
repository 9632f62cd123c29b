"""The dashboard's rig: connect by URL, run a solution, stop, emergency-stop, resume.

The one module that calls :class:`cubebot.robot.Rig` for the page. A run sends the plan one
slot (one frame: a turn, or two opposite faces together) at a time and waits for the rig to
finish it, so that **Stop** takes effect after the turn in progress and the progress bar
follows the rig's own completion count (its ``D`` counter, read back after every slot).
**Emergency stop** sends the rig's stop byte at once, from the request's thread; the run's
thread then sees the rig's ``ESTOP`` fault. **Resume** clears a latched stop and continues
from the rig's completion count: a turn abandoned by the emergency stop is sent again.

After a lost connection (state "fault"), connecting again to the same rig on the same boot
keeps the run: the state becomes "stopped" and resume continues from the rig's count; a rig
that rebooted (or another rig) drops it, since its cube is no longer known.

Every change of state is handed to ``publish`` (the app pushes it to the page as an event).
"""

from __future__ import annotations

import logging
import threading
from typing import Any, Callable, Optional

from cubebot.robot import EmergencyStopError, ProtocolError, Rig, RigModel, RobotError
from cubebot.solver import Cube, parse_moves

__all__ = ["RigDriver", "RigBusyError", "STATES"]

log = logging.getLogger(__name__)

#: What the page can be told the rig is doing.
STATES = ("disconnected", "idle", "moving", "stopping", "stopped", "estopped", "solved",
          "finished", "fault")


class RigBusyError(ValueError):
    """The rig cannot take that action now (not connected, already moving, nothing to resume)."""


class RigDriver:
    """One rig connection and the run in progress (see the module doc).

    ``publish(snapshot)`` is called, from any thread, after every change; ``default_model``
    plans solutions before a rig is connected.
    """

    def __init__(self, publish: Callable[[dict[str, Any]], None],
                 default_model: str = "six-motor") -> None:
        self._publish = publish
        self.default_model = RigModel.load(default_model)
        self._lock = threading.RLock()
        self._rig: Optional[Rig] = None
        self._thread: Optional[threading.Thread] = None
        self._stop = threading.Event()
        self.state = "disconnected"
        self.message = ""
        self.url = ""
        self.handshake: dict[str, Any] = {}
        self._slots: list[tuple[str, ...]] = []
        self._moves_per_slot: list[int] = []
        self._states: list[str] = []  # the cube before the run's first move, then after each
        self._start_done = 0  # the rig's D counter when the run began
        self.slots_done = 0
        self.rig_facelets: Optional[str] = None
        self._boot_id = ""  # of the rig the run began on
        # every published snapshot gets the next version, so a page that receives two out of
        # order (an event stream and an action's answer race) keeps the newer one
        self._version = 0
        self._version_lock = threading.Lock()

    # -- what the page sees -----------------------------------------------------------------

    @property
    def model(self) -> RigModel:
        """Return the connected rig's model, or the default one."""
        rig = self._rig
        return rig.model if rig is not None and rig.model is not None else self.default_model

    def snapshot(self) -> dict[str, Any]:
        """Return the rig's state as a JSON-ready dict (what the page's events carry)."""
        total = sum(self._moves_per_slot)
        done = sum(self._moves_per_slot[:self.slots_done])
        moves = [move for slot in self._slots for move in slot]
        return {"version": self._version, "state": self.state, "message": self.message,
                "url": self.url,
                "handshake": self.handshake, "model": self.model.name,
                "moves": moves, "moves_done": done, "moves_total": total,
                "slots_done": self.slots_done, "slots_total": len(self._slots),
                "percent": round(100 * done / total) if total else 0,
                "cube": self.cube(done),
                "rig_facelets": self.rig_facelets}

    def cube(self, done: int) -> Optional[str]:
        """Return the rig's cube after ``done`` moves of the run (its own report at the end),
        or None before any run."""
        if self.rig_facelets is not None:
            return self.rig_facelets
        return self._states[done] if done < len(self._states) else None

    def _set(self, state: str, message: str = "") -> None:
        with self._version_lock:
            self.state, self.message = state, message
            self._version += 1
            snapshot = self.snapshot()
        log.info("rig %s %s", state, message)
        self._publish(snapshot)

    def _progressed(self) -> None:
        """Publish the run's progress as a new version of the snapshot."""
        with self._version_lock:
            self._version += 1
            snapshot = self.snapshot()
        self._publish(snapshot)

    # -- connection -------------------------------------------------------------------------

    def connect(self, url: str) -> dict[str, Any]:
        """Return the handshake after opening the rig at ``url`` (closing any earlier one).

        Raises:
            RigBusyError: a run is in progress.
            RobotError: the port is missing, silent or speaks another protocol.
        """
        url = url.strip()
        if not url:
            raise RigBusyError("give the rig's port: /dev/ttyACM0, COM3, socket://host:port "
                               "or rigsim://NAME")
        with self._lock:
            self._check_idle()
            self.close()
            rig = Rig(url)
            try:
                info = rig.open()
            except Exception:
                rig.close()
                self._set("disconnected", "")
                raise
            same_boot = self._boot_id == info.boot_id
            self._rig, self.url, self._boot_id = rig, url, info.boot_id
            # what the rig is, not what it is doing: the state and the moves done are the
            # snapshot's own, kept up to date through the run
            self.handshake = {k: getattr(info, k) for k in (
                "firmware", "boot_id", "faces", "queue_depth", "size", "protocol",
                "parallel_opposite")}
            unfinished = bool(self._slots) and self.slots_done < len(self._slots)
            if same_boot and unfinished:
                # the same rig, not rebooted since the run began (a pulled cable, a server
                # on another port): its counter says how far the run got, so it can go on
                self._count(rig)
                done = sum(self._moves_per_slot[:self.slots_done])
                self._set("estopped" if info.state == "ESTOP" else "stopped",
                          f"reconnected to the same rig: {done} of "
                          f"{sum(self._moves_per_slot)} moves made; resume continues")
                return self.handshake
            if unfinished:
                log.warning("the rig at %s is another rig or rebooted: the run is dropped", url)
            self._slots, self._moves_per_slot, self.slots_done = [], [], 0
            self._states = []
            self._set("estopped" if info.state == "ESTOP" else "idle",
                      f"connected: firmware {info.firmware}, faces {info.faces}"
                      + ("; it rebooted or is another rig, so the unfinished run is dropped: "
                         "re-scan the cube" if unfinished else ""))
            return self.handshake

    def close(self, wait: float = 5.0) -> None:
        """Close the rig's port (the rig keeps its counters).

        A run in progress is first asked to stop after the turn in progress (up to ``wait``
        seconds), as Ctrl-C does for the command line; resume continues it on the same boot.
        """
        thread = self._thread
        if thread is not None and thread.is_alive():
            self._stop.set()
            thread.join(wait)
            if thread.is_alive():
                log.warning("the run did not stop within %.0f s: sending the emergency stop",
                            wait)
                self.estop()
                thread.join(wait)
        with self._lock:
            if self._rig is not None:
                self._rig.close()
                self._rig = None
                self.handshake, self.url = {}, ""

    def _check_idle(self) -> None:
        if self._thread is not None and self._thread.is_alive():
            raise RigBusyError("the rig is moving: stop it first")

    def _connected(self) -> Rig:
        if self._rig is None:
            raise RigBusyError("connect a rig first")
        return self._rig

    # -- running ----------------------------------------------------------------------------

    def run(self, moves: list[str], states: Optional[list[str]] = None) -> None:
        """Start sending ``moves`` to the rig in a background thread.

        ``states`` is the cube before the first move and after each (the solver's): the
        snapshot's ``cube`` then follows the rig's moves.

        Raises:
            RigBusyError: no rig, or a run is in progress, or the rig is emergency-stopped.
            ValueError: no moves, or a move the rig cannot make.
        """
        with self._lock:
            rig = self._connected()
            self._check_idle()
            if self.state == "estopped":
                raise RigBusyError("the rig is emergency-stopped: resume or clear it first")
            if not moves:
                raise ValueError("nothing to run: solve the cube first")
            planned = rig.plan(parse_moves(" ".join(moves)))
            self._slots = [tuple(str(m) for m in slot.moves) for slot in planned]
            self._moves_per_slot = [len(s) for s in self._slots]
            self._states = list(states or [])
            self.slots_done = 0
            self.rig_facelets = None
            self._start_done = int(rig.status().get("D", "0"))
            self._launch()

    def resume(self) -> None:
        """Continue a stopped or emergency-stopped run from the rig's completion count.

        Raises:
            RigBusyError: nothing to resume, or a run is in progress.
            RobotError: the rig cannot be cleared.
        """
        with self._lock:
            rig = self._connected()
            self._check_idle()
            if self.state not in ("stopped", "estopped"):
                raise RigBusyError(f"nothing to resume: the rig is {self.state}")
            if self.state == "estopped":
                rig.clear()
            if not self._slots or self.slots_done >= len(self._slots):
                self._set("idle", "cleared")
                return
            self._launch()

    def stop(self) -> None:
        """Ask the run to stop after the turn in progress.

        Raises:
            RigBusyError: the rig is not moving.
        """
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                raise RigBusyError(f"the rig is not moving (it is {self.state})")
            self._stop.set()
            self._set("stopping", "stopping after the turn in progress")

    def estop(self) -> None:
        """Send the emergency stop now, whatever the rig is doing.

        Raises:
            RigBusyError: no rig connected.
        """
        rig = self._connected()  # no lock: this must not wait for the run's thread
        rig.estop()
        if self._thread is None or not self._thread.is_alive():
            self._set("estopped", "emergency stop: resume clears it")

    def _launch(self) -> None:
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="dashboard-run", daemon=True)
        self._set("moving", f"turning from move {sum(self._moves_per_slot[:self.slots_done]) + 1}")
        self._thread.start()

    def _run(self) -> None:
        rig = self._connected()
        try:
            while self.slots_done < len(self._slots):
                if self._stop.is_set():
                    done = sum(self._moves_per_slot[:self.slots_done])
                    self._set("stopped", f"stopped after {done} of "
                                         f"{sum(self._moves_per_slot)} moves; resume continues")
                    return
                rig.stream(parse_moves(" ".join(self._slots[self.slots_done])))
                self._count(rig)
                self._progressed()
            self._finish(rig)
        except EmergencyStopError:
            self._after_estop(rig)
        except RobotError as err:
            log.warning("run failed: %s", err)
            self._set("fault", str(err))

    def _count(self, rig: Rig) -> None:
        """Set the slots done from the rig's own completion counter."""
        done = int(rig.status().get("D", "0")) - self._start_done
        self.slots_done = max(0, min(done, len(self._slots)))

    def _after_estop(self, rig: Rig) -> None:
        try:
            self._count(rig)
        except RobotError as err:
            log.warning("no status after the emergency stop: %s", err)
        done = sum(self._moves_per_slot[:self.slots_done])
        self._set("estopped", f"emergency stop after {done} of {sum(self._moves_per_slot)} "
                              "moves; check the rig, then resume")

    def _finish(self, rig: Rig) -> None:
        try:
            self.rig_facelets = rig.facelets()
        except ProtocolError:
            self._set("finished", "all moves made; this rig keeps no record of its cube")
            return
        if Cube(self.rig_facelets).is_solved:
            self._set("solved", "all moves made; the rig reports a solved cube")
        else:
            self._set("finished", "all moves made, but the rig reports an unsolved cube: "
                                  "re-scan it")
