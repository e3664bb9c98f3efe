"""Every bundled task loads, its gold actions succeed and its gold transcript scores 1."""
from __future__ import annotations

import json

import pytest

from userbench_env.datapaths import bundled_root
from userbench_env.domains import make_world
from userbench_env.evaluation import evaluate_episode
from userbench_env.generate import GENERATORS
from userbench_env.tasks import load_tasks

from bundled_support import live_gold_transcript

MIN_TASKS = {"airline": 30, "retail": 30, "banking": 30, "telecom": 100}
DOMAINS = sorted(GENERATORS)


def _tasks(domain):
    return load_tasks(domain, source="bundled", split=None)


@pytest.mark.parametrize("domain", DOMAINS)
def test_tasks_load_with_splits(domain):
    tasks = _tasks(domain)
    assert len(tasks) >= MIN_TASKS[domain]
    assert len({t.id for t in tasks}) == len(tasks)
    base = {t.id for t in load_tasks(domain, source="bundled", split="base")}
    train = {t.id for t in load_tasks(domain, source="bundled", split="train")}
    test = {t.id for t in load_tasks(domain, source="bundled", split="test")}
    assert base == {t.id for t in tasks}
    assert train | test == base and not train & test
    assert all(t.source == "bundled" and t.domain == domain and t.evaluation for t in tasks)


@pytest.mark.parametrize("domain", DOMAINS)
def test_known_info_spans_are_verbatim(domain):
    for task in _tasks(domain):
        bp = task.blueprint
        assert bp.reason_for_call and bp.instructions, task.id
        for item in bp.known_info:
            assert item.span and item.span in (bp.known_info_text or ""), (task.id, item)
            assert item.value in item.span, (task.id, item)
        scenario = task.user_scenario["instructions"]
        assert scenario["known_info"] == bp.known_info_text
        assert scenario["task_instructions"] == bp.instructions


@pytest.mark.parametrize("domain", DOMAINS)
def test_gold_actions_succeed_and_score_one(domain):
    for task in _tasks(domain):
        messages, errors = live_gold_transcript(task)
        assert errors == [], (task.id, errors)
        verdict = evaluate_episode(task, messages, termination="user_stop", source="bundled", include_nl=False)
        assert verdict.reward_excluding_nl == 1.0, (task.id, verdict.components)


@pytest.mark.parametrize("domain", DOMAINS)
def test_wrong_episodes_score_zero(domain):
    """The checks bite: leaving out the state changes or the required statements fails."""
    tasks = _tasks(domain)
    world = make_world(domain, "bundled")
    writers = [t for t in tasks if any(_mutates(world, a) for a in t.gold_actions)]
    talkers = [t for t in tasks if t.evaluation.communicate_info and "COMMUNICATE" in t.evaluation.reward_basis]
    assert writers
    for task in writers[:5]:
        messages, _ = live_gold_transcript(task, skip_writes=True)
        verdict = evaluate_episode(task, messages, termination="user_stop", source="bundled", include_nl=False)
        assert verdict.reward_excluding_nl == 0.0, task.id
    for task in talkers[:5]:
        messages, _ = live_gold_transcript(task, closing=False)
        verdict = evaluate_episode(task, messages, termination="user_stop", source="bundled", include_nl=False)
        assert verdict.reward_excluding_nl == 0.0, task.id


def _mutates(world, action):
    kit = world.toolkit("agent" if action.requestor == "assistant" else "user")
    return kit.mutates_state(action.name)


@pytest.mark.parametrize("domain", DOMAINS)
def test_world_files_are_small_and_present(domain):
    folder = bundled_root() / domain
    sizes = {p.name: p.stat().st_size for p in folder.rglob("*") if p.is_file()}
    assert "tasks.json" in sizes
    assert len(make_world(domain, "bundled").policy) > 500
    assert sum(sizes.values()) < 1_000_000, sizes
    assert isinstance(json.loads((folder / "tasks.json").read_text()), list)


def test_telecom_faults_really_break_the_phone():
    """Before the repair, every solvable telecom task fails one of its env assertions."""
    for task in _tasks("telecom"):
        world = make_world("telecom", "bundled", task)
        results = [world.run_assertion(a) for a in task.evaluation.env_assertions]
        if "ACTION" in task.evaluation.reward_basis:  # unsolvable: transfer expected, state unchanged
            assert all(results), task.id
        else:
            assert not all(results), task.id
