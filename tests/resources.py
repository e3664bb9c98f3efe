"""External data and system tools the tests need, and the one way a test goes without them.

A test that needs something this checkout does not contain (tau2-bench's data, the
golden fixtures, the APB sample, Chromium, Xvfb, a Docker engine) is skipped with a
one-line reason that names the environment variable or the Debian package to install.
With ``USERBENCH_REQUIRE_ALL=1`` (CI sets it) every such skip is a failure instead, so
CI cannot go green while silently not running a test it should run.

The shared data folders are read from their variable, else from ``../shared/<name>``
beside the repository (where this project's own machines keep them).
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import NoReturn

import pytest

from userbench_env.datapaths import TAU2_ENV_VAR, Tau2DataNotFound
from userbench_env.errors import MissingDependency

REQUIRE_ALL_ENV = "USERBENCH_REQUIRE_ALL"
SHARED = Path(__file__).resolve().parents[2] / "shared"

#: library errors that mean "an external resource is missing", turned into skips by conftest
MISSING_ERRORS: tuple[type[BaseException], ...] = (Tau2DataNotFound, MissingDependency)


ALLOW_MISSING_ENV = "USERBENCH_ALLOW_MISSING"


def require_all(resource: str) -> bool:
    """Whether a missing ``resource`` must fail: ``$USERBENCH_REQUIRE_ALL`` is set and
    ``resource`` is not in the comma list ``$USERBENCH_ALLOW_MISSING`` (e.g. ``docker``)."""
    allowed = {name.strip() for name in os.environ.get(ALLOW_MISSING_ENV, "").split(",")}
    return os.environ.get(REQUIRE_ALL_ENV, "") not in ("", "0") and resource not in allowed


def go_without(reason: str, resource: str, module_level: bool = False) -> NoReturn:
    """Skip the test (or the whole module) for want of ``resource``; fail under ``USERBENCH_REQUIRE_ALL=1``."""
    reason = " ".join(str(reason).split())  # one line
    if require_all(resource):
        pytest.fail(f"{reason} [{REQUIRE_ALL_ENV}=1 turns this skip into a failure]", pytrace=False)
    pytest.skip(reason, allow_module_level=module_level)


def shared_folder(variable: str, name: str, marker: str) -> Path | None:
    """``$variable``, else ``../shared/<name>``, if it holds ``marker``; else ``None``."""
    path = Path(os.environ.get(variable) or SHARED / name)
    return path if (path / marker).exists() else None


def _require_folder(variable: str, name: str, marker: str, what: str, module_level: bool) -> Path:
    path = shared_folder(variable, name, marker)
    if path is None:
        go_without(f"{what} not found: set {variable} (default ../shared/{name})", name, module_level)
    return path


def tau2_data(module_level: bool = False) -> Path:
    """The tau2-bench data folder (``$USERBENCH_TAU2_DATA``, holding ``domains/``)."""
    return _require_folder(TAU2_ENV_VAR, "tau2-data", "domains", "tau2-bench data", module_level)


def tau2_golden(module_level: bool = False) -> Path:
    """The tau2 golden fixtures (``$USERBENCH_TAU2_GOLDEN``); they are replayed on tau2 data too."""
    tau2_data(module_level)
    return _require_folder("USERBENCH_TAU2_GOLDEN", "tau2-golden", "airline", "tau2 golden fixtures", module_level)


def apb_sample(module_level: bool = False) -> Path:
    """The AgentPersonaBench sample (``$USERBENCH_APB_SAMPLE``)."""
    return _require_folder("USERBENCH_APB_SAMPLE", "apb-sample", ".", "AgentPersonaBench sample", module_level)


def real_transcripts(module_level: bool = False) -> Path:
    """The real LLM-user transcripts (``$USERBENCH_REAL_TRANSCRIPTS``, tau-bench's GPT-4o airline list)."""
    return _require_folder("USERBENCH_REAL_TRANSCRIPTS", "real-transcripts", "taubench-gpt4o-airline.json",
                           "real LLM-user transcripts", module_level)


def chromium() -> None:
    """Chromium for Web-v0 (Debian package ``chromium`` or ``$USERBENCH_CHROMIUM``)."""
    from userbench_env.surfaces.web.browser import chromium_path

    try:
        found = chromium_path()
    except FileNotFoundError as exc:
        go_without(str(exc), "chromium")
    if found is None:
        go_without("Chromium not found: apt-get install chromium (or set USERBENCH_CHROMIUM)", "chromium")


def local_app() -> None:
    """Xvfb, xdotool, Tk and Pillow for App-v0's local runtime."""
    from userbench_env.surfaces.app.runtime import require_local_app

    try:
        require_local_app()
    except MissingDependency as exc:
        go_without(str(exc), "app")


def docker() -> None:
    """A Docker engine with App-v0's image (``docker.io``, then ``build_image.sh``)."""
    from userbench_env.surfaces.app.runtime import docker_available

    reason = docker_available()
    if reason is not None:
        go_without("Docker not usable (apt-get install docker.io, start dockerd, then "
                   f"sh userbench_env/surfaces/app/docker/build_image.sh): {reason}", "docker")
