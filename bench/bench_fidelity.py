"""Cost of the incremental rule checks in ``step()``: the same episodes with and without rules.

Runs the scripted oracle agent with the scripted user on tau2 tasks of each domain, once
with every ``from_blueprint`` criterion checked and once with no criteria (the tracker
then holds no rule), and reports the median per-``step()`` time of each and the overhead.
Terminal steps (which compute the reward) are reported apart from the others, since the
rules run on every step but the reward only on the last. Also reports the rule tracker
alone per message. Run: ``USERBENCH_TAU2_DATA=... python bench/bench_fidelity.py``.
"""
from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _util import median_time, table  # noqa: E402

from userbench_env.agents import ScriptedAgent  # noqa: E402
from userbench_env.envs.conversation import ConversationEnv  # noqa: E402
from userbench_env.fidelity import RuleTracker, task_criteria  # noqa: E402


class NoRulesEnv(ConversationEnv):
    """The conversation env with no fidelity criteria (the baseline)."""

    def criteria_for(self, task: Any) -> list[Any]:
        return []


def step_times(env: ConversationEnv, task_ids: list[str]) -> tuple[list[float], list[float]]:
    """(non-terminal, terminal) ``step()`` wall times over one episode per task."""
    agent = ScriptedAgent()
    inner, last = [], []
    for task_id in task_ids:
        observation, info = env.reset(options={"task_id": task_id})
        agent.reset(env.task)
        done = "episode" in info
        while not done:
            action = agent.act(observation, info)
            start = time.perf_counter()
            observation, _, terminated, truncated, info = env.step(action)
            elapsed = time.perf_counter() - start
            done = terminated or truncated
            (last if done else inner).append(elapsed)
    return inner, last


def tracker_time(env: ConversationEnv, task_ids: list[str]) -> float:
    """Median seconds per message of a fresh tracker replaying the recorded transcripts."""
    transcripts = []
    agent = ScriptedAgent()
    for task_id in task_ids:
        observation, info = env.reset(options={"task_id": task_id})
        agent.reset(env.task)
        while "episode" not in info:
            observation, _, _, _, info = env.step(agent.act(observation, info))
        transcripts.append((task_criteria(env.task), list(env.messages)))
    count = sum(len(m) for _, m in transcripts)

    def replay() -> None:
        for criteria, messages in transcripts:
            tracker = RuleTracker(criteria)
            for m in messages:
                if m.role == "assistant" and m.content:
                    tracker.agent_text(m.turn, m.content)
                elif m.role == "user" and m.content and not m.tool_calls:
                    tracker.user_text(m.turn, m.content)

    return median_time(replay, repeat=5, warmup=1) / count


def main(tasks_per_domain: int = 20, rounds: int = 3) -> None:
    rows = []
    for domain in ("airline", "retail", "telecom"):
        with_rules = ConversationEnv(domain, task_source="tau2")
        without = NoRulesEnv(domain, task_source="tau2")
        ids = [t.id for t in with_rules.tasks[:tasks_per_domain]]
        samples: dict[str, list[float]] = {"rules": [], "none": [], "rules_last": [], "none_last": []}
        for _ in range(rounds):  # interleaved rounds so machine load hits both alike
            for key, env in (("rules", with_rules), ("none", without)):
                inner, last = step_times(env, ids)
                samples[key] += inner
                samples[f"{key}_last"] += last
        med = {k: statistics.median(v) for k, v in samples.items()}
        overhead = med["rules"] / med["none"] - 1
        overhead_last = med["rules_last"] / med["none_last"] - 1
        per_message = tracker_time(with_rules, ids)
        rows.append((domain, f"{med['none'] * 1e6:.0f}", f"{med['rules'] * 1e6:.0f}", f"{overhead * 100:+.1f}%",
                     f"{med['none_last'] * 1e3:.2f}", f"{med['rules_last'] * 1e3:.2f}", f"{overhead_last * 100:+.1f}%",
                     f"{per_message * 1e6:.1f}"))
    print(table(rows, ("domain", "step us (no rules)", "step us (rules)", "overhead", "last step ms (no rules)",
                       "last step ms (rules)", "overhead", "rules us/message")))


if __name__ == "__main__":
    main()
