"""Errors that are the user's to fix, and the install hints they carry.

A :class:`UserError` is a mistake in the input or the setup (a bad flag value, a file
that is not what it should be, a missing optional package): the ``userbench`` command
prints its message on one line and exits 2, never a traceback. :class:`MissingDependency`
is the one for an optional extra or a system package that is not installed; its message
names the ``pip`` command (which works from a clone of the repository) and the Debian
package.
"""
from __future__ import annotations

import importlib.util
import shutil


class UserError(Exception):
    """A mistake the user can fix from the message alone (the CLI prints it, exit 2)."""


class MissingDependency(UserError, RuntimeError):
    """An optional Python extra or a system package needed by a feature is not installed."""


def extra_hint(extra: str) -> str:
    """The command installing one of our extras, from a clone of the repository."""
    return f'pip install -e ".[{extra}]"'


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
