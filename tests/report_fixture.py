"""A small hand-made set of run records whose report numbers are computed by hand in the tests.

Proxies A (api, $0.02/episode), B (self-hosted, $0.001), C (local, free); domains
airline and retail; one infrastructure error (A, retail). Defaults: turns 5, agent
tool calls 2, agent questions 1.
"""
from __future__ import annotations

from typing import Any

PD, GD = "premature_disclosure", "goal_deviation"


def rec(proxy: str, domain: str, task: str, reward: float, ufs: bool | None, failed: str | None = None, *,
        turns: int = 5, tools: int = 2, questions: int = 1, error: str | None = None) -> dict[str, Any]:
    """One record; ``failed`` names the family of the one failed criterion (ufs False)."""
    cost, prompt, completion, hosting = {"A": (0.02, 1000, 100, "api"), "B": (0.001, 500, 50, "self-hosted"),
                                         "C": (0.0, 0, 0, "local")}[proxy]
    criteria = [] if ufs is None else [{"id": f"{failed or PD}/x", "family": failed or PD, "verdict": "pass" if ufs else "fail"}]
    return {"key": f"{proxy}|scripted|{domain}|bundled|{task}|0", "proxy": proxy, "agent": "scripted", "domain": domain,
            "source": "bundled", "task_id": task, "trial": 0, "reward": reward, "ufs_pass": ufs, "criteria": criteria,
            "failures_per_family": {failed: 1} if failed else {}, "turns": turns, "agent_tool_calls": tools,
            "agent_questions": questions, "user_cost_usd": cost, "user_prompt_tokens": prompt,
            "user_completion_tokens": completion, "hosting": hosting, "error": error}


def records() -> list[dict[str, Any]]:
    """The fixture (20 records)."""
    a_air = [rec("A", "airline", "t0", 1, False, PD, turns=8, tools=2, questions=3),
             rec("A", "airline", "t1", 0, False, PD, turns=10, tools=1, questions=4),
             rec("A", "airline", "t2", 0, False, PD, turns=6),
             rec("A", "airline", "t3", 0, False, PD),
             rec("A", "airline", "t4", 1, False, PD)]
    a_air += [rec("A", "airline", f"t{i}", r, True) for i, r in zip(range(5, 10), (1, 1, 1, 0, 1))]
    a_ret = [rec("A", "retail", "r0", 1, True), rec("A", "retail", "r1", 1, None), rec("A", "retail", "r2", 0, True),
             rec("A", "retail", "r3", 0, False, GD), rec("A", "retail", "r9", 0, None, error="ProxyError: provider down")]
    b = [rec("B", "airline", "t1", 1, True, turns=4), rec("B", "airline", "t2", 1, True, turns=6),
         rec("B", "retail", "r1", 0, None, turns=3)]
    c = [rec("C", "airline", "t1", 0, False, PD, turns=10), rec("C", "retail", "r1", 1, True, turns=2)]
    return a_air + a_ret + b + c
