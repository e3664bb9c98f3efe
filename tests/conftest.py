"""Shared fixtures: where the shared upstream data lives (never copied into the repo)."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("USERBENCH_TAU2_DATA", str(SHARED / "tau2-data"))


def _shared_dir(env: str, sub: str) -> Path:
    return Path(os.environ.get(env, SHARED / sub))


@pytest.fixture(scope="session")
def tau2_data() -> Path:
    """The tau2-bench data folder (``$USERBENCH_TAU2_DATA``)."""
    path = Path(os.environ["USERBENCH_TAU2_DATA"])
    if not (path / "domains").is_dir():
        pytest.fail(f"tau2 data missing at {path}: set USERBENCH_TAU2_DATA")
    return path


@pytest.fixture(scope="session")
def golden_dir() -> Path:
    """The tau2 golden fixtures (``../shared/tau2-golden``)."""
    path = _shared_dir("USERBENCH_TAU2_GOLDEN", "tau2-golden")
    if not path.is_dir():
        pytest.fail(f"golden fixtures missing at {path}")
    return path


@pytest.fixture(scope="session")
def apb_sample() -> Path:
    """The AgentPersonaBench sample (``../shared/apb-sample``)."""
    path = _shared_dir("USERBENCH_APB_SAMPLE", "apb-sample")
    if not path.is_dir():
        pytest.fail(f"APB sample missing at {path}")
    return path
