"""A scripted web persona: an oracle that holds every trait, or breaks them, by clicking.

It reads the task's hidden data (label maps and item names, :mod:`.artifact`), decides
which items to pick, then plays from the observation text alone: for each item it
finds the control whose label (or item context) names the item — skipping remove,
view and details controls — and clicks it; then it answers ``done``. Holding picks
items that satisfy every check; breaking picks items that break every check it can
(else any check). It serves tests and baselines, where the expected verdict is known.
"""
from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from userbench_env.surfaces.rules import Rule
from userbench_env.surfaces.tasks import SurfaceTask
from userbench_env.surfaces.web.artifact import item_names, page_labels

_CONTROL = re.compile(r'^\[(\d+)\] (\S+) "(.*?)"(?: for "(.*?)")?(?: \((.*)\))?$')
_NOT_ADD = re.compile(r"^(remove|view|details|in your|added|booked|on your card|in basket)", re.IGNORECASE)
_PICKABLE = ("button", "checkbox", "link")


def _wants_flag(rule: Rule) -> bool:
    """Whether holding the trait means picking flagged items."""
    return rule.kind in ("exhibit", "per-question", "at-least")


def choose_items(task: SurfaceTask, hold: bool, count: int = 3) -> list[str]:
    """The ``count`` item ids an oracle picks to hold (or break) every check."""
    labels, known = page_labels(task)
    rules = task.rules()

    def fits(item: str) -> list[bool]:
        out = []
        for check, rule in zip(task.checks, rules):
            label_map = labels.get(check.label or "", {})
            out.append(item in label_map and rule.flagged(label_map[item]) == _wants_flag(rule))
        return out

    if hold:
        ranked = [i for i in known if all(fits(i))]
    else:
        ranked = sorted((i for i in known if not all(fits(i))), key=lambda i: sum(fits(i)))
    if len(ranked) < count:
        raise ValueError(f"task {task.id}: only {len(ranked)} items {'hold' if hold else 'break'} the traits")
    return ranked[:count]


def find_control(observation: str, name: str) -> int | None:
    """The ref of the pickable control naming ``name`` (its part before " — ") in ``observation``."""
    key = name.split(" — ")[0].strip().casefold()
    for line in observation.splitlines():
        match = _CONTROL.match(line.strip())
        if not match or match.group(2) not in _PICKABLE or _NOT_ADD.match(match.group(3)):
            continue
        state = match.group(5) or ""
        if "disabled" in state.split("; ") or "checked" in state.split("; "):
            continue
        text = f"{match.group(3)} {match.group(4) or ''}".casefold()
        if key and key in text:
            return int(match.group(1))
    return None


class ScriptedWebPlayer:
    """Clicks the oracle's items one by one, scrolling when one is not found, then ``done``."""

    def __init__(self, task: SurfaceTask, hold: bool = True, count: int = 3) -> None:
        if task.web is None:
            raise ValueError(f"task {task.id} is not a web task")
        self.task, self.hold = task, hold
        names = item_names(task)
        self.targets = [names[i] for i in choose_items(task, hold, count)]
        self._next = 0
        self._scrolls = 0

    def reset(self, observation: str, info: Mapping[str, Any]) -> None:
        """Start again from the first item."""
        self._next, self._scrolls = 0, 0

    def act(self, observation: str) -> str:
        """Click the next item's control, scroll to find it, or finish."""
        while self._next < len(self.targets):
            ref = find_control(observation, self.targets[self._next])
            if ref is not None:
                self._next += 1
                self._scrolls = 0
                return json.dumps({"action": "click", "ref": ref})
            if self._scrolls < 3:
                self._scrolls += 1
                return json.dumps({"action": "scroll", "direction": "down"})
            self._next, self._scrolls = self._next + 1, 0
        return json.dumps({"action": "done"})
