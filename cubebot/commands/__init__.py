"""The command-line subcommands, one module per part.

Each module has ``register(commands, calibrate)`` adding its subcommands to the top-level
parser's subparsers (and, where it has one, a ``cubebot calibrate …`` target); every parser
sets ``func(args) -> int``.
"""
