"""``userbench validate-fidelity``, ``userbench grade`` and ``userbench generate-rubrics``.

Examples::

    userbench validate-fidelity --domain airline --source tau2 --episodes 300 --seed 0 --json airline.json
    userbench validate-fidelity --corpus tests/fidelity_corpus --json corpus.json
    userbench validate-fidelity --real-labels tests/real_user_labels --transcripts taubench-gpt4o-airline.json \
        --domain airline --source tau2 --json validity.json
    userbench grade results.jsonl --judge openai/gpt-4.1 --out graded.jsonl
    userbench generate-rubrics --domain retail --source tau2 --writer openai/gpt-4.1 \
        --verifier anthropic/claude-sonnet-4 --out rubrics

``validate-fidelity`` runs perturbed and clean scripted episodes and writes the recall
per mode and the false-positive rate (see :mod:`userbench_env.fidelity.validate`); with
``--corpus`` it scores the hand-written corpus (:mod:`userbench_env.fidelity.corpus`) and
prints the perturbed proxy's template and natural phrasing banks beside it; with
``--real-labels`` it measures the rules against blind raters' labels of real users' turns
(:mod:`userbench_env.fidelity.validity`).
``grade`` fills in the pending judge verdicts of an episode JSONL written with
``judge="deferred"`` (one record per line, plain dicts with ``criteria`` and
``messages``) and recomputes ``ufs_pass`` and ``failures_per_family``.
``generate-rubrics`` writes a reviewed rubric file of judge criteria per task (see
:mod:`userbench_env.fidelity.generate`) under ``--out``, which envs load with
``rubrics=<out>``; tasks whose file of that version exists are skipped (a rerun resumes),
and it exits 1 when some task got no rubric.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any


def _model_option(args: argparse.Namespace, role: str) -> Any:
    """The model spec from ``--<role>``, ``--<role>-base-url`` and ``--<role>-api-key-env``
    (None without ``--<role>``)."""
    model = getattr(args, role)
    if not model:
        return None
    spec: dict[str, Any] = {"model": model.removeprefix("litellm:")}
    if getattr(args, f"{role}_base_url"):
        spec["base_url"] = getattr(args, f"{role}_base_url")
    if getattr(args, f"{role}_api_key_env"):
        spec["api_key"] = os.environ.get(getattr(args, f"{role}_api_key_env"))
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


def _recall(hit: int | None, total: int) -> str:
    return "-" if hit is None or not total else f"{hit}/{total}={hit / total:.3f}"


def format_corpus(report: dict[str, Any]) -> str:
    """The corpus report as plain text: per-mode table (corpus recall with its 95% interval,
    wrong-mode detections, false alarms; perturbed template and natural recall beside it),
    then replay errors, misses and false alarms with the user's text."""
    corpus = report["corpus"]
    perturbed = report.get("perturbed") or {}
    unreplayed = len(corpus["replay_errors"])
    lines = [f"corpus {report['path']}: {corpus['cases']} cases scored, {corpus['clean_episodes']} clean"
             + (f", {unreplayed} not replayed (listed below)" if unreplayed else "")
             + (f", judge {corpus['judge']}" if corpus.get("judge") else "")]
    lines.append(f"{'mode':28} {'cov':5} {'corpus recall':>15} {'95% CI':>13} {'wrong':>5} {'FA':>3}"
                 f" {'template':>15} {'natural':>15}")
    modes = list(corpus["modes"]) + [m for b in perturbed.values() for m in b if m not in corpus["modes"]]
    for mode in dict.fromkeys(modes):
        row = corpus["modes"].get(mode, {"coverage": "", "cases": 0, "detected": None, "ci": None, "wrong_mode": 0,
                                          "false_alarms": 0})
        ci = "-" if not row["ci"] else f"[{row['ci'][0]:.2f},{row['ci'][1]:.2f}]"
        bank = {name: perturbed.get(name, {}).get(mode, {"detected": None, "injected": 0}) for name in ("template", "natural")}
        lines.append(f"{mode:28} {row['coverage'][:5]:5} {_recall(row['detected'], row['cases']):>15} {ci:>13} "
                     f"{row['wrong_mode']:5d} {row['false_alarms']:3d} "
                     + " ".join(f"{_recall(b['detected'], b['injected']):>15}" for b in bank.values()))
    rate, ci = corpus["false_alarm_rate"], corpus["false_alarm_ci"]
    if rate is not None:
        lines.append(f"false alarms: {corpus['false_alarm_episodes']} of {corpus['clean_episodes']} clean episodes "
                     f"({rate:.3f}, 95% CI [{ci[0]:.3f},{ci[1]:.3f}])")
    for name, writer in corpus.get("by_writer", {}).items():
        alarms = "-" if writer["false_alarm_rate"] is None else (
            f"{writer['false_alarm_episodes']}/{writer['clean_episodes']}={writer['false_alarm_rate']:.3f}")
        lines.append(f"writer {name:12} {writer['cases']:4d} cases  false alarms {alarms:>14}  "
                     f"recall {_recall(writer['detected'], writer['labels']):>15}")
    for error in corpus["replay_errors"]:
        lines.append(f"REPLAY ERROR {error['id']} ({error['origin']}): {error['error']}")
    for failure in corpus["clean_reward_failures"]:
        lines.append(f"CLEAN CASE NOT SOLVED {failure['id']}: reward {failure['reward']} ({failure['termination']})")
    for mode, row in corpus["modes"].items():
        for miss in row["misses"]:
            logged = f" [logged: {', '.join(miss['logged'])}]" if miss["logged"] else ""
            lines.append(f"MISS {mode} {miss['id']} turn {miss['turn']}{logged}: {miss['text']}")
        for wrong in row.get("wrong_modes", []):
            lines.append(f"WRONG MODE {mode} {wrong['id']} turn {wrong['turn']} [logged: {', '.join(wrong['logged'])}]: "
                         f"{wrong['text']}")
    for alarm in corpus["false_alarms"]:
        lines.append(f"FALSE ALARM {alarm['mode']} {alarm['id']} turn {alarm['turn']}: {alarm['text']}")
    if "adjudicated" in report:
        lines += _format_adjudicated(report["adjudicated"], corpus)
    return "\n".join(lines)


def _format_adjudicated(adjudicated: dict[str, Any], corpus: dict[str, Any]) -> list[str]:
    """The raters' reading of the false alarms (:func:`~userbench_env.fidelity.adjudication.adjudicate`):
    the verdicts' counts, the false alarms against the raters out of the clean episodes less
    the scripts they call unfaithful, the writers with a flag they do not call unfaithful, and
    each flagged script's verdict."""
    counts, writers = adjudicated["counts"], corpus.get("by_writer", {})
    rejected, split = counts["rejected"], counts["rejected"] + counts["split"]
    lines = [f"rated flags: {counts['confirmed']} scripts unfaithful by the flagged mode for both raters, "
             f"{counts['other']} by another mode, {counts['rejected']} clean for both, {counts['split']} split, "
             f"{counts['unrated']} unrated",
             f"false alarms against the raters: {rejected} of "
             f"{corpus['clean_episodes'] - counts['confirmed'] - counts['other']} clean episodes ({split} with the split "
             f"ones, {split + counts['unrated']} with the unrated ones); writers with a flag the raters do not "
             f"call unfaithful: {len(adjudicated['not_confirmed_by_writer'])} of {len(writers)}"]
    lines += [f"RATED {verdict.upper()} {script}" for script, verdict in adjudicated["scripts"].items()]
    return lines


def _perturbed_by_mode(tables: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Injected and detected per mode, summed over the domains' validation tables."""
    out: dict[str, dict[str, Any]] = {}
    for table in tables:
        for mode, row in table["modes"].items():
            slot = out.setdefault(mode, {"injected": 0, "detected": 0})
            slot["injected"] += row["injected"]
            slot["detected"] = None if row["detected"] is None or slot["detected"] is None else slot["detected"] + row["detected"]
    return out


def run_corpus(args: argparse.Namespace) -> int:
    """``validate-fidelity --corpus``: score the corpus, and beside it the perturbed proxy
    with both phrasing banks over the corpus's domains (skipped with ``--episodes 0``)."""
    from userbench_env.fidelity.corpus import CorpusError, default_corpus_dir, load_corpus, score_corpus
    from userbench_env.fidelity.validate import validate_fidelity

    try:
        path = Path(args.corpus) if args.corpus else default_corpus_dir()
        cases = load_corpus(path)
    except CorpusError as exc:
        print(str(exc), file=sys.stderr)
        return 2
    ratings = None
    if args.ratings is not None:
        from userbench_env.fidelity.adjudication import RatingError, load_ratings

        try:
            ratings = load_ratings(args.ratings)
        except RatingError as exc:
            print(str(exc), file=sys.stderr)
            return 2
    judge = _model_option(args, "judge")
    report: dict[str, Any] = {"path": str(path), "corpus": score_corpus(cases, judge=judge), "perturbed": {}}
    if ratings is not None:
        from userbench_env.fidelity.adjudication import adjudicate

        report["adjudicated"] = adjudicate(report["corpus"]["false_alarms"], {c.id: c.writer for c in cases}, ratings)
    domains = sorted({case.domain for case in cases})
    if args.episodes:
        for phrasing in ("template", "natural"):
            tables = [validate_fidelity(domain, "tau2", args.episodes, args.seed, args.modes, args.rate,
                                        clean_episodes=0, judge=judge, phrasing=phrasing) for domain in domains]
            report["perturbed"][phrasing] = _perturbed_by_mode(tables)
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    print(format_corpus(report))
    return 1 if report["corpus"]["replay_errors"] else 0


def run_real_labels(args: argparse.Namespace) -> int:
    """``validate-fidelity --real-labels``: score ``--transcripts`` with the rules (as
    ``score-transcripts`` does, in-process) and measure them against the raters' labels,
    per labelled set and pooled (see :mod:`userbench_env.fidelity.validity`)."""
    from userbench_env.errors import UserError
    from userbench_env.fidelity.labels import default_labels_dir, load_label_dir
    from userbench_env.fidelity.transcripts import NotThisFormat, TaskChoice, score_file
    from userbench_env.fidelity.validity import format_report, validity_reports

    if not args.transcripts or not args.domain:
        raise UserError("validate-fidelity --real-labels needs --transcripts FILE and --domain (the transcripts' domain)")
    sets = load_label_dir(Path(args.real_labels) if args.real_labels else default_labels_dir())
    if not Path(args.transcripts).is_file():
        raise FileNotFoundError(f"no file at {args.transcripts}")
    try:
        scored = score_file(args.transcripts, args.transcripts_format, TaskChoice(args.domain, args.source, args.data_path),
                            judge=_model_option(args, "judge"))
    except NotThisFormat as exc:
        raise UserError(str(exc)) from None
    if scored.skipped and not scored.transcripts:  # one line for a wrong setup, not one per entry
        hint = "; its entries name tau2 tasks: add --source tau2" if args.source == "bundled" and any(
            "not among the tasks of" in str(bad) for bad in scored.skipped) else ""
        raise UserError(f"none of the {len(scored.skipped)} entries of {args.transcripts} could be scored "
                        f"(the first: {scored.skipped[0]}){hint}")
    for bad in scored.skipped:
        print(f"userbench validate-fidelity: skipped {bad}", file=sys.stderr)
    reports = validity_reports(sets, scored)
    if args.json:
        Path(args.json).write_text(json.dumps([r.model_dump() for r in reports], indent=1) + "\n", encoding="utf-8")
    print("\n\n".join(format_report(report) for report in reports))
    return 0


def run_validate(args: argparse.Namespace) -> int:
    """Handler of ``validate-fidelity`` (``--corpus``: :func:`run_corpus`; ``--real-labels``:
    :func:`run_real_labels`)."""
    from userbench_env.fidelity.validate import validate_fidelity

    if args.corpus is not None and args.real_labels is not None:
        print("validate-fidelity takes --corpus or --real-labels, not both", file=sys.stderr)
        return 2
    if args.ratings is not None and args.corpus is None:
        print("validate-fidelity --ratings rates the false alarms of --corpus: give --corpus DIR", file=sys.stderr)
        return 2
    if args.corpus is not None:
        return run_corpus(args)
    if args.real_labels is not None:
        return run_real_labels(args)
    if not args.domain:
        print("validate-fidelity needs --domain (perturbed validation) or --corpus [DIR]", file=sys.stderr)
        return 2
    table = validate_fidelity(
        args.domain, args.source, args.episodes, args.seed, args.modes, args.rate,
        split=args.split, clean_episodes=args.clean_episodes, judge=_model_option(args, "judge"), phrasing=args.phrasing,
        data_path=args.data_path,
    )
    if args.json:
        Path(args.json).write_text(json.dumps(table, indent=1) + "\n", encoding="utf-8")
    print(format_table(table))
    return 0


def run_grade(args: argparse.Namespace) -> int:
    """Handler of ``grade``: grade every record, write them (to ``--out`` or in place)."""
    from userbench_env.fidelity.grading import grade_record, judge_for
    from userbench_env.fidelity.judge import FidelityJudge

    spec = _model_option(args, "judge")
    judge = FidelityJudge(spec, cache_dir=args.cache_dir) if args.cache_dir else judge_for(spec)
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


def run_generate_rubrics(args: argparse.Namespace) -> int:
    """Handler of ``generate-rubrics``: one line per task as it is done, then a summary."""
    from userbench_env.fidelity.generate import RubricGenerationError, generate_rubrics
    from userbench_env.tasks import load_tasks

    try:
        tasks = load_tasks(args.domain, args.source, None if args.split == "all" else args.split, path=args.data_path)
    except ValueError as exc:  # an unknown domain or split
        print(str(exc), file=sys.stderr)
        return 2
    if args.tasks:
        wanted = args.tasks.split(",")
        by_id = {task.id: task for task in tasks}
        unknown = [task_id for task_id in wanted if task_id not in by_id]
        if unknown:
            print(f"unknown task ids in {args.domain} ({args.source}): {', '.join(unknown)}", file=sys.stderr)
            return 2
        tasks = [by_id[task_id] for task_id in wanted]
    done = 0

    def progress(task: Any, path: Path | None, existed: bool, error: str | None) -> None:
        nonlocal done
        done += 1
        outcome = f"failed: {error.strip().splitlines()[0]}" if error else ("exists, kept" if existed else f"written: {path}")
        print(f"[{done}/{len(tasks)}] {task.id}: {outcome}", flush=True)

    try:
        written = generate_rubrics(tasks, _model_option(args, "writer"), _model_option(args, "verifier"), args.out,
                                   version=args.version, progress=progress)
    except RubricGenerationError as exc:
        print(f"{len(exc.failures)} of {len(tasks)} tasks got no rubric; rerun to retry them", file=sys.stderr)
        return 1
    except ValueError as exc:  # the writer and the verifier are the same model
        print(str(exc), file=sys.stderr)
        return 2
    print(f"{len(written)} rubric(s) written, {len(tasks) - len(written)} kept, version {args.version} under {args.out}")
    return 0


def _model_arguments(parser: argparse.ArgumentParser, role: str, required: bool) -> None:
    """``--<role>``, ``--<role>-base-url`` and ``--<role>-api-key-env`` (read by :func:`_model_option`)."""
    parser.add_argument(f"--{role}", required=required, help=f"{role} model for litellm (e.g. openai/gpt-4.1)")
    parser.add_argument(f"--{role}-base-url", help=f"OpenAI-compatible endpoint of the {role}")
    parser.add_argument(f"--{role}-api-key-env", help=f"environment variable holding the {role}'s API key")


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``validate-fidelity``, ``grade`` and ``generate-rubrics`` subcommands."""
    from userbench_env.cli import add_source_arguments

    validate = subparsers.add_parser("validate-fidelity", help="measure rule recall and false positives with a perturbed user")
    validate.add_argument("--domain", help="domain of the perturbed validation or of --transcripts (not needed with --corpus)")
    validate.add_argument("--corpus", nargs="?", const="", metavar="DIR",
                          help="score the hand-written corpus in DIR (default: the repository's tests/fidelity_corpus) "
                               "and the perturbed proxy's template and natural banks beside it")
    validate.add_argument("--ratings", metavar="DIR",
                          help="with --corpus: blind raters' verdicts on flagged turns (e.g. tests/fidelity_batches/ratings); "
                               "reports the false alarms against them beside the writers' labels")
    validate.add_argument("--real-labels", nargs="?", const="", metavar="DIR",
                          help="measure the rules against blind raters' labels of real users' turns in DIR "
                               "(default: the repository's tests/real_user_labels); needs --transcripts and --domain")
    validate.add_argument("--transcripts", metavar="FILE", help="with --real-labels: the labelled conversations' transcripts")
    validate.add_argument("--transcripts-format", choices=["taubench", "tau2"], default="taubench",
                          help="with --real-labels: the format of --transcripts, as in score-transcripts")
    validate.add_argument("--phrasing", choices=["template", "natural"], default="template",
                          help="phrasing bank of the injected violations")
    add_source_arguments(validate)
    validate.add_argument("--split", default="default", help="task split (default: the source's default)")
    validate.add_argument("--episodes", type=int, default=300, help="perturbed episodes (per domain with --corpus; 0: none)")
    validate.add_argument("--clean-episodes", type=int, help="clean episodes (default: every task once)")
    validate.add_argument("--seed", type=int, default=0, help="seed of the injections and the task order")
    validate.add_argument("--modes", default="all", help="modes, families or 'all' (comma-separated)")
    validate.add_argument("--rate", type=float, default=0.3, help="injection probability per user turn")
    validate.add_argument("--json", help="write the table (the reports, with --real-labels) as JSON here")
    _model_arguments(validate, "judge", required=False)
    validate.set_defaults(func=run_validate)

    grade = subparsers.add_parser("grade", help="grade the pending judge verdicts of an episode JSONL")
    grade.add_argument("results", help="episode records, one JSON object per line")
    grade.add_argument("--out", help="where to write the graded records (default: in place)")
    grade.add_argument("--cache-dir", help="persist judge verdicts here")
    _model_arguments(grade, "judge", required=True)
    grade.set_defaults(func=run_grade)

    rubrics = subparsers.add_parser("generate-rubrics", help="write reviewed LLM rubrics (judge criteria) per task")
    rubrics.add_argument("--domain", required=True, help="domain whose tasks get rubrics (e.g. retail)")
    add_source_arguments(rubrics)
    rubrics.add_argument("--split", default="default", help="task split (default: the source's default; 'all': every task)")
    rubrics.add_argument("--tasks", help="only these task ids (comma-separated)")
    rubrics.add_argument("--out", required=True, help="rubric root folder (envs load it with rubrics=<out>)")
    rubrics.add_argument("--version", default="1", help="rubric version to write (existing files of it are kept)")
    _model_arguments(rubrics, "writer", required=True)
    _model_arguments(rubrics, "verifier", required=True)
    rubrics.set_defaults(func=run_generate_rubrics)


if __name__ == "__main__":  # pragma: no cover
    parser = argparse.ArgumentParser(prog="userbench")
    register(parser.add_subparsers(dest="command"))
    parsed = parser.parse_args()
    sys.exit(parsed.func(parsed))
