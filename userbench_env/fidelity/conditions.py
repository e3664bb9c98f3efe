"""Conditional scenario instructions, read from the scenario text: what the user may say
only once the agent has said or asked something.

Scenarios gate some of what the user says on the agent: "If the agent asks how many
passengers there are, say that there are 3", "If and only if the agent asks you, you will
be in Los Angeles on May 17", "(do not mention it if the agent does not mention it)". (A
condition on what the agent *says*, "If the agent says it is basic economy, ask to
upgrade", gates a plan, not an answer: a fallback, read by ``dumps_blueprint``.) Each
such sentence guarding a fact (a number, a name) is a :class:`Condition`: its ``trigger`` (what the agent must say or ask
first, as content stems) and its ``guarded`` content (what the user may then say). Saying
the guarded content before the trigger breaks the instruction: the user volunteers what
the scenario holds back (``volunteers_unasked_info``); after it, saying it is what the
scenario asks. Neither is a recital of the scenario nor a withholding.

The reader is one pass of bounded patterns per scenario sentence (linear time).
"""
from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict

from userbench_env.fidelity.language import NEGATION, content_stems

#: "If [and only if] the [service] agent asks/says/tells you/mentions <trigger>, <consequence>" (only asking gates an answer).
_IF_AGENT = re.compile(
    r"\b(?:if(?: and only if)?|only if|when|once)\s+the\s+(?:service\s+)?agent\s+"
    r"(?P<verb>asks?|says?|tells? you|mentions?|offers?|brings? up)\b(?P<trigger>[^,;:]{0,200})[,;:]\s*(?P<then>[^.!?]{1,300})",
    re.I,
)
#: "do not mention <it/X> if/unless the agent does not mention it" (the guarded item is its own trigger).
_MENTION_ONLY_IF = re.compile(
    r"\b(?:do not|don't|never)\s+(?:mention|bring up|say|offer)\s+(?P<guarded>[^,;:()]{1,120}?)\s+(?:if|unless)\s+"
    r"the\s+(?:service\s+)?agent\s+(?:does not|doesn't)?\s*(?:mention|ask|say|bring)",
    re.I,
)
#: "only mention/say/give X if (the agent) asks (about Y)"; X may point back to the fact stated before it
#: (:data:`_POINTS_BACK`).
_ONLY_WHEN_ASKED = re.compile(
    r"\bonly\s+(?:mention|say|tell|give|share|provide|bring up)\s+(?P<guarded>[^,;:()]{1,120}?)\s+(?:if|when)\s+"
    r"(?:the\s+(?:service\s+)?agent\s+|you are\s+|you're\s+)?asks?(?:ed)?(?:\s+(?:about|for)\s+(?P<trigger>[^,;:.]{1,120}))?",
    re.I,
)
#: "mention only X if the agent shows/mentions it first", "only say X once the agent has said it": X may
#: be said once the agent has said it (it is its own trigger). X may describe the fact named just before
#: the instruction ("HAT266, mention only the flight number if the agent shows it to you first").
_MENTION_ONLY_AFTER = re.compile(
    r"\b(?:(?:mention|say|give|bring up)\s+only|only\s+(?:mention|say|give|bring up))\s+(?P<guarded>[^,;:()]{1,120}?)\s+"
    r"(?:if|once|after|when)\s+the\s+(?:service\s+)?agent\s+(?:has\s+)?"
    r"(?:shows?|shown|mentions?|mentioned|says?|said|gives?|given|brings? up|brought up|tells? you|told you)\b",
    re.I,
)
#: What points back to the fact its sentence states before the condition ("You can pay with your card
#: ending in 7334 (only provide this information when the agent asks for it)").
_POINTS_BACK = re.compile(r"(?:it|them|this|that|these|those)(?: (?:information|info|details?|facts?|numbers?))?", re.I)
_IF_CLAUSE = re.compile(r"\bif\s+the\s+agent\s+(?:tells you|says)\s+(?P<guarded>[^,;:()]{1,160})", re.I)
_SENTENCE = re.compile(r"[^.!?\n]+[.!?]?")
#: How scenarios address the simulated user: never what a condition is about.
_ADDRESS = content_stems("you your agent service say tell mention ask asks will want would like also then that it "
                         "one ones willing fine okay be adamant make order need sure")


class Condition(BaseModel):
    """One conditional instruction: the scenario ``sentence``, the content stems the agent
    must say first (``trigger``; empty: any question of the agent's about the guarded
    content), whether it must ask them (``asks``: "if the agent asks ...") or only say them,
    and those of what the user may say only then (``guarded``), among them the ``fact`` it
    guards (its numbers and names: saying the guarded matter without them, "my return
    flight" for "your return flight leaves on the 19th", tells nothing held back)."""

    model_config = ConfigDict(frozen=True)

    sentence: str
    trigger: frozenset[str]
    guarded: frozenset[str]
    asks: bool = True
    fact: frozenset[str] = frozenset()


_NUMBER = re.compile(r"\d+")
#: Number words, read as their digits.
NUMBER_WORDS = {w: str(i) for i, w in enumerate("zero one two three four five six seven eight nine ten eleven twelve".split())
                if w != "one"}  # ("one" is a pronoun as often: "a one-way ticket", "the cheaper one")
_CAPITALIZED = re.compile(r"(?<=[a-z,;(] )[A-Z][A-Za-z]+")


def fact_stems(text: str) -> frozenset[str]:
    """The stems of the facts ``text`` states, which a condition can guard: its numbers
    (number words as digits) and the content stems of its names (capitalized words inside a
    sentence)."""
    return (frozenset(_NUMBER.findall(text)) | frozenset(NUMBER_WORDS[w] for w in re.findall(r"[a-z]+", text.lower())
                                                         if w in NUMBER_WORDS)
            | content_stems(" ".join(_CAPITALIZED.findall(text))))


def stated(text: str) -> frozenset[str]:
    """The content stems of a user ``text`` with its numbers as digits (words too)."""
    words = re.findall(r"[a-z]+", text.lower())
    return content_stems(text) | frozenset(_NUMBER.findall(text)) | frozenset(NUMBER_WORDS[w] for w in words if w in NUMBER_WORDS)


def _stems(text: str) -> frozenset[str]:
    """The content stems of ``text`` (numbers of any length included), how scenarios
    address the user aside."""
    return stated(text) - _ADDRESS - {NEGATION}


def _named_before(text: str) -> str:
    """What an instruction describing its fact points back to: the text before it from the
    bracket it opens in ("... from LAS to IAH (HAT266, " -> "HAT266, "), or all of it."""
    return text.rsplit("(", 1)[-1]


def conditions(scenario: str, exempt: frozenset[str] = frozenset()) -> list[Condition]:
    """The conditional instructions of a ``scenario`` text, in order (see the module
    docstring); stems in ``exempt`` (the reason for calling's, which the user states
    anyway) are never guarded."""
    out: list[Condition] = []
    for sentence in (s.strip() for s in _SENTENCE.findall(scenario)):
        found: tuple[str, str, bool] | None = None  # (trigger, guarded, the agent must ask)
        if (m := _MENTION_ONLY_IF.search(sentence)) is not None:
            guarded = m.group("guarded")
            if guarded.lower() in ("it", "this", "that") and (clause := _IF_CLAUSE.search(sentence)) is not None:
                guarded = clause.group("guarded")
            found = (guarded, guarded, False)
        elif (m := _MENTION_ONLY_AFTER.search(sentence)) is not None:
            guarded = m.group("guarded") if fact_stems(m.group("guarded")) else _named_before(sentence[:m.start()])
            found = (guarded, guarded, False)
        elif (m := _ONLY_WHEN_ASKED.search(sentence)) is not None:
            guarded = sentence[:m.start()] if _POINTS_BACK.fullmatch(m.group("guarded")) else m.group("guarded")
            found = (m.group("trigger") or "", guarded, True)
        elif (m := _IF_AGENT.search(sentence)) is not None and m.group("verb").lower().startswith("ask"):
            found = (m.group("trigger"), m.group("then"), True)
        if found is None:
            continue
        trigger, guarded = _stems(found[0]), _stems(found[1]) - exempt
        fact = fact_stems(found[1]) & guarded
        if guarded and fact:  # (guarding no fact, "say you don't remember", it guards nothing to volunteer)
            out.append(Condition(sentence=sentence, trigger=trigger, guarded=guarded - trigger or guarded, asks=found[2],
                                 fact=fact - trigger or fact))
    return out


__all__ = ["Condition", "conditions", "fact_stems", "stated"]
