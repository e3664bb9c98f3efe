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


def _raters(rating: dict) -> list[str]:
    """The two raters of a rating line (their one-letter names: G and H, I and J)."""
    raters = sorted(key for key in rating if len(key) == 1 and key.isupper())
    assert len(raters) == 2, rating
    return raters


@pytest.mark.parametrize("mode", ["dumps_blueprint", "volunteers_unasked_info"])
def test_corpus_labels_agree_with_turns_both_blind_raters_agree_on(mode):
    cases = {case.id: case for case in load_corpus(HERE / "fidelity_corpus")}
    disagree = []
    for rating in _ratings(mode):
        case = cases[rating["id"]]
        assert rating["turn"] < len(case.turns), rating
        first, second = (rating[rater] for rater in _raters(rating))
        if first != second or first == "unsure":
            continue
        labelled = any(label.mode == mode and label.turn == rating["turn"] for label in case.expect)
        if labelled != (first != "no"):  # "dump", "volunteers": the failure seen
            disagree.append((rating["id"], rating["turn"], first))
    assert disagree == []
