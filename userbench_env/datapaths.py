"""Where task data lives: our bundled ``tasks/`` folder, or a tau2-bench data checkout.

The tau2 data folder is the one holding ``domains/`` and ``user_simulator/`` (in a
tau2-bench checkout: ``data/tau2``). It is found from an explicit path or from the
``USERBENCH_TAU2_DATA`` environment variable, and never copied into this package.
"""
from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

TAU2_ENV_VAR = "USERBENCH_TAU2_DATA"
#: tau2-bench's repository and the commit (package ``tau2`` 1.0.1) whose data and code our
#: domains, golden fixtures and byte-compatibility tests were made against.
TAU2_REPOSITORY = "https://github.com/sierra-research/tau2-bench"
TAU2_COMMIT = "a2c024725189473d2d7cea3a5cfdbcc67478e41f"

_HOW_TO_GET_TAU2 = (
    f"Get the data with `git clone {TAU2_REPOSITORY} && git -C tau2-bench checkout {TAU2_COMMIT}` "
    f"and point {TAU2_ENV_VAR} at its `data/tau2` folder (the one containing `domains/` and "
    "`user_simulator/`), or pass the path explicitly. Without it, use source='bundled'."
)


class Tau2DataNotFound(FileNotFoundError):
    """The tau2-bench data folder is missing or is not a tau2 data folder."""


def tau2_root(path: str | os.PathLike[str] | None = None) -> Path:
    """The tau2 data folder from ``path`` or ``$USERBENCH_TAU2_DATA``, validated."""
    raw = path if path is not None else os.environ.get(TAU2_ENV_VAR)
    if not raw:
        raise Tau2DataNotFound(f"No tau2-bench data folder: {TAU2_ENV_VAR} is not set. {_HOW_TO_GET_TAU2}")
    root = Path(raw).expanduser()
    if not (root / "domains").is_dir():
        raise Tau2DataNotFound(
            f"{root} is not a tau2-bench data folder (no `domains/` inside). {_HOW_TO_GET_TAU2}"
        )
    return root


@lru_cache(maxsize=1)
def bundled_root() -> Path:
    """The folder of our own bundled task data (``tasks/`` in the source tree)."""
    from importlib.resources import files

    return Path(str(files("userbench_env.bundled")))


def domain_folder(tau2_name: str, name: str, source: str, path: str | os.PathLike[str] | None = None) -> Path:
    """The data folder of one domain for ``source`` (``bundled`` or ``tau2``)."""
    if source == "tau2":
        folder = tau2_root(path) / "domains" / tau2_name
        if not folder.is_dir():
            raise Tau2DataNotFound(f"{folder} does not exist. {_HOW_TO_GET_TAU2}")
        return folder
    if source == "bundled":
        folder = Path(path) if path is not None else bundled_root() / name
        if not folder.is_dir():
            raise FileNotFoundError(f"no bundled data for domain {name!r} at {folder}")
        return folder
    raise ValueError(f"unknown task source {source!r}: use 'bundled' or 'tau2'")
