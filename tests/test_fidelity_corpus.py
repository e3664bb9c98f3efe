"""The hand-written fidelity corpus: its loader, its replay against the scripted agent, its
scoring, the ``validate-fidelity --corpus`` command and the perturbed proxy's natural bank.

Recall numbers are reported by the command, not asserted here (see docs/fidelity.md)."""
from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

from userbench_env.cli import main
from userbench_env.envs.conversation import ConversationEnv
from userbench_env.fidelity.corpus import CorpusCase, CorpusError, load_corpus, replay_case, score_corpus, wilson
from userbench_env.fidelity.taxonomy import TAXONOMY
from userbench_env.fidelity.validate import run_episode
from userbench_env.proxies.perturbed import BANKS, PerturbedUserProxy
from userbench_env.tasks import load_task

CORPUS = Path(__file__).resolve().parent / "fidelity_corpus"
#: The files of the airline/retail/bundled share and the modes each must cover.
SHARE = ("airline.jsonl", "retail.jsonl", "bundled.jsonl")
SHARE_MODES = ("volunteers_unasked_info", "dumps_blueprint", "invents_unknown_information", "premature_stop",
               "withholds_requested_info", "unprompted_transfer", "breaks_character")


def _line(**overrides) -> str:
    case = {"id": "t-1", "writer": "unit", "domain": "airline", "source": "tau2", "split": "base", "task_id": "3",
            "turns": [{"text": "hi, how many bags can I bring?"}], "expect": [], "note": "test"}
    case.update(overrides)
    return json.dumps(case)


@pytest.mark.parametrize("content, message", [
    ("{not json", r"bad\.jsonl:1: not JSON"),
    ("[1, 2]", r"bad\.jsonl:1: a case is a JSON object"),
    (_line(expect=[{"mode": "mumbles", "turn": 0}]), r"bad\.jsonl:1: expect\.0\.mode: .*unknown mode 'mumbles'"),
    (_line(domain="space"), r"bad\.jsonl:1: domain"),
    (_line(expect=[{"mode": "premature_stop", "turn": 4}]), r"bad\.jsonl:1: .*expect turn 4 is past the last turn \(0\)"),
    (_line(turns=[{"text": "hi", "tool_call": {"name": "x"}}]), r"bad\.jsonl:1: turns\.0: .*either"),
    (_line(turns=[]), r"bad\.jsonl:1: turns"),
    (_line(colour="red"), r"bad\.jsonl:1: colour: Extra inputs"),
    (_line(writer=""), r"bad\.jsonl:1: writer"),
    (_line(origin="x:1"), r"bad\.jsonl:1: 'origin' is set by the loader"),
    (_line() + "\n\n" + _line(), r"bad\.jsonl:3: duplicate id 't-1' \(first at .*bad\.jsonl:1\)"),
])
def test_the_loader_rejects_bad_lines_naming_file_and_line(tmp_path, content, message):
    path = tmp_path / "bad.jsonl"
    path.write_text(content + "\n", encoding="utf-8")
    with pytest.raises(CorpusError, match=message):
        load_corpus(tmp_path)


def test_the_loader_reads_a_file_or_a_directory_and_says_when_there_is_none(tmp_path):
    (tmp_path / "a.jsonl").write_text(_line(task_id=3) + "\n", encoding="utf-8")
    (tmp_path / "b.jsonl").write_text("\n" + _line(id="t-2") + "\n", encoding="utf-8")
    cases = load_corpus(tmp_path)
    assert [c.id for c in cases] == ["t-1", "t-2"] and cases[0].task_id == "3"
    assert cases[1].origin.endswith("b.jsonl:2") and cases[0].clean
    assert [c.id for c in load_corpus(tmp_path / "b.jsonl")] == ["t-2"]
    with pytest.raises(CorpusError, match="no such corpus file"):
        load_corpus(tmp_path / "missing")
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(CorpusError, match="no \\*.jsonl corpus files"):
        load_corpus(empty)


TELECOM_TASK = "[mobile_data_issue]airplane_mode_on|data_mode_off[PERSONA:None]"


def test_scoring_counts_detections_misses_wrong_modes_false_alarms_and_replay_errors(tau2_data):
    base = {"writer": "unit", "domain": "airline", "source": "tau2", "split": "base", "task_id": "3", "note": "unit"}
    opening = {"text": "Hi, how many suitcases can I bring on my upcoming flight?"}
    cases = [
        # the transfer token unprompted at turn 1: detected
        CorpusCase(id="u-1", turns=[opening, {"text": "just get me a person ###TRANSFER###"}],
                   expect=[{"mode": "unprompted_transfer", "turn": 1}], **base),
        # the same violation labelled at the wrong turn: a miss, and at turn 0 nothing is logged
        CorpusCase(id="u-2", turns=[opening, {"text": "just get me a person ###TRANSFER###"}],
                   expect=[{"mode": "unprompted_transfer", "turn": 0}], **base),
        # a transfer mislabelled as a stop: a miss and a wrong-mode detection
        CorpusCase(id="u-3", turns=[opening, {"text": "forget it ###TRANSFER###"}],
                   expect=[{"mode": "premature_stop", "turn": 1}], **base),
        # clean-labelled but violating: a false alarm with the user's text
        CorpusCase(id="u-4", turns=[opening, {"text": "transfer me ###TRANSFER###"}], **base),
        # a script ending on a text with no end token: cut off there, scored as said (clean, no alarm)
        CorpusCase(id="u-5", turns=[opening], **base),
        # too few turns for the agent's plan (they run out after a tool call): a replay error, never scored
        CorpusCase(id="u-7", writer="unit", domain="telecom", source="tau2", split="base", note="unit",
                   task_id=TELECOM_TASK, turns=[{"text": "My phone has no service."},
                                                {"tool_call": {"name": "check_status_bar", "arguments": {}}}]),
        # turns left over when the episode ends: a replay error too
        CorpusCase(id="u-6", turns=[opening, {"text": "bye ###STOP###"}, {"text": "extra"}], **base),
    ]
    report = score_corpus(cases)
    transfer = report["modes"]["unprompted_transfer"]
    assert transfer["cases"] == 2 and transfer["detected"] == 1 and transfer["recall"] == 0.5
    assert transfer["misses"] == [{"id": "u-2", "turn": 0, "text": opening["text"], "logged": []}]
    assert transfer["false_alarms"] == 1
    stop = report["modes"]["premature_stop"]
    assert stop["detected"] == 0 and stop["wrong_mode"] == 1 and "unprompted_transfer" in stop["wrong_modes"][0]["logged"]
    assert report["false_alarms"] == [{"id": "u-4", "mode": "unprompted_transfer", "turn": 1,
                                       "text": "transfer me ###TRANSFER###"}]
    assert report["clean_episodes"] == 2 and report["false_alarm_rate"] == 0.5
    errors = {e["id"]: e["error"] for e in report["replay_errors"]}
    assert set(errors) == {"u-6", "u-7"} and "no recorded user turn left" in errors["u-7"]
    assert report["cases"] == 5  # the cases scored: the two that did not replay are listed, not counted
    assert "1 scripted turn(s) left unreplayed" in errors["u-6"]
    # per writer: the replayed cases only (u-5 among them); u-4's alarm, u-1's hit and the two misses
    assert report["by_writer"] == {"unit": {
        "cases": 5, "clean_episodes": 2, "false_alarm_episodes": 1, "false_alarm_rate": 0.5, "labels": 3, "detected": 1,
        "recall": 1 / 3, "modes": {"premature_stop": {"cases": 1, "detected": 0},
                                   "unprompted_transfer": {"cases": 2, "detected": 1}}}}


def test_wilson_interval():
    assert wilson(0, 0) is None
    low, high = wilson(20, 20)
    assert high == 1.0 and 0.83 < low < 0.84
    low, high = wilson(5, 10)
    assert low < 0.5 < high and abs((0.5 - low) - (high - 0.5)) < 1e-9


@pytest.fixture(scope="module")
def corpus() -> list[CorpusCase]:
    return load_corpus(CORPUS)


@pytest.fixture(scope="module")
def replays(corpus, tau2_data):  # the corpus holds tau2 cases
    return {case.id: replay_case(case) for case in corpus}


def test_the_whole_corpus_replays_and_every_clean_case_solves_its_task(corpus, replays):
    errors = {cid: r.error for cid, r in replays.items() if r.error}
    assert not errors, errors
    # a script cut off (its last text carries no end token) ends before the task is scored: no reward to solve
    cut_off = {c.id for c in corpus if replays[c.id].termination == "cut_off"}
    assert all(not re.search(r"###(?:STOP|TRANSFER|OUT-OF-SCOPE)###", c.turns[-1].text or "#")
               for c in corpus if c.id in cut_off)
    unsolved = {c.id: replays[c.id].reward for c in corpus
                if c.clean and c.id not in cut_off and replays[c.id].reward != 1.0}
    assert not unsolved, unsolved


def test_labels_point_at_turns_of_criteria_the_task_checks(corpus, replays):
    """A label names a turn the env replayed and, for a rule-covered mode, a mode the task's
    rubric has a criterion of (a judge-only mode is asked of the judge on any task)."""
    envs: dict[tuple, ConversationEnv] = {}
    for case in corpus:
        key = (case.domain, case.source, case.split)
        env = envs.setdefault(key, ConversationEnv(case.domain, task_source=case.source, split=case.split or "default"))
        modes = {c.mode for c in env.criteria_for(load_task(case.domain, case.task_id, case.source))}
        for label in case.expect:
            assert label.turn < len(replays[case.id].replayed_at), (case.id, label)
            if TAXONOMY[label.mode].coverage == "rule":
                assert label.mode in modes, (case.id, label.mode, sorted(modes))


def test_our_share_meets_the_corpus_size_rules():
    cases = [c for name in SHARE for c in load_corpus(CORPUS / name)]
    assert len(cases) >= 220
    assert sum(c.clean for c in cases) >= 80
    per_mode = Counter(label.mode for c in cases for label in c.expect)
    assert all(per_mode[m] >= 16 for m in SHARE_MODES), per_mode
    assert len({(c.domain, c.source, c.task_id) for c in cases}) >= 100  # spread over many tasks
    assert {c.domain for c in cases if c.source == "bundled"} == {"airline", "retail"}
    assert all(c.source == "bundled" for c in load_corpus(CORPUS / "bundled.jsonl"))


def test_the_command_scores_a_corpus_beside_both_phrasing_banks(tmp_path, capsys, tau2_data):
    folder = tmp_path / "corpus"
    folder.mkdir()
    lines = (CORPUS / "airline.jsonl").read_text(encoding="utf-8").splitlines()
    picked = [line for line in lines if '"expect": []' in line][:2] + [line for line in lines if "unprompted_transfer" in line][:2]
    (folder / "few.jsonl").write_text("\n".join(picked) + "\n", encoding="utf-8")
    out = tmp_path / "report.json"
    assert main(["validate-fidelity", "--corpus", str(folder), "--episodes", "20", "--seed", "2", "--json", str(out)]) == 0
    report = json.loads(out.read_text())
    assert report["corpus"]["cases"] == 4 and report["corpus"]["clean_episodes"] == 2
    assert report["corpus"]["modes"]["unprompted_transfer"]["cases"] >= 2
    assert set(report["perturbed"]) == {"template", "natural"}
    assert sum(row["injected"] for row in report["perturbed"]["natural"].values()) >= 1
    printed = capsys.readouterr().out
    assert "corpus recall" in printed and "template" in printed and "natural" in printed and "false alarms:" in printed


def test_the_command_says_when_the_corpus_is_missing_or_bad(tmp_path, capsys):
    assert main(["validate-fidelity", "--corpus", str(tmp_path / "none")]) == 2
    assert "no such corpus file or directory" in capsys.readouterr().err
    (tmp_path / "bad.jsonl").write_text("{oops\n", encoding="utf-8")
    assert main(["validate-fidelity", "--corpus", str(tmp_path)]) == 2
    assert "bad.jsonl:1: not JSON" in capsys.readouterr().err
    assert main(["validate-fidelity"]) == 2
    assert "--domain" in capsys.readouterr().err


def test_the_natural_bank_has_ten_phrasings_per_mode_and_is_seeded():
    assert set(BANKS["natural"]) == set(BANKS["template"])
    assert all(len(phrasings) >= 10 for phrasings in BANKS["natural"].values())

    def texts(seed: int) -> tuple[list, list]:
        proxy = PerturbedUserProxy("scripted", "all", 0.7, seed=seed, phrasing="natural")
        env = ConversationEnv("retail", task_source="tau2", user_proxy=proxy)
        episode = run_episode(env, "5", seed=3)
        return episode["injections"], [m.content for m in env.messages if m.role == "user"]

    first, again = texts(4), texts(4)
    assert first == again and first[0]
    other = texts(5)
    assert other != first
    with pytest.raises(ValueError, match="unknown phrasing"):
        PerturbedUserProxy("scripted", "all", 0.5, phrasing="poetic")


def test_the_natural_bank_is_what_the_injected_turns_say():
    proxy = PerturbedUserProxy("scripted", "withholds_requested_info,premature_stop", 1.0, seed=1, phrasing="natural")
    env = ConversationEnv("airline", task_source="tau2", split="base", user_proxy=proxy)
    run_episode(env, "3", seed=0)
    assert proxy.injections and proxy.provenance["perturbation"]["phrasing"] == "natural"
    natural = [p for key in ("withhold", "stop") for p in BANKS["natural"][key]]
    template = [p for key in ("withhold", "stop") for p in BANKS["template"][key]]
    injected = [m.content for m in env.messages if m.role == "user" and m.turn in {i["turn"] for i in proxy.injections}]
    assert injected
    for text in injected:
        assert any(p.split("{")[0] in text for p in natural), text
        assert not any(p.format(kinds="user id") in text for p in template), text
    assert PerturbedUserProxy("scripted").phrasing == "template"  # the template bank stays the default
    assert "phrasing" not in PerturbedUserProxy("scripted").provenance.get("perturbation", {})
