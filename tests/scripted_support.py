"""Running the scripted oracle agent against a ConversationEnv: one episode, or a whole split."""
from __future__ import annotations

from typing import Any

from userbench_env.agents import ScriptedAgent
from userbench_env.envs.conversation import ConversationEnv


def run_episode(env: ConversationEnv, task_id: str, agent: ScriptedAgent | None = None) -> dict[str, Any]:
    """Play task ``task_id`` with the scripted agent to the end; return the terminal info."""
    agent = agent or ScriptedAgent()
    observation, info = env.reset(options={"task_id": task_id})
    agent.reset(env.task)
    done = False
    while not done:
        observation, _, terminated, truncated, info = env.step(agent.act(observation, info))
        done = terminated or truncated
    return info


def scripted_misses(env: ConversationEnv) -> list[tuple[str, str, dict[str, Any], str | None]]:
    """Every task of ``env``'s split the scripted pair does not solve (NL assertions excluded):
    (task id, termination, reward components, error)."""
    agent = ScriptedAgent()
    misses = []
    for task in env.tasks:
        episode = run_episode(env, task.id, agent)["episode_record"]
        if episode["reward_excluding_nl"] != 1.0:
            misses.append((task.id, episode["termination"], episode["reward_components"], episode["error"]))
    return misses
