"""App env behaviour on the local Xvfb runtime: Gymnasium contract, parallel envs,
app restarts, invalid actions, basket limits, typing, hidden labels, missing file,
and an upstream APB app task (QuickBite) run on our app."""
from __future__ import annotations

import json
import os
import signal

import gymnasium as gym
import pytest
from gymnasium.utils.env_checker import check_env

import userbench_env  # noqa: F401
from userbench_env.surfaces.app.apb import with_apb_catalog
from userbench_env.surfaces.app.player import ScriptedAppPlayer, buttons
from userbench_env.surfaces.tasks import load_apb_task, load_surface_tasks

SINGLE = "lstyle-diet-type-app"
QUICKBITE = "tasks/single-attribute/health-lifestyle/diet-type/vegan/vegan-app"


@pytest.fixture(scope="module")
def env():
    env = gym.make("UserBench/App-v0", surface_options={"runtime": "local"})
    yield env
    env.close()


def finish(env, player, obs, limit=12):
    for _ in range(limit):
        obs, reward, terminated, truncated, info = env.step(player.act(obs["text"]))
        if terminated or truncated:
            return reward, info["episode_record"]
    raise AssertionError("episode did not end")


def click(text: str, context: str = "", label: str | None = None) -> str:
    for text_, context_, x, y in buttons(text):
        if (label is None or text_ == label) and (not context or context_ == context):
            return json.dumps({"type": "click", "x": x, "y": y})
    raise AssertionError(f"no button {label!r} for {context!r}")


def test_check_env_passes():
    env = gym.make("UserBench/App-v0", surface_options={"runtime": "local"}, task_id=SINGLE)
    try:
        check_env(env.unwrapped, skip_render_check=True)
    finally:
        env.close()


def test_two_envs_side_by_side_use_their_own_displays():
    first = gym.make("UserBench/App-v0", surface_options={"runtime": "local"})
    second = gym.make("UserBench/App-v0", surface_options={"runtime": "local"})
    try:
        tasks = ["acad-algebra-app", "multi-big5-openness--val-environment-app"]
        obs = [e.reset(options={"task_id": t})[0] for e, t in zip((first, second), tasks)]
        assert first.unwrapped.backend.runtime.display != second.unwrapped.backend.runtime.display
        players = [ScriptedAppPlayer(e.unwrapped.tasks[t], hold=True) for e, t in zip((first, second), tasks)]
        results = [None, None]
        for _ in range(12):  # interleave the two episodes step by step
            for n, e in enumerate((first, second)):
                if results[n] is None:
                    obs[n], _, terminated, _, info = e.step(players[n].act(obs[n]["text"]))
                    results[n] = info["episode_record"] if terminated else None
        assert [r["status"] for r in results] == ["pass", "pass"]
        assert "Adult-learning" in results[0]["artifact"]["app"] and results[1]["artifact"]["app"] == "Planning Desk"
    finally:
        first.close()
        second.close()


def test_dead_app_is_restarted(env):
    obs, _ = env.reset(options={"task_id": SINGLE})
    task = env.unwrapped.tasks[SINGLE]
    runtime = env.unwrapped.backend.runtime
    obs, *_ = env.step(click(obs["text"], task.app.items[0].name))
    assert "1 selected" in obs["text"]
    before = runtime.restarts
    os.kill(runtime.app_pid, signal.SIGKILL)
    runtime.app.wait()
    obs, _, terminated, _, _ = env.step(json.dumps({"type": "wait", "seconds": 0}))
    assert not terminated and runtime.restarts == before + 1
    assert "started again" in obs["text"] and "0 selected" in obs["text"]
    _reward, episode = finish(env, ScriptedAppPlayer(task, hold=True), obs)
    assert episode["status"] == "pass"


def test_invalid_actions_are_reported_on_the_same_screen(env):
    obs, _ = env.reset(options={"task_id": SINGLE})
    for action, reason in (("click there", "not JSON"), ('{"type": "click", "x": 5000, "y": 3}', "off the"),
                           ('{"type": "fly"}', "type"), ('{"type": "type"}', "non-empty text")):
        after, reward, terminated, _truncated, info = env.step(action)
        assert reason in after["text"] and not terminated and reward == 0.0
        assert (after["image"] == obs["image"]).all()
    assert info["invalid_actions"] == 4
    after, *_ = env.step(123)  # not even text
    assert "Invalid action" in after["text"] and after["image"].shape == (768, 1024, 3)


def test_basket_limits_typing_and_hidden_labels(env):
    obs, _ = env.reset(options={"task_id": SINGLE})
    task = env.unwrapped.tasks[SINGLE]
    assert task.app.max_picks < len(task.app.items)
    for word in task.answer_key:
        assert word not in obs["text"]
    obs, *_ = env.step(click(obs["text"], label=task.app.submit_label))
    assert "Please choose" in obs["text"]
    for item in task.app.items[: task.app.max_picks + 1]:
        obs, *_ = env.step(click(obs["text"], item.name))
    assert "basket is full" in obs["text"] and f"{task.app.max_picks} selected" in obs["text"]
    note = next(line for line in obs["text"].splitlines() if line.startswith("- textbox"))
    x, y = note.rsplit("(", 1)[1].rstrip(")").split(", ")
    env.step(json.dumps({"type": "click", "x": int(x), "y": int(y)}))
    obs, *_ = env.step(json.dumps({"type": "type", "text": "no rushh"}))
    assert 'containing "no rushh"' in obs["text"]
    obs, *_ = env.step(json.dumps({"type": "key", "keys": "BackSpace"}))
    assert 'containing "no rush"' in obs["text"]
    obs, _reward, terminated, _, info = env.step(click(obs["text"], label=task.app.submit_label))
    assert terminated and info["episode_record"]["artifact"]["note"] == "no rush"
    assert len(info["episode_record"]["artifact"][task.app.list_key]) == task.app.max_picks


def test_clicking_the_same_add_button_twice_removes_the_row(env):
    obs, _ = env.reset(options={"task_id": SINGLE})
    name = env.unwrapped.tasks[SINGLE].app.items[2].name
    action = click(obs["text"], name)
    obs, *_ = env.step(action)
    assert "1 selected" in obs["text"] and f"• {name}" in obs["text"]
    obs, *_ = env.step(action)  # same pixel again
    assert "0 selected" in obs["text"] and f"• {name}" not in obs["text"]


def test_done_without_submitting_is_an_error(env):
    env.reset(options={"task_id": SINGLE})
    _obs, reward, terminated, _truncated, info = env.step('{"type": "done"}')
    assert terminated and reward == 0.0
    assert info["episode_record"]["status"] == "error" and "no artifact" in info["episode_record"]["error"]


def test_reset_clears_the_previous_episodes_file(env):
    obs, _ = env.reset(options={"task_id": SINGLE})
    finish(env, ScriptedAppPlayer(env.unwrapped.tasks[SINGLE], hold=True), obs)
    env.reset(options={"task_id": SINGLE})
    _, _, _, _, info = env.step('{"type": "done"}')
    assert info["episode_record"]["status"] == "error"


def test_apb_quickbite_task_runs_on_our_app(apb_sample):
    task = with_apb_catalog(load_apb_task(apb_sample / QUICKBITE),
                            apb_sample / "derived" / "vegan-app-quickbite-catalog.json")
    env = gym.make("UserBench/App-v0", tasks=[task], surface_options={"runtime": "local"})
    try:
        outcomes = {}
        for hold in (True, False):
            obs, _info = env.reset()
            assert "QuickBite" in obs["text"] and "Place order" in obs["text"]
            outcomes[hold] = finish(env, ScriptedAppPlayer(task, hold), obs)[1]
        assert outcomes[True]["status"] == "pass"
        assert outcomes[False]["status"] == "fail" and outcomes[False]["checks"][0]["offside"]
        assert set(outcomes[True]["artifact"]) == {"app", "orderedDishes", "note"}
    finally:
        env.close()


def test_bundled_app_tasks_load():
    tasks = load_surface_tasks("app")
    assert len(tasks) >= 30 and all(t.app is not None for t in tasks)
