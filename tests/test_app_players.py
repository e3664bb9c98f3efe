"""App surface end to end: scripted players clicking by coordinates read from the text.

On each runtime that can run here (local Xvfb always; Docker when a daemon and the
image are available), a trait-holding player passes and a trait-breaking one fails on
12 bundled tasks (single and multi attribute), scored from the file the app wrote.
"""
from __future__ import annotations

import gymnasium as gym
import pytest

import userbench_env  # noqa: F401  (registers the env ids)
from userbench_env.surfaces.app.player import ScriptedAppPlayer
from userbench_env.surfaces.tasks import load_surface_tasks

TASK_IDS = sorted(t.id for t in load_surface_tasks("app"))[::5]


@pytest.fixture(scope="module", params=["local", "docker"])
def app_env(request):
    request.getfixturevalue("local_app" if request.param == "local" else "docker_engine")
    env = gym.make("UserBench/App-v0", surface_options={"runtime": request.param})
    yield env
    env.close()


def play(env, task_id: str, hold: bool) -> dict:
    obs, info = env.reset(options={"task_id": task_id})
    assert obs["image"].shape == (768, 1024, 3) and obs["image"].any()
    player = ScriptedAppPlayer(env.unwrapped.tasks[task_id], hold)
    for _ in range(12):
        obs, reward, terminated, truncated, info = env.step(player.act(obs["text"]))
        if terminated or truncated:
            return {"reward": reward, **info["episode_record"]}
    raise AssertionError("the episode did not end")


def test_selection_covers_single_and_multi():
    tasks = {t.id: t for t in load_surface_tasks("app")}
    assert len(TASK_IDS) >= 10
    assert any(tasks[i].multi for i in TASK_IDS) and any(not tasks[i].multi for i in TASK_IDS)


@pytest.mark.parametrize("task_id", TASK_IDS)
def test_holding_player_passes_breaking_player_fails(app_env, task_id):
    held = play(app_env, task_id, hold=True)
    assert held["status"] == "pass", held
    assert held["reward"] == held["max_points"] == len(app_env.unwrapped.tasks[task_id].checks)
    assert app_env.unwrapped.backend.runtime.name == app_env.unwrapped.backend.runtime_kind
    broke = play(app_env, task_id, hold=False)
    assert broke["status"] == "fail", broke
    first = broke["checks"][0]
    assert first["verdict"] == "VIOLATED" and first["offside"]
    written = broke["artifact"][app_env.unwrapped.tasks[task_id].app.list_key]
    assert {e["id"] for e in written} == set(first["offside"]) or first["rule"].startswith("at-least")
