"""Premature-disclosure criteria from blueprints and their incremental rule check."""
from __future__ import annotations

import pytest

from userbench_env.envs.conversation import ConversationEnv
from userbench_env.fidelity import RuleTracker, episode_verdict, from_blueprint
from userbench_env.fidelity.criteria import premature_disclosure_criteria
from userbench_env.proxies.base import UserProxy, UserTurn, UserView
from userbench_env.proxies.scripted import ScriptedUserProxy
from userbench_env.tasks import load_task, load_tasks


@pytest.mark.parametrize("domain", ["airline", "retail", "telecom"])
def test_every_grounding_is_a_verbatim_span_of_the_blueprint(domain):
    total = 0
    for task in load_tasks(domain, source="tau2", split="base"):
        assert len({c.id for c in from_blueprint(task.blueprint)}) == len(from_blueprint(task.blueprint))
        criteria = premature_disclosure_criteria(task.blueprint)
        assert criteria == [c for c in from_blueprint(task.blueprint) if c.family == "premature_disclosure" and c.rule == "premature_disclosure"]
        for c in criteria:  # (a known item's sentence, or the instruction naming an id)
            assert c.grounding in task.blueprint.known_info_text or c.grounding in task.blueprint.instructions
            assert c.params["value"] in c.grounding
            assert c.params["value"].lower() not in task.blueprint.reason_for_call.lower()
        total += len(criteria)
    assert total >= len(load_tasks(domain, source="tau2", split="base"))


def _verdict(tracker: RuleTracker, cid: str) -> str:
    return next(v["verdict"] for v in tracker.verdicts() if v["id"] == cid)


def test_ids_the_instructions_name_wait_for_the_agents_question():
    """tau2 airline task 24 names reservation H9ZU1C only in its instructions (its reason
    for calling says "one of your reservation"): stating it in the opening volunteers it."""
    task = load_task("airline", "24", source="tau2")
    criteria = {c.params["value"]: c for c in premature_disclosure_criteria(task.blueprint)}
    assert criteria["H9ZU1C"].params["kind"] == "reservation_id"
    tracker = RuleTracker([criteria["H9ZU1C"]])
    tracker.agent_text(0, "Hi! How can I help you today?")
    tracker.user_text(0, "Hi, can you remove Ethan from my reservation H9ZU1C?")
    assert _verdict(tracker, criteria["H9ZU1C"].id) == "fail"


def test_a_taubench_user_has_no_reason_for_calling_to_open_with():
    """A tau-bench customer was given one instruction paragraph: the id tau2's reason for
    calling names (task 28: "cancel your flights in reservation ID SI5UKW") is its to give
    when asked, while a tau2 user states it with its reason."""
    from userbench_env.fidelity.transcripts.taubench import one_instruction

    task = load_task("airline", "28", source="tau2")
    assert "SI5UKW" not in {c.params["value"] for c in premature_disclosure_criteria(task.blueprint)}
    briefed = one_instruction(task)
    criteria = [c for c in premature_disclosure_criteria(briefed.blueprint) if c.params["value"] == "SI5UKW"]
    assert [c.grounding for c in criteria] == ["You want to cancel your flights in reservation ID SI5UKW and get a refund."]
    tracker = RuleTracker(criteria)
    tracker.agent_text(0, "Hi! How can I help you today?")
    tracker.user_text(0, "Hi, I need to cancel my flights in reservation SI5UKW.")
    assert _verdict(tracker, criteria[0].id) == "fail"
    late = RuleTracker(criteria)  # given once the agent asked for it: an answer
    late.agent_text(0, "Sure. What is the reservation id?")
    late.user_text(0, "It's SI5UKW.")
    assert _verdict(late, criteria[0].id) == "pass"


def test_details_the_scenario_says_to_give_up_front_are_never_volunteered():
    task = load_task("retail", "61", source="tau2")  # "Provide all details upfront ..."
    assert premature_disclosure_criteria(task.blueprint) == []


def test_values_stated_in_the_reason_for_call_get_no_criterion():
    task = load_task("airline", "7", source="tau2")  # reason names XEHM4B; known info only the user id
    ids = [c.params["value"] for c in premature_disclosure_criteria(task.blueprint)]
    assert ids == ["daiki_muller_1116"]


def _tracker(task_id: str = "0") -> RuleTracker:
    return RuleTracker(premature_disclosure_criteria(load_task("airline", task_id, source="tau2").blueprint))


def test_disclosure_before_the_question_fails_and_after_passes():
    tracker = _tracker()
    tracker.agent_text(0, "Hi! How can I help you today?")
    assert tracker.user_text(0, "I want to cancel. My user id is emma_kim_9957.") == ["premature_disclosure/user_id"]
    tracker.agent_text(1, "Could you please tell me your name?")
    assert tracker.user_text(1, "My name is Emma Kim.") == []
    verdicts = {v["id"]: v for v in tracker.verdicts()}
    assert verdicts["premature_disclosure/user_id"] == {
        "id": "premature_disclosure/user_id", "family": "premature_disclosure", "mode": "volunteers_unasked_info",
        "verdict": "fail", "evidence_turn": 0, "source": "rule"}
    assert verdicts["premature_disclosure/name"]["verdict"] == "pass"
    assert episode_verdict(tracker.verdicts()) == (False, {"premature_disclosure": 1})


def test_untouched_items_are_not_applicable_and_ufs_is_none():
    tracker = _tracker()
    tracker.user_text(0, "I want to cancel my trip.")
    assert {v["verdict"] for v in tracker.verdicts()} == {"not_applicable"}
    assert episode_verdict(tracker.verdicts()) == (None, {})


def test_a_question_alone_makes_the_criterion_pass():
    tracker = _tracker()
    tracker.agent_text(1, "What is your user id?")
    assert {v["id"]: v["verdict"] for v in tracker.verdicts()}["premature_disclosure/user_id"] == "pass"
    assert episode_verdict(tracker.verdicts())[0] is True


class _Blurter(UserProxy):
    """Opens with its user id (a premature disclosure), then behaves like the scripted user."""

    name = "blurter"

    def __init__(self) -> None:
        super().__init__()
        self.inner = ScriptedUserProxy()

    def reset(self, task, seed=None):
        super().reset(task, seed)
        self.inner.reset(task, seed)

    def respond(self, view: UserView) -> UserTurn:
        if not any(m.role == "user" for m in view.messages):
            return UserTurn(text=f"Hi, I'm {self.task.blueprint.item('user_id').value} and I need help.")
        return self.inner.respond(view)


def test_env_reports_violations_incrementally_and_at_the_end():
    env = ConversationEnv("airline", task_source="tau2", user_proxy=_Blurter())
    _, info = env.reset(options={"task_id": "0"})
    assert info["ufs_violations"] == ["premature_disclosure/user_id"] and info["ufs_failed_so_far"]
    _, _, terminated, _, info = env.step("Your request is complete. Is there anything else I can help you with?")
    assert terminated
    episode = info["episode_record"]
    assert episode["ufs_pass"] is False
    # the agent said the request is done, so stopping here is not premature (issue 22: judged from the user's view)
    assert episode["failures_per_family"] == {"premature_disclosure": 1}
    failed = [c for c in episode["criteria"] if c["verdict"] == "fail"]
    assert failed == [{"id": "premature_disclosure/user_id", "family": "premature_disclosure",
                       "mode": "volunteers_unasked_info", "verdict": "fail", "evidence_turn": 0, "source": "rule"}]


def test_the_scripted_user_never_discloses_prematurely():
    env = ConversationEnv("airline", task_source="tau2")
    for task in env.tasks[:20]:
        _, info = env.reset(options={"task_id": task.id})
        env.step("Could you please tell me your user id?")
        for _ in range(4):  # each further request of the reason is raised once the one before is done
            _, _, _, _, info = env.step("All set, your request is complete. Is there anything else I can help you with?")
            if "episode_record" in info:
                break
        disclosure = [c for c in info["episode_record"]["criteria"] if c["family"] == "premature_disclosure"]
        assert [c["id"] for c in disclosure if c["verdict"] == "fail"] == [], task.id
        assert any(c["verdict"] == "pass" for c in disclosure), task.id
        # (stopping after the agent said it is done is no premature stop, whatever the agent did)
        assert {v.split("/")[0] for v in info["ufs_violations"]} <= {"goal_deviation"}, task.id
