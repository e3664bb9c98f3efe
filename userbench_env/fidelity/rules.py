"""Incremental rule checks: deterministic fidelity criteria evaluated after every message.

A rule is a class registered under the name criteria use in their ``rule`` field. The
env feeds a :class:`RuleTracker` every agent text, every user text and every executed
tool call (agent's or user's, with its result) as they happen; the tracker dispatches
them to one rule instance per rule name and collects violations. Rules keep
O(criteria) state and do a few regex/substring tests per message (microseconds).

Each rule sets a criterion's :class:`Outcome` (first failure wins and is final; a pass
may be revised into a failure) and logs every violation it sees in ``events`` as
``(criterion id, turn)``, so a later violation of an already-failed criterion is still
visible to the validation of the checkers.

Whatever a rule derives from its criteria alone (compiled patterns, parsed gold actions,
gates) is computed once per task by :meth:`Rule.compile` and shared, read-only, by every
episode through a :class:`RulePlan`; an episode's tracker only allocates the rules'
mutable state. Envs cache the plan per task (:func:`compile_rules`).

To add a rule: subclass :class:`Rule`, set ``name``, implement the hooks (and
``compile`` for per-task data), decorate with :func:`register_rule`. Criteria naming an
unregistered rule are reported ``pending``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Iterable, Literal, Sequence

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


class Rule:
    """Base class of a rule: one instance per episode, over the criteria naming it.

    ``compiled`` is what :meth:`compile` derived from the criteria (shared by every
    episode of the task: never mutate it); it is computed here when not given.
    """

    name: ClassVar[str]
    #: The rule's ``user_text`` acts only on texts containing this token ("": on every text);
    #: the tracker does not call it for other texts.
    user_text_token: ClassVar[str] = ""
    #: The rule's ``tool_call`` ignores calls the user did not request; the tracker does not
    #: call it for the agent's calls.
    user_calls_only: ClassVar[bool] = False

    @classmethod
    def compile(cls, criteria: list[Criterion]) -> Any:
        """Per-task, read-only data derived from ``criteria`` (default: none)."""
        return None

    @classmethod
    def call_names(cls, compiled: Any) -> frozenset[str] | None:
        """The tool names whose calls ``tool_call`` reacts to, given the compiled data
        (None: every call); the tracker does not call it for other calls."""
        return None

    def __init__(self, criteria: list[Criterion], compiled: Any = None):
        self.criteria = criteria
        self.compiled = type(self).compile(criteria) if compiled is None else compiled
        self.outcomes: dict[str, Outcome] = dict.fromkeys([c.id for c in criteria], _NOT_APPLICABLE)
        self.events: list[tuple[str, int]] = []

    # -- hooks -------------------------------------------------------------------
    def agent_text(self, turn: int, text: str) -> None:
        """The agent said ``text`` to the user in agent turn ``turn``."""

    def user_text(self, turn: int, text: str) -> list[str]:
        """The user said ``text``; return the ids of criteria that newly failed."""
        return []

    def tool_call(self, turn: int, call: ToolCall, result: ToolResult) -> None:
        """A tool call (``call.requestor`` says whose) was executed with ``result``."""

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
        failed = []
        for c in self.criteria:
            if not bad:
                self.passed(c.id, turn)
            elif self.fail(c.id, turn):
                failed.append(c.id)
        return failed


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
    it passes when the value was first stated after a request (or never stated after one).
    A value stated again before any request is logged again.
    """

    name = "premature_disclosure"

    @classmethod
    def compile(cls, criteria: list[Criterion]) -> tuple[list[tuple[str, str, str]], frozenset[str]]:
        watch = [(c.id, str(c.params["kind"]), str(c.params["value"]).lower()) for c in criteria]
        return watch, frozenset(kind for _, kind, _ in watch)

    def __init__(self, criteria: list[Criterion], compiled: Any = None):
        super().__init__(criteria, compiled)
        self._watch, self._kinds = self.compiled
        self._asked: set[str] = set()  # the watched kinds asked so far (no other kind is ever looked up)
        self._decided: set[str] = set()

    def agent_text(self, turn: int, text: str) -> None:
        kinds = asked_among(text, self._kinds)
        for cid, kind, _ in self._watch:
            if kind in kinds and kind not in self._asked and cid not in self._decided:
                self.outcomes[cid] = Outcome("pass", turn)
        self._asked |= kinds

    def user_text(self, turn: int, text: str) -> list[str]:
        lowered = lower(text)
        failed: list[str] = []
        for cid, kind, value in self._watch:
            if value not in lowered or (cid in self._decided and kind in self._asked):
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
    def compile(cls, criteria: list[Criterion]) -> tuple[dict[str, list[str]], int]:
        # gate: a recited sentence's longest word occurs in the text (lower-cased), so a text
        # holding fewer than `minimum` such words cannot recite enough and is not normalized
        keys = {c.id: [max((t for t in s.split() if t not in ("p", "be")), key=len, default="")
                       for s in c.params["sentences"]] for c in criteria}
        # and a text shorter than 3/4 of its `minimum` shortest sentences cannot recite them
        # (normalizing grows a text by at most one character per "'m")
        shortest = min(
            (sum(sorted(len(s) for s in c.params["sentences"])[: int(c.params.get("minimum", 2))]) for c in criteria),
            default=0,
        ) * 3 // 4
        return keys, shortest

    def __init__(self, criteria: list[Criterion], compiled: Any = None):
        super().__init__(criteria, compiled)
        self._keys, self._shortest = self.compiled

    def user_text(self, turn: int, text: str) -> list[str]:
        if len(text) < self._shortest:
            for c in self.criteria:
                self.passed(c.id, turn)
            return []
        lowered = lower(text)
        if all(sum(k in lowered for k in keys) < int(c.params.get("minimum", 2))
               for c, keys in zip(self.criteria, self._keys.values())):
            for c in self.criteria:
                self.passed(c.id, turn)
            return []
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


class _Heard(Rule):
    """A rule that remembers everything the user has legitimately heard or read: the
    scenario (``params["scenario"]``), agent texts and the user's own tool results."""

    user_calls_only = True

    @classmethod
    def compile(cls, criteria: list[Criterion]) -> list[str]:
        return [str(c.params.get("scenario", "")).lower() for c in criteria[:1]]

    def __init__(self, criteria: list[Criterion], compiled: Any = None):
        super().__init__(criteria, compiled)
        self._heard = list(self.compiled)
        self._unread: list[str] = []

    def agent_text(self, turn: int, text: str) -> None:
        self._unread.append(text)

    def tool_call(self, turn: int, call: ToolCall, result: ToolResult) -> None:
        if call.requestor == "user":
            self._unread.append(result.content)

    def heard(self, token: str) -> bool:
        """True when ``token`` (lower-case) occurs in something the user heard."""
        if self._unread:  # lower-cased only when first needed
            self._heard.extend(chunk.lower() for chunk in self._unread)
            self._unread = []
        return any(token in chunk for chunk in self._heard)


@register_rule
class InventedInformation(_Heard):
    """Fails when the user states an identifier (see :func:`~userbench_env.fidelity.text.identifiers`)
    that neither the scenario nor anything the user heard contains. Applies to every user message."""

    name = "invented_information"

    def user_text(self, turn: int, text: str) -> list[str]:
        return self.settle_all(turn, any(not self.heard(token) for token in identifiers(text)))


class _Requests(Rule):
    """Tracks which user tools the agent asked for (by name, in its latest text) and
    which user tools ran since; ``params["tools"]`` are the user's tool names.

    Agent texts are read lazily: :meth:`resolve` reads the pending ones (each stamped
    with the clock of its arrival, so request/call order is kept) when a rule needs them.
    """

    user_calls_only = True

    @classmethod
    def compile(cls, criteria: list[Criterion]) -> tuple[list[str], ToolMentions]:
        tools = sorted({t for c in criteria for t in c.params.get("tools", [])})
        return tools, ToolMentions(tools)

    def __init__(self, criteria: list[Criterion], compiled: Any = None):
        super().__init__(criteria, compiled)
        self.tools, self._mentions = self.compiled
        self.requested: frozenset[str] = frozenset()
        self.calls_since_agent: list[str] = []
        self.requested_at: dict[str, int] = {}
        self.called_at: dict[str, int] = {}
        self._clock = 0
        self._pending: list[tuple[int, str]] = []

    def agent_text(self, turn: int, text: str) -> None:
        self._clock += 1
        self._pending.append((self._clock, text))
        self.calls_since_agent = []

    def resolve(self) -> None:
        """Read the pending agent texts: ``requested`` (latest text) and ``requested_at``."""
        for clock, text in self._pending:
            self.requested = self._mentions.find(text) if asks(text) else frozenset()
            for name in self.requested:
                self.requested_at[name] = clock
        self._pending = []

    def tool_call(self, turn: int, call: ToolCall, result: ToolResult) -> None:
        if call.requestor == "user":
            self._clock += 1
            self.calls_since_agent.append(call.name)
            self.called_at[call.name] = self._clock


class _Observed(Rule):
    """Keeps, per device feature, the states stated by the latest user tool result that
    mentions the feature."""

    user_calls_only = True

    def __init__(self, criteria: list[Criterion], compiled: Any = None):
        super().__init__(criteria, compiled)
        self.observed: dict[str, set[str]] = {}

    def tool_call(self, turn: int, call: ToolCall, result: ToolResult) -> None:
        if call.requestor != "user":
            return
        fresh: dict[str, set[str]] = {}
        for feature, state in device_states(result.content):
            fresh.setdefault(feature, set()).add(state)
        self.observed.update(fresh)

    def contradicted(self, text: str) -> bool:
        """True when ``text`` states a device state its latest observation contradicts."""
        return any(f in self.observed and s not in self.observed[f] for f, s in device_states(text))


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
        if not claimed and (not claims_done(text) or (
                self.calls_since_agent and all(self.outcomes[c.id].verdict == "pass" for c in self.criteria))):
            return []  # no claim, or a generic claim after a tool call once the criterion passed: nothing changes
        self.resolve()
        generic = bool(self.requested) and claims_done(text)
        if not claimed and not generic:
            return []
        executed = any(self.called_at.get(t, -1) > self.requested_at.get(t, 0) for t in claimed)
        unexecuted = bool(claimed) and not executed
        bad = unexecuted or (generic and not self.calls_since_agent) or (bool(claimed) and self.contradicted(text))
        return self.settle_all(turn, bad)

    def tool_call(self, turn: int, call: ToolCall, result: ToolResult) -> None:
        _Requests.tool_call(self, turn, call, result)
        _Observed.tool_call(self, turn, call, result)


@register_rule
class DeviceState(_Observed):
    """Fails when the user states a device state (feature on/off) that the latest user tool
    result mentioning the feature contradicts, or, for a feature no result mentioned yet,
    that the scenario (``params["scenario"]``) does not state. Applies when a state is stated."""

    name = "device_state"

    @classmethod
    def compile(cls, criteria: list[Criterion]) -> frozenset[tuple[str, str]]:
        return frozenset(pair for c in criteria for pair in device_states(str(c.params.get("scenario", ""))))

    def __init__(self, criteria: list[Criterion], compiled: Any = None):
        super().__init__(criteria, compiled)
        self._scenario = self.compiled

    def user_text(self, turn: int, text: str) -> list[str]:
        stated = device_states(text)
        if not stated:
            return []
        bad = any(
            (s not in self.observed[f]) if f in self.observed else ((f, s) not in self._scenario) for f, s in stated
        )
        return self.settle_all(turn, bad)


@register_rule
class PrematureStop(Rule):
    """Fails when the user's text carries ``###STOP###`` while some goal action
    (``params["goal"]``: gold state-changing actions) has not yet been called (a matching
    call counts even when it errs: some gold solutions include a failing call); passes
    on a stop after all of them. Applies when the user stops."""

    name = "premature_stop"
    user_text_token = STOP_TOKEN

    @classmethod
    def compile(cls, criteria: list[Criterion]) -> tuple[dict[str, int], dict[str, list[tuple[str, list[tuple[int, Any]]]]]]:
        """(goal length per criterion id, per tool name the criteria whose goal names it with
        the (position, action) pairs of that name, in goal order)."""
        from userbench_env.core.task import Action

        sizes: dict[str, int] = {}
        by_name: dict[str, dict[str, list[tuple[int, Any]]]] = {}
        for c in criteria:
            sizes[c.id] = len(c.params["goal"])
            for i, raw in enumerate(c.params["goal"]):
                action = Action.model_validate(raw)
                by_name.setdefault(action.name, {}).setdefault(c.id, []).append((i, action))
        return sizes, {name: list(per_id.items()) for name, per_id in by_name.items()}

    @classmethod
    def call_names(cls, compiled: Any) -> frozenset[str]:
        """The goal actions' tool names."""
        return frozenset(compiled[1])

    def __init__(self, criteria: list[Criterion], compiled: Any = None):
        from userbench_env.evaluation.actions import action_matches

        super().__init__(criteria, compiled)
        self._matches = action_matches
        sizes, self._by_name = self.compiled
        self._done: dict[str, list[bool]] = {cid: [False] * size for cid, size in sizes.items()}

    def tool_call(self, turn: int, call: ToolCall, result: ToolResult) -> None:
        # per criterion, the first goal action not yet done that the call matches is done
        for cid, candidates in self._by_name.get(call.name, ()):
            done = self._done[cid]
            for i, action in candidates:
                if not done[i] and self._matches(action, call):
                    done[i] = True
                    break

    def user_text(self, turn: int, text: str) -> list[str]:
        if STOP_TOKEN not in text:
            return []
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

    def __init__(self, criteria: list[Criterion], compiled: Any = None):
        super().__init__(criteria, compiled)
        self._offered = False

    def agent_text(self, turn: int, text: str) -> None:
        self._offered = self._offered or "transfer" in lower(text)

    def user_text(self, turn: int, text: str) -> list[str]:
        if TRANSFER_TOKEN not in text:
            return []
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

    def __init__(self, criteria: list[Criterion], compiled: Any = None):
        super().__init__(criteria, compiled)
        self._watch, self._kinds = self.compiled
        self._last_agent = ""

    def agent_text(self, turn: int, text: str) -> None:
        self._last_agent = text

    def user_text(self, turn: int, text: str) -> list[str]:
        last, self._last_agent = self._last_agent, ""
        asked = asked_among(last, self._kinds)  # the answer is read only when a watched kind was asked
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
        skipped = not self.calls_since_agent and "?" not in text
        if not skipped and all(self.outcomes[c.id].verdict != "not_applicable" for c in self.criteria):
            self._pending = []  # nothing this answer could change: the request need not be read
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
    criteria and its compiled data. The hook tables list, in ``groups`` order, the indices
    of the rules implementing a hook (the base hooks do nothing and are never called):
    ``agent_text``; ``user_text`` as ``(token, index)`` pairs (the rule's
    :attr:`Rule.user_text_token`); ``user_tool_call`` (every rule with a ``tool_call``)
    and ``agent_tool_call`` (those not :attr:`Rule.user_calls_only`) as ``(names, index)``
    pairs (the rule's :meth:`Rule.call_names`); ``agent_call_names`` the names of the agent
    calls some rule reacts to (None: any call). ``modes`` maps criterion ids to their modes;
    ``heads`` holds per criterion the fixed fields of its verdict dict (id, family, mode,
    check, and the statement of a judge criterion, else None).
    """

    criteria: tuple[Criterion, ...]
    groups: tuple[tuple[type[Rule], list[Criterion], Any], ...]
    agent_text: tuple[int, ...]
    user_text: tuple[tuple[str, int], ...]
    user_tool_call: tuple[tuple[frozenset[str] | None, int], ...]
    agent_tool_call: tuple[tuple[frozenset[str] | None, int], ...]
    agent_call_names: frozenset[str] | None
    modes: dict[str, str]
    heads: tuple[tuple[str, str, str, str, str | None], ...]


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

    tool_hooks = tuple((groups[i][0].call_names(groups[i][2]), i) for i in implementing("tool_call"))
    agent_hooks = tuple((names, i) for names, i in tool_hooks if not groups[i][0].user_calls_only)
    agent_names = [names for names, _ in agent_hooks]
    return RulePlan(
        criteria,
        groups,
        agent_text=implementing("agent_text"),
        user_text=tuple((groups[i][0].user_text_token, i) for i in implementing("user_text")),
        user_tool_call=tool_hooks,
        agent_tool_call=agent_hooks,
        agent_call_names=None if None in agent_names else frozenset().union(*agent_names),
        modes={c.id: c.mode for c in criteria},
        heads=tuple((c.id, c.family, c.mode, c.check, c.statement if c.check == "judge" else None) for c in criteria),
    )


class RuleTracker:
    """Runs every rule criterion of one episode incrementally.

    ``violations`` lists failed criterion ids in the order they first failed;
    :meth:`events` every logged violation. Criteria that are not rule-checked, or name
    an unknown rule, are left for others (``pending``).

    A user text is checked without the parts it copies verbatim from the user's own tool
    results since the agent last spoke (at least :data:`QUOTE_MIN` characters): a quoted
    result is reported evidence, grounded by construction, and need not be re-read by
    every rule. A hook is called only when it can act (see the :class:`RulePlan` tables);
    ``agent_call_names`` tells callers which agent calls can matter at all (None: any):
    feeding another agent call is a no-op, so a caller may skip it.
    """

    def __init__(self, criteria: RulePlan | Sequence[Criterion]):
        plan = criteria if isinstance(criteria, RulePlan) else compile_rules(criteria)
        self._plan = plan
        self.criteria = list(plan.criteria)
        self.rules: list[Rule] = [cls(group, compiled) for cls, group, compiled in plan.groups]
        rules = self.rules
        self._agent_text = [rules[i].agent_text for i in plan.agent_text]
        self._user_text = [(token, rules[i].user_text) for token, i in plan.user_text]
        self._user_tool_call = [(names, rules[i].tool_call) for names, i in plan.user_tool_call]
        self._agent_tool_call = [(names, rules[i].tool_call) for names, i in plan.agent_tool_call]
        self.agent_call_names = plan.agent_call_names
        self.violations: list[str] = []
        self._by_id: dict[str, Rule] = {cid: rule for rule in rules for cid in rule.outcomes}
        self._results: list[str] = []

    def agent_text(self, turn: int, text: str) -> None:
        """Feed an agent text message to every rule."""
        self._results = []
        for hook in self._agent_text:
            hook(turn, text)

    def user_text(self, turn: int, text: str) -> list[str]:
        """Feed a user text message; returns (and records) newly failed criterion ids."""
        for quoted in self._results:
            if quoted in text:
                text = text.replace(quoted, " ")
        new: list[str] = []
        for token, hook in self._user_text:
            if token in text:
                new += hook(turn, text)
        self.violations += new
        return new

    def tool_call(self, turn: int, call: ToolCall, result: ToolResult) -> None:
        """Feed an executed tool call (agent's or user's) and its result to every rule."""
        if call.requestor == "user":
            if len(result.content) >= QUOTE_MIN:
                self._results.append(result.content)
            hooks = self._user_tool_call
        else:
            hooks = self._agent_tool_call
        for names, hook in hooks:
            if names is None or call.name in names:
                hook(turn, call, result)

    def outcome(self, criterion_id: str) -> Outcome:
        """The current outcome of a criterion (``pending`` when no rule decides it)."""
        rule = self._by_id.get(criterion_id)
        return rule.outcomes[criterion_id] if rule is not None else _PENDING

    def events(self) -> list[dict[str, Any]]:
        """Every logged violation as ``{"id", "mode", "turn"}``, in the order seen per rule."""
        modes = self._plan.modes
        return [{"id": cid, "mode": modes[cid], "turn": turn} for rule in self.rules for cid, turn in rule.events]

    def verdicts(self) -> list[dict]:
        """Plain-dict verdicts of every criterion: id, family, mode, verdict, evidence_turn,
        source (``rule`` once a rule decided, else the criterion's check); judge criteria
        also carry their ``statement`` (what a batch grader asks)."""
        out = []
        for cid, family, mode, check, statement in self._plan.heads:
            found = self.outcome(cid)
            verdict = {
                "id": cid,
                "family": family,
                "mode": mode,
                "verdict": found.verdict,
                "evidence_turn": found.turn,
                "source": "rule" if found.verdict != "pending" else check,
            }
            if check == "judge":
                verdict["statement"] = statement
            out.append(verdict)
        return out
