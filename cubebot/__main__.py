"""Run the command line with ``python -m cubebot``."""

import sys

from cubebot.cli import main

sys.exit(main())
