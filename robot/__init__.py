"""The rig: models and plans, the exactly-once wire protocol, the host client, the simulator.

>>> from cubebot.robot import RigModel, plan, plan_actions
>>> str(plan("U D' R2", RigModel.load("six-motor")))
"U D' | R2"
>>> flipper = plan_actions("U D' R2", RigModel.load("flipper"))
>>> len(flipper), round(flipper.seconds, 2)
(7, 7.18)

Importing the package registers the ``rigsim://`` URL scheme with pyserial, so
``serial.serial_for_url(sim.url)`` reaches an in-process :class:`SimulatedRig`.
"""

import serial

from cubebot.robot.errors import (
    EmergencyStopError,
    EndStopError,
    ImpossibleActionError,
    InvalidActionError,
    MissingMotorError,
    NoJobError,
    PortBusyError,
    ProtocolError,
    QueueFullError,
    RefusedSlotError,
    RigBusyError,
    RefusedActionError,
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
from cubebot.robot.host import Rig, RigInfo
from cubebot.robot.job_status import JobStatus, job_id
from cubebot.robot.sender import StreamProgress, StreamReport
from cubebot.robot.state import RigState
from cubebot.robot.model import RigKind, RigModel, builtin_models
from cubebot.robot.plan import Plan, Slot, plan, rig_time
from cubebot.robot.actions import Action, ActionPlan, ActionRig, plan_actions
from cubebot.robot.actions.solving import RigSolution, solve_for_rig
from cubebot.robot.simulator import SimulatedRig

if "cubebot.robot.urlhandler" not in serial.protocol_handler_packages:
    serial.protocol_handler_packages.append("cubebot.robot.urlhandler")

__all__ = [
    "RigModel", "RigKind", "builtin_models", "Plan", "Slot", "plan", "rig_time",
    "Action", "ActionRig", "ActionPlan", "plan_actions", "RigSolution", "solve_for_rig",
    "Rig", "RigInfo", "RigState", "JobStatus", "job_id", "StreamReport", "StreamProgress",
    "SimulatedRig", "Faults", "RigLimits",
    "RobotError", "RigConnectionError", "RigTimeoutError", "ProtocolError", "RigResetError",
    "RigFault", "StallError", "EndStopError", "QueueFullError", "MissingMotorError",
    "EmergencyStopError", "RigStoppedError", "NoJobError", "RigModelError", "UnplannableMoveError",
    "PortBusyError", "RefusedSlotError", "SequenceConflictError", "RigBusyError",
    "RefusedActionError",
    "InvalidActionError", "ImpossibleActionError",
]
