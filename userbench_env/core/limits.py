"""The input policy of every UserBench env: per-action limits and the checks behind them.

It lives in ``core`` so that every layer that reads policy output (the envs, the
scripted user, the app surface's action parser) applies the same checks.

An action is the policy's output, so it is data from an untrusted model. Every env
checks it against one :class:`InputLimits` (defaults below; override per env with
``gym.make(..., limits={"max_calls": 4})``) before anything acts on it. An action over
a limit or malformed is an *invalid action*: the env answers with an ``Error: invalid
action: ...`` observation, counts it, and the episode goes on (until ``max_errors`` on
the conversation envs); checking never raises.

What is checked, in this order:

* text: at most ``max_action_chars`` characters, no NUL character and no lone surrogate
  (:func:`text_problem`);
* JSON (text that is one of the JSON action forms, or an already-decoded object): it
  decodes without exhausting the stack, and every value in it is plain JSON (objects
  with string keys, lists, strings as above, numbers of at most :data:`MAX_INT_BITS`
  bits, booleans, null), nested at most ``max_depth`` deep with at most ``max_items``
  entries per object or list (:func:`decode_json`, :func:`value_problem`);
* tool calls: at most ``max_calls`` per action, each call's arguments at most
  ``max_argument_chars`` characters as JSON.

Work per action is bounded too: every tool call runs under ``tool_seconds``
(:mod:`userbench_env.domains.deadline`), the calls of one action share
``action_seconds`` (a call left without time is not run and answers an error), and a
tool result longer than ``max_result_chars`` ends the episode as the agent's failure
(termination ``limit_exceeded``): a result that large means the agent drove the world
into a runaway state (e.g. repeated ``cancel_reservation``, which doubles a payment
history per call exactly as tau2 does). Observations never exceed
``max_observation_chars`` (:func:`clip_observation`); the spaces declare both lengths.
"""
from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

#: Default time budget of one tool call, in seconds: tools answer in milliseconds (the
#: slowest legitimate call, banking's first ``KB_search`` building its index, takes about
#: a second on a heavily loaded machine), so only a runaway call meets it.
DEFAULT_TOOL_SECONDS = 5.0

#: Largest integer (in bits) an action may carry: its decimal text stays under Python's
#: 4300-digit conversion limit, so every accepted action can be written to the store.
MAX_INT_BITS = 4096

_BAD_CHARACTER = re.compile("[\x00\ud800-\udfff]")


class InputLimits(BaseModel):
    """Per-action limits of an env (see the module docstring); immutable."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    max_action_chars: int = Field(100_000, ge=1, description="characters of one text action (the action space's max_length)")
    max_calls: int = Field(16, ge=1, description="tool calls in one action")
    max_depth: int = Field(32, ge=1, description="nesting depth of a JSON action and its arguments")
    max_items: int = Field(1_000, ge=1, description="entries of any one JSON object or list in an action")
    max_argument_chars: int = Field(20_000, ge=2, description="characters of one call's arguments as JSON")
    max_observation_chars: int = Field(200_000, ge=200, description="characters of one observation (the observation space's max_length)")
    max_result_chars: int = Field(1_000_000, ge=1, description="characters of one tool result; over it the episode ends")
    tool_seconds: float = Field(DEFAULT_TOOL_SECONDS, gt=0, description="time budget of one tool call")
    action_seconds: float = Field(15.0, gt=0, description="time budget shared by the tool calls of one action")


DEFAULT_LIMITS = InputLimits()


class InvalidInput(ValueError):
    """An action broke the input policy; the message says how (never raised out of an env)."""


class NotJson(InvalidInput):
    """Text given as JSON does not parse (as opposed to parsing into something the policy
    refuses); the message is the decoder's."""


def resolve_limits(limits: InputLimits | Mapping[str, Any] | None) -> InputLimits:
    """The env keyword ``limits``: ``None`` (defaults), an :class:`InputLimits`, or a mapping
    of fields to override (unknown names or bad values raise ``ValidationError`` at construction)."""
    if limits is None:
        return DEFAULT_LIMITS
    if isinstance(limits, InputLimits):
        return limits
    return InputLimits.model_validate(dict(limits))


def text_problem(text: str, limits: InputLimits = DEFAULT_LIMITS) -> str | None:
    """Why ``text`` is not an acceptable action text, or ``None``."""
    if len(text) > limits.max_action_chars:
        return f"the action has {len(text)} characters, more than the limit of {limits.max_action_chars}"
    return _character_problem(text)


def _character_problem(text: str) -> str | None:
    if text.isascii() and "\x00" not in text:
        return None
    found = _BAD_CHARACTER.search(text)
    if found is None:
        return None
    return "the action contains a NUL character" if found.group() == "\x00" else "the action contains a lone surrogate (not valid Unicode)"


def value_problem(value: Any, limits: InputLimits = DEFAULT_LIMITS) -> str | None:
    """Why ``value`` (a decoded JSON action or part of one) breaks the policy, or ``None``.

    Iterative, so any depth is checked without recursion."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str):
            problem = _character_problem(item)
            if problem is not None:
                return problem
        elif isinstance(item, bool) or item is None or isinstance(item, float):
            continue
        elif isinstance(item, int):
            if item.bit_length() > MAX_INT_BITS:
                return f"the action contains an integer of more than {MAX_INT_BITS} bits"
        elif isinstance(item, (dict, list)):
            if depth > limits.max_depth:
                return f"the action is nested more than {limits.max_depth} levels deep"
            if len(item) > limits.max_items:
                return f"the action has an object or list of {len(item)} entries, more than the limit of {limits.max_items}"
            if isinstance(item, dict):
                for key, child in item.items():
                    if not isinstance(key, str):
                        return f"the action has an object key that is not a string ({type(key).__name__})"
                    stack.append((key, depth + 1))
                    stack.append((child, depth + 1))
            else:
                stack.extend((child, depth + 1) for child in item)
        else:
            return f"the action contains a {type(item).__name__}, which is not a JSON value"
    return None


def decode_json(text: str, limits: InputLimits = DEFAULT_LIMITS) -> Any:
    """``json.loads(text)`` checked by :func:`value_problem`; :class:`NotJson` when it does
    not parse, :class:`InvalidInput` (both ``ValueError``) when it nests past the stack or
    breaks the policy."""
    try:
        value = json.loads(text)
    except RecursionError:
        raise InvalidInput(f"the action is nested more than {limits.max_depth} levels deep") from None
    except ValueError as exc:  # JSONDecodeError, and integers past Python's digit limit
        raise NotJson(str(exc)) from None
    problem = value_problem(value, limits)
    if problem is not None:
        raise InvalidInput(problem)
    return value


def arguments_problem(arguments: dict[str, Any], limits: InputLimits = DEFAULT_LIMITS) -> str | None:
    """Why one call's (policy-checked) arguments are too large, or ``None``."""
    size = len(json.dumps(arguments, ensure_ascii=False, default=str))
    if size > limits.max_argument_chars:
        return f"the arguments have {size} characters as JSON, more than the limit of {limits.max_argument_chars}"
    return None


def clip_observation(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters, ending with a marker saying so."""
    if len(text) <= limit:
        return text
    marker = f"\n[... observation truncated: {len(text)} characters, the first {{kept}} shown]"
    kept = limit - len(marker.format(kept=limit))
    return text[:kept] + marker.format(kept=kept)
