"""``userbench score-transcripts`` and ``userbench export``.

Examples::

    userbench score-transcripts results.json --format tau2 --domain airline --source tau2 --out scored.jsonl
    userbench score-transcripts taubench-gpt4o-airline.json --format taubench --domain airline \\
        --source tau2 --out scored.jsonl
    userbench report scored.jsonl
    userbench export --format tau2 runs/eval.jsonl --out results.json

``score-transcripts`` writes one JSON line per scored episode (the schema is in
``docs/transcripts.md``); an entry it cannot score is one line on stderr naming the file
and the entry, the rest is still scored, and the count of skipped entries ends the run
(``--strict``: any skipped entry fails the run, exit 2, and nothing is written).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from userbench_env.errors import UserError


def run_score(args: argparse.Namespace) -> int:
    """Score every input file into ``--out``."""
    from userbench_env.fidelity.cli import _model_option
    from userbench_env.fidelity.transcripts.files import TaskChoice, score_file
    from userbench_env.fidelity.transcripts.scoring import Plans
    from userbench_env.fidelity.transcripts.transcript import NotThisFormat

    choice = TaskChoice(domain=args.domain, source=args.source, data_path=args.data_path, from_file=args.file_tasks)
    judge = _model_option(args, "judge")
    plans = Plans()
    lines, skipped = [], 0
    for path in args.paths:
        if not Path(path).is_file():
            raise FileNotFoundError(f"no file at {path}")
        try:
            scored = score_file(path, args.format, choice, judge=judge, user_model=args.user_model, plans=plans)
        except NotThisFormat as exc:
            raise UserError(str(exc)) from None
        for bad in scored.skipped:
            print(f"userbench score-transcripts: skipped {bad}", file=sys.stderr)
        lines += scored.lines
        skipped += len(scored.skipped)
    if skipped and args.strict:
        raise UserError(f"{skipped} entries could not be scored (--strict): nothing written")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", encoding="utf-8") as handle:
        for line in lines:
            handle.write(json.dumps(line, ensure_ascii=False) + "\n")
    failed = sum(line["ufs_pass"] is False for line in lines)
    print(f"scored {len(lines)} episodes ({failed} failing UFS), skipped {skipped} -> {out}", file=sys.stderr)
    return 0


def run_export(args: argparse.Namespace) -> int:
    """Write a run store as a tau2 results file (``--out``, else stdout)."""
    from userbench_env.analysis.load import read_runs
    from userbench_env.fidelity.transcripts.export import to_tau2_results

    results = to_tau2_results(read_runs([args.store]).records, proxy=args.proxy, domain=args.domain,
                              data_path=args.data_path)
    text = json.dumps(results, indent=2, ensure_ascii=False) + "\n"
    if args.out:
        Path(args.out).write_text(text, encoding="utf-8")
        print(f"exported {len(results['simulations'])} simulations -> {args.out}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``score-transcripts`` and ``export`` subcommands."""
    from userbench_env.cli import add_source_arguments
    from userbench_env.fidelity.cli import _model_arguments
    from userbench_env.fidelity.transcripts.files import FORMATS

    score = subparsers.add_parser("score-transcripts", help="UFS of tau2 results files and tau-bench trajectory lists")
    score.add_argument("paths", nargs="+", metavar="PATH", help="input file(s), all of --format and --domain")
    score.add_argument("--format", required=True, choices=FORMATS,
                       help="tau2: tau2-bench's results JSON; taubench: a tau-bench (v1) trajectory list")
    score.add_argument("--domain", required=True, help="the domain the transcripts ran in")
    add_source_arguments(score)
    score.add_argument("--file-tasks", action="store_true",
                       help="tau2 format: score against the tasks the results file carries instead of --source")
    score.add_argument("--user-model", help="name the user model the lines are grouped by "
                                            "(default: the file's user model; a tau-bench list's file name)")
    _model_arguments(score, "judge", required=False)
    score.add_argument("--strict", action="store_true",
                       help="fail (exit 2, nothing written) if any entry cannot be scored (default: skip it)")
    score.add_argument("--out", required=True, help="JSON-lines output, one line per scored episode (overwritten)")
    score.set_defaults(func=run_score)

    export = subparsers.add_parser("export", help="write a run store as a tau2 results file")
    export.add_argument("store", help="JSONL run store (from `userbench eval`)")
    export.add_argument("--format", required=True, choices=["tau2"], help="output format")
    export.add_argument("--proxy", help="export this proxy's episodes (needed when the store holds several)")
    export.add_argument("--domain", help="export this domain's episodes (needed when the store holds several)")
    export.add_argument("--data-path", help="tau2 data folder for episodes of tau2 tasks (default: $USERBENCH_TAU2_DATA)")
    export.add_argument("--out", help="output file (default: stdout)")
    export.set_defaults(func=run_export)
