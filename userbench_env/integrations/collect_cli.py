"""``userbench collect``: demonstrations as training data (JSONL, one record per kept episode).

Examples::

    userbench collect --domain telecom --split train --format chat --out demos.jsonl
    userbench collect --domain telecom --agent adaptive \\
        --proxy "perturbed:volunteers_unasked_info@1.0+scripted" --gate none --out leaky.jsonl

``--format chat`` writes the records of
:func:`~userbench_env.integrations.sft.demonstrations` (TRL's conversational format:
``messages`` with OpenAI tool calls, ``tools``, and the episode's task id, R_tau, UFS
verdict, questions and tool calls). Kept: R_tau at least ``--min-reward`` and, with
``--gate ufs`` (the default), a passing UFS. A summary line goes to stderr.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def run(args: argparse.Namespace) -> int:
    """Collect and write the records; returns the exit code."""
    from userbench_env.integrations.sft import demonstrations
    from userbench_env.runner.gate import Gate

    env_id = f"UserBench/{args.domain.title()}-v0"
    system_prompt = Path(args.system_prompt).read_text(encoding="utf-8") if args.system_prompt else None
    env_kwargs = {"data_path": args.data_path} if args.data_path else {}
    records = demonstrations(
        env_id, args.split, agent=args.agent, user_proxy=args.proxy, gate=Gate() if args.gate == "ufs" else None,
        min_reward=args.min_reward, task_source=args.source, task_ids=args.task_id or None,
        seeds=tuple(range(args.seeds)), system_prompt=system_prompt, tools=args.tool or None,
        **({"max_turns": args.max_turns} | env_kwargs),
    )
    lines = "".join(json.dumps(record) + "\n" for record in records)
    if args.out == "-":
        sys.stdout.write(lines)
    else:
        Path(args.out).write_text(lines, encoding="utf-8")
    print(f"kept {len(records)} demonstrations of {env_id} ({args.split}) -> {args.out}", file=sys.stderr)
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``collect`` subcommand."""
    from userbench_env.cli import add_source_arguments

    p = subparsers.add_parser("collect", help="play episodes with an (oracle) agent and write training demonstrations")
    p.add_argument("--domain", required=True, help="domain: airline, retail, telecom or banking")
    add_source_arguments(p)
    p.add_argument("--split", default="train", help="task split")
    p.add_argument("--task-id", action="append", help="only these task ids (repeat)")
    p.add_argument("--seeds", type=int, default=1, help="episodes per task (seeds 0..N-1)")
    p.add_argument("--agent", default="scripted", help="agent spec: scripted, adaptive, litellm:<model>, direct:<model>")
    p.add_argument("--proxy", default="scripted", help="user proxy spec")
    p.add_argument("--gate", choices=["ufs", "none"], default="ufs", help="keep only episodes whose user passed UFS, or all")
    p.add_argument("--min-reward", type=float, default=1.0, help="keep only episodes with R_tau at least this")
    p.add_argument("--max-turns", type=int, default=100, help="agent-turn budget per episode")
    p.add_argument("--system-prompt", metavar="FILE", help="the system prompt written into the records (default: the env's)")
    p.add_argument("--tool", action="append", metavar="NAME", help="only these tool schemas in the records (repeat)")
    p.add_argument("--format", choices=["chat"], default="chat",
                   help="record format: chat = TRL conversational records (messages with tool calls, tools)")
    p.add_argument("--out", default="-", help="JSONL file to write ('-': stdout)")
    p.set_defaults(func=run)
