"""How the rule tracker hands user texts to its rules: one memoized analysis per text, and
rules skipped when nothing they could decide is at stake (``Rule.read``, ``Rule.listens``).

Skipping is an optimisation only: replayed over the hand-written corpus, a tracker whose
rules hear every text they can hear gives the same violations and verdicts, and a text the
invented-information check skips as grounded in the scenario is never invented in the
episode it is said in."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from userbench_env.fidelity.corpus import _env, load_corpus, replay_case
from userbench_env.fidelity.rules import DumpsBlueprint, InventedInformation, Memo, RuleTracker, statement

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


def test_memo_computes_once_and_stays_bounded() -> None:
    calls: list[str] = []
    memo: Memo[int] = Memo(lambda key: calls.append(key) or len(key), size=2)
    assert [memo["ab"], memo["ab"], memo["abc"]] == [2, 2, 3]
    assert calls == ["ab", "abc"]
    assert memo["abcd"] == 4 and len(memo) == 1  # full: emptied before the new entry
    assert memo["ab"] == 2 and calls == ["ab", "abc", "abcd", "ab"]


def _keep_awake(monkeypatch: pytest.MonkeyPatch, awake: Any) -> None:
    """Make every tracker hand every user text to the rules for which ``awake(rule class)`` holds."""
    original = RuleTracker.__init__

    def init(self: RuleTracker, criteria: Any) -> None:
        original(self, criteria)
        self._awake |= sum(1 << i for i, (cls, _, _) in enumerate(self._plan.groups) if awake(cls))
        self._unsettled = []

    monkeypatch.setattr(RuleTracker, "__init__", init)


def test_sleeping_and_waking_rules_change_no_verdict(cases: list[Any], monkeypatch: pytest.MonkeyPatch) -> None:
    """Rules put to sleep once settled, or woken only by a request or a user call, decide
    exactly what they decide when they hear every text."""
    dispatched = _replayed(cases)
    _keep_awake(monkeypatch, lambda cls: cls.listens != "cued")
    heard_all = _replayed(cases)
    assert all(result["error"] is None for result, _ in dispatched + heard_all)  # (a rule raising ends a replay)
    assert sum(len(result["events"]) for result, _ in dispatched) > 100  # the corpus does exercise the rules
    for case, (result, verdicts), (expected, expected_verdicts) in zip(cases, dispatched, heard_all):
        assert (result, verdicts) == (expected, expected_verdicts), case.id


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
    _keep_awake(monkeypatch, lambda cls: cls is InventedInformation)  # hear every text, skipped ones included
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
    _keep_awake(monkeypatch, lambda cls: cls is DumpsBlueprint)
    assert all(replay_case(case).error is None for case in cases)
    assert recited == [] and len(checked) > 200
