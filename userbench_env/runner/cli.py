"""``userbench eval``: run (or resume) proxies x agent x domains x trials into a JSONL store.

Example (no API key needed)::

    userbench eval --proxy scripted --agent scripted --domain airline --trials 1 --out runs/x.jsonl

Running again with the same ``--out`` resumes: episodes already in the store are
skipped (``--retry-errors`` reruns those that ended in an infrastructure error); a store
answers one question, so other settings (max turns, proxy temperature, judge, ...) are
refused there (see ``docs/runs.md``). The
summary per proxy and task set (domain) follows the run; ``userbench report`` gives the
full tables. ``--backend ray`` plays the episodes on the actors of a Ray cluster
(``--ray-address``; ``--workers`` actors, ``--concurrency`` episodes in flight on each);
this process still writes the store, so resume works the same.
"""
from __future__ import annotations

import argparse
import json
import sys


#: LLM option flags of ``eval``, as (option keyword, flag suffix, type, help); each exists
#: for the user proxy (``--proxy-<suffix>``) and for the agent (``--agent-<suffix>``)
LLM_FLAGS: tuple[tuple[str, str, type, str], ...] = (
    ("api_key_env", "api-key-env", str, "name of the environment variable holding the API key"),
    ("timeout", "timeout", float, "seconds one whole call may take (connect and every read; default 60)"),
    ("max_retries", "retries", int, "retries of a failed call (default 3; misconfiguration is never retried)"),
    ("max_tokens", "max-tokens", int, "completion-token cap of every call (default 1024)"),
    ("temperature", "temperature", float, "sampling temperature (default 0)"),
)


def llm_options(args: argparse.Namespace, role: str) -> dict[str, object]:
    """The options of the LLM user proxies (``role=""``) or of an LLM agent (``"agent_"``) from the flags."""
    options: dict[str, object] = {}
    for key, dest in (("base_url", "base_url"), ("api_key", "api_key")):
        if getattr(args, role + dest):
            options[key] = getattr(args, role + dest)
    if args.prices:
        options["price_override"] = args.prices
    for key, suffix, _, _ in LLM_FLAGS:
        value = getattr(args, f"{role or 'proxy_'}{suffix.replace('-', '_')}")
        if value is not None:
            options[key] = value
    return options


def _first_errors(records: list[dict[str, object]], most: int = 3) -> list[str]:
    """The first ``most`` distinct infrastructure-error messages of ``records``."""
    found: list[str] = []
    for record in records:
        error = record.get("error")
        if error and str(error) not in found:
            found.append(str(error))
    return found[:most]


def report_errors(records: list[dict[str, object]]) -> int:
    """Say on stderr how many of the run's ``records`` are infrastructure errors, their first
    messages and that ``--retry-errors`` reruns them; the exit code: 1 when every one is an
    error (nothing was measured), else 0."""
    errors = [r for r in records if r.get("error")]
    if not errors:
        return 0
    every = len(errors) == len(records)
    what = (f"every episode run ended in an infrastructure error ({len(errors)})" if every else
            f"{len(errors)} of {len(records)} episodes ended in an infrastructure error (in no rate)")
    print(f"userbench eval: {what}; first errors:", file=sys.stderr)
    for message in _first_errors(errors):
        print(f"  {message}", file=sys.stderr)
    print("userbench eval: fix the cause, then run the same command with --retry-errors to rerun them",
          file=sys.stderr)
    return 1 if every else 0


def run(args: argparse.Namespace) -> int:
    """Run the evaluation, then print the per-task-set summary; returns the exit code."""
    from userbench_env.analysis.load import load_records
    from userbench_env.analysis.tables import summary_table
    from userbench_env.runner.evaluation import EvalConfig, RunAborted, plan, run_eval

    options = llm_options(args, "")
    if args.proxy_guidelines:
        options["guidelines"] = args.proxy_guidelines
    agent_options = llm_options(args, "agent_")
    if args.agent_system_prompt:
        from pathlib import Path

        agent_options["system_prompt"] = Path(args.agent_system_prompt).read_text(encoding="utf-8")
    if args.agent_tool:
        agent_options["tool_names"] = list(args.agent_tool)
    config = EvalConfig(
        proxies=args.proxy or ["scripted"], agent=args.agent, domains=args.domain or [], source=args.source,
        split=None if args.split == "all" else args.split, trials=args.trials, task_ids=args.task_id or [],
        limit=args.limit, concurrency=args.concurrency, max_turns=args.max_turns,
        max_consecutive_errors=args.max_consecutive_errors, out=args.out,
        retry_errors=args.retry_errors, progress=not args.no_progress, data_path=args.data_path, judge=args.judge,
        rubrics=args.rubrics,
        proxy_options=options, agent_options=agent_options,
    )
    if args.route is not None:
        import asyncio

        from userbench_env.runner.routing import Route, aroute_eval

        config = asyncio.run(aroute_eval(config, Route(q=args.route, on_miss=args.route_on_miss), args.frontier,
                                         args.calibration))
        route = config.route or {}
        print(f"route q={route['q']:g}: {route['proxy']} (UFS {route['ufs']:.3f}, ${route['cost_per_sim']:.3g}/sim, "
              f"{'reaches q' if route['met'] else 'below q: fallback'}; from {route['source']})", file=sys.stderr)
    try:
        result = run_eval(config, backend=args.backend, ray_address=args.ray_address, workers=args.workers)
    except (ValueError, FileNotFoundError, ImportError) as exc:  # bad spec, domain, split, data path; no Ray
        print(f"userbench eval: {exc}", file=sys.stderr)
        return 2
    except RunAborted as exc:  # a write failure or an error streak: the finished records are stored
        print(f"userbench eval: {exc}", file=sys.stderr)
        return 1
    planned = {meta.key for meta in plan(config)}
    records = [r for r in load_records([config.out]) if r["key"] in planned]
    errors = sum(1 for r in records if r.get("error"))
    if args.json:
        from userbench_env.analysis.report import summary

        print(json.dumps({"run": result.model_dump(), "summary": summary(records)}, indent=2))
    else:
        print(f"{result.ran} episodes run, {result.skipped} already in {result.out}, {errors} infrastructure errors")
        print(summary_table(records))
    return report_errors(records)


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``eval`` subcommand."""
    from userbench_env.cli import add_source_arguments

    p = subparsers.add_parser("eval", help="evaluate user proxies x agent x domains (resumable JSONL store)")
    p.add_argument("--proxy", action="append", help="user proxy spec (repeat): scripted, litellm:<model>, direct:<model>, perturbed:<modes>@<rate>+<base>, replay:<file>")
    p.add_argument("--agent", default="scripted",
                   help="agent spec: scripted (default), adaptive, litellm:<model>, direct:<model>")
    p.add_argument("--domain", action="append", help="domain (repeat; default: every bundled domain)")
    add_source_arguments(p)
    p.add_argument("--split", default="default", help="task split ('all' for every task)")
    p.add_argument("--task-id", action="append", help="only these task ids (repeat)")
    p.add_argument("--limit", type=int, help="at most N tasks per domain")
    p.add_argument("--trials", type=int, default=1, help="trials per task (seed = trial)")
    p.add_argument("--concurrency", type=int, default=8, help="episodes in flight (per worker with --backend ray)")
    p.add_argument("--backend", choices=["local", "ray"], default="local",
                   help='where episodes run: this process, or Ray actors (needs the ray extra: pip install "userbench-env[ray]")')
    p.add_argument("--ray-address", help="Ray cluster address (default: the RAY_ADDRESS cluster, else a new local one, whatever a past `ray start` left)")
    p.add_argument("--workers", type=int, help="Ray actors (default: one per cluster CPU)")
    p.add_argument("--max-turns", type=int, default=100, help="agent-turn budget per episode")
    p.add_argument("--out", default="runs/eval.jsonl", help="JSONL store (appended; resumed)")
    p.add_argument("--retry-errors", action="store_true", help="rerun episodes that ended in an infrastructure error")
    p.add_argument("--max-consecutive-errors", type=int, default=10, metavar="N",
                   help="stop the run after N infrastructure errors in a row (0: never stop)")
    p.add_argument("--base-url", help="OpenAI-compatible base URL for litellm/direct proxies")
    p.add_argument("--agent-base-url", help="OpenAI-compatible base URL for a litellm/direct agent")
    p.add_argument("--agent-api-key", help="API key for a litellm/direct agent")
    p.add_argument("--agent-system-prompt", metavar="FILE",
                   help="a litellm/direct agent's system prompt from this file instead of the env's (instructions + policy)")
    p.add_argument("--agent-tool", action="append", metavar="NAME",
                   help="offer a litellm/direct agent only the env's tools of these names (repeat)")
    p.add_argument("--api-key", help="API key for litellm proxies (default: the provider's env var)")
    p.add_argument("--prices", help="price override file (JSON/YAML: model -> {input, output} $ per 1M tokens)")
    for role, who in (("proxy", "litellm/direct user proxies"), ("agent", "a litellm/direct agent")):
        for _, suffix, kind, text in LLM_FLAGS:
            p.add_argument(f"--{role}-{suffix}", type=kind, help=f"{text}, for {who}")
    p.add_argument("--route", type=float, metavar="Q",
                   help="use only the cheapest --proxy candidate whose UFS reaches Q (from --frontier, else measured "
                        "first on --calibration tasks per domain); the choice is recorded in every record")
    p.add_argument("--frontier", metavar="FILE",
                   help="with --route: the candidates' points (frontier --json output, points CSV, or a run store)")
    p.add_argument("--calibration", type=int, metavar="N",
                   help="with --route and no --frontier: tasks per domain of the calibration slice (default 8)")
    p.add_argument("--route-on-miss", choices=["fallback", "fail"], default="fallback",
                   help="with --route: when no candidate reaches Q, use the most faithful one or fail")
    p.add_argument("--proxy-guidelines", choices=["userbench", "tau2"],
                   help="simulation guideline of litellm/direct user proxies: our short one or tau2's full one "
                        "(default: userbench)")
    p.add_argument("--judge", help="judge criteria: 'deferred' (left pending for `userbench grade`) or a litellm "
                                   "model spec (default: rules only, judge criteria not graded)")
    p.add_argument("--rubrics", metavar="DIR", help="rubric root (from `userbench generate-rubrics`) whose judge "
                                                    "criteria every episode adds")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--json", action="store_true", help="print the run and summary as JSON")
    p.set_defaults(func=run)
