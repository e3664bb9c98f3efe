"""Cost of the incremental rule checks in ``step()``: the same episodes with and without rules.

Runs the scripted oracle agent with the scripted user on tau2 tasks of each domain, once
with every ``from_blueprint`` criterion checked and once with no criteria (the tracker
then holds no rule), and reports the mean ``step()`` time of each and the overhead: per task, the two envs run
alternately several times and each keeps its fastest episode (thread CPU time summed over
the episode's steps), which filters out the contention of a shared machine. Loaded data
is frozen out of the garbage collector's scans after a warm-up (``gc.freeze``), so that
collections of the large domain databases do not land at random in one env's steps. Non-terminal steps are also reported alone (the
terminal one computes the reward). Also reports the rule tracker alone per message, with
its memoized readings cleared (cold) before every replay. Run: ``USERBENCH_TAU2_DATA=... python bench/bench_fidelity.py``.
"""
from __future__ import annotations

import gc
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _util import table  # noqa: E402

from userbench_env.agents import ScriptedAgent  # noqa: E402
from userbench_env.envs.conversation import ConversationEnv  # noqa: E402
from userbench_env.fidelity import RuleTracker, task_criteria  # noqa: E402
from userbench_env.fidelity.text import clear_caches  # noqa: E402


class NoRulesEnv(ConversationEnv):
    """The conversation env with no fidelity criteria (the baseline)."""

    def criteria_for(self, task: Any) -> list[Any]:
        return []


def episode_step_time(env: ConversationEnv, task_id: str) -> tuple[float, float, int]:
    """(all steps, non-terminal steps) thread CPU seconds and the step count of one episode."""
    agent = ScriptedAgent()
    observation, info = env.reset(options={"task_id": task_id})
    agent.reset(env.task)
    total = inner = 0.0
    steps = 0
    done = "episode" in info
    while not done:
        action = agent.act(observation, info)
        start = time.thread_time()
        observation, _, terminated, truncated, info = env.step(action)
        elapsed = time.thread_time() - start
        done = terminated or truncated
        total += elapsed
        inner += 0.0 if done else elapsed
        steps += 1
    return total, inner, steps


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
        clear_caches()
        for criteria, messages in transcripts:
            tracker = RuleTracker(criteria)
            for m in messages:
                if m.role == "assistant" and m.content:
                    tracker.agent_text(m.turn, m.content)
                elif m.role == "user" and m.content and not m.tool_calls:
                    tracker.user_text(m.turn, m.content)

    samples = []
    for _ in range(7):
        start = time.thread_time()
        replay()
        samples.append(time.thread_time() - start)
    return statistics.median(samples) / count


def main(tasks_per_domain: int = 30, rounds: int = 9) -> None:
    rows = []
    for domain in ("airline", "retail", "telecom"):
        envs = {"rules": ConversationEnv(domain, task_source="tau2"), "none": NoRulesEnv(domain, task_source="tau2")}
        ids = [t.id for t in envs["rules"].tasks[:tasks_per_domain]]
        for env in envs.values():  # warm up (data loads, caches), then keep the loaded data out of GC scans
            episode_step_time(env, ids[0])
        gc.collect()
        gc.freeze()
        best: dict[tuple[str, str], tuple[float, float]] = {}
        steps = 0
        for task_id in ids:  # per task, alternate the two envs and keep each one's fastest run
            for _ in range(rounds):
                for key, env in envs.items():
                    total, inner, n = episode_step_time(env, task_id)
                    old = best.get((key, task_id), (float("inf"), float("inf")))
                    best[(key, task_id)] = (min(old[0], total), min(old[1], inner))
            steps += n
        sums = {(key, part): sum(best[(key, t)][part] for t in ids) for key in envs for part in (0, 1)}
        overhead = sums[("rules", 0)] / sums[("none", 0)] - 1
        overhead_inner = sums[("rules", 1)] / sums[("none", 1)] - 1
        per_message = tracker_time(envs["rules"], ids)
        rows.append((domain, f"{sums[('none', 0)] / steps * 1e6:.0f}", f"{sums[('rules', 0)] / steps * 1e6:.0f}",
                     f"{overhead * 100:+.1f}%", f"{overhead_inner * 100:+.1f}%", f"{per_message * 1e6:.1f}"))
    print(table(rows, ("domain", "step us (no rules)", "step us (rules)", "overhead", "overhead non-terminal",
                       "rules us/message (cold)")))


if __name__ == "__main__":
    main()
