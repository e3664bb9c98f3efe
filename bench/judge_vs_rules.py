"""The judge beside the rules on the natural-language fidelity corpus, per family.

A stratified sample of ``tests/fidelity_corpus`` (``--per-family`` labelled violations
and as many clean cases per failure family, drawn with ``--seed``) is replayed against
the scripted agent (:func:`userbench_env.fidelity.corpus.replay_case`'s setting). Each
item asks one mode: a violation case its first labelled mode, a clean case a mode of the
family in turn. Verdicts:

* rules: the mode was logged at the labelled entry's env turn (violation), or anywhere
  (clean); judge-coverage modes have no rule and count as "no rule";
* judge: the served model grades the mode's criterion (:func:`mode_criterion`) on the
  whole conversation; ``fail`` is a detection, ``pass``/``not_applicable`` none, and an
  unparseable reply an *error*, counted apart (never as a pass or a detection).

Accuracy = correct / items with a verdict. Prints a table (and ``--json``); asserts nothing.
Run (with ``userbench models serve --port 8765`` up)::

    python bench/judge_vs_rules.py --base-url http://127.0.0.1:8765/v1 --per-family 5
"""
from __future__ import annotations

import argparse
import json
import random
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _util  # noqa: E402,F401  (points USERBENCH_TAU2_DATA at ../shared when unset)

from userbench_env.fidelity.taxonomy import TAXONOMY  # noqa: E402


def sample(cases: list[Any], per_family: int, seed: int) -> list[tuple[Any, str, int | None]]:
    """``(case, mode, labelled entry or None)`` items: per family, violations then clean cases."""
    rng = random.Random(seed)
    items: list[tuple[Any, str, int | None]] = []
    families = sorted({spec.family for spec in TAXONOMY.values()})
    clean = [c for c in cases if c.clean]
    for family in families:
        violations = [c for c in cases if c.expect and TAXONOMY[c.expect[0].mode].family == family]
        for case in rng.sample(violations, min(per_family, len(violations))):
            items.append((case, case.expect[0].mode, case.expect[0].turn))
        modes = [m for m, spec in TAXONOMY.items() if spec.family == family]
        for i, case in enumerate(rng.sample(clean, min(per_family, len(clean)))):
            items.append((case, modes[i % len(modes)], None))
    return items


def replay(case: Any) -> tuple[Any, list[dict[str, Any]], list[int]] | None:
    """The env after replaying ``case`` with the scripted agent, its rule events and the
    env turn of each entry (None when the script does not fit its episode)."""
    import gymnasium as gym

    import userbench_env  # noqa: F401
    from userbench_env.agents.scripted import ScriptedAgent
    from userbench_env.fidelity.corpus import replay_case

    result = replay_case(case)
    if result.error is not None:
        return None
    options: dict[str, Any] = {"task_source": case.source, "user_proxy": _tracing(case)}
    if case.split is not None:
        options["split"] = case.split
    env = gym.make(f"UserBench/{case.domain.capitalize()}-v0", **options)
    agent = ScriptedAgent()
    observation, info = env.reset(options={"task_id": case.task_id})
    agent.reset(env.unwrapped.task)
    while "episode_record" not in info:
        observation, _, _, _, info = env.step(agent.act(observation, info))
    return env.unwrapped, result.events, result.replayed_at


def _tracing(case: Any) -> Any:
    from userbench_env.proxies.replay import ReplayUserProxy

    return ReplayUserProxy([t.replay() for t in case.turns])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--base-url", required=True, help="the served model's OpenAI-compatible base URL")
    parser.add_argument("--model", default="openai/smollm2-135m-instruct", help="litellm model name of the judge")
    parser.add_argument("--corpus", help="corpus directory (default: tests/fidelity_corpus)")
    parser.add_argument("--per-family", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", help="also write the results to this JSON file")
    args = parser.parse_args()

    from userbench_env.evaluation.nl_judge import JudgeSpec
    from userbench_env.fidelity.corpus import default_corpus_dir, load_corpus
    from userbench_env.fidelity.judge import FidelityJudge
    from userbench_env.fidelity.validate import mode_criterion

    cases = load_corpus(args.corpus or default_corpus_dir())
    judge = FidelityJudge(JudgeSpec(model=args.model, base_url=args.base_url, api_key="sk-local", timeout=600.0))
    rows: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    items = []
    for case, mode, entry in sample(cases, args.per_family, args.seed):
        replayed = replay(case)
        family = TAXONOMY[mode].family
        if replayed is None:
            rows[family]["replay_errors"] += 1
            continue
        env, events, turns = replayed
        truth = entry is not None
        rule = "-"
        if TAXONOMY[mode].coverage == "rule":
            logged = {e["mode"] for e in events if entry is None or e["turn"] == turns[entry]}
            rule = "detects" if mode in logged else "silent"
            rows[family]["rule_items"] += 1
            rows[family]["rule_correct"] += (mode in logged) == truth
        else:
            rows[family]["no_rule"] += 1
        criterion = mode_criterion(mode)
        try:
            verdict = judge.grade(criterion.statement, criterion.grounding, env.messages).verdict
        except Exception as exc:  # an unusable reply is an error, never a verdict
            verdict = f"error: {type(exc).__name__}"
            rows[family]["judge_errors"] += 1
        else:
            rows[family]["judge_items"] += 1
            rows[family]["judge_correct"] += (verdict == "fail") == truth
        rows[family]["items"] += 1
        items.append({"id": case.id, "mode": mode, "violation": truth, "rules": rule, "judge": verdict})
        print(f"{case.id:24} {mode:28} {'violation' if truth else 'clean':9} rules={rule} judge={verdict}",
              file=sys.stderr, flush=True)

    def rate(correct: int, total: int) -> str:
        return f"{correct / total:.2f} ({correct}/{total})" if total else "-"

    print(f"judge {args.model}; {args.per_family} violations + {args.per_family} clean cases per family (seed {args.seed})")
    print(f"{'family':22} {'items':>5} {'rules accuracy':>16} {'no rule':>7} {'judge accuracy':>16} {'judge errors':>12} {'replay err':>10}")
    for family in sorted(rows):
        r = rows[family]
        print(f"{family:22} {r['items']:5} {rate(r['rule_correct'], r['rule_items']):>16} {r['no_rule']:7} "
              f"{rate(r['judge_correct'], r['judge_items']):>16} {r['judge_errors']:12} {r['replay_errors']:10}")
    if args.json:
        Path(args.json).write_text(json.dumps({"rows": rows, "items": items}, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
