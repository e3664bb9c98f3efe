"""Task folders are untrusted input: a verifier runs scrubbed and bounded (its whole
process group killed at the limit), paths a task names stay inside its folder, YAML
alias bombs fail fast, and hostile artifacts or task paths give clear statuses or a
one-line error, never a traceback."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from userbench_env.cli import main as cli_main
from userbench_env.errors import UserError
from userbench_env.surfaces.artifacts import score_artifact
from userbench_env.surfaces.sandbox import TaskError
from userbench_env.surfaces.tasks import load_apb_task, load_bundled_task, pick_count, surfaces_dir
from userbench_env.surfaces.verifier import VERIFIER_IMAGE, run_verifier
from userbench_env.surfaces.app.runtime import docker_available

TASK_TOML = """
[task]
name = "trust/{name}"
[metadata]
type = "{surface}"
[[checks]]
dimension_id = "diet"
value = "Vegan"
[verifier]
timeout_sec = {timeout}
"""
QUESTIONNAIRE = """
questions:
  - {id: q1, prompt: "One?", options: [{id: q1a, text: "A"}, {id: q1b, text: "B"}]}
"""
KEY = "animal: {q1a: true, q1b: false}\n"


def make_task(root: Path, verifier: str | None = None, name: str = "t", surface: str = "survey",
              timeout: float = 30) -> Path:
    """A minimal survey task folder of our own, optionally with a verifier."""
    folder = root / name
    (folder / "input").mkdir(parents=True)
    (folder / "tests").mkdir()
    (folder / "task.toml").write_text(TASK_TOML.format(name=name, surface=surface, timeout=timeout))
    (folder / "instruction.md").write_text("# Instruction\n\nAnswer.\n")
    (folder / "input" / "questionnaire.yaml").write_text(QUESTIONNAIRE)
    (folder / "tests" / "answer_key.yaml").write_text(KEY)
    if verifier is not None:
        (folder / "tests" / "verifier.py").write_text(textwrap.dedent(verifier))
    return folder


ANSWERS = {"answers": [{"questionId": "q1", "selectedOptionId": "q1b"}]}

ENV_VERIFIER = """
import json, os
out = os.environ["ADHERENCE_OUTPUT_DIR"]
json.dump({"reward": 1.0, "checks": [{"label": "env", "verdict": "HELD", "evaluator": " ".join(sorted(os.environ))}]},
          open(os.path.join(out, "structured_output.json"), "w"))
"""


def test_verifier_sees_no_secrets_unless_passed(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-secret")
    monkeypatch.setenv("JUDGE_TOKEN", "trusted")
    task = load_apb_task(make_task(tmp_path, ENV_VERIFIER))
    outcome = run_verifier(task, "survey_result.json", ANSWERS, isolation="process")
    seen = outcome.checks[0].detail.split()
    assert outcome.status == "pass" and "ADHERENCE_OUTPUT_DIR" in seen and "PATH" in seen
    assert not {"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "JUDGE_TOKEN"} & set(seen)
    passed = run_verifier(task, "survey_result.json", ANSWERS, isolation="process", pass_env=["JUDGE_TOKEN"])
    assert "JUDGE_TOKEN" in passed.checks[0].detail.split() and "OPENAI_API_KEY" not in passed.checks[0].detail


SPAWNING_VERIFIER = """
import json, os, subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
open(os.environ["PIDFILE"], "w").write(str(child.pid))
if os.environ.get("HANG"):
    time.sleep(600)
json.dump({"reward": 1.0}, open(os.path.join(os.environ["ADHERENCE_OUTPUT_DIR"], "structured_output.json"), "w"))
"""


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _wait_dead(pid: int, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not _alive(pid)


@pytest.mark.parametrize("hang", [True, False])
def test_verifier_process_group_is_killed(tmp_path: Path, monkeypatch, hang: bool) -> None:
    """At the time limit, and also after a normal exit, nothing the verifier started survives."""
    pidfile = tmp_path / "child.pid"
    monkeypatch.setenv("PIDFILE", str(pidfile))
    monkeypatch.setenv("HANG", "1" if hang else "")
    task = load_apb_task(make_task(tmp_path, SPAWNING_VERIFIER, timeout=3))
    outcome = run_verifier(task, "survey_result.json", ANSWERS, isolation="process", pass_env=["PIDFILE", "HANG"])
    if hang:
        assert outcome.status == "error" and "timed out after 3s" in (outcome.error or "")
    else:
        assert outcome.status == "pass"
    assert _wait_dead(int(pidfile.read_text()))


@pytest.mark.parametrize(("result", "reason"), [
    ({"reward": "lots"}, "not a finite number"),
    ({"reward": float("nan")}, "not a finite number"),
    ("[" * 5000 + "]" * 5000, "not readable JSON"),
    ('{"reward": ' + "9" * 5000 + "}", "not readable JSON"),
    ({"no": "reward"}, "no reward"),
    (None, "wrote no structured_output.json (exit 1: ZeroDivisionError: division by zero)"),
])
def test_hostile_verifier_output_is_an_error_status(tmp_path: Path, result, reason: str) -> None:
    text = result if isinstance(result, str) else json.dumps(result)
    verifier = "1 / 0\n" if result is None else f"""
import os
open(os.path.join(os.environ["ADHERENCE_OUTPUT_DIR"], "structured_output.json"), "w").write({text!r})
"""
    task = load_apb_task(make_task(tmp_path, verifier))
    outcome = run_verifier(task, "survey_result.json", ANSWERS, isolation="process")
    assert outcome.status == "error" and reason in (outcome.error or ""), outcome.error


DOCKER = docker_available(VERIFIER_IMAGE)


@pytest.mark.skipif(DOCKER is not None, reason=f"Docker not usable: {DOCKER}")
def test_verifier_in_docker_has_no_network_and_no_secrets(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret")
    verifier = """
import json, os, socket
try:
    socket.create_connection(("1.1.1.1", 80), timeout=2); net = "reached"
except OSError as exc:
    net = f"blocked {exc.errno}"
json.dump({"reward": 1.0, "checks": [{"label": net, "verdict": "HELD", "evaluator": " ".join(sorted(os.environ))}]},
          open(os.path.join(os.environ["ADHERENCE_OUTPUT_DIR"], "structured_output.json"), "w"))
"""
    task = load_apb_task(make_task(tmp_path, verifier))
    outcome = run_verifier(task, "survey_result.json", ANSWERS, isolation="docker")
    assert outcome.status == "pass" and outcome.checks[0].name.startswith("blocked")
    assert "OPENAI_API_KEY" not in outcome.checks[0].detail


@pytest.mark.skipif(DOCKER is None, reason="Docker is usable here")
def test_docker_isolation_asked_for_but_unusable_is_a_user_error(tmp_path: Path) -> None:
    task = load_apb_task(make_task(tmp_path, ENV_VERIFIER))
    with pytest.raises(UserError, match="isolation 'docker' is not usable"):
        run_verifier(task, "survey_result.json", ANSWERS, isolation="docker")


# ------------------------------------------------------------------ paths


def test_paths_a_task_names_stay_inside_its_folder(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("never read")
    web = make_task(tmp_path, surface="web", name="web")
    (web / "input" / "site").mkdir()
    (web / "input" / "site" / "index.html").write_text("<h1>page</h1>")
    (web / "solution").mkdir()
    (web / "solution" / "web.json").write_text(json.dumps({"entry": "../../../secret.txt"}))
    with pytest.raises(TaskError, match="web.json entry '../../../secret.txt' must be a relative path inside"):
        load_apb_task(web)
    (web / "solution" / "web.json").write_text(json.dumps({"entry": str(secret)}))
    with pytest.raises(TaskError, match="must be a relative path"):
        load_apb_task(web)
    (web / "input" / "site" / "leak.html").symlink_to(secret)
    (web / "solution" / "web.json").write_text(json.dumps({"entry": "leak.html"}))
    with pytest.raises(TaskError, match="leads outside"):
        load_apb_task(web)

    chat = make_task(tmp_path, name="chat", surface="chat")
    (chat / "input" / "bot.md").symlink_to(secret)
    with pytest.raises(TaskError, match="leads outside"):
        load_apb_task(chat)

    survey = make_task(tmp_path, name="verifier-link")
    (survey / "tests" / "verifier.py").symlink_to(secret)
    with pytest.raises(TaskError, match="verifier 'tests/verifier.py' leads outside"):
        load_apb_task(survey)

    bundled = tmp_path / "bundled" / "survey"
    bundled.mkdir(parents=True)
    text = (surfaces_dir() / "survey" / "lstyle-diet-type-survey.yaml").read_text()
    hostile = bundled / "hostile.yaml"
    hostile.write_text(text.replace("persona: ", "persona: ../../../secret #", 1))
    assert "persona: ../../../secret" in hostile.read_text()
    with pytest.raises(TaskError, match="persona '../../../secret"):
        load_bundled_task(hostile)


BOMB = "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n" + "".join(
    f"{n}: &{n} [{', '.join([f'*{p}'] * 9)}]\n" for p, n in zip("abcdefgh", "bcdefghi"))


def test_yaml_alias_bomb_fails_fast(tmp_path: Path) -> None:
    assert len(BOMB) < 1024
    folder = make_task(tmp_path)
    (folder / "tests" / "answer_key.yaml").write_text(BOMB)
    code = f"from userbench_env.surfaces.tasks import load_apb_task; load_apb_task({str(folder)!r})"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and "TaskError" in done.stderr and "alias bomb" in done.stderr
    with pytest.raises(TaskError, match="answer_key.yaml: more than"):
        load_apb_task(folder)
    (folder / "tests" / "answer_key.yaml").write_text("&a [*a]\n")
    with pytest.raises(TaskError, match="recursive alias"):
        load_apb_task(folder)
    (folder / "tests" / "answer_key.yaml").write_text("[" * 20000 + "]" * 20000)
    with pytest.raises(TaskError, match="answer_key.yaml"):
        load_apb_task(folder)


# ------------------------------------------------------------------ CLI


def _cli(capsys, *args: str) -> tuple[int, dict | None, str]:
    code = cli_main(["apb", "score", *args, "--json"])
    captured = capsys.readouterr()
    return code, (json.loads(captured.out) if code == 0 else None), captured.err


def test_cli_on_what_is_not_a_task_is_one_line(tmp_path: Path, capsys) -> None:
    artifact = tmp_path / "a.json"
    artifact.write_text(json.dumps(ANSWERS))
    notes = tmp_path / "notes.txt"
    notes.write_text("just some notes: [unclosed\n")
    binary = tmp_path / "blob.bin"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    for target, words in ((tmp_path, "is not an APB task folder"), (notes, "not valid YAML"),
                          (binary, "cannot be read as YAML"), (tmp_path / "absent", "no task at")):
        code, _, err = _cli(capsys, str(target), "--artifact", str(artifact))
        assert code == 2 and words in err and len(err.strip().splitlines()) == 1, err
        assert "Traceback" not in err


def test_cli_hostile_artifacts_are_clear_fails(tmp_path: Path, capsys) -> None:
    folder = make_task(tmp_path)
    cases = {
        "deep.json": ("[" * 1001 + "]" * 1001, "nested too deeply"),
        "digits.json": ('{"answers": ' + "7" * 5000 + "}", "not valid JSON"),
        "big.json": ('{"answers": []}' + " " * (21 * 2**20), "artifact limit"),
        "latin1.json": (b"\xe9t\xe9", "not valid JSON"),
    }
    for name, (content, reason) in cases.items():
        path = tmp_path / name
        path.write_bytes(content if isinstance(content, bytes) else content.encode())
        code, result, err = _cli(capsys, str(folder), "--artifact", str(path), "--rule", "avoid")
        assert code == 0, err
        assert result["status"] == "fail" and reason in result["checks"][0]["detail"], (name, result)


# ------------------------------------------------------------------ APB parity outside the overlay


def _outside_overlay(source: Path, tmp_path: Path) -> Path:
    """A copy of a real APB task under a name the bundled rules overlay does not know."""
    copy = tmp_path / source.name
    shutil.copytree(source, copy)
    toml = copy / "task.toml"
    toml.write_text(toml.read_text().replace('name = "personabench/', 'name = "elsewhere/'))
    return copy


def _answers(pairs: dict[str, str]) -> str:
    return json.dumps({"answers": [{"questionId": q, "selectedOptionId": o} for q, o in pairs.items()]})


def test_survey_outside_the_overlay_needs_every_question(apb_sample: Path, tmp_path: Path, capsys) -> None:
    vegan = _outside_overlay(apb_sample / "tasks/single-attribute/health-lifestyle/diet-type/vegan/vegan-survey",
                             tmp_path)
    task = load_apb_task(vegan)
    assert task.constraints == ["coverage", "known"] and task.checks[0].label == "animal"
    key = task.answer_key["animal"]
    plant = {q.id: next(o.id for o in q.options if not key[o.id]) for q in task.questionnaire.questions}
    artifact = tmp_path / "survey_result.json"
    artifact.write_text(_answers(plant))
    code, result, _ = _cli(capsys, str(vegan), "--artifact", str(artifact), "--rule", "avoid")
    assert code == 0 and result["status"] == "pass"
    artifact.write_text(_answers(dict(list(plant.items())[:2])))  # two of three questions
    code, result, _ = _cli(capsys, str(vegan), "--artifact", str(artifact), "--rule", "avoid")
    assert result["status"] == "fail" and "unanswered questions: ['q3']" in result["checks"][0]["detail"]
    inside = load_apb_task(apb_sample / "tasks/single-attribute/health-lifestyle/diet-type/vegan/vegan-survey")
    assert inside.constraints == ["known", "nonempty"]  # the overlay's word stands for tasks it names
    code, _, err = _cli(capsys, str(vegan), "--artifact", str(artifact))  # no rule anywhere
    assert code == 2 and "--rule" in err and len(err.strip().splitlines()) == 1
    unscorable = score_artifact(task, json.loads(artifact.read_text()))  # in an env: an error status, no raise
    assert unscorable.status == "error" and "--rule" in (unscorable.error or "")


def test_web_task_outside_the_overlay_reads_its_one_page_label(apb_sample: Path, tmp_path: Path, capsys) -> None:
    vegan = _outside_overlay(apb_sample / "tasks/single-attribute/health-lifestyle/diet-type/vegan/vegan-web",
                             tmp_path)
    assert load_apb_task(vegan).checks[0].label == "animal"  # the page's only boolean data-* label
    order = tmp_path / "order.json"
    order.write_text(json.dumps({"orderedItemIds": ["m01", "m03", "m02"]}))  # two animal dishes
    code, result, err = _cli(capsys, str(vegan), "--artifact", str(order), "--rule", "at-least:2")
    assert code == 0 and result["status"] == "pass", err
    order.write_text(json.dumps({"orderedItemIds": ["m02", "m04", "m03"]}))
    code, result, _ = _cli(capsys, str(vegan), "--artifact", str(order), "--rule", "at-least:2")
    assert result["status"] == "fail" and result["checks"][0]["detail"] == "1 of 3 picks flagged, 2 required"

    algebra = _outside_overlay(apb_sample / "tasks/multi-attribute/algebra-not-chemistry/algebra-not-chemistry-web",
                               tmp_path)
    assert [c.label for c in load_apb_task(algebra).checks] == [None, None]  # two labels, two checks: not guessed
    order.write_text(json.dumps({"orderedItemIds": ["wl01", "wl05", "wl09"]}))
    code, result, _ = _cli(capsys, str(algebra), "--artifact", str(order), "--rule", "exhibit,avoid")
    assert result["status"] == "error" and "--label NAME" in result["error"]
    code, result, _ = _cli(capsys, str(algebra), "--artifact", str(order), "--rule", "exhibit,avoid",
                           "--label", "matrixrow,beakerhour")
    assert (result["status"], result["reward"]) == ("pass", 2.0)


def test_pick_tasks_outside_the_overlay_need_the_count_their_errand_names(apb_sample: Path, tmp_path: Path,
                                                                         capsys) -> None:
    """As upstream's newer verifiers: "adding **3 dishes**" is exactly 3 distinct ids of the page."""
    vegan = _outside_overlay(apb_sample / "tasks/single-attribute/health-lifestyle/diet-type/vegan/vegan-web",
                             tmp_path)
    assert load_apb_task(vegan).constraints == ["nonempty", "distinct", "known", "count:3"]
    order = tmp_path / "order.json"
    cases = {  # picks -> (status, what the detail says)
        ("m02", "m04", "m06"): ("pass", "0 of 3 picks off-limits"),
        ("m02", "m04"): ("fail", "count:3: 2 picks, need 3"),
        ("m02", "m02", "m04"): ("fail", "distinct: picked more than once: ['m02']"),
        ("m02", "m04", "m99"): ("fail", "known: unknown ids: ['m99']"),
        ("m02", "m04", "m06", "m08"): ("fail", "count:3: 4 picks, need 3"),
    }
    for picks, (status, detail) in cases.items():
        order.write_text(json.dumps({"orderedItemIds": list(picks)}))
        code, result, err = _cli(capsys, str(vegan), "--artifact", str(order), "--rule", "avoid")
        assert code == 0 and (result["status"], result["checks"][0]["detail"]) == (status, detail), (picks, result, err)
    for folder, count in (("multi-attribute/algebra-not-chemistry/algebra-not-chemistry-app", "count:2"),  # **exactly 2 options**
                          ("single-attribute/health-lifestyle/diet-type/vegan/vegan-app", "count:2-3")):  # **2–3 dishes**
        assert load_apb_task(_outside_overlay(apb_sample / "tasks" / folder, tmp_path)).constraints[-1] == count
    assert pick_count("Order dinner from the menu, as many **dishes** as you like.") is None
    assert pick_count("Pick **two to three items**.") == "count:2-3"


PAGE = """<ul id="cart-items"></ul>
<div class="item" data-id="a" data-spicy="true" data-heat="3">A</div>
<div class="item" data-id="b" data-spicy="false" data-heat="0" data-nuts="maybe">B</div>"""


def test_page_label_is_taken_only_when_exactly_one_is_boolean(tmp_path: Path) -> None:
    folder = make_task(tmp_path, surface="web", name="own-web")
    (folder / "tests" / "answer_key.yaml").unlink()
    (folder / "input" / "site").mkdir()
    (folder / "input" / "site" / "index.html").write_text(PAGE)
    assert load_apb_task(folder).checks[0].label == "spicy"  # heat is a tier, nuts not boolean
    (folder / "input" / "site" / "index.html").write_text(PAGE.replace('data-heat="3"', 'data-salty="true"'))
    assert load_apb_task(folder).checks[0].label is None  # spicy and salty: ambiguous
