"""Structuring free-text blueprints: known-info items with values.

tau2 scenarios state what the customer knows in prose ("You are Emma Kim. Your user id
is emma_kim_9957."). The extractor finds the values a conversation turns on (names,
user ids, emails, zip codes, phone numbers, reservation and order ids, card digits) and
returns them as :class:`~userbench_env.core.task.KnownInfoItem` with the sentence they
came from, so the scripted user can answer "what is your user id?" and fidelity rules
can tell when a value was disclosed. Values are matched with conservative patterns:
a value is only reported when the surrounding words say what it is.
"""
from __future__ import annotations

import re

from userbench_env.core.task import KnownInfoItem

_NAME = r"([A-Z][a-z]+(?:[-'][A-Z]?[a-z]+)?(?: [A-Z][a-z]+(?:[-'][A-Z]?[a-z]+)?){1,2})"

_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("email", re.compile(r"\b([\w.+-]+@[\w-]+(?:\.[\w-]+)+)\b")),
    ("user_id", re.compile(r"\b(?:user|customer) ?id(?: is|:)? ([a-z]+(?:_[a-z]+)*_\d{3,5}|[A-Za-z]*\d[\w-]*)\b", re.I)),
    ("user_id", re.compile(r"\b([a-z]+_[a-z]+(?:_[a-z]+)?_\d{4})\b")),
    ("order_id", re.compile(r"(#W\d{5,8})\b")),
    (
        "reservation_id",
        re.compile(
            r"\b(?:reservation|confirmation|booking)(?: (?:id|number|code))?(?: is|:)? ([A-Z0-9]{6})\b",
            re.I,
        ),
    ),
    ("phone_number", re.compile(r"\b(\(?\d{3}\)?[- .]\d{3}[- .]\d{4})\b")),
    ("zip", re.compile(r"\bzip ?code(?: is|:)? (\d{5})\b", re.I)),
    ("zip", re.compile(r"\bzip(?: is|:)? (\d{5})\b", re.I)),
    ("zip", re.compile(r"\bzipcode (\d{5})\b", re.I)),
    ("name", re.compile(r"\b(?:You are|Your name is|You name is|My name is|named|name is) " + _NAME)),
]

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")


def _sentences(text: str) -> list[str]:
    return [s for s in _SENTENCE_END.split(text) if s.strip()]


def extract_known_info(text: str) -> list[KnownInfoItem]:
    """Known-info items found in ``text``, in order of appearance, without duplicates.

    Each item's ``span`` is the sentence of ``text`` containing the value (verbatim).
    """
    found: list[tuple[int, KnownInfoItem]] = []
    seen: set[tuple[str, str]] = set()
    if not text:
        return []
    for sentence in _sentences(text):
        offset = text.find(sentence)
        for kind, pattern in _PATTERNS:
            for match in pattern.finditer(sentence):
                value = match.group(1).strip().rstrip(".")
                key = (kind, value)
                if key in seen or any(value == it.value for _, it in found):
                    continue
                seen.add(key)
                found.append((offset + match.start(1), KnownInfoItem(kind=kind, value=value, span=sentence.strip())))
    found.sort(key=lambda pair: pair[0])
    return [item for _, item in found]
