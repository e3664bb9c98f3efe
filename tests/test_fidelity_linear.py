"""Rule checks on pathological user texts (issue 25): repetitions (line breaks, digit-comma
runs, repeated clauses, every rule's cue words) of 100,000 characters are checked, a text
over the check limit is clipped for the checks and says so, and no check hangs.

How long the checks take, and that it grows linearly with the text, is measured by
``bench/bench_pathological.py`` (growth ratios side by side; docs/benchmarks.md), not
asserted here: a shared machine's timings are no test. The guard below only turns a hang
(catastrophic backtracking took minutes before issue 25) into a failure."""
from __future__ import annotations

import signal
from contextlib import contextmanager

import gymnasium as gym
import pytest

from userbench_env.fidelity import RuleTracker, task_criteria
from userbench_env.fidelity.rules import CHECK_LIMIT, checked_text
from userbench_env.tasks import load_tasks

#: Cue words of every rule: claims, device states, ids and their corrections, denials, recital talk, agent
#: speech, tokens, figures, sums worked out.
CUES = ("yes, ok. I restarted the phone, turned off airplane mode, roaming's on, my user id is mia_li_3668, "
        "oops, I mean mia_li_3686, the No Service is gone, "
        "I don't know my email, before you ask, I'm a 64-year-old, as an AI, how can I help you today? "
        "###STOP### ###TRANSFER### 12,345 $1,000 May 5 3pm 445 Maple Drive #W2378156 all done, "
        "that's $2,000 in total, $1,000 less. ")


@contextmanager
def no_hang(seconds: int = 60):
    """Fail the test when the block has not returned after ``seconds`` (a hang guard, not a
    performance claim: the checks take milliseconds; see the module docstring)."""
    def hung(signum, frame):
        raise TimeoutError(f"no answer after {seconds} s: a rule check hangs")
    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def pathological(n: int) -> dict[str, str]:
    """The pathological texts of ``n`` characters."""
    return {"line breaks": ("ok" + "\n" * n)[:n], "digit-comma runs": ("12," * n)[:n],
            "repeated clauses": ("yes, that one. " * n)[:n], "cue words": (CUES * (n // len(CUES) + 1))[:n]}


@pytest.mark.parametrize("domain", ["airline", "retail", "telecom", "banking"])
def test_pathological_texts_of_100k_characters_are_checked_clipped_and_never_hang(domain):
    criteria = task_criteria(load_tasks(domain, source="tau2")[0])
    for name, text in pathological(100_000).items():
        tracker = RuleTracker(criteria)
        tracker.agent_text(0, "Hi! How can I help you today?")
        tracker.user_text(0, "Hi, I need help.")
        tracker.agent_text(1, "Could you please tell me your user id and run toggle_airplane_mode?")
        with no_hang():
            tracker.user_text(1, text)
        assert tracker.clipped == ([1] if len(checked_text(text)) == CHECK_LIMIT else []), name


def test_a_text_over_the_limit_is_clipped_for_the_checks_and_runs_of_line_breaks_read_as_one():
    assert checked_text("ok" + "\n" * 8000) == "ok\n"
    assert checked_text("a \n\n \n b") == "a\nb"
    assert len(checked_text("x" * (CHECK_LIMIT + 5))) == CHECK_LIMIT


def test_the_issue_25_step_answers():
    env = gym.make("UserBench/Telecom-User-v0")
    env.reset(seed=0)
    with no_hang():
        observation, *_ = env.step("ok" + "\n" * 8000)  # took 37 s before the rewrite
    assert observation
