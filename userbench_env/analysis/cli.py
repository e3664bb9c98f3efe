"""``userbench report`` and ``userbench frontier``: tables, JSON and figures from run stores.

Examples::

    userbench report runs/x.jsonl --plots figs/
    userbench frontier runs/x.jsonl --q 0.8 --q 0.95 --rollouts 10000 --plots figs/
    userbench frontier --points external.csv --json
"""
from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from userbench_env.analysis.plots import require_matplotlib
from userbench_env.errors import UserError


def _records(args: argparse.Namespace) -> list[dict[str, Any]]:
    """The stores' records (repriced with ``--prices``); unreadable lines are a warning on
    stderr, or with ``--strict`` an error."""
    from userbench_env.analysis.load import read_runs, reprice
    from userbench_env.errors import UserError

    runs = read_runs(args.runs)
    warning = runs.warning()
    if warning and args.strict:
        raise UserError(f"{warning} (--strict)")
    if warning:
        print(f"userbench {args.command}: warning: {warning}", file=sys.stderr)
    return reprice(runs.records, args.prices) if args.prices else runs.records


def run_report(args: argparse.Namespace) -> int:
    """Print the report (text or ``--json``), write figures with ``--plots``."""
    from userbench_env.analysis.report import build_report
    from userbench_env.analysis.tables import report_text

    if args.plots:
        require_matplotlib()  # before any output
    report = build_report(_records(args), min_side=args.min_side)
    print(json.dumps(report, indent=2) if args.json else report_text(report))
    if args.plots:
        from userbench_env.analysis.plots import report_figures

        paths = report_figures(report, args.plots)
        print("figures: " + ", ".join(str(p) for p in paths), file=sys.stderr)
    return 0


def _status(point: Any, on_frontier: set[str]) -> str:
    """A point's status column: ``unpriced``, ``frontier`` or ``dominated``."""
    if point.cost_per_sim is None:
        return "unpriced"
    return "frontier" if point.proxy in on_frontier else "dominated"


def run_frontier(args: argparse.Namespace) -> int:
    """Print the frontier, dominated proxies, selections and epoch costs; plot with ``--plots``."""
    from userbench_env.analysis import frontier as fr
    from userbench_env.analysis.tables import cost_cell, format_table, money

    qs = [fr.check_q(q) for q in args.q or [0.5, 0.8, 0.9]]
    if args.plots:
        require_matplotlib()  # before any output
    if args.points:
        points = fr.read_points(args.points)
    elif args.runs:
        from userbench_env.analysis.report import build_report

        points = fr.points_from_report(build_report(_records(args)))
    else:
        raise UserError("give run stores or --points FILE.csv")
    result = fr.frontier_result(points, qs)
    epochs = fr.epoch_costs(points, qs, args.rollouts)
    if args.json:
        print(json.dumps({**result, "points": [p.model_dump() for p in points], "rollouts": args.rollouts,
                          "epoch_costs": epochs}))
    else:
        on = set(result["frontier"])
        print(format_table(["proxy", "cost/sim $", "UFS", "status"],
                           [[p.proxy, cost_cell(p.cost_per_sim, p.cost_per_sim is not None), p.ufs, _status(p, on)]
                            for p in sorted(fr.priced(points), key=lambda p: (p.cost_per_sim, -p.ufs))
                            + [p for p in points if p.cost_per_sim is None]],
                           "Cost-fidelity points"))
        print()
        print(format_table(["q", "U*(q)", f"epoch cost $ ({args.rollouts} rollouts)"],
                           [[k, v, money(epochs[k])] for k, v in result["selection"].items()],
                           "Selection: cheapest priced proxy with UFS >= q"))
        if result["unpriced"]:
            print(f"\nunpriced (no known price, never selected): {', '.join(result['unpriced'])}; "
                  "--prices FILE prices them")
    if args.plots:
        from pathlib import Path

        from userbench_env.analysis.plots import frontier_figure

        path = frontier_figure(fr.priced(points), result["frontier"], Path(args.plots) / "frontier.png")
        print(f"figure: {path}", file=sys.stderr)
    return 0


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--prices", help="reprice from tokens with this override file (JSON/YAML, $ per 1M tokens)")
    p.add_argument("--strict", action="store_true",
                   help="fail on any unreadable line in a run store (default: skip them with a warning)")
    p.add_argument("--plots", metavar="DIR", help="write PNG figures into DIR")
    p.add_argument("--json", action="store_true", help="print JSON instead of tables")


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``report`` and ``frontier`` subcommands."""
    rep = subparsers.add_parser("report", help="UserProxyBench tables from run stores")
    rep.add_argument("runs", nargs="+", help="JSONL run store(s)")
    rep.add_argument("--min-side", type=int, default=5, help="least episodes per side for a family-effect cell")
    _common(rep)
    rep.set_defaults(func=run_report)
    fro = subparsers.add_parser("frontier", help="cost-fidelity frontier and proxy selection")
    fro.add_argument("runs", nargs="*", help="JSONL run store(s)")
    fro.add_argument("--points", help="CSV of external points: proxy,cost_per_sim,ufs")
    fro.add_argument("--q", type=float, action="append", help="required UFS in (0, 1] (repeat; default 0.5, 0.8, 0.9)")
    fro.add_argument("--rollouts", type=int, default=1000, help="rollouts per RL epoch for the epoch cost")
    _common(fro)
    fro.set_defaults(func=run_frontier)
