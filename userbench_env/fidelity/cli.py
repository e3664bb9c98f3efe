"""``userbench validate-fidelity`` and ``userbench grade``.

Examples::

    userbench validate-fidelity --domain airline --source tau2 --episodes 300 --seed 0 --json airline.json
    userbench grade results.jsonl --judge openai/gpt-4.1 --out graded.jsonl

``validate-fidelity`` runs perturbed and clean scripted episodes and writes the recall
per mode and the false-positive rate (see :mod:`userbench_env.fidelity.validate`).
``grade`` fills in the pending judge verdicts of an episode JSONL written with
``judge="deferred"`` (one record per line, plain dicts with ``criteria`` and
``messages``) and recomputes ``ufs_pass`` and ``failures_per_family``.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any


def _judge_option(args: argparse.Namespace) -> Any:
    """The judge spec from ``--judge``/``--judge-base-url`` (None without ``--judge``)."""
    if not args.judge:
        return None
    spec: dict[str, Any] = {"model": args.judge.removeprefix("litellm:")}
    if args.judge_base_url:
        spec["base_url"] = args.judge_base_url
    if args.judge_api_key_env:
        spec["api_key"] = os.environ.get(args.judge_api_key_env)
    return spec


def format_table(table: dict[str, Any]) -> str:
    """The validation table as plain text (one line per mode, then the false-positive rate)."""
    lines = [f"{table['domain']} ({table['source']}): {table['perturbed_episodes']} perturbed episodes, seed {table['seed']}"]
    lines.append(f"{'mode':32} {'coverage':8} {'injected':>8} {'detected':>8} {'recall':>7}")
    for mode, row in table["modes"].items():
        recall = "-" if row["recall"] is None else f"{row['recall']:.3f}"
        detected = "-" if row["detected"] is None else str(row["detected"])
        lines.append(f"{mode:32} {row['coverage']:8} {row['injected']:8d} {detected:>8} {recall:>7}")
    lines.append(f"clean episodes: {table['clean_episodes']}, false-positive rate: {table['false_positive_rate']:.3f}")
    return "\n".join(lines)


def run_validate(args: argparse.Namespace) -> int:
    """Handler of ``validate-fidelity``."""
    from userbench_env.fidelity.validate import validate_fidelity

    table = validate_fidelity(
        args.domain, args.source, args.episodes, args.seed, args.modes, args.rate,
        split=args.split, clean_episodes=args.clean_episodes, judge=_judge_option(args),
    )
    if args.json:
        Path(args.json).write_text(json.dumps(table, indent=1) + "\n", encoding="utf-8")
    print(format_table(table))
    return 0


def run_grade(args: argparse.Namespace) -> int:
    """Handler of ``grade``: grade every record, write them (to ``--out`` or in place)."""
    from userbench_env.fidelity.grading import grade_record, judge_for
    from userbench_env.fidelity.judge import FidelityJudge

    judge = FidelityJudge(_judge_option(args), cache_dir=args.cache_dir) if args.cache_dir else judge_for(_judge_option(args))
    source = Path(args.results)
    records = [json.loads(line) for line in source.read_text(encoding="utf-8").splitlines() if line.strip()]
    graded = [grade_record(record, judge) for record in records]
    errors = sum(1 for r in graded for c in r.get("criteria") or [] if c.get("verdict") == "error")
    target = Path(args.out) if args.out else source
    tmp = target.with_name(target.name + ".tmp")
    tmp.write_text("".join(json.dumps(r) + "\n" for r in graded), encoding="utf-8")
    tmp.replace(target)
    print(f"graded {len(graded)} episodes with {judge.spec.model} ({judge.calls} judge calls, {errors} errors) -> {target}")
    return 1 if errors else 0


def _judge_arguments(parser: argparse.ArgumentParser, required: bool) -> None:
    parser.add_argument("--judge", required=required, help="judge model for litellm (e.g. openai/gpt-4.1)")
    parser.add_argument("--judge-base-url", help="OpenAI-compatible endpoint of the judge")
    parser.add_argument("--judge-api-key-env", help="environment variable holding the judge's API key")


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``validate-fidelity`` and ``grade`` subcommands."""
    validate = subparsers.add_parser("validate-fidelity", help="measure rule recall and false positives with a perturbed user")
    validate.add_argument("--domain", required=True)
    validate.add_argument("--source", choices=["bundled", "tau2"], default="tau2")
    validate.add_argument("--split", default="default", help="task split (default: the source's default)")
    validate.add_argument("--episodes", type=int, default=300, help="perturbed episodes")
    validate.add_argument("--clean-episodes", type=int, help="clean episodes (default: every task once)")
    validate.add_argument("--seed", type=int, default=0)
    validate.add_argument("--modes", default="all", help="modes, families or 'all' (comma-separated)")
    validate.add_argument("--rate", type=float, default=0.3, help="injection probability per user turn")
    validate.add_argument("--json", help="write the table as JSON here")
    _judge_arguments(validate, required=False)
    validate.set_defaults(func=run_validate)

    grade = subparsers.add_parser("grade", help="grade the pending judge verdicts of an episode JSONL")
    grade.add_argument("results", help="episode records, one JSON object per line")
    grade.add_argument("--out", help="where to write the graded records (default: in place)")
    grade.add_argument("--cache-dir", help="persist judge verdicts here")
    _judge_arguments(grade, required=True)
    grade.set_defaults(func=run_grade)


if __name__ == "__main__":  # pragma: no cover
    parser = argparse.ArgumentParser(prog="userbench")
    register(parser.add_subparsers(dest="command"))
    parsed = parser.parse_args()
    sys.exit(parsed.func(parsed))
