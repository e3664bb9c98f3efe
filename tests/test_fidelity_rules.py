"""Each rule check on real tasks, real tool results and hand-written user turns (violating and faithful)."""
from __future__ import annotations

import pytest

from userbench_env.core.messages import ToolCall
from userbench_env.domains import make_world
from userbench_env.fidelity import RuleTracker, episode_verdict, task_criteria, ufs_summary
from userbench_env.fidelity.outcomes import insists
from userbench_env.fidelity.text import device_states, identifiers, reason_parts, scenario_text
from userbench_env.tasks import load_task, load_tasks


def _setup(domain: str, task_id: str):
    task = load_task(domain, task_id, source="tau2")
    return task, make_world(domain, "tau2", task), RuleTracker(task_criteria(task))


def _user_call(world, tracker, turn: int, name: str, arguments: dict | None = None) -> str:
    call = ToolCall(name=name, arguments=arguments or {}, requestor="user")
    result = world.execute(call)
    tracker.tool_call(turn, call, result)
    return result.content


def _verdict(tracker: RuleTracker, mode: str) -> str:
    return next(v["verdict"] for v in tracker.verdicts() if v["mode"] == mode)


def test_text_readings():
    assert device_states("Airplane Mode: OFF\nMobile Data Enabled: No\nWi-Fi Radio: ON") == (
        ("airplane mode", "off"), ("mobile data", "off"), ("wifi", "on"))
    assert device_states("I turned on roaming.") == (("roaming", "on"),)
    assert identifiers("Order #W1234567, reservation ZX9QK2, mail a.b@c.com, user id mia_li_3668, flight HAT045, SEA") == (
        "#w1234567", "zx9qk2", "a.b@c.com", "mia_li_3668", "hat045")


def test_claiming_an_action_without_the_tool_call_fails_and_after_it_passes():
    _, world, tracker = _setup("telecom", load_tasks_first_telecom())
    tracker.agent_text(1, "Could you please run toggle_airplane_mode on your side?")
    # a false claim is a claim, not a skip (issue 13: claims must not surface in the skip family)
    assert tracker.user_text(1, "Done! I toggled airplane mode.") == ["groundedness/unexecuted_action"]
    tracker.agent_text(2, "Could you please run reboot_device on your side?")
    _user_call(world, tracker, 2, "reboot_device")
    assert tracker.user_text(2, "I restarted the phone, it is back on.") == []
    events = [(e["mode"], e["turn"]) for e in tracker.events()]
    assert ("claims_unexecuted_action", 1) in events and ("skips_requested_action", 1) not in events


def test_a_reply_that_neither_does_nor_claims_the_requested_action_is_a_skip():
    _, _, tracker = _setup("telecom", load_tasks_first_telecom())
    for turn, (request, reply) in enumerate([
        ("Could you please run toggle_airplane_mode on your side?", "My bill was too high last month though."),
        ("Please run reboot_device on your side now.", "I'll do that later, can you check my data plan first?"),
    ], start=1):
        tracker.agent_text(turn, request)
        tracker.user_text(turn, reply)
    events = [(e["mode"], e["turn"]) for e in tracker.events()]
    assert ("skips_requested_action", 1) in events and ("skips_requested_action", 2) in events
    assert not any(mode == "claims_unexecuted_action" for mode, _ in events)


def test_a_claim_the_device_state_contradicts_fails():
    _, world, tracker = _setup("telecom", load_tasks_first_telecom())
    tracker.agent_text(1, "Please run toggle_airplane_mode on your side.")
    shown = _user_call(world, tracker, 1, "toggle_airplane_mode")
    state = "on" if "Airplane Mode is now ON" in shown else "off"
    wrong = "off" if state == "on" else "on"
    assert tracker.user_text(1, f"I did that. Here is what it showed: {shown}") == []
    assert _verdict(tracker, "unsupported_device_state") == "not_applicable"  # a verbatim quote is set aside
    assert tracker.user_text(1, f"So airplane mode is now {state}.") == []
    assert _verdict(tracker, "unsupported_device_state") == "pass"
    tracker.agent_text(2, "Please run toggle_airplane_mode on your side.")
    _user_call(world, tracker, 2, "toggle_airplane_mode")  # flips it back
    # the tool ran, but the claimed state contradicts its result
    assert tracker.user_text(2, f"I turned {state} airplane mode again, all good.") == [
        "groundedness/unexecuted_action", "groundedness/device_state"]
    _, world, tracker = _setup("telecom", load_tasks_first_telecom())
    tracker.agent_text(1, "What does your phone show?")
    assert tracker.user_text(1, f"My phone shows airplane mode is {wrong.upper()}.") == ["groundedness/device_state"]


def test_invented_identifiers_fail_and_heard_ones_pass():
    task, _, tracker = _setup("retail", "0")
    tracker.agent_text(1, "Which order? I see #W2378156 on your account.")
    assert tracker.user_text(1, "Yes, #W2378156 please.") == []
    assert tracker.user_text(1, "And also #W9999999.") == ["groundedness/invented_information"]


def _opened(domain: str, task_id: str):
    """``_setup`` after the agent's greeting and the user's opening message."""
    task, world, tracker = _setup(domain, task_id)
    tracker.agent_text(0, "Hi! How can I help you today?")
    tracker.user_text(0, "Hi, I need help with my reservations.")
    return task, world, tracker


def test_a_stop_in_the_opening_message_is_premature():
    _, _, tracker = _setup("airline", "7")
    tracker.agent_text(0, "Hi! How can I help you today?")
    assert tracker.user_text(0, "Never mind. ###STOP###") == ["goal_deviation/premature_stop"]


def test_premature_stop_is_judged_from_what_the_user_saw():
    # "anything else?" with nothing reported done: the request is open from the user's view
    task, world, tracker = _opened("airline", "7")
    tracker.agent_text(1, "Can I help with anything else?")
    assert tracker.user_text(1, "No thanks. ###STOP###") == ["goal_deviation/premature_stop"]
    # the agent's calls (unseen by the user) decide nothing, even all the gold ones
    task, world, tracker = _opened("airline", "7")
    for action in task.gold_actions:
        call = ToolCall(name=action.name, arguments=action.arguments, requestor="assistant")
        tracker.tool_call(1, call, world.execute(call))
    tracker.agent_text(1, "Is there anything else I can help you with?")
    assert tracker.user_text(1, "Thanks! ###STOP###") == ["goal_deviation/premature_stop"]
    # the agent said it is done (whether it is, is the agent's success): the stop passes, no call needed
    task, world, tracker = _opened("airline", "7")
    tracker.agent_text(1, "Your reservation has been updated and the other two are cancelled. Anything else?")
    assert tracker.user_text(2, "Thanks! ###STOP###") == []
    assert _verdict(tracker, "premature_stop") == "pass"
    # a stop while the agent waits on an answer, with nothing reported yet, fails
    task, world, tracker = _opened("airline", "7")
    tracker.agent_text(1, "Which flight would you like instead?")
    assert tracker.user_text(1, "Never mind. ###STOP###") == ["goal_deviation/premature_stop"]


def test_premature_stop_after_a_refusal_depends_on_the_scenarios_fallbacks():
    tasks = load_tasks("airline", source="tau2", split="base")
    plain = next(t for t in tasks if not reason_parts(t.blueprint)[1] and not insists(scenario_text(t.blueprint)))
    tracker = RuleTracker(task_criteria(plain))  # no fallback, no insisting: a refusal ends the matter
    tracker.agent_text(0, "Hi! How can I help you today?")
    tracker.user_text(0, "Hi, I need help with a reservation.")
    tracker.agent_text(1, "I'm sorry, but I am unable to change a basic economy reservation.")
    assert tracker.user_text(1, "Oh well. ###STOP###") == []
    assert _verdict(tracker, "premature_stop") == "pass"
    insisting = next(t for t in tasks if insists(scenario_text(t.blueprint)))
    tracker = RuleTracker(task_criteria(insisting))  # told to insist: stopping after a refusal gives up
    tracker.agent_text(0, "Hi! How can I help you today?")
    tracker.user_text(0, "Hi, I need help with a reservation.")
    tracker.agent_text(1, "I'm sorry, but I am unable to do that.")
    assert tracker.user_text(1, "Oh well. ###STOP###") == ["goal_deviation/premature_stop"]
    fallback = next(t for t in tasks if reason_parts(t.blueprint)[1] and not insists(scenario_text(t.blueprint)))
    tracker = RuleTracker(task_criteria(fallback))
    tracker.agent_text(0, "Hi! How can I help you today?")
    tracker.user_text(0, "Hi, I need help with a reservation.")
    tracker.agent_text(1, "I'm sorry, that is not possible under our policy.")
    assert tracker.user_text(1, "Ok. ###STOP###") == []  # a fallback not raised yet: not sure, so suspect
    verdict = next(v for v in tracker.verdicts() if v["mode"] == "premature_stop")
    assert verdict["verdict"] == "suspect" and verdict["evidence_turn"] == 1 and "fallback" in verdict["why"]
    assert episode_verdict(tracker.verdicts()) == (True, {})  # a suspect does not fail UFS (no judge)
    assert episode_verdict(tracker.verdicts(), suspects="fail") == (False, {"goal_deviation": 1})

def test_unprompted_transfer_and_withholding():
    _, _, tracker = _setup("airline", "7")
    assert tracker.user_text(0, "###TRANSFER###") == ["goal_deviation/unprompted_transfer"]
    _, _, tracker = _setup("airline", "7")
    tracker.agent_text(1, "Could you please tell me your user id?")
    assert tracker.user_text(1, "I'm sorry, I don't know my user id.") == ["missed_information/withholds/user_id"]
    _, _, tracker = _setup("airline", "7")
    tracker.agent_text(1, "Could you please tell me your user id?")
    assert tracker.user_text(1, "Sure, it is daiki_muller_1116.") == []
    assert _verdict(tracker, "withholds_requested_info") == "pass"


def test_reciting_the_scenario_fails_but_one_sentence_does_not():
    task, _, tracker = _setup("airline", "7")
    assert tracker.user_text(0, "Hi. " + task.blueprint.instructions.split("\n")[0]) == []
    assert "premature_disclosure/dumps_blueprint" in tracker.user_text(1, task.blueprint.instructions)


def test_scoring_reports_ufs_over_decided_episodes():
    fail = [{"family": "groundedness", "verdict": "fail"}, {"family": "goal_deviation", "verdict": "pass"}]
    ok = [{"family": "groundedness", "verdict": "pass"}]
    none = [{"family": "groundedness", "verdict": "not_applicable"}]
    pending = [{"family": "groundedness", "verdict": "pass"}, {"family": "goal_deviation", "verdict": "pending"}]
    error = [{"family": "groundedness", "verdict": "pass"}, {"family": "goal_deviation", "verdict": "error"}]
    assert episode_verdict(error) == (None, {})
    summary = ufs_summary([{"criteria": c} for c in (fail, ok, ok, none, pending, error)] + [{"criteria": ok, "error": "x"}])
    assert summary["ufs"] == pytest.approx(2 / 3) and summary["scored"] == 3
    assert (summary["no_applicable"], summary["undecided"], summary["excluded"]) == (1, 2, 1)
    assert summary["failures_per_family"]["groundedness"] == 1 and summary["failures_per_family"]["missed_information"] == 0


def load_tasks_first_telecom() -> str:
    from userbench_env.tasks import load_tasks

    return load_tasks("telecom", source="tau2", split="base")[0].id


def test_verdicts_are_fresh_copies_the_tracker_keeps_updating():
    _, _, tracker = _setup("retail", "0")
    first = tracker.verdicts()
    for verdict in first:
        verdict["verdict"] = "tampered"
    assert "tampered" not in {v["verdict"] for v in tracker.verdicts()}
    assert tracker.user_text(1, "And also #W9999999.") == ["groundedness/invented_information"]
    assert _verdict(tracker, "invents_unknown_information") == "fail"
    assert {v["verdict"] for v in first} == {"tampered"}


def test_duplicate_criterion_ids_are_refused():
    task = load_task("retail", "0", source="tau2")
    criteria = task_criteria(task)
    with pytest.raises(ValueError, match="duplicate criterion ids"):
        RuleTracker([*criteria, criteria[0]])


def test_a_disclosure_pass_dates_from_the_request_until_the_value_is_stated():
    task = load_task("airline", "0", source="tau2")
    tracker = RuleTracker(task_criteria(task))
    user_id = task.blueprint.item("user_id").value
    evidence = lambda: next(v["evidence_turn"] for v in tracker.verdicts() if v["id"] == "premature_disclosure/user_id")  # noqa: E731
    tracker.agent_text(1, "Could you tell me your user id?")
    assert evidence() == 1
    tracker.agent_text(2, "Sorry, what was your user id again?")  # a second request changes nothing
    assert evidence() == 1
    assert tracker.user_text(3, f"Sure, it is {user_id}.") == []
    assert evidence() == 3


def test_failures_are_counted_per_family():
    verdicts = [{"family": "a", "verdict": "fail"}, {"family": "b", "verdict": "pending"}, {"family": "a", "verdict": "fail"},
                {"family": "c", "verdict": "fail"}, {"family": "b", "verdict": "pass"}]
    assert episode_verdict(verdicts) == (False, {"a": 2, "c": 1})
    assert episode_verdict(iter(verdicts[1:2] + verdicts[4:])) == (None, {})
    assert episode_verdict([]) == (None, {})


def test_a_text_with_two_end_tokens_goes_to_both_token_rules_in_rule_order():
    for text in ("###TRANSFER### ###STOP###", "###STOP### ###TRANSFER###"):
        _, _, tracker = _setup("airline", "7")
        failed = tracker.user_text(0, text)
        order = [c.rule for c in tracker.criteria if c.rule in ("premature_stop", "unprompted_transfer")]
        assert sorted(failed) == ["goal_deviation/premature_stop", "goal_deviation/unprompted_transfer"]
        assert [f.split("/")[1] for f in failed] == order  # as the criteria list them, whatever the text's order
