"""What every rule shares: the episode's :class:`Feed`, the :class:`Rule` base class (verdicts,
suspects, settling), the registry (:data:`RULES`, :func:`register_rule`) and the per-kind
watching base.
"""
from __future__ import annotations

import re

from typing import Any, ClassVar, Literal

from userbench_env.core.messages import ToolCall, ToolResult
from userbench_env.core.rubric import Criterion


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
    #: True for a rule that decides only from texts its :meth:`read` finds cues in: the
    #: tracker does not hand it a text whose reading is None. Every other rule hears every
    #: user text (reading None or not) and reads the feed itself.
    cued: ClassVar[bool] = False
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
    def read(cls, compiled: Any, text: str) -> Any:
        """The rule's reading of a user ``text``, given its compiled data: a pure function of
        both, handed to :meth:`user_text`; None when the text holds none of the rule's cues
        (see :attr:`cued`). Default: None (the rule reads no cues: it reads texts itself)."""
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


_PASS, _FAIL, _UNSURE = "pass", "fail", "unsure"


#: A sentence of a user text (linear: one pass).
_SENTENCES = re.compile(r"[^.!?\n]+")
