"""Gymnasium's conventions on every id: ``areset``/``astep`` through the wrappers
``gym.make`` adds, the episode record on a ``TimeLimit`` cut (sync and async; agent side,
user side, surfaces), vector envs as the README builds them, a refused ``max_turns``, and
Gymnasium's own tools on the *made* env of every registered id (``check_env``,
``gym.make(env.spec)``, ``RecordEpisodeStatistics``); Web-v0 and App-v0 need Chromium and
Xvfb (skipped, or failed under ``USERBENCH_REQUIRE_ALL=1``, per ``tests/resources.py``)."""
from __future__ import annotations

import asyncio

import gymnasium as gym
import pytest
from gymnasium.utils.env_checker import check_env
from gymnasium.wrappers import RecordEpisodeStatistics

import resources
import userbench_env  # noqa: F401  (registers the ids)
from userbench_env.envs.conventions import GymConventions
from userbench_env.registration import ENV_SPECS, NAMESPACE

QUESTION = "Could you tell me more about that?"


def test_every_id_gets_the_conventions_wrapper_outermost() -> None:
    env = gym.make("UserBench/Airline-v0", max_episode_steps=3)
    assert isinstance(env, GymConventions) and env.max_episode_steps == 3
    assert isinstance(env.env, gym.wrappers.TimeLimit)
    assert gym.make("UserBench/Survey-v0").max_episode_steps is None


def _play_sync(env, action, seed=0):
    env.reset(seed=seed)
    steps = 0
    while True:
        steps += 1
        obs, reward, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            return steps, reward, terminated, truncated, info


def test_a_time_limit_cut_carries_the_episode_record() -> None:
    steps, reward, terminated, truncated, info = _play_sync(
        gym.make("UserBench/Airline-v0", max_episode_steps=2), QUESTION)
    assert (steps, terminated, truncated) == (2, False, True)
    episode = info["episode_record"]
    assert episode["termination"] == "time_limit" and episode["error"] is None
    assert reward == episode["reward"] == 0.0  # an unfinished task scores 0, as at max_turns
    assert isinstance(episode["ufs_pass"], bool) and episode["criteria"]


def test_the_env_own_budget_still_ends_first_when_smaller() -> None:
    steps, _, _, truncated, info = _play_sync(
        gym.make("UserBench/Airline-v0", max_turns=2, max_episode_steps=5), QUESTION)
    assert (steps, truncated, info["episode_record"]["termination"]) == (2, True, "max_turns")


def test_areset_and_astep_through_the_wrappers_with_the_time_limit() -> None:
    env = gym.make("UserBench/Retail-v0", max_episode_steps=3)
    sync_obs, _ = env.reset(seed=4)

    async def play():
        obs, info = await env.areset(seed=4)
        results = []
        for _ in range(5):
            result = await env.astep(QUESTION)
            results.append(result)
            if result[2] or result[3]:
                break
        return obs, results

    obs, results = asyncio.run(play())
    assert obs == sync_obs  # the same episode as the sync path
    assert len(results) == 3 and results[-1][3] is True
    assert results[-1][4]["episode_record"]["termination"] == "time_limit"
    assert all("episode" not in r[4] for r in results[:-1])


def test_user_side_and_surface_envs_end_with_a_record_too() -> None:
    steps, _, _, truncated, info = _play_sync(
        gym.make("UserBench/Airline-User-v0", max_episode_steps=2), "Hello, can you help me?")
    assert (steps, truncated, info["episode_record"]["termination"]) == (2, True, "time_limit")
    assert "task_reward" in info["episode_record"] and "ufs_pass" in info["episode_record"]
    steps, _, _, truncated, info = _play_sync(gym.make("UserBench/Chat-v0", max_episode_steps=1), "Hello there.")
    assert steps == 1 and truncated and info["episode_record"]["termination"] == "time_limit"
    assert info["episode_record"]["status"] == "pending" and info["episode_record"]["artifact"]  # the chat judge is deferred


def test_the_readme_vector_form_runs() -> None:
    envs = gym.make_vec("UserBench/Airline-v0", num_envs=2, vectorization_mode="async",
                        vector_kwargs={"shared_memory": False})
    try:
        obs, info = envs.reset(seed=0)
        assert len(obs) == 2 and all(isinstance(o, str) and o for o in obs)
        obs, reward, terminated, truncated, info = envs.step([QUESTION, QUESTION])
        assert len(obs) == 2 and not truncated.any()
    finally:
        envs.close()


@pytest.mark.parametrize("env_id", ["UserBench/Airline-v0", "UserBench/Airline-User-v0", "UserBench/Survey-v0"])
@pytest.mark.parametrize("bad", [0, -3, 2.5, "10", True])
def test_a_bad_max_turns_is_refused(env_id, bad) -> None:
    with pytest.raises(ValueError, match=rf"max_turns must be a positive integer, got {bad!r}"):
        gym.make(env_id, max_turns=bad)


# ------------------------------------------------------------ Gymnasium's tools on every id

ALL_IDS = [f"{NAMESPACE}/{name}" for name in ENV_SPECS]
#: the system tools an id's env needs to be made at all
NEEDS = {f"{NAMESPACE}/Web-v0": resources.chromium, f"{NAMESPACE}/App-v0": resources.local_app}


def _make(env_id: str, **kwargs) -> gym.Env:
    NEEDS.get(env_id, lambda: None)()
    return gym.make(env_id, **kwargs)


def _stack(env: gym.Env) -> list[str]:
    """The wrapper classes from the outside in, then the env class."""
    names = []
    while isinstance(env, gym.Wrapper):
        names.append(type(env).__name__)
        env = env.env
    return names + [type(env).__name__]


@pytest.mark.parametrize("env_id", ALL_IDS)
@pytest.mark.filterwarnings("ignore:.*is different from the unwrapped version")  # checking the made env is the point
def test_check_env_passes_on_the_made_env(env_id) -> None:
    env = _make(env_id)
    try:
        check_env(env)  # the made env with every wrapper, not env.unwrapped
    finally:
        env.close()


@pytest.mark.parametrize("env_id", ALL_IDS)
def test_gym_make_of_the_spec_rebuilds_the_same_stack(env_id) -> None:
    env = _make(env_id, max_episode_steps=4, max_turns=7)
    again = gym.make(env.spec)
    try:
        assert again.spec == env.spec and again.spec.kwargs["max_turns"] == 7
        assert _stack(again) == _stack(env) and _stack(env)[:2] == ["GymConventions", "TimeLimit"]
        assert again.max_episode_steps == 4 and again.unwrapped.max_turns == 7
    finally:
        env.close()
        again.close()


@pytest.mark.parametrize("env_id", ALL_IDS)
def test_record_episode_statistics_and_monitors_see_every_episode(env_id) -> None:
    """``RecordEpisodeStatistics`` (and SB3's ``Monitor``, which writes the same key) own
    ``info["episode"]``: the env's record stays beside their statistics."""
    env = RecordEpisodeStatistics(_make(env_id, max_episode_steps=2))
    try:
        for seed in (0, 1):  # a second episode: the wrapper's counters start again
            env.reset(seed=seed)
            steps = 0
            while True:
                steps += 1
                _, reward, terminated, truncated, info = env.step("Hello, could you tell me more?")
                if terminated or truncated:
                    break
            assert info["episode"]["l"] == steps <= 2 and info["episode"]["r"] == pytest.approx(reward)
            assert info["episode_record"]["termination"] and "episode" not in info["episode_record"]
    finally:
        env.close()
