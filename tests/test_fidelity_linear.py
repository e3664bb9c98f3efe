"""Every rule check runs in time linear in the user text (issue 25): pathological
repetitions (line breaks, digit-comma runs, repeated clauses, every rule's cue words) of
100,000 characters check in under 1 s (the issue's acceptance point), and a text over the
check limit is clipped for the checks and says so."""
from __future__ import annotations

import time

import gymnasium as gym
import pytest

from userbench_env.fidelity import RuleTracker, task_criteria
from userbench_env.fidelity.rules import CHECK_LIMIT, checked_text
from userbench_env.tasks import load_tasks

#: Cue words of every rule: claims, device states, ids, denials, recital talk, agent speech, tokens, figures.
CUES = ("yes, ok. I restarted the phone, turned off airplane mode, roaming's on, my user id is mia_li_3668, "
        "I don't know my email, before you ask, I'm a 64-year-old, as an AI, how can I help you today? "
        "###STOP### ###TRANSFER### 12,345 $1,000 May 5 3pm 445 Maple Drive #W2378156 all done. ")


def pathological(n: int) -> dict[str, str]:
    """The pathological texts of ``n`` characters."""
    return {"line breaks": ("ok" + "\n" * n)[:n], "digit-comma runs": ("12," * n)[:n],
            "repeated clauses": ("yes, that one. " * n)[:n], "cue words": (CUES * (n // len(CUES) + 1))[:n]}


@pytest.mark.parametrize("domain", ["airline", "retail", "telecom", "banking"])
def test_pathological_texts_of_100k_characters_check_in_under_a_second(domain):
    criteria = task_criteria(load_tasks(domain, source="tau2")[0])
    for name, text in pathological(100_000).items():
        tracker = RuleTracker(criteria)
        tracker.agent_text(0, "Hi! How can I help you today?")
        tracker.user_text(0, "Hi, I need help.")
        tracker.agent_text(1, "Could you please tell me your user id and run toggle_airplane_mode?")
        start = time.perf_counter()
        tracker.user_text(1, text)
        assert time.perf_counter() - start < 1.0, (domain, name)
        assert tracker.clipped == ([1] if len(checked_text(text)) == CHECK_LIMIT else []), name


def test_a_text_over_the_limit_is_clipped_for_the_checks_and_runs_of_line_breaks_read_as_one():
    assert checked_text("ok" + "\n" * 8000) == "ok\n"
    assert checked_text("a \n\n \n b") == "a\nb"
    assert len(checked_text("x" * (CHECK_LIMIT + 5))) == CHECK_LIMIT


def test_the_issue_25_step_checks_at_once():
    env = gym.make("UserBench/Telecom-User-v0")
    env.reset(seed=0)
    start = time.perf_counter()
    env.step("ok" + "\n" * 8000)  # took 37 s before the rewrite
    assert time.perf_counter() - start < 1.0
