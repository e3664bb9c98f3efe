"""Surface tasks: APB folders, tasks.csv, our bundled tasks, scripted players and the CLI."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from userbench_env.envs.surface import SurfaceEnv
from userbench_env.surfaces.generate import generate
from userbench_env.surfaces.players import ScriptedSurveyPlayer, run_episode
from userbench_env.surfaces.tasks import (
    find_apb_tasks, load_bundled_task, load_surface_tasks, read_tasks_csv, surfaces_dir,
)


@pytest.fixture(scope="module")
def apb_tasks(apb_sample: Path):
    return load_surface_tasks(source="apb", path=apb_sample / "tasks")


def test_every_apb_sample_task_loads(apb_tasks) -> None:
    by_id = {t.id: t for t in apb_tasks}
    assert len(apb_tasks) == 9  # keto-web has only solution/web.json, no task.toml
    vegan = by_id["vegan-survey"]
    assert vegan.checks[0].value == "Vegan" and vegan.checks[0].name == "lstyle_diet_type=Vegan"  # anchor_value
    algebra = by_id["algebra-not-chemistry-survey"]
    assert [c.value for c in algebra.checks] == ["Passionate", "Averse"]  # value
    assert [c.label for c in algebra.checks] == ["matrixrow", "beakerhour"]
    assert algebra.questionnaire and len(algebra.questionnaire.questions) == 3
    assert algebra.multi and not vegan.multi
    assert by_id["vegetarian-web"].persona and len(by_id["vegetarian-web"].persona.attributes) == 778
    assert by_id["vegetarian-web"].answer_key["tiers"]["m02"] == 3


def test_apb_chat_tasks_load(apb_tasks) -> None:
    chats = [t for t in apb_tasks if t.surface == "chat"]
    assert {t.id for t in chats} == {"vegan-chat", "algebra-not-chemistry-chat"}
    for task in chats:
        assert task.chat and task.chat.bot and task.chat.opening
        assert all(c.evaluator == "llm-judge" for c in task.checks)
    algebra = next(t for t in chats if t.id.startswith("algebra"))
    assert algebra.chat.application_id == "learning_centre_wednesday_desk"
    assert algebra.chat.opening.startswith("Hello — three Wednesday pairs")


def test_tasks_csv_with_crlf(apb_sample: Path) -> None:
    raw = (apb_sample / "tasks-head.csv").read_bytes()
    assert b"\r\n" in raw
    rows = read_tasks_csv(apb_sample / "tasks-head.csv")
    assert len(rows) == raw.count(b"\r\n") - 1
    assert rows[0].path == "multi-attribute/accessible-event-app" and rows[0].n_checks == 3
    assert not any(r.family.endswith("\r") for r in rows)


def test_find_single_folder(apb_sample: Path) -> None:
    folder = apb_sample / "tasks/single-attribute/health-lifestyle/diet-type/vegan/vegan-chat"
    assert find_apb_tasks(folder) == [folder]


@pytest.mark.parametrize("task_id", ["vegan-survey", "algebra-not-chemistry-survey"])
@pytest.mark.parametrize("hold", [True, False])
def test_scripted_players_pass_and_fail_apb_surveys(apb_sample: Path, task_id: str, hold: bool) -> None:
    env = SurfaceEnv("survey", task_source="apb", path=str(apb_sample / "tasks"), task_id=task_id)
    info = run_episode(env, ScriptedSurveyPlayer(env.tasks[task_id], hold=hold), seed=1)
    episode = info["episode_record"]
    assert episode["status"] == ("pass" if hold else "fail")
    assert episode["reward"] == (episode["max_points"] if hold else 0.0)
    assert all(c["verdict"] == ("HELD" if hold else "VIOLATED") for c in episode["checks"])


def test_bundled_tasks_count_and_shape() -> None:
    tasks = load_surface_tasks()
    surveys = [t for t in tasks if t.surface == "survey"]
    chats = [t for t in tasks if t.surface == "chat"]
    assert len(tasks) >= 100 and surveys and chats
    assert any(t.multi for t in surveys) and any(not t.multi for t in surveys) and any(t.multi for t in chats)
    rules = {c.rule.split(":")[0] for t in surveys for c in t.checks}
    assert rules == {"avoid", "exhibit", "at-least", "per-question", "tier"}
    for task in chats:
        assert task.chat and task.chat.pitches and task.chat.opening and all(c.held and c.violated for c in task.checks)
    persona = surveys[0].load_persona()
    assert persona is not None and len(persona.attributes) > 400 and persona.pinned == surveys[0].pins
    assert load_surface_tasks("survey", split="multi") == [t for t in surveys if t.multi]


def test_bundled_tasks_come_from_the_seeded_generator(tmp_path: Path) -> None:
    count = generate(tmp_path, seed=0)
    bundled = surfaces_dir()
    assert count == len(load_surface_tasks())
    for sub in ("survey", "chat", "personas"):
        names = sorted(p.name for p in (tmp_path / sub).glob("*.yaml"))
        assert names == sorted(p.name for p in (bundled / sub).glob("*.yaml"))
        for name in names:
            assert (tmp_path / sub / name).read_bytes() == (bundled / sub / name).read_bytes(), name


def test_scripted_players_pass_and_fail_every_bundled_survey() -> None:
    env = SurfaceEnv("survey")
    for task_id, task in env.tasks.items():
        for hold in (True, False):
            episode = run_episode(env, ScriptedSurveyPlayer(task, hold=hold), options={"task_id": task_id})["episode_record"]
            assert episode["status"] == ("pass" if hold else "fail"), (task_id, hold, episode["checks"])


def _cli(*args: str) -> dict:
    done = subprocess.run([sys.executable, "-m", "userbench_env.cli", "apb", "score", *args, "--json"],
                          capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def test_cli_scores_survey_artifacts(apb_sample: Path, tmp_path: Path) -> None:
    folder = apb_sample / "tasks/multi-attribute/algebra-not-chemistry/algebra-not-chemistry-survey"
    artifact = tmp_path / "survey_result.json"
    answers = {"q1": "q1d", "q2": "q2b", "q3": "q3b"}  # algebra every time, one chemistry lab
    artifact.write_text(json.dumps({"answers": [{"questionId": q, "selectedOptionId": o} for q, o in answers.items()]}))
    result = _cli(str(folder), "--artifact", str(artifact))
    assert (result["status"], result["reward"], result["max_points"]) == ("fail", 1.0, 2)
    assert [c["verdict"] for c in result["checks"]] == ["HELD", "VIOLATED"]
    assert result["checks"][1]["offside"] == ["q2b"]
    flipped = _cli(str(folder), "--artifact", str(artifact), "--rule", "exhibit,at-least:1")
    assert [c["verdict"] for c in flipped["checks"]] == ["HELD", "HELD"] and flipped["status"] == "pass"
    missing = _cli(str(folder), "--artifact", str(tmp_path / "absent.json"))
    assert missing["status"] == "error" and missing["reward"] == 0
    partial = tmp_path / "partial.json"
    partial.write_text(json.dumps({"answers": [{"questionId": "q1", "selectedOptionId": "q1d"}]}))
    assert _cli(str(folder), "--artifact", str(partial))["status"] == "fail"  # coverage broken
    garbage = tmp_path / "garbage.json"
    garbage.write_text("not json")
    assert _cli(str(folder), "--artifact", str(garbage))["status"] == "fail"


def test_cli_scores_bundled_task_files(tmp_path: Path) -> None:
    task_file = next((surfaces_dir() / "survey").glob("lstyle-diet-type-survey.yaml"))
    loaded = load_bundled_task(task_file)
    player = ScriptedSurveyPlayer(loaded, hold=True)
    artifact = tmp_path / "a.json"
    artifact.write_text(player.act(""))
    assert _cli(str(task_file), "--artifact", str(artifact))["status"] == "pass"
