"""Run stores know their question (issue 23, item 3).

A store records the settings that change outcomes; ``eval`` refuses to append episodes
run with other settings (one line, exit 2, the store untouched), resumes with the same
ones, and ``report`` refuses to mix records that answer different questions. The LLM
cases go over real HTTP to the local chat server playing the scripted user.
"""
from __future__ import annotations

import json

import pytest

import userbench_env  # noqa: F401  (registers the env ids)
from userbench_env.cli import main
from userbench_env.runner.store import EpisodeStore
from userbench_env.serve import ChatServer, ScriptedUserResponder
from userbench_env.tasks import load_tasks

BASE = ["eval", "--domain", "airline", "--limit", "3", "--no-progress"]


def _lines(path) -> int:
    return len(path.read_bytes().splitlines())


def test_other_max_turns_are_refused_and_a_fresh_store_answers_differently(tmp_path, capsys) -> None:
    store = tmp_path / "eval.jsonl"
    assert main(BASE + ["--out", str(store)]) == 0
    before = store.read_bytes()
    capsys.readouterr()
    assert main(BASE + ["--out", str(store), "--max-turns", "1"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    error = captured.err.strip()
    assert "\n" not in error and "max_turns 100 there, 1 now" in error and "another --out" in error
    assert store.read_bytes() == before  # nothing appended
    # the refused question really has another answer: a fresh store with one turn
    fresh = tmp_path / "one-turn.jsonl"
    assert main(BASE + ["--out", str(fresh), "--max-turns", "1", "--json"]) == 0
    one_turn = json.loads(capsys.readouterr().out)["summary"]["proxies"][0]
    assert one_turn["r_tau"] == 0.0
    # the same settings resume the store
    assert main(BASE + ["--out", str(store)]) == 0
    assert "0 episodes run, 3 already in" in capsys.readouterr().out
    # report refuses to mix the two questions, one line, exit 2
    assert main(["report", str(store), str(fresh)]) == 2
    error = capsys.readouterr().err.strip()
    assert "\n" not in error and "different questions" in error and "max_turns" in error
    assert main(["frontier", str(store), str(fresh)]) == 2
    # each store alone reports, headed by its settings
    assert main(["report", str(fresh)]) == 0
    assert "Settings: agent scripted" in capsys.readouterr().out


@pytest.mark.parametrize("flag", [["--judge", "deferred"], ["--split", "all"], ["--agent", "litellm:openai/x",
                                                                               "--agent-api-key", "k"]])
def test_the_judge_split_and_agent_are_part_of_the_question(tmp_path, capsys, flag) -> None:
    store = tmp_path / "eval.jsonl"
    assert main(BASE + ["--out", str(store)]) == 0
    capsys.readouterr()
    assert main(BASE + ["--out", str(store), *flag]) == 2
    assert "holds episodes run with other settings" in capsys.readouterr().err


def test_proxy_options_belong_to_the_proxy_they_apply_to(tmp_path, capsys) -> None:
    tasks = load_tasks("airline", "bundled", "default")
    store = tmp_path / "eval.jsonl"
    with ChatServer(ScriptedUserResponder(tasks)) as server:
        llm = BASE + ["--out", str(store), "--proxy", "direct:local", "--base-url", server.base_url]
        assert main(llm + ["--proxy-temperature", "0"]) == 0
        capsys.readouterr()
        assert main(llm + ["--proxy-temperature", "0.7"]) == 2
        assert "proxy option temperature 0.0 there, 0.7 now" in capsys.readouterr().err
        assert main(llm + ["--proxy-guidelines", "tau2", "--proxy-temperature", "0"]) == 2
        assert "proxy option guidelines - there, tau2 now" in capsys.readouterr().err
        # where and how the model is reached changes no outcome: a new timeout resumes
        assert main(llm + ["--proxy-temperature", "0", "--proxy-timeout", "30"]) == 0
        assert "0 episodes run, 3 already in" in capsys.readouterr().out
    # a scripted proxy takes no options: adding it under other LLM options is the same question
    assert main(BASE + ["--out", str(store), "--proxy", "scripted", "--proxy-temperature", "0.7"]) == 0
    records = list(EpisodeStore(store).records())
    assert len(records) == 6
    options = {r["proxy"]: r["settings"]["proxy_options"] for r in records}
    assert options == {"direct:local": {"temperature": 0.0}, "scripted": {}}
    assert all("timeout" not in r["settings"]["proxy_options"] for r in records)
    capsys.readouterr()
    assert main(["report", str(store), "--json"]) == 0
    settings = json.loads(capsys.readouterr().out)["settings"]
    assert settings["question"]["max_turns"] == 100 and settings["proxy_options"] == options


def test_a_store_written_before_settings_were_recorded_is_refused(tmp_path, capsys) -> None:
    store = tmp_path / "old.jsonl"
    assert main(BASE + ["--out", str(store)]) == 0
    records = list(EpisodeStore(store).records())
    store.write_text("".join(json.dumps({k: v for k, v in r.items() if k != "settings"}) + "\n" for r in records),
                     encoding="utf-8")
    capsys.readouterr()
    assert main(BASE + ["--out", str(store)]) == 2
    assert "written before run stores recorded their settings" in capsys.readouterr().err
    assert _lines(store) == 3
    # reading it alone still works; mixed with a store that records its settings it is refused
    assert main(["report", str(store)]) == 0
    fresh = tmp_path / "new.jsonl"
    assert main(BASE + ["--out", str(fresh), "--proxy", "perturbed:volunteers_unasked_info@0.5+scripted"]) == 0
    capsys.readouterr()
    assert main(["report", str(store), str(fresh)]) == 2
    assert "settings unrecorded in 3 records" in capsys.readouterr().err
