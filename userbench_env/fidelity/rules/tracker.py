"""Running the rules of one episode: the per-task :class:`RulePlan` (:func:`compile_rules`) and
the per-episode :class:`RuleTracker` the envs feed.
"""
from __future__ import annotations

import re

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, TypeVar

from userbench_env.core.messages import ToolCall, ToolResult
from userbench_env.core.rubric import Criterion
from userbench_env.fidelity.text import asked_among
from userbench_env.fidelity.rules.base import _NOTHING, Feed, Rule, RULES


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
