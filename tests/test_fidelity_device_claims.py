"""Claims against device states (issue 13): a state stated as the outcome of a claimed,
unexecuted action is the claim's violation, not a state seen; device states beyond the
toggles (network generation, app permissions, SIM presence) are read with tense and
negation and compared with what the device is and what the user's tool results showed."""
from __future__ import annotations

import pytest

from userbench_env.domains import make_world
from userbench_env.fidelity import RuleTracker, task_criteria
from userbench_env.fidelity.language import labelled_values
from userbench_env.fidelity.text import device_states, past_device_states
from userbench_env.tasks import load_task
from test_fidelity_paraphrase_classes import _replay
from test_fidelity_rules import _setup, _user_call, load_tasks_first_telecom

ROAMING_REQUEST = "Could you please run toggle_roaming on your side with these arguments: {}?"


@pytest.mark.parametrize("claim", ["I turned roaming on like you said", "just now switched roaming on, all good",
                                   "yep, data roaming's enabled now.", "Sure, I went into settings and roaming is switched on now.",
                                   "I already switched data roaming on, should be fine"])
def test_the_outcome_of_a_claimed_unexecuted_toggle_is_the_claims_violation(claim):
    _, _, tracker = _setup("telecom", load_tasks_first_telecom())  # roaming is off on this phone
    modes = _replay(tracker, [("agent", ROAMING_REQUEST), ("user", claim)])
    assert modes == {("claims_unexecuted_action", 1)}  # neither a state seen nor a skip


def test_after_the_toggle_ran_the_stated_state_is_judged_against_its_result():
    _, world, tracker = _setup("telecom", load_tasks_first_telecom())
    assert _replay(tracker, [("agent", ROAMING_REQUEST), ("call", "toggle_roaming"),
                             ("user", "I turned roaming on like you said, all good.")], world) == set()
    tracker.agent_text(3, ROAMING_REQUEST)
    # the toggle ran again (roaming back off) and the user says it is on: the state contradicts its result
    _user_call(world, tracker, 3, "toggle_roaming")
    assert {m for m, t in _replay_from(tracker, 3, "I switched roaming on again.")} == {
        "claims_unexecuted_action", "unsupported_device_state"}


def _replay_from(tracker: RuleTracker, turn: int, text: str) -> set[tuple[str, int]]:
    tracker.user_text(turn, text)
    return {(e["mode"], e["turn"]) for e in tracker.events() if e["turn"] == turn}


def test_saying_the_action_is_not_done_leaves_the_state_to_be_judged():
    _, _, tracker = _setup("telecom", load_tasks_first_telecom())
    modes = _replay(tracker, [("agent", ROAMING_REQUEST), ("user", "I haven't done it yet, but roaming's been on all along.")])
    assert ("unsupported_device_state", 1) in modes


@pytest.mark.parametrize("text, current, earlier", [
    ("fwiw the phone's on 5G and wifi is off", {("network", "5g"), ("wifi", "off")}, set()),
    ("it's set to 4G only", {("network", "4g")}, set()),
    ("the phone's not on 5G", set(), set()),  # a negated generation asserts none
    ("before I changed it, it was on 3G only", set(), {("network", "3g")}),
    ("permissions are all granted", {("permission sms", "on"), ("permission storage", "on"), ("permission phone", "on"),
                                     ("permission network", "on")}, set()),
    ("the app already has storage access", {("permission storage", "on")}, set()),
    ("messaging doesn't have storage access", {("permission storage", "off")}, set()),
    ("App 'messaging' has permission for: sms.", {("permission sms", "on"), ("permission storage", "off"),
                                                  ("permission phone", "off"), ("permission network", "off")}, set()),
    ("the SIM is in, I can see it", {("sim", "ok")}, set()),
    ("there's no SIM in it", {("sim", "missing")}, set()),
    ("I took the SIM out and put it back", set(), set()),
])
def test_states_beyond_the_toggles_are_read_with_tense_and_negation(text, current, earlier):
    assert set(device_states(text)) == current
    assert set(past_device_states(text)) == earlier


def test_a_network_state_is_no_labelled_phone_number():
    assert labelled_values("fwiw the phone's on 5G and wifi is off") == ()
    assert labelled_values("my phone's network mode is 4G/5G preferred already") == ()
    assert labelled_values("my phone is 555-481-3369") == (("phone_number", "555-481-3369"),)


def _bundled(task_id: str):
    task = load_task("telecom", task_id, source="bundled")
    return make_world("telecom", "bundled", task), RuleTracker(task_criteria(task))


@pytest.mark.parametrize("said", ["the messaging app already has storage access", "its permissions are all granted",
                                  "the app has all its permissions"])
def test_an_unchecked_permission_the_app_lacks_is_unsupported(said):
    _, tracker = _bundled("telecom_mms_messaging_no_storage_none")
    assert ("unsupported_device_state", 1) in _replay(tracker, [("agent", "How can I help?"), ("user", said)])


def test_permission_and_network_states_read_off_the_users_own_checks_pass():
    world, tracker = _bundled("telecom_mms_messaging_no_storage_none")
    tracker.agent_text(1, "Could you please run grant_app_permission on your side?")
    _user_call(world, tracker, 1, "check_app_permissions", {"app_name": "messaging"})
    assert tracker.user_text(1, "it says messaging only has sms, so it doesn't have storage access.") == []
    world, tracker = _bundled("telecom_mobile_data_network_mode_3g_none")
    tracker.agent_text(1, 'Could you please run set_network_mode_preference on your side with these arguments: '
                          '{"mode": "4g_5g_preferred"}?')
    _user_call(world, tracker, 1, "check_network_mode_preference")
    _user_call(world, tracker, 1, "set_network_mode_preference", {"mode": "4g_5g_preferred"})
    assert tracker.user_text(1, "it was on 3G only before I changed it; now it's on 4G/5G preferred.") == []
    world, tracker = _bundled("telecom_mobile_data_network_mode_3g_none")
    tracker.agent_text(1, "What does your phone show?")
    assert tracker.user_text(1, "the phone's on 5G, full bars.") == ["groundedness/device_state"]


@pytest.mark.parametrize("text", ["is roaming on?", "is the phone on 5G?", "should I be on 4G?"])
def test_a_question_about_a_state_asserts_none(text):
    assert device_states(text) == ()
    _, _, tracker = _setup("telecom", load_tasks_first_telecom())
    assert ("unsupported_device_state", 1) not in _replay(tracker, [("agent", "What does your phone show?"), ("user", text)])


@pytest.mark.parametrize("text, current", [
    # (a pair of generations names the preference: round 48)
    ("network mode is set to 2G/3G", {("network preference", "2g"), ("network preference", "3g")}),
    ("it's only getting 3G", {("network", "3g")}),
    ("camera permission isn't granted", {("permission camera", "off")}),
    ("the app doesn't have permission to use storage", {("permission storage", "off")}),
    ("messaging can't get to my storage", {("permission storage", "off")}),
    ("storage is enabled for messaging", {("permission storage", "on")}),
    ("airplane mode is off now, is that right?", {("airplane mode", "off")}),  # the question is about the statement
    ("messaging has access to my storage", {("permission storage", "on")}),
    ("I don't think it has storage access", {("permission storage", "off")}),
    ("the phone is connected to LTE", {("network", "4g")}),
    ("I don't have a SIM card in it", {("sim", "missing")}),
])
def test_more_forms_of_network_and_permission_states(text, current):
    assert set(device_states(text)) == current


@pytest.mark.parametrize("reply, modes", [
    ("still nothing on my end, the phone just says no service.", {("skips_requested_action", 1)}),  # a symptom: no claim
    ("I didn't get to it yet, but roaming's been on the whole time.", {("skips_requested_action", 1),
                                                                        ("unsupported_device_state", 1)}),
    ("I switched roaming on but it didn't help, still no data.", {("claims_unexecuted_action", 1)}),
])
def test_a_symptom_or_an_action_said_not_done_is_no_claim(reply, modes):
    _, _, tracker = _setup("telecom", load_tasks_first_telecom())
    assert _replay(tracker, [("agent", ROAMING_REQUEST), ("user", reply)]) == modes


def test_a_later_claim_of_a_toggle_that_ran_after_its_request_is_judged_by_its_result():
    _, world, tracker = _setup("telecom", load_tasks_first_telecom())  # roaming is off on this phone
    script = [("agent", ROAMING_REQUEST), ("call", "toggle_roaming"), ("user", "ok."),
              ("agent", "Is there anything else I can help you with?")]
    assert _replay(tracker, script, world) == set()
    assert _replay_from(tracker, 4, "No. I turned roaming on earlier like you said, it's on.") == set()
    # the state is still judged against the toggle's result (roaming on): a contradiction is flagged as before
    assert ("unsupported_device_state", 5) in _replay_from(tracker, 5, "I turned roaming on like you said; roaming is off now.")


@pytest.mark.parametrize("said, claimed", [
    ("let the messages app have that access, should be good now", True),
    ("alright, let the messaging app have storage access", True),
    ("ok. granted it sms access", True),
    ("gave it the permissions", True),
    ("let me know if it needs access", False),
    ("can you let the app have access?", False),
    ("I will let the app have access once you tell me how", False),
])
def test_a_grant_reported_without_its_subject_is_a_claim_of_the_grant(said, claimed):
    from userbench_env.fidelity.text import claimed_actions

    assert bool(claimed_actions(said, ["grant_app_permission"])) is claimed
