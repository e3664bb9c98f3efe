"""``userbench generate DOMAIN --seed N --out tasks/``: regenerate a bundled world."""
from __future__ import annotations

import argparse
from pathlib import Path


def register(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    """Add the ``generate`` subcommand."""
    from userbench_env.generate import DEFAULT_SEED, GENERATORS

    parser = subparsers.add_parser(
        "generate",
        help="generate a bundled world and its tasks from a seed",
        description="Write tasks/<domain>/ (world files, policy, tasks.json) from a seed. "
        "Every gold action is run on the written world and every gold transcript must score 1.",
    )
    parser.add_argument("domain", choices=[*GENERATORS, "all"], help="domain to generate, or 'all'")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help=f"random seed (default {DEFAULT_SEED})")
    parser.add_argument("--out", type=Path, default=None, help="output root (default: the bundled tasks/ folder)")
    parser.add_argument("--no-verify", action="store_true", help="skip scoring the gold transcripts")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Generate the requested domain(s) and print one summary line each."""
    from userbench_env.generate import GENERATORS, generate_domain

    domains = list(GENERATORS) if args.domain == "all" else [args.domain]
    for domain in domains:
        report = generate_domain(domain, seed=args.seed, out_root=args.out, verify=not args.no_verify)
        print(report.summary())
    return 0
