"""Errors that are the user's to fix, and the install hints they carry.

A :class:`UserError` is a mistake in the input or the setup (a bad flag value, a file
that is not what it should be, a missing optional package): the ``userbench`` command
prints its message on one line and exits 2, never a traceback. :class:`MissingDependency`
is the one for an optional extra or a system package that is not installed; its message
names the ``pip`` command, right for an installed wheel and for a clone of the
repository (:func:`extra_hint`), torch's CPU build where torch is needed
(:data:`TORCH_CPU_HINT`), and the Debian package.
"""
from __future__ import annotations

import importlib.util
import shutil


class UserError(Exception):
    """A mistake the user can fix from the message alone (the CLI prints it, exit 2)."""


class MissingDependency(UserError, RuntimeError):
    """An optional Python extra or a system package needed by a feature is not installed."""


class UnknownTaskId(UserError, KeyError):
    """A task id that the chosen tasks do not hold; the message names the command listing them.

    A ``KeyError`` too (a lookup that found nothing), whose message reads as a sentence.
    """

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


#: our distribution's name on PyPI (an installed wheel's extras are named after it)
DISTRIBUTION = "userbench-env"
#: the command installing torch's CPU build (torch from PyPI proper is a multi-GB CUDA build)
TORCH_CPU_HINT = "pip install torch --index-url https://download.pytorch.org/whl/cpu"
#: our extras that need torch (install its CPU build first)
TORCH_EXTRAS = frozenset({"local", "trl"})


def extra_hint(extra: str) -> str:
    """The command installing one of our extras, for an installed package and for a clone;
    for an extra needing torch, preceded by torch's CPU build (:data:`TORCH_CPU_HINT`)."""
    hint = f'pip install "{DISTRIBUTION}[{extra}]" (from a clone: pip install -e ".[{extra}]")'
    return f"{TORCH_CPU_HINT}, then {hint}" if extra in TORCH_EXTRAS else hint


def apt_hint(*packages: str) -> str:
    """The Debian command installing ``packages``."""
    return f"apt-get install {' '.join(packages)}"


def require_module(module: str, feature: str, extra: str) -> None:
    """Raise :class:`MissingDependency` naming ``extra`` unless ``module`` is importable."""
    if importlib.util.find_spec(module) is None:
        raise MissingDependency(f"{feature} needs the Python package {module!r}, which is not installed: "
                                f"{extra_hint(extra)}")


def require_programs(programs: dict[str, str], feature: str) -> None:
    """Raise :class:`MissingDependency` naming the Debian packages of the missing programs.

    ``programs`` maps an executable's name to the Debian package providing it.
    """
    missing = {name: package for name, package in programs.items() if shutil.which(name) is None}
    if missing:
        raise MissingDependency(f"{feature} needs {', '.join(missing)}, not found on PATH: "
                                f"{apt_hint(*dict.fromkeys(missing.values()))}")
