"""Commands of the robot part (registered by that part's work)."""

from __future__ import annotations

import argparse


def register(commands: argparse._SubParsersAction, calibrate: argparse._SubParsersAction) -> None:
    """Add this part's commands (none yet)."""
