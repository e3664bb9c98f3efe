"""UserBench/Web-v0 on the APB sample's web tasks in real Chromium: a trait-holding
scripted player passes and a trait-breaking one fails on every task; web artifacts
score through `userbench apb score`; the keto task's `js` output reads page state.

Rules come from data (`tasks/surfaces/apb_rules.yaml`) because APB's verifiers are code
and not in the sample. Labels: vegan-web from the served HTML's `data-animal`,
vegetarian-web from its hidden `tests/answer_key.yaml` tiers, algebra-not-chemistry-web
from `data-matrixrow`/`data-beakerhour`; that task's `solution/web.json` is missing in
the sample, so APB's usual cart output (`#cart-items li` -> `orderedItemIds`) is used.
"""
from __future__ import annotations

import json
from pathlib import Path

import gymnasium as gym
import pytest

import userbench_env  # noqa: F401  (registers the env ids)
from userbench_env.cli import main as cli_main
from userbench_env.surfaces.players import run_episode
from userbench_env.surfaces.tasks import load_apb_task, load_surface_tasks
from userbench_env.surfaces.web.artifact import page_labels
from userbench_env.surfaces.web.backend import WebBackend
from userbench_env.surfaces.web.player import ScriptedWebPlayer, choose_items
from userbench_env.surfaces.web.spec import load_web_spec

pytestmark = pytest.mark.browser

WEB_TASKS = ("vegan-web", "vegetarian-web", "algebra-not-chemistry-web")


@pytest.fixture(scope="module")
def apb_env(apb_sample: Path):
    env = gym.make("UserBench/Web-v0", task_source="apb", path=str(apb_sample / "tasks"))
    yield env
    env.close()


def test_every_sample_web_task_loads(apb_env) -> None:
    tasks = apb_env.unwrapped.tasks
    assert sorted(tasks) == sorted(WEB_TASKS)
    for task in tasks.values():
        assert task.web is not None and task.web.site is not None
        labels, known = page_labels(task)
        assert set(labels) == {c.label for c in task.checks}
        assert len(known) >= 9


@pytest.mark.parametrize("task_id", WEB_TASKS)
@pytest.mark.parametrize("hold", [True, False])
def test_scripted_players_hold_and_break(apb_env, task_id: str, hold: bool) -> None:
    task = apb_env.unwrapped.tasks[task_id]
    info = run_episode(apb_env, ScriptedWebPlayer(task, hold=hold), seed=0, options={"task_id": task_id})
    episode = info["episode_record"]
    assert episode["artifact"]["orderedItemIds"] == choose_items(task, hold)
    assert episode["status"] == ("pass" if hold else "fail")
    assert episode["reward"] == (len(task.checks) if hold else 0.0)
    assert [c["verdict"] for c in episode["checks"]] == ["HELD" if hold else "VIOLATED"] * len(task.checks)
    assert episode["termination"] == "done"


def test_vegetarian_oracle_respects_the_hidden_tiers(apb_sample: Path) -> None:
    task = next(t for t in load_surface_tasks("web", "apb", path=apb_sample / "tasks") if t.id == "vegetarian-web")
    tiers = task.answer_key["tiers"]
    assert all(tiers[i] < 2 for i in choose_items(task, True))
    assert all(tiers[i] >= 2 for i in choose_items(task, False))


def test_empty_cart_fails_and_unreadable_page_is_an_error(apb_env) -> None:
    apb_env.reset(seed=0, options={"task_id": "vegan-web"})
    _, reward, terminated, _, info = apb_env.step('{"action": "done"}')
    assert terminated and reward == 0.0
    assert info["episode_record"]["status"] == "fail"
    assert info["episode_record"]["artifact"] == {"orderedItemIds": []}


def _score(task_dir: Path, artifact: Path, capsys, *extra: str) -> dict:
    assert cli_main(["apb", "score", str(task_dir), "--artifact", str(artifact), "--json", *extra]) == 0
    return json.loads(capsys.readouterr().out)


def test_cli_scores_web_artifacts(apb_sample: Path, tmp_path: Path, capsys) -> None:
    root = apb_sample / "tasks"
    vegan = root / "single-attribute/health-lifestyle/diet-type/vegan/vegan-web"
    vegetarian = root / "single-attribute/health-lifestyle/diet-type/vegetarian/vegetarian-web"
    algebra = root / "multi-attribute/algebra-not-chemistry/algebra-not-chemistry-web"
    order = tmp_path / "order.json"
    order.write_text(json.dumps({"orderedItemIds": ["m02", "m04", "m06"]}))
    assert _score(vegan, order, capsys)["status"] == "pass"
    order.write_text(json.dumps({"orderedItemIds": ["m02", "m04", "m05"]}))
    result = _score(vegan, order, capsys)
    assert result["status"] == "fail" and result["checks"][0]["offside"] == ["m05"]
    order.write_text(json.dumps({"orderedItemIds": ["m03", "m06", "m09"]}))
    assert _score(vegetarian, order, capsys)["status"] == "pass"
    order.write_text(json.dumps({"orderedItemIds": ["m03", "m06"]}))  # vegetarian asks for exactly 3
    assert _score(vegetarian, order, capsys)["status"] == "fail"
    order.write_text(json.dumps({"orderedItemIds": ["wl01", "wl05", "wl09"]}))
    result = _score(algebra, order, capsys)
    assert (result["status"], result["reward"], result["max_points"]) == ("pass", 2.0, 2)
    order.write_text(json.dumps({"orderedItemIds": ["wl01", "wl05", "wl08"]}))
    result = _score(algebra, order, capsys)
    assert (result["status"], result["reward"]) == ("fail", 1.0)
    order.write_text(json.dumps({"orderedItemIds": ["wl01", "wl05", "zz99"]}))
    assert _score(algebra, order, capsys)["status"] == "fail"
    assert _score(vegan, tmp_path / "missing.json", capsys)["status"] == "error"
    order.write_text(json.dumps({"orderedItemIds": ["m02", "m04", "m06"]}))
    assert _score(vegan, order, capsys, "--rule", "exhibit")["status"] == "fail"


def test_keto_js_output_reads_page_state(apb_sample: Path) -> None:
    """keto-web ships only its web.json (no page): its `js` output runs on our page."""
    keto = load_web_spec(apb_sample / "tasks/single-attribute/health-lifestyle/diet-type/keto-low-carb/keto-web")
    assert keto is not None and keto.site is None and [o.kind for o in keto.outputs] == ["js"]
    task = next(t for t in load_surface_tasks("web") if t.web and t.web.page and t.web.page.template == "shop")
    task = task.model_copy(update={"web": task.web.model_copy(update={"outputs": keto.outputs})})
    backend = WebBackend()
    try:
        obs = backend.reset(task, None, 0)
        assert backend.artifact() == {"order_result": {"completed": False, "selections": {}, "events": None}}
        assert "Add to basket" in obs
        for _ in range(3):
            add = next(c.ref for c in backend.snapshot.controls if c.label == "Add to basket" and not c.disabled)
            assert backend.step(json.dumps({"action": "click", "ref": add})).observation
        assert backend.artifact()["order_result"]["completed"] is False
        place = next(c for c in backend.snapshot.controls if c.label == "Place order")
        assert not place.disabled
        backend.step(json.dumps({"action": "click", "ref": place.ref}))
        assert backend.artifact()["order_result"]["completed"] is True
    finally:
        backend.close()


def test_apb_loader_reads_web_json(apb_sample: Path) -> None:
    task = load_apb_task(apb_sample / "tasks/single-attribute/health-lifestyle/diet-type/vegan/vegan-web")
    assert task.web.role == "a user"
    assert task.web.notes == ["You are ordering dinner from a restaurant website."]
    assert task.web.outputs[0].path == "anchor/order.json" and task.web.picks_from == "orderedItemIds"
