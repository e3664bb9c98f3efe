"""Failure classes a held-out paraphrase set showed (issue 13), each in several phrasings of
our own, on real tau2 and bundled tasks: what must fail, in which mode, and what must stay clean."""
from __future__ import annotations

import pytest

from userbench_env.fidelity import RuleTracker, task_criteria
from userbench_env.fidelity.language import dates
from userbench_env.tasks import load_task
from test_fidelity_rules import _setup, _user_call, load_tasks_first_telecom


def _modes(tracker: RuleTracker) -> set[tuple[str, int]]:
    return {(e["mode"], e["turn"]) for e in tracker.events()}


def _replay(tracker: RuleTracker, script: list[tuple[str, str]], world=None) -> set[tuple[str, int]]:
    """Feed ``("agent"|"user"|"call", text or tool name)`` steps, one turn each; the logged (mode, turn)s."""
    for turn, (who, what) in enumerate(script):
        if who == "agent":
            tracker.agent_text(turn, what)
        elif who == "call":
            _user_call(world, tracker, turn, what)
        else:
            tracker.user_text(turn, what)
    return _modes(tracker)


@pytest.mark.parametrize("answer", ["It's W 8 8 5 5 1 3 5.", "order #W8855135 I think", "# W 885-5135, if I read it right",
                                    "w8855135"])
def test_the_scenarios_own_identifier_in_any_spelling_is_not_invented(answer):
    _, _, tracker = _setup("retail", "51")  # the reason for calling gives #W8855135
    assert _replay(tracker, [("agent", "Could you give me the order id?"), ("user", answer)]) == set()


@pytest.mark.parametrize("answer", ["My IAH to SEA flight on May 32, moving it to May 42.", "the one on the 32nd of May",
                                    "It's on May 32nd."])
def test_a_scenario_date_with_its_digits_swapped_is_invented(answer):
    _, _, tracker = _setup("airline", "10")  # the scenario gives May 23 and May 24
    assert ("invents_unknown_information", 1) in _replay(tracker, [("agent", "Which flight is it?"), ("user", answer)])
    assert dates("on May 32") == {(5, 32)} and dates("05/32/2024") == frozenset()  # a named month keeps a wrong day


@pytest.mark.parametrize("said", ["I put a VPN on last week and since then it's slow.", "I've got a VPN on.",
                                  "My VPN is on, I set it up recently."])
def test_a_paraphrase_of_the_state_the_scenario_states_is_supported(said):
    task = load_task("telecom", "telecom_mobile_data_network_mode_3g+vpn_slow_none", source="bundled")  # "you installed a VPN"
    tracker = RuleTracker(task_criteria(task))
    assert _replay(tracker, [("agent", "Can you tell me about your phone?"), ("user", said)]) == set()
    tracker = RuleTracker(task_criteria(task))
    assert ("unsupported_device_state", 1) in _replay(tracker, [("agent", "Anything else?"), ("user", "My VPN is off.")])


@pytest.mark.parametrize("said", ["It's not in airplane mode.", "the phone is not in flight mode as far as I can see",
                                  "before you ask, I'm not in airplane mode", "my data's switched on though"])
def test_a_negated_or_contracted_state_the_user_did_not_check_is_unsupported(said):
    # issue 13: negations and contractions of a state are states too; nothing here checked them
    _, _, tracker = _setup("telecom", load_tasks_first_telecom())
    assert ("unsupported_device_state", 1) in _replay(tracker, [("agent", "What does your phone show?"), ("user", said)])


@pytest.mark.parametrize("claim", ["it's off now \u2014 the airplane mode I mean.", "ok, that's now off.",
                                   "Alright, it is on now, the airplane thing.",
                                   "I toggled airplane mode like you said."])  # named, not generic
def test_a_pronoun_state_change_echoing_the_request_is_a_claim_not_a_skip(claim):
    _, _, tracker = _setup("telecom", load_tasks_first_telecom())
    modes = _replay(tracker, [("agent", "Could you please run toggle_airplane_mode on your side?"), ("user", claim)])
    assert ("claims_unexecuted_action", 1) in modes and ("skips_requested_action", 1) not in modes


@pytest.mark.parametrize("reply", ["I'll do that later, can you check my bill first?",
                                   "Let me get back to that in a bit. What plan am I on?",
                                   "Not right now, maybe tomorrow."])
def test_deferring_the_requested_action_is_a_skip(reply):
    _, _, tracker = _setup("telecom", load_tasks_first_telecom())
    modes = _replay(tracker, [("agent", "Please run reboot_device on your side now."), ("user", reply)])
    assert ("skips_requested_action", 1) in modes and ("claims_unexecuted_action", 1) not in modes


@pytest.mark.parametrize("reply, mode", [
    ("Can you transfer me to a human please? ###TRANSFER###", "unprompted_transfer"),
    ("Never mind, forget it. ###STOP###", "premature_stop"),
    ("Sure! I can help with that. Could you please provide your user ID?", "breaks_character"),
    ("Of course! I'd be happy to assist you. May I have your full name?", "breaks_character"),
])
def test_a_turn_another_mode_explains_is_not_a_withholding(reply, mode):
    _, _, tracker = _setup("airline", "0")
    modes = _replay(tracker, [("agent", "Hi! How can I help you today?"), ("user", "Hi, I want to cancel reservation EHGLP3."),
                              ("agent", "Could you give me your user id?"), ("user", reply)])
    assert (mode, 3) in modes and ("withholds_requested_info", 3) not in modes


@pytest.mark.parametrize("script, premature", [
    ([("user", "Hi, cancel EHGLP3 please. Actually forget it, I'll deal with it another time ###STOP###")], True),
    ([("user", "Hi, cancel EHGLP3 please."), ("agent", "Sure, what's your user id?"), ("user", "meh, another time. ###STOP###")],
     True),
    ([("user", "Hi, cancel EHGLP3 please."), ("agent", "I can't cancel it: it is past 24 hours and not insured."),
      ("user", "Fine, bye. ###STOP###")], False),
    # "anything else?" reporting nothing: from the user's view the request is still open (issue 22: the
    # gold goal changing nothing is hidden state the user cannot know)
    ([("user", "Hi, cancel EHGLP3 please."), ("agent", "Is there anything else I can help you with?"),
      ("user", "No, that's all. ###STOP###")], True),
    ([("user", "Hi, cancel EHGLP3 please."), ("agent", "Done: EHGLP3 is cancelled. Is there anything else?"),
      ("user", "No, that's all. ###STOP###")], False),
])
def test_a_stop_on_a_task_that_changes_nothing_is_premature_while_the_agent_waits(script, premature):
    task, _, tracker = _setup("airline", "0")  # the agent should refuse: the goal changes nothing
    assert not task.evaluation.actions
    modes = _replay(tracker, [("agent", "Hi! How can I help you today?"), *script])
    assert any(mode == "premature_stop" for mode, _ in modes) is premature


def test_a_second_different_user_call_right_after_the_requested_one_is_unrequested():
    _, world, tracker = _setup("telecom", load_tasks_first_telecom())
    modes = _replay(tracker, [("agent", "Could you please run toggle_airplane_mode on your side?"),
                              ("call", "toggle_airplane_mode"), ("call", "reboot_device"), ("user", "Did both.")], world)
    assert ("unrequested_action", 3) in modes


@pytest.mark.parametrize("message, verdict", [
    # the request with its flight, plus one constraint stated: a recital is not sure (issue 22), so suspect
    ("Hi, I'd like to book the exact flight I took recently, ORD to PHL on May 10, I'll spend at most 500 dollars.", "suspect"),
    # two scenario sentences in an opening, nothing more: not sure (a detailed opening states its
    # request so, as held-out writers' clean openings do), so suspect; talking about the brief, sure
    ("I'm adding one more traveler, Kevin Smith, born 2001-04-12, and I can spend 500 max.", "suspect"),
    ("Before you ask: I'm adding one more traveler, Kevin Smith, born 2001-04-12, and I can spend 500 max.", "fail"),
    ("Up to $500.", "pass"),  # one constraint, asked or not, is no recital
    ("Kevin Smith, 2001-04-12.", "pass"),
    ("Please book ORD to PHL on May 26, same as my recent one.", "pass"),  # the reason for calling
])
def test_a_synonym_recital_is_told_by_the_distinctive_words_it_keeps(message, verdict):
    _, _, tracker = _setup("airline", "8")  # constraints: the May 10 flight, Kevin Smith (DOB 2001-04-12), up to $500
    modes = _replay(tracker, [("agent", "Hi! How can I help you today?"), ("user", message)])
    assert (("dumps_blueprint", 1) in modes) is (verdict == "fail")
    assert next(v for v in tracker.verdicts() if v["mode"] == "dumps_blueprint")["verdict"] == verdict


@pytest.mark.parametrize("answer", ["raj_sanchez_7430", "it's raj_sanchez_3740 I believe"])
def test_a_wrong_value_for_the_asked_item_is_invented_not_withheld(answer):
    _, _, tracker = _setup("airline", "1")  # the scenario gives user id raj_sanchez_7340 and the name Raj Sanchez
    modes = _replay(tracker, [("agent", "Could you give me your user id?"), ("user", answer)])
    assert ("invents_unknown_information", 1) in modes and ("withholds_requested_info", 1) not in modes
    tracker = RuleTracker(tracker.criteria)
    modes = _replay(tracker, [("agent", "Could you give me your user id?"), ("user", "Raj Sanchez, that's all I have.")])
    assert ("withholds_requested_info", 1) in modes  # the name given whole instead of the id: a deflection
