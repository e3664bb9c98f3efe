"""Blind raters' labels of real users' conversations, read from files.

Raters label every customer turn of whole conversations, and give one verdict per
conversation, following ``LABELING.md`` beside the real transcripts (the failure modes are
the taxonomy's). A label directory holds one JSON-lines file per rater and labelled set,
named ``<rater>_<set>.jsonl`` (``raterA_t0.jsonl``: rater ``raterA``, set ``t0``); every set
has exactly two raters, who labelled the same conversations independently. Each line is
one of:

* a turn label (:class:`TurnLabel`): ``{"episode_id": "tb0-t0", "customer_turn": 1,
  "violation": "yes"|"no"|"unsure", "modes": [...], "note": "..."}``; ``customer_turn``
  counts the user messages of the conversation's own message list from 1; ``modes`` names
  taxonomy modes, none for ``no`` and at least one for ``yes``;
* a conversation verdict (:class:`EpisodeLabel`): ``{"episode_id": "tb0-t0",
  "episode_faithful": "yes"|"no", "note": "..."}`` (on every mode, judge-only ones included).

A malformed line, a mode the taxonomy does not have, a turn labelled twice, or a set
without exactly two raters is a :class:`LabelError`: one line naming the file and line.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from userbench_env.errors import UserError
from userbench_env.fidelity.taxonomy import TAXONOMY
from userbench_env.fidelity.transcripts.transcript import validation_summary

#: a labelled customer turn: (episode id, customer turn counted from 1)
TurnKey = tuple[str, int]
FILE_NAME = re.compile(r"^(?P<rater>[^_]+)_(?P<set>.+)\.jsonl$")


class LabelError(UserError):
    """A label file or directory that cannot be used (one line naming the file and line)."""


class TurnLabel(BaseModel):
    """One rater's label of one customer turn."""

    model_config = ConfigDict(extra="forbid")

    episode_id: str = Field(min_length=1)
    customer_turn: int = Field(ge=1)
    violation: Literal["yes", "no", "unsure"]
    modes: list[str] = []
    note: str = ""

    @field_validator("modes")
    @classmethod
    def _known_modes(cls, modes: list[str]) -> list[str]:
        unknown = [mode for mode in modes if mode not in TAXONOMY]
        if unknown:
            raise ValueError(f"unknown mode(s) {', '.join(unknown)} (the taxonomy's modes: see LABELING.md)")
        return modes

    @model_validator(mode="after")
    def _modes_match_violation(self) -> TurnLabel:
        if self.violation == "no" and self.modes:
            raise ValueError(f"violation 'no' names modes {', '.join(self.modes)}")
        if self.violation == "yes" and not self.modes:
            raise ValueError("violation 'yes' names no mode")
        return self

    @property
    def key(self) -> TurnKey:
        return self.episode_id, self.customer_turn


class EpisodeLabel(BaseModel):
    """One rater's verdict on a whole conversation (every mode, judge-only ones included)."""

    model_config = ConfigDict(extra="forbid")

    episode_id: str = Field(min_length=1)
    episode_faithful: Literal["yes", "no"]
    note: str = ""


@dataclass
class RaterFile:
    """One rater's labels of one set: turn labels by turn, verdicts by episode, and the
    line each came from (for error messages)."""

    rater: str
    path: Path
    turns: dict[TurnKey, TurnLabel] = field(default_factory=dict)
    episodes: dict[str, EpisodeLabel] = field(default_factory=dict)
    lines: dict[TurnKey | str, int] = field(default_factory=dict)

    def where(self, key: TurnKey | str) -> str:
        """``path:line`` of the label of ``key`` (a turn or an episode id)."""
        return f"{self.path}:{self.lines[key]}"


@dataclass
class LabelledSet:
    """The two raters' labels of one set of conversations (raters in name order)."""

    name: str
    raters: tuple[RaterFile, RaterFile]


def _label(path: Path, number: int, text: str) -> TurnLabel | EpisodeLabel:
    """The label on line ``number`` of ``path`` (:class:`LabelError` naming the line)."""
    where = f"{path}:{number}"
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        raise LabelError(f"{where}: not JSON ({exc.msg})") from None
    if not isinstance(raw, dict) or not ({"customer_turn", "episode_faithful"} & raw.keys()):
        raise LabelError(f"{where}: neither a turn label (with customer_turn) nor a conversation verdict "
                         "(with episode_faithful)")
    model = TurnLabel if "customer_turn" in raw else EpisodeLabel
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        raise LabelError(f"{where}: {validation_summary(exc)}") from None


def read_rater_file(path: str | Path, rater: str) -> RaterFile:
    """Every label of one rater's file (blank lines are skipped)."""
    path = Path(path)
    out = RaterFile(rater, path)
    for number, text in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not text.strip():
            continue
        label = _label(path, number, text)
        key, labels = (label.key, out.turns) if isinstance(label, TurnLabel) else (label.episode_id, out.episodes)
        if key in labels:
            what = f"turn {key[1]} of {key[0]}" if isinstance(label, TurnLabel) else f"conversation {key}"
            raise LabelError(f"{path}:{number}: {what} labelled again (first at line {out.lines[key]})")
        labels[key] = label  # type: ignore[index]
        out.lines[key] = number
    return out


def load_label_dir(path: str | Path) -> list[LabelledSet]:
    """The labelled sets of a label directory, in name order (see the module docstring)."""
    path = Path(path)
    if not path.is_dir():
        raise LabelError(f"no label directory at {path}")
    by_set: dict[str, list[RaterFile]] = {}
    for file in sorted(path.glob("*.jsonl")):
        named = FILE_NAME.match(file.name)
        if named is None:
            raise LabelError(f"{file}: a label file is named <rater>_<set>.jsonl (e.g. raterA_t0.jsonl)")
        by_set.setdefault(named["set"], []).append(read_rater_file(file, named["rater"]))
    if not by_set:
        raise LabelError(f"no label files (<rater>_<set>.jsonl) in {path}")
    sets = []
    for name, files in sorted(by_set.items()):
        if len(files) != 2:
            raise LabelError(f"labelled set {name!r} in {path} has {len(files)} rater file(s) "
                             f"({', '.join(f.path.name for f in files)}); agreement needs exactly two")
        sets.append(LabelledSet(name, (files[0], files[1])))
    return sets


def default_labels_dir() -> Path:
    """The repository's ``tests/real_user_labels`` (:class:`LabelError` when this install has none)."""
    here = Path(__file__).resolve().parents[2] / "tests" / "real_user_labels"
    if not here.is_dir():
        raise LabelError(f"no label directory given and none at {here} (the labels ship with the repository, "
                         "not the package): pass --real-labels DIR")
    return here


__all__ = ["EpisodeLabel", "LabelError", "LabelledSet", "RaterFile", "TurnKey", "TurnLabel", "default_labels_dir",
           "load_label_dir", "read_rater_file"]
