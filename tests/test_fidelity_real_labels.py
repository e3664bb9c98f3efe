"""Blind raters' labels of real users' turns (``tests/real_user_labels``) and
``userbench validate-fidelity --real-labels``: loading with one-line errors, rater agreement
and the rules' precision, recall and conversation verdicts on small hand-made labels with
answers worked out by hand, and the whole measurement on the real labels and tau-bench's
GPT-4o transcripts (structure only: the rules' numbers change as the rules do).
"""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from tests.resources import real_transcripts, tau2_data
from userbench_env.cli import main
from userbench_env.fidelity.labels import LabelError, default_labels_dir, load_label_dir, read_rater_file
from userbench_env.fidelity.taxonomy import rule_modes
from userbench_env.fidelity.validity import RuleFlags, agreement, check_turns_exist, cohen_kappa, validity

LABELS = Path(__file__).resolve().parent / "real_user_labels"
REAL = "taubench-gpt4o-airline.json"
VOL, DUMP, STOP, WITH, PERS = ("volunteers_unasked_info", "dumps_blueprint", "premature_stop",
                               "withholds_requested_info", "unsupported_personal_state")


def _turn(episode: str, turn: int, violation: str, *modes: str, note: str = "") -> dict:
    return {"episode_id": episode, "customer_turn": turn, "violation": violation, "modes": list(modes), "note": note}


def _write(path: Path, labels: list[dict]) -> Path:
    path.write_text("".join(json.dumps(label) + "\n" for label in labels), encoding="utf-8")
    return path


# -- loading --------------------------------------------------------------------------------------
def test_the_repository_labels_load_as_four_sets_of_two_raters() -> None:
    sets = load_label_dir(default_labels_dir())
    assert default_labels_dir() == LABELS
    assert [s.name for s in sets] == ["t0", "t1", "t2", "t3"]
    raters = (["raterA", "raterB"], ["raterA", "raterB"], ["raterC", "raterD"], ["raterE", "raterF"])
    for labelled, turns, pair in zip(sets, (162, 150, 157, 178), raters):
        assert [r.rater for r in labelled.raters] == pair
        for rater in labelled.raters:
            assert len(rater.turns) == turns and len(rater.episodes) == 23
            assert {episode for episode, _ in rater.turns} == set(rater.episodes)
            assert all(episode.endswith(f"-{labelled.name}") for episode in rater.episodes)


@pytest.mark.parametrize(("line", "error", "number"), [
    ("{not json", "not JSON", 3),
    ('{"episode_id": "e1", "violation": "no"}', "neither a turn label (with customer_turn) nor a conversation verdict", 3),
    ('["e1", 1]', "neither a turn label", 3),
    (json.dumps(_turn("e1", 0, "no")), "customer_turn: Input should be greater than or equal to 1", 3),
    (json.dumps(_turn("e1", 2, "maybe")), "violation: Input should be 'yes', 'no' or 'unsure'", 3),
    (json.dumps(_turn("e1", 2, "yes", "rambles")), "unknown mode(s) rambles", 3),
    (json.dumps(_turn("e1", 2, "no", VOL)), f"violation 'no' names modes {VOL}", 3),
    (json.dumps(_turn("e1", 2, "yes")), "violation 'yes' names no mode", 3),
    (json.dumps({**_turn("e1", 2, "no"), "rater": "A"}), "rater: Extra inputs are not permitted", 3),
    ('{"episode_id": "e1", "episode_faithful": "mostly"}', "episode_faithful: Input should be 'yes' or 'no'", 3),
    (json.dumps(_turn("e1", 1, "no")), "turn 1 of e1 labelled again (first at line 1)", 3),
    ('{"episode_id": "e1", "episode_faithful": "yes"}\n{"episode_id": "e1", "episode_faithful": "no"}',
     "conversation e1 labelled again (first at line 3)", 4),
])
def test_a_bad_label_line_is_one_error_naming_file_and_line(tmp_path, line: str, error: str, number: int) -> None:
    path = tmp_path / "raterA_t0.jsonl"
    path.write_text(json.dumps(_turn("e1", 1, "no")) + "\n\n" + line + "\n", encoding="utf-8")
    with pytest.raises(LabelError) as raised:
        read_rater_file(path, "raterA")
    message = str(raised.value)
    assert "\n" not in message and message.startswith(f"{path}:{number}: ") and error in message, message


def test_a_label_directory_needs_rater_set_names_and_two_raters_per_set(tmp_path) -> None:
    with pytest.raises(LabelError, match="no label files"):
        load_label_dir(tmp_path)
    with pytest.raises(LabelError, match="no label directory at"):
        load_label_dir(tmp_path / "absent")
    _write(tmp_path / "raterA_t0.jsonl", [_turn("e1", 1, "no")])
    with pytest.raises(LabelError, match=r"set 't0' .* 1 rater file\(s\) \(raterA_t0.jsonl\); agreement needs exactly two"):
        load_label_dir(tmp_path)
    _write(tmp_path / "raterB_t0.jsonl", [_turn("e1", 1, "no")])
    assert [[r.rater for r in s.raters] for s in load_label_dir(tmp_path)] == [["raterA", "raterB"]]
    _write(tmp_path / "labels.jsonl", [])
    with pytest.raises(LabelError, match=r"labels.jsonl: a label file is named <rater>_<set>.jsonl"):
        load_label_dir(tmp_path)


# -- the measurement on hand-made labels ------------------------------------------------------
def _hand_made(tmp_path: Path):
    """Two raters on four conversations, and the rules' flags on three of them (e4 unscored).

    e1: t1 both no, flagged premature_stop            -> a false flag
        t2 both yes (A: vol; B: vol + dump), flagged dump -> confirmed (B named it); vol missed
        t3 both yes (withholds), flagged withholds    -> confirmed, and a hit
        t4 A yes (withholds), B no, flagged withholds -> not counted
        t5 both unsure                                -> not counted
        t6 both no, no flag
    e2: t1 both yes (unsupported_personal_state: judge-only, outside recall); t2, t3 both no; no flags
    e3: t1 both no; t2 both no, flagged premature_stop -> a false flag; raters faithful, rules fail
    e4: t1 both no, not scored                        -> agreement only
    Verdicts: A calls e1 and e2 unfaithful; B calls e1 unfaithful and e2 faithful.
    """
    shared = [_turn("e1", 1, "no"), _turn("e1", 3, "yes", WITH), _turn("e1", 5, "unsure", note="hard to say"),
              _turn("e1", 6, "no"), _turn("e2", 1, "yes", PERS), _turn("e2", 2, "no"), _turn("e2", 3, "no"),
              _turn("e3", 1, "no"), _turn("e3", 2, "no"), _turn("e4", 1, "no")]
    a = shared + [_turn("e1", 2, "yes", VOL, note="A: id unasked"), _turn("e1", 4, "yes", WITH),
                  {"episode_id": "e1", "episode_faithful": "no"}, {"episode_id": "e2", "episode_faithful": "no"}]
    b = shared + [_turn("e1", 2, "yes", VOL, DUMP, note="B: id unasked"), _turn("e1", 4, "no"),
                  {"episode_id": "e1", "episode_faithful": "no"}, {"episode_id": "e2", "episode_faithful": "yes"}]
    _write(tmp_path / "raterA_x.jsonl", a)
    _write(tmp_path / "raterB_x.jsonl", b)
    flags = RuleFlags(modes={("e1", 1): {STOP}, ("e1", 2): {DUMP}, ("e1", 3): {WITH}, ("e1", 4): {WITH}, ("e3", 2): {STOP}},
                      texts={(e, t): f"{e} turn {t}" for e, n in (("e1", 6), ("e2", 3), ("e3", 2)) for t in range(1, n + 1)},
                      turn_counts={"e1": 6, "e2": 3, "e3": 2})
    return load_label_dir(tmp_path), flags


def test_rater_agreement_on_hand_made_labels(tmp_path) -> None:
    sets, _ = _hand_made(tmp_path)
    got = agreement(sets)
    # 12 turns, all but e1 t4 agree; A: 4 yes, 7 no, 1 unsure; B: 3 yes, 8 no, 1 unsure
    observed, chance = 11 / 12, (4 * 3 + 7 * 8 + 1 * 1) / 12 ** 2
    assert got.kappa == pytest.approx((observed - chance) / (1 - chance)) == pytest.approx(63 / 75)
    assert (got.turns, got.turns_per_rater, got.violation_agree) == (12, [12, 12], 11)
    assert (got.both_decided, got.decided_agree, got.both_yes, got.sharing_a_mode) == (11, 10, 3, 3)
    assert (got.episodes, got.episode_agree, got.faithful_per_rater) == (2, 1, [0, 1])
    assert got.raters == ["raterA", "raterB"]


def test_rules_validity_on_hand_made_labels(tmp_path) -> None:
    sets, flags = _hand_made(tmp_path)
    got = validity(sets, flags)
    # counted: e1 t1 t2 t3 t6, e2 t1 t2 t3, e3 t1 t2 (e4 unscored)
    assert (got.counted_turns, got.agreed_violations, got.agreed_clean) == (9, 3, 6)
    rows = {row.mode: (row.flags, row.confirmed, row.precision, row.violations, row.flagged, row.recall) for row in got.modes}
    assert rows == {
        VOL: (0, 0, None, 1, 0, 0.0),          # e1 t2: both named it, flagged only dumps_blueprint
        DUMP: (1, 1, 1.0, 0, 0, None),         # e1 t2: B named it, A did not: confirmed, not a violation both named
        STOP: (2, 0, 0.0, 0, 0, None),         # e1 t1 and e3 t2, both clean turns
        WITH: (1, 1, 1.0, 1, 1, 1.0),          # e1 t3 (e1 t4 is not counted)
    }
    assert [m for m in rows] == [m for m in rule_modes() if m in rows]  # taxonomy order
    assert (got.flags, got.confirmed, got.precision) == (4, 2, 0.5)
    assert (got.violations, got.flagged, got.recall) == (2, 1, 0.5)
    # e1: unfaithful, flagged (agree); e2: only a judge-only mode, no flag (agree); e3: faithful, flagged
    assert (got.episodes, got.episode_agree, got.raters_faithful, got.rules_pass) == (3, 2, 2, 1)
    assert got.unscored_episodes == ["e4"]
    assert [(f.episode, f.turn, f.mode, f.rater_modes, f.text) for f in got.false_flags] == [
        ("e1", 1, STOP, [], "e1 turn 1"), ("e3", 2, STOP, [], "e3 turn 2")]
    assert [(m.episode, m.turn, m.mode, m.flagged, m.notes) for m in got.misses] == [
        ("e1", 2, VOL, [DUMP], ["A: id unasked", "B: id unasked"])]
    assert [(d.episode, d.raters_faithful, d.rules_pass, d.flagged) for d in got.episode_disagreements] == [
        ("e3", True, False, [STOP])]


def test_pooled_sets_add_up_and_kappa_is_undefined_without_chance_disagreement(tmp_path) -> None:
    (tmp_path / "x").mkdir()
    (tmp_path / "y").mkdir()
    first, flags = _hand_made(tmp_path / "x")
    _write(tmp_path / "y" / "raterA_y.jsonl", [_turn("e3", 1, "no"), _turn("e3", 2, "yes", STOP)])
    _write(tmp_path / "y" / "raterB_y.jsonl", [_turn("e3", 1, "no"), _turn("e3", 2, "yes", STOP, VOL)])
    second = load_label_dir(tmp_path / "y")
    alone, pooled = validity(second, flags), validity(first + second, flags)
    assert (alone.flags, alone.confirmed, alone.violations, alone.flagged) == (1, 1, 1, 1)
    assert (pooled.flags, pooled.confirmed, pooled.violations, pooled.flagged) == (5, 3, 3, 2)
    assert agreement(first + second).turns == 14
    assert cohen_kappa([("no", "no"), ("no", "no")]) is None
    assert cohen_kappa([("yes", "no"), ("no", "yes")]) == pytest.approx(-1.0)


def test_a_labelled_turn_beyond_its_conversation_names_its_label_line(tmp_path) -> None:
    sets, flags = _hand_made(tmp_path)
    check_turns_exist(sets, flags)
    flags.turn_counts["e1"] = 5
    with pytest.raises(LabelError) as raised:
        check_turns_exist(sets, flags)
    assert str(raised.value) == (f"{tmp_path / 'raterA_x.jsonl'}:4: customer turn 6 of e1, "
                                 "which has 5 customer turn(s) in the transcripts")
    with pytest.raises(LabelError, match="none of the labelled conversations is among the scored transcripts"):
        check_turns_exist(sets, RuleFlags({}, {}, {"other": 3}))


# -- the real labels and the real transcripts --------------------------------------------------
@pytest.fixture(scope="module")
def real(tmp_path_factory):
    """(tau-bench's entries, score-transcripts' lines, the command's JSON reports, its stdout)."""
    tau2_data()
    path = real_transcripts() / REAL
    out = tmp_path_factory.mktemp("real")
    assert main(["score-transcripts", str(path), "--format", "taubench", "--domain", "airline", "--source", "tau2",
                 "--out", str(out / "f.jsonl")]) == 0
    return (json.loads(path.read_text(encoding="utf-8")),
            [json.loads(line) for line in (out / "f.jsonl").read_text(encoding="utf-8").splitlines()],
            out, path)


def test_validate_fidelity_on_the_real_labels(real, capsys) -> None:
    entries, lines, out, path = real
    capsys.readouterr()
    assert main(["validate-fidelity", "--real-labels", str(LABELS), "--transcripts", str(path), "--domain", "airline",
                 "--source", "tau2", "--json", str(out / "v.json")]) == 0
    printed = capsys.readouterr().out
    reports = {r["name"]: r for r in json.loads((out / "v.json").read_text(encoding="utf-8"))}
    assert list(reports) == ["t0", "t1", "t2", "t3", "t0+t1+t2+t3"]
    assert [reports[name]["agreement"]["turns"] for name in reports] == [162, 150, 157, 178, 647]
    assert [reports[name]["agreement"]["episodes"] for name in reports] == [23, 23, 23, 23, 92]
    for name, report in reports.items():
        assert f"labelled set {name} (raters " in printed
        a, v = report["agreement"], report["validity"]
        assert v["unscored_episodes"] == [] and v["episodes"] == a["episodes"]
        assert v["counted_turns"] == a["decided_agree"] == v["agreed_violations"] + v["agreed_clean"]
        assert v["flags"] == sum(row["flags"] for row in v["modes"]) >= v["confirmed"] == sum(r["confirmed"] for r in v["modes"])
        assert v["violations"] == sum(row["violations"] for row in v["modes"]) >= v["flagged"]
        assert len(v["false_flags"]) == v["flags"] - v["confirmed"] and len(v["misses"]) == v["violations"] - v["flagged"]
        assert len(v["episode_disagreements"]) == v["episodes"] - v["episode_agree"]
        assert {row["mode"] for row in v["modes"]} <= set(rule_modes())
    for key in ("flags", "confirmed", "violations", "flagged", "counted_turns", "episode_agree"):
        assert reports["t0+t1+t2+t3"]["validity"][key] == sum(reports[name]["validity"][key] for name in ("t0", "t1", "t2", "t3"))

    # every labelled turn is a user message of its trajectory, and the readable lists quote it
    traj_users = {f"tb{e['task_id']}-t{e['trial']}": [m["content"] for m in e["traj"] if m["role"] == "user"]
                  for e in entries}
    sets = load_label_dir(LABELS)
    for labelled in sets:
        for rater in labelled.raters:
            for episode, turn in rater.turns:
                assert 1 <= turn <= len(traj_users[episode]), rater.where((episode, turn))
    listed = reports["t0+t1+t2+t3"]["validity"]["false_flags"] + reports["t0+t1+t2+t3"]["validity"]["misses"]
    assert listed and all(item["text"] == traj_users[item["episode"]][item["turn"] - 1] for item in listed)

    # the flags counted are score-transcripts' flags on the turns both raters answered alike
    counted = {key for s in sets for key in s.raters[0].turns.keys() & s.raters[1].turns.keys()
               if s.raters[0].turns[key].violation == s.raters[1].turns[key].violation != "unsure"}
    by_episode = {f"tb{e['task_id']}-t{e['trial']}": e for e in entries}
    on_counted = Counter()
    for line in lines:
        traj = by_episode[line["episode"]]["traj"]
        turn_of = {i: sum(m["role"] == "user" for m in traj[:i + 1]) for i, m in enumerate(traj) if m["role"] == "user"}
        on_counted.update({(line["episode"], turn_of[f["message_index"]], f["mode"]) for f in line["flags"]
                           if (line["episode"], turn_of[f["message_index"]]) in counted})
    assert reports["t0+t1+t2+t3"]["validity"]["flags"] == len(on_counted)


def test_transcripts_of_tasks_the_source_lacks_are_one_error_naming_the_source(real, capsys) -> None:
    _, _, _, path = real  # tau-bench entries naming tau2 tasks, scored against the bundled worlds
    assert main(["validate-fidelity", "--real-labels", str(LABELS), "--transcripts", str(path), "--domain", "airline"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and err.startswith(f"userbench validate-fidelity: none of the 92 entries of {path} could be scored")
    assert err.endswith("add --source tau2")


def test_rule_flags_leave_out_flags_a_judge_overturned(real) -> None:
    from userbench_env.fidelity.transcripts import TaskChoice, score_file

    _, _, _, path = real
    scored = score_file(path, "taubench", TaskChoice("airline", source="tau2"))
    before = RuleFlags.from_scored(scored)
    line = next(line for line in scored.lines if line["flags"])
    line["flags"] = [{**flag, "verdict": "pass"} for flag in line["flags"]]
    after = RuleFlags.from_scored(scored)
    assert before.episode_flagged(line["episode"]) and not after.episode_flagged(line["episode"])
    assert sum(map(len, after.modes.values())) < sum(map(len, before.modes.values()))


def test_validate_fidelity_real_labels_bad_input_is_one_line(tmp_path, capsys) -> None:
    assert main(["validate-fidelity", "--real-labels", str(LABELS), "--domain", "airline"]) == 2
    assert capsys.readouterr().err.strip() == ("userbench validate-fidelity: validate-fidelity --real-labels needs "
                                               "--transcripts FILE and --domain (the transcripts' domain)")
    bad = tmp_path / "labels"
    bad.mkdir()
    (bad / "raterA_t0.jsonl").write_text('{"episode_id": "tb0-t0", "customer_turn": 1, "violation": "nope"}\n')
    (bad / "raterB_t0.jsonl").write_text("")
    assert main(["validate-fidelity", "--real-labels", str(bad), "--transcripts", str(tmp_path / "x.json"),
                 "--domain", "airline"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and err.startswith(f"userbench validate-fidelity: {bad / 'raterA_t0.jsonl'}:1: violation")
    assert main(["validate-fidelity", "--real-labels", str(LABELS), "--transcripts", str(tmp_path / "x.json"),
                 "--domain", "airline"]) == 2
    assert capsys.readouterr().err.strip() == f"userbench validate-fidelity: no file at {tmp_path / 'x.json'}"
    assert main(["validate-fidelity", "--corpus", "--real-labels"]) == 2
    assert "not both" in capsys.readouterr().err
