"""Shared fixtures: the external data and tools tests need (see ``resources.py``).

A missing resource skips the test with a one-line reason naming the variable or the
Debian package (a failure under ``USERBENCH_REQUIRE_ALL=1``). Besides the fixtures, a
test whose library call raises ``Tau2DataNotFound`` or ``MissingDependency`` (the
library's own errors for absent tau2 data, extras or system packages) is skipped the
same way, so a test need not declare data it reaches only indirectly.
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest

import resources
from userbench_env.datapaths import TAU2_ENV_VAR, Tau2DataNotFound

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")
if TAU2_ENV_VAR not in os.environ and (_shared_tau2 := resources.shared_folder(TAU2_ENV_VAR, "tau2-data", "domains")):
    os.environ[TAU2_ENV_VAR] = str(_shared_tau2)  # ../shared/tau2-data beside the repository


def _missing_resource(exc: BaseException) -> None:
    """Skip (or fail, under USERBENCH_REQUIRE_ALL) for a library error about a missing resource."""
    resource = "tau2-data" if isinstance(exc, Tau2DataNotFound) else "dependency"
    resources.go_without(f"{type(exc).__name__}: {exc}", resource)


def _missing_as_skip(item):
    """Hook wrapper of a test's setup and call: a missing-resource error becomes a named skip."""
    try:
        return (yield)
    except resources.MISSING_ERRORS as exc:
        missing = exc
    _missing_resource(missing)  # outside the handler: a one-line reason, no chained traceback


pytest_runtest_setup = pytest.hookimpl(wrapper=True)(_missing_as_skip)
pytest_runtest_call = pytest.hookimpl(wrapper=True)(_missing_as_skip)


def _long(item: pytest.Item) -> bool:
    return item.get_closest_marker("slow") is not None or item.get_closest_marker("realmodel") is not None


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Run the long tests (markers ``slow`` and ``realmodel``: training, a real model) first,
    in their usual order, so that under ``-n 2`` they start early beside the quick ones."""
    items.sort(key=lambda item: not _long(item))


@pytest.fixture(scope="session")
def tau2_data() -> Path:
    """The tau2-bench data folder (``$USERBENCH_TAU2_DATA``)."""
    return resources.tau2_data()


@pytest.fixture(scope="session")
def golden_dir() -> Path:
    """The tau2 golden fixtures (``$USERBENCH_TAU2_GOLDEN``)."""
    return resources.tau2_golden()


@pytest.fixture(scope="session")
def apb_sample() -> Path:
    """The AgentPersonaBench sample (``$USERBENCH_APB_SAMPLE``)."""
    return resources.apb_sample()


@pytest.fixture(scope="session")
def chromium() -> None:
    """Chromium for Web-v0 (Debian ``chromium``)."""
    resources.chromium()


@pytest.fixture(scope="session")
def local_app() -> None:
    """Xvfb, xdotool and Tk for App-v0's local runtime (Debian ``xvfb xdotool python3-tk``)."""
    resources.local_app()


@pytest.fixture(scope="session")
def docker_engine() -> None:
    """A Docker engine with App-v0's image."""
    resources.docker()
