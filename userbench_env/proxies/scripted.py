"""ScriptedUserProxy: a deterministic, faithful user driven by the structured blueprint.

The default proxy, so everything runs with no API key. Behaviour, decided from the
user's view alone (so the same view always gives the same turn):

* first turn: the first request alone, in the first person
  (:func:`~userbench_env.fidelity.text.request_sentences`): conditions, fallbacks,
  preferences and conditional instructions wait for their moment;
* the agent asks for items (by kind, see :func:`~userbench_env.tasks.extract.requested_kinds`):
  the user states the values it knows and says it does not know the others;
* the agent asks for a user action naming one of the user's tools (by name, snake-case
  or spaced, arguments as a JSON object after the name): the user calls that tool,
  one action per agent message, then reports exactly what the tool returned;
* the agent says it transfers the user: ``###TRANSFER###``; the agent closes the
  conversation ("anything else", "goodbye", ...): ``###STOP###`` once, as far as the user
  can know, its request is no longer open (the agent said it is done, an action the user
  asked for reported done and not only answered with a figure, or that it cannot be
  done and the scenario does not say to insist: :mod:`userbench_env.fidelity.outcomes`),
  unless a further request of its reason for calling is left: then it raises that one;
  otherwise the user says what is still open instead of stopping;
* a confirmation question gets "yes"; any other question "I don't know"; a statement
  an acknowledgement.
"""
from __future__ import annotations

import json
import re
from functools import lru_cache
from typing import Any

from userbench_env.core.limits import arguments_problem, value_problem
from userbench_env.core.messages import ToolCall
from userbench_env.core.task import KnownInfoItem, Task
from userbench_env.fidelity.criteria import NAME_KINDS
from userbench_env.fidelity.outcomes import action_open, insists, standing
from userbench_env.fidelity.text import request_sentences, scenario_text
from userbench_env.proxies.base import UserProxy, UserTurn, UserView
from userbench_env.tasks.extract import extract_known_info, is_question, requested_kinds

_TRANSFER = re.compile(r"\btransferr?(?:ing|ed)? you\b|\btransfer(?:ring)? (?:you )?to a human\b", re.I)
_CLOSING = re.compile(r"\banything else\b|\bgoodbye\b|\bhave a (?:great|nice|good) day\b", re.I)
_CONFIRM = re.compile(r"\b(?:proceed|confirm|shall i|should i|would you like me to|go ahead)\b", re.I)

#: Words after which "you" is an object: prepositions, and verbs a scenario uses with the user as their object.
_TAKES_OBJECT = ("to|for|with|at|from|about|of|by|on|than|help|helps|allow|allows|let|lets|tell|tells|told|ask|asks|asked|"
                 "give|gives|gave|provide|provides|offer|offers|offered|send|sends|sent|save|saves|show|shows|showed|"
                 "remind|reminds|contact|contacts|call|calls|called|charge|charges|charged|cost|costs|owe|owes|make|makes|made")

_FIRST_PERSON: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"\bYou are\b"), "I am"),
    (re.compile(r"\byou are\b"), "I am"),
    (re.compile(r"\bYou're\b"), "I'm"),
    (re.compile(r"\byou're\b"), "I'm"),
    (re.compile(r"\bYou've\b"), "I've"),
    (re.compile(r"\byou've\b"), "I've"),
    (re.compile(r"\bYour\b"), "My"),
    (re.compile(r"\byour\b"), "my"),
    (re.compile(r"\byourself\b"), "myself"),
    (re.compile(r"\bYou\b"), "I"),
    # "you" is the object after a verb or preposition taking one ("help you", "told you that")
    # and before "to" ("allows you to"); elsewhere the subject ("the hose you received")
    (re.compile(rf"\b((?:{_TAKES_OBJECT}) )you\b|\byou(?= to\b)", re.I), r"\1me"),
    (re.compile(r"\byou\b"), "I"),
    # the agent is the one the user talks to
    (re.compile(r"\bThe agent\b"), "You"),
    (re.compile(r"\bthe agent\b"), "you"),
]

#: A link to a sentence before it ("But you realize ..."): none opens a message.
_LEADING_LINK = re.compile(r"^(?:but|and|so|then),?\s+", re.I)

#: What the user says, asked "anything else?" while its request is open.
STILL_OPEN = "Not yet, my request is still open: what I asked for has not been done. Could you please take care of it?"

_KIND_WORDS = {"user_id": "user id", "zip": "zip code", "phone_number": "phone number",
               "reservation_id": "reservation number", "order_id": "order number", "item_id": "item id",
               "payment_method": "payment method", "first_name": "first name", "last_name": "last name"}


def first_person(text: str) -> str:
    """Rewrite a second-person blueprint sentence ("You want ...") in the first person."""
    for pattern, replacement in _FIRST_PERSON:
        text = pattern.sub(replacement, text)
    return text


def _kind_words(kind: str) -> str:
    return _KIND_WORDS.get(kind, kind.replace("_", " "))


def _find_arguments(text: str, start: int) -> dict[str, Any]:
    """The first JSON object in ``text`` after ``start`` (``{}`` when there is none, or when
    it breaks the input policy of :mod:`userbench_env.core.limits`: too deep, non-string
    keys, too many entries, too large)."""
    decoder = json.JSONDecoder()
    brace = text.find("{", start)
    while brace != -1:
        try:
            value, _ = decoder.raw_decode(text, brace)
        except RecursionError:  # nested past the stack: no usable arguments
            return {}
        except ValueError:
            brace = text.find("{", brace + 1)
            continue
        if not isinstance(value, dict) or value_problem(value) is not None or arguments_problem(value) is not None:
            return {}
        return value
    return {}


def requested_tool(text: str, tools: list[dict[str, Any]]) -> ToolCall | None:
    """The user tool an agent message asks the user to run, with its arguments, or None.

    A tool is requested when its name appears in the text as a whole word, as written or
    with spaces for underscores; the earliest (then longest) mention wins. Arguments are the JSON object after it.
    """
    lowered = text.lower()
    best: tuple[int, int, str] | None = None
    for schema in tools:
        name = schema.get("function", {}).get("name") or schema.get("name")
        if not name:
            continue
        for form in {name.lower(), name.lower().replace("_", " ")}:
            found = re.search(rf"(?<!\w){re.escape(form)}(?!\w)", lowered)
            if found is not None:
                key = (found.start(), -len(form), name)
                best = key if best is None or key < best else best
    if best is None:
        return None
    return ToolCall(name=best[2], arguments=_find_arguments(text, best[0]), requestor="user")


@lru_cache(maxsize=4096)
def _scenario_items(text: str) -> tuple[KnownInfoItem, ...]:
    """The known-info items of a scenario text (extracted once per text: tasks repeat)."""
    return tuple(extract_known_info(text))


class ScriptedUserProxy(UserProxy):
    """The deterministic blueprint-driven user (see the module docstring)."""

    name = "scripted"

    def __init__(self) -> None:
        super().__init__()
        self._items: list[KnownInfoItem] = []
        self._opening = ""
        self._further: list[str] = []

    def reset(self, task: Task, seed: int | None = None) -> None:
        """Learn ``task``'s blueprint: known items first, then ids named in the scenario, and
        what it says of its reason for calling (:func:`~userbench_env.fidelity.text.request_sentences`)."""
        super().reset(task, seed)
        bp = task.blueprint
        scenario = _scenario_items("\n".join(t for t in (bp.reason_for_call, bp.instructions) if t))
        known = {i.value for i in bp.known_info}
        self._items = list(bp.known_info) + [i for i in scenario if i.value not in known and i.kind != "other"]
        opening, further = request_sentences(bp)
        reason = _LEADING_LINK.sub("", " ".join(opening), count=1)
        self._opening = f"Hi. {first_person(reason[:1].upper() + reason[1:])}" if reason else "Hi. I need some help with my account."
        self._further = [f"Thank you. {first_person(sentence)}" for sentence in further]

    # -- turn pieces -------------------------------------------------------------
    def opening(self) -> str:
        """The first message: the first request alone
        (:func:`~userbench_env.fidelity.text.request_sentences`), in the first person; the rest
        of the scenario waits to be asked for."""
        assert self.task is not None, "reset() first"
        return self._opening

    def further_requests(self) -> list[str]:
        """The messages raising the further requests of the reason for calling, in order
        (:func:`~userbench_env.fidelity.text.request_sentences`), each once the one before is settled."""
        assert self.task is not None, "reset() first"
        return list(self._further)

    def answer(self, kinds: frozenset[str]) -> str:
        """Sentences giving the known values of ``kinds`` and admitting the unknown ones."""
        said: list[str] = []
        for kind in sorted(kinds):
            items = [i for i in self._items if i.kind == kind]
            if items:
                said.append(f"My {_kind_words(kind)} is {' and '.join(i.value for i in items)}.")
            elif kind in NAME_KINDS and any(i.kind in NAME_KINDS for i in self._items):
                continue
            else:
                said.append(f"I don't know my {_kind_words(kind)}.")
        return " ".join(said)

    def _on_closing(self, view: UserView) -> str:
        """What the user says when the agent closes: the next further request once, as far
        as the user can know, the latest request it raised is no longer open
        (:meth:`_settled`); ``###STOP###`` when none is left; otherwise what is still open.
        Which requests were raised is read from the conversation's course, not from the
        messages' wording: each closing the user answered while its latest request was
        settled raised the next one."""
        further = self._further
        texts = [(m.role, m.content or "") for m in view.messages if m.role in ("assistant", "user") and m.has_text]
        raised = start = 0
        for i, (role, text) in enumerate(texts[:-1]):
            if (role == "assistant" and _CLOSING.search(text) and texts[i + 1][0] == "user" and raised < len(further)
                    and self._settled(texts[start:i + 1])):
                raised, start = raised + 1, i + 1
        if not self._settled(texts[start:]):
            return STILL_OPEN
        return further[raised] if raised < len(further) else "No, that's all. Thank you! ###STOP###"

    def _settled(self, texts: list[tuple[str, str]]) -> bool:
        """True when, over ``texts`` (``(role, text)`` since the user raised its latest
        request), that request is no longer open as far as the user can know: the agent said
        it is done, an action the user asked for reported done and not only answered with a
        figure, or that it cannot be done and the scenario does not say to insist
        (:mod:`userbench_env.fidelity.outcomes`)."""
        now = standing(text for role, text in texts if role == "assistant")
        turns = (("agent" if role == "assistant" else "user", text) for role, text in texts)
        return (now == "done" and not action_open(turns)) or (now == "cannot" and not insists(scenario_text(self.task.blueprint)))

    def respond(self, view: UserView) -> UserTurn:
        """The user's next turn, from ``view`` alone."""
        if not any(m.role == "user" for m in view.messages):
            return UserTurn(text=self.opening())
        last_agent = max((i for i, m in enumerate(view.messages) if m.role == "assistant" and m.has_text), default=-1)
        results = [m for m in view.messages[last_agent + 1 :] if m.role == "tool"]
        if results:
            latest = results[-1]
            lead = "I tried that, but I got an error" if latest.error else "I did that. Here is what it showed"
            return UserTurn(text=f"{lead}: {latest.content}")
        text = view.messages[last_agent].content or "" if last_agent >= 0 else ""
        if _TRANSFER.search(text):
            return UserTurn(text="###TRANSFER###")
        if _CLOSING.search(text):
            return UserTurn(text=self._on_closing(view))
        if view.tools:
            call = requested_tool(text, view.tools)
            if call is not None:
                return UserTurn(tool_call=call)
        answer = self.answer(requested_kinds(text))
        if answer:
            return UserTurn(text=answer)
        if is_question(text):
            return UserTurn(text="Yes, please go ahead." if _CONFIRM.search(text) else "I'm sorry, I don't know.")
        return UserTurn(text="Okay, thank you.")
