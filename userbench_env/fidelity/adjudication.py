"""Blind raters' verdicts on flagged turns of hand-written scripts, and what they make of the
false alarms.

A writer labels its own scripts, and a script its writer calls clean may still hold a
violation. Two raters who never read the rules settle such a flag: each reads the scenario
and the conversation up to the turn (``tests/fidelity_batches/tools/rater_brief.md``) and
says whether the turn breaks the user's contract, and how.

A ratings directory holds JSON-lines files (``tests/fidelity_batches/ratings/z*.jsonl``),
one rated turn a line: ``{"item": "Q1", "file": "...", "id": "goan-004", "turn": 3,
"<rater>": {"violation": "yes"|"no"|"unsure", "modes": [...], "note": "..."}, "<rater>":
{...}}`` with exactly two raters (``turn`` indexes the script's ``turns``). A malformed line is
a :class:`RatingError` naming the file and line.
"""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from userbench_env.errors import UserError

#: The verdicts of a flagged script: both raters call a flagged turn a violation of the
#: flagged mode (``confirmed``), or of another mode (``other``): either way the writer's
#: "clean" label is overruled; both call every flagged turn clean (``rejected``: a false
#: alarm); anything else (``split``); no flagged turn rated (``unrated``).
VERDICTS = ("confirmed", "other", "rejected", "split", "unrated")
#: The verdicts that make a script unfaithful, whatever its writer's label.
UNFAITHFUL = ("confirmed", "other")


class RatingError(UserError):
    """A ratings file that cannot be used (one line naming the file and line)."""


class RaterVerdict(BaseModel):
    """One rater's reading of a turn."""

    model_config = ConfigDict(extra="forbid")

    violation: Literal["yes", "no", "unsure"]
    modes: list[str]
    note: str = ""


class RatedTurn(BaseModel):
    """A turn of a script, as two raters read it."""

    id: str
    turn: int
    raters: dict[str, RaterVerdict]


def load_ratings(folder: str | Path) -> dict[tuple[str, int], list[RatedTurn]]:
    """Every rated turn of the ``*.jsonl`` files in ``folder``, by ``(script id, turn)`` (a
    turn rated in two packets has two entries)."""
    path = Path(folder)
    files = sorted(path.glob("*.jsonl")) if path.is_dir() else []
    if not files:
        raise RatingError(f"no ratings (*.jsonl) in {path}")
    rated: dict[tuple[str, int], list[RatedTurn]] = {}
    for file in files:
        for number, line in enumerate(file.read_text(encoding="utf-8").splitlines(), start=1):
            try:
                record = json.loads(line)
                raters = {key: value for key, value in record.items() if isinstance(value, dict)}
                turn = RatedTurn(id=record["id"], turn=record["turn"], raters=raters)
            except (json.JSONDecodeError, KeyError, TypeError, ValidationError) as exc:
                raise RatingError(f"{file}:{number}: not a rated turn ({type(exc).__name__})") from None
            if len(turn.raters) != 2:
                raise RatingError(f"{file}:{number}: {len(turn.raters)} raters, not two")
            rated.setdefault((turn.id, turn.turn), []).append(turn)
    return rated


def _turn_verdict(ratings: list[RatedTurn], mode: str) -> str:
    """``confirmed`` when every rater of every rating calls the turn a violation of ``mode``,
    ``other`` when every one calls it a violation, not all of ``mode``, ``rejected`` when
    every one calls it clean, else ``split``."""
    readings = [verdict for rating in ratings for verdict in rating.raters.values()]
    if all(r.violation == "yes" for r in readings):
        return "confirmed" if all(mode in r.modes for r in readings) else "other"
    return "rejected" if all(r.violation == "no" for r in readings) else "split"


def _script_verdict(verdicts: list[str]) -> str:
    """A flagged script's verdict from its flagged turns': the first of :data:`UNFAITHFUL`
    one of them has, else the one verdict they share, else ``split``."""
    unfaithful = [verdict for verdict in UNFAITHFUL if verdict in verdicts]
    if unfaithful:
        return unfaithful[0]
    return verdicts[0] if len(set(verdicts)) == 1 else "split"


def adjudicate(false_alarms: list[dict[str, Any]], writers: dict[str, str],
               ratings: dict[tuple[str, int], list[RatedTurn]]) -> dict[str, Any]:
    """The raters' reading of a corpus report's ``false_alarms`` (``{"id", "mode", "turn"}``
    each; ``writers``: each script's writer): per flagged script its verdict
    (:data:`VERDICTS`: a script with a flagged turn both raters call a violation is
    unfaithful whatever its other flags), their counts, and per writer how many of its
    flagged scripts the raters do not call unfaithful.

    Returns ``{"scripts": {id: verdict}, "counts": {verdict: n}, "not_confirmed_by_writer":
    {writer: n}}``."""
    turns: dict[str, list[str]] = {}
    for alarm in false_alarms:
        rated = ratings.get((alarm["id"], alarm["turn"]))
        turns.setdefault(alarm["id"], []).append(_turn_verdict(rated, alarm["mode"]) if rated else "unrated")
    scripts = {script: _script_verdict(verdicts) for script, verdicts in turns.items()}
    counts = Counter(scripts.values())
    return {"scripts": scripts, "counts": {verdict: counts[verdict] for verdict in VERDICTS},
            "not_confirmed_by_writer": dict(Counter(writers[s] for s, v in scripts.items() if v not in UNFAITHFUL))}
