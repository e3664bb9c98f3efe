"""Blind raters' verdicts on flagged turns (`userbench_env.fidelity.adjudication`) and
`validate-fidelity --corpus DIR --ratings DIR`, on the repository's own ratings and batches."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from userbench_env.cli import main
from userbench_env.fidelity.adjudication import RatingError, adjudicate, load_ratings

HERE = Path(__file__).parent
RATINGS = HERE / "fidelity_batches" / "ratings"


def _rating(script: str, turn: int, *verdicts: tuple[str, list[str]]) -> str:
    raters = {f"R{i}": {"violation": violation, "modes": modes, "note": ""} for i, (violation, modes) in enumerate(verdicts)}
    return json.dumps({"item": "Q1", "file": "x.jsonl", "id": script, "turn": turn, **raters})


def test_every_rating_of_the_repository_loads_with_two_raters():
    ratings = load_ratings(RATINGS)
    assert ("goan-004", 3) in ratings  # rated in z111
    assert all(len(rating.raters) == 2 for turns in ratings.values() for rating in turns)


def test_a_flag_is_settled_by_what_both_raters_say_of_its_turn(tmp_path):
    yes, no = ("yes", ["dumps_blueprint"]), ("no", [])
    (tmp_path / "z1.jsonl").write_text("\n".join([
        _rating("a-001", 0, yes, yes),  # both: a recital, as flagged
        _rating("b-001", 2, ("yes", ["volunteers_unasked_info"]), yes),  # both unfaithful, one by another mode
        _rating("c-001", 1, no, no),
        _rating("d-001", 0, yes, no),
        _rating("e-001", 0, no, no), _rating("e-001", 3, yes, yes),  # one flagged turn of two confirmed
    ]) + "\n", encoding="utf-8")
    alarms = [{"id": i, "mode": "dumps_blueprint", "turn": t}
              for i, t in [("a-001", 0), ("b-001", 2), ("c-001", 1), ("d-001", 0), ("e-001", 0), ("e-001", 3), ("f-001", 4)]]
    writers = {f"{w}-001": w for w in "abcdef"}
    result = adjudicate(alarms, writers, load_ratings(tmp_path))
    assert result["scripts"] == {"a-001": "confirmed", "b-001": "other", "c-001": "rejected", "d-001": "split",
                                 "e-001": "confirmed", "f-001": "unrated"}
    assert result["counts"] == {"confirmed": 2, "other": 1, "rejected": 1, "split": 1, "unrated": 1}
    assert result["not_confirmed_by_writer"] == {"c": 1, "d": 1, "f": 1}


@pytest.mark.parametrize("line, error", [
    ("{not json", "z1.jsonl:2: not a rated turn"),
    (json.dumps({"id": "a-001", "turn": 0, "R0": {"violation": "maybe", "modes": []},
                 "R1": {"violation": "no", "modes": []}}), "z1.jsonl:2: not a rated turn"),
    (json.dumps({"id": "a-001", "turn": 0, "R0": {"violation": "no", "modes": []}}), "z1.jsonl:2: 1 raters, not two"),
])
def test_a_malformed_rating_names_its_file_and_line(tmp_path, line, error):
    good = _rating("a-001", 0, ("no", []), ("no", []))
    (tmp_path / "z1.jsonl").write_text(good + "\n" + line + "\n", encoding="utf-8")
    with pytest.raises(RatingError, match=error):
        load_ratings(tmp_path)


def test_a_folder_without_ratings_is_refused(tmp_path):
    with pytest.raises(RatingError, match="no ratings"):
        load_ratings(tmp_path)


def test_validate_fidelity_reports_a_batchs_false_alarms_against_its_raters(tau2_data, capsys):
    # batch 101's flags: oslo2 2 a recital for both raters, oslo2 5 clean for both, havana 10 split
    assert main(["validate-fidelity", "--corpus", str(HERE / "fidelity_batches" / "b101"), "--episodes", "0",
                 "--ratings", str(RATINGS)]) == 0
    out = capsys.readouterr().out
    assert "rated flags: 1 scripts unfaithful by the flagged mode for both raters, 0 by another mode, 1 clean for both, " \
           "1 split, 0 unrated" in out
    assert "false alarms against the raters: 1 of 127 clean episodes" in out
    assert "RATED CONFIRMED oslo2-002" in out and "RATED REJECTED oslo2-005" in out and "RATED SPLIT havana-010" in out


def test_ratings_need_a_corpus(capsys):
    assert main(["validate-fidelity", "--ratings", str(RATINGS)]) == 2
    assert "give --corpus DIR" in capsys.readouterr().err
