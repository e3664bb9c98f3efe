"""A writer's pack: ``N`` tau2 tasks sampled with ``SEED`` (spread over the four domains), each
with the scenario the simulated customer is given and the scripted agent's side of the
conversation, which is fixed whatever the customer writes (see ``writer_brief.md``).

Usage (with ``USERBENCH_TAU2_DATA`` set): ``python make_pack.py SEED N OUT``. The slots shown
are those of a dry run with the scripted user; a writer fills them in its own words.
"""
from __future__ import annotations

import json
import random
import sys

import gymnasium as gym

import userbench_env  # noqa: F401  (registers the envs)
from userbench_env.agents.scripted import ScriptedAgent
from userbench_env.proxies.prompt import render_tau2_scenario
from userbench_env.tasks.loader import load_tasks

DOMAINS = ("airline", "retail", "telecom", "banking")


def sample_tasks(seed: int, n: int) -> list[tuple[str, object]]:
    """``n`` tau2 tasks, as even a share of each domain as ``n`` allows, in a seeded order."""
    rng = random.Random(seed)
    picked = []
    for i, domain in enumerate(DOMAINS):
        share = n // len(DOMAINS) + (i < n % len(DOMAINS))
        picked += [(domain, task) for task in rng.sample(load_tasks(domain, source="tau2"), share)]
    rng.shuffle(picked)
    return picked


def task_block(number: int, domain: str, task) -> list[str]:
    """One task of the pack: its header, its scenario and the agent's side with the customer's slots."""
    env = gym.make(f"UserBench/{domain.capitalize()}-v0", task_source="tau2")
    agent = ScriptedAgent()
    observation, info = env.reset(options={"task_id": task.id})
    core = env.unwrapped
    agent.reset(core.task)
    while "episode_record" not in info:
        observation, _, _, _, info = env.step(agent.act(observation, info))
    scenario = render_tau2_scenario(task.user_scenario) if task.user_scenario else task.blueprint.raw_instructions
    lines = ["=" * 78, f"TASK {number}: domain={domain} source=tau2 task_id={json.dumps(task.id)}",
             "-- The customer's scenario (what the simulated customer is told) --", scenario,
             "-- The conversation's fixed agent side (the agent says exactly this, in this order, whatever you write) --"]
    slot = 0
    for m in core.messages:
        if m.role == "assistant" and m.content:
            lines.append(f"AGENT: {m.content}")
        elif m.role == "assistant" and m.tool_calls:
            lines.append(f"  (agent runs a tool on its side: {m.tool_calls[0].name}; you do not see the result)")
        elif m.role == "user" and m.tool_calls:
            for call in m.tool_calls:
                entry = {"tool_call": {"name": call.name, "arguments": call.arguments}}
                lines.append(f"  YOUR TURN {slot}: run the phone tool -> {json.dumps(entry)}")
                slot += 1
        elif m.role == "user" and m.content is not None:
            lines.append(f"  YOUR TURN {slot}: (your message here)")
            slot += 1
        elif m.role == "tool" and m.requestor == "user":
            lines.append(f"  (your phone shows: {m.content})")
    lines.append(f"-- A faithful script for this task has {slot} turns (the last one ends the call). --")
    return lines


def main(argv: list[str]) -> None:
    seed, n, out = int(argv[0]), int(argv[1]), argv[2]
    lines = [line for number, (domain, task) in enumerate(sample_tasks(seed, n), 1)
             for line in task_block(number, domain, task)]
    with open(out, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
