"""Inference engines behind the local model server: one prompt in, one completion out.

An :class:`Engine` generates from a rendered prompt (:mod:`userbench_env.serve.chatml`)
under :class:`SamplingParams`, counting prompt and completion tokens with the model's
own tokenizer, and checks a ``cancelled`` event between tokens, so a request whose
client left stops within one token. Two engines:

- ``transformers`` (:class:`TransformersEngine`): the GGUF file dequantized into a
  transformers model (:func:`~userbench_env.serve.local_model.load_model`), decoded
  token by token with a KV cache by our own loop (greedy at temperature 0, else
  temperature/top-p sampling from a per-request seeded generator). One model is shared
  by every worker thread; there is no batching. A conversation's next request repeats
  its last prompt and reply, so the KV caches of the ``prefix_slots`` most recent
  generations are kept: a request takes the one sharing its longest token prefix (for
  itself alone), crops it to that prefix and computes only the rest. torch runs ``threads`` intra-op threads
  (default 1: on a small shared machine, OpenMP threads spinning at a barrier while
  another process holds the core make decoding tens of times slower).
- ``llama-cpp`` (:class:`LlamaCppEngine`): ``llama_cpp.Llama`` instances, one per
  parallel slot (each with its own KV cache, so concurrent conversations do not evict
  each other's prompt cache), streamed token by token.

``auto`` picks llama-cpp when ``llama_cpp`` is importable, else transformers.
"""
from __future__ import annotations

import queue
import threading
from pathlib import Path
from typing import Any, Literal, Protocol

from pydantic import BaseModel, Field

from userbench_env.errors import MissingDependency
from userbench_env.serve.chatml import STOP_STRINGS

FinishReason = Literal["stop", "length", "cancelled"]
EngineName = Literal["auto", "transformers", "llama-cpp"]


class SamplingParams(BaseModel):
    """How to sample one completion."""

    max_tokens: int = Field(ge=1)
    temperature: float = Field(default=0.0, ge=0.0)
    top_p: float = Field(default=1.0, gt=0.0, le=1.0)
    seed: int | None = None
    stop: list[str] = Field(default_factory=lambda: list(STOP_STRINGS))


class Generation(BaseModel):
    """One completion: its text (stop string excluded), token counts and why it ended."""

    text: str
    prompt_tokens: int
    completion_tokens: int
    finish_reason: FinishReason


class Engine(Protocol):
    """Anything that generates a completion for a prompt (see the module docstring)."""

    name: str
    model_path: Path

    def generate(self, prompt: str, params: SamplingParams, cancelled: threading.Event) -> Generation:
        """The completion of ``prompt``; returns early (``cancelled``) once the event is set."""
        ...


def common_prefix(a: list[int], b: list[int]) -> int:
    """The length of the longest common prefix of two token lists."""
    n = min(len(a), len(b))
    for i in range(n):
        if a[i] != b[i]:
            return i
    return n


def cut_at_stop(text: str, stop: list[str]) -> tuple[str, bool]:
    """``text`` up to the first stop string, and whether one occurred."""
    cut = min((i for i in (text.find(s) for s in stop) if i >= 0), default=-1)
    return (text[:cut], True) if cut >= 0 else (text, False)


class TransformersEngine:
    """Generation with a transformers model loaded from a GGUF file (module docstring)."""

    name = "transformers"

    def __init__(self, path: str | Path | None = None, threads: int | None = 1, prefix_slots: int = 4,
                 loaded: Any = None) -> None:
        """Load the model at ``path`` (a GGUF file or a saved checkpoint directory), or
        generate with ``loaded`` (a :class:`~userbench_env.serve.local_model.LocalModel`
        already in memory, e.g. a policy being trained); ``threads`` None leaves torch's
        thread count alone."""
        from userbench_env.serve.local_model import load_model, require_local_stack

        require_local_stack("the transformers engine")  # before importing torch: the install commands, not a bare ImportError
        import torch

        if threads is not None:
            torch.set_num_threads(threads)
        loaded = loaded if loaded is not None else load_model(path)
        self.model, self.tokenizer, self.model_path = loaded.model, loaded.tokenizer, loaded.path
        self.eos_ids = {i for i in (self.tokenizer.eos_token_id, self.tokenizer.convert_tokens_to_ids("<|im_end|>")) if i is not None}
        self.prefix_slots = prefix_slots
        self._prefixes: list[tuple[list[int], Any]] = []  # (token ids held, KV cache), oldest first
        self._prefix_lock = threading.Lock()
        self.reused_tokens = 0

    def _take_prefix(self, ids: list[int]) -> tuple[Any, int]:
        """The kept cache sharing the longest prefix with ``ids`` (removed from the pool and
        cropped to that prefix, at most ``len(ids) - 1`` tokens), and that length; (None, 0)
        when none shares one."""
        with self._prefix_lock:
            best, length = -1, 0
            for i, (held, _) in enumerate(self._prefixes):
                shared = common_prefix(held, ids)
                if shared > length:
                    best, length = i, shared
            if best < 0:
                return None, 0
            _, cache = self._prefixes.pop(best)
        length = min(length, len(ids) - 1)
        cache.crop(length - cache.get_seq_length())  # a negative count: tokens removed from the end
        self.reused_tokens += length
        return cache, length

    def _keep_prefix(self, ids: list[int], cache: Any) -> None:
        """Pool ``cache`` (holding ``ids``), dropping the oldest beyond ``prefix_slots``."""
        with self._prefix_lock:
            self._prefixes.append((ids, cache))
            del self._prefixes[:-self.prefix_slots]

    def forget_prefixes(self) -> None:
        """Drop the kept KV caches (they are stale once the model's weights change)."""
        with self._prefix_lock:
            self._prefixes.clear()

    def _next_token(self, logits: Any, params: SamplingParams, generator: Any) -> int:
        """The next token from the last position's ``logits`` (a torch tensor): greedy at
        temperature 0, else sampled with temperature and top-p from ``generator``."""
        import torch

        if params.temperature <= 0:
            return int(logits.argmax())
        probs = torch.softmax(logits.float() / params.temperature, dim=-1)
        if params.top_p < 1.0:
            ordered, index = probs.sort(descending=True)
            keep = ordered.cumsum(-1) - ordered < params.top_p
            probs = torch.zeros_like(probs).scatter(0, index[keep], ordered[keep])
        return int(torch.multinomial(probs, 1, generator=generator))

    def generate(self, prompt: str, params: SamplingParams, cancelled: threading.Event) -> Generation:
        """Decode token by token with a KV cache (module docstring)."""
        import torch

        prompt_ids = self.tokenizer(prompt, add_special_tokens=False)["input_ids"]
        generator = None
        if params.temperature > 0 and params.seed is not None:
            generator = torch.Generator().manual_seed(params.seed)
        out: list[int] = []
        text, reason = "", "length"
        cache, reused = self._take_prefix(prompt_ids) if self.prefix_slots else (None, 0)
        with torch.inference_mode():
            step = torch.tensor([prompt_ids[reused:]])
            while len(out) < params.max_tokens:
                if cancelled.is_set():
                    reason = "cancelled"
                    break
                result = self.model(input_ids=step, cache=cache, use_cache=True, logits_to_keep=1)
                cache = result.cache
                token = self._next_token(result.logits[0, -1], params, generator)
                if token in self.eos_ids:
                    reason = "stop"
                    break
                out.append(token)
                text, stopped = cut_at_stop(self.tokenizer.decode(out, skip_special_tokens=False), params.stop)
                if stopped:
                    reason = "stop"
                    break
                step = torch.tensor([[token]])
        if cache is not None and self.prefix_slots:
            self._keep_prefix((prompt_ids + out)[:cache.get_seq_length()], cache)
        return Generation(text=text, prompt_tokens=len(prompt_ids), completion_tokens=len(out), finish_reason=reason)


class LlamaCppEngine:
    """Generation with llama.cpp: one ``Llama`` per slot, handed out from a queue."""

    name = "llama-cpp"

    def __init__(self, path: str | Path | None = None, slots: int = 1, n_ctx: int = 8192) -> None:
        if not llama_cpp_available():
            raise MissingDependency("the llama-cpp engine needs llama_cpp, not installed: pip install llama-cpp-python "
                                    "(or use --engine transformers)")
        from llama_cpp import Llama

        from userbench_env.serve.gguf import resolve_gguf

        self.model_path = resolve_gguf(path)
        self.slots: queue.Queue = queue.Queue()
        for _ in range(slots):
            self.slots.put(Llama(model_path=str(self.model_path), n_ctx=n_ctx, verbose=False))

    def generate(self, prompt: str, params: SamplingParams, cancelled: threading.Event) -> Generation:
        """Stream from a free slot's model, stopping early when cancelled."""
        llm = self.slots.get()
        try:
            prompt_tokens = len(llm.tokenize(prompt.encode(), add_bos=False, special=True))
            pieces: list[str] = []
            reason: FinishReason = "length"
            count = 0  # one streamed chunk per generated token
            stream = llm.create_completion(
                prompt, max_tokens=params.max_tokens, temperature=params.temperature, top_p=params.top_p,
                seed=params.seed, stop=params.stop, stream=True,
            )
            for chunk in stream:
                if cancelled.is_set():
                    reason = "cancelled"
                    break
                choice = chunk["choices"][0]
                if choice.get("text"):
                    pieces.append(choice["text"])
                    count += 1
                if choice.get("finish_reason"):
                    reason = "stop" if choice["finish_reason"] == "stop" else "length"
            stream.close()
            return Generation(text="".join(pieces), prompt_tokens=prompt_tokens, completion_tokens=count, finish_reason=reason)
        finally:
            self.slots.put(llm)


def llama_cpp_available() -> bool:
    """Whether ``llama_cpp`` can be imported."""
    try:
        import llama_cpp  # noqa: F401
    except ImportError:
        return False
    return True


def make_engine(name: EngineName = "auto", path: str | Path | None = None, parallel: int = 1) -> Engine:
    """The engine called ``name`` for the GGUF file or checkpoint directory at ``path``
    (default SmolLM2's GGUF file); a checkpoint directory needs transformers (``auto``
    picks it)."""
    from userbench_env.serve.local_model import is_checkpoint_dir

    if name == "auto":
        name = "llama-cpp" if llama_cpp_available() and not is_checkpoint_dir(path) else "transformers"
    if name == "llama-cpp" and is_checkpoint_dir(path):
        raise ValueError(f"{path} is a checkpoint directory: serve it with --engine transformers")
    if name == "llama-cpp":
        return LlamaCppEngine(path, slots=parallel)
    if name == "transformers":
        return TransformersEngine(path)
    raise ValueError(f"unknown engine {name!r}: use auto, transformers or llama-cpp")
