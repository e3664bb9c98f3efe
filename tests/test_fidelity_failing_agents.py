"""UFS is scored independently of the agent's success (issue 22): a faithful user facing an
agent that fails it (closes early, claims a false success, refuses, acts at random) passes
UFS in at least 99% of episodes in every domain."""
from __future__ import annotations

import re

from pathlib import Path

import gymnasium as gym
import pytest

from userbench_env.agents import make_agent
from userbench_env.agents.failing import FAILING_AGENTS
from userbench_env.agents.scripted import ScriptedAgent
from userbench_env.fidelity import ufs_summary
from userbench_env.fidelity.corpus import _TracingReplay, load_corpus

CORPUS = Path(__file__).parent / "fidelity_corpus"
EPISODES = 25
DOMAINS = ("Airline", "Retail", "Telecom", "Banking")


def _play(env, agent, **reset) -> dict:
    observation, info = env.reset(**reset)
    agent.reset(env.unwrapped.task)
    while "episode_record" not in info:
        observation, _, _, _, info = env.step(agent.act(observation, info))
    return info["episode_record"]


@pytest.mark.parametrize("domain", DOMAINS)
def test_the_scripted_user_passes_ufs_whatever_the_agent_does(domain):
    env = gym.make(f"UserBench/{domain}-v0", task_source="tau2", max_turns=20)
    for kind in FAILING_AGENTS:
        records = [_play(env, make_agent(f"failing:{kind}", seed=seed), seed=seed) for seed in range(EPISODES)]
        summary = ufs_summary(records)
        assert summary["scored"] == EPISODES, (kind, summary)
        assert summary["ufs"] >= 0.99, (kind, [c for r in records for c in r["criteria"] if c["verdict"] == "fail"])
    # the early closer never reports an outcome: the scripted user keeps its request open instead of stopping
    record = _play(env, make_agent("failing:early-closer"), seed=0)
    assert record["termination"] == "max_turns"


class _Hollow:
    """The scripted oracle's words without its deeds: it says everything the oracle says
    (so a replayed script fits) but runs none of its tool calls, so its closing claim that
    the request is taken care of is false."""

    def __init__(self) -> None:
        self.oracle = ScriptedAgent()

    def reset(self, task) -> None:
        self.oracle.reset(task)

    def act(self, observation, info=None) -> str:
        action = self.oracle.act(observation, info)
        while action.startswith("{") and self.oracle._next < len(self.oracle.plan):  # a tool call: skipped
            action = self.oracle.act(observation, info)
        return action


#: An end token: a replayed script carrying one ends its episode.
_ENDS = re.compile(r"###(?:STOP|TRANSFER|OUT-OF-SCOPE)###")


def test_replayed_faithful_corpus_users_pass_ufs_against_an_agent_that_does_nothing(tau2_data):
    """Every clean corpus script replayed against the oracle's words with none of its
    actions: the agent fails every task, and the users' UFS is what it is against the
    oracle (a replayed script cannot react, so only an agent whose words it fits can face it)."""
    # (scripts that call user tools report results the agent's actions shaped: not replayable without them;
    # a script cut off without an end token never ends its episode)
    cases = [c for c in load_corpus(CORPUS) if c.clean and c.source == "tau2" and all(t.tool_call is None for t in c.turns)
             and _ENDS.search(c.turns[-1].text or "")]
    assert len(cases) >= 50
    envs: dict[str, gym.Env] = {}
    records = []
    for case in cases:
        env = envs.setdefault(case.domain, gym.make(f"UserBench/{case.domain.capitalize()}-v0", task_source="tau2"))
        env.unwrapped.user_proxy = _TracingReplay([t.replay() for t in case.turns])
        records.append(_play(env, _Hollow(), options={"task_id": case.task_id}))
    summary = ufs_summary(records)
    failed = [(r["task_id"], c["mode"]) for r in records for c in r["criteria"] if c["verdict"] == "fail"]
    assert summary["scored"] == len(cases) and summary["ufs"] >= 0.99, (summary, failed)
    assert sum(r["reward"] or 0 for r in records) < len(records) / 2  # the agent did fail its tasks
