"""Scoring the app's written file: forged files, exact counts, rules, the APB catalogue,
and the seeded generator of our bundled app tasks."""
from __future__ import annotations

import filecmp

import pytest

from userbench_env.surfaces.app.apb import with_apb_catalog
from userbench_env.surfaces.app.generate import generate
from userbench_env.surfaces.app.spec import AppItem, AppSpec, launch_payload
from userbench_env.surfaces.artifacts import score_artifact
from userbench_env.surfaces.tasks import load_apb_task, load_surface_tasks, surfaces_dir

QUICKBITE = "tasks/single-attribute/health-lifestyle/diet-type/vegan/vegan-app"


@pytest.fixture(scope="module")
def quickbite(apb_sample):
    return with_apb_catalog(load_apb_task(apb_sample / QUICKBITE),
                            apb_sample / "derived" / "vegan-app-quickbite-catalog.json")


def order(task, *ids, **override):
    rows = []
    for item_id in ids:
        item = task.app.item(item_id)
        entry = {"id": item_id, "name": item.name if item else "Mystery dish"}
        entry.update({label: values.get(item_id) for label, values in task.answer_key.items()})
        rows.append({**entry, **override.get(item_id, {})})
    return {"app": task.app.title, task.app.list_key: rows}


def test_quickbite_catalogue_and_rules(quickbite):
    assert quickbite.app.list_key == "orderedDishes" and quickbite.app.output_file == "order.json"
    assert (quickbite.app.min_picks, quickbite.app.max_picks) == (2, 3)
    assert quickbite.answer_key["animal"]["d01"] is True and quickbite.answer_key["animal"]["d03"] is False
    held = score_artifact(quickbite, order(quickbite, "d03", "d06"), "app")
    assert (held.status, held.reward) == ("pass", 1.0)
    broke = score_artifact(quickbite, order(quickbite, "d03", "d05"), "app")
    assert broke.status == "fail" and broke.checks[0].offside == ["d05"]


@pytest.mark.parametrize("data, reason", [
    ("unknown", "not in the app's catalogue"),
    ("renamed", "forged file"),
    ("relabelled", "contradicts the catalogue"),
    ("too_many", "4 picks, need 2-3"),
    ("too_few", "1 picks, need 2-3"),
    ("no_list", "needs a 'orderedDishes' list"),
])
def test_bad_files_fail(quickbite, data, reason):
    bad = {
        "unknown": order(quickbite, "d03", "d99"),
        "renamed": order(quickbite, "d03", "d06", d06={"name": "Beef Cheeseburger"}),
        "relabelled": order(quickbite, "d03", "d05", d05={"animal": False}),
        "too_many": order(quickbite, "d03", "d04", "d06", "d08"),
        "too_few": order(quickbite, "d03"),
        "no_list": {"app": "QuickBite", "orderedItems": [{"id": "d03"}]},
    }[data]
    outcome = score_artifact(quickbite, bad, "app")
    assert outcome.status == "fail" and outcome.reward == 0.0
    assert reason in outcome.checks[0].detail


def test_missing_file_is_an_error(quickbite):
    outcome = score_artifact(quickbite, None, "app")
    assert outcome.status == "error" and "no artifact" in outcome.error


def test_multi_task_counts_checks_held():
    task = next(t for t in load_surface_tasks("app") if t.multi)
    a, b = (task.answer_key[c.label] for c in task.checks)
    keep = [task.rules()[0].kind != "avoid", task.rules()[1].kind != "avoid"]
    both = [i for i in a if a[i] == keep[0] and b[i] == keep[1]]
    only_first = [i for i in a if a[i] == keep[0] and b[i] != keep[1]]
    assert len(both) == 2 and len(only_first) == 2
    assert score_artifact(task, order(task, *both), "app").reward == 2.0
    half = score_artifact(task, order(task, *only_first), "app")
    assert (half.status, half.reward, half.max_points) == ("fail", 1.0, 2)
    assert score_artifact(task, order(task, both[0]), "app").reward == 0.0  # exactly 2 required


def test_payload_hides_labels_only_in_rows():
    spec = AppSpec(title="T", items=[AppItem(id="a", name="A"), AppItem(id="b", name="B")], min_picks=1, max_picks=2)
    payload = launch_payload(spec, {"secret": {"a": True, "b": False}})
    assert payload["hidden"] == {"a": {"secret": True}, "b": {"secret": False}}
    with pytest.raises(ValueError):
        AppSpec(title="T", items=[AppItem(id="a", name="A")], min_picks=2, max_picks=3)


def test_generator_is_seeded_and_matches_bundled_data(tmp_path):
    assert generate(tmp_path / "one", seed=0) == generate(tmp_path / "two", seed=0) >= 30
    names = sorted(p.name for p in (tmp_path / "one" / "app").glob("*.yaml"))
    assert filecmp.cmpfiles(tmp_path / "one" / "app", tmp_path / "two" / "app", names, shallow=False)[0] == names
    assert filecmp.cmpfiles(tmp_path / "one" / "app", surfaces_dir() / "app", names, shallow=False)[0] == names
    generate(tmp_path / "three", seed=1)
    assert (tmp_path / "three" / "app" / names[0]).read_text() != (tmp_path / "one" / "app" / names[0]).read_text()


def test_bundled_tasks_do_not_leak_the_trait():
    tasks = load_surface_tasks("app")
    assert sum(t.multi for t in tasks) >= 10 and sum(not t.multi for t in tasks) >= 20
    for task in tasks:
        for check in task.checks:
            assert check.value.lower() not in task.instruction.lower(), (task.id, check.value)
        shown = " ".join(f"{i.name} {i.description} {i.section}" for i in task.app.items) + task.instruction
        assert not any(word in shown for word in task.answer_key)
        for check, rule in zip(task.checks, task.rules()):
            labels = task.answer_key[check.label]
            keep = [i for i, v in labels.items() if (not v if rule.kind == "avoid" else v)]
            assert len(keep) >= task.app.min_picks  # the trait can be held
