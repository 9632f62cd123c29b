"""The rig: models and plans, the exactly-once wire protocol, the host client, the simulator.

>>> from cubebot.robot import RigModel, plan
>>> str(plan("U D' R2", RigModel.load("six-motor")))
"U D' | R2"

Importing the package registers the ``rigsim://`` URL scheme with pyserial, so
``serial.serial_for_url(sim.url)`` reaches an in-process :class:`SimulatedRig`.
"""

import serial

from cubebot.robot.errors import (
    EmergencyStopError,
    EndStopError,
    MissingMotorError,
    NoJobError,
    PortBusyError,
    ProtocolError,
    QueueFullError,
    RefusedSlotError,
    RigBusyError,
    RigConnectionError,
    RigFault,
    RigModelError,
    RigResetError,
    RigStoppedError,
    RigTimeoutError,
    RobotError,
    SequenceConflictError,
    StallError,
    UnplannableMoveError,
)
from cubebot.robot.faults import Faults
from cubebot.robot.limits import RigLimits
from cubebot.robot.host import JobStatus, Rig, RigInfo, job_id
from cubebot.robot.sender import StreamProgress, StreamReport
from cubebot.robot.state import RigState
from cubebot.robot.model import RigModel, builtin_models
from cubebot.robot.plan import Plan, Slot, plan, rig_time
from cubebot.robot.simulator import SimulatedRig

if "cubebot.robot.urlhandler" not in serial.protocol_handler_packages:
    serial.protocol_handler_packages.append("cubebot.robot.urlhandler")

__all__ = [
    "RigModel", "builtin_models", "Plan", "Slot", "plan", "rig_time",
    "Rig", "RigInfo", "RigState", "JobStatus", "job_id", "StreamReport", "StreamProgress", "SimulatedRig", "Faults",
    "RobotError", "RigConnectionError", "RigTimeoutError", "ProtocolError", "RigResetError",
    "RigFault", "StallError", "EndStopError", "QueueFullError", "MissingMotorError",
    "EmergencyStopError", "RigStoppedError", "NoJobError", "RigModelError", "UnplannableMoveError",
    "PortBusyError", "RefusedSlotError", "SequenceConflictError", "RigBusyError", "RigLimits",
]
