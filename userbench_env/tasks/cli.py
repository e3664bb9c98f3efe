"""``userbench tasks``: list the task ids of a domain or a persona surface.

Examples::

    userbench tasks --domain airline                        # the bundled airline tasks' ids
    userbench tasks --domain retail --source tau2 --split base
    userbench tasks --surface survey --split multi

One id per line on stdout (so it pipes into ``--task-id``), each followed by a tab and
its splits for a domain task; a count on stderr. The ids are what an env's ``task_id``
(or ``reset(options={"task_id": ...})``) and ``userbench eval --task-id`` take.
"""
from __future__ import annotations

import argparse
import sys

from userbench_env.errors import UserError

#: ``--split`` for a surface (attribute count), as :func:`~userbench_env.surfaces.tasks.load_surface_tasks` takes it
SURFACE_SPLITS = ("all", "single", "multi")


def domain_rows(domain: str, source: str, split: str, path: str | None) -> list[str]:
    """``id<TAB>splits`` of each task of ``domain`` in ``split`` (``all``: every task)."""
    from userbench_env.tasks import load_tasks

    tasks = load_tasks(domain, source, None if split == "all" else split, path=path)
    return [f"{task.id}\t{','.join(task.splits)}" for task in tasks]


def surface_rows(surface: str, source: str, split: str, path: str | None) -> list[str]:
    """The id of each task of ``surface`` in ``split`` (all/single/multi)."""
    from userbench_env.surfaces.tasks import load_surface_tasks

    if split not in SURFACE_SPLITS:
        raise UserError(f"--split for a surface is one of {', '.join(SURFACE_SPLITS)}, not {split!r}")
    if source == "tau2":
        raise UserError("surface tasks come from --source bundled or apb (with --data-path DIR), not tau2")
    return [task.id for task in load_surface_tasks(surface, source, split, path)]  # type: ignore[arg-type]


def run(args: argparse.Namespace) -> int:
    """Print the ids (stdout) and their count (stderr)."""
    if (args.domain is None) == (args.surface is None):
        raise UserError("give --domain D (airline, retail, telecom, banking) or --surface S (survey, chat, web, app)")
    if args.domain is not None:
        split = args.split or "default"
        rows = domain_rows(args.domain, args.source, split, args.data_path)
        what = f"{args.domain} ({args.source}, split {split})"
    else:
        split = args.split or "all"
        rows = surface_rows(args.surface, args.source, split, args.data_path)
        what = f"{args.surface} ({args.source}, {split})"
    if rows:
        print("\n".join(rows))
    print(f"{len(rows)} task(s) in {what}", file=sys.stderr)
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``tasks`` subcommand."""
    parser = subparsers.add_parser("tasks", help="list the task ids of a domain or a persona surface")
    parser.add_argument("--domain", help="a conversation domain: airline, retail, telecom or banking")
    parser.add_argument("--surface", choices=["survey", "chat", "web", "app"], help="a persona surface")
    parser.add_argument("--source", choices=["bundled", "tau2", "apb"], default="bundled",
                        help="task source: our bundled tasks, tau2-bench's data (domains) or an APB folder (surfaces)")
    parser.add_argument("--data-path", help="tau2 data folder (default: $USERBENCH_TAU2_DATA) or APB tasks folder")
    parser.add_argument("--split", help="a domain's split, or 'all' (default: the source's default split); "
                                        "for a surface: all, single or multi (default: all)")
    parser.set_defaults(func=run)
