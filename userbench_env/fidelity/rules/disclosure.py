"""Premature disclosure, ``volunteers_unasked_info``: a known item stated before the agent
asked for it (:class:`PrematureDisclosure`), and a conditional scenario instruction's
guarded fact stated before its condition (:class:`ConditionalDisclosure`).
"""
from __future__ import annotations

import re

from typing import Any

from userbench_env.core.rubric import Criterion
from userbench_env.fidelity.conditions import stated
from userbench_env.fidelity.criteria import IDENTITY_KINDS, NAME_KINDS
from userbench_env.fidelity.language import content_stems, dates, denial_clauses, large_amounts, numbers, years
from userbench_env.fidelity.outcomes import reports_done
from userbench_env.fidelity.text import asks, lowered as lower, whole_token
from userbench_env.tasks.extract import asking_part
from userbench_env.fidelity.rules.base import _SENTENCES, _Watches, register_rule, Rule


#: A request for an item by a word that does not say which ("your other?", "your number?",
#: "your details"): any item the user knows may be its answer.
_VAGUE_ITEM = re.compile(r"\byour (?:other|number|details|information|info|data|credentials|identification)\b")


#: Saying how one pays ("pay with my Visa", "charge it to the card", "put it on my Mastercard").
_PAYING = re.compile(r"\b(?:pay|paying|paid|charge|charging|bill|put (?:it|that|this) on|use)\b")


@register_rule
class PrematureDisclosure(_Watches):
    """Fails a criterion when the user states its value before the agent asked for its kind.

    ``params``: ``kind`` (the item kind whose request by the agent licenses disclosure)
    and ``value`` (matched case-insensitively as a whole token of the user's text, not
    inside a longer word or identifier; a date
    in any format: its year and one of its calendar days, see :meth:`_date_value`; an
    income as an amount, see :meth:`_income_value`; an address by its first line, see
    :meth:`_street_line`). The
    criterion applies once the agent asked for the kind or the user stated the value;
    it passes when the value was first stated after a request (or never stated after one:
    the pass then dates from the request). A value stated again before any request is no
    new disclosure (logged once). The user's name given along with the identity item the
    agent's latest text asks for ("it's ethan_martin_2396, Ethan Martin") is ``suspect``: a
    caller introducing itself as it answers (given in that item's place, it is volunteered).
    A value stated while the agent's latest text asks for another item that
    the user denies having is ``suspect`` (offered in that item's place: a deflection), as
    is one stated when the agent asked for an item by a word that does not say which ("your
    other?", "your details": :data:`_VAGUE_ITEM`; the user offers what it may be), and
    so is a payment method stated to pay an amount the agent's latest text named ("$50 is
    fine, I'll pay with my Visa ending in 2915": what the agent needs next), and so is the value
    of an item the request is about (``params["subject"]``: the reason for calling names its
    kind) stated in reply to the agent reporting the request done
    (:func:`~userbench_env.fidelity.outcomes.reports_done`): the user checks the outcome ("could
    you confirm the address now reads ..."), nothing is left to disclose early. A value an agent
    text has stated is no disclosure (the income in the arguments of a tool call the agent
    asks the user to run).
    """

    name = "premature_disclosure"
    cued = True

    @classmethod
    def watched(cls, criterion: Criterion) -> str:
        """The value, lower-cased; an order number without its "#" (stated as "W94628332" too)."""
        return str(criterion.params["value"]).lower().lstrip("#")

    @classmethod
    def compile(cls, criteria: list[Criterion]) -> tuple[list[tuple[str, str, Any]], frozenset[str], re.Pattern[str] | None,
                                                         dict[str, tuple[str, ...]], frozenset[str]]:
        """The watched triples and kinds, one pattern finding any watched value (None when
        some value is empty: every text holds it), per kind its criteria's ids, in order, and
        the ids of the request's own items (``params["subject"]``)."""
        watch, kinds = super().compile(criteria)
        read = {"date": cls._date_value, "income": cls._income_value, "address": cls._street_line}
        watch = [(cid, kind, read[kind](value) if kind in read else value) for cid, kind, value in watch]
        values = sorted({value if isinstance(value, str) else value[0] for _, _, value in watch}, key=len, reverse=True)
        return watch, kinds, (re.compile("|".join(map(re.escape, values))) if values and all(values) else None), \
            {kind: tuple(cid for cid, watched, _ in watch if watched == kind) for kind in kinds}, \
            frozenset(c.id for c in criteria if c.params.get("subject"))

    @staticmethod
    def _date_value(value: str) -> str | tuple[str, frozenset[tuple[int, int]], Any]:
        """A date (of birth) as (its year, its (month, day) readings, the reading that finds
        them): a text states it in any format ("July 16th, 1975", "16/07/1975") when it writes
        the year and one of those days; the value as written when it holds no one year and date."""
        year, days = years(value), dates(value)
        return (next(iter(year)), days, dates) if len(year) == 1 and days else value

    @staticmethod
    def _street_line(value: str) -> str:
        """An address as its first line ("445 maple drive" of "445 Maple Drive, Suite 394, Fort
        Worth, ..."): stating it discloses the address (the whole value when its first part
        holds no house number and street name)."""
        line = value.split(",", 1)[0].strip()
        return line if len(line.split()) >= 2 and any(c.isdigit() for c in line) else value

    @staticmethod
    def _income_value(value: str) -> str | tuple[str, frozenset[str], Any]:
        """An income as (its leading digits, its whole-dollar digits, the reading that finds
        it): stated as "$95,000", "95k" or "95 grand" alike (see
        :func:`~userbench_env.fidelity.language.large_amounts`); the value as written when it
        holds no amount."""
        stated = large_amounts(value)
        return (re.match(r"\D*(\d+)", value).group(1), stated, large_amounts) if stated else value

    def start(self) -> None:
        self._by_kind, self._subjects = self.compiled[3], self.compiled[4]
        self._values = {cid: value for cid, _, value in self.compiled[0]}
        self._asked: set[str] = set()  # the watched kinds asked so far (no other kind is ever looked up)
        self._decided: set[str] = set()

    def first_request(self, kind: str, turn: int) -> None:
        # a request passes the criteria of its kind whose value was not stated yet
        for cid in self._by_kind[kind]:
            if cid not in self._decided:
                self.repass(cid, turn)
        self._asked.add(kind)

    @classmethod
    def read(cls, compiled: Any, text: str) -> tuple[tuple[str, str], ...] | None:
        """``(criterion id, kind)`` of the watched values ``text`` states, in order (None: none)."""
        watch, _, any_value, *_ = compiled
        lowered = lower(text)
        if any_value is not None and any_value.search(lowered) is None:
            return None  # states no watched value
        return tuple((cid, kind) for cid, kind, value in watch if cls._states(value, text, lowered)) or None

    @staticmethod
    def _states(value: Any, text: str, lowered: str) -> bool:
        """True when ``text`` (``lowered``: its lower-cased form) states the watched ``value``:
        as a whole token, or (a value read in any format) holding a part it is always written
        with and then read as it."""
        if isinstance(value, str):
            return whole_token(value).search(lowered) is not None
        return value[0] in lowered and bool(value[1] & value[2](text))

    def user_text(self, turn: int, text: str, reading: tuple[tuple[str, str], ...]) -> None:
        agent = self.feed.agent
        for cid, kind in reading:
            if cid in self._decided and (kind in self._asked or self.verdict(cid) != "pass"):
                continue  # (a value disclosed already is disclosed once: saying it again tells nothing new)
            self._decided.add(cid)
            if kind in self._asked or self._agent_named(cid):
                self.repass(cid, turn)
            elif agent and agent[-1][3] and denial_clauses(text):
                # the agent just asked for another item, which the user denies: this one is
                # offered in its place (a deflection, withholding's to judge), not surely unasked
                self.suspect(cid, turn, "offered in place of an item the agent asked for and the user denies")
            elif kind in NAME_KINDS and agent and any(other in agent[-1][3] & IDENTITY_KINDS for _, other in reading):
                # asked for an id, the user says who it is along with it: introducing oneself,
                # the agent's question answered, not surely a detail volunteered
                self.suspect(cid, turn, "its name given with the identity item the agent asked for")
            elif agent and not agent[-1][3] and _VAGUE_ITEM.search(asking_part(agent[-1][2]).lower()):
                # asked for an item it cannot tell ("your other?"), the user offers what it may be
                self.suspect(cid, turn, "offered when the agent asked for an item without saying which")
            elif kind == "payment_method" and agent and any(c.isdigit() for c in agent[-1][2]) \
                    and _PAYING.search(lower(text)):
                # the agent just named an amount and the user says how it will pay it: what the
                # agent needs next, not surely unasked
                self.suspect(cid, turn, "offered to pay an amount the agent just named")
            elif cid in self._subjects and agent and reports_done(agent[-1][2]):
                # the agent reported the request on this item done: the user checks the outcome
                # ("could you confirm the address now reads 445 Maple Drive?"), nothing left to disclose early
                self.suspect(cid, turn, "the request's own item, stated after the agent reported the request done")
            else:
                self.fail(cid, turn)

    def _agent_named(self, cid: str) -> bool:
        """True when an agent text so far states the criterion's value (the agent wrote the
        income in the tool call it asked the user to run): what the agent has written, the
        user repeating it discloses nothing."""
        value = self._values[cid]
        # (an agent writes an amount as a bare number in a tool call's arguments: "annual_income": 75000)
        return any(self._states(value, text, lower(text)) or (not isinstance(value, str) and bool(value[1] & numbers(text)))
                   for _, _, text, _ in self.feed.agent)


@register_rule
class ConditionalDisclosure(Rule):
    """A conditional scenario instruction (:mod:`userbench_env.fidelity.conditions`): the
    user says the guarded content only once the agent has said the trigger (``params``:
    ``trigger`` and ``guarded`` content stems; ``asks``: the agent must ask it, in a
    sentence that asks; ``fact``: the guarded fact's stems, its numbers and names). Fails when
    a sentence of a user text states the guarded content (two of its stems, or all of a
    shorter one, the fact among them) about the trigger's matter (two of its
    stems, or all of a shorter one, in that sentence or the one before it) before the agent
    said the trigger; passes once the agent has. A trigger of no words is any
    question of the agent's about the guarded content. Applies when either happens."""

    name = "conditional_disclosure"

    @classmethod
    def compile(cls, criteria: list[Criterion]) -> list[tuple[str, frozenset[str], frozenset[str], bool, frozenset[str], Any]]:
        """Per condition: its id, trigger, guarded and fact stems, whether the agent must ask, and
        how the agent's words are read for its trigger: as the trigger was, with the numbers in
        identifiers when it has one ("HAT266" holds "266",
        :func:`~userbench_env.fidelity.conditions.stated`), else by their content stems."""
        compiled = []
        for c in criteria:
            trigger = frozenset(c.params["trigger"])
            stems = stated if any(stem.isdigit() for stem in trigger) else content_stems
            compiled.append((c.id, trigger, frozenset(c.params["guarded"]), bool(c.params.get("asks", True)),
                             frozenset(c.params.get("fact", ())), stems))
        return compiled

    def start(self) -> None:
        self._said: set[str] = set()  # ids whose trigger the agent said
        self._read = 0  # agent texts read

    def _heard_triggers(self) -> None:
        agent = self.feed.agent
        for _, _, text, _ in agent[self._read:]:
            for cid, trigger, guarded, asks, _, stems in self.compiled:
                if cid in self._said:
                    continue
                words = stems(asking_part(text) if asks else text)
                if (trigger and len(words & trigger) >= min(2, len(trigger))) or (not trigger and words & guarded):
                    self._said.add(cid)
        self._read = len(agent)

    def user_text(self, turn: int, text: str, reading: None) -> None:
        if self._settled:
            return  # every condition met or broken: nothing more to decide
        self._heard_triggers()
        sentences = [stated(sentence) for sentence in _SENTENCES.findall(text)] if any(
            cid not in self._said for cid, *_ in self.compiled) else []
        # a sentence's matter is its own words or the sentence's before it ("How many passengers
        # were on it? I think there were 3.")
        matters = [said | before for said, before in zip(sentences, [frozenset(), *sentences])]
        for cid, trigger, guarded, _, fact, _ in self.compiled:
            if cid in self._said:
                self.passed(cid, turn)
            elif self.verdict(cid) != "fail" and any(len(said & guarded) >= min(2, len(guarded)) and (said & fact or not fact)
                                                     and len(matter & trigger) >= min(2, len(trigger))
                                                     for said, matter in zip(sentences, matters)):
                self.fail(cid, turn)  # (once: saying it again is no new disclosure)
        self._settled = all(cid in self._said or self.verdict(cid) == "fail" for cid, *_ in self.compiled)

