"""Missed information, ``withholds_requested_info``: the user says it does not know an item the
scenario gives it, or answers without it (:class:`Withholding`).
"""
from __future__ import annotations

import re

from functools import lru_cache, partial
from typing import Any

from userbench_env.core.rubric import Criterion
from userbench_env.fidelity.text import asked_among, identifiers
from userbench_env.fidelity.language import (
    address_form,
    dates,
    denial_clauses,
    denies_item,
    id_key,
    identity_kind,
    KIND_ALIASES,
    KIND_WORDS,
    mentioned_kinds,
    offers_later,
    pauses_then,
    said_key,
    question_clauses,
    speaks_as_agent,
)
from userbench_env.fidelity.outcomes import agent_outcome
from userbench_env.tasks.extract import ASK_PATTERNS
from userbench_env.fidelity.rules.base import _FAIL, _NOTHING, _PASS, _UNSURE, _Watches, register_rule, STOP_TOKEN, TRANSFER_TOKEN


#: Per item kind, the kinds a denial may name instead (every other kind and its aliases).
#: Every item kind an agent can ask for (its requests read by :func:`~userbench_env.fidelity.text.asked_among`, memoized).
ASKABLE = frozenset(ASK_PATTERNS)
_OTHER_KINDS: dict[str, frozenset[str]] = {kind: frozenset(KIND_WORDS) - KIND_ALIASES.get(kind, {kind})
                                           for kind in {*KIND_WORDS, *(a for aliases in KIND_ALIASES.values() for a in aliases)}}


@register_rule
class Withholding(_Watches):
    """Fails when the agent's latest text asked for a kind the user knows (``params``:
    ``kind``, ``values``) and the user's answer does not give it:

    * it states none of the values (compared in :func:`~userbench_env.fidelity.language.id_key`
      form, digits read out as words counted: :func:`~userbench_env.fidelity.language.said_key`;
      an address's words in their short forms: :func:`~userbench_env.fidelity.language.address_form`)
      and denies, cannot find or refuses the item (idioms included; a denial naming
      only another item is about that item, see :func:`~userbench_env.fidelity.language.denies_item`),
      or deflects: gives another known item instead (whole, not inside a longer token), or asks a question back (both
      borderline: marked for the judge, :meth:`Rule.unsure`);
    * it states some of several values and denies the rest (in a clause that asks nothing:
      "... on my other reservation?" asks about it; offering the rest for later denies
      nothing: :func:`~userbench_env.fidelity.language.offers_later`, nor does a pause to
      look up a value the answer then gives:
      :func:`~userbench_env.fidelity.language.pauses_then`), or answers with only a part
      of the value (a first name for a full name), or, asked for two items,
      names and gives the other one, denying nothing and asking nothing back, and leaves this one out
      ("Could you provide your user ID and reservation ID?" "My reservation ID is HXDUBJ."):
      partial answers.

    Sure evidence only (issue 22): a deflection (a question back, another item instead)
    answering an agent text that refused the request
    (:func:`~userbench_env.fidelity.outcomes.agent_outcome`) is ``suspect``, not a failure:
    asking for a supervisor or an exception there pushes the user's own request. An item
    the user has already given in the conversation is not withheld when an answer leaves
    it out without denying it.

    Passes when the answer states the values. An answer giving a value of the kind asked
    that is not the scenario's (:func:`gives_a_value`: "98178", the wrong zip code a scenario
    says to give first) withholds nothing, a pause to look it up included; an invented one is
    ``invents_unknown_information``'s. An answer that ends the conversation
    (``###STOP###``, ``###TRANSFER###``) is another mode's failure (``premature_stop``,
    ``unprompted_transfer``), not a withholding; so is a question back asked as the agent
    ("Sure! Could you please provide your user ID?": ``breaks_character``), and so is a
    put-off spoken as the agent ("Let me look that up for you, one moment"), while a denial
    naming the item stays one whoever speaks ("As an AI, I don't have a user id").
    Applies when the kind is asked."""

    name = "withholding"

    @classmethod
    def watched(cls, criterion: Criterion) -> list[str]:
        return [id_key(address_form(str(v))) for v in criterion.params["values"]]

    @staticmethod
    def _part_of(text: str, value: str) -> bool:
        """True when the whole answer ``text`` is one proper part of ``value`` (a word of a
        name, the start of an id): given in key form, at least three characters."""
        key = id_key(text)
        return len(key) >= 3 and key != value and key in value and len(text.split()) <= 3

    @classmethod
    def compile(cls, criteria: list[Criterion]) -> tuple[list[tuple[str, str, Any]], frozenset[str], Any]:
        """The watched triples, their kinds and the memoized reading of an answer
        (:meth:`_outcomes`, per answer and asked kinds: a pure function of both)."""
        watch, kinds = super().compile(criteria)
        return watch, kinds, lru_cache(maxsize=256)(partial(cls._outcomes, tuple(watch)))

    def start(self) -> None:
        self._watch, self._kinds, self._outcomes_of = self.compiled
        self._read = 0  # agent texts read
        self._given: set[str] = set()  # criteria whose values the user has stated

    def _note_given(self, text: str) -> None:
        """Record the criteria whose every value ``text`` states."""
        said = said_key(address_form(text))
        self._given.update(cid for cid, _, values in self._watch if values and all(v and v in said for v in values))

    @classmethod
    def _outcomes(cls, watch: tuple[tuple[str, str, Any], ...], text: str, asked: frozenset[str],
                  pair: frozenset[str] = frozenset()) -> tuple[tuple[str, str], ...]:
        """Per criterion of an ``asked`` kind that the answer ``text`` decides, ``(id,
        outcome)``: ``"pass"``, ``"fail"`` or ``"unsure"`` (a borderline failure). A stop or
        a transfer decides none; speaking as the agent is no deflection. ``pair``: the items a
        short request (two at most) asked for, of which giving one and leaving out the other
        is a partial answer."""
        if STOP_TOKEN in text or TRANSFER_TOKEN in text:
            return ()
        written = address_form(text)  # an address's words in their short forms, as the values are watched
        said = said_key(written)
        spans = cls._spans(written)
        agent_like = speaks_as_agent(text)
        # an answer naming asked items, denying nothing and asking nothing back, gives them
        mentioned = mentioned_kinds(text)
        gives_other = bool(mentioned) and not denial_clauses(text) and not question_clauses(text)
        outcomes = []
        for cid, kind, values in watch:
            if kind not in asked:
                continue
            stated = sum(1 for value in values if value and value in said)
            others = _OTHER_KINDS.get(kind) or frozenset(KIND_WORDS) - {kind}
            if not stated and any(cls._part_of(written, value) for value in values):
                outcomes.append((cid, _FAIL))  # a part of the value ("Jesse" for "Jesse Smith"): withheld the rest
            elif stated == len(values):
                outcomes.append((cid, _PASS))
            elif stated:  # a partial answer: withheld when the rest is denied (a question denies nothing,
                # nor does offering the rest for later, "I can tell you that one later when you need it", nor a
                # pause to look up the value it then gives, "hold on till I find it ... here it is: 86e92f639e")
                found = {c for c, after in pauses_then(text) if any(v and v in said_key(address_form(after)) for v in values)}
                denied = {c for c in denial_clauses(text) if not offers_later(c)} - set(question_clauses(text)) - found
                outcomes.append((cid, _FAIL if denied else _PASS))
            elif gives_other and kind not in mentioned and (pair - {kind}) & mentioned:
                outcomes.append((cid, _FAIL))  # gave another item and left this one out: a partial answer
            elif gives_a_value(kind, text):
                continue  # answered with a value of the kind asked (a date for "your date"), after a pause to look
                # it up too ("let me look... 98178"): not withheld
            elif denies_item(text, kind, others) and (not agent_like or any(
                    kind in mentioned_kinds(clause) for clause in denial_clauses(text))):
                outcomes.append((cid, _FAIL))  # as the agent, only a denial naming the item ("I don't have a user id")
            elif (question_clauses(text) or any(v and v in spans for c, k, vs in watch if k != kind for v in vs)) \
                    and not agent_like:  # a question back as the agent is a role reversal, not a deflection
                outcomes.append((cid, _UNSURE))
        return tuple(outcomes)

    @staticmethod
    def _spans(text: str) -> frozenset[str]:
        """Key forms of every run of up to four words of ``text``: a value given whole ("Raj
        Sanchez"), not one inside a longer token ("raj_sanchez_7430" gives a user id, if a
        wrong one, not the name)."""
        words = text.split()
        return frozenset(id_key("".join(words[i:j])) for i in range(len(words)) for j in range(i + 1, min(i + 5, len(words) + 1)))

    def user_text(self, turn: int, text: str, reading: None) -> None:
        given = set(self._given)  # given before this answer: not withheld when not repeated
        self._note_given(text)
        agent = self.feed.agent
        if len(agent) == self._read:
            return  # no agent text since the last answer: nothing was asked
        self._read = len(agent)
        asked = agent[-1][3]  # read the answer only when a watched kind was asked
        if asked.isdisjoint(self._kinds):
            return
        requested = asked_among(agent[-1][2], ASKABLE)  # a short request for two items at most: answered whole or in part
        pair = requested if len(requested) <= 2 else _NOTHING
        refused = agent_outcome(agent[-1][2]) == "cannot"
        for cid, outcome in self._outcomes_of(text, asked, pair):  # (the feed's set itself: one object per agent text)
            if outcome is _PASS or (cid in given and not denial_clauses(text)):
                self.passed(cid, turn)
            elif outcome is _UNSURE and refused:  # pushing its own request back after a refusal: not sure
                self.suspect(cid, turn, "answers a refusal with a question or another item instead of the one asked for")
            else:
                self.fail(cid, turn)
                if outcome is _UNSURE:  # a deflection: marked for a judge to regrade
                    self.unsure(cid, turn)


#: A US zip code: five digits, with or without the four more of ZIP+4, in no longer number or amount.
_ZIP_SHAPED = re.compile(r"(?<![\d$#.,-])\d{5}(?:-\d{4})?(?![\d-]|[.,]\d)")


def gives_a_value(kind: str, text: str) -> bool:
    """True when ``text`` states a value of ``kind`` whatever its words around it, the
    scenario's or not (a wrong one is no withholding): a calendar date for a date, five
    digits for a zip code, an email address, a snake-case user id or a phone number of ten
    digits for those kinds (:func:`~userbench_env.fidelity.language.identity_kind`)."""
    if kind == "date":
        return bool(dates(text))
    if kind == "zip":
        return _ZIP_SHAPED.search(text) is not None
    return any(identity_kind(token) == kind for token in identifiers(text))
