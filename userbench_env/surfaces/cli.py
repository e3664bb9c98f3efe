"""``userbench apb``: score persona-surface artifacts from the command line.

``userbench apb score TASK --artifact FILE [--rule RULE] [--kind KIND] [--judge-model M
[--judge-base-url URL]] --json`` loads TASK (an APB task folder or one of our bundled
task files), reads the artifact (a survey ``{"answers": [...]}`` file, a chat transcript
or ``user_turns.json``; web and app kinds plug in through ``ARTIFACT_KINDS``) and prints
``{"status", "reward", "max_points", "checks": [...]}``. A missing artifact prints
status ``error``. ``--rule`` (one for all checks, or comma-separated per check) replaces
the task's rules and its upstream verifier; ``--label`` (comma-separated, one per check)
names the label maps the checks read. A task's own verifier runs sandboxed
(``--verifier-isolation``, ``--pass-env``; see :mod:`userbench_env.surfaces.verifier`).
A path that is not a task, a malformed task or a check without a rule is a one-line
error (exit 2).
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from userbench_env.surfaces.artifacts import ARTIFACT_KINDS, ArtifactError, malformed_outcome, read_artifact, score_artifact
from userbench_env.surfaces.rules import parse_rules
from userbench_env.surfaces.tasks import SurfaceTask, load_apb_task, load_bundled_task


def load_task(path: str | Path) -> SurfaceTask:
    """An APB task folder or a bundled task YAML file."""
    path = Path(path)
    if path.is_dir():
        return load_apb_task(path)
    if path.is_file():
        return load_bundled_task(path)
    raise FileNotFoundError(f"no task at {path}")


def score_command(args: argparse.Namespace) -> int:
    """Handler of ``apb score``: prints the outcome (JSON or one line); returns 0."""
    task = load_task(args.task)
    if args.rule:
        task = task.with_rules([str(r) for r in parse_rules(args.rule)])
    if args.label:
        task = task.with_labels([name.strip() for name in args.label.split(",")])
    if not task.verifier and task.surface != "chat":
        task.rules()  # a check without a rule: a one-line error naming --rule, before any scoring
    judge: Any = None
    if args.judge_model:
        judge = {"model": args.judge_model, "base_url": args.judge_base_url}
    try:
        data = read_artifact(args.artifact)
        outcome = score_artifact(task, data, kind=args.kind, judge=judge, isolation=args.verifier_isolation,
                                 pass_env=args.pass_env)
    except ArtifactError as exc:
        outcome = malformed_outcome(task, str(exc))
    result = outcome.as_dict()
    if args.json:
        print(json.dumps(result, ensure_ascii=False))
    else:
        print(f"{task.id}: {result['status']} reward={result['reward']:g}/{result['max_points']}"
              + (f" error={result['error']}" if outcome.error else ""))
    return 0


def register(subparsers: Any) -> None:
    """Add ``apb`` and its ``score`` subcommand."""
    apb = subparsers.add_parser("apb", help="AgentPersonaBench-style persona tasks")
    sub = apb.add_subparsers(dest="apb_command", metavar="ACTION")
    score = sub.add_parser("score", help="score one artifact for one task")
    score.add_argument("task", help="APB task folder or bundled task file")
    score.add_argument("--artifact", required=True, help="artifact JSON file (a missing file scores as error)")
    score.add_argument("--rule", help="decision rule(s): avoid, exhibit, at-least:K, per-question, tier:N")
    score.add_argument("--label", help="label map(s) the checks read, comma-separated, one per check "
                                       "(default: from the rules overlay, the answer key or the page's one data-* label)")
    score.add_argument("--verifier-isolation", choices=["auto", "docker", "process"], default="auto",
                       help="where a task's own tests/verifier.py runs: a network-less container, a scrubbed "
                            "subprocess, or the container when Docker answers")
    score.add_argument("--pass-env", action="append", default=[], metavar="NAME",
                       help="pass this environment variable to the task's verifier (repeatable; "
                            "nothing else but locale and PATH is passed)")
    score.add_argument("--kind", choices=sorted(ARTIFACT_KINDS), help="artifact kind (default: detected)")
    score.add_argument("--judge-model", help="litellm model for judged (chat) checks")
    score.add_argument("--judge-base-url", help="OpenAI-compatible base URL of the judge")
    score.add_argument("--json", action="store_true", help="print the outcome as JSON")
    score.set_defaults(func=score_command)
    apb.set_defaults(func=lambda _args: (apb.print_help(), 2)[1])
