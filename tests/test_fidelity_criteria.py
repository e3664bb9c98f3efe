"""The taxonomy as data and the criteria of every bundled and tau2 task (grounding verbatim)."""
from __future__ import annotations

import pytest

from userbench_env.fidelity import FAMILIES, MODES, RULES, TAXONOMY
from userbench_env.fidelity.criteria import guideline_texts, task_criteria
from userbench_env.fidelity.taxonomy import injectable_modes, modes_of, resolve_modes, rule_modes
from userbench_env.fidelity.text import reason_parts, scenario_text
from userbench_env.tasks import load_tasks

SETS = [("airline", "bundled", "default"), ("retail", "bundled", "default"), ("airline", "tau2", "base"),
        ("retail", "tau2", "base"), ("telecom", "tau2", "base"), ("banking", "tau2", None)]


def test_taxonomy_has_the_four_families_and_the_required_modes():
    assert FAMILIES == ("groundedness", "premature_disclosure", "goal_deviation", "missed_information")
    required = {
        "premature_disclosure": {"volunteers_unasked_info", "preempts_diagnosis", "dumps_blueprint"},
        "groundedness": {"unsupported_personal_state", "unsupported_device_state", "claims_unexecuted_action",
                         "fabricates_tool_result", "self_contradiction", "invents_unknown_information"},
        "goal_deviation": {"premature_stop", "accepts_forbidden_outcome", "accepts_insufficient_outcome", "abandons_goal"},
        "missed_information": {"withholds_requested_info", "skips_requested_action"},
    }
    for family, names in required.items():
        assert names <= {m.name for m in modes_of(family)}
    # guideline-implied modes beyond the core ones
    assert {"unprompted_transfer", "unrequested_action", "ignores_tool_error", "breaks_character"} <= set(TAXONOMY)


def test_every_mode_is_rule_covered_by_a_registered_rule_or_judge_only_and_quotes_the_guidelines():
    texts = guideline_texts()
    for mode in MODES:
        assert mode.family in FAMILIES
        assert any(mode.guideline in t for t in texts), mode.name
        if mode.coverage == "rule":
            assert mode.rule in RULES, mode.name
        else:  # judge-checked, or decided by the env at a user-caused ending (never injected)
            assert mode.coverage in ("judge", "env") and mode.rule is None, mode.name
            assert not (mode.coverage == "env" and mode.injectable), mode.name
    assert "accepts_forbidden_outcome" in injectable_modes() and "accepts_forbidden_outcome" not in rule_modes()


def test_mode_names_resolve_from_modes_families_and_all():
    assert resolve_modes("premature_stop") == ["premature_stop"]
    assert resolve_modes("missed_information") == ["withholds_requested_info", "skips_requested_action"]
    assert resolve_modes("all") == injectable_modes()
    with pytest.raises(ValueError, match="cannot inject"):
        resolve_modes("self_contradiction")


@pytest.mark.parametrize("domain,source,split", SETS)
def test_every_criterion_of_every_task_is_grounded_verbatim(domain, source, split):
    texts = guideline_texts()
    tasks = load_tasks(domain, source=source, split=split)
    assert tasks
    families = set()
    for task in tasks:
        criteria = task_criteria(task)
        assert len({c.id for c in criteria}) == len(criteria), task.id
        scenario = scenario_text(task.blueprint)
        for c in criteria:
            assert c.grounding and (c.grounding in scenario or any(c.grounding in t for t in texts)), (task.id, c.id)
            assert TAXONOMY[c.mode].family == c.family
            assert c.check == "rule" and c.rule in (TAXONOMY[c.mode].rule, *TAXONOMY[c.mode].also)
            families.add(c.family)
    assert families == set(FAMILIES)


def test_criteria_follow_the_task_structure():
    telecom = load_tasks("telecom", source="tau2", split="base")[0]
    modes = {c.mode for c in task_criteria(telecom)}
    assert {"claims_unexecuted_action", "unsupported_device_state", "skips_requested_action", "premature_stop"} <= modes
    airline = {t.id: t for t in load_tasks("airline", source="tau2", split="base")}
    modes = {c.mode for c in task_criteria(airline["0"])}  # no user tools, no state-changing gold action
    assert not modes & {"claims_unexecuted_action", "unsupported_device_state", "skips_requested_action"}
    # every task has a premature stop, read from the scenario (never from the gold actions: the user cannot see them)
    for task_id in ("0", "1", "7"):
        stop = next(c for c in task_criteria(airline[task_id]) if c.mode == "premature_stop")
        assert "goal" not in stop.params and "as far as it can know" in stop.statement
        assert stop.params["fallback"] == reason_parts(airline[task_id].blueprint)[1]


