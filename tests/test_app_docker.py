"""The app in a Docker container: no network (proved from inside), driven through the
SDK, restarted when it dies, and parallel containers kept apart. Skipped when no
daemon answers or the image is not built (``userbench_env/surfaces/app/docker/build_image.sh``)."""
from __future__ import annotations

import json

import gymnasium as gym
import pytest
from gymnasium.utils.env_checker import check_env

import userbench_env  # noqa: F401
from userbench_env.surfaces.app.player import ScriptedAppPlayer

pytestmark = pytest.mark.usefixtures("docker_engine")
TASK = "lstyle-diet-type-app"

PROBE = """
import os, socket
print(sorted(os.listdir('/sys/class/net')))
for host in [('1.1.1.1', 80), ('172.17.0.1', 2375)]:
    s = socket.socket(); s.settimeout(2)
    try:
        s.connect(host); print('connected')
    except OSError as exc:
        print(type(exc).__name__, exc.errno)
"""


@pytest.fixture(scope="module")
def env():
    env = gym.make("UserBench/App-v0", surface_options={"runtime": "docker"}, task_id=TASK)
    yield env
    env.close()


def test_container_has_no_network(env):
    env.reset()
    container = env.unwrapped.backend.runtime.container
    container.reload()
    assert container.attrs["HostConfig"]["NetworkMode"] == "none"
    assert container.attrs["NetworkSettings"]["IPAddress"] == ""
    code, out = container.exec_run(["python3", "-c", PROBE])
    lines = out.decode().split("\n")
    assert code == 0 and lines[0] == "['lo']"
    assert "connected" not in out.decode()
    assert lines[1].startswith("OSError 101") and lines[2].startswith("OSError 101")  # network unreachable


def test_dead_app_is_restarted_in_the_container(env):
    obs, _ = env.reset()
    runtime = env.unwrapped.backend.runtime
    pid, before = runtime.app_pid, runtime.restarts
    code, _ = runtime.container.exec_run(["python3", "-c", f"import os; os.kill({pid}, 9)"])
    assert code == 0
    obs, _, terminated, _, _ = env.step(json.dumps({"type": "wait", "seconds": 0}))
    assert not terminated and runtime.restarts == before + 1 and runtime.app_pid != pid
    assert "started again" in obs["text"] and "0 selected" in obs["text"]
    player = ScriptedAppPlayer(env.unwrapped.tasks[TASK], hold=True)
    for _ in range(8):
        obs, _, terminated, _, info = env.step(player.act(obs["text"]))
        if terminated:
            break
    assert info["episode_record"]["status"] == "pass"


def test_two_containers_side_by_side():
    envs = [gym.make("UserBench/App-v0", surface_options={"runtime": "docker"}, task_id=TASK) for _ in range(2)]
    try:
        for e in envs:
            e.reset()
        a, b = (e.unwrapped.backend.runtime.container for e in envs)
        assert a.id != b.id
        obs, *_ = envs[0].step(ScriptedAppPlayer(envs[0].unwrapped.tasks[TASK]).act(envs[0].unwrapped.backend.text("")))
        assert "1 selected" in obs["text"]
        other, *_ = envs[1].step(json.dumps({"type": "wait", "seconds": 0}))
        assert "0 selected" in other["text"]
    finally:
        for e in envs:
            e.close()


def test_check_env_passes_on_docker():
    env = gym.make("UserBench/App-v0", surface_options={"runtime": "docker"}, task_id=TASK)
    try:
        check_env(env.unwrapped, skip_render_check=True)
    finally:
        env.close()
