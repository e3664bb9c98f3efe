"""Bad input to ``report`` and ``frontier``: unreadable lines are counted and warned about
(``--strict`` fails on them), and a file that is not a run store is an error."""
from __future__ import annotations

import json

import pytest

from userbench_env.analysis.load import NotARunStore, read_runs
from userbench_env.cli import main
from userbench_env.runner.store import EpisodeStore


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    path = tmp_path_factory.mktemp("runs") / "runs.jsonl"
    assert main(["eval", "--domain", "airline", "--limit", "3", "--no-progress", "--out", str(path)]) == 0
    return path


def _damaged(store, tmp_path):
    """The store with a corrupt line, a JSON line that is not a record, and a torn tail."""
    lines = store.read_text(encoding="utf-8").splitlines(keepends=True)
    path = tmp_path / "damaged.jsonl"
    path.write_text(lines[0] + "{not json\n" + lines[1] + "[1, 2]\n" + lines[2] + '{"key": "cut sh', encoding="utf-8")
    return path


def test_the_store_counts_the_lines_it_skips(store, tmp_path) -> None:
    damaged = EpisodeStore(_damaged(store, tmp_path))
    assert len(list(damaged.records())) == 3 and damaged.unreadable == 3
    clean = EpisodeStore(store)
    assert len(list(clean.records())) == 3 and clean.unreadable == 0
    runs = read_runs([store, damaged.path])
    assert len(runs.records) == 3 and runs.unreadable == {str(store): 0, str(damaged.path): 3}
    assert runs.warning() == f"skipped unreadable lines (torn or corrupt): 3 in {damaged.path}"


@pytest.mark.parametrize("command", ["report", "frontier"])
def test_unreadable_lines_are_a_warning_and_strict_fails(store, tmp_path, capsys, command) -> None:
    damaged = _damaged(store, tmp_path)
    assert main([command, str(store), "--json"]) == 0
    clean_out, clean_err = capsys.readouterr()
    assert clean_err == ""
    assert main([command, str(damaged), "--json"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out) == json.loads(clean_out)  # the same three episodes
    assert err == f"userbench {command}: warning: skipped unreadable lines (torn or corrupt): 3 in {damaged}\n"
    assert main([command, str(damaged), "--strict"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith(f"userbench {command}: skipped unreadable lines") and "(--strict)" in err
    assert main([command, str(store), "--strict", "--json"]) == 0


@pytest.mark.parametrize("command", ["report", "frontier"])
@pytest.mark.parametrize("content", ["proxy,cost_per_sim,ufs\nscripted,0.0,1.0\n", '{"a": 1}\n', "\x89PNG\r\n\x1a\n"])
def test_a_file_that_is_not_a_run_store_is_an_error(tmp_path, capsys, command, content) -> None:
    path = tmp_path / "points.csv"
    path.write_text(content, encoding="latin-1")
    with pytest.raises(NotARunStore):
        read_runs([path])
    assert main([command, str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err == (f"userbench {command}: {path} is not a run store: none of its lines is an episode "
                                 "record (one JSON object with a 'key' per line, as `userbench eval` writes)\n")


def test_an_empty_store_is_not_an_error(tmp_path, capsys) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_text("", encoding="utf-8")
    assert read_runs([path]).records == []
    assert main(["report", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["episodes"] == 0


def test_evaluate_episode_takes_the_message_dicts_a_store_holds(store) -> None:
    from userbench_env.evaluation import evaluate_episode
    from userbench_env.tasks import load_task

    for record in EpisodeStore(store).records():
        assert isinstance(record["messages"][0], dict)
        task = load_task(record["domain"], record["task_id"], source="bundled")
        verdict = evaluate_episode(task, record["messages"], termination=record["termination"], source="bundled")
        assert verdict.reward == record["reward"] == 1.0


#: a record field set to a value of the wrong JSON type, or to a number that is not finite
MISFITS = {
    "criteria_string": ("criteria", "premature_disclosure"),
    "criteria_of_non_objects": ("criteria", [1, "x"]),
    "domain_list": ("domain", ["airline"]),
    "hosting_object": ("hosting", {"kind": "api"}),
    "failures_per_family_list": ("failures_per_family", ["goal_deviation"]),
    "reward_string": ("reward", "1.0"),
    "reward_nan": ("reward", float("nan")),
    "cost_infinite": ("user_cost_usd", float("inf")),
    "tokens_absurd": ("user_prompt_tokens", 1e300),
    "ufs_pass_string": ("ufs_pass", "yes"),
}


@pytest.mark.parametrize("command", ["report", "frontier"])
@pytest.mark.parametrize("misfit", sorted(MISFITS))
def test_a_record_of_the_wrong_shape_is_skipped_and_counted(store, tmp_path, capsys, command, misfit) -> None:
    field, value = MISFITS[misfit]
    lines = store.read_text(encoding="utf-8").splitlines(keepends=True)
    record = {**json.loads(lines[0]), "key": "another|episode", field: value}
    path = tmp_path / "misfit.jsonl"
    path.write_text("".join(lines) + json.dumps(record) + "\n", encoding="utf-8")  # json writes NaN / Infinity
    assert main([command, str(store), "--json"]) == 0
    clean = json.loads(capsys.readouterr().out)
    assert main([command, str(path), "--json"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out) == clean  # the three good episodes, no nan, no crash
    assert err.startswith(f"userbench {command}: warning: skipped unreadable lines (torn or corrupt): 1 in {path} "
                          f"(first misfit: {field}") and err.count("\n") == 1
    assert main([command, str(path), "--strict"]) == 2
    assert "(--strict)" in capsys.readouterr().err


def test_extra_fields_of_later_versions_are_read() -> None:
    from userbench_env.analysis.schema import record_problem

    assert record_problem({"key": "k", "suspect": 2, "settings": {"max_turns": 30}, "reward": 1}) is None
    assert record_problem({"key": "k", "criteria": [{"family": "goal_deviation", "id": "x", "verdict": "fail"}]}) is None
