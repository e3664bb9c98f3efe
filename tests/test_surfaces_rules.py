"""Decision rules, constraints, statuses and the upstream-verifier runner."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from userbench_env.surfaces.artifacts import score_artifact
from userbench_env.surfaces.rules import Constraint, Pick, Rule, apply_rule, parse_rules
from userbench_env.surfaces.scoring import CheckVerdict, combine, pass_rate
from userbench_env.surfaces.tasks import load_apb_task

LABELS = {"a": True, "b": False, "c": True, "d": False}
TIERS = {"a": 0, "b": 1, "c": 2, "d": 3}


def picks(*ids: str) -> list[Pick]:
    return [Pick(id=i) for i in ids]


@pytest.mark.parametrize("text", ["avoid", "exhibit", "at-least:2", "per-question", "tier:2"])
def test_rule_strings_round_trip(text: str) -> None:
    assert str(Rule.parse(text)) == text


def test_unknown_rule_is_rejected() -> None:
    with pytest.raises(ValueError, match="unknown rule"):
        Rule.parse("mostly")
    assert [str(r) for r in parse_rules("exhibit,avoid")] == ["exhibit", "avoid"]


@pytest.mark.parametrize(("rule", "chosen", "labels", "held"), [
    ("avoid", ("b", "d"), LABELS, True),
    ("avoid", ("b", "c"), LABELS, False),
    ("exhibit", ("a", "c"), LABELS, True),
    ("exhibit", ("a", "b"), LABELS, False),
    ("at-least:2", ("a", "b", "c"), LABELS, True),
    ("at-least:2", ("a", "b", "d"), LABELS, False),
    ("per-question", ("a",), LABELS, True),
    ("per-question", ("b",), LABELS, False),
    ("per-question", ("a", "c"), LABELS, False),
    ("tier:2", ("a", "b"), TIERS, True),
    ("tier:2", ("a", "c"), TIERS, False),
    ("tier:3", ("a", "c"), TIERS, True),
])
def test_rules_decide(rule: str, chosen: tuple[str, ...], labels: dict, held: bool) -> None:
    assert apply_rule(Rule.parse(rule), picks(*chosen), labels).held is held


def test_scope_and_offside() -> None:
    outcome = apply_rule(Rule.parse("avoid"), picks("a", "x", "b"), LABELS)
    assert outcome.scoped == ["a", "b"] and outcome.offside == ["a"]
    assert not apply_rule(Rule.parse("avoid"), picks("x"), LABELS).held  # nothing to judge


def test_constraints() -> None:
    groups = {"q1": ["q1a", "q1b"], "q2": ["q2a", "q2b"]}
    good = [Pick(id="q1a", group="q1"), Pick(id="q2b", group="q2")]
    coverage = Constraint.parse("coverage")
    assert coverage.problem(good, groups) is None
    assert "unanswered" in coverage.problem(good[:1], groups)
    assert "does not belong" in coverage.problem([Pick(id="q2a", group="q1"), good[1]], groups)
    assert "more than one" in coverage.problem(good + [Pick(id="q1b", group="q1")], groups)
    assert "unknown" in Constraint.parse("known").problem([Pick(id="zz")], groups)
    assert Constraint.parse("count:2-3").problem(good, groups) is None
    assert Constraint.parse("count:3").problem(good, groups) == "2 picks, need 3"
    assert Constraint.parse("distinct").problem(good + good[:1], groups)
    assert Constraint.parse("nonempty").problem([], groups) == "no picks"


def test_statuses() -> None:
    held, broke = CheckVerdict(name="a", verdict="HELD"), CheckVerdict(name="b", verdict="VIOLATED")
    err = CheckVerdict(name="c", verdict="ERROR", detail="judge down")
    assert combine([held]).model_dump(include={"status", "reward", "max_points"}) == \
        {"status": "pass", "reward": 1.0, "max_points": 1}
    assert combine([broke]).status == "fail" and combine([broke]).reward == 0.0
    multi = combine([held, broke])
    assert (multi.status, multi.reward, multi.max_points) == ("fail", 1.0, 2)
    assert combine([held, held]).status == "pass"
    assert combine([held, err]).status == "error"
    assert pass_rate(["pass", "fail", "error", "pass"]) == pytest.approx(200 / 3)
    assert pass_rate(["error"]) is None


VERIFIER = '''
import json, os, pathlib, sys, time
out = pathlib.Path(os.environ["ADHERENCE_OUTPUT_DIR"])
answers = json.loads((out / "survey_result.json").read_text())["answers"]
if any(a["selectedOptionId"] == "q3c" for a in answers):
    time.sleep(30)
if any(a["selectedOptionId"] == "q2c" for a in answers):
    sys.exit(3)
held = not any(a["selectedOptionId"] in ("q1a", "q1c") for a in answers)
(out / "structured_output.json").write_text(json.dumps({"reward": 1.0 if held else 0.0, "checks": [
    {"label": "lstyle_diet_type=Vegan", "passed": held, "verdict": "HELD" if held else "VIOLATED"}]}))
'''


def _answers(*ids: str) -> dict:
    return {"answers": [{"questionId": i[:2], "selectedOptionId": i} for i in ids]}


def test_upstream_verifier_runs_in_a_subprocess(apb_sample: Path, tmp_path: Path) -> None:
    src = apb_sample / "tasks/single-attribute/health-lifestyle/diet-type/vegan/vegan-survey"
    folder = shutil.copytree(src, tmp_path / "vegan-survey")
    (folder / "tests" / "verifier.py").write_text(VERIFIER)
    toml = (folder / "task.toml").read_text().replace("timeout_sec = 30.0", "timeout_sec = 5.0")
    (folder / "task.toml").write_text(toml)
    task = load_apb_task(folder)
    assert task.verifier is not None
    assert score_artifact(task, _answers("q1b", "q2b", "q3b")).status == "pass"
    failed = score_artifact(task, _answers("q1a", "q2b", "q3b"))
    assert (failed.status, failed.checks[0].verdict, failed.checks[0].evaluator) == ("fail", "VIOLATED", "verifier")
    crashed = score_artifact(task, _answers("q1b", "q2c", "q3b"))
    assert crashed.status == "error" and "structured_output" in crashed.error
    slow = score_artifact(task, _answers("q1b", "q2b", "q3c"))
    assert slow.status == "error" and "timed out" in slow.error
    # a rule given as data replaces the verifier
    assert score_artifact(task.with_rules(["avoid"]), _answers("q1a", "q2b", "q3b")).checks[0].evaluator == "rule"
    json.dumps(failed.as_dict())
