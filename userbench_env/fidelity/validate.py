"""Measuring our own checkers: recall on labelled injections, false positives on clean runs.

:func:`validate_fidelity` runs the scripted oracle agent
(:class:`~userbench_env.agents.scripted.ScriptedAgent`) against

* ``episodes`` perturbed episodes (:class:`~userbench_env.proxies.perturbed.PerturbedUserProxy`
  over the scripted user with the ``phrasing`` bank, tasks cycled, each episode seeded
  from ``seed``): an injection ``(turn, mode)`` is *detected* when a rule logged a
  violation of a criterion of that mode at that turn;
* clean episodes (the scripted user alone, each task once unless ``clean_episodes`` says
  otherwise): the false-positive rate is the share of clean episodes with any rule
  violation.

With a ``judge``, judge-only injected modes are graded too: the judge is asked, per
injection, the mode's criterion (:func:`mode_criterion`), and on each clean episode the
criteria of the judge-only modes that were injected; a ``fail`` is a detection (or a
judge false positive).
"""
from __future__ import annotations

from collections import Counter
from typing import Any, Callable

from userbench_env.core.rubric import Criterion
from userbench_env.envs.conversation import ConversationEnv
from userbench_env.fidelity.grading import judge_for
from userbench_env.fidelity.taxonomy import TAXONOMY, resolve_modes


def mode_criterion(mode: str) -> Criterion:
    """The judge criterion of a taxonomy mode: the customer never shows it."""
    spec = TAXONOMY[mode]
    statement = f"The customer never does this: {spec.description[0].lower()}{spec.description[1:]}"
    return Criterion(id=f"{spec.family}/{mode}", family=spec.family, mode=mode, statement=statement,  # type: ignore[arg-type]
                     grounding=spec.guideline, check="judge")


def run_episode(env: ConversationEnv, task_id: str, seed: int | None = None) -> dict[str, Any]:
    """One episode of the scripted oracle agent on ``task_id``; returns the terminal episode dict."""
    from userbench_env.agents.scripted import ScriptedAgent

    agent = ScriptedAgent()
    observation, info = env.reset(seed=seed, options={"task_id": task_id})
    agent.reset(env.task)
    while "episode_record" not in info:
        observation, _, _, _, info = env.step(agent.act(observation, info))
    return info["episode_record"]


def judge_fails(judge: Any, mode: str, env: ConversationEnv) -> bool:
    """True when ``judge`` says the conversation of ``env`` shows ``mode`` (an unusable reply is not)."""
    criterion = mode_criterion(mode)
    try:
        return judge.grade(criterion.statement, criterion.grounding, env.messages).verdict == "fail"
    except Exception:  # an unusable judge reply is not a detection
        return False


def validate_fidelity(
    domain: str,
    source: str = "tau2",
    episodes: int = 300,
    seed: int = 0,
    modes: str = "all",
    rate: float = 0.3,
    split: str | None = "default",
    clean_episodes: int | None = None,
    judge: Any = None,
    progress: Callable[[int, int], None] | None = None,
    phrasing: str = "template",
    data_path: str | None = None,
) -> dict[str, Any]:
    """The validation table of one domain (see the module docstring); ``data_path`` is the
    tau2 data folder for ``source="tau2"`` (default ``$USERBENCH_TAU2_DATA``).

    Returns ``{"modes": {mode: {"injected", "detected", "recall", "coverage"}},
    "clean_episodes", "false_positive_rate", "clean_violations", "perturbed_episodes",
    "domain", "source", "seed", "rate", "phrasing"}``, plus ``judge`` and ``judge_false_positive_rate``
    when a judge is given. ``recall`` is None for a mode never injected, and ``detected``
    and ``recall`` are None for a judge-only mode when no judge is given.
    """
    from userbench_env.proxies.perturbed import PerturbedUserProxy

    wanted = resolve_modes(modes)
    grader = judge_for(judge) if judge is not None else None
    perturbed = PerturbedUserProxy("scripted", wanted, rate, seed, phrasing)
    env = ConversationEnv(domain, task_source=source, split=split, user_proxy=perturbed, data_path=data_path)
    tasks = [t.id for t in env.tasks]
    injected: Counter[str] = Counter()
    detected: Counter[str] = Counter()
    for n in range(episodes):
        run_episode(env, tasks[n % len(tasks)], seed=seed * 1_000_003 + n)
        events = {(e["mode"], e["turn"]) for e in env.tracker.events()}
        for injection in perturbed.injections:
            mode, turn = injection["mode"], injection["turn"]
            injected[mode] += 1
            if TAXONOMY[mode].coverage == "rule":
                detected[mode] += (mode, turn) in events
            elif grader is not None:
                detected[mode] += judge_fails(grader, mode, env)
        if progress is not None:
            progress(n + 1, episodes)
    clean_env = ConversationEnv(domain, task_source=source, split=split, user_proxy="scripted", data_path=data_path)
    judged_modes = [m for m in wanted if TAXONOMY[m].coverage == "judge" and injected[m]]
    n_clean = len(tasks) if clean_episodes is None else clean_episodes
    flagged = judge_flagged = 0
    clean_violations: Counter[str] = Counter()
    for n in range(n_clean):
        run_episode(clean_env, tasks[n % len(tasks)], seed=seed * 1_000_003 + n)
        clean_violations.update({e["mode"] for e in clean_env.tracker.events()})
        flagged += bool(clean_env.tracker.violations)
        if grader is not None and judged_modes:
            judge_flagged += any(judge_fails(grader, m, clean_env) for m in judged_modes)
    table: dict[str, Any] = {
        "modes": {
            mode: {
                "injected": injected[mode],
                "detected": detected[mode] if measured else None,
                "recall": detected[mode] / injected[mode] if injected[mode] and measured else None,
                "coverage": TAXONOMY[mode].coverage,
            }
            for mode in wanted
            for measured in [TAXONOMY[mode].coverage == "rule" or grader is not None]
        },
        "clean_episodes": n_clean,
        "false_positive_rate": flagged / n_clean if n_clean else 0.0,
        "clean_violations": dict(clean_violations),
        "perturbed_episodes": episodes,
        "domain": domain,
        "source": source,
        "seed": seed,
        "rate": rate,
        "phrasing": phrasing,
    }
    if grader is not None:
        table["judge"] = {"model": grader.spec.model, "temperature": grader.spec.temperature, "modes": judged_modes}
        table["judge_false_positive_rate"] = judge_flagged / n_clean if n_clean and judged_modes else None
    return table


__all__ = ["judge_fails", "mode_criterion", "run_episode", "validate_fidelity"]
