"""App-v0's processes and folder never outlive their owner: ``kill -9`` of the process
that started an env, a normal exit without ``close()``, garbage collection, and a failed
``reset`` all leave no Xvfb, no app and no temporary folder behind. Agent input the
display cannot take (NUL bytes, 10,000 keys, a key named like a flag, an unknown key
sequence) is an invalid action, never an infrastructure error."""
from __future__ import annotations

import gc
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import gymnasium as gym
import pytest

import userbench_env  # noqa: F401
from userbench_env.surfaces.app import driver
from userbench_env.surfaces.app.runtime import LocalRuntime
from userbench_env.surfaces.app.spec import launch_payload
from userbench_env.surfaces.tasks import load_surface_tasks

TASK = "lstyle-diet-type-app"

#: a process that starts an App env, reports what it started, then waits to be killed, or exits
#: once its standard input closes (so the test sees the processes alive before the exit)
CHILD = """
import json, sys, time
import gymnasium as gym
import userbench_env
env = gym.make("UserBench/App-v0", surface_options={"runtime": "local"}, task_id=%r)
env.reset(seed=0)
runtime = env.unwrapped.backend.runtime
print(json.dumps({"pids": [runtime.xvfb.pid, runtime.app.pid], "root": str(runtime.root),
                  "watchdog": runtime.watchdog_pid}), flush=True)
if sys.argv[1] == "wait":
    time.sleep(600)
else:
    sys.stdin.read()
"""


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie waiting to be reaped counts as dead)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return False
    return fields[0] != "Z"


def gone(started: dict, timeout: float = 20.0) -> bool:
    """Wait until every process in ``started`` is dead and its folder deleted."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not any(alive(p) for p in [*started["pids"], started["watchdog"]]) and not Path(started["root"]).exists():
            return True
        time.sleep(0.1)
    return False


def start_child(mode: str) -> tuple[subprocess.Popen, dict]:
    proc = subprocess.Popen([sys.executable, "-c", CHILD % TASK, mode], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True)
    assert proc.stdout is not None
    started = json.loads(proc.stdout.readline())
    assert all(alive(p) for p in started["pids"]) and Path(started["root"]).is_dir()
    return proc, started


def test_kill_9_of_the_parent_leaves_nothing_behind(local_app) -> None:
    proc, started = start_child("wait")
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert gone(started), started


def test_exit_without_close_leaves_nothing_behind(local_app) -> None:
    proc, started = start_child("exit")
    assert proc.stdin is not None
    proc.stdin.close()  # the child exits now, without close()
    assert proc.wait(60) == 0
    assert gone(started), started


DOCKER_CHILD = """
import json, time
import gymnasium as gym
import userbench_env
env = gym.make("UserBench/App-v0", surface_options={"runtime": "docker"}, task_id=%r)
env.reset(seed=0)
runtime = env.unwrapped.backend.runtime
print(json.dumps({"container": runtime.container.id, "watchdog": runtime._owned.guard.pid}), flush=True)
time.sleep(600)
"""


def test_kill_9_of_the_parent_removes_its_container(docker_engine) -> None:
    import docker
    from docker.errors import NotFound

    proc = subprocess.Popen([sys.executable, "-c", DOCKER_CHILD % TASK], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    started = json.loads(proc.stdout.readline())
    client = docker.from_env()
    assert client.containers.get(started["container"]).status == "running"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            client.containers.get(started["container"])
        except NotFound:
            break
        time.sleep(0.2)
    with pytest.raises(NotFound):
        client.containers.get(started["container"])
    while alive(started["watchdog"]) and time.monotonic() < deadline:  # it exits once the container is gone
        time.sleep(0.1)
    assert not alive(started["watchdog"])


def test_garbage_collection_releases_the_runtime() -> None:
    task = load_surface_tasks("app")[0]
    runtime = LocalRuntime()
    runtime.start(launch_payload(task.app, task.answer_key))
    started = {"pids": [runtime.xvfb.pid, runtime.app.pid], "root": str(runtime.root),
               "watchdog": runtime.watchdog_pid}
    del runtime
    gc.collect()
    assert gone(started), started


def test_a_failed_reset_cleans_up(monkeypatch) -> None:
    env = gym.make("UserBench/App-v0", surface_options={"runtime": "local"}, task_id=TASK)
    started: dict = {}
    real_launch = driver.launch_app

    def launch_then_fail(*args, **kwargs):
        proc = real_launch(*args, **kwargs)  # the display and the app are really up...
        runtime = env.unwrapped.backend.runtime
        started.update(pids=[runtime.xvfb.pid, proc.pid], root=str(runtime.root), watchdog=runtime.watchdog_pid)
        raise driver.AppTimeout("injected: the app did not answer")  # ...then the reset fails

    monkeypatch.setattr(driver, "launch_app", launch_then_fail)
    try:
        with pytest.raises(driver.AppTimeout, match="injected"):
            env.reset(seed=0)
        assert env.unwrapped.backend.runtime is None
        assert gone(started), started
    finally:
        env.close()


@pytest.fixture(scope="module")
def env():
    env = gym.make("UserBench/App-v0", surface_options={"runtime": "local"}, task_id=TASK)
    env.reset(seed=0)
    yield env
    env.close()


@pytest.mark.parametrize("action", [
    {"type": "type", "text": "a\x00b"},
    {"type": "key", "keys": ["a"] * 10_000},
    {"type": "key", "keys": "--help"},
    {"type": "key", "keys": ["--version", "-x"]},
    {"type": "key", "keys": "ctrl+a Return"},
])
def test_hostile_input_is_an_invalid_action(env, action) -> None:
    obs, reward, terminated, truncated, info = env.step(json.dumps(action))
    assert "Invalid action" in obs["text"] and not terminated and not truncated
    assert info.get("error") is None and "episode_record" not in info


def test_input_xdotool_refuses_is_invalid_not_an_error(env) -> None:
    """Past validation, a key sequence xdotool itself refuses is still the agent's mistake."""
    runtime = env.unwrapped.backend.runtime
    with pytest.raises(driver.InvalidInput, match="refused"):
        driver.perform({"type": "key", "keys": ["ctrl+a Return"]}, runtime.display)
    with pytest.raises(driver.InvalidInput, match="cannot be sent"):
        driver.perform({"type": "type", "text": "a\x00b"}, runtime.display)
    obs, *_ = env.step(json.dumps({"type": "key", "keys": "Escape"}))  # the display still works
    assert "Did key" in obs["text"]
