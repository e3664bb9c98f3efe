"""How the rule tracker hands user texts to its rules: every rule hears every user text
with its reading of it, except a cued rule (``Rule.cued``) whose reading is None.

A reading of None must mean that nothing is at stake: replayed over the hand-written
corpus, cued rules handed every text anyway give the same violations and verdicts, a text
the invented-information check reads as grounded in the scenario is never invented in the
episode it is said in, and one the recital check reads as quiet recites nothing."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from userbench_env.fidelity.corpus import _env, load_corpus, replay_case
from userbench_env.fidelity.rules import DumpsBlueprint, InventedInformation, RuleTracker, statement

CORPUS = Path(__file__).resolve().parent / "fidelity_corpus"


def _replayed(cases: list[Any]) -> list[tuple[Any, list[dict]]]:
    """Per case, its replay result and the tracker's final verdicts."""
    out = []
    for case in cases:
        result = replay_case(case)
        out.append((result.model_dump(), _env(case).unwrapped.tracker.verdicts()))
    return out


@pytest.fixture(scope="module")
def cases(tau2_data: Path) -> list[Any]:
    """Every other case of the corpus (each domain and mode is represented)."""
    return load_corpus(CORPUS)[::2]


def test_every_rule_hears_every_user_text_but_a_cued_rule_only_its_cues(tau2_data: Path) -> None:
    from userbench_env.fidelity.criteria import task_criteria
    from userbench_env.tasks import load_task

    tracker = RuleTracker(task_criteria(load_task("airline", "8", source="tau2")))
    heard: list[tuple[str, Any]] = []
    for rule in tracker.rules:
        original = rule.user_text
        rule.user_text = lambda turn, text, reading, _name=rule.name, _original=original: (
            heard.append((_name, reading)), _original(turn, text, reading))
    texts = ["Hi, I want to book the same flight as last time.", "Thanks! ###STOP###"]
    tracker.agent_text(0, "Hi! How can I help you today?")
    for turn, text in enumerate(texts):
        tracker.user_text(turn, text)
    for rule in tracker.rules:
        readings = [reading for name, reading in heard if name == rule.name]
        if rule.cued:
            assert None not in readings and len(readings) <= len(texts), rule.name
        else:
            assert len(readings) == len(texts), rule.name
    assert [name for name, _ in heard if name == "premature_stop"] == ["premature_stop"]  # cued by the stop only


def test_texts_skipped_as_grounded_are_never_invented(cases: list[Any], monkeypatch: pytest.MonkeyPatch) -> None:
    """A user text whose reading is None (it states nothing the scenario alone does not
    ground) is not invented against everything the user has heard by then either."""
    checked, invented = [], []
    user_text = InventedInformation.user_text

    def checking(self: InventedInformation, turn: int, text: str, said: Any) -> None:
        stated = statement(text)
        if said is None and (stated.identifiers or stated.labelled or stated.numeric or stated.codes):
            self._read_heard()
            asked = bool(self.feed.agent) and bool(self.feed.agent[-1][3])
            (invented if self._heard.invented(stated, self._known, self._values, asked)[0] else checked).append(text)
        user_text(self, turn, text, said)

    monkeypatch.setattr(InventedInformation, "user_text", checking)
    assert all(replay_case(case).error is None for case in cases)
    assert invented == [] and len(checked) > 50


def test_texts_skipped_as_quiet_recite_nothing(cases: list[Any], monkeypatch: pytest.MonkeyPatch) -> None:
    """A user text the recital check skips (its reading is None) passes every recital
    criterion whatever the agent's latest text asked about."""
    checked, recited = [], []
    user_text = DumpsBlueprint.user_text

    def checking(self: DumpsBlueprint, turn: int, text: str, reading: Any) -> None:
        if reading is None:
            agent = self.feed.agent
            prompt = self.compiled.prompted(agent[-1][2]) if agent else frozenset()
            (recited if self.compiled.read(text, prompt) is not None else checked).append(text)
        user_text(self, turn, text, reading)

    monkeypatch.setattr(DumpsBlueprint, "user_text", checking)
    assert all(replay_case(case).error is None for case in cases)
    assert recited == [] and len(checked) > 200
