"""Structuring free-text blueprints: known-info items with values, and what a question asks.

tau2 scenarios state what the customer knows in prose ("You are Emma Kim. Your user id
is emma_kim_9957."). :func:`extract_known_info` finds the values a conversation turns on
(names, user ids, emails, zip codes, addresses, phone numbers, reservation and order
ids) and returns them as :class:`~userbench_env.core.task.KnownInfoItem` with the
sentence they came from, so the scripted user can answer "what is your user id?" and
fidelity rules can tell when a value was disclosed. Values are matched with
conservative patterns: a value is only reported when its shape or the surrounding words
say what it is.

:func:`requested_kinds` is the inverse reading used on the agent's side of the
conversation: which kinds of item an agent message asks the user for.
"""
from __future__ import annotations

import re
from functools import lru_cache

from userbench_env.core.task import KnownInfoItem

_WORD = r"[A-Z][a-z]+(?:[-'][A-Z]?[a-z]+)?"
_NAME = rf"({_WORD}(?: {_WORD}){{1,2}})"
_CASED_ID6 = r"((?-i:(?=[A-Z]*\d)[A-Z0-9]{6}))"
#: A reservation code after the word naming it: six capitals or digits (tau2's airline codes may hold no digit: "HXDUBJ").
_RESERVATION_CODE = r"((?-i:[A-Z0-9]{6}))"
_NOT_FRIEND = r"(?<!friends )(?<!friend's )(?<!friend’s )"

#: (kind, pattern); group 1 of each match is the value. Order matters only for ties.
_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("email", re.compile(r"\b([\w.+-]+@[\w-]+(?:\.[\w-]+)+)\b")),
    ("user_id", re.compile(r"\b(?:user|customer) ?id(?: is|:)? '?([a-z]+(?:_[a-z]+)*_\d{3,5}|[A-Za-z]*\d[\w-]*)\b", re.I)),
    ("user_id", re.compile(r"\b([a-z]+_[a-z]+(?:_[a-z]+)?_\d{4})\b")),
    ("order_id", re.compile(r"(#W\d{5,8})\b")),
    (
        "reservation_id",
        re.compile(
            r"\b(?:reservation|confirmation|booking)(?: (?:id|number|code)s?)?(?: is|:)? " + _RESERVATION_CODE + r"\b",
            re.I,
        ),
    ),
    # the second id of "reservation IDs XEHM4B and 59XX6W"
    ("reservation_id", re.compile(r"\breservation (?:id|number)s [A-Z0-9]{6},? and " + _CASED_ID6 + r"\b", re.I)),
    ("phone_number", re.compile(r"\b(\(?\d{3}\)?[- .]\d{3}[- .]\d{4})\b")),
    ("zip", re.compile(r"\bzip ?code(?: is|:)? (\d{5})\b", re.I)),
    ("zip", re.compile(r"\bzip(?: is|:)? (\d{5})\b", re.I)),
    ("zip", re.compile(r"\bzipcode (\d{5})\b", re.I)),
    # a bare zip after a place: "Denver, 80280", "Seattle, WA, 98193", "Phoenix (85033)", "in 10108"
    ("zip", re.compile(r"(?:[A-Z][A-Za-z]+,? |\bin |\()(\d{5})\b(?!\d|,\d)")),
    (
        "address",
        re.compile(r"\b(\d{1,5} [A-Z][a-z]+ (?:[A-Z][a-z]+ )?(?:Street|St|Drive|Avenue|Ave|Road|Lane|Boulevard|Way|Court)"
                   r"(?:, (?:Suite|Apt\.?|Unit) \d+)?, [A-Z][a-z]+(?: [A-Z][a-z]+)*, [A-Z][a-z]+(?: [A-Z][a-z]+)*, \d{5})"),
    ),
    (
        "name",
        re.compile(
            r"\b(?:You are|You're|Your name is|You name is|My name is|named|called|" + _NOT_FRIEND + r"name is) " + _NAME
        ),
    ),
    ("first_name", re.compile(r"\b(?:You are|You're) (" + _WORD + r")(?=,| \()")),
    ("other", re.compile(r"\bfriends? ?'?s? name is " + _NAME, re.I)),
    ("date", re.compile(r"\bdate is ((?:January|February|March|April|May|June|July|August|September|October|November|December) \d{1,2})\b")),
]

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")


def _sentences(text: str) -> list[tuple[int, str]]:
    """(offset, sentence) pairs of ``text``; each sentence is a verbatim slice."""
    out: list[tuple[int, str]] = []
    start = 0
    for match in _SENTENCE_END.finditer(text):
        if text[start : match.start()].strip():
            out.append((start, text[start : match.start()]))
        start = match.end()
    if text[start:].strip():
        out.append((start, text[start:]))
    return out


def extract_known_info(text: str) -> list[KnownInfoItem]:
    """Known-info items found in ``text``, in order of appearance, without duplicates.

    Each item's ``span`` is the sentence of ``text`` containing the value, stripped of
    surrounding whitespace (so it is a verbatim substring of ``text``). A value found
    under two kinds is kept under the first pattern that matched it.
    """
    if not text:
        return []
    found: list[tuple[int, KnownInfoItem]] = []
    values: set[str] = set()
    for offset, sentence in _sentences(text):
        for kind, pattern in _PATTERNS:
            for match in pattern.finditer(sentence):
                value = match.group(1).strip().rstrip(".")
                if value in values:
                    continue
                values.add(value)
                found.append((offset + match.start(1), KnownInfoItem(kind=kind, value=value, span=sentence.strip())))  # type: ignore[arg-type]
    found.sort(key=lambda pair: pair[0])
    return [item for _, item in found]


#: Words by which an agent asks for each kind of item.
ASK_PATTERNS: dict[str, re.Pattern[str]] = {
    kind: re.compile(pattern, re.I)
    for kind, pattern in {
        "name": r"\b(?:full |first |last )?name\b",
        "first_name": r"\b(?:first |full )?name\b",
        "last_name": r"\b(?:last |full |sur)name\b",
        "user_id": r"\b(?:user|customer|account) ?(?:id|identifier)\b|\buser_id\b|\busername\b",
        "email": r"\be-?mail\b",
        "zip": r"\bzip\b|\bzip ?code\b|\bpostal code\b",
        "phone_number": r"\bphone(?: number)?\b|\bmobile number\b",
        "reservation_id": r"\breservation\b|\bconfirmation (?:number|code)\b|\bbooking (?:id|number|code|reference)\b",
        "order_id": r"\border (?:id|number)s?\b|\border_id\b|\bwhich order\b",
        "item_id": r"\bitem (?:id|number)s?\b",
        "payment_method": r"\bpayment\b|\bcard\b",
        "address": r"\baddress\b",
        "date": r"\bdate\b|\bwhen\b",
    }.items()
}

_QUESTION = re.compile(
    r"\?|\b(?:please|could you|can you|would you|may i|let me know|tell me|provide|share|confirm)\b", re.I
)


def is_question(text: str | None) -> bool:
    """True when ``text`` asks the other party something (a question mark or a request)."""
    return bool(text) and _QUESTION.search(text) is not None  # type: ignore[arg-type]


_SENTENCE = re.compile(r"[^.!?\n]*(?:[.!?]+|\n|$)")
#: A statement that asks all the same ("I'll need your user ID.", "I'll need to gather some
#: information:" before a list).
_NEEDS = re.compile(r"\b(?:need|require)s? (?:your|the|a|an|some|to (?:know|see|have|get|verify|confirm|gather|collect)"
                    r"|(?:a few|some|more|additional|the following) (?:details|information|info)\b)\b", re.I)
#: A request pointing back at what the sentence before named ("Could you provide that?").
_REFERS = re.compile(r"\b(?:provide|share|give|send|confirm|tell|spell|type|enter|read)(?: me| us)?(?: with)? "
                     r"(?:that|it|this|them|those|these|both)\b", re.I)


#: A courtesy offer closing an agent's message ("If you have any other questions or need
#: assistance with your reservation, please let me know!"): it names items without asking for them.
_OFFER = re.compile(r"\bif (?:you|there)(?:'s| is| are)? (?:have |need |want |require |would like |anything )[^.!?\n]*"
                    r"\b(?:questions?|assistance|help|anything)\b", re.I)


#: The innermost braces of an argument object an agent spells out for an action ("Could you
#: run submit_transaction with these arguments: {"user_id": ...}?").
_ARGUMENTS = re.compile(r"\{[^{}]*\}")


def _without_arguments(text: str) -> str:
    """``text`` with every (possibly nested) brace-delimited argument object cut out: its keys
    name the action's parameters, not items the agent asks the user for."""
    while "{" in text:
        text, cut = _ARGUMENTS.subn(" ", text)
        if not cut:
            break
    return text


@lru_cache(maxsize=256)
def asking_part(text: str) -> str:
    """The sentences of ``text`` that ask something (:func:`is_question` of the sentence):
    an item named in a statement ("I can't look it up by your user ID alone.") is not asked
    for, unless the statement says it is needed ("I'll need your user ID.") or the request
    after it points back at it ("Could you provide that?"). A sentence asking with a list to
    follow (ending with ":") asks the rest of the text; a courtesy offer (:data:`_OFFER`:
    "If you need assistance with your reservation, let me know") asks nothing; nor does an
    action's argument object (:func:`_without_arguments`)."""
    text = _without_arguments(text)
    if not is_question(text) and not _NEEDS.search(text):
        return ""
    parts: list[str] = []
    before = ""  # the sentence before, a statement
    for found in _SENTENCE.finditer(text):
        sentence = found.group(0)
        if _OFFER.search(sentence):
            continue  # a courtesy offer asks for nothing
        if is_question(sentence) or _NEEDS.search(sentence):
            if sentence.rstrip().endswith(":"):
                parts.append(text[found.start():])
                break
            if before and _REFERS.search(sentence):  # "... your user ID. Could you provide that?"
                parts.append(before)
            parts.append(sentence)
            before = ""
        else:
            before = sentence
    return " ".join(parts)


def requested_kinds(text: str | None) -> frozenset[str]:
    """The item kinds an agent message asks for: named in a sentence that asks
    (:func:`asking_part`)."""
    asking = asking_part(text) if text else ""
    if not asking:
        return frozenset()
    return frozenset(kind for kind, pattern in ASK_PATTERNS.items() if pattern.search(asking))


#: How item kinds are named in prose, where the kind name itself does not read well.
KIND_LABELS = {"user_id": "user id", "zip": "zip code", "phone_number": "phone number", "reservation_id": "reservation id",
               "order_id": "order id", "item_id": "item id", "payment_method": "payment method",
               "first_name": "first name", "last_name": "last name"}


def kind_label(kind: str) -> str:
    """How an item kind is named in prose ("user id", "zip code", ...)."""
    return KIND_LABELS.get(kind, kind.replace("_", " "))
