"""The ``userbench`` command.

Each subcommand lives in the module that owns its feature and is imported only when
it runs, so ``userbench --help`` stays fast. A feature module provides
``register(subparsers)``, which adds its parser(s) and sets ``func`` to a handler
``(args) -> int``.
"""
from __future__ import annotations

import argparse
import importlib
import sys

#: subcommand -> module providing ``register(subparsers)``
SUBCOMMANDS: dict[str, str] = {
    "generate": "userbench_env.generate.cli",
    "serve": "userbench_env.serve.cli",
    "validate-fidelity": "userbench_env.fidelity.cli",
    "grade": "userbench_env.fidelity.cli",
    "apb": "userbench_env.surfaces.cli",
    "eval": "userbench_env.runner.cli",
    "report": "userbench_env.analysis.cli",
    "frontier": "userbench_env.analysis.cli",
}


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser (imports every subcommand's module)."""
    parser = argparse.ArgumentParser(
        prog="userbench",
        description="UserBench: agent environments with measured user-proxy fidelity.",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module_name in dict.fromkeys(SUBCOMMANDS.values()):
        importlib.import_module(module_name).register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the console script; returns the process exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    return int(args.func(args) or 0)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
