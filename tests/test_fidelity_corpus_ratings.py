"""The hand-written corpus's labels against two blind raters' ratings of the same turns
(``tests/corpus_ratings``): where both raters give the same verdict, the label says it."""
from __future__ import annotations

import json

from pathlib import Path

import pytest

from userbench_env.fidelity.corpus import load_corpus

HERE = Path(__file__).parent


def _ratings(mode: str) -> list[dict]:
    with open(HERE / "corpus_ratings" / f"{mode}.jsonl", encoding="utf-8") as f:
        return [json.loads(line) for line in f]


@pytest.mark.parametrize("mode", ["dumps_blueprint"])
def test_corpus_labels_agree_with_turns_both_blind_raters_agree_on(mode):
    cases = {case.id: case for case in load_corpus(HERE / "fidelity_corpus")}
    disagree = []
    for rating in _ratings(mode):
        case = cases[rating["id"]]
        assert rating["turn"] < len(case.turns), rating
        if rating["G"] != rating["H"] or rating["G"] == "unsure":
            continue
        labelled = any(label.mode == mode and label.turn == rating["turn"] for label in case.expect)
        if labelled != (rating["G"] == "dump"):
            disagree.append((rating["id"], rating["turn"], rating["G"]))
    assert disagree == []
