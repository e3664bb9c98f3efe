"""Evaluate user proxies on bundled tasks, resumably, then print the report.

The same job as ``userbench eval`` + ``userbench report``, from Python. Runs offline:
the scripted user and a perturbed one (which injects labelled fidelity violations)
opposite the scripted oracle agent.

    python examples/eval_loop.py --out runs/example.jsonl --limit 5
"""
from __future__ import annotations

import argparse

from userbench_env.analysis.load import load_records
from userbench_env.analysis.report import build_report
from userbench_env.analysis.tables import report_text
from userbench_env.runner import EvalConfig, run_eval


def main() -> None:
    """Run (or resume) the evaluation and print every report table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="runs/example.jsonl")
    parser.add_argument("--limit", type=int, default=5, help="tasks per domain")
    parser.add_argument("--domain", action="append", default=None)
    args = parser.parse_args()
    config = EvalConfig(
        proxies=["scripted", "perturbed:volunteers_unasked_info@0.5+scripted"],
        domains=args.domain or ["airline", "retail"], limit=args.limit, concurrency=8, out=args.out, progress=False,
    )
    result = run_eval(config)  # a second call resumes: finished episodes are skipped
    print(f"ran {result.ran}, skipped {result.skipped}, infrastructure errors {result.errors}")
    print(report_text(build_report(load_records([args.out]))))


if __name__ == "__main__":
    main()
