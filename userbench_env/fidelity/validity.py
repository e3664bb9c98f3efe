"""How far the rules' flags hold on real users: blind raters' labels against the rules.

Two measurements per labelled set (:mod:`userbench_env.fidelity.labels`), or pooled over sets:

**Rater agreement** (:func:`agreement`), on the turns both raters labelled: how often their
``violation`` answers (yes / no / unsure) agree, Cohen's kappa on those answers, how many
turns both decided (neither said unsure) and how many of those agree, how many turns both
call a violation and how many of those share a named mode; and how often their verdicts on
whole conversations agree.

**The rules' validity** (:func:`validity`), on *counted* turns: turns both raters answered
``yes`` or both answered ``no`` (the rater-agreed turns). Only rule-covered modes
(:func:`~userbench_env.fidelity.taxonomy.rule_modes`) are measured; a rule's flag is a
violation it logged on the turn whose criterion's final verdict is ``fail``.

* precision of mode M: flags of M on counted turns that the raters confirm (both said
  ``yes`` and at least one named M), over all flags of M on counted turns;
* recall of mode M: counted violations of M (both said ``yes`` and both named M) that the
  rules flagged with M, over all such violations;
* overall precision and recall: the same summed over the rule-covered modes;
* conversation verdicts on rule-covered modes: the raters find a conversation unfaithful
  when one of its counted turns is a violation of a rule-covered mode both named; the rules
  fail it when they flagged any of its turns. Agreement is counted over the conversations
  both raters labelled that were scored.

Beside the numbers, the disagreements for people to read: false flags (flags the raters do
not confirm), misses (violations not flagged with their mode) and the conversations whose
verdicts differ.
"""
from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from typing import Iterable

from pydantic import BaseModel

from userbench_env.fidelity.labels import LabelError, LabelledSet, TurnKey, TurnLabel
from userbench_env.fidelity.taxonomy import rule_modes
from userbench_env.fidelity.transcripts.files import ScoredFile

VIOLATION_ANSWERS = ("yes", "no", "unsure")


@dataclass
class RuleFlags:
    """The rules' flags on a scored file, by customer turn: ``modes[(episode, turn)]`` is
    the set of modes flagged (final verdict ``fail``) on that turn, ``texts`` every customer
    turn's text, ``turn_counts`` each scored episode's number of customer turns."""

    modes: dict[TurnKey, set[str]]
    texts: dict[TurnKey, str]
    turn_counts: dict[str, int]

    @classmethod
    def from_scored(cls, scored: ScoredFile) -> RuleFlags:
        """Map every line's flags (``message_index`` into the input's messages) to customer turns."""
        modes: dict[TurnKey, set[str]] = {}
        texts: dict[TurnKey, str] = {}
        counts: dict[str, int] = {}
        for line in scored.lines:
            episode = line["episode"]
            user_turns = scored.transcripts[episode].user_turns()
            counts[episode] = len(user_turns)
            turn_of = {index: turn for turn, (index, _) in enumerate(user_turns, start=1)}
            texts.update(((episode, turn), text) for turn, (_, text) in enumerate(user_turns, start=1))
            for flag in line["flags"]:
                if flag["verdict"] == "fail":
                    modes.setdefault((episode, turn_of[flag["message_index"]]), set()).add(flag["mode"])
        return cls(modes, texts, counts)

    def episode_flagged(self, episode: str) -> set[str]:
        """Every mode flagged anywhere in ``episode``."""
        return {mode for (flagged, _), modes in self.modes.items() if flagged == episode for mode in modes}


@dataclass(frozen=True)
class RatedTurn:
    """A turn both raters labelled: the two labels, in rater-name order."""

    key: TurnKey
    first: TurnLabel
    second: TurnLabel

    @property
    def agreed(self) -> str | None:
        """``yes`` or ``no`` when both raters gave that answer (a counted turn), else None."""
        answer = self.first.violation
        return answer if answer == self.second.violation and answer != "unsure" else None

    @property
    def named_by_either(self) -> set[str]:
        return set(self.first.modes) | set(self.second.modes)

    @property
    def named_by_both(self) -> set[str]:
        return set(self.first.modes) & set(self.second.modes)


def rated_turns(sets: Iterable[LabelledSet]) -> list[RatedTurn]:
    """The turns both raters of each set labelled, in episode and turn order."""
    out = []
    for labelled in sets:
        first, second = labelled.raters
        out += [RatedTurn(key, first.turns[key], second.turns[key]) for key in first.turns.keys() & second.turns.keys()]
    return sorted(out, key=lambda turn: turn.key)


def check_turns_exist(sets: Iterable[LabelledSet], flags: RuleFlags) -> None:
    """:class:`LabelError` (naming the label's file and line) for a labelled turn beyond the
    customer turns of its scored conversation, or when no labelled conversation was scored."""
    labelled = False
    for labelled_set in sets:
        for rater in labelled_set.raters:
            for episode, turn in rater.turns:
                count = flags.turn_counts.get(episode)
                labelled |= count is not None
                if count is not None and turn > count:
                    raise LabelError(f"{rater.where((episode, turn))}: customer turn {turn} of {episode}, "
                                     f"which has {count} customer turn(s) in the transcripts")
    if not labelled:
        raise LabelError("none of the labelled conversations is among the scored transcripts "
                         "(are the labels and the transcripts file of the same run?)")


# -- rater agreement --------------------------------------------------------------------------
def cohen_kappa(pairs: list[tuple[str, str]], categories: Iterable[str] = VIOLATION_ANSWERS) -> float | None:
    """Cohen's kappa of two raters' answers (None when chance agreement is 1: both gave one answer throughout)."""
    if not pairs:
        return None
    n = len(pairs)
    observed = sum(a == b for a, b in pairs) / n
    first, second = Counter(a for a, _ in pairs), Counter(b for _, b in pairs)
    chance = sum(first[c] * second[c] for c in categories) / (n * n)
    return None if chance == 1 else (observed - chance) / (1 - chance)


class Agreement(BaseModel):
    """The two raters' agreement on a set (see the module docstring)."""

    raters: list[str]
    turns: int
    turns_per_rater: list[int]
    violation_agree: int
    kappa: float | None
    both_decided: int
    decided_agree: int
    both_yes: int
    sharing_a_mode: int
    episodes: int
    episode_agree: int
    faithful_per_rater: list[int]


def agreement(sets: list[LabelledSet]) -> Agreement:
    """Rater agreement on the turns and conversations of ``sets`` (pooled when several)."""
    turns = rated_turns(sets)
    pairs = [(t.first.violation, t.second.violation) for t in turns]
    decided = [(a, b) for a, b in pairs if "unsure" not in (a, b)]
    both_yes = [t for t in turns if t.first.violation == t.second.violation == "yes"]
    verdicts = [(s.raters[0].episodes[e].episode_faithful, s.raters[1].episodes[e].episode_faithful)
                for s in sets for e in s.raters[0].episodes.keys() & s.raters[1].episodes.keys()]
    return Agreement(
        raters=sorted({rater.rater for s in sets for rater in s.raters}),
        turns=len(turns),
        turns_per_rater=[sum(len(s.raters[i].turns) for s in sets) for i in (0, 1)],
        violation_agree=sum(a == b for a, b in pairs),
        kappa=cohen_kappa(pairs),
        both_decided=len(decided),
        decided_agree=sum(a == b for a, b in decided),
        both_yes=len(both_yes),
        sharing_a_mode=sum(bool(t.named_by_both) for t in both_yes),
        episodes=len(verdicts),
        episode_agree=sum(a == b for a, b in verdicts),
        faithful_per_rater=[sum(v[i] == "yes" for v in verdicts) for i in (0, 1)],
    )


# -- the rules against the raters ---------------------------------------------------------------
class ModeValidity(BaseModel):
    """One rule-covered mode's precision and recall on counted turns."""

    mode: str
    flags: int
    confirmed: int
    precision: float | None
    violations: int
    flagged: int
    recall: float | None


class FalseFlag(BaseModel):
    """A flag on a counted turn that the raters do not confirm."""

    episode: str
    turn: int
    mode: str
    rater_modes: list[str]
    text: str


class Miss(BaseModel):
    """A counted violation of a rule-covered mode the rules did not flag with it."""

    episode: str
    turn: int
    mode: str
    flagged: list[str]
    text: str
    notes: list[str]


class EpisodeDisagreement(BaseModel):
    """A conversation whose verdicts on rule-covered modes differ."""

    episode: str
    raters_faithful: bool
    rules_pass: bool
    rater_modes: list[str]
    flagged: list[str]


class Validity(BaseModel):
    """The rules against the rater-agreed turns of a set (see the module docstring)."""

    counted_turns: int
    agreed_violations: int
    agreed_clean: int
    modes: list[ModeValidity]
    flags: int
    confirmed: int
    precision: float | None
    violations: int
    flagged: int
    recall: float | None
    episodes: int
    episode_agree: int
    raters_faithful: int
    rules_pass: int
    unscored_episodes: list[str]
    false_flags: list[FalseFlag]
    misses: list[Miss]
    episode_disagreements: list[EpisodeDisagreement]


def _ratio(part: int, whole: int) -> float | None:
    return part / whole if whole else None


def validity(sets: list[LabelledSet], flags: RuleFlags) -> Validity:
    """The rules' flags against the rater-agreed turns of ``sets`` (pooled when several).
    Conversations that were not scored are left out and listed in ``unscored_episodes``."""
    covered = rule_modes()
    labelled = rated_turns(sets)
    turns = [t for t in labelled if t.key[0] in flags.turn_counts]
    counted = [t for t in turns if t.agreed]
    on_flags, confirmed, violations, hits = Counter(), Counter(), Counter(), Counter()
    false_flags, misses = [], []
    for turn in counted:
        episode, number = turn.key
        flagged = flags.modes.get(turn.key, set()) & set(covered)
        named = turn.named_by_either if turn.agreed == "yes" else set()
        for mode in sorted(flagged):
            on_flags[mode] += 1
            confirmed[mode] += mode in named
            if mode not in named:
                false_flags.append(FalseFlag(episode=episode, turn=number, mode=mode, rater_modes=sorted(named),
                                             text=flags.texts[turn.key]))
        for mode in sorted(turn.named_by_both & set(covered) if turn.agreed == "yes" else ()):
            violations[mode] += 1
            hits[mode] += mode in flagged
            if mode not in flagged:
                misses.append(Miss(episode=episode, turn=number, mode=mode, flagged=sorted(flagged),
                                   text=flags.texts[turn.key], notes=[turn.first.note, turn.second.note]))
    rows = [ModeValidity(mode=m, flags=on_flags[m], confirmed=confirmed[m], precision=_ratio(confirmed[m], on_flags[m]),
                         violations=violations[m], flagged=hits[m], recall=_ratio(hits[m], violations[m]))
            for m in covered if on_flags[m] or violations[m]]
    episodes = sorted({t.key[0] for t in turns})
    disagreements, agree, raters_ok, rules_ok = [], 0, 0, 0
    for episode in episodes:
        rater_modes = sorted({m for t in counted if t.key[0] == episode and t.agreed == "yes"
                              for m in t.named_by_both & set(covered)})
        flagged = sorted(flags.episode_flagged(episode) & set(covered))
        faithful, passes = not rater_modes, not flagged
        raters_ok += faithful
        rules_ok += passes
        agree += faithful == passes
        if faithful != passes:
            disagreements.append(EpisodeDisagreement(episode=episode, raters_faithful=faithful, rules_pass=passes,
                                                     rater_modes=rater_modes, flagged=flagged))
    total_flags, total_confirmed = sum(on_flags.values()), sum(confirmed.values())
    total_violations, total_hits = sum(violations.values()), sum(hits.values())
    return Validity(
        counted_turns=len(counted),
        agreed_violations=sum(t.agreed == "yes" for t in counted),
        agreed_clean=sum(t.agreed == "no" for t in counted),
        modes=rows,
        flags=total_flags, confirmed=total_confirmed, precision=_ratio(total_confirmed, total_flags),
        violations=total_violations, flagged=total_hits, recall=_ratio(total_hits, total_violations),
        episodes=len(episodes), episode_agree=agree, raters_faithful=raters_ok, rules_pass=rules_ok,
        unscored_episodes=sorted({t.key[0] for t in labelled} - set(flags.turn_counts)),
        false_flags=false_flags, misses=misses, episode_disagreements=disagreements,
    )


class SetReport(BaseModel):
    """Agreement and validity of one labelled set, or of several pooled (``name`` joins theirs with ``+``)."""

    name: str
    agreement: Agreement
    validity: Validity


def validity_reports(sets: list[LabelledSet], scored: ScoredFile) -> list[SetReport]:
    """One report per labelled set and, with several sets, one of them pooled."""
    flags = RuleFlags.from_scored(scored)
    check_turns_exist(sets, flags)
    groups = [[s] for s in sets] + ([sets] if len(sets) > 1 else [])
    return [SetReport(name="+".join(s.name for s in group), agreement=agreement(group), validity=validity(group, flags))
            for group in groups]


# -- text ----------------------------------------------------------------------------------------
def _share(part: int, whole: int) -> str:
    return f"{part}/{whole}" + (f" = {part / whole:.3f}" if whole else "")


def _clip(text: str, limit: int = 160) -> str:
    text = " ".join(text.split())
    return json.dumps(text if len(text) <= limit else text[:limit - 3] + "...", ensure_ascii=False)


def format_report(report: SetReport) -> str:
    """One set's report as plain text: agreement, the per-mode table, then the disagreements."""
    a, v = report.agreement, report.validity
    kappa = "-" if a.kappa is None else f"{a.kappa:.3f}"
    per_rater = ", ".join(f"{r} {n}" for r, n in zip(a.raters, a.turns_per_rater)) if len(a.raters) == 2 else ""
    lines = [
        f"labelled set {report.name} (raters {', '.join(a.raters)}): {a.turns} turns labelled by both"
        + (f" ({per_rater})" if per_rater else "") + f", {a.episodes} conversations",
        f"  rater agreement: violation (yes/no/unsure) {_share(a.violation_agree, a.turns)}, Cohen's kappa {kappa}; "
        f"both decided {a.both_decided}, agreeing {a.decided_agree}; both yes {a.both_yes}, sharing a mode {a.sharing_a_mode}",
        f"  conversation verdicts (every mode): agree {_share(a.episode_agree, a.episodes)}; faithful per rater "
        + ", ".join(map(str, a.faithful_per_rater)),
        f"  rules vs rater-agreed turns: {v.counted_turns} counted ({v.agreed_violations} violations, {v.agreed_clean} clean)",
        f"  {'mode':28} {'flags':>5} {'confirmed':>9} {'precision':>9} {'violations':>10} {'flagged':>7} {'recall':>6}",
    ]
    rows = [(row.mode, row) for row in v.modes] + [("rule-covered modes", v)]
    for name, row in rows:
        precision = "-" if row.precision is None else f"{row.precision:.3f}"
        recall = "-" if row.recall is None else f"{row.recall:.3f}"
        lines.append(f"  {name:28} {row.flags:5d} {row.confirmed:9d} {precision:>9} {row.violations:10d} "
                     f"{row.flagged:7d} {recall:>6}")
    lines.append(f"  conversation verdicts (rule-covered modes): agree {_share(v.episode_agree, v.episodes)}; "
                 f"raters faithful {v.raters_faithful}, rules pass {v.rules_pass}")
    if v.unscored_episodes:
        lines.append(f"  not scored (left out): {', '.join(v.unscored_episodes)}")
    for flag in v.false_flags:
        lines.append(f"  FALSE FLAG {flag.episode} turn {flag.turn} {flag.mode} "
                     f"[raters: {', '.join(flag.rater_modes) or 'no violation'}]: {_clip(flag.text)}")
    for miss in v.misses:
        lines.append(f"  MISS {miss.episode} turn {miss.turn} {miss.mode} [flagged: {', '.join(miss.flagged) or 'none'}]: "
                     f"{_clip(miss.text)} (rater notes: {' | '.join(miss.notes)})")
    for ep in v.episode_disagreements:
        lines.append(f"  CONVERSATION {ep.episode}: raters {'faithful' if ep.raters_faithful else 'unfaithful'}"
                     f"{' (' + ', '.join(ep.rater_modes) + ')' if ep.rater_modes else ''}, "
                     f"rules {'pass' if ep.rules_pass else 'fail (' + ', '.join(ep.flagged) + ')'}")
    return "\n".join(lines)


__all__ = ["Agreement", "EpisodeDisagreement", "FalseFlag", "Miss", "ModeValidity", "RatedTurn", "RuleFlags",
           "SetReport", "Validity", "agreement", "check_turns_exist", "cohen_kappa", "format_report", "rated_turns",
           "validity", "validity_reports"]
