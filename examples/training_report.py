"""Tables and a learning-curve plot from runs of ``examples/train_sft_grpo.py``.

Reads each run folder's ``log.jsonl`` (phase wall times, SFT and GRPO steps) and its
``eval-<policy>.jsonl`` stores (``userbench eval`` records on the test split) and prints
Markdown: held-out R_tau per policy (n, Wilson 95% interval, the paired bootstrap
interval of the difference to the base model on the same tasks, infrastructure
errors), agent questions and tool calls per episode (bootstrap 95% intervals), wall
time and tokens. An episode that ended in an error counts as a failure in R_tau (a
served policy that cannot produce a valid turn has failed the task) and is counted in
the ``errors`` column.

    python examples/training_report.py --run faithful=runs/main --run unfaithful=runs/unfaithful \\
        --plot docs/training-curve.png
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from userbench_env.analysis.stats import bootstrap_interval, wilson_interval


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """The JSON lines of ``path`` ([] when it does not exist)."""
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def success(record: dict[str, Any]) -> float:
    """1 when the episode reached R_tau 1, else 0 (errors included)."""
    return 1.0 if not record.get("error") and float(record.get("reward") or 0.0) >= 1.0 else 0.0


def policy_rows(records: list[dict[str, Any]]) -> dict[str, Any]:
    """n, successes, R_tau with its Wilson interval, errors, questions and tool calls with intervals."""
    by_task = {r["task_id"]: r for r in records}
    wins = [success(r) for r in by_task.values()]
    n = len(wins)
    questions = [float(r.get("agent_questions", 0)) for r in by_task.values()]
    calls = [float(r.get("agent_tool_calls", 0)) for r in by_task.values()]
    return {"n": n, "successes": int(sum(wins)), "r_tau": sum(wins) / n if n else float("nan"),
            "r_tau_ci": wilson_interval(int(sum(wins)), n), "errors": sum(1 for r in by_task.values() if r.get("error")),
            "questions": sum(questions) / n if n else float("nan"), "questions_ci": bootstrap_interval(questions),
            "tool_calls": sum(calls) / n if n else float("nan"), "tool_calls_ci": bootstrap_interval(calls),
            "by_task": {t: success(r) for t, r in by_task.items()}}


def paired_difference(a: dict[str, float], b: dict[str, float]) -> tuple[float, tuple[float, float], int]:
    """Mean of ``a - b`` over their shared tasks, its bootstrap 95% interval, and the count."""
    shared = sorted(set(a) & set(b))
    diffs = [a[t] - b[t] for t in shared]
    return (sum(diffs) / len(diffs) if diffs else float("nan")), bootstrap_interval(diffs), len(shared)


def phase_seconds(log: list[dict[str, Any]]) -> dict[str, float]:
    """Wall seconds per phase (its ``done`` entry)."""
    return {e["phase"]: e["seconds"] for e in log if e.get("event") == "done" and "seconds" in e}


def fmt(value: float, interval: tuple[float, float], digits: int = 2) -> str:
    return f"{value:.{digits}f} [{interval[0]:.{digits}f}, {interval[1]:.{digits}f}]"


def evaluations(runs: dict[str, Path], common: bool = False) -> list[tuple[str, str, list[dict[str, Any]]]]:
    """``(run label, policy, records)`` of every eval store of ``runs``; with ``common``,
    only the tasks every store evaluated (so the rows compare the same tasks)."""
    found = [(label, policy, read_jsonl(folder / f"eval-{policy}.jsonl"))
             for label, folder in runs.items() for policy in ("base", "sft", "sft-grpo")]
    found = [(label, policy, records) for label, policy, records in found if records]
    if common and found:
        shared = set.intersection(*({r["task_id"] for r in records} for _, _, records in found))
        found = [(label, policy, [r for r in records if r["task_id"] in shared]) for label, policy, records in found]
    return found


def report(runs: dict[str, Path], common: bool = False) -> str:
    """The Markdown tables for ``runs`` (label -> run folder; ``common``: see :func:`evaluations`)."""
    lines = ["| run | policy | n | R_tau [95% CI] | vs base, paired [95% CI] | errors | questions/ep [95% CI] | "
             "tool calls/ep [95% CI] | eval wall s |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    base: dict[str, float] | None = None
    for label, policy, records in evaluations(runs, common):
        seconds = phase_seconds(read_jsonl(runs[label] / "log.jsonl"))
        row = policy_rows(records)
        if policy == "base" and base is None:
            base = row["by_task"]
        versus = ""
        if policy != "base" and base is not None:
            mean, (low, high), n = paired_difference(row["by_task"], base)
            versus = f"{mean:+.2f} [{low:+.2f}, {high:+.2f}] (n={n})"
        lines.append(f"| {label} | {policy} | {row['n']} | {fmt(row['r_tau'], row['r_tau_ci'])} | {versus} | "
                     f"{row['errors']} | {fmt(row['questions'], row['questions_ci'])} | "
                     f"{fmt(row['tool_calls'], row['tool_calls_ci'])} | {seconds.get(f'eval-{policy}', float('nan')):.0f} |")
    lines += ["", "| run | phase | wall s | tokens | steps |", "| --- | --- | --- | --- | --- |"]
    for label, folder in runs.items():
        log = read_jsonl(folder / "log.jsonl")
        seconds = phase_seconds(log)
        for phase in ("demonstrations", "load", "sft", "grpo"):
            steps = [e for e in log if e.get("phase") == phase and "step" in e]
            if phase in seconds:
                lines.append(f"| {label} | {phase} | {seconds[phase]:.0f} | {sum(e.get('tokens', 0) for e in steps)} | "
                             f"{len(steps) or ''} |")
    return "\n".join(lines)


def plot(runs: dict[str, Path], path: Path) -> None:
    """SFT loss per step, GRPO rollout R_tau per step, and held-out R_tau per policy (PNG)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(14, 4))
    for label, folder in runs.items():
        log = read_jsonl(folder / "log.jsonl")
        sft = [e for e in log if e.get("phase") == "sft" and "step" in e]
        grpo = [e for e in log if e.get("phase") == "grpo" and "step" in e]
        if sft:
            axes[0].plot([e["step"] for e in sft], [e["loss"] for e in sft], label=label)
        if grpo:
            axes[1].plot([e["step"] for e in grpo], [e["r_tau"] for e in grpo], marker="o", label=label)
    names, values, lows, highs = [], [], [], []
    for label, policy, records in evaluations(runs):
        row = policy_rows(records)
        names.append(f"{label}\n{policy} (n={row['n']})")
        values.append(row["r_tau"])
        lows.append(row["r_tau"] - row["r_tau_ci"][0])
        highs.append(row["r_tau_ci"][1] - row["r_tau"])
    axes[2].bar(range(len(values)), values, yerr=[lows, highs], capsize=4)
    axes[2].set_xticks(range(len(values)), names, fontsize=7)
    axes[0].set(title="SFT: loss on the agent's turns", xlabel="optimizer step", ylabel="cross-entropy")
    axes[1].set(title="GRPO: mean R_tau of the step's rollouts (train tasks)", xlabel="step", ylim=(-0.05, 1.05))
    axes[2].set(title="Held-out R_tau (test split, 95% Wilson)", ylim=(0, 1))
    for axis in axes[:2]:
        if axis.lines:
            axis.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main(argv: list[str] | None = None) -> None:
    """Parse ``--run label=folder`` (repeat) and ``--plot``, print the tables."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--run", action="append", required=True, help="label=folder of a train_sft_grpo.py run")
    parser.add_argument("--plot", help="write the learning-curve PNG here")
    parser.add_argument("--common", action="store_true", help="compare only the test tasks every store evaluated")
    args = parser.parse_args(argv)
    runs = {label: Path(folder) for label, _, folder in (r.partition("=") for r in args.run)}
    print(report(runs, args.common))
    if args.plot:
        plot(runs, Path(args.plot))


if __name__ == "__main__":
    main()
