"""A scripted app player that reads coordinates from the text observation only.

:class:`ScriptedAppPlayer` knows which rows to want (it reads the task's hidden labels:
an oracle, for tests and benchmarks), but acts like a text-only policy: each step it
finds the wanted row's add button, or the submit button, in the widget list of the
observation and clicks its centre. ``hold=True`` wants rows that keep every check;
``hold=False`` wants rows that break the first check.
"""
from __future__ import annotations

import json
import re

from userbench_env.surfaces.rules import Rule
from userbench_env.surfaces.tasks import SurfaceTask

BUTTON_LINE = re.compile(r'^- button "(?P<text>[^"]*)"(?: for "(?P<context>[^"]*)")? at \((?P<x>\d+), (?P<y>\d+)\)$')


def buttons(text: str) -> list[tuple[str, str, int, int]]:
    """(text, context, x, y) of every button listed in an observation's text."""
    out = []
    for line in text.splitlines():
        match = BUTTON_LINE.match(line.strip())
        if match:
            out.append((match["text"], match["context"] or "", int(match["x"]), int(match["y"])))
    return out


def _keeps(rule: Rule, label: bool | int) -> bool:
    """Whether one row with ``label`` keeps a check under ``rule``."""
    return not rule.flagged(label) if rule.kind in ("avoid", "tier") else rule.flagged(label)


def wanted_rows(task: SurfaceTask, hold: bool) -> list[str]:
    """Names of the rows the player adds: ``min_picks`` of them."""
    assert task.app is not None
    rules = task.rules()
    chosen = []
    for item in task.app.items:
        keeps = [_keeps(rule, task.answer_key[c.label][item.id]) for c, rule in zip(task.checks, rules) if c.label]
        if (all(keeps) if hold else not keeps[0]):
            chosen.append(item.name)
    if len(chosen) < task.app.min_picks:
        raise ValueError(f"task {task.id}: only {len(chosen)} rows fit a {'holding' if hold else 'breaking'} player")
    return chosen[: task.app.min_picks]


class ScriptedAppPlayer:
    """Clicks the wanted rows' add buttons, then submit, by coordinates from the text."""

    def __init__(self, task: SurfaceTask, hold: bool = True) -> None:
        assert task.app is not None
        self.task, self.todo = task, wanted_rows(task, hold)

    def act(self, text: str) -> str:
        """The next action for the observation ``text``."""
        assert self.task.app is not None
        visible = buttons(text)
        for text_, context, x, y in visible:
            if self.todo and context == self.todo[0] and text_ == self.task.app.add_label:
                self.todo.pop(0)
                return json.dumps({"type": "click", "x": x, "y": y})
        if self.todo:
            raise RuntimeError(f"no add button for {self.todo[0]!r} in the observation")
        for text_, _, x, y in visible:
            if text_ == self.task.app.submit_label:
                return json.dumps({"type": "click", "x": x, "y": y})
        return json.dumps({"type": "done"})
