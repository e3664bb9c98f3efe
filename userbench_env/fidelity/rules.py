"""Incremental rule checks: deterministic fidelity criteria evaluated as the episode runs.

A rule is a class registered under the name criteria use in their ``rule`` field. The
env feeds a :class:`RuleTracker` every agent text, every user text and every executed
tool call (agent's or user's, with its result) as they happen. The tracker records
agent texts and tool calls once, in a :class:`Feed` its rules share, and hands every
user text to the rules: a rule reads the part of the feed it has not read yet when a
user text needs it (most user texts need none of it). Rules keep O(criteria) state and
do a few substring/regex tests per user text (microseconds).

A user text is analysed once for all rules: each rule's reading of it (:meth:`Rule.read`,
a pure function of the text and the task's compiled data: its recitals, its stated ids,
whether it speaks as the agent, ...) is computed by the task's :class:`RulePlan`, memoized
per text, and handed to the rule with the text. A reading of None says the text holds
nothing the rule acts on (its cues are absent): a rule that has nothing left to decide
but what such cues bring (see :attr:`Rule.listens`) is then not called at all, so a
settled episode's user text costs one memo lookup and the few rules that still read the
feed.

A rule that reads calls hears of each one as it is made (:meth:`Rule.call_made`).

Each rule keeps its criteria's outcomes (verdict and evidence turn; first failure wins
and is final; a pass may be revised into a failure) in the episode's verdict table: one
verdict dict per criterion, allocated with the tracker and filled in as the episode
runs, so reporting the verdicts at the end is a copy. A rule logs every violation it
sees in ``events`` as ``(criterion id, turn)``, so a later violation of an already-failed
criterion is still visible to the validation of the checkers; a first failure also
joins the episode's ``violations`` as it happens (see :meth:`Rule.fail`). A rule whose
outcomes an agent request decides (a request passes a criterion) hears of the first
request of each of its kinds (:meth:`Rule.first_request`).

Whatever a rule derives from its criteria alone (compiled patterns, parsed gold actions,
gates) is computed once per task by :meth:`Rule.compile` and shared, read-only, by every
episode through a :class:`RulePlan`; an episode's tracker only allocates the rules'
mutable state. Envs cache the plan per task (:func:`compile_rules`).

To add a rule: subclass :class:`Rule`, set ``name``, implement ``user_text`` (calling
:meth:`Rule.fail` and :meth:`Rule.passed`, or :meth:`Rule.settle_all`; ``compile`` for
per-task data, ``start`` for per-episode state, ``first_request`` for what requests decide,
``read`` and ``listens`` to be skipped on texts that cannot concern it), decorate with
:func:`register_rule`. Criteria naming an unregistered rule are reported
``pending``.
"""
from __future__ import annotations

import math
import re
from collections import Counter
from functools import lru_cache, partial
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, NamedTuple, TypeVar

from userbench_env.core.messages import ToolCall, ToolResult
from userbench_env.core.rubric import Criterion
from userbench_env.tasks.extract import asking_part, requested_kinds
from userbench_env.fidelity.language import (
    KIND_ALIASES,
    KIND_WORDS,
    denial_clauses,
    denies_item,
    identity_items,
    mentioned_kinds,
    question_clauses,
    recital_cues,
    speaks_as_agent,
    NEGATION,
    clock_times,
    content_stems,
    amounts,
    dates,
    id_key,
    id_runs,
    large_amounts,
    years,
    labelled_values,
    month_days,
    numbers,
    street_addresses,
)
from userbench_env.fidelity.conditions import stated
from userbench_env.fidelity.outcomes import agent_outcome, makes_request, reports, standing, withdrew
from userbench_env.fidelity.text import (
    ASK_GATES,
    PROBLEM_STATES,
    STATE_TOOLS,
    ToolMentions,
    asked_among,
    asks,
    claimed_actions,
    claims_done,
    device_states,
    identifiers,
    literal,
    lowered as lower,
    normalize,
    past_device_states,
    scenario_device_states,
    state_tools,
)

Verdict = Literal["pass", "fail", "suspect", "not_applicable", "pending", "error"]

STOP_TOKEN = "###STOP###"
TRANSFER_TOKEN = "###TRANSFER###"


_NOTHING: frozenset[str] = frozenset()


class Feed:
    """What one episode has shown its rules so far, in order. The tracker appends; rules
    only read, each from where it last stopped.

    ``agent``: ``(clock, turn, text, asked)`` of every agent text, where ``asked`` is
    ``asked_among(text, kinds)``: the item kinds some rule watches agent requests for
    (``kinds``, the plan's) that the text asks for, read once per text by the plan (a rule
    takes ``asked & its kinds``). ``user``: ``(clock, text)`` of the user's texts so far (as checked). ``user_calls``: ``(clock, call, result)`` of every user tool
    call. ``called_at``: per user tool, the
    clock of its latest call. ``first_asked``: per watched kind the agent asked for, the
    turn of its first request. The clock counts agent texts and user calls, so requests
    and calls can be ordered. ``ambiguous``: some rule marked a verdict it could not decide
    (:meth:`Rule.unsure`).
    """

    __slots__ = ("agent", "ambiguous", "called_at", "clock", "first_asked", "user", "user_calls")

    def __init__(self) -> None:
        self.clock = 0
        self.ambiguous = False
        self.agent: list[tuple[int, int, str, frozenset[str]]] = []
        self.user: list[tuple[int, str]] = []
        self.user_calls: list[tuple[int, ToolCall, ToolResult]] = []
        self.called_at: dict[str, int] = {}
        self.first_asked: dict[str, int] = {}

    def add_agent_text(self, turn: int, text: str, asked: frozenset[str]) -> list[str]:
        """Record an agent text and the watched kinds it asks for; returns the kinds it is
        the first request for."""
        self.clock += 1
        self.agent.append((self.clock, turn, text, asked))
        first = self.first_asked
        if not asked or asked <= first.keys():
            return []
        fresh = [kind for kind in asked if kind not in first]
        for kind in fresh:
            first[kind] = turn
        return fresh

    def called_since_agent(self) -> bool:
        """True when a user tool ran after the latest agent text (or ever, before any)."""
        return bool(self.user_calls) and self.user_calls[-1][0] > (self.agent[-1][0] if self.agent else 0)


class Rule:
    """Base class of a rule: one instance per episode, over the criteria naming it.

    ``compiled`` is what :meth:`compile` derived from the criteria (shared by every
    episode of the task: never mutate it); it is computed here when not given. ``feed``
    is the episode's :class:`Feed`; ``table`` the episode's verdict table (criterion id to
    its verdict dict, holding the rule's criteria, whose ``verdict`` and ``evidence_turn``
    the rule keeps up to date) and ``violations`` its list of first failures, both shared
    by the episode's rules (each a private new one when not given: a rule alone).
    """

    name: ClassVar[str]
    #: Which user texts whose :meth:`read` is None the tracker still hands the rule:
    #: ``"always"`` every one (the rule reads the feed at every text); ``"unsettled"`` those
    #: until :meth:`settle_all` has passed the rule's criteria (a text without cues then
    #: changes nothing); ``"asked"`` the first one after an agent text that :meth:`awaits`
    #: its answer (the latest agent text: one that does not makes it deaf again); ``"called"``
    #: the first one after a user tool call it :meth:`watches`; ``"cued"`` none (such a text
    #: never changes anything). Skipping is only an economy: a rule other than ``"cued"``
    #: handed such a text anyway decides nothing from it (its own checks of the feed ensure it).
    listens: ClassVar[Literal["always", "unsettled", "asked", "called", "cued"]] = "always"
    #: The rule hears of the executed calls (agent's or user's) named by :meth:`call_names`,
    #: as they are recorded (:meth:`call_made`; the tracker records agent calls only when a
    #: rule does).
    reads_calls: ClassVar[bool] = False

    @classmethod
    def compile(cls, criteria: list[Criterion]) -> Any:
        """Per-task, read-only data derived from ``criteria`` (default: none)."""
        return None

    @classmethod
    def call_names(cls, compiled: Any) -> frozenset[str] | None:
        """The tool names of the calls a :attr:`reads_calls` rule reacts to, given the
        compiled data (None: every call)."""
        return None

    @classmethod
    def kinds(cls, compiled: Any) -> frozenset[str]:
        """The item kinds whose requests by the agent the rule reads (see :class:`Feed`)."""
        return frozenset()

    @classmethod
    def awaits(cls, compiled: Any, text: str, asked: frozenset[str]) -> bool:
        """For a rule listening to answers (:attr:`listens` ``"asked"``): True when the agent's
        ``text``, which asks for the watched item kinds ``asked`` (see :class:`Feed`), awaits
        an answer the rule reads (a pure function of its arguments). Default: it asks for
        one of the rule's :meth:`kinds`."""
        return bool(cls.kinds(compiled) & asked)

    @classmethod
    def watches(cls, compiled: Any, tool: str) -> bool:
        """For a rule listening after user calls (:attr:`listens` ``"called"``): True when a
        user call of ``tool`` may concern it. Default: every call does."""
        return True

    @classmethod
    def read(cls, compiled: Any, text: str) -> Any:
        """The rule's reading of a user ``text``, given its compiled data: a pure function of
        both (the plan memoizes it per text), handed to :meth:`user_text`; None when the
        text holds none of the rule's cues (see :attr:`listens`). Default: None (the rule
        reads no cues: it hears the texts it listens to, and reads them itself)."""
        return None

    def __init__(
        self,
        criteria: list[Criterion],
        compiled: Any = None,
        feed: Feed | None = None,
        table: dict[str, dict[str, Any]] | None = None,
        violations: list[str] | None = None,
    ):
        self.criteria = criteria
        self.ids = [c.id for c in criteria]
        self.compiled = type(self).compile(criteria) if compiled is None else compiled
        self.feed = feed if feed is not None else Feed()
        self.table = table if table is not None else {cid: {"verdict": "not_applicable", "evidence_turn": None}
                                                      for cid in self.ids}
        self.violations = violations if violations is not None else []
        self.events: list[tuple[str, int]] = []
        self._settled = False
        self.start()

    # -- hooks -------------------------------------------------------------------
    def start(self) -> None:
        """Allocate the rule's per-episode state (called last by the constructor)."""

    def user_text(self, turn: int, text: str, reading: Any) -> None:
        """The user said ``text`` (after everything in the feed), which the rule reads as
        ``reading`` (:meth:`read`): update the outcomes."""

    def call_made(self, call: ToolCall) -> None:
        """A call the rule reads (see :attr:`reads_calls`) was executed (in order)."""

    def first_request(self, kind: str, turn: int) -> None:
        """The agent first asked for ``kind`` (one of :meth:`kinds`) at ``turn`` (called as
        the request is recorded, before the user answers)."""

    # -- helpers for subclasses ------------------------------------------------------
    def verdict(self, cid: str) -> Verdict:
        """The current verdict of ``cid``."""
        return self.table[cid]["verdict"]

    def fail(self, cid: str, turn: int) -> None:
        """Log a violation of ``cid``; a first failure also sets its outcome and joins ``violations``."""
        self.events.append((cid, turn))
        entry = self.table[cid]
        if entry["verdict"] != "fail":
            if entry.pop("why", None) is not None:  # a sure failure replaces a suspicion
                entry.pop("ambiguous", None)
            entry["verdict"] = "fail"
            entry["evidence_turn"] = turn
            self.violations.append(cid)

    def passed(self, cid: str, turn: int) -> None:
        """Mark ``cid`` passed at ``turn`` unless it already passed or failed (the evidence
        turn of a pass is the first turn the criterion applied)."""
        entry = self.table[cid]
        if entry["verdict"] == "not_applicable":
            entry["verdict"] = "pass"
            entry["evidence_turn"] = turn

    def repass(self, cid: str, turn: int) -> None:
        """Mark ``cid`` passed with its evidence at ``turn`` (a later pass replacing an earlier one)."""
        entry = self.table[cid]
        entry["verdict"] = "pass"
        entry["evidence_turn"] = turn

    def unsure(self, cid: str, turn: int) -> None:
        """Mark ``cid``'s current verdict as one the rule could not decide at ``turn``: it
        stands, but carries the criterion's ``statement`` and ``grounding`` and
        ``ambiguous`` (the turn), so a configured judge grades it instead (see
        :func:`~userbench_env.fidelity.grading.grade_verdicts`)."""
        entry = self.table[cid]
        if "ambiguous" not in entry:
            criterion = next(c for c in self.criteria if c.id == cid)
            entry.update(ambiguous=turn, statement=criterion.statement, grounding=criterion.grounding)
            self.feed.ambiguous = True

    def suspect(self, cid: str, turn: int, why: str) -> None:
        """Mark ``cid`` ``suspect`` at ``turn``: the rule saw evidence of a violation it cannot
        be sure of (``why``). A suspect never turns a failure back; a later sure failure
        replaces it. It carries the criterion's ``statement`` and ``grounding`` and
        ``ambiguous`` (the turn), so a configured judge grades it; without one it does not
        fail UFS (see :func:`~userbench_env.fidelity.scoring.episode_verdict`)."""
        entry = self.table[cid]
        if entry["verdict"] in ("fail", "suspect"):
            return
        entry.update(verdict="suspect", evidence_turn=turn, why=why)
        self.unsure(cid, turn)

    @property
    def settled(self) -> bool:
        """True once :meth:`settle_all` has passed every criterion (a pass changes nothing more)."""
        return self._settled

    def settle_all(self, turn: int, bad: bool) -> None:
        """Every criterion of the rule applies at ``turn``: fail them all when ``bad``, else
        pass them."""
        if bad:
            for cid in self.ids:
                self.fail(cid, turn)
        elif not self._settled:  # once all have passed or failed, a pass changes nothing
            for cid in self.ids:
                self.passed(cid, turn)
            self._settled = True


RULES: dict[str, type[Rule]] = {}


def register_rule(cls: type[Rule]) -> type[Rule]:
    """Class decorator adding a rule to :data:`RULES` under its ``name``."""
    RULES[cls.name] = cls
    return cls


class _Watches(Rule):
    """A rule watching one item kind per criterion (``params["kind"]``) with what it looks
    for in the user's texts (:meth:`watched`); compiled to ``(watch, kinds)``: the
    ``(criterion id, kind, watched)`` triples and their kinds (the agent requests it reads)."""

    @classmethod
    def watched(cls, criterion: Criterion) -> Any:
        """What the rule looks for in the user's texts for ``criterion`` (lower-cased)."""
        raise NotImplementedError

    @classmethod
    def compile(cls, criteria: list[Criterion]) -> tuple[list[tuple[str, str, Any]], frozenset[str]]:
        watch = [(c.id, str(c.params["kind"]), cls.watched(c)) for c in criteria]
        return watch, frozenset(kind for _, kind, _ in watch)

    @classmethod
    def kinds(cls, compiled: Any) -> frozenset[str]:
        return compiled[1]


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
    new disclosure (logged once). A value stated while the agent's latest text asks for another item that
    the user denies having is ``suspect`` (offered in that item's place: a deflection).
    """

    name = "premature_disclosure"
    listens = "cued"

    @classmethod
    def watched(cls, criterion: Criterion) -> str:
        return str(criterion.params["value"]).lower()

    @classmethod
    def compile(cls, criteria: list[Criterion]) -> tuple[list[tuple[str, str, Any]], frozenset[str], re.Pattern[str] | None,
                                                         dict[str, tuple[str, ...]]]:
        """The watched triples and kinds, one pattern finding any watched value (None when
        some value is empty: every text holds it), and per kind its criteria's ids, in order."""
        watch, kinds = super().compile(criteria)
        read = {"date": cls._date_value, "income": cls._income_value, "address": cls._street_line}
        watch = [(cid, kind, read[kind](value) if kind in read else value) for cid, kind, value in watch]
        values = sorted({value if isinstance(value, str) else value[0] for _, _, value in watch}, key=len, reverse=True)
        return watch, kinds, (re.compile("|".join(map(re.escape, values))) if values and all(values) else None), \
            {kind: tuple(cid for cid, watched, _ in watch if watched == kind) for kind in kinds}

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
        self._by_kind = self.compiled[3]
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
        watch, _, any_value, _ = compiled
        lowered = lower(text)
        if any_value is not None and any_value.search(lowered) is None:
            return None  # states no watched value
        # (a value read in any format: gated by a part it is always written with, then read)
        return tuple((cid, kind) for cid, kind, value in watch
                     if (_whole(value).search(lowered) is not None if isinstance(value, str)
                         else value[0] in lowered and value[1] & value[2](text))) or None

    def user_text(self, turn: int, text: str, reading: tuple[tuple[str, str], ...]) -> None:
        for cid, kind in reading:
            if cid in self._decided and (kind in self._asked or self.verdict(cid) != "pass"):
                continue  # (a value disclosed already is disclosed once: saying it again tells nothing new)
            self._decided.add(cid)
            if kind in self._asked:
                self.repass(cid, turn)
            elif (agent := self.feed.agent) and agent[-1][3] and denial_clauses(text):
                # the agent just asked for another item, which the user denies: this one is
                # offered in its place (a deflection, withholding's to judge), not surely unasked
                self.suspect(cid, turn, "offered in place of an item the agent asked for and the user denies")
            else:
                self.fail(cid, turn)


@register_rule
class ConditionalDisclosure(Rule):
    """A conditional scenario instruction (:mod:`userbench_env.fidelity.conditions`): the
    user says the guarded content only once the agent has said the trigger (``params``:
    ``trigger`` and ``guarded`` content stems; ``asks``: the agent must ask it, in a
    sentence that asks). Fails when a sentence of a user text states the guarded content
    (two of its stems, or all of a shorter one) about the trigger's matter (two of its
    stems, or all of a shorter one) before the agent said the trigger; passes once the agent has. A trigger of no words is any
    question of the agent's about the guarded content. Applies when either happens."""

    name = "conditional_disclosure"

    @classmethod
    def compile(cls, criteria: list[Criterion]) -> list[tuple[str, frozenset[str], frozenset[str], bool]]:
        return [(c.id, frozenset(c.params["trigger"]), frozenset(c.params["guarded"]), bool(c.params.get("asks", True)))
                for c in criteria]

    def start(self) -> None:
        self._said: set[str] = set()  # ids whose trigger the agent said
        self._read = 0  # agent texts read

    def _heard_triggers(self) -> None:
        agent = self.feed.agent
        for _, _, text, _ in agent[self._read:]:
            for cid, trigger, guarded, asks in self.compiled:
                if cid in self._said:
                    continue
                words = content_stems(asking_part(text) if asks else text)
                if (trigger and len(words & trigger) >= min(2, len(trigger))) or (not trigger and words & guarded):
                    self._said.add(cid)
        self._read = len(agent)

    def user_text(self, turn: int, text: str, reading: None) -> None:
        self._heard_triggers()
        sentences = [stated(sentence) for sentence in _SENTENCES.findall(text)]
        for cid, trigger, guarded, _ in self.compiled:
            if cid in self._said:
                self.passed(cid, turn)
            elif self.verdict(cid) != "fail" and any(len(said & guarded) >= min(2, len(guarded))
                                                     and len(said & trigger) >= min(2, len(trigger)) for said in sentences):
                self.fail(cid, turn)  # (once: saying it again is no new disclosure)


@lru_cache(maxsize=1024)
def _whole(value: str) -> re.Pattern[str]:
    """Finds ``value`` as a whole token: not inside a longer word or identifier (a first name
    inside the user id "lucas_santos_6600" states the id, not the name)."""
    return re.compile(rf"(?<!\w){re.escape(value)}(?!\w)")


@register_rule
class DumpsBlueprint(Rule):
    """Fails when one user message recites at least ``minimum`` of the criterion's
    ``sentences`` (scenario sentences: constraints, fallback plans, persona notes), in any
    wording. Sentences and message are read as content words, stemmed
    (:func:`~userbench_env.fidelity.language.content_stems`); words of ``exempt`` (the
    reason for calling and the known values, which the user states anyway) and of how
    scenarios address the simulated user (:data:`SCENARIO_WORDS`: "the agent", "ask", ...)
    and the scenario's topic words (:data:`TOPIC_SENTENCES`) do not count. A sentence is
    recited when the message holds enough of its words (a third, at least 2, at most
    :data:`RECITE_CAP`; all of a sentence of one or two words; a distinctive word held, see
    :func:`distinctive_stems`, lowers that by one, to 2: a paraphrase replaces words with
    synonyms, not a number or a name; once one sentence is recited, a further one counts
    when the message holds one of its distinctive words: a message touching several
    scenario sentences is a recital), and each
    further recited sentence must bring a word the ones before it did not (two sentences
    restating one goal are one recital; a sentence whose words another holds is dropped).
    A sentence the agent's latest text asked about (sharing a word with it, courtesies
    aside: :data:`AGENT_COURTESY`) never counts: answering the agent's questions (often
    numbered) with what the scenario says about them is no recital.
    The reason's ``fallback`` sentences (its conditions and alternatives) count, except
    when stated word for word with the reason (the reason for calling as the scenario
    words it is the user's opening). A message one sentence short of a
    dump whose next-best sentence is nearly recited is borderline: its verdict is marked
    for the judge (:meth:`Rule.unsure`). A paraphrase swaps words for synonyms, so two
    structural marks of a recital lower the bar: a message reciting (or nearly reciting)
    a sentence, or touching ``minimum`` sentences, while talking about its own brief
    (:func:`~userbench_env.fidelity.language.recital_cues`: "before you ask", "if you
    refuse I'll ...", "I'm a 64-year-old ...") recites every sentence it brings a new word
    of (and, talking about it twice, is a recital with one sentence recited); one reciting a sentence along with
    :data:`RECITAL_IDENTITY` identity items (its name, email, user id) lists several
    scenario facts at once. Word-for-word recitals are dumps too: ``minimum``
    of ``verbatim`` (long sentences in either person, see
    :func:`~userbench_env.fidelity.text.verbatim_sentences`) or of ``copied`` (sentences
    as written, second person and all, see :func:`~userbench_env.fidelity.text.copied_sentences`).
    Applies to every user message."""

    name = "dumps_blueprint"
    listens = "unsettled"

    @classmethod
    def compile(cls, criteria: list[Criterion]) -> "RecitalReader":
        """The task's :class:`RecitalReader` (per criterion: id, (content stems, words needed,
        fallback form) per sentence, minimum, word-for-word forms)."""
        compiled = []
        for c in criteria:
            exempt = content_stems(str(c.params.get("exempt", ""))) | SCENARIO_WORDS
            fallback = set(c.params.get("fallback", ()))
            texts = list(c.params["sentences"])
            read = [(content_stems(sentence) - exempt, normalize(sentence) if sentence in fallback else "") for sentence in texts]
            frequency = Counter(w for words, _ in read for w in words)
            topic = {w for w, n in frequency.items() if n >= TOPIC_SENTENCES and n >= len(read) * TOPIC_SHARE}
            read = [(words - topic, reason) for words, reason in read]
            sentences: list[tuple[frozenset[str], int, str, frozenset[str]]] = []
            for i, (words, reason) in enumerate(read):
                # a sentence whose words another one holds says nothing that one does not
                if words - {NEGATION} and not any(words < other or (words == other and j < i)
                                                  for j, (other, _) in enumerate(read) if j != i):
                    need = len(words) if len(words) <= 2 else max(2, min(math.ceil(len(words) / 3), RECITE_CAP))
                    sentences.append((words, need, reason, distinctive_stems(texts[i]) & words))
            compiled.append((c.id, sentences, int(c.params.get("minimum", 2)),
                             (list(c.params.get("verbatim", ())), list(c.params.get("copied", ())))))
        return RecitalReader(compiled)

    @classmethod
    def read(cls, compiled: "RecitalReader", text: str) -> bool | None:
        """True when ``text`` may recite the scenario, depending on what the agent's latest
        text asked about; None when it passes every criterion whatever that was
        (:meth:`RecitalReader.quiet`)."""
        return None if compiled.quiet(text) else True

    def user_text(self, turn: int, text: str, reading: bool | None) -> None:
        outcomes = None
        if reading is not None:
            agent = self.feed.agent
            outcomes = self.compiled.read(text, self.compiled.prompted(agent[-1][2]) if agent else _NOTHING)
        if outcomes is None:  # nothing recited: every criterion passes (once settled, nothing changes)
            if not self._settled:
                self.settle_all(turn, False)
            return
        for cid, outcome in outcomes:
            if outcome is _FAIL:
                self.fail(cid, turn)
            else:
                self.passed(cid, turn)
                if outcome is _UNSURE:
                    self.unsure(cid, turn)


_PASS, _FAIL, _UNSURE = "pass", "fail", "unsure"
#: A sentence of a user text (linear: one pass).
_SENTENCES = re.compile(r"[^.!?\n]+")


class RecitalReader:
    """A task's compiled :class:`DumpsBlueprint` data and its reading of a message: a pure
    function of the message and of the scenario words the agent's latest text asked about,
    memoized (a task's messages recur across its episodes; the reading is the same every
    time, so the rule only applies it)."""

    def __init__(self, compiled: list[tuple[str, list[tuple[frozenset[str], int, str, frozenset[str]]], int,
                                            tuple[list[str], list[str]]]]):
        self.compiled = compiled
        self.vocabulary: frozenset[str] = frozenset().union(*(w for _, sentences, _, _ in compiled for w, _, _, _ in sentences))
        # a text shorter than 3/4 of the two shortest word-for-word sentences cannot recite them
        # (normalizing grows a text by at most one character per "'m")
        self.shortest = min((sum(sorted(len(s) for s in forms)[:minimum]) for _, _, minimum, pair in compiled for forms in pair
                             if len(forms) >= minimum), default=0) * 3 // 4
        self.read = lru_cache(maxsize=256)(self._read)

    def prompted(self, agent_text: str) -> frozenset[str]:
        """The scenario words the agent's ``agent_text`` holds, courtesies aside
        (:data:`AGENT_COURTESY`): what it asked about."""
        return (content_stems(agent_text) & self.vocabulary) - AGENT_COURTESY

    def quiet(self, text: str) -> bool:
        """True when ``text`` passes every criterion whatever the agent's latest text asked
        about: it is too short to recite anything, or it passes them all unprompted without
        talking about its brief (:func:`~userbench_env.fidelity.language.recital_cues`): a
        prompt only spares sentences or asks for one more, and the marks it leaves in force
        are counted the same, or need such talk (see :meth:`_outcome`)."""
        return self._too_short(text) or (self.read(text) is None and not recital_cues(text))

    def _too_short(self, text: str) -> bool:
        """True when ``text`` is too short to recite two sentences either way."""
        return len(content_stems(text) & self.vocabulary) < 2 and len(text) < self.shortest

    def _read(self, text: str, prompt: frozenset[str] = frozenset()) -> tuple[tuple[str, str], ...] | None:
        """Per criterion (in order), ``(id, outcome)``: ``"fail"`` (recited), ``"pass"``, or
        ``"unsure"`` (a pass one sentence short of a dump: borderline); None when the text is
        too short to recite anything or when every criterion passes. ``prompt``: the
        scenario words of the agent's latest text (see :meth:`_outcome`)."""
        if self._too_short(text):
            return None
        said = content_stems(text) & self.vocabulary
        whole = len(text) >= self.shortest  # long enough to hold word-for-word recitals
        normalized = normalize(text) if whole else ""
        outcomes = tuple((cid, self._outcome(text, said, whole, normalized, sentences, minimum, verbatim, copied, prompt))
                         for cid, sentences, minimum, (verbatim, copied) in self.compiled)
        return None if all(outcome is _PASS for _, outcome in outcomes) else outcomes

    @staticmethod
    def _outcome(text: str, said: frozenset[str], whole: bool, normalized: str,
                 sentences: list[tuple[frozenset[str], int, str, frozenset[str]]],
                 minimum: int, verbatim: list[str], copied: list[str], prompt: frozenset[str] = frozenset()) -> str:
        """The outcome of one criterion. Only the sentences the agent's latest text did not
        ask about (none of their words in ``prompt``) count, and the marks of a paraphrased
        recital (talk about the brief, the user's identity) need one sentence more after such
        a question: answering the agent's question with what the scenario says about it is no
        recital."""
        if whole and ((verbatim and sum(1 for sentence in verbatim if sentence in normalized) >= minimum) or (
                copied and sum(1 for sentence in copied if sentence in literal(text)) >= minimum)):
            return _FAIL
        # a distinctive word (a number, a name) stands for a word a paraphrase changed, down to two words
        matched = [(shared, least, reason, words) for words, need, reason, marks in sentences
                   if len(shared := words & said) >= (least := max(min(need, 2), need - len(shared & marks))) * UNSURE_SHARE]
        unasked = [sentence for sentence in sentences if not sentence[0] & prompt] if prompt else sentences
        # answering a question about the scenario's matters, a reply touches more of it: one more sentence needed
        enough = minimum + 1 if prompt else minimum
        if not matched:  # nothing nearly recited: talking about its brief, a message touching enough sentences recites them
            return _FAIL if _touched(unasked, said, set(), text, normalized) >= enough and recital_cues(text) else _PASS
        matched.sort(key=lambda m: len(m[0]) / m[1], reverse=True)
        used: set[str] = set()
        recited = free = 0  # recited sentences, and those of them the agent did not ask about
        near = False  # a sentence nearly recited
        for shared, need, reason, words in matched:
            if reason and reason in (normalized or normalize(text)):
                continue  # the reason's fallback as the scenario words it: the reason for calling, stated
            if len(shared) >= need and (not used or shared - used - {NEGATION}):
                recited += 1
                free += not words & prompt
                used |= shared
            elif len(shared) >= need * UNSURE_SHARE and shared - used:
                near = True
        if 0 < recited < minimum:  # once a sentence is recited, a further one counts by a distinctive word alone
            stated = normalized or normalize(text)
            for words, _, reason, marks in sentences:
                if (touched := marks & said - used) and not (reason and reason in stated):
                    recited += 1
                    free += not words & prompt
                    used |= touched
        if free >= minimum:  # what the agent just asked about is answered, not recited
            return _FAIL
        if free and identity_items(text, identifiers(text)) >= RECITAL_IDENTITY:
            return _FAIL  # a scenario sentence recited with the user's identity: several scenario facts at once
        # talking about its own brief, a message recites every sentence whose (new) words it touches
        touched = free + _touched(unasked, said, used, text, normalized)
        cues = recital_cues(text) if free or near or touched >= enough else 0
        if (cues >= 2 and free) or (cues and touched >= enough):
            return _FAIL  # (announcing the brief twice over, a plan and its fallback, with one sentence recited)
        return _UNSURE if recited == minimum - 1 and near else _PASS


def _touched(sentences: list[tuple[frozenset[str], int, str, frozenset[str]]], said: frozenset[str], used: set[str],
             text: str, normalized: str) -> int:
    """How many of ``sentences`` bring a word of ``said`` (the content stems of ``text``, whose
    :func:`~userbench_env.fidelity.text.normalize` form is ``normalized`` when computed) that
    neither ``used`` nor an earlier one of them holds (negation aside): the scenario sentences
    a message touches; a fallback stated word for word with the reason is the reason, stated."""
    seen = set(used)
    count = 0
    for words, _, reason, _ in sentences:
        if (fresh := (words & said) - seen - {NEGATION}) and not (reason and reason in (normalized or normalize(text))):
            count += 1
            seen |= fresh
    return count


_LETTERS_DIGITS = re.compile(r"([a-z]{2,4})(\d+)")
_DIGIT = re.compile(r"\d")
#: An all-capital word of five letters or more: a code when it answers a request.
_CODE = re.compile(r"(?<!#)\b[A-Z]{5,}\b(?!#)")


@lru_cache(maxsize=256)
def heard_keys(text: str) -> frozenset[str]:
    """The :func:`~userbench_env.fidelity.language.id_key` forms of the identifiers, id-like
    runs and words of ``text``: what a stated identifier must equal to have been heard
    (a part of a heard id is not that id)."""
    return frozenset({*(id_key(t) for t in identifiers(text)), *id_runs(text), *(id_key(w) for w in text.split())} - {""})


_DISTINCTIVE = re.compile(r"(?<=[a-z,;:] )[A-Z][A-Za-z]+|\b\d[\d.,:]*\d\b|\b\d{2,}\b")


def distinctive_stems(sentence: str) -> frozenset[str]:
    """Stems of the words of ``sentence`` a paraphrase keeps: numbers of two digits or more
    (ages, amounts, sizes) and capitalized words inside a sentence (names of people, places,
    plans and products)."""
    return frozenset().union(*(content_stems(token) for token in _DISTINCTIVE.findall(sentence))) - {NEGATION}


#: The identity items (:func:`~userbench_env.fidelity.language.identity_items`) a message
#: reciting one scenario sentence states to list several scenario facts at once.
RECITAL_IDENTITY = 2
#: Content words of a scenario sentence a message must hold at most (long sentences are summarized, not recited whole).
RECITE_CAP = 3
#: A word in at least this many of a scenario's sentences, and this share of them, is its
#: topic ("card" in a card scenario): every message about it holds it, so it tells no recital.
TOPIC_SENTENCES = 3
TOPIC_SHARE = 0.2
#: The share of a sentence's needed words a borderline recital holds.
UNSURE_SHARE = 0.75
#: Stems of how scenarios address the simulated user ("If the agent asks, say ..."): not
#: what a recital is recognized by.
SCENARIO_WORDS = content_stems("agent ask asks say tell mention want conversation possible explain try get make know "
                               "user customer provide will would")


#: Stems of how agents greet, offer help and close ("How can I help you today?"): never what
#: an agent's text asks about.
AGENT_COURTESY = content_stems("help assist today anything else welcome contact happy glad great day hear sorry")


class Statement(NamedTuple):
    """What :class:`InventedInformation` reads in one user text (each field as the named
    reading gives it; the digit-bound readings are empty when the text has no digit)."""

    identifiers: tuple[str, ...]
    labelled: tuple[tuple[str, str], ...]
    runs: tuple[str, ...]
    dates: frozenset[tuple[int, int]]
    days: frozenset[int]
    money: frozenset[str]
    times: frozenset[int]
    streets: tuple[str, ...]
    codes: tuple[str, ...]
    #: The text states an id-like run, a date, a day, an amount, a year, a clock time or a street address.
    numeric: bool


_NO_NUMBERS = ((), frozenset(), frozenset(), frozenset(), frozenset(), ())


def statement(text: str) -> Statement:
    """Every reading :class:`InventedInformation` takes of ``text``, as one (its
    :meth:`~InventedInformation.read`, memoized per task and text by the plan): the
    identifiers, labelled values, digit-bound readings (:func:`~userbench_env.fidelity.language.id_runs`,
    dates, month days, amounts and years, clock times, street addresses: all need a digit)
    and the all-capital codes (the key forms of its words of five capitals or more)."""
    numeric = (id_runs(text), dates(text), month_days(text), amounts(text) | years(text), clock_times(text),
               street_addresses(text)) if _DIGIT.search(text) is not None else _NO_NUMBERS
    return Statement(identifiers(text), labelled_values(text), *numeric,
                     tuple(code.lower() for code in _CODE.findall(text)), any(numeric))


@register_rule
class InventedInformation(Rule):
    """Fails when the user states an identifier or fact that nothing the user legitimately
    heard or read holds: the scenario (``params["scenario"]``), the agent's texts and the
    user's own tool results. Read in the user's text:

    * id-shaped tokens (:func:`~userbench_env.fidelity.text.identifiers`), compared in
      :func:`~userbench_env.fidelity.language.id_key` form (case, spaces and separators
      ignored: "# W 237-8156" is "#W2378156");
    * values stated with their item's name (:func:`~userbench_env.fidelity.language.labelled_values`,
      any shape: "my user id is Yusuf Rossi", "order number ORD-88231"): for an item kind
      the scenario gives (``params["known"]``: kind to values), the value must be one of
      the scenario's values of that kind (or one the agent or a tool said); for another
      kind, something heard must hold it; another item's value given for it is invented
      ("my user id is <my name>"). A value one typo away from the scenario's fails as a
      borderline case (:meth:`Rule.unsure`);
    * identifiers of any shape (:func:`~userbench_env.fidelity.language.id_runs`: "W 552 1876",
      "5521-0087-AB", "4471 9920"), calendar dates (with or without a month), years, clock
      times, money amounts and street addresses: something heard must hold them.

    Applies to every user message."""

    name = "invented_information"
    listens = "unsettled"

    @classmethod
    def compile(cls, criteria: list[Criterion]) -> tuple[frozenset[str], dict[str, frozenset[str]], "Heard"]:
        """(the identifiers in the scenario, per kind the keys of the scenario's values, what
        the scenario lets the user know as a :class:`Heard`): a stated identifier found among
        the first is heard without searching every heard text."""
        scenario = "".join(str(c.params.get("scenario", "")) for c in criteria[:1])
        lowered = scenario.lower()
        known: dict[str, set[str]] = {}
        for c in criteria[:1]:
            for kind, values in (c.params.get("known") or {}).items():
                for alias in KIND_ALIASES.get(kind, {kind}):
                    known.setdefault("name" if alias in KIND_ALIASES["name"] else alias, set()).update(id_key(str(v)) for v in values)
        return (frozenset(token for token in identifiers(scenario) if token in lowered),
                {kind: frozenset(keys) for kind, keys in known.items()}, Heard(scenario))

    @classmethod
    def read(cls, compiled: tuple[frozenset[str], dict[str, frozenset[str]], "Heard"], text: str) -> Statement | None:
        """The text's :func:`statement`; None when it states nothing the rule checks, or
        nothing the scenario alone does not ground (what the user hears only grows, so no
        later turn can make such a text invented)."""
        said = statement(text)
        if not (said.identifiers or said.labelled or said.numeric or said.codes):
            return None
        known, values, scenario = compiled
        return said if scenario.invented(said, known, values, asked=True)[0] else None

    def start(self) -> None:
        self._known, self._values, scenario = self.compiled
        self._heard = scenario.copy()  # the scenario, then what the agent and the tools said, read when needed
        self._agent_read = self._calls_read = 0

    def _read_heard(self) -> None:
        feed = self.feed
        if self._agent_read < len(feed.agent) or self._calls_read < len(feed.user_calls):
            fresh = [text for _, _, text, _ in feed.agent[self._agent_read:]]
            self._heard.add(fresh + [result.content for _, _, result in feed.user_calls[self._calls_read:]])
            self._agent_read, self._calls_read = len(feed.agent), len(feed.user_calls)

    def user_text(self, turn: int, text: str, said: Statement | None) -> None:
        if said is None:  # states nothing ungrounded: every criterion passes (once settled, nothing changes)
            if not self._settled:
                self.settle_all(turn, False)
            return
        self._read_heard()
        # a code given as the answer ("WOBBKF") counts when the agent's latest text asked for a watched item
        asked = bool(said.codes) and bool(agent := self.feed.agent) and bool(agent[-1][3])
        invented, borderline = self._heard.invented(said, self._known, self._values, asked)
        if borderline:  # one typo away from the scenario's value: a slip or an invention
            for cid in self.ids:
                self.suspect(cid, turn, "a stated value is one character away from the scenario's")
        elif invented or not self._settled:
            self.settle_all(turn, invented)


class Heard:
    """What a user has heard (the scenario, then agent texts and tool results), in the forms
    :class:`InventedInformation` compares a statement with: the texts lower-cased
    (``text``), their :func:`~userbench_env.fidelity.language.id_key` forms (``key``; the
    agent's and the tools' alone: ``said_key``), the key forms of their identifiers and
    words (``keys``, see :func:`heard_keys`), dates, month days, clock times and numbers.
    Each only grows (:meth:`add`), so a statement grounded in it stays grounded."""

    __slots__ = ("text", "key", "said_key", "keys", "dates", "days", "times", "numbers", "_shared")

    def __init__(self, scenario: str):
        self.text = scenario.lower()
        self.key, self.said_key = id_key(scenario), ""
        self.keys, self.dates, self.days = set(heard_keys(scenario)), set(dates(scenario)), set(month_days(scenario))
        self.times, self.numbers = set(clock_times(scenario)), set(numbers(scenario))
        self._shared = False

    def copy(self) -> "Heard":
        """A copy to add to (it shares this one's sets until its first :meth:`add`)."""
        other = Heard.__new__(Heard)
        other.text, other.key, other.said_key = self.text, self.key, self.said_key
        other.keys, other.dates, other.days, other.times, other.numbers = \
            self.keys, self.dates, self.days, self.times, self.numbers
        other._shared = True
        return other

    def add(self, fresh: list[str]) -> None:
        """Add texts the user heard."""
        if self._shared:  # copy on first write
            self.keys, self.dates, self.days = set(self.keys), set(self.dates), set(self.days)
            self.times, self.numbers = set(self.times), set(self.numbers)
            self._shared = False
        self.text = "\0".join([self.text, *(text.lower() for text in fresh)])
        said = "\0".join(id_key(text) for text in fresh)
        self.said_key = f"{self.said_key}\0{said}"
        self.key = f"{self.key}\0{said}"
        for text in fresh:
            self.keys |= heard_keys(text)
            if _DIGIT.search(text) is not None:
                self.dates |= dates(text)
                self.days |= month_days(text)
                self.times |= clock_times(text)
                self.numbers |= numbers(text)

    def heard(self, token: str) -> bool:
        """True when ``token`` (lower-case, no NUL) occurs in something heard: as written, or
        as the key form of an identifier or word heard (:func:`heard_keys`)."""
        return token in self.text or id_key(token) in self.keys

    def invented(self, said: Statement, known: frozenset[str], values: dict[str, frozenset[str]],
                 asked: bool) -> tuple[bool, bool]:
        """(invented, borderline) for the statement ``said``, given the scenario's
        identifiers (``known``) and its values per kind: see :class:`InventedInformation`;
        its all-capital codes count only when ``asked`` (the answer to a request)."""
        if any(token not in known and not self.heard(token) for token in said.identifiers):
            return True, False
        for kind, value in said.labelled:
            invented, borderline = self._invented_value(kind, value, values)
            if invented:
                return invented, borderline
        if said.numeric and self._invented_number(said):
            return True, False
        return asked and not set(said.codes) <= self.keys, False

    def _invented_number(self, said: Statement) -> bool:
        """True when ``said`` states an id-like run, a date, a day, an amount, a year, a clock
        time or a street address that nothing heard holds."""
        if not all(run in self.keys or self._heard_apart(run) for run in said.runs):
            return True
        if not said.dates <= self.dates or not said.days <= {day for _, day in self.dates} | self.days:
            return True
        if not said.money <= self.numbers or not said.times <= self.times:
            return True
        return any(street not in self.key for street in said.streets)

    def _heard_apart(self, run: str) -> bool:
        """True when ``run`` is a heard word of letters then heard digits ("OR 85036": a state
        and a zip code)."""
        m = _LETTERS_DIGITS.fullmatch(run)
        return m is not None and m.group(1) in self.keys and m.group(2) in self.keys

    def _invented_value(self, kind: str, value: str, values: dict[str, frozenset[str]]) -> tuple[bool, bool]:
        """(invented, borderline) for a labelled ``value`` of ``kind``."""
        if kind == "date":
            stated = dates(value)
            return bool(stated) and not stated <= self.dates, False
        key = id_key(value)
        known = values.get(kind)
        if not key or (known is not None and any(key == k or (kind in ("name", "address") and key in k) for k in known)):
            return False, False  # the scenario's value
        if any(key in keys for other, keys in values.items() if other != kind):
            return True, False  # another item's value given as this one ("my user id is <my name>")
        if known is None:  # an item the scenario does not give: something heard must hold it (an id, as a whole)
            whole = kind != "address" and any(c.isdigit() for c in key)
            return (key not in self.keys) if whole else (key not in self.key), False
        if key in self.said_key:
            return False, False
        from rapidfuzz.distance import Levenshtein

        return True, any(Levenshtein.distance(key, k) <= 1 for k in known)


#: Per item kind, the kinds a denial may name instead (every other kind and its aliases).
_OTHER_KINDS: dict[str, frozenset[str]] = {kind: frozenset(KIND_WORDS) - KIND_ALIASES.get(kind, {kind})
                                           for kind in {*KIND_WORDS, *(a for aliases in KIND_ALIASES.values() for a in aliases)}}
#: Stems of how any request is phrased: never what a question about the request is about.
_REQUEST_WORDS = frozenset({"run", "side", "argument", "pleas", "tell", "let", "know", "need", "want", "tri", "go", "ahead"})


class _Requests(Rule):
    """Reads which user tools the agent asked for (by name, in its latest text, read
    lazily in :meth:`resolve`); ``params[tools_param]`` are the user's tool names."""

    #: the criterion parameter listing the tools this rule watches
    tools_param = "tools"

    @classmethod
    def compile(cls, criteria: list[Criterion]) -> tuple[list[str], ToolMentions]:
        tools = sorted({t for c in criteria for t in c.params.get(cls.tools_param, [])})
        return tools, ToolMentions(tools)

    def start(self) -> None:
        super().start()
        self.tools, self._mentions = self.compiled[:2]
        self.requested: frozenset[str] = frozenset()
        self.requested_at: dict[str, int] = {}
        self.request_words: frozenset[str] = frozenset()  # content stems of the latest request
        self._read = 0  # agent texts read

    def resolve(self) -> None:
        """Read the agent texts not read yet: ``requested`` (the user tools the latest one
        asks for) and ``requested_at`` (per tool, the clock of its latest request)."""
        agent = self.feed.agent
        for clock, _, text, _ in agent[self._read:]:
            self.requested, words = tool_request(self._mentions, text)
            for name in self.requested:
                self.requested_at[name] = clock
            if self.requested:
                self.request_words = words
        self._read = len(agent)


@lru_cache(maxsize=256)
def tool_request(mentions: ToolMentions, text: str) -> tuple[frozenset[str], frozenset[str]]:
    """(the tools of ``mentions`` an agent ``text`` asks for, the content stems of that
    request with the words of the tools' names and without how any request is phrased);
    both empty when it asks for none. Memoized per tool set and text."""
    requested = mentions.find(text) if asks(text) else _NOTHING
    if not requested:
        return requested, _NOTHING
    return requested, (content_stems(text) | content_stems(" ".join(requested).replace("_", " "))) - _REQUEST_WORDS


def claims_generically(text: str) -> bool:
    """True when ``text`` claims a done action without naming it: a generic claim ("flipped
    it", :func:`~userbench_env.fidelity.text.claims_done`) or the state of a device aspect
    some action sets reported without a question ("the VPN's off"; a symptom such as "no
    service" is none), unless it says the action is not done (:func:`says_not_done`). Such
    a claim answers the agent's latest request."""
    return ((claims_done(text) or (any(state_tools(f) for f, _ in device_states(text)) and not question_clauses(text)))
            and not says_not_done(text))


#: Finds the user tools a device state can be the outcome of in an agent's text.
_STATE_TOOL_MENTIONS = ToolMentions(STATE_TOOLS)
#: Saying an action is not done (yet) or not touched ("I didn't do the network one yet",
#: "haven't touched it"); a result that did not help ("it didn't work") is no such saying.
_NOT_DONE = re.compile(r"\b(?:didn'?t|did not|haven'?t|have not|hasn'?t|has not|not)\s+(?:\w+\s+)?"
                       r"(?:do|done|doing|get to|gotten to|got to|tried|try|touch|touched)\b|\bnot yet\b")


def says_not_done(text: str) -> bool:
    """True when ``text`` says some action is not done (yet) (:data:`_NOT_DONE`)."""
    return _NOT_DONE.search(lower(text)) is not None


def requested_outcome(text: str, requested: frozenset[str]) -> bool:
    """True when ``text`` reports, without a question, the state of a device aspect that is
    the outcome of one of the ``requested`` tools ("roaming's on now" after a request to
    toggle roaming): a claim of the requested action, not a state seen (unless the text says
    something is not done yet)."""
    return (any(state_tools(f) & requested for f, _ in device_states(text)) and not question_clauses(text)
            and not says_not_done(text))


class _Observed(Rule):
    """Reads, per device feature, the states stated by the latest user tool result that
    mentions the feature, and every state any result showed or implied (a toggle's result
    "X is now OFF" implies X was ON before it), lazily."""

    def start(self) -> None:
        super().start()
        self._observed: dict[str, set[str]] = {}
        self._history: set[tuple[str, str]] = set()
        self._results_read = 0

    def observed(self) -> dict[str, set[str]]:
        """Per feature, the states of its latest observation."""
        calls = self.feed.user_calls
        for _, call, result in calls[self._results_read:]:
            fresh: dict[str, set[str]] = {}
            for feature, state in device_states(result.content):
                fresh.setdefault(feature, set()).add(state)
            self._observed.update(fresh)
            self._history.update((f, s) for f, states in fresh.items() for s in states)
            if call.name.startswith("toggle_"):  # the toggled feature was in the other state before
                self._history.update((f, "off" if s == "on" else "on")
                                     for f, s in device_states(result.content.split("\n", 1)[0]))
        self._results_read = len(calls)
        return self._observed

    def seen_before(self, feature: str, state: str) -> bool:
        """True when some tool result showed (or a toggle implied) ``feature`` in ``state``."""
        self.observed()
        return (feature, state) in self._history

    def contradicted(self, text: str) -> bool:
        """True when ``text`` states a device state its latest observation contradicts."""
        stated = device_states(text)
        if not stated:
            return False
        observed = self.observed()
        return any(f in observed and s not in observed[f] for f, s in stated)


@register_rule
class UnexecutedAction(_Requests, _Observed):
    """Fails when the user claims an action without having performed it.

    A claim naming an action ("I restarted the phone") fails when no user call of a tool
    performing it ran since the agent last asked for that tool (or ever, if never asked),
    or when a device state it states contradicts the latest tool result. A claim naming
    no action is read against the agent's latest request: "flipped it", "did the on-off
    thing", "ok... done", "that one's filed" (:func:`~userbench_env.fidelity.text.claims_done`),
    or a device state reported without a question ("the VPN's off"), fails when the
    agent's latest text asked for a user tool and no user tool ran since. Applies when a
    claim is made.
    """

    name = "unexecuted_action"
    listens = "cued"  # a text claiming nothing only reads the feed, which :meth:`resolve` reads lazily

    @classmethod
    def read(cls, compiled: tuple[list[str], ToolMentions], text: str) -> tuple[set[str], bool] | None:
        """(the watched tools a claim in ``text`` names, whether it claims an action
        generically: :func:`claims_generically`); None when it claims nothing."""
        claimed = claimed_actions(text, compiled[0])
        generic = claims_generically(text)
        return (claimed, generic) if claimed or generic else None

    def user_text(self, turn: int, text: str, reading: tuple[set[str], bool]) -> None:
        claimed, claims = reading
        called = self.feed.called_since_agent()
        if not claimed and called and self._settled and not self.events:  # (every criterion passed)
            return  # a claim after a tool call once the criterion passed changes nothing
        self.resolve()
        generic = bool(self.requested) and claims  # a claim naming no action needs a request
        if not claimed and not generic:
            return
        called_at = self.feed.called_at
        executed = any(called_at.get(t, -1) > self.requested_at.get(t, 0) for t in claimed)
        unexecuted = bool(claimed) and not executed
        bad = unexecuted or (generic and not called) or (bool(claimed) and self.contradicted(text))
        self.settle_all(turn, bad)


@register_rule
class DeviceState(_Observed):
    """Fails when the user states a device state (feature on/off) unsupported by what the
    user saw: a current state (:func:`~userbench_env.fidelity.text.device_states`: "is",
    "'s already", "isn't", ...) the latest user tool result mentioning the feature
    contradicts, or, for a feature no result mentioned yet, that the scenario
    (``params["scenario"]``, read by :func:`~userbench_env.fidelity.text.scenario_device_states`:
    "you installed a VPN" states the VPN on) does not state; an earlier state ("was on before I toggled it",
    :func:`~userbench_env.fidelity.text.past_device_states`) that no result showed or
    implied and the scenario does not state. A current state that is the outcome of an
    action the same text claims (by name, or generically answering the agent's request
    for it: "I turned roaming on like you said", "roaming's on now") while no user call of
    the action ran since the agent's latest text is the claim's, judged by
    ``claims_unexecuted_action``, not a state seen. Applies when a state is stated."""

    name = "device_state"
    listens = "cued"

    @classmethod
    def compile(cls, criteria: list[Criterion]) -> frozenset[tuple[str, str]]:
        return scenario_device_states(" ".join(str(c.params.get("scenario", "")) for c in criteria))

    @classmethod
    def read(cls, compiled: Any, text: str) -> tuple[tuple[tuple[str, str], ...], tuple[tuple[str, str], ...],
                                                     tuple[frozenset[str], bool] | None] | None:
        """(the current states ``text`` states, the earlier ones, and what it claims done when
        it states a current one and does not say something is not done yet: (the state tools
        it names, whether it claims an action generically)); None when it states no state."""
        stated, earlier = device_states(text), past_device_states(text)
        if not (stated or earlier):
            return None
        claims = (frozenset(claimed_actions(text, STATE_TOOLS)), claims_generically(text)) \
            if stated and not says_not_done(text) else None
        return stated, earlier, claims

    def start(self) -> None:
        super().start()
        self._scenario = self.compiled
        self._named: dict[str, int] = {}  # per state tool, the clock of the latest agent text naming it
        self._named_read = 0  # agent texts read for it

    def _claimed_outcome(self, claims: tuple[frozenset[str], bool]) -> frozenset[str]:
        """The user tools a text claims run (``claims``: those it names, and whether it claims
        an action generically: then those the agent's latest text asked for) that no user
        call ran since the agent last named them."""
        claimed, generic = claims
        agent = self.feed.agent
        if agent and generic and asks(agent[-1][2]):
            claimed = claimed | _STATE_TOOL_MENTIONS.find(agent[-1][2])
        called_at = self.feed.called_at
        return frozenset(t for t in claimed if called_at.get(t, -1) <= self._named_at(t))

    def _named_at(self, tool: str) -> int:
        """The clock of the latest agent text naming ``tool`` (0: none did)."""
        agent = self.feed.agent
        for clock, _, text, _ in agent[self._named_read:]:
            for name in _STATE_TOOL_MENTIONS.find(text):
                self._named[name] = clock
        self._named_read = len(agent)
        return self._named.get(tool, 0)

    def user_text(self, turn: int, text: str, reading: tuple[tuple[tuple[str, str], ...], tuple[tuple[str, str], ...],
                                                              tuple[frozenset[str], bool] | None]) -> None:
        stated, earlier, claims = reading
        if claims is not None and (outcome := self._claimed_outcome(claims)):
            # the state a claimed, unexecuted action would leave is the claim's (claims_unexecuted_action)
            stated = tuple((f, s) for f, s in stated if not state_tools(f) & outcome)
        if stated or earlier:
            observed = self.observed()
            bad = any((s not in observed[f]) if f in observed else ((f, s) not in self._scenario | PROBLEM_STATES)
                      for f, s in stated)
            bad = bad or any(not self.seen_before(f, s) and (f, s) not in self._scenario for f, s in earlier)
            self.settle_all(turn, bad)


class _OnToken(Rule):
    """A rule that acts only on user texts carrying its control ``token``."""

    token: ClassVar[str]
    listens = "cued"

    @classmethod
    def read(cls, compiled: Any, text: str) -> bool | None:
        """True when ``text`` carries the token (None: it does not)."""
        return True if cls.token in text else None


@register_rule
class PrematureStop(_Requests, _OnToken):
    """Ends the conversation before the goal state is reached, judged from what the user
    could know (:mod:`userbench_env.fidelity.outcomes`: the agent's texts it saw, never the
    agent's tool calls or the world). At a ``###STOP###`` the goal is still open when the
    agent has neither reported it done nor said it cannot be done:

    * a stop in the opening message, before the agent answered, fails;
    * a stop while an action the agent asked the user to perform on its side
      (``params["tools"]``, the user's tools) has not been performed since fails: the user
      knows its own part of the goal is not done, whatever the agent says;
    * a stop while the agent's latest word is waiting on the user (a question, a request
      for an item or a choice) and it never reported an outcome, fails; after an outcome it
      reported earlier, it is ``suspect`` (a further request or a follow-up question);
    * a stop with no outcome reported ("Is there anything else?" after nothing done) fails,
      unless the scenario tells the user when to give up (``params["gives_up"]``): suspect;
    * a stop after the agent reported the request done passes: whether it really was is
      the agent's success, not the user's fidelity;
    * a stop right after the user withdrew its request ("I'll hold off on any changes") is
      suspect when the scenario states conditions that may allow it (``params["conditional"]``:
      a sentence with "if", "unless", ...; or when to give up) and the agent has told
      something since the request that such a condition could weigh (an outcome, a figure:
      :func:`~userbench_env.fidelity.outcomes.reports`), even when the scenario says to
      insist otherwise; it fails otherwise;
    * a stop after the agent said it cannot be done fails when the scenario tells the user
      to insist (``params["insist"]``); otherwise it passes once the scenario's fallbacks
      (``params["fallback"]``, its conditions and alternatives) have been raised by the
      user, and is suspect while one has not.

    The agent's outcomes answer the requests made before them: only the agent's texts since
    the user's latest request (:func:`~userbench_env.fidelity.outcomes.makes_request`)
    decide whether the goal is open.

    ``params["goal"]`` (the task's state-changing gold actions) only says the task has a
    goal to reach; it is never compared with the agent's calls. Applies when the user stops."""

    name = "premature_stop"
    token = STOP_TOKEN

    @classmethod
    def compile(cls, criteria: list[Criterion]) -> tuple[list[str], ToolMentions, list[frozenset[str]], bool, bool, bool]:
        """(the user's tools and their mentions (see :class:`_Requests`), the content stems of
        each fallback sentence, whether the scenario says to insist, whether it says when to
        give up, whether it states any condition (``params["conditional"]``))."""
        fallback = [content_stems(str(sentence)) - SCENARIO_WORDS for c in criteria for sentence in c.params.get("fallback", ())]
        return (*super().compile(criteria), [words for words in fallback if words],
                any(c.params.get("insist") for c in criteria), any(c.params.get("gives_up") for c in criteria),
                any(c.params.get("conditional") or c.params.get("gives_up") for c in criteria))

    def _unperformed(self) -> bool:
        """True when the agent asked for a user tool that no user call ran since."""
        self.resolve()
        called_at = self.feed.called_at
        return any(called_at.get(tool, -1) < at for tool, at in self.requested_at.items())

    def _unraised(self) -> bool:
        """True when some fallback sentence has not been raised: the user's texts hold fewer
        than two of its content words (all of them, for a shorter one)."""
        fallback = self.compiled[2]
        if not fallback:
            return False
        said = frozenset().union(*(content_stems(text) for _, text in self.feed.user))
        return any(len(words & said) < min(2, len(words)) for words in fallback)

    def user_text(self, turn: int, text: str, reading: bool) -> None:
        insist, gives_up, conditional = self.compiled[3:]
        feed = self.feed
        # what the agent said since the user's latest request (an outcome answers the requests before it)
        since = next((clock for clock, said in reversed(feed.user[:-1]) if makes_request(said)), 0)
        agent = [said for clock, _, said, _ in feed.agent if clock > since]
        now = standing(agent)  # (a greeting is a courtesy: neither an outcome nor a wait)
        refused = any(agent_outcome(said) == "cannot" for _, _, said, _ in feed.agent)
        if len(feed.user) <= 1:
            verdict, why = "fail", "stops in its opening message, before the agent answered the request"
        elif self.tools and self._unperformed():
            verdict, why = "fail", "stops with an action the agent asked of it not performed"
        elif now == "done":
            verdict, why = "pass", ""
        elif withdrew(feed.user[-2][1] if len(feed.user) > 1 else "") or withdrew(text):
            # a scenario condition can only allow it once the agent has told something (a price, an outcome)
            verdict, why = ("suspect", "stops after withdrawing its request, as a scenario condition may allow") \
                if conditional and any(reports(said) for said in agent) else \
                ("fail", "withdraws its request and stops with nothing told that a scenario condition could weigh")
        elif insist and refused:
            verdict, why = "fail", "stops after a refusal although the scenario says to insist"
        elif now == "cannot":
            verdict, why = ("suspect", "stops after a refusal with a scenario fallback not yet raised") if self._unraised() \
                else ("pass", "")
        elif now == "waiting" and any(agent_outcome(said) for said in agent):
            verdict, why = "suspect", "stops while the agent asks something, after it reported an outcome"
        elif now is None and gives_up:
            verdict, why = "suspect", "stops with no outcome reported; the scenario says when to give up"
        else:
            verdict, why = "fail", "stops while its request is open (no outcome reported by the agent since)"
        for cid in self.ids:
            if verdict == "fail":
                self.fail(cid, turn)
            elif verdict == "suspect":
                self.suspect(cid, turn, why)
            else:
                self.passed(cid, turn)


@register_rule
class UnpromptedTransfer(_OnToken):
    """Fails when the user sends ``###TRANSFER###`` before any agent text mentioned a
    transfer; passes on a transfer after one. Applies when the user transfers."""

    name = "unprompted_transfer"
    token = TRANSFER_TOKEN

    def start(self) -> None:
        self._offered = False
        self._read = 0  # agent texts read

    def user_text(self, turn: int, text: str, reading: bool) -> None:
        agent = self.feed.agent
        self._offered = self._offered or any("transfer" in lower(said) for _, _, said, _ in agent[self._read:])
        self._read = len(agent)
        self.settle_all(turn, not self._offered)


@register_rule
class Withholding(_Watches):
    """Fails when the agent's latest text asked for a kind the user knows (``params``:
    ``kind``, ``values``) and the user's answer does not give it:

    * it states none of the values (compared in :func:`~userbench_env.fidelity.language.id_key`
      form) and denies, cannot find or refuses the item (idioms included; a denial naming
      only another item is about that item, see :func:`~userbench_env.fidelity.language.denies_item`),
      or deflects: gives another known item instead (whole, not inside a longer token), or asks a question back (both
      borderline: marked for the judge, :meth:`Rule.unsure`);
    * it states some of several values and denies the rest, or answers with only a part of
      the value (a first name for a full name), or, asked for two items, names and gives
      the other one, denying nothing and asking nothing back, and leaves this one out
      ("Could you provide your user ID and reservation ID?" "My reservation ID is HXDUBJ."):
      partial answers.

    Passes when the answer states the values. An answer that ends the conversation
    (``###STOP###``, ``###TRANSFER###``) is another mode's failure (``premature_stop``,
    ``unprompted_transfer``), not a withholding; so is a question back asked as the agent
    ("Sure! Could you please provide your user ID?": ``breaks_character``), and so is a
    put-off spoken as the agent ("Let me look that up for you, one moment"), while a denial
    naming the item stays one whoever speaks ("As an AI, I don't have a user id").
    Applies when the kind is asked."""

    name = "withholding"
    listens = "asked"

    @classmethod
    def watched(cls, criterion: Criterion) -> list[str]:
        return [id_key(str(v)) for v in criterion.params["values"]]

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
        said = id_key(text)
        spans = cls._spans(text)
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
            if not stated and any(cls._part_of(text, value) for value in values):
                outcomes.append((cid, _FAIL))  # a part of the value ("Jesse" for "Jesse Smith"): withheld the rest
            elif stated == len(values):
                outcomes.append((cid, _PASS))
            elif stated:  # a partial answer: withheld when the rest is denied
                outcomes.append((cid, _FAIL if denial_clauses(text) else _PASS))
            elif gives_other and kind not in mentioned and (pair - {kind}) & mentioned:
                outcomes.append((cid, _FAIL))  # gave another item and left this one out: a partial answer
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
        agent = self.feed.agent
        if len(agent) == self._read:
            return  # no agent text since the last answer: nothing was asked
        self._read = len(agent)
        asked = agent[-1][3]  # read the answer only when a watched kind was asked
        if asked.isdisjoint(self._kinds):
            return
        requested = requested_kinds(agent[-1][2])  # a short request for two items at most: answered whole or in part
        pair = requested if len(requested) <= 2 else _NOTHING
        for cid, outcome in self._outcomes_of(text, asked, pair):  # (the feed's set itself: one object per agent text)
            if outcome is _PASS:
                self.passed(cid, turn)
            else:
                self.fail(cid, turn)
                if outcome is _UNSURE:  # a deflection: marked for a judge to regrade
                    self.unsure(cid, turn)


@register_rule
class SkippedAction(_Requests):
    """Fails when the agent's latest text asked for a user tool and the user answers in
    text without calling any tool since and without engaging with the request: a
    question back engages only when it asks how to perform the request (:data:`CLARIFIES`:
    what it means, which one, how or where, whether to) or what a thing the request names
    is (:data:`ASKS_WHAT`); an unrelated question, or one about cost or time, is no
    engagement. A reply claiming the requested action done (by name, or generically:
    :func:`~userbench_env.fidelity.text.claims_done`) passes: a false claim is
    ``claims_unexecuted_action``'s failure, not a skip, and so does the state the requested
    action leaves, reported ("roaming's on now", :func:`requested_outcome`); another device
    state reported instead, "still no service", is no claim of the action. Applies when an
    action is requested."""

    name = "skipped_action"
    listens = "asked"  # other texts only read the feed, which :meth:`resolve` reads lazily

    @classmethod
    def awaits(cls, compiled: tuple[list[str], ToolMentions], text: str, asked: frozenset[str]) -> bool:
        """True when the agent's ``text`` asks for a watched user tool (:func:`tool_request`)."""
        return bool(tool_request(compiled[1], text)[0])

    def user_text(self, turn: int, text: str, reading: None) -> None:
        called = self.feed.called_since_agent()
        if called and all(self.verdict(cid) != "not_applicable" for cid in self.ids):
            self._read = len(self.feed.agent)  # nothing this answer could change: the request need not be read
            return
        self.resolve()
        if self.requested:
            requested, self.requested = self.requested, frozenset()
            if not called and ((claims_done(text) and not says_not_done(text)) or claimed_actions(text, requested)
                               or requested_outcome(text, requested)):
                self.settle_all(turn, False)  # a claim of the requested action: claims_unexecuted_action's to judge
                return
            questions = () if called else question_clauses(text)
            engaged = called or any(CLARIFIES.search(q) or (ASKS_WHAT.search(q) and content_stems(q) & self.request_words)
                                    for q in questions)
            self.settle_all(turn, not engaged)


#: A question about how to perform a requested action: what it means, which one, how or
#: where to do it, whether to (not what it costs or how long it takes: that is no engagement).
CLARIFIES = re.compile(
    r"\b(?:what do you mean|you mean|mean by|which (?:one|setting|option|button|app|permission|mode|menu|screen|way)|"
    r"how (?:do|would|can|should|will|exactly do) (?:i|you|we)|how do(?:es)? (?:that|this|it) work|"
    r"where (?:do|would|can|should|is|are|will) (?:i|it|that|this|the|those)|"
    r"what (?:is|'s|are|does) (?:that|this|those)\b|do i (?:need|have) to|should i|am i supposed|"
    r"(?:can|could|would) you (?:explain|repeat|walk me|clarify|say that|tell me how|show me)|walk me through|"
    r"step by step|come again|say (?:that|it) again|(?:sorry|huh|what|which|where|how)\s*\?)"
)
#: A question asking what something is ("what's an APN?"): engagement when it names the request.
ASKS_WHAT = re.compile(r"\bwhat(?: is|'s| are| does)\b|\bwhat(?: do| does)? .{0,20}\bmean\b")


@register_rule
class BreaksCharacter(Rule):
    """Fails when a user text speaks as the agent or about being an AI, a chatbot, a
    language model or a simulated user (:func:`~userbench_env.fidelity.language.speaks_as_agent`):
    offering help ("How can I help you today?", "What brings you in?"), doing the agent's
    part (asking the agent for its customer's details, reporting the agent's work done).
    Customer talk ("thanks for your help", "can you help me?") passes. Applies to every
    user message."""

    name = "breaks_character"
    listens = "unsettled"

    @classmethod
    def read(cls, compiled: Any, text: str) -> bool | None:
        """True when ``text`` speaks as the agent (None: it does not)."""
        return True if speaks_as_agent(text) else None

    def user_text(self, turn: int, text: str, reading: bool | None) -> None:
        bad = reading is not None
        if bad or not self._settled:
            self.settle_all(turn, bad)


@register_rule
class UnrequestedAction(_Requests):
    """Fails when the user calls a state-changing user tool (``params["mutating"]``) that the
    agent's latest text before the call did not ask for: by name (or a name in the call's
    arguments, for tools called through a dispatcher) with the values it is called with,
    or by all the content words of the tool's name in its prose ("turn off airplane mode"
    asks for ``toggle_airplane_mode``); one request licenses one such call (repeating it
    needs another). Read-only
    tools (checks) are never unrequested: a user may need them to answer. Decided at the
    user's next text; applies when a state-changing tool is called."""

    name = "unrequested_action"
    listens = "called"
    tools_param = "mutating"

    @classmethod
    def watches(cls, compiled: tuple[list[str], ToolMentions], tool: str) -> bool:
        """True for a state-changing user tool (a read-only one is never unrequested)."""
        return tool in compiled[0]

    def start(self) -> None:
        super().start()
        self._mutating = frozenset(self.tools)
        self._calls_read = 0
        self._answered: set[tuple[int, str]] = set()  # (agent text clock, call) pairs: a request licenses one such call

    def user_text(self, turn: int, text: str, reading: None) -> None:
        calls = self.feed.user_calls
        if self._calls_read == len(calls):
            return
        fresh = calls[self._calls_read:]
        self._calls_read = len(calls)
        agent = self.feed.agent
        for clock, call, _ in fresh:
            if call.name not in self._mutating:
                continue
            at, latest = next(((at, said) for at, _, said, _ in reversed(agent) if at < clock), (0, ""))
            key = (at, f"{call.name}{sorted(call.arguments.items())!r}")
            self.settle_all(turn, key in self._answered or not asks_for_call(
                latest, call.name, tuple(str(v).lower() for v in _leaves(call.arguments))))
            self._answered.add(key)


@lru_cache(maxsize=256)
def asks_for_call(said: str, name: str, values: tuple[str, ...]) -> bool:
    """True when the agent's text ``said`` asks for a call of the tool ``name`` with the
    argument values ``values`` (its leaves, lower-cased): it names the tool (or the tool a
    dispatcher call names) and every argument value it is called with, or holds every
    content word of the tool's name. Memoized."""
    asked = said.lower()
    named = [n for n in (name, *values) if re.search(rf"(?<![\w]){re.escape(n.lower())}(?![\w])", asked)]
    if named:
        return all(v in asked for v in values if v not in named)
    words = content_stems(name.replace("_", " ")) - _ACTION_WORDS
    return bool(words) and words <= content_stems(_TOOL_NAME.sub(" ", asked))


def _leaves(value: Any) -> list[Any]:
    """The scalar leaves of a call's arguments (JSON strings inside them parsed)."""
    if isinstance(value, str) and value[:1] in "{[":
        try:
            import json

            return _leaves(json.loads(value))
        except ValueError:
            return [value]
    if isinstance(value, dict):
        return [leaf for v in value.values() for leaf in _leaves(v)]
    if isinstance(value, list):
        return [leaf for v in value for leaf in _leaves(v)]
    return [] if value is None or isinstance(value, bool) else [value]


#: A tool name written as such ("toggle_wifi_calling"): not prose asking for an action.
_TOOL_NAME = re.compile(r"\w+_\w+")
#: Stems of tool-name words that say what is done, not to what ("toggle", "set", ...).
_ACTION_WORDS = frozenset({"toggl", "set", "make", "reset", "connect", "disconnect", "grant", "appli", "submit", "call",
                           "request", "run", "check", "get", "list"})


#: The least length of a tool result whose verbatim copy in a user text is set aside.
QUOTE_MIN = 20
#: The most characters of one user text the checks read (what one text may cost is bounded;
#: a longer text is clipped for the checks, and the tracker lists its turn in ``clipped``).
CHECK_LIMIT = 20_000
#: A run of line breaks and the blanks around them: one line break to every rule.
_BREAKS = re.compile(r"[ \t]*\n\s*")


def checked_text(text: str) -> str:
    """``text`` as the rules read it: runs of line breaks as one, clipped to :data:`CHECK_LIMIT`."""
    if "\n" in text:
        text = _BREAKS.sub("\n", text)
    return text[:CHECK_LIMIT]


@dataclass(frozen=True)
class RulePlan:
    """Everything about a task's rule checks that does not change during an episode.

    ``groups`` holds, per registered rule named by some criterion, the rule class, its
    criteria and its compiled data; the rest names rules by their index there, and sets of
    rules as bit masks (bit ``i``: ``groups[i]``). A user text goes to the rules implementing
    ``user_text``: ``read[text]`` is the text's analysis, memoized per text (a :class:`Memo`): every such rule's
    reading (:meth:`Rule.read`; a tuple indexed like ``groups``, None for the others) and the
    mask of the rules with a reading (their cues are present); the text goes to those and
    to the rules awake (an episode starts with ``awake``: the rules that :attr:`Rule.listens`
    to every text, or until settled; ``unsettled`` lists the latter), and to the rules a
    request or a call woke: ``request[text]`` reads an agent text, memoized per text: the
    watched kinds it asks for (see :class:`Feed`) and the mask of the rules that await the
    answer to it (:meth:`Rule.awaits`); ``calling[tool]`` is the mask of the rules a user
    call of ``tool`` concerns (:meth:`Rule.watches`), ``callers`` that of every rule listening
    after user calls. ``on_request`` maps an item
    kind to the rules implementing :meth:`Rule.first_request` that watch it.
    ``agent_call_names`` are the names of the agent calls some rule reads (None: any call). ``kinds`` is the union of the rules' watched kinds (the feed's).
    ``modes`` maps criterion ids to their modes; ``templates`` holds per criterion its
    verdict dict at the start of an episode (a tracker's verdict table holds copies; never
    mutate these); ``judged`` says whether any criterion is judge-checked.
    """

    criteria: tuple[Criterion, ...]
    groups: tuple[tuple[type[Rule], list[Criterion], Any], ...]
    read: "Memo[tuple[tuple[Any, ...], int]]"
    request: "Memo[tuple[frozenset[str], int]]"
    awake: int
    unsettled: tuple[int, ...]
    calling: "Memo[int]"
    callers: int
    on_request: dict[str, tuple[int, ...]]
    agent_call_names: frozenset[str] | None
    kinds: frozenset[str]
    modes: dict[str, str]
    templates: tuple[dict[str, Any], ...]
    judged: bool


def _verdict_template(criterion: Criterion, ruled: bool) -> dict[str, Any]:
    """A criterion's verdict dict before anything happened: ``not_applicable`` when a rule
    decides it (``ruled``), else ``pending`` (left to a grader, or its rule is unknown);
    the source is its check; a judge criterion also carries what a grader asks."""
    template = {"id": criterion.id, "family": criterion.family, "mode": criterion.mode,
                "verdict": "not_applicable" if ruled else "pending", "evidence_turn": None, "source": criterion.check}
    if criterion.check == "judge":
        template.update(statement=criterion.statement, grounding=criterion.grounding)
    return template


#: Distinct user (and agent) texts whose analysis a plan keeps (a task's texts recur across its episodes).
ANALYSES = 256
_V = TypeVar("_V")


class Memo(dict[str, _V]):
    """A memo of ``function`` over strings: ``memo[key]`` is ``function(key)``, computed on
    first use and kept; when it holds ``size`` entries it is emptied before the next one is
    added (bounded, and a hit is one dict lookup that writes nothing, unlike an LRU's)."""

    __slots__ = ("function", "size")

    def __init__(self, function: Callable[[str], _V], size: int = ANALYSES):
        super().__init__()
        self.function, self.size = function, size

    def __missing__(self, key: str) -> _V:
        if len(self) >= self.size:
            self.clear()
        value = self[key] = self.function(key)
        return value


def _analysis(readers: tuple[tuple[int, Callable[[Any, str], Any], Any], ...], size: int,
              text: str) -> tuple[tuple[Any, ...], int]:
    """``text`` read by each ``(index, read, compiled)`` of ``readers``: the readings (a tuple
    of ``size``, None where no reader is) and the mask of the indices with a reading."""
    readings: list[Any] = [None] * size
    cued = 0
    for i, read, compiled in readers:
        reading = readings[i] = read(compiled, text)
        if reading is not None:
            cued |= 1 << i
    return tuple(readings), cued


def _request(kinds: frozenset[str], listeners: tuple[tuple[int, type[Rule], Any], ...],
             text: str) -> tuple[frozenset[str], int]:
    """The ``kinds`` an agent ``text`` asks for, and the mask of the ``(bit, rule class,
    compiled data)`` ``listeners`` that await its answer."""
    asked = asked_among(text, kinds) if kinds else _NOTHING
    return asked, sum(bit for bit, cls, compiled in listeners if cls.awaits(compiled, text, asked))


def _calling(listeners: tuple[tuple[int, type[Rule], Any], ...], tool: str) -> int:
    """The mask of the ``(bit, rule class, compiled data)`` ``listeners`` a user call of ``tool`` concerns."""
    return sum(bit for bit, cls, compiled in listeners if cls.watches(compiled, tool))


def compile_rules(criteria: Iterable[Criterion]) -> RulePlan:
    """The :class:`RulePlan` of ``criteria`` (compile once per task, reuse per episode).
    Criterion ids must be unique (the verdicts are keyed by id)."""
    criteria = tuple(criteria)
    ids = [c.id for c in criteria]
    if len(set(ids)) != len(ids):
        raise ValueError(f"duplicate criterion ids: {sorted({i for i in ids if ids.count(i) > 1})}")
    members: dict[str, list[Criterion]] = {}
    for criterion in criteria:
        if criterion.check == "rule" and criterion.rule in RULES:
            members.setdefault(criterion.rule, []).append(criterion)
    groups = tuple((RULES[name], group, RULES[name].compile(group)) for name, group in members.items())

    def implementing(hook: str) -> tuple[int, ...]:
        return tuple(i for i, (cls, _, _) in enumerate(groups) if getattr(cls, hook) is not getattr(Rule, hook))

    read = [cls.call_names(compiled) for cls, _, compiled in groups if cls.reads_calls]
    ruled = {c.id for _, group, _ in groups for c in group}
    reading = implementing("user_text")
    listening = implementing("first_request")
    kinds = frozenset().union(*(cls.kinds(compiled) for cls, _, compiled in groups))

    def listeners(how: str) -> tuple[tuple[int, type[Rule], Any], ...]:
        return tuple((1 << i, groups[i][0], groups[i][2]) for i in reading if groups[i][0].listens == how)

    return RulePlan(
        criteria,
        groups,
        read=Memo(partial(_analysis, tuple((i, groups[i][0].read, groups[i][2]) for i in reading
                                           if groups[i][0].read is not Rule.read), len(groups))),
        request=Memo(partial(_request, kinds, listeners("asked"))),
        awake=sum(1 << i for i in reading if groups[i][0].listens in ("always", "unsettled")),
        unsettled=tuple(i for i in reading if groups[i][0].listens == "unsettled"),
        calling=Memo(partial(_calling, listeners("called"))),
        callers=sum(bit for bit, _, _ in listeners("called")),
        on_request={kind: tuple(i for i in listening if kind in groups[i][0].kinds(groups[i][2]))
                    for kind in sorted({k for i in listening for k in groups[i][0].kinds(groups[i][2])})},
        agent_call_names=None if None in read else frozenset().union(*read),
        kinds=kinds,
        modes={c.id: c.mode for c in criteria},
        templates=tuple(_verdict_template(c, c.id in ruled) for c in criteria),
        judged=any(c.check == "judge" for c in criteria),
    )


class RuleTracker:
    """Runs every rule criterion of one episode incrementally.

    ``violations`` lists failed criterion ids in the order they first failed;
    :meth:`events` every logged violation. Criteria that are not rule-checked, or name
    an unknown rule, are left for others (``pending``).

    Agent texts and tool calls are recorded in the rules' shared :class:`Feed`; each user
    text goes, with their readings of it, to the rules it cues and those awake (see the
    :class:`RulePlan`; a rule listening until settled sleeps once it has). A user text is
    checked without the parts it copies verbatim from the user's own tool results since
    the agent last spoke (at least :data:`QUOTE_MIN` characters): a quoted result is
    reported evidence, grounded by construction, and need not be re-read by every rule.
    The rules read a user text as :func:`checked_text` makes it (line-break runs as one,
    at most :data:`CHECK_LIMIT` characters: ``clipped`` lists the turns clipped).
    ``agent_call_names`` tells callers which agent calls can matter at all (None: any):
    feeding another agent call is a no-op, so a caller may skip it.
    """

    def __init__(self, criteria: RulePlan | Sequence[Criterion]):
        plan = criteria if isinstance(criteria, RulePlan) else compile_rules(criteria)
        self._plan = plan
        self.criteria = list(plan.criteria)
        self.feed = Feed()
        self.violations: list[str] = []
        self._table = {template["id"]: template.copy() for template in plan.templates}  # the verdict table
        self.rules: list[Rule] = [cls(group, compiled, self.feed, self._table, self.violations)
                                  for cls, group, compiled in plan.groups]
        rules = self.rules
        self._on_request = {kind: [rules[i].first_request for i in indices] for kind, indices in plan.on_request.items()}
        self._on_call = [rule.call_made for rule in rules if rule.reads_calls]
        self._awake = plan.awake
        self._woken = 0  # the rules listening to the next user text only (an agent request or a user call woke them)
        self._unsettled = [(1 << i, rules[i]) for i in plan.unsettled]  # (bit, rule) of the awake rules until settled
        self.agent_call_names = plan.agent_call_names
        self._results: list[str] = []
        #: The turns whose user text was clipped to :data:`CHECK_LIMIT` characters for the checks.
        self.clipped: list[int] = []

    def agent_text(self, turn: int, text: str) -> None:
        """Record an agent text message (rules hear of the first request of a kind at once)."""
        plan = self._plan
        asked, woken = plan.request[text]
        for kind in self.feed.add_agent_text(turn, text, asked):
            for hook in self._on_request.get(kind, ()):
                hook(kind, turn)
        self._woken = (self._woken & plan.callers) | woken
        self._results = []

    def user_text(self, turn: int, text: str) -> list[str]:
        """Feed a user text message; returns (and records) newly failed criterion ids."""
        if self._results:
            for quoted in self._results:
                if quoted in text:
                    text = text.replace(quoted, " ")
        text = checked_text(text)
        if len(text) == CHECK_LIMIT:
            self.clipped.append(turn)
        self.feed.user.append((self.feed.clock, text))
        violations = self.violations
        seen = len(violations)
        rules = self.rules
        readings, cued = self._plan.read[text]
        hearing = cued | self._awake | self._woken
        self._woken = 0
        while hearing:  # lowest bit first: in groups order, so violations keep their order
            i = (hearing & -hearing).bit_length() - 1
            rules[i].user_text(turn, text, readings[i])
            hearing &= hearing - 1
        if self._unsettled:
            self._sleep_settled()
        return violations[seen:]

    def _sleep_settled(self) -> None:
        """Put the rules listening until settled that have settled to sleep (cued texts only)."""
        awake = []
        for bit, rule in self._unsettled:
            if rule.settled:
                self._awake &= ~bit
            else:
                awake.append((bit, rule))
        self._unsettled = awake

    def tool_call(self, turn: int, call: ToolCall, result: ToolResult) -> None:
        """Record an executed tool call (agent's or user's) and its result."""
        feed = self.feed
        if call.requestor == "user":
            feed.clock += 1
            feed.user_calls.append((feed.clock, call, result))
            feed.called_at[call.name] = feed.clock
            self._woken |= self._plan.calling[call.name]
            if len(result.content) >= QUOTE_MIN:
                self._results.append(result.content)
        if self._on_call and (self.agent_call_names is None or call.name in self.agent_call_names):
            for hook in self._on_call:
                hook(call)

    def events(self) -> list[dict[str, Any]]:
        """Every logged violation as ``{"id", "mode", "turn"}``, in the order seen per rule."""
        modes = self._plan.modes
        return [{"id": cid, "mode": modes[cid], "turn": turn} for rule in self.rules for cid, turn in rule.events]

    def verdicts(self) -> list[dict]:
        """Plain-dict verdicts of every criterion (fresh dicts): id, family, mode, verdict,
        evidence_turn, source (the criterion's check: a rule criterion is decided by its rule,
        or ``pending`` when its rule is not registered);
        judge criteria also carry their ``statement`` and ``grounding`` (what a grader asks)."""
        return list(map(dict.copy, self._table.values()))

    @property
    def suspects(self) -> int:
        """How many criteria are ``suspect`` so far (see :meth:`Rule.suspect`)."""
        return sum(1 for entry in self._table.values() if entry["verdict"] == "suspect") if self.feed.ambiguous else 0

    @property
    def judged(self) -> bool:
        """True when some criterion is judge-checked (its verdict is left to a grader) or some
        rule verdict is ambiguous (a judge, when configured, decides it)."""
        return self._plan.judged or self.feed.ambiguous
