"""The rig: models and plans, the exactly-once wire protocol, the host client, the simulator.

>>> from robot import RigModel, plan
>>> str(plan("U D' R2", RigModel.load("six-motor")))
"U D' | R2"

Importing the package registers the ``rigsim://`` URL scheme with pyserial, so
``serial.serial_for_url(sim.url)`` reaches an in-process :class:`SimulatedRig`.
"""

import serial

from robot.errors import (
    EmergencyStopError,
    EndStopError,
    MissingMotorError,
    ProtocolError,
    QueueFullError,
    RigConnectionError,
    RigFault,
    RigModelError,
    RigResetError,
    RigTimeoutError,
    RobotError,
    StallError,
    UnplannableMoveError,
)
from robot.faults import Faults
from robot.host import Rig, RigInfo, StreamReport
from robot.model import RigModel, builtin_models
from robot.plan import Plan, Slot, plan, rig_time
from robot.simulator import SimulatedRig

if "robot.urlhandler" not in serial.protocol_handler_packages:
    serial.protocol_handler_packages.append("robot.urlhandler")

__all__ = [
    "RigModel", "builtin_models", "Plan", "Slot", "plan", "rig_time",
    "Rig", "RigInfo", "StreamReport", "SimulatedRig", "Faults",
    "RobotError", "RigConnectionError", "RigTimeoutError", "ProtocolError", "RigResetError",
    "RigFault", "StallError", "EndStopError", "QueueFullError", "MissingMotorError",
    "EmergencyStopError", "RigModelError", "UnplannableMoveError",
]
