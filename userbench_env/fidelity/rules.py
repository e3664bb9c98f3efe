"""Incremental rule checks: deterministic fidelity criteria evaluated as the episode runs.

A rule is a class registered under the name criteria use in their ``rule`` field. The
env feeds a :class:`RuleTracker` every agent text, every user text and every executed
tool call (agent's or user's, with its result) as they happen. The tracker records
agent texts and tool calls once, in a :class:`Feed` its rules share, and hands every
user text to the rules: a rule reads the part of the feed it has not read yet when a
user text needs it (most user texts need none of it). Rules keep O(criteria) state and
do a few substring/regex tests per user text (microseconds).

Each rule sets a criterion's :class:`Outcome` (first failure wins and is final; a pass
may be revised into a failure) and logs every violation it sees in ``events`` as
``(criterion id, turn)``, so a later violation of an already-failed criterion is still
visible to the validation of the checkers. A rule whose outcomes depend on the feed
alone (an agent request passes a criterion) brings them up to date in :meth:`Rule.catch_up`,
which the tracker calls before it reports outcomes.

Whatever a rule derives from its criteria alone (compiled patterns, parsed gold actions,
gates) is computed once per task by :meth:`Rule.compile` and shared, read-only, by every
episode through a :class:`RulePlan`; an episode's tracker only allocates the rules'
mutable state. Envs cache the plan per task (:func:`compile_rules`).

To add a rule: subclass :class:`Rule`, set ``name``, implement ``user_text`` (and
``compile`` for per-task data, ``catch_up`` when the feed alone decides outcomes),
decorate with :func:`register_rule`. Criteria naming an unregistered rule are reported
``pending``.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from userbench_env.core.messages import ToolCall, ToolResult
from userbench_env.core.rubric import Criterion
from userbench_env.fidelity.text import (
    ToolMentions,
    asked_among,
    asks,
    claimed_actions,
    claims_done,
    denies,
    device_states,
    identifiers,
    lowered as lower,
    normalize,
)

Verdict = Literal["pass", "fail", "not_applicable", "pending", "error"]

STOP_TOKEN = "###STOP###"
TRANSFER_TOKEN = "###TRANSFER###"


@dataclass(slots=True)
class Outcome:
    """A criterion's current verdict and the turn of its evidence (if any). Treat it as a
    value: rules replace a criterion's outcome, never change it (criteria share defaults)."""

    verdict: Verdict = "not_applicable"
    turn: int | None = None


_NOT_APPLICABLE = Outcome()
_PENDING = Outcome("pending", None)


class Feed:
    """What one episode has shown its rules so far, in order. The tracker appends; rules
    only read, each from where it last stopped.

    ``agent``: ``(clock, turn, text)`` of every agent text. ``user_calls``: ``(clock,
    call, result)`` of every user tool call. ``calls``: every call a rule reads, in order
    (every user call, and the agent calls named in the tracker's ``agent_call_names``).
    ``called_at``: per user tool, the clock of its latest call. The clock counts agent
    texts and user calls, so requests and calls can be ordered. ``kinds`` are the item
    kinds some rule watches agent requests for: a rule reads a text's requests as
    ``asked_among(text, feed.kinds) & its kinds``, one memoized reading for all of them.
    """

    __slots__ = ("agent", "called_at", "calls", "clock", "kinds", "user_calls")

    def __init__(self, kinds: frozenset[str] = frozenset()):
        self.clock = 0
        self.agent: list[tuple[int, int, str]] = []
        self.user_calls: list[tuple[int, ToolCall, ToolResult]] = []
        self.calls: list[ToolCall] = []
        self.called_at: dict[str, int] = {}
        self.kinds = kinds

    def called_since_agent(self) -> bool:
        """True when a user tool ran after the latest agent text (or ever, before any)."""
        return bool(self.user_calls) and self.user_calls[-1][0] > (self.agent[-1][0] if self.agent else 0)


class Rule:
    """Base class of a rule: one instance per episode, over the criteria naming it.

    ``compiled`` is what :meth:`compile` derived from the criteria (shared by every
    episode of the task: never mutate it); it is computed here when not given. ``feed``
    is the episode's :class:`Feed` (a private empty one when not given).
    """

    name: ClassVar[str]
    #: The rule's ``user_text`` acts only on texts containing this token ("": on every text);
    #: the tracker does not call it for other texts.
    user_text_token: ClassVar[str] = ""
    #: The rule reads the feed's ``calls`` (the tracker records agent calls only when a
    #: rule does, and then only those named by :meth:`call_names`).
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

    def __init__(self, criteria: list[Criterion], compiled: Any = None, feed: Feed | None = None):
        self.criteria = criteria
        self.compiled = type(self).compile(criteria) if compiled is None else compiled
        self.feed = feed if feed is not None else Feed(type(self).kinds(self.compiled))
        self.outcomes: dict[str, Outcome] = dict.fromkeys([c.id for c in criteria], _NOT_APPLICABLE)
        self.events: list[tuple[str, int]] = []
        self._settled = False

    # -- hooks -------------------------------------------------------------------
    def user_text(self, turn: int, text: str) -> list[str]:
        """The user said ``text`` (after everything in the feed); return the ids of
        criteria that newly failed."""
        return []

    def catch_up(self) -> None:
        """Bring outcomes the feed alone decides up to date (called before they are read)."""

    # -- helpers for subclasses ------------------------------------------------------
    def fail(self, cid: str, turn: int) -> bool:
        """Log a violation of ``cid``; True when the criterion had not failed before."""
        self.events.append((cid, turn))
        if self.outcomes[cid].verdict == "fail":
            return False
        self.outcomes[cid] = Outcome("fail", turn)
        return True

    def passed(self, cid: str, turn: int) -> None:
        """Mark ``cid`` passed at ``turn`` unless it already passed or failed (the evidence
        turn of a pass is the first turn the criterion applied)."""
        if self.outcomes[cid].verdict == "not_applicable":
            self.outcomes[cid] = Outcome("pass", turn)

    def settle_all(self, turn: int, bad: bool) -> list[str]:
        """Every criterion of the rule applies at ``turn``: fail them all when ``bad``, else
        pass them; returns the ids that newly failed."""
        if not bad:
            if not self._settled:  # once all have passed or failed, a pass changes nothing
                outcomes = self.outcomes
                for cid, outcome in outcomes.items():
                    if outcome.verdict == "not_applicable":
                        outcomes[cid] = Outcome("pass", turn)
                self._settled = True
            return []
        return [c.id for c in self.criteria if self.fail(c.id, turn)]


RULES: dict[str, type[Rule]] = {}


def register_rule(cls: type[Rule]) -> type[Rule]:
    """Class decorator adding a rule to :data:`RULES` under its ``name``."""
    RULES[cls.name] = cls
    return cls


@register_rule
class PrematureDisclosure(Rule):
    """Fails a criterion when the user states its value before the agent asked for its kind.

    ``params``: ``kind`` (the item kind whose request by the agent licenses disclosure)
    and ``value`` (matched case-insensitively as a substring of the user's text). The
    criterion applies once the agent asked for the kind or the user stated the value;
    it passes when the value was first stated after a request (or never stated after one:
    the pass then dates from the request). A value stated again before any request is
    logged again.
    """

    name = "premature_disclosure"

    @classmethod
    def compile(cls, criteria: list[Criterion]) -> tuple[list[tuple[str, str, str]], frozenset[str]]:
        watch = [(c.id, str(c.params["kind"]), str(c.params["value"]).lower()) for c in criteria]
        return watch, frozenset(kind for _, kind, _ in watch)

    @classmethod
    def kinds(cls, compiled: Any) -> frozenset[str]:
        return compiled[1]

    def __init__(self, criteria: list[Criterion], compiled: Any = None, feed: Feed | None = None):
        super().__init__(criteria, compiled, feed)
        self._watch, self._kinds = self.compiled
        self._asked: set[str] = set()  # the watched kinds asked so far (no other kind is ever looked up)
        self._decided: set[str] = set()
        self._read = 0  # agent texts read

    def catch_up(self) -> None:
        agent = self.feed.agent
        if self._read == len(agent):
            return
        watched = self.feed.kinds
        for _, turn, text in agent[self._read:]:
            kinds = asked_among(text, watched) & self._kinds
            if kinds:
                for cid, kind, _ in self._watch:
                    if kind in kinds and kind not in self._asked and cid not in self._decided:
                        self.outcomes[cid] = Outcome("pass", turn)
                self._asked |= kinds
        self._read = len(agent)

    def user_text(self, turn: int, text: str) -> list[str]:
        lowered = lower(text)
        failed: list[str] = []
        for cid, kind, value in self._watch:
            if value not in lowered:
                continue
            # the requests read so far decide; a text stating no value leaves them unread
            # (only stated values change what a later request passes)
            if self._read != len(self.feed.agent):
                self.catch_up()
            if cid in self._decided and kind in self._asked:
                continue
            self._decided.add(cid)
            if kind in self._asked:
                self.outcomes[cid] = Outcome("pass", turn)
            elif self.fail(cid, turn):
                failed.append(cid)
        return failed


@register_rule
class DumpsBlueprint(Rule):
    """Fails when one user message recites at least ``minimum`` of the criterion's
    ``sentences`` (normalized scenario sentences, see :func:`~userbench_env.fidelity.text.normalize`).
    Applies to every user message."""

    name = "dumps_blueprint"

    @classmethod
    def compile(cls, criteria: list[Criterion]) -> tuple[list[tuple[list[str], int]], int]:
        # gate: a recited sentence's longest word occurs in the text (lower-cased), so a text
        # holding fewer than `minimum` such words cannot recite enough and is not normalized
        gates = [([max((t for t in s.split() if t not in ("p", "be")), key=len, default="") for s in c.params["sentences"]],
                  int(c.params.get("minimum", 2))) for c in criteria]
        # and a text shorter than 3/4 of its `minimum` shortest sentences cannot recite them
        # (normalizing grows a text by at most one character per "'m")
        shortest = min(
            (sum(sorted(len(s) for s in c.params["sentences"])[: int(c.params.get("minimum", 2))]) for c in criteria),
            default=0,
        ) * 3 // 4
        return gates, shortest

    def __init__(self, criteria: list[Criterion], compiled: Any = None, feed: Feed | None = None):
        super().__init__(criteria, compiled, feed)
        self._gates, self._shortest = self.compiled

    def _may_recite(self, lowered: str) -> bool:
        """False when no criterion's gate words occur often enough in ``lowered``."""
        for keys, minimum in self._gates:
            if minimum <= 0:
                return True
            found = 0
            for key in keys:
                if key in lowered:
                    found += 1
                    if found >= minimum:
                        return True
        return False

    def user_text(self, turn: int, text: str) -> list[str]:
        if len(text) < self._shortest or not self._may_recite(lower(text)):
            return [] if self._settled else self.settle_all(turn, False)
        said = normalize(text)
        failed = []
        for c in self.criteria:
            recited = sum(1 for s in c.params["sentences"] if s in said)
            if recited >= int(c.params.get("minimum", 2)):
                if self.fail(c.id, turn):
                    failed.append(c.id)
            else:
                self.passed(c.id, turn)
        return failed


@register_rule
class InventedInformation(Rule):
    """Fails when the user states an identifier (see :func:`~userbench_env.fidelity.text.identifiers`)
    that nothing the user legitimately heard or read contains: the scenario
    (``params["scenario"]``), the agent's texts and the user's own tool results.
    Applies to every user message."""

    name = "invented_information"

    @classmethod
    def compile(cls, criteria: list[Criterion]) -> str:
        return "".join(str(c.params.get("scenario", "")).lower() for c in criteria[:1])

    def __init__(self, criteria: list[Criterion], compiled: Any = None, feed: Feed | None = None):
        super().__init__(criteria, compiled, feed)
        self._heard = self.compiled  # every heard text, lower-cased, NUL-separated
        self._agent_read = self._calls_read = 0

    def heard(self, token: str) -> bool:
        """True when ``token`` (lower-case, no NUL) occurs in something the user heard."""
        feed = self.feed
        if self._agent_read < len(feed.agent) or self._calls_read < len(feed.user_calls):  # read when first needed
            fresh = [text.lower() for _, _, text in feed.agent[self._agent_read:]]
            fresh += [result.content.lower() for _, _, result in feed.user_calls[self._calls_read:]]
            self._heard = "\0".join([self._heard, *fresh])
            self._agent_read, self._calls_read = len(feed.agent), len(feed.user_calls)
        return token in self._heard

    def user_text(self, turn: int, text: str) -> list[str]:
        tokens = identifiers(text)
        if not tokens and self._settled:
            return []  # nothing stated and every criterion decided: nothing changes
        return self.settle_all(turn, bool(tokens) and not all(self.heard(token) for token in tokens))


class _Requests(Rule):
    """Reads which user tools the agent asked for (by name, in its latest text, read
    lazily in :meth:`resolve`); ``params["tools"]`` are the user's tool names."""

    @classmethod
    def compile(cls, criteria: list[Criterion]) -> tuple[list[str], ToolMentions]:
        tools = sorted({t for c in criteria for t in c.params.get("tools", [])})
        return tools, ToolMentions(tools)

    def __init__(self, criteria: list[Criterion], compiled: Any = None, feed: Feed | None = None):
        super().__init__(criteria, compiled, feed)
        self.tools, self._mentions = self.compiled
        self.requested: frozenset[str] = frozenset()
        self.requested_at: dict[str, int] = {}
        self._read = 0  # agent texts read

    def resolve(self) -> None:
        """Read the agent texts not read yet: ``requested`` (the user tools the latest one
        asks for) and ``requested_at`` (per tool, the clock of its latest request)."""
        agent = self.feed.agent
        for clock, _, text in agent[self._read:]:
            self.requested = self._mentions.find(text) if asks(text) else frozenset()
            for name in self.requested:
                self.requested_at[name] = clock
        self._read = len(agent)


class _Observed(Rule):
    """Reads, per device feature, the states stated by the latest user tool result that
    mentions the feature (lazily, in :meth:`contradicts`)."""

    def __init__(self, criteria: list[Criterion], compiled: Any = None, feed: Feed | None = None):
        super().__init__(criteria, compiled, feed)
        self._observed: dict[str, set[str]] = {}
        self._results_read = 0

    def observed(self) -> dict[str, set[str]]:
        """Per feature, the states of its latest observation."""
        calls = self.feed.user_calls
        for _, _, result in calls[self._results_read:]:
            fresh: dict[str, set[str]] = {}
            for feature, state in device_states(result.content):
                fresh.setdefault(feature, set()).add(state)
            self._observed.update(fresh)
        self._results_read = len(calls)
        return self._observed

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
    or when a device state it states contradicts the latest tool result. A generic claim
    ("I did that") fails when the agent's latest text asked for a user tool and no user
    tool ran since. Applies when a claim is made.
    """

    name = "unexecuted_action"

    def user_text(self, turn: int, text: str) -> list[str]:
        claimed = claimed_actions(text, self.tools)
        called = self.feed.called_since_agent()
        if not claimed and (not claims_done(text) or (
                called and all(self.outcomes[c.id].verdict == "pass" for c in self.criteria))):
            return []  # no claim, or a generic claim after a tool call once the criterion passed: nothing changes
        self.resolve()
        generic = bool(self.requested) and claims_done(text)
        if not claimed and not generic:
            return []
        called_at = self.feed.called_at
        executed = any(called_at.get(t, -1) > self.requested_at.get(t, 0) for t in claimed)
        unexecuted = bool(claimed) and not executed
        bad = unexecuted or (generic and not called) or (bool(claimed) and self.contradicted(text))
        return self.settle_all(turn, bad)


@register_rule
class DeviceState(_Observed):
    """Fails when the user states a device state (feature on/off) that the latest user tool
    result mentioning the feature contradicts, or, for a feature no result mentioned yet,
    that the scenario (``params["scenario"]``) does not state. Applies when a state is stated."""

    name = "device_state"

    @classmethod
    def compile(cls, criteria: list[Criterion]) -> frozenset[tuple[str, str]]:
        return frozenset(pair for c in criteria for pair in device_states(str(c.params.get("scenario", ""))))

    def __init__(self, criteria: list[Criterion], compiled: Any = None, feed: Feed | None = None):
        super().__init__(criteria, compiled, feed)
        self._scenario = self.compiled

    def user_text(self, turn: int, text: str) -> list[str]:
        stated = device_states(text)
        if not stated:
            return []
        observed = self.observed()
        bad = any((s not in observed[f]) if f in observed else ((f, s) not in self._scenario) for f, s in stated)
        return self.settle_all(turn, bad)


#: A goal action as :class:`PrematureStop` compiles it: (position in the goal, arguments, compared keys).
_Goal = tuple[int, dict[str, Any], list[str] | None]


@register_rule
class PrematureStop(Rule):
    """Fails when the user's text carries ``###STOP###`` while some goal action
    (``params["goal"]``: gold state-changing actions) has not yet been called (a matching
    call counts even when it errs: some gold solutions include a failing call); passes
    on a stop after all of them. Applies when the user stops."""

    name = "premature_stop"
    user_text_token = STOP_TOKEN
    reads_calls = True

    @classmethod
    def compile(cls, criteria: list[Criterion]) -> tuple[dict[str, int], dict[str, list[tuple[str, list[_Goal]]]]]:
        """(goal length per criterion id, per tool name the criteria whose goal names it with
        the (position, arguments, compared keys) of its actions of that name, in goal order)."""
        from userbench_env.core.task import Action

        sizes: dict[str, int] = {}
        by_name: dict[str, dict[str, list[_Goal]]] = {}
        for c in criteria:
            sizes[c.id] = len(c.params["goal"])
            for i, raw in enumerate(c.params["goal"]):
                action = Action.model_validate(raw)
                by_name.setdefault(action.name, {}).setdefault(c.id, []).append((i, action.arguments, action.compare_args))
        return sizes, {name: list(per_id.items()) for name, per_id in by_name.items()}

    @classmethod
    def call_names(cls, compiled: Any) -> frozenset[str]:
        """The goal actions' tool names."""
        return frozenset(compiled[1])

    def __init__(self, criteria: list[Criterion], compiled: Any = None, feed: Feed | None = None):
        from userbench_env.evaluation.actions import arguments_match

        super().__init__(criteria, compiled, feed)
        self._match = arguments_match
        sizes, self._by_name = self.compiled
        self._done: dict[str, list[bool]] = {cid: [False] * size for cid, size in sizes.items()}
        self._read = 0  # calls read

    def _read_calls(self) -> None:
        # per criterion, the first goal action not yet done that a call matches (by name,
        # then as :func:`~userbench_env.evaluation.actions.action_matches` compares) is done
        calls = self.feed.calls
        for call in calls[self._read:]:
            for cid, candidates in self._by_name.get(call.name, ()):
                done = self._done[cid]
                for i, wanted, compared in candidates:
                    if not done[i] and self._match(call.arguments, wanted, compared):
                        done[i] = True
                        break
        self._read = len(calls)

    def user_text(self, turn: int, text: str) -> list[str]:
        if STOP_TOKEN not in text:
            return []
        self._read_calls()
        failed = []
        for cid, done in self._done.items():
            if all(done):
                self.passed(cid, turn)
            elif self.fail(cid, turn):
                failed.append(cid)
        return failed


@register_rule
class UnpromptedTransfer(Rule):
    """Fails when the user sends ``###TRANSFER###`` before any agent text mentioned a
    transfer; passes on a transfer after one. Applies when the user transfers."""

    name = "unprompted_transfer"
    user_text_token = TRANSFER_TOKEN

    def __init__(self, criteria: list[Criterion], compiled: Any = None, feed: Feed | None = None):
        super().__init__(criteria, compiled, feed)
        self._offered = False
        self._read = 0  # agent texts read

    def user_text(self, turn: int, text: str) -> list[str]:
        if TRANSFER_TOKEN not in text:
            return []
        agent = self.feed.agent
        self._offered = self._offered or any("transfer" in lower(said) for _, _, said in agent[self._read:])
        self._read = len(agent)
        return self.settle_all(turn, not self._offered)


@register_rule
class Withholding(Rule):
    """Fails when the agent's latest text asked for a kind the user knows (``params``:
    ``kind``, ``values``) and the user's answer states none of the values but says it does
    not know; passes when the answer states a value. Applies when the kind is asked."""

    name = "withholding"

    @classmethod
    def compile(cls, criteria: list[Criterion]) -> tuple[list[tuple[str, str, list[str]]], frozenset[str]]:
        watch = [(c.id, str(c.params["kind"]), [str(v).lower() for v in c.params["values"]]) for c in criteria]
        return watch, frozenset(kind for _, kind, _ in watch)

    @classmethod
    def kinds(cls, compiled: Any) -> frozenset[str]:
        return compiled[1]

    def __init__(self, criteria: list[Criterion], compiled: Any = None, feed: Feed | None = None):
        super().__init__(criteria, compiled, feed)
        self._watch, self._kinds = self.compiled
        self._read = 0  # agent texts read

    def user_text(self, turn: int, text: str) -> list[str]:
        agent = self.feed.agent
        fresh, self._read = len(agent) > self._read, len(agent)
        if not fresh:
            return []  # no agent text since the last answer: nothing was asked
        asked = asked_among(agent[-1][2], self.feed.kinds) & self._kinds  # read the answer only when one was asked
        if not asked:
            return []
        lowered = lower(text)
        failed = []
        for cid, kind, values in self._watch:
            if kind not in asked:
                continue
            if any(v in lowered for v in values):
                self.passed(cid, turn)
            elif denies(lowered) and self.fail(cid, turn):
                failed.append(cid)
        return failed


@register_rule
class SkippedAction(_Requests):
    """Fails when the agent's latest text asked for a user tool and the user answers in
    text without calling any tool since and without asking a question back. Applies
    when an action is requested."""

    name = "skipped_action"

    def user_text(self, turn: int, text: str) -> list[str]:
        skipped = not self.feed.called_since_agent() and "?" not in text
        if not skipped and all(self.outcomes[c.id].verdict != "not_applicable" for c in self.criteria):
            self._read = len(self.feed.agent)  # nothing this answer could change: the request need not be read
            return []
        self.resolve()
        if not self.requested:
            return []
        self.requested = frozenset()
        return self.settle_all(turn, skipped)


#: The least length of a tool result whose verbatim copy in a user text is set aside.
QUOTE_MIN = 20


@dataclass(frozen=True)
class RulePlan:
    """Everything about a task's rule checks that does not change during an episode.

    ``groups`` holds, per registered rule named by some criterion, the rule class, its
    criteria and its compiled data. ``user_text`` lists, in ``groups`` order, the rules
    implementing ``user_text`` as ``(token, index)`` pairs (the rule's
    :attr:`Rule.user_text_token`); ``catch_up`` the indices of the rules implementing
    :meth:`Rule.catch_up`. ``agent_call_names`` are the names of the agent calls some rule
    reads (None: any call). ``kinds`` is the union of the rules' watched kinds (the feed's).
    ``modes`` maps criterion ids to their modes; ``heads`` holds per criterion the fixed
    fields of its verdict dict (id, family, mode, check, and for a judge criterion its
    statement and grounding, else None); ``judged`` says whether any criterion is
    judge-checked.
    """

    criteria: tuple[Criterion, ...]
    groups: tuple[tuple[type[Rule], list[Criterion], Any], ...]
    user_text: tuple[tuple[str, int], ...]
    catch_up: tuple[int, ...]
    agent_call_names: frozenset[str] | None
    kinds: frozenset[str]
    modes: dict[str, str]
    heads: tuple[tuple[str, str, str, str, dict[str, str] | None], ...]
    judged: bool


def compile_rules(criteria: Iterable[Criterion]) -> RulePlan:
    """The :class:`RulePlan` of ``criteria`` (compile once per task, reuse per episode)."""
    criteria = tuple(criteria)
    members: dict[str, list[Criterion]] = {}
    for criterion in criteria:
        if criterion.check == "rule" and criterion.rule in RULES:
            members.setdefault(criterion.rule, []).append(criterion)
    groups = tuple((RULES[name], group, RULES[name].compile(group)) for name, group in members.items())

    def implementing(hook: str) -> tuple[int, ...]:
        return tuple(i for i, (cls, _, _) in enumerate(groups) if getattr(cls, hook) is not getattr(Rule, hook))

    read = [cls.call_names(compiled) for cls, _, compiled in groups if cls.reads_calls]
    return RulePlan(
        criteria,
        groups,
        user_text=tuple((groups[i][0].user_text_token, i) for i in implementing("user_text")),
        catch_up=implementing("catch_up"),
        agent_call_names=None if None in read else frozenset().union(*read),
        kinds=frozenset().union(*(cls.kinds(compiled) for cls, _, compiled in groups)),
        modes={c.id: c.mode for c in criteria},
        heads=tuple(
            (c.id, c.family, c.mode, c.check,
             {"statement": c.statement, "grounding": c.grounding} if c.check == "judge" else None)
            for c in criteria
        ),
        judged=any(c.check == "judge" for c in criteria),
    )


class RuleTracker:
    """Runs every rule criterion of one episode incrementally.

    ``violations`` lists failed criterion ids in the order they first failed;
    :meth:`events` every logged violation. Criteria that are not rule-checked, or name
    an unknown rule, are left for others (``pending``).

    Agent texts and tool calls are recorded in the rules' shared :class:`Feed`; each user
    text goes to the rules whose token it holds (see the :class:`RulePlan`). A user text is
    checked without the parts it copies verbatim from the user's own tool results since
    the agent last spoke (at least :data:`QUOTE_MIN` characters): a quoted result is
    reported evidence, grounded by construction, and need not be re-read by every rule.
    ``agent_call_names`` tells callers which agent calls can matter at all (None: any):
    feeding another agent call is a no-op, so a caller may skip it.
    """

    def __init__(self, criteria: RulePlan | Sequence[Criterion]):
        plan = criteria if isinstance(criteria, RulePlan) else compile_rules(criteria)
        self._plan = plan
        self.criteria = list(plan.criteria)
        self.feed = Feed(plan.kinds)
        self.rules: list[Rule] = [cls(group, compiled, self.feed) for cls, group, compiled in plan.groups]
        rules = self.rules
        self._user_text = [(token, rules[i].user_text) for token, i in plan.user_text]
        self._catch_up = [rules[i].catch_up for i in plan.catch_up]
        self.agent_call_names = plan.agent_call_names
        self.violations: list[str] = []
        self._by_id: dict[str, Rule] = {cid: rule for rule in rules for cid in rule.outcomes}
        self._results: list[str] = []

    def agent_text(self, turn: int, text: str) -> None:
        """Record an agent text message."""
        feed = self.feed
        feed.clock += 1
        feed.agent.append((feed.clock, turn, text))
        self._results = []

    def user_text(self, turn: int, text: str) -> list[str]:
        """Feed a user text message; returns (and records) newly failed criterion ids."""
        for quoted in self._results:
            if quoted in text:
                text = text.replace(quoted, " ")
        new: list[str] = []
        for token, hook in self._user_text:  # in groups order, so violations keep their order
            if token in text:
                new += hook(turn, text)
        self.violations += new
        return new

    def tool_call(self, turn: int, call: ToolCall, result: ToolResult) -> None:
        """Record an executed tool call (agent's or user's) and its result."""
        feed = self.feed
        if call.requestor == "user":
            feed.clock += 1
            feed.user_calls.append((feed.clock, call, result))
            feed.called_at[call.name] = feed.clock
            feed.calls.append(call)
            if len(result.content) >= QUOTE_MIN:
                self._results.append(result.content)
        elif self.agent_call_names is None or call.name in self.agent_call_names:
            feed.calls.append(call)

    def outcome(self, criterion_id: str) -> Outcome:
        """The current outcome of a criterion (``pending`` when no rule decides it)."""
        self._catch_up_all()
        return self._outcome(criterion_id)

    def _catch_up_all(self) -> None:
        for catch_up in self._catch_up:
            catch_up()

    def _outcome(self, criterion_id: str) -> Outcome:
        rule = self._by_id.get(criterion_id)
        return rule.outcomes[criterion_id] if rule is not None else _PENDING

    def events(self) -> list[dict[str, Any]]:
        """Every logged violation as ``{"id", "mode", "turn"}``, in the order seen per rule."""
        modes = self._plan.modes
        return [{"id": cid, "mode": modes[cid], "turn": turn} for rule in self.rules for cid, turn in rule.events]

    def verdicts(self) -> list[dict]:
        """Plain-dict verdicts of every criterion (fresh dicts): id, family, mode, verdict,
        evidence_turn, source (``rule`` once a rule decided, else the criterion's check);
        judge criteria also carry their ``statement`` and ``grounding`` (what a grader asks)."""
        self._catch_up_all()
        out = []
        for cid, family, mode, check, tail in self._plan.heads:
            found = self._outcome(cid)
            verdict = {"id": cid, "family": family, "mode": mode, "verdict": found.verdict, "evidence_turn": found.turn,
                       "source": "rule" if found.verdict != "pending" else check}
            if tail is not None:
                verdict.update(tail)
            out.append(verdict)
        return out

    @property
    def judged(self) -> bool:
        """True when some criterion is judge-checked (its verdict is left to a grader)."""
        return self._plan.judged
