"""The ``userbench`` command.

Each subcommand lives in the module that owns its feature and is imported only when
it runs, so ``userbench --help`` stays fast. A feature module provides
``register(subparsers)``, which adds its parser(s) and sets ``func`` to a handler
``(args) -> int``.

Conventions every subcommand follows (``tests/test_cli_style.py`` checks them):

* every subcommand and every flag has help text; every parser made through
  ``subparsers.add_parser`` is a :class:`Parser`, whose :class:`HelpFormatter` appends
  each flag's default to its help (write no "(default ...)" by hand unless it says
  more than the value);
* a user error is one line on stderr and exit code 2, never a traceback: raise
  :class:`~userbench_env.errors.UserError` (or ``ValueError``/``FileNotFoundError``)
  from a handler and :func:`main` prints ``userbench <command>: <message>``;
* tasks come from ``--source`` (default ``bundled``) with ``--data-path`` for tau2
  data: add both with :func:`add_source_arguments`;
* an install hint is :func:`userbench_env.errors.extra_hint`: ``pip install
  "userbench-env[extra]"`` and its form for a clone; torch's CPU build first where torch
  is needed.
"""
from __future__ import annotations

import argparse
import importlib
import os
import sys
from typing import Any

from userbench_env.errors import UserError

#: errors a handler may raise for bad input or setup: one line, exit 2
USER_ERRORS: tuple[type[BaseException], ...] = (
    UserError, ValueError, FileNotFoundError, IsADirectoryError, NotADirectoryError, PermissionError,
)
#: set to 1 to get the traceback of a user error (for bug reports)
TRACEBACK_ENV = "USERBENCH_TRACEBACK"

#: subcommand -> module providing ``register(subparsers)``
SUBCOMMANDS: dict[str, str] = {
    "generate": "userbench_env.generate.cli",
    "serve": "userbench_env.serve.cli",
    "models": "userbench_env.serve.models_cli",
    "validate-fidelity": "userbench_env.fidelity.cli",
    "grade": "userbench_env.fidelity.cli",
    "apb": "userbench_env.surfaces.cli",
    "eval": "userbench_env.runner.cli",
    "collect": "userbench_env.integrations.collect_cli",
    "report": "userbench_env.analysis.cli",
    "frontier": "userbench_env.analysis.cli",
    "score-transcripts": "userbench_env.fidelity.transcripts.cli",
    "export": "userbench_env.fidelity.transcripts.cli",
    "tasks": "userbench_env.tasks.cli",
}


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Keeps descriptions as written and appends ``(default: X)`` to a flag's help when
    it has a default worth showing (not ``None``/``False``) the text does not state."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        shown = not (action.default is None or action.default is False or action.default == argparse.SUPPRESS
                     or isinstance(action.default, list))
        if shown and action.option_strings and "default" not in text.lower():
            text += " (default: %(default)s)"
        return text


class Parser(argparse.ArgumentParser):
    """The parser of ``userbench`` and of every subcommand (uses :class:`HelpFormatter`)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)

    def add_subparsers(self, **kwargs: Any) -> Any:
        kwargs.setdefault("parser_class", Parser)
        return super().add_subparsers(**kwargs)


def add_source_arguments(parser: argparse.ArgumentParser) -> None:
    """``--source`` (``bundled`` default, or ``tau2``) and ``--data-path`` (tau2 data folder)."""
    from userbench_env.datapaths import TAU2_ENV_VAR

    parser.add_argument("--source", choices=["bundled", "tau2"], default="bundled",
                        help="task source: our bundled worlds, or tau2-bench's data")
    parser.add_argument("--data-path", help=f"tau2 data folder for --source tau2 (default: ${TAU2_ENV_VAR})")


def version() -> str:
    """The installed distribution's version."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as dist_version

    try:
        return dist_version("userbench-env")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "unknown (not installed)"


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser (imports every subcommand's module)."""
    parser = Parser(
        prog="userbench",
        description="UserBench: agent environments with measured user-proxy fidelity.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {version()}",
                        help="print the version and exit")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module_name in dict.fromkeys(SUBCOMMANDS.values()):
        importlib.import_module(module_name).register(subparsers)
    return parser


def one_line(exc: BaseException) -> str:
    """The message of ``exc`` on one line (its type name when it has none)."""
    return " ".join(str(exc).split()) or type(exc).__name__


def main(argv: list[str] | None = None) -> int:
    """Entry point of the console script; returns the process exit code.

    A user error raised by a handler (see :data:`USER_ERRORS`) is printed as one line,
    exit 2 (``$USERBENCH_TRACEBACK=1`` re-raises it); Ctrl-C prints one line, exit 130;
    a closed stdout (``userbench report --json | head``) ends quietly, exit 1.
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        code = int(args.func(args) or 0)
        sys.stdout.flush()  # a reader that left shows here, not at interpreter exit
        return code
    except USER_ERRORS as exc:
        if os.environ.get(TRACEBACK_ENV, "") not in ("", "0"):
            raise
        print(f"userbench {args.command}: {one_line(exc)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"userbench {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # the reader left: send the rest of our output nowhere so the exit flush cannot fail again
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
