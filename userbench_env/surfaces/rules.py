"""Data-driven decision rules: picks with hidden labels -> per-check verdicts.

Every pick-based surface (survey answers, a web cart, an app order) reduces its
artifact to a list of :class:`Pick` (an item id, optionally the question or group it
answers). Each trait check carries a label map (item id -> bool flag or integer tier)
and a :class:`Rule`; :func:`apply_rule` decides HELD or VIOLATED. Task-wide
:class:`Constraint` s (coverage, counts, known ids) run first: a violated constraint is
an agent-side defect, so every check fails (APB scores it reward 0, not an error).

Rules are written as short strings, in data files and on the command line:

``avoid``          no scoped pick is flagged
``exhibit``        every scoped pick is flagged (and there is at least one)
``at-least:K``     at least K scoped picks are flagged
``per-question``   the label map covers one question; its single pick must be flagged
``tier:N``         labels are tiers; a pick is off-limits at tier N or above; none allowed

A pick is *scoped* to a check when its id is a key of that check's label map, so one
answer set can be scored against maps that each cover only part of it.
"""
from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict

RuleKind = Literal["avoid", "exhibit", "at-least", "per-question", "tier"]
LabelMap = Mapping[str, "bool | int"]

_RULE_RE = re.compile(r"^(avoid|exhibit|per-question|at-least:(\d+)|tier:(\d+))$")
_CONSTRAINT_RE = re.compile(r"^(coverage|known|nonempty|distinct|count:(\d+)(?:-(\d+))?)$")


class Pick(BaseModel):
    """One chosen item: its id and, for questionnaires, the question it answers."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    group: str | None = None


class Rule(BaseModel):
    """A decision rule (see the module docstring); ``k`` is K for at-least, N for tier."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: RuleKind
    k: int | None = None

    @classmethod
    def parse(cls, text: str) -> "Rule":
        """Parse ``avoid``, ``exhibit``, ``at-least:K``, ``per-question`` or ``tier:N``."""
        match = _RULE_RE.match(text.strip())
        if not match:
            raise ValueError(
                f"unknown rule {text!r}: use avoid, exhibit, at-least:K, per-question or tier:N"
            )
        if match.group(2) is not None:
            return cls(kind="at-least", k=int(match.group(2)))
        if match.group(3) is not None:
            return cls(kind="tier", k=int(match.group(3)))
        return cls(kind=match.group(1))  # type: ignore[arg-type]

    def __str__(self) -> str:
        return f"{self.kind}:{self.k}" if self.k is not None else self.kind

    def flagged(self, label: bool | int) -> bool:
        """Whether one label value counts as flagged under this rule."""
        if self.kind == "tier":
            return int(label) >= int(self.k or 0)
        return bool(label)


class RuleOutcome(BaseModel):
    """What a rule decided for one check: held, the scoped and flagged picks, why."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    held: bool
    scoped: list[str]
    flagged: list[str]
    offside: list[str]
    detail: str


def apply_rule(rule: Rule, picks: Sequence[Pick], labels: LabelMap) -> RuleOutcome:
    """Decide one check: the picks scoped by ``labels`` judged under ``rule``.

    ``offside`` lists the picks that broke the trait (flagged ones for avoid/tier,
    unflagged ones for exhibit/per-question/at-least). No scoped pick at all is a
    violation: there is nothing showing the trait.
    """
    scoped = [p.id for p in picks if p.id in labels]
    flagged = [i for i in scoped if rule.flagged(labels[i])]
    unflagged = [i for i in scoped if i not in flagged]
    if not scoped:
        return RuleOutcome(held=False, scoped=[], flagged=[], offside=[], detail="no pick this check covers")
    if rule.kind in ("avoid", "tier"):
        held, offside = not flagged, flagged
        detail = f"{len(flagged)} of {len(scoped)} picks off-limits"
    elif rule.kind == "exhibit":
        held, offside = not unflagged, unflagged
        detail = f"{len(flagged)} of {len(scoped)} picks flagged, all required"
    elif rule.kind == "at-least":
        need = int(rule.k or 0)
        held, offside = len(flagged) >= need, ([] if len(flagged) >= need else unflagged)
        detail = f"{len(flagged)} of {len(scoped)} picks flagged, {need} required"
    else:  # per-question
        held = len(scoped) == 1 and not unflagged
        offside = unflagged if len(scoped) == 1 else scoped
        detail = "one pick, flagged" if held else f"{len(scoped)} pick(s) here, {len(flagged)} flagged; need one flagged"
    return RuleOutcome(held=held, scoped=scoped, flagged=flagged, offside=offside, detail=detail)


class Constraint(BaseModel):
    """A task-wide validity check on the picks, parsed from a short string.

    ``coverage`` exactly one pick per question, each option belonging to its question;
    ``known`` every id is a known option; ``nonempty`` at least one pick; ``distinct``
    no id twice; ``count:N`` exactly N picks; ``count:A-B`` between A and B picks.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["coverage", "known", "nonempty", "distinct", "count"]
    low: int | None = None
    high: int | None = None

    @classmethod
    def parse(cls, text: str) -> "Constraint":
        """Parse ``coverage``, ``known``, ``nonempty``, ``distinct``, ``count:N``, ``count:A-B``."""
        match = _CONSTRAINT_RE.match(text.strip())
        if not match:
            raise ValueError(
                f"unknown constraint {text!r}: use coverage, known, nonempty, distinct, count:N or count:A-B"
            )
        if match.group(2) is not None:
            low = int(match.group(2))
            high = int(match.group(3)) if match.group(3) is not None else low
            return cls(kind="count", low=low, high=high)
        return cls(kind=match.group(1))  # type: ignore[arg-type]

    def __str__(self) -> str:
        if self.kind != "count":
            return self.kind
        return f"count:{self.low}" if self.low == self.high else f"count:{self.low}-{self.high}"

    def problem(self, picks: Sequence[Pick], groups: Mapping[str, Sequence[str]]) -> str | None:
        """Why ``picks`` break this constraint, or ``None`` when they satisfy it.

        ``groups`` maps each question (or section) id to its option ids; it is the
        universe of known ids.
        """
        known = {option: group for group, options in groups.items() for option in options}
        ids = [p.id for p in picks]
        if self.kind == "nonempty":
            return None if ids else "no picks"
        if self.kind == "distinct":
            dupes = sorted(i for i, n in Counter(ids).items() if n > 1)
            return f"picked more than once: {dupes}" if dupes else None
        if self.kind == "count":
            n = len(ids)
            ok = (self.low or 0) <= n <= (self.high if self.high is not None else n)
            return None if ok else f"{n} picks, need {str(self).removeprefix('count:')}"
        unknown = sorted({i for i in ids if i not in known})
        if unknown:
            return f"unknown ids: {unknown}"
        if self.kind == "known":
            return None
        for pick in picks:
            if pick.group is not None and known[pick.id] != pick.group:
                return f"option {pick.id} does not belong to question {pick.group}"
        per_group = Counter(known[i] for i in ids)
        missing = [g for g in groups if per_group[g] == 0]
        extra = [g for g in groups if per_group[g] > 1]
        if missing:
            return f"unanswered questions: {missing}"
        if extra:
            return f"more than one answer for: {extra}"
        return None


def parse_rules(texts: Sequence[str] | str) -> list[Rule]:
    """Parse a comma-separated string or a list of rule strings, in order."""
    items = texts.split(",") if isinstance(texts, str) else list(texts)
    return [Rule.parse(t) for t in items if t.strip()]


def parse_constraints(texts: Sequence[str]) -> list[Constraint]:
    """Parse a list of constraint strings."""
    return [Constraint.parse(t) for t in texts]
