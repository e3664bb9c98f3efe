"""Running the rules of one episode: the per-task :class:`RulePlan` (:func:`compile_rules`) and
the per-episode :class:`RuleTracker` the envs feed.
"""
from __future__ import annotations

import re

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

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
    criteria and its compiled data. ``on_request`` maps an item kind to the indices (in
    ``groups``) of the rules implementing :meth:`Rule.first_request` that watch it.
    ``agent_call_names`` are the names of the agent calls some rule reads (None: any call).
    ``kinds`` is the union of the rules' watched kinds (the feed's). ``modes`` maps
    criterion ids to their modes; ``templates`` holds per criterion its verdict dict at the
    start of an episode (a tracker's verdict table holds copies; never mutate these);
    ``judged`` says whether any criterion is judge-checked.
    """

    criteria: tuple[Criterion, ...]
    groups: tuple[tuple[type[Rule], list[Criterion], Any], ...]
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
    listening = [i for i, (cls, _, _) in enumerate(groups) if cls.first_request is not Rule.first_request]
    read = [cls.call_names(compiled) for cls, _, compiled in groups if cls.reads_calls]
    ruled = {c.id for _, group, _ in groups for c in group}
    return RulePlan(
        criteria,
        groups,
        on_request={kind: tuple(i for i in listening if kind in groups[i][0].kinds(groups[i][2]))
                    for kind in sorted({k for i in listening for k in groups[i][0].kinds(groups[i][2])})},
        agent_call_names=None if None in read else frozenset().union(*read),
        kinds=frozenset().union(*(cls.kinds(compiled) for cls, _, compiled in groups)),
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
    text goes to every rule with the rule's reading of it (:meth:`Rule.read`), except to a
    :attr:`Rule.cued` rule whose reading is None (the text holds nothing it acts on). A user
    text is checked without the parts it copies verbatim from the user's own tool results
    since the agent last spoke (at least :data:`QUOTE_MIN` characters): a quoted result is
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
        self._on_request = {kind: [self.rules[i] for i in indices] for kind, indices in plan.on_request.items()}
        self._call_readers = [rule for rule in self.rules if rule.reads_calls]
        self.agent_call_names = plan.agent_call_names
        self._results: list[str] = []
        #: The turns whose user text was clipped to :data:`CHECK_LIMIT` characters for the checks.
        self.clipped: list[int] = []

    def agent_text(self, turn: int, text: str) -> None:
        """Record an agent text message (rules hear of the first request of a kind at once)."""
        kinds = self._plan.kinds
        for kind in self.feed.add_agent_text(turn, text, asked_among(text, kinds) if kinds else _NOTHING):
            for rule in self._on_request.get(kind, ()):
                rule.first_request(kind, turn)
        self._results = []

    def user_text(self, turn: int, text: str) -> list[str]:
        """Feed a user text message; returns (and records) newly failed criterion ids."""
        for quoted in self._results:
            text = text.replace(quoted, " ")
        text = checked_text(text)
        if len(text) == CHECK_LIMIT:
            self.clipped.append(turn)
        self.feed.user.append((self.feed.clock, text))
        seen = len(self.violations)
        for rule in self.rules:
            reading = rule.read(rule.compiled, text)
            if reading is not None or not rule.cued:
                rule.user_text(turn, text, reading)
        return self.violations[seen:]

    def tool_call(self, turn: int, call: ToolCall, result: ToolResult) -> None:
        """Record an executed tool call (agent's or user's) and its result."""
        feed = self.feed
        if call.requestor == "user":
            feed.clock += 1
            feed.user_calls.append((feed.clock, call, result))
            feed.called_at[call.name] = feed.clock
            if len(result.content) >= QUOTE_MIN:
                self._results.append(result.content)
        if self._call_readers and (self.agent_call_names is None or call.name in self.agent_call_names):
            for rule in self._call_readers:
                rule.call_made(call)

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
