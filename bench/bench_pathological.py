"""Rule checks on pathological user texts: time against length (issue 25).

Per domain (the first tau2 task) and text class (line breaks, digit-comma runs, repeated
clauses, every rule's cue words, from ``tests/test_fidelity_linear.py``), the fastest wall
time of one ``RuleTracker.user_text`` at 1k, 10k and 100k characters, and the growth
ratios 10k/1k and 100k/10k (linear: about 10, or less where the text is clipped). Two
readings: as the env runs (a text over ``CHECK_LIMIT`` clipped for the checks), and with
the limit lifted (the readers alone on the whole text: their own growth).

Run: ``USERBENCH_TAU2_DATA=... python bench/bench_pathological.py [--repeat 3]``
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's package

from _util import table  # noqa: E402

from userbench_env.fidelity import RuleTracker, task_criteria  # noqa: E402
from userbench_env.fidelity.rules import tracker as rules  # noqa: E402  (where CHECK_LIMIT is read)
from userbench_env.tasks import load_tasks  # noqa: E402

SIZES = (1_000, 10_000, 100_000)


def check_time(criteria, text: str, repeat: int) -> float:
    """Fastest seconds of one user text checked after an opening and an agent request (each
    run a fresh text: the readers' per-text memos never answer; the fastest run is the one
    the shared machine disturbed least)."""
    samples = []
    for i in range(repeat):
        text = f"{i}{text[len(str(i)):]}"
        tracker = RuleTracker(criteria)
        tracker.agent_text(0, "Hi! How can I help you today?")
        tracker.user_text(0, "Hi, I need help.")
        tracker.agent_text(1, "Could you please tell me your user id and run toggle_airplane_mode?")
        start = time.perf_counter()
        tracker.user_text(1, text)
        samples.append(time.perf_counter() - start)
    return min(samples)


def main() -> None:
    from test_fidelity_linear import pathological

    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    limit = rules.CHECK_LIMIT
    for reading, check_limit in (("as the env runs (clipped)", limit), ("limit lifted (readers alone)", 10 ** 9)):
        rules.CHECK_LIMIT = check_limit
        rows = []
        for domain in ("airline", "retail", "telecom", "banking"):
            criteria = task_criteria(load_tasks(domain, source="tau2")[0])
            for name in pathological(10):
                times = [check_time(criteria, pathological(n)[name], args.repeat) for n in SIZES]
                rows.append([domain, name, *(f"{t * 1000:.1f}" for t in times),
                             f"{times[1] / max(times[0], 1e-6):.1f}", f"{times[2] / max(times[1], 1e-6):.1f}"])
        print(f"\n{reading}")
        print(table([tuple(r) for r in rows], ("domain", "text", "1k ms", "10k ms", "100k ms", "10k/1k", "100k/10k")))
    rules.CHECK_LIMIT = limit


if __name__ == "__main__":
    main()
