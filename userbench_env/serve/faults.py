"""Fault injection for the local chat server: what to do with each incoming request.

A :class:`FaultSchedule` hands out one fault name per request, in arrival order:
the pattern once and then ``ok`` forever, or the pattern repeated. Fault names:

- ``ok``: a normal reply;
- an HTTP status code (``429``, ``500``, ``503``, ...): that status with an error body;
- ``hang``: no reply until the client gives up (or the server's hang limit passes);
- ``trickle``: a normal reply sent one byte per ``trickle_seconds`` (a server that
  keeps every read alive but never finishes in time);
- ``malformed_json``: status 200 with a body that is not JSON;
- ``garbage``: status 200 with JSON that is not a chat completion;
- ``empty_choices``: a chat completion with ``choices: []``;
- ``blank``: a completion whose message has neither text nor tool calls;
- ``bad_tool_args``: the reply with its tool calls' arguments made invalid JSON
  (a text-only reply is unaffected);

and the hostile modes (what a broken or adversarial server sends):

- ``null_content``: a completion whose message has ``content: null`` and no tool calls;
- ``bad_tool_call``: a tool call with no ``function`` object;
- ``invalid_utf8``: status 200 with a chat completion whose text holds bytes that are not UTF-8;
- ``huge``: a valid completion whose text is ``huge_bytes`` long;
- ``usage_negative``, ``usage_absurd``, ``usage_fraction``: the reply with a prompt token
  count of -5, 1e300 or 12.5;
- ``redirect``: HTTP 307 to the server's ``redirect_to`` URL;
- ``trickle_unsized``: a whole completion with neither a length nor chunking, then one
  space per ``trickle_seconds`` and never the end of the body;
- ``trickle_headers``: the status line, then the headers one byte per ``trickle_seconds``;
- ``trickle_sse``: an event stream (no length) whose events come one byte per
  ``trickle_seconds``.
"""
from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence

NAMED_FAULTS = frozenset({"ok", "hang", "trickle", "malformed_json", "garbage", "empty_choices", "blank", "bad_tool_args"})
#: the hostile modes (module docstring)
HOSTILE_FAULTS = frozenset({"null_content", "bad_tool_call", "invalid_utf8", "huge", "usage_negative", "usage_absurd",
                            "usage_fraction", "redirect", "trickle_unsized", "trickle_headers", "trickle_sse"})


def check_fault(name: str) -> str:
    """``name`` if it is a known fault (or a 4xx/5xx status code), else ``ValueError``."""
    if name in NAMED_FAULTS or name in HOSTILE_FAULTS or (name.isdigit() and 400 <= int(name) <= 599):
        return name
    raise ValueError(f"unknown fault {name!r}: use an HTTP status 400-599 or one of {sorted(NAMED_FAULTS | HOSTILE_FAULTS)}")


class FaultSchedule:
    """One fault per request, in order: ``pattern`` then ``ok`` (or ``pattern`` cycled)."""

    def __init__(self, pattern: Sequence[str] = (), repeat: bool = False) -> None:
        self.pattern = [check_fault(str(p).strip()) for p in pattern]
        self.repeat = repeat
        self._source: Iterator[str] = (
            itertools.cycle(self.pattern) if repeat and self.pattern else iter(self.pattern)
        )

    @classmethod
    def parse(cls, spec: str | None) -> "FaultSchedule":
        """A schedule from text: ``"429,500"`` (once) or ``"500*"`` / ``"429,ok*"`` (repeated)."""
        if not spec:
            return cls()
        repeat = spec.endswith("*")
        return cls([p for p in spec.rstrip("*").split(",") if p.strip()], repeat=repeat)

    def next(self) -> str:
        """The fault for the next request."""
        return next(self._source, "ok")
