"""``userbench serve``: run the local OpenAI-compatible chat server in the foreground.

Examples::

    userbench serve --responder scripted-user --domain airline --source tau2 --port 8000
    userbench serve --responder canned --reply "Hello" --latency 0.1 --faults "429,500"

Point an LLM proxy at it with ``litellm:openai/<any name>`` and
``base_url=http://127.0.0.1:8000/v1``.
"""
from __future__ import annotations

import argparse

from userbench_env.cli import add_source_arguments
from userbench_env.errors import UserError
from userbench_env.serve.faults import FaultSchedule
from userbench_env.serve.responders import CannedResponder, Responder, ScriptedUserResponder
from userbench_env.serve.server import ChatServer


def build_responder(args: argparse.Namespace) -> Responder:
    """The responder chosen on the command line."""
    if args.responder == "canned":
        return CannedResponder(args.reply or ["OK."])
    if not args.domain:
        raise UserError("--responder scripted-user needs --domain")
    from userbench_env.tasks import load_tasks

    return ScriptedUserResponder(load_tasks(args.domain, source=args.source, split=None, path=args.data_path))


def run(args: argparse.Namespace) -> int:
    """Serve until interrupted; returns the exit code."""
    server = ChatServer(
        build_responder(args),
        latency=args.latency,
        faults=FaultSchedule.parse(args.faults),
        host=args.host,
        port=args.port,
        hang_seconds=args.hang_seconds,
        record=False,
    )

    server.run_until_interrupted(lambda s: f"serving {args.responder} at {s.base_url}/chat/completions (Ctrl-C to stop)")
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``serve`` subcommand."""
    parser = subparsers.add_parser("serve", help="run a local OpenAI-compatible chat server (scripted or canned)")
    parser.add_argument("--responder", choices=["scripted-user", "canned"], default="scripted-user",
                        help="answer as our scripted user of the task in the conversation, or with canned replies")
    parser.add_argument("--domain", help="domain of the scripted user's tasks (e.g. airline)")
    add_source_arguments(parser)
    parser.add_argument("--reply", action="append", help="a canned reply (repeat for a sequence; default 'OK.')")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on")
    parser.add_argument("--port", type=int, default=8000, help="0 picks a free port")
    parser.add_argument("--latency", type=float, default=0.0, help="seconds before every answer")
    parser.add_argument("--faults", help="fault schedule, e.g. '429,500' (once) or '500*' (repeated)")
    parser.add_argument("--hang-seconds", type=float, default=300.0, help="how long a 'hang' fault holds")
    parser.set_defaults(func=run)
