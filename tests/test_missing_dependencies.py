"""A missing extra or system package is a clear error at ``reset()`` that names the
``pip install -e ".[extra]"`` command or the Debian package, never a raw ``ModuleNotFoundError``
or Playwright's "run playwright install" banner."""
from __future__ import annotations

import shutil
import sys

import gymnasium as gym
import pytest

import userbench_env  # noqa: F401  (registers the ids)
from userbench_env.errors import MissingDependency, UserError
from userbench_env.surfaces.web import browser


@pytest.fixture
def fresh_browser():
    """No browser of this process is reused (each case launches, or fails to)."""
    browser.close_browser()
    yield
    browser.close_browser()


def test_missing_dependency_is_a_user_error() -> None:
    assert issubclass(MissingDependency, UserError) and issubclass(MissingDependency, RuntimeError)


def test_web_without_playwright_names_the_web_extra(monkeypatch, fresh_browser) -> None:
    monkeypatch.setitem(sys.modules, "playwright", None)  # as if the extra were not installed
    env = gym.make("UserBench/Web-v0")
    with pytest.raises(MissingDependency, match=r'needs the Python package \'playwright\'.*pip install -e "\.\[web\]"'):
        env.reset(seed=0)


def test_web_without_chromium_names_the_debian_package(monkeypatch, fresh_browser) -> None:
    monkeypatch.delenv(browser.CHROMIUM_ENV, raising=False)
    real_which = shutil.which
    monkeypatch.setattr(browser.shutil, "which", lambda name: None if "chromium" in name else real_which(name))
    monkeypatch.setenv("PLAYWRIGHT_BROWSERS_PATH", "/nonexistent")  # no Playwright-managed browser either
    env = gym.make("UserBench/Web-v0")
    with pytest.raises(MissingDependency, match=r"needs Chromium, which is not installed: apt-get install chromium"):
        env.reset(seed=0)


def _app_reset_raises(runtime: str, match: str) -> None:
    """``reset()`` of an App-v0 env on ``runtime`` raises a MissingDependency matching ``match``."""
    env = gym.make("UserBench/App-v0", surface_options={"runtime": runtime})
    try:
        with pytest.raises(MissingDependency, match=match):
            env.reset(seed=0)
    finally:
        env.close()


@pytest.mark.parametrize("program, package", [("Xvfb", "xvfb"), ("xdotool", "xdotool")])
def test_app_without_display_tools_names_the_debian_packages(monkeypatch, program, package) -> None:
    monkeypatch.setattr(shutil, "which", lambda name, *a, **k: None if name == program else f"/usr/bin/{name}")
    _app_reset_raises("local", rf"needs {program}, not found on PATH: apt-get install {package}$")


def test_app_without_tk_names_python3_tk(monkeypatch) -> None:
    monkeypatch.setattr(shutil, "which", lambda name, *a, **k: f"/usr/bin/{name}")  # the programs are there
    monkeypatch.setitem(sys.modules, "_tkinter", None)
    _app_reset_raises("local", r"needs Tk for Python.*apt-get install python3-tk")


def test_app_docker_runtime_without_the_sdk_names_the_app_extra(monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "docker", None)
    _app_reset_raises("docker", r'needs the Python package \'docker\'.*pip install -e "\.\[app\]"')
