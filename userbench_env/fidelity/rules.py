"""Incremental rule checks: deterministic fidelity criteria evaluated after every turn.

A rule is a class registered under the name criteria use in their ``rule`` field. The
env feeds a :class:`RuleTracker` each agent text and each user text as they happen; the
tracker dispatches them to one rule instance per rule name and collects violations.
Rules keep O(criteria) state and do a few substring tests per message (microseconds).

To add a rule: subclass :class:`Rule`, set ``name``, implement the hooks, decorate with
:func:`register_rule`. Criteria naming an unregistered rule are reported ``pending``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Iterable, Literal

from userbench_env.core.rubric import Criterion
from userbench_env.tasks.extract import requested_kinds

Verdict = Literal["pass", "fail", "not_applicable", "pending"]


@dataclass
class Outcome:
    """A criterion's current verdict and the agent turn of its evidence (if any)."""

    verdict: Verdict = "not_applicable"
    turn: int | None = None


class Rule:
    """Base class of a rule: one instance per episode, over the criteria naming it."""

    name: ClassVar[str]

    def __init__(self, criteria: list[Criterion]):
        self.criteria = criteria
        self.outcomes: dict[str, Outcome] = {c.id: Outcome() for c in criteria}

    def agent_text(self, turn: int, text: str) -> None:
        """The agent said ``text`` to the user in agent turn ``turn``."""

    def user_text(self, turn: int, text: str) -> list[str]:
        """The user said ``text``; return the ids of criteria that newly failed."""
        return []


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
    """

    name = "premature_disclosure"

    def __init__(self, criteria: list[Criterion]):
        super().__init__(criteria)
        self._watch = [(c.id, str(c.params["kind"]), str(c.params["value"]).lower()) for c in criteria]
        self._asked: set[str] = set()
        self._decided: set[str] = set()

    def agent_text(self, turn: int, text: str) -> None:
        kinds = requested_kinds(text)
        for cid, kind, _ in self._watch:
            if kind in kinds and kind not in self._asked and cid not in self._decided:
                self.outcomes[cid] = Outcome("pass", turn)
        self._asked |= kinds

    def user_text(self, turn: int, text: str) -> list[str]:
        lowered = text.lower()
        failed: list[str] = []
        for cid, kind, value in self._watch:
            if cid in self._decided or value not in lowered:
                continue
            self._decided.add(cid)
            if kind in self._asked:
                self.outcomes[cid] = Outcome("pass", turn)
            else:
                self.outcomes[cid] = Outcome("fail", turn)
                failed.append(cid)
        return failed


class RuleTracker:
    """Runs every rule criterion of one episode incrementally.

    ``violations`` lists failed criterion ids in the order they failed. Criteria that
    are not rule-checked, or name an unknown rule, are left for others (``pending``).
    """

    def __init__(self, criteria: Iterable[Criterion]):
        self.criteria = list(criteria)
        groups: dict[str, list[Criterion]] = {}
        for criterion in self.criteria:
            if criterion.check == "rule" and criterion.rule in RULES:
                groups.setdefault(criterion.rule, []).append(criterion)
        self.rules: list[Rule] = [RULES[name](members) for name, members in groups.items()]
        self.violations: list[str] = []

    def agent_text(self, turn: int, text: str) -> None:
        """Feed an agent text message to every rule."""
        for rule in self.rules:
            rule.agent_text(turn, text)

    def user_text(self, turn: int, text: str) -> list[str]:
        """Feed a user text message; returns (and records) newly failed criterion ids."""
        new: list[str] = []
        for rule in self.rules:
            new.extend(rule.user_text(turn, text))
        self.violations.extend(new)
        return new

    def outcome(self, criterion_id: str) -> Outcome:
        """The current outcome of a criterion (``pending`` when no rule decides it)."""
        for rule in self.rules:
            found = rule.outcomes.get(criterion_id)
            if found is not None:
                return found
        return Outcome("pending", None)

    def verdicts(self) -> list[dict]:
        """Plain-dict verdicts of every criterion: id, family, mode, verdict, evidence_turn, source."""
        out = []
        for criterion in self.criteria:
            found = self.outcome(criterion.id)
            out.append(
                {
                    "id": criterion.id,
                    "family": criterion.family,
                    "mode": criterion.mode,
                    "verdict": found.verdict,
                    "evidence_turn": found.turn,
                    "source": "rule" if found.verdict != "pending" else criterion.check,
                }
            )
        return out
