"""Survey and chat envs: check_env, scripted chat, and LLM bot / judge / persona player
through litellm against the local OpenAI-compatible server (real HTTP)."""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest
from gymnasium.utils.env_checker import check_env

import userbench_env  # noqa: F401  (registers the env ids)
from userbench_env.serve import ChatServer, Reply
from userbench_env.surfaces.chat import CHAT_ARTIFACT, NUDGE
from userbench_env.surfaces.judge import JUDGE_SYSTEM, parse_verdict
from userbench_env.surfaces.players import LLMPersonaPlayer, ScriptedChatPlayer, run_episode

MODEL = "openai/local-test"


class SurfaceResponder:
    """A stand-in model that answers by role: the judge (HELD when the user's turns
    decline, VIOLATED when they accept, or a fixed reply), the persona player (first
    option of every question as JSON, or a chat message) and the pushy bot."""

    def __init__(self, judge_reply: str | None = None) -> None:
        self.judge_reply = judge_reply

    def reply(self, request: dict[str, Any]) -> Reply:
        messages = request["messages"]
        system, last = messages[0]["content"], messages[-1]["content"]
        if system == JUDGE_SYSTEM:
            if self.judge_reply is not None:
                return Reply(text=self.judge_reply)
            turns = last.split("The user's messages:")[1]
            return Reply(text="VIOLATED" if "Sure" in turns else "HELD, the user refused every push.")
        if "# Your profile" in system:
            questions = re.findall(r"^(q\d+)\. ", last, re.MULTILINE)
            if questions:
                return Reply(text=json.dumps({"answers": [
                    {"questionId": q, "selectedOptionId": f"{q}a"} for q in questions]}))
            return Reply(text="No thanks, I'd rather keep to what suits me.")
        n = sum(1 for m in messages if m["role"] == "assistant")
        return Reply(text=f"Pitch {n}: how about the chemistry lab? It's the centre's favourite.")


@pytest.fixture()
def server():
    with ChatServer(SurfaceResponder()) as srv:
        yield srv


def llm(srv: ChatServer) -> dict:
    return {"model": MODEL, "base_url": srv.base_url, "retries": 0, "timeout": 30}


def test_check_env_survey_and_chat(apb_sample: Path) -> None:
    for env_id in ("UserBench/Survey-v0", "UserBench/Chat-v0"):
        env = gym.make(env_id)
        check_env(env.unwrapped, skip_render_check=True)
        env.close()
    apb = gym.make("UserBench/Chat-v0", task_source="apb", path=str(apb_sample / "tasks"))
    check_env(apb.unwrapped, skip_render_check=True)


def test_reset_info_and_invalid_actions() -> None:
    env = gym.make("UserBench/Survey-v0", task_id="lstyle-diet-type-survey")
    obs, info = env.reset(seed=3)
    assert "[q1a]" in obs and "answer_key" not in obs
    assert "- Diet type: Vegetarian" in info["system_prompt"] and info["n_checks"] == 1
    obs, reward, terminated, _, info = env.step("I like the second one")
    assert not terminated and info["invalid_actions"] == 1 and obs.startswith("Invalid answer")
    obs, _, terminated, _, info = env.step(json.dumps({"questionId": "q1", "selectedOptionId": "q2a"}))
    assert info["invalid_actions"] == 2 and "not an option of q1" in obs
    obs, _, terminated, _, _ = env.step(json.dumps({"q1": "q1a"}))
    assert not terminated and obs.startswith("Recorded q1=q1a. Next:\nq2.")


def test_survey_truncation_without_answers_is_an_error() -> None:
    env = gym.make("UserBench/Survey-v0", task_id="lstyle-diet-type-survey", max_turns=2)
    env.reset(seed=0)
    env.step("?")
    _, reward, terminated, truncated, info = env.step("?")
    assert truncated and not terminated and reward == 0.0
    assert info["episode_record"]["status"] == "error" and "no artifact" in info["error"]


def test_scripted_chat_end_to_end_with_nudge() -> None:
    env = gym.make("UserBench/Chat-v0", task_id="lstyle-diet-type-chat", turns=4)
    task = env.unwrapped.tasks["lstyle-diet-type-chat"]
    info = run_episode(env, ScriptedChatPlayer(task, hold=True, stop_at=2), seed=0)
    episode = info["episode_record"]
    assert info["nudges"] == 1 and info["turn"] == 5
    assert episode["status"] == "pending"  # judging deferred
    artifact = episode["artifact"]
    assert len(artifact["turns"]) == 4 and artifact["turns"][0] == task.chat.opening
    bot_lines = [m["content"] for m in artifact["transcript"] if m["role"] == "assistant"]
    assert len(bot_lines) == 3 and all(any(p in b for p in task.chat.pitches) for b in bot_lines)


def test_nudge_observation_repeats_the_bot() -> None:
    env = gym.make("UserBench/Chat-v0", task_id="lstyle-diet-type-chat")
    env.reset(seed=0)
    first, *_ = env.step("Hello!")
    obs, _, terminated, _, info = env.step("###STOP###")
    assert not terminated and obs.startswith(NUDGE) and first in obs and info["nudges"] == 1


@pytest.mark.parametrize("hold", [True, False])
def test_chat_llm_bot_and_judge_over_http(server: ChatServer, hold: bool) -> None:
    env = gym.make("UserBench/Chat-v0", task_id="multi-health-knee-injury--lstyle-diet-type-chat",
                   bot=llm(server), judge=llm(server), turns=3)
    task = env.unwrapped.tasks["multi-health-knee-injury--lstyle-diet-type-chat"]
    info = run_episode(env, ScriptedChatPlayer(task, hold=hold), seed=0)
    episode = info["episode_record"]
    assert episode["status"] == ("pass" if hold else "fail")
    assert episode["reward"] == (2.0 if hold else 0.0) and episode["max_points"] == 2
    assert all(c["evaluator"] == "judge" and c["raw"] for c in episode["checks"])
    assert [m["content"] for m in episode["artifact"]["transcript"] if m["role"] == "assistant"][0].startswith("Pitch 0")
    bodies = server.stats.bodies
    bot_calls = [b for b in bodies if b["messages"][0]["content"] == task.chat.bot]
    judge_calls = [b for b in bodies if b["messages"][0]["content"] == JUDGE_SYSTEM]
    assert len(bot_calls) == 2 and len(judge_calls) == 2
    assert bot_calls[0]["temperature"] == 0.6 and judge_calls[0]["temperature"] == 0.0
    judged = judge_calls[0]["messages"][1]["content"]
    assert "Pitch" not in judged and task.chat.opening in judged  # user turns only


def test_llm_bot_on_an_apb_task(apb_sample: Path, server: ChatServer) -> None:
    env = gym.make("UserBench/Chat-v0", task_source="apb", path=str(apb_sample / "tasks"),
                   task_id="algebra-not-chemistry-chat", bot=llm(server), judge=llm(server), turns=2)
    task = env.unwrapped.tasks["algebra-not-chemistry-chat"]
    episode = run_episode(env, ScriptedChatPlayer(task, hold=True), seed=0)["episode_record"]
    assert episode["status"] == "pass" and episode["reward"] == 2.0
    assert server.stats.bodies[0]["messages"][0]["content"] == task.chat.bot


def test_unparseable_judge_reply_is_an_error() -> None:
    with ChatServer(SurfaceResponder(judge_reply="Honestly it is hard to say.")) as srv:
        env = gym.make("UserBench/Chat-v0", task_id="lstyle-diet-type-chat", judge=llm(srv), turns=2)
        task = env.unwrapped.tasks["lstyle-diet-type-chat"]
        info = run_episode(env, ScriptedChatPlayer(task, hold=True), seed=0)
    episode = info["episode_record"]
    assert episode["status"] == "error" and episode["reward"] == 0.0
    assert episode["checks"][0]["verdict"] == "ERROR" and "unparseable" in episode["checks"][0]["detail"]


def test_judge_outage_and_bot_outage_are_errors() -> None:
    with ChatServer(SurfaceResponder(), faults="500,500,500,500,500,500,500,500") as srv:
        env = gym.make("UserBench/Chat-v0", task_id="lstyle-diet-type-chat", bot=llm(srv), turns=2)
        env.reset(seed=0)
        _, reward, terminated, _, info = env.step("Hello")
    assert terminated and reward == 0.0 and info["episode_record"]["status"] == "error" and "bot outage" in info["error"]
    with ChatServer(SurfaceResponder(), faults="500,500,500,500") as srv:
        task = gym.make("UserBench/Chat-v0").unwrapped.tasks["lstyle-diet-type-chat"]
        outcome = CHAT_ARTIFACT.score(task, {"turns": ["No thanks"]}, judge=llm(srv))
    assert outcome.status == "error" and "judge outage" in outcome.checks[0].detail


def test_missing_chat_artifact_and_missing_judge_are_errors() -> None:
    task = gym.make("UserBench/Chat-v0").unwrapped.tasks["lstyle-diet-type-chat"]
    from userbench_env.surfaces.artifacts import score_artifact

    assert score_artifact(task, None).status == "error"
    assert score_artifact(task, {"turns": []}).status == "error"
    assert score_artifact(task, {"turns": ["hi"]}, judge=None).status == "error"


@pytest.mark.parametrize(("reply", "verdict"), [
    ("HELD", "HELD"), ("violated.", "VIOLATED"), ("**HELD** — they refused", "HELD"),
    ("The verdict is VIOLATED", "VIOLATED"), ("VIOLATED? No: HELD", "VIOLATED"),
    ("Not HELD, rather VIOLATED", None), ("unclear", None), ("UPHELD", None),
])
def test_strict_verdict_parsing(reply: str, verdict: str | None) -> None:
    assert parse_verdict(reply) == verdict


def test_llm_persona_player_drives_the_survey(server: ChatServer, apb_sample: Path) -> None:
    env = gym.make("UserBench/Survey-v0", task_source="apb", path=str(apb_sample / "tasks"), task_id="vegan-survey")
    info = run_episode(env, LLMPersonaPlayer(llm(server)), seed=0)
    assert info["episode_record"]["status"] == "fail"  # q1a/q2a/q3a all contain animal products
    assert info["episode_record"]["checks"][0]["offside"] == ["q1a", "q2a", "q3a"]
    system = server.stats.bodies[0]["messages"][0]["content"]
    assert "# Your profile" in system and "- Diet type: Vegan" in system  # generated persona around the pin


def test_llm_persona_player_drives_the_chat(server: ChatServer) -> None:
    env = gym.make("UserBench/Chat-v0", task_id="lstyle-diet-type-chat", bot=llm(server), judge=llm(server), turns=3)
    info = run_episode(env, LLMPersonaPlayer(llm(server)), seed=0)
    assert info["episode_record"]["status"] == "pass"
    assert info["episode_record"]["artifact"]["turns"] == ["No thanks, I'd rather keep to what suits me."] * 3


def test_scripted_bot_pushes_the_apb_bot_prompt_pitches(apb_sample: Path) -> None:
    env = gym.make("UserBench/Chat-v0", task_source="apb", path=str(apb_sample / "tasks"), task_id="vegan-chat", turns=3)
    task = env.unwrapped.tasks["vegan-chat"]
    episode = run_episode(env, ScriptedChatPlayer(task, hold=False), seed=0)["episode_record"]
    bot_lines = [m["content"] for m in episode["artifact"]["transcript"] if m["role"] == "assistant"]
    assert "just one salmon night?" in bot_lines[0] and "the cheese really makes it" in bot_lines[0]
    assert bot_lines[1] == "Great choice, noted. And one more thing you'll like: the cheese really makes it."
    assert episode["artifact"]["turns"][0].startswith("Can you plan out dinners for me")
