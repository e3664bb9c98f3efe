"""A chat as the local model server renders it, tokenized, with the agent's turns marked.

The server (:mod:`userbench_env.serve.chatml`) renders a request with
:func:`~userbench_env.serve.chatml.render_prompt` and generates the assistant turn
after the prompt's open ``<|im_start|>assistant\\n``; the completion ends with
``<|im_end|>``. :func:`chat_segments` cuts a whole chat into that sequence: for each
assistant message, the context the server would have sent as its prompt (the part not
already covered) and the completion it should have generated (the rendered turn and
``<|im_end|>``). :func:`tokenize_chat` tokenizes the segments one by one, as the server
tokenizes a prompt and then appends generated tokens, and labels only completion tokens
(others are ``-100``), so training and serving see the same tokens.
"""
from __future__ import annotations

from typing import Any, Sequence

from pydantic import BaseModel

from userbench_env.serve.chatml import render_prompt

OPEN_TURN = "<|im_start|>assistant\n"
END_TURN = "<|im_end|>"
#: labels that the loss ignores
IGNORE = -100


class Segment(BaseModel):
    """A piece of a rendered chat and whether the agent wrote it (trained on)."""

    text: str
    trained: bool


def chat_segments(messages: Sequence[dict[str, Any]], tools: Sequence[dict[str, Any]] | None = None) -> list[Segment]:
    """The chat as alternating context and completion segments (module docstring).

    Every assistant message after the first non-assistant message is a completion;
    assistant messages before it (the env's greeting, said for the agent) are context.
    Raises ``ValueError`` if the rendering is not prefix-consistent (a bug).
    """
    segments: list[Segment] = []
    consumed = ""
    started = False
    for k, message in enumerate(messages):
        if message.get("role") != "assistant":
            started = started or message.get("role") == "user"
            continue
        if not started:
            continue
        before = render_prompt(messages[:k], tools)
        after = render_prompt(messages[:k + 1], tools)
        if not (before.startswith(consumed) and after.startswith(before) and after.endswith(END_TURN + "\n" + OPEN_TURN)):
            raise ValueError("the chat does not render prefix-consistently")
        body = after[len(before):len(after) - len(END_TURN + "\n" + OPEN_TURN)]
        segments += [Segment(text=before[len(consumed):], trained=False), Segment(text=body + END_TURN, trained=True)]
        consumed = before + body + END_TURN
    return segments


def tokenize_chat(tokenizer: Any, messages: Sequence[dict[str, Any]], tools: Sequence[dict[str, Any]] | None = None,
                  max_length: int | None = None) -> dict[str, list[int]]:
    """``{"input_ids", "labels"}`` for a chat (labels ``-100`` outside the agent's turns),
    cut to ``max_length`` tokens."""
    input_ids: list[int] = []
    labels: list[int] = []
    for segment in chat_segments(messages, tools):
        ids = tokenizer(segment.text, add_special_tokens=False)["input_ids"]
        input_ids += ids
        labels += ids if segment.trained else [IGNORE] * len(ids)
    if max_length is not None:
        input_ids, labels = input_ids[:max_length], labels[:max_length]
    return {"input_ids": input_ids, "labels": labels}
