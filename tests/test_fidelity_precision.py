"""Issue 22's precision classes, in wordings of our own on real tau2 tasks: a rule fails a
criterion only on sure evidence; what it cannot decide is ``suspect``; what a faithful user
says stays clean."""
from __future__ import annotations

import pytest

from userbench_env.fidelity import RuleTracker
from test_fidelity_rules import _setup


def _verdict(tracker: RuleTracker, mode: str) -> str:
    return next(v for v in tracker.verdicts() if v["mode"] == mode)["verdict"]


def _play(tracker: RuleTracker, script: list[tuple[str, str]]) -> RuleTracker:
    for turn, (who, text) in enumerate(script):
        (tracker.agent_text if who == "agent" else tracker.user_text)(turn, text)
    return tracker


# airline task 8: the May 10 ORD-PHL flight again, Kevin Smith (DOB 2001-04-12), up to $500, one certificate,
# economy, aisle and middle seat, no insurance, one-way if asked
@pytest.mark.parametrize("message", [
    # scenario facts stated along with a question about them, mid-conversation: the request, not a sure recital
    "Economy is fine, and my limit is $500 for the whole purchase. Can you find one under that with an aisle and middle seat?",
    "We don't need travel insurance. Can you put us in economy, an aisle and a middle seat next to each other?",
    # the request restating the goal with its details
    "Could you book me the same flight as on May 10 from ORD to PHL, with Kevin Smith added and economy seats?",
])
def test_stating_a_fact_or_two_with_the_request_is_no_sure_recital(message):
    _, _, tracker = _setup("airline", "8")
    _play(tracker, [("agent", "Hi! How can I help you today?"), ("user", "I need a one-way flight ORD to PHL on May 26."),
                    ("agent", "Sure, I can look into that. What would you like to do next?"), ("user", message)])
    assert _verdict(tracker, "dumps_blueprint") == "suspect"
    assert not any(e["mode"] == "dumps_blueprint" for e in tracker.events())


def test_several_scenario_sentences_stated_beyond_the_request_are_a_sure_recital():
    _, _, tracker = _setup("airline", "8")
    _play(tracker, [("agent", "Hi! How can I help you today?"),
                    ("user", "Hello. Kevin Smith is flying with me, he was born 2001-04-12. I pay with a single "
                             "certificate, nothing else. Insurance is not something I need. Economy, aisle plus middle.")])
    assert _verdict(tracker, "dumps_blueprint") == "fail"


def test_a_stop_giving_the_go_ahead_to_the_agents_offer_is_no_sure_premature_stop():
    _, _, tracker = _setup("airline", "8")
    _play(tracker, [("agent", "Hi! How can I help you today?"), ("user", "I need a one-way flight ORD to PHL on May 26."),
                    ("agent", "I found flight HAT271 at $320 in economy. Should I book it with your certificate?"),
                    ("user", "Yes, that works, go ahead. Bye for now ###STOP###")])
    assert _verdict(tracker, "premature_stop") == "suspect"


def test_accepting_a_handoff_is_not_accepting_an_outcome():
    _, _, tracker = _setup("airline", "8")
    _play(tracker, [("agent", "Hi! How can I help you today?"), ("user", "I need a one-way flight ORD to PHL on May 26."),
                    ("agent", "I could transfer you to a human agent for that. Shall I?"),
                    ("user", "Sure, go ahead and transfer me. ###STOP###")])
    assert _verdict(tracker, "premature_stop") == "fail"


# airline task 4: the user insists on a compensation it is not owed
@pytest.mark.parametrize("agent, stop, verdict", [
    # referred elsewhere, the user takes its request there: it has not given it up
    ("I cannot issue that. You may want to reach out... I'd suggest contacting our customer relations team directly.",
     "Fine, then I'll get in touch with customer relations myself. ###STOP###", "suspect"),
    # refused, the user drops it although told to insist
    ("I cannot issue compensation for this reservation.", "Okay, I understand. Goodbye. ###STOP###", "fail"),
])
def test_an_insisting_user_referred_elsewhere_may_stop_to_go_there(agent, stop, verdict):
    _, _, tracker = _setup("airline", "4")
    _play(tracker, [("agent", "Hello, how can I help?"),
                    ("user", "My business flight earlier this month was cancelled and I missed a meeting. I want compensation."),
                    ("agent", agent), ("user", stop)])
    assert _verdict(tracker, "premature_stop") == verdict


def _withholding(tracker: RuleTracker, kind: str) -> str:
    return next(v for v in tracker.verdicts() if v["id"].endswith(f"/withholds/{kind}"))["verdict"]


def test_an_item_already_given_is_not_withheld_when_an_answer_does_not_repeat_it():
    _, _, tracker = _setup("airline", "8")  # knows: Sophia Silva, sophia_silva_7557
    _play(tracker, [("agent", "Hi! How can I help you today?"), ("user", "I need a one-way flight ORD to PHL on May 26."),
                    ("agent", "Sure. What is your user ID?"), ("user", "sophia_silva_7557"),
                    ("agent", "Thanks. And your full name, so I can match it to that user ID?"), ("user", "Sophia Silva.")])
    assert _withholding(tracker, "user_id") == "pass" and _withholding(tracker, "name") == "pass"
    assert not any(e["mode"] == "withholds_requested_info" for e in tracker.events())


@pytest.mark.parametrize("agent, verdict", [
    # after a refusal, asking for someone else pushes the user's own request: not sure
    ("I'm afraid I can't change a basic economy ticket. Could you provide your user ID so I can look at other options?",
     "suspect"),
    # asked plainly, a question back instead of the item stays a deflection
    ("Sure, I can look into that. What is your user ID?", "fail"),
])
def test_a_question_back_after_a_refusal_is_pushback_not_sure_withholding(agent, verdict):
    _, _, tracker = _setup("airline", "8")
    _play(tracker, [("agent", "Hi! How can I help you today?"), ("user", "I'd like to change my basic economy ticket."),
                    ("agent", agent), ("user", "Is there a manager I could talk to about this instead?")])
    assert _withholding(tracker, "user_id") == verdict


@pytest.mark.parametrize("text, as_agent", [
    ("Here it is, 94107. Many thanks for your patience with me, I'm slow with these things.", False),
    ("Sorry it took a while to find it. Thanks for bearing with me!", False),
    # the agent's part: verifying the customer against its record
    ("I appreciate your patience. Before we go on, please provide the email on file.", True),
])
def test_courtesy_both_sides_use_is_no_role_reversal(text, as_agent):
    from userbench_env.fidelity.language import speaks_as_agent
    assert speaks_as_agent(text) is as_agent


def _invented(script: list[tuple[str, str]], task_id: str = "8") -> str:
    _, _, tracker = _setup("airline", task_id)
    _play(tracker, script)
    return _verdict(tracker, "invents_unknown_information")


@pytest.mark.parametrize("reply, verdict", [
    # a day next to the date the agent named, spoken of as such: implied
    ("Could we do the day after instead, so May 27?", "pass"),
    ("Then one day earlier, May 25, would also work.", "pass"),
    # a date nobody named or implied
    ("Could we do June 3 instead?", "fail"),
])
def test_a_date_a_day_from_a_named_one_is_implied_not_invented(reply, verdict):
    assert _invented([("agent", "Hi! How can I help you today?"), ("user", "I need a one-way flight ORD to PHL."),
                      ("agent", "The only seats left on May 26 are in business. Would another date work?"),
                      ("user", reply)]) == verdict


@pytest.mark.parametrize("text", ["Anything from 10am EST on is fine.", "nothing before 4pm PST please"])
def test_a_clock_time_with_its_zone_is_a_time_not_an_identifier(text):
    from userbench_env.fidelity.rules.invented import statement
    said = statement(text)
    assert said.times and not said.runs
