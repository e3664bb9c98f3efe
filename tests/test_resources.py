"""Tests without external data or tools skip with a reason naming the variable or the
Debian package, and ``USERBENCH_REQUIRE_ALL=1`` (CI) turns every such skip into a failure."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import resources

TESTS = Path(__file__).resolve().parent


def test_go_without_skips_or_fails_as_required(monkeypatch) -> None:
    monkeypatch.delenv(resources.REQUIRE_ALL_ENV, raising=False)
    with pytest.raises(pytest.skip.Exception, match="^tau2 data missing: set X$"):
        resources.go_without("tau2 data missing:\n set X", "tau2-data")
    monkeypatch.setenv(resources.REQUIRE_ALL_ENV, "1")
    with pytest.raises(pytest.fail.Exception, match=r"set X \[USERBENCH_REQUIRE_ALL=1 turns this skip into a failure\]"):
        resources.go_without("set X", "tau2-data")
    monkeypatch.setenv(resources.ALLOW_MISSING_ENV, "docker, chromium")
    with pytest.raises(pytest.skip.Exception):
        resources.go_without("no engine", "docker")
    with pytest.raises(pytest.fail.Exception):
        resources.go_without("set X", "tau2-data")
    monkeypatch.setenv(resources.REQUIRE_ALL_ENV, "0")
    assert not resources.require_all("tau2-data")


def test_missing_shared_folders_name_their_variable(monkeypatch, tmp_path) -> None:
    monkeypatch.delenv(resources.REQUIRE_ALL_ENV, raising=False)
    monkeypatch.setattr(resources, "SHARED", tmp_path / "no-shared")
    for variable, require in (("USERBENCH_TAU2_DATA", resources.tau2_data),
                              ("USERBENCH_APB_SAMPLE", resources.apb_sample)):
        monkeypatch.setenv(variable, str(tmp_path / "missing"))
        with pytest.raises(pytest.skip.Exception, match=f"set {variable} "):
            require()
    (tmp_path / "tau2" / "domains").mkdir(parents=True)
    monkeypatch.setenv("USERBENCH_TAU2_DATA", str(tmp_path / "tau2"))
    assert resources.tau2_data() == tmp_path / "tau2"
    monkeypatch.setenv("USERBENCH_TAU2_GOLDEN", str(tmp_path / "missing"))
    with pytest.raises(pytest.skip.Exception, match="set USERBENCH_TAU2_GOLDEN "):
        resources.tau2_golden()


def test_missing_tools_name_their_debian_package(monkeypatch) -> None:
    import shutil

    monkeypatch.delenv(resources.REQUIRE_ALL_ENV, raising=False)
    monkeypatch.delenv("USERBENCH_CHROMIUM", raising=False)
    monkeypatch.setattr(shutil, "which", lambda name, *a, **k: None)
    with pytest.raises(pytest.skip.Exception, match="apt-get install chromium"):
        resources.chromium()
    with pytest.raises(pytest.skip.Exception, match="apt-get install xvfb xdotool"):
        resources.local_app()


PROBE = '''
from userbench_env.tasks import load_tasks

def test_reaches_tau2_data_indirectly():
    load_tasks("airline", source="tau2")

def test_golden(golden_dir):
    pass
'''


def _pytest(tmp_path: Path, **env: str) -> subprocess.CompletedProcess:
    (tmp_path / "test_probe_resources.py").write_text(PROBE, encoding="utf-8")
    base = {k: v for k, v in os.environ.items() if not k.startswith("USERBENCH_") and k != "PYTEST_ADDOPTS"}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "conftest", "-p", "no:cacheprovider", "-p", "no:randomly",
         str(tmp_path / "test_probe_resources.py")],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
        env={**base, "PYTHONPATH": str(TESTS), "USERBENCH_TAU2_DATA": str(tmp_path / "none"),
             "USERBENCH_TAU2_GOLDEN": str(tmp_path / "none"), **env})


def test_library_errors_about_missing_data_skip_and_require_all_fails(tmp_path) -> None:
    done = _pytest(tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 skipped" in done.stdout
    assert "Tau2DataNotFound" in done.stdout and "USERBENCH_TAU2_DATA" in done.stdout
    strict = _pytest(tmp_path, USERBENCH_REQUIRE_ALL="1")
    assert strict.returncode == 1 and "1 failed, 1 error" in strict.stdout, strict.stdout  # the fixture errs
    assert strict.stdout.count("USERBENCH_REQUIRE_ALL=1 turns this skip into a failure") >= 2


def test_ci_requires_everything() -> None:
    ci = (TESTS.parent / ".ci" / "run").read_text(encoding="utf-8")
    assert "export USERBENCH_REQUIRE_ALL=1" in ci
