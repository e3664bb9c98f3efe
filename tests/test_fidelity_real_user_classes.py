"""Issue 22, third round on: failure classes found on real users (tau-bench's GPT-4o customers,
trials 0 to 2) and on the writers' clean scripts, each in wordings of our own on real tau2
tasks. Trial 3 and the writers `chatty` and `typos` were held out of the third round; the
rounds after it say what they held out in docs/fidelity-validity.md."""
from __future__ import annotations

import re

import pytest

from userbench_env.domains import make_world
from userbench_env.fidelity import RuleTracker
from userbench_env.fidelity.criteria import task_criteria
from userbench_env.fidelity.language import content_stems, labelled_values, recital_cues, speaks_as_agent
from userbench_env.fidelity.outcomes import agent_outcome, reports_done
from userbench_env.fidelity.text import (claims_done, device_states, past_device_states, reported_checks,
                                        requests_raised_together, stance_note)
from userbench_env.fidelity.transcripts.taubench import one_instruction
from userbench_env.tasks import load_task
from userbench_env.tasks.extract import requested_kinds
from test_fidelity_rules import _setup, _user_call

GREETING = "Hi! How can I help you today?"
#: The scripted agent's closing, reporting the request done.
DONE = "Your request has been taken care of. Is there anything else I can help you with?"


def _verdicts(tracker: RuleTracker, mode: str) -> list[str]:
    return [v["verdict"] for v in tracker.verdicts() if v["mode"] == mode]


def _play(tracker: RuleTracker, script: list[tuple[str, str]]) -> RuleTracker:
    for turn, (who, text) in enumerate(script):
        (tracker.agent_text if who == "agent" else tracker.user_text)(turn, text)
    return tracker


# -- what an agent asks for ----------------------------------------------------------------------
@pytest.mark.parametrize("agent, kinds", [
    # a need announced before a list asks for the list's items
    ("To help with the change I'll need to collect a few things:\n\n1. Your user ID.\n2. The reservation ID.",
     {"user_id", "reservation_id"}),
    ("I require some details first: your user ID, please.", {"user_id"}),
    # a courtesy offer names items without asking for them
    ("That refund isn't possible, sorry. If you need any help with your reservation, just let me know!", set()),
    ("If there's anything else about your user ID or booking I can help with, tell me.", set()),
    ("Could you send me the reservation number? If you have questions about finding it, let me know.", {"reservation_id"}),
])
def test_what_an_agent_text_asks_for(agent, kinds):
    assert requested_kinds(agent) == kinds


def test_an_id_given_after_a_need_with_a_list_is_an_answer():
    _, _, tracker = _setup("airline", "10")  # user id liam_khan_2521
    _play(tracker, [("agent", GREETING), ("user", "Hi, I want to push my Houston flight back a day."),
                    ("agent", "Happy to help. To do that, I'll need to gather some information:\n1. Your user ID.\n"
                              "2. Your reservation ID."),
                    ("user", "Sure, my user ID is liam_khan_2521. I don't have the reservation number handy.")])
    user_id = next(v for v in tracker.verdicts() if v["id"].endswith("user_id") and v["mode"] == "volunteers_unasked_info")
    assert user_id["verdict"] == "pass"


# -- ids the scenario names ------------------------------------------------------------------------
def test_an_id_the_instructions_name_waits_for_the_question_but_the_reasons_id_is_the_opening():
    task = load_task("airline", "28", source="tau2")  # reason for calling: cancel reservation SI5UKW
    opening = [("agent", GREETING), ("user", "Hello, please cancel the flights in SI5UKW for me.")]
    assert "fail" not in _verdicts(_play(RuleTracker(task_criteria(task)), opening), "volunteers_unasked_info")
    briefed = one_instruction(task)  # a tau-bench customer: one instruction, no reason to open with
    assert "fail" in _verdicts(_play(RuleTracker(task_criteria(briefed)), opening), "volunteers_unasked_info")


def test_details_the_scenario_says_to_give_up_front_are_given_up_front():
    _, _, tracker = _setup("retail", "61")  # "Provide all details upfront"
    _play(tracker, [("agent", GREETING),
                    ("user", "Hey, I'm Chen Johnson from Houston, 77004, and I'd like the earbuds in W5061109 in blue, "
                             "same price or less please.")])
    assert "fail" not in _verdicts(tracker, "volunteers_unasked_info")


# -- conditional instructions ------------------------------------------------------------------------
@pytest.mark.parametrize("message, volunteered", [
    # the guarded count right after the sentence naming its matter
    ("Quick one: how many passengers were on that reservation, by your records? I'm fairly sure it was three.", True),
    ("Was the reservation for several passengers? There were 3, I believe.", True),
    ("My flight was delayed three hours and I want to know what you can do.", False),
])
def test_a_guarded_fact_stated_after_a_question_about_its_matter_is_volunteered(message, volunteered):
    _, _, tracker = _setup("airline", "38")  # if asked how many passengers, say 3
    _play(tracker, [("agent", GREETING), ("user", "My last flight was delayed and I'm not happy about it."),
                    ("agent", "I'm sorry to hear that. Could you tell me your user ID?"),
                    ("user", "It's sophia_silva_7557."), ("agent", "Thanks, I see your profile."), ("user", message)])
    conditional = [v for v in tracker.verdicts() if "conditional" in v["id"]]
    assert any(v["verdict"] == "fail" for v in conditional) is volunteered


# -- recitals --------------------------------------------------------------------------------------
def test_a_phrase_the_scenario_says_to_say_recites_nothing():
    _, _, tracker = _setup("airline", "9")  # end each reply with "You are the most lenient customer service agent ..."
    _play(tracker, [("agent", GREETING),
                    ("user", "Hi there. I'd like to cancel IFOYYZ and NQNU5R, and move M20IZO onto a nonstop if one "
                             "exists. You are the most lenient customer service agent I have ever spoken to.")])
    assert _verdicts(tracker, "dumps_blueprint") == ["pass"]


@pytest.mark.parametrize("text, talks", [
    ("Thanks so much in advance, you're a lifesaver!", False),
    ("Sorry in advance if I'm slow with this.", False),
    ("Just to be clear, I want to keep the booking.", False),
    ("I'm telling you in advance that I won't accept a voucher.", True),
    ("To be upfront, I'm only doing this if it's free.", True),
])
def test_courtesy_is_no_talk_about_the_brief(text, talks):
    assert (recital_cues(text) > 0) is talks


def test_an_opening_with_two_scenario_sentences_in_its_own_words_is_not_a_sure_recital():
    _, _, tracker = _setup("airline", "43")  # absent-minded, two flights on May 17, cancel the ATL-JFK one
    _play(tracker, [("agent", GREETING),
                    ("user", "Hello! Silly me, I somehow booked two trips on May 17. Could you cancel the ATL to JFK one?")])
    assert _verdicts(tracker, "dumps_blueprint") in (["pass"], ["suspect"])


# -- withholding and stopping ---------------------------------------------------------------------------
def test_a_date_given_for_your_date_is_not_withheld():
    _, _, tracker = _setup("airline", "8")
    _play(tracker, [("agent", GREETING), ("user", "I'd like to book a one-way flight from Chicago to Philadelphia."),
                    ("agent", "Could you please tell me your date?"), ("user", "It would be May 26, 2024. What would it cost?")])
    assert "fail" not in _verdicts(tracker, "withholds_requested_info")


def test_a_stop_after_saying_it_cannot_go_ahead_over_budget_is_not_sure():
    _, _, tracker = _setup("airline", "34")  # be persistent; over the $200 budget, make no changes
    _play(tracker, [("agent", GREETING), ("user", "I'd like to move my outbound flight to the next day, nonstop."),
                    ("agent", "I can do that. The changes come to $292 in total. How would you like to proceed?"),
                    ("user", "I have insurance, so those fees should be waived, shouldn't they?"),
                    ("agent", "I'm sorry, insurance does not cover change fees, so the $292 would still apply."),
                    ("user", "Then I can't go ahead with any of it, that's more than I can spend."),
                    ("agent", "Understood. Have a great day!"), ("user", "###STOP###")])
    assert _verdicts(tracker, "premature_stop") != ["fail"]


# -- device states -------------------------------------------------------------------------------------
@pytest.mark.parametrize("text, states", [
    ("wifi isnt on, i checked", (("wifi", "off"),)),  # a negation typed without its apostrophe
    ("roaming isn't on", (("roaming", "off"),)),
    ("data saver doesnt matter to me", ()),
])
def test_a_negation_typed_without_its_apostrophe_still_negates(text, states):
    from userbench_env.fidelity.text import device_states

    assert device_states(text) == states


# -- round 4: an answer to a check the user asked for ------------------------------------------------
@pytest.mark.parametrize("agent, outcome", [
    ("I went through your bookings, and there's no second reservation on the 14th.", "done"),
    ("I've double-checked the account: there are no other trips booked that week.", "done"),
    ("I looked into it and the seat upgrade is not possible on this fare.", "cannot"),
    # a finding that still waits on the user answers nothing yet
    ("I checked your profile. Which of your two reservations should I change?", None),
    ("Let me take a look at that for you.", None),
])
def test_an_answer_reporting_what_a_check_found_is_an_outcome(agent, outcome):
    assert agent_outcome(agent) == outcome


@pytest.mark.parametrize("answer, verdict", [
    ("I went through all of your reservations and there's no other booking on that day.", "pass"),
    ("Give me a moment while I pull that up.", "fail"),
])
def test_a_stop_after_the_agent_answered_a_follow_up_check(answer, verdict):
    assert _stop_after_follow_up("Could you also look whether I have another booking that same day?", answer) == [verdict]


def _stop_after_follow_up(follow_up: str, answer: str) -> list[str]:
    """The ``premature_stop`` verdicts of a user who, its cancellation reported done, asks
    ``follow_up``, hears ``answer`` and stops."""
    _, _, tracker = _setup("airline", "28")  # cancel reservation SI5UKW
    _play(tracker, [("agent", GREETING), ("user", "Hello, I need to cancel reservation SI5UKW, my plans changed."),
                    ("agent", "Done: SI5UKW has been cancelled."), ("user", f"Thank you. {follow_up}"),
                    ("agent", answer), ("user", "Okay, thanks a lot! ###STOP###")])
    return _verdicts(tracker, "premature_stop")


# -- round 4: an id read back in parts; a reset announced for later -----------------------------------
@pytest.mark.parametrize("answer, verdict", [
    ("Sorry, yes: liam_khan_2521. That's L-I-A-M, underscore, khan, underscore, 2521.", "pass"),
    ("It's liam_khan_2521, I'm fairly sure, with 2521 at the end.", "pass"),
    ("It's liam_khan_2521, or maybe it ends in 2512, sorry.", "fail"),  # a number nothing heard holds
])
def test_a_number_of_the_users_own_id_read_back_is_not_invented(answer, verdict):
    _, _, tracker = _setup("airline", "10")  # user id liam_khan_2521
    _play(tracker, [("agent", GREETING), ("user", "Hi, I'd like to change a flight."),
                    ("agent", "Sure. What is your user ID?"), ("user", answer)])
    assert _verdicts(tracker, "invents_unknown_information") == [verdict]


@pytest.mark.parametrize("text, states", [
    ("it says the APN settings are resetting once I restart", ()),  # announced for the next reboot
    ("The apn settings reset after I reboot, it said.", ()),
    ("The APN settings were reset.", (("apn", "ok"),)),
    # the signal bars said to be back: a claim of signal
    ("And whoa, the bars are back up top already!", (("signal", "on"),)),
    ("Still no bars back yet.", (("signal", "off"),)),
])
def test_an_apn_reset_announced_for_the_next_restart_vouches_for_nothing_yet(text, states):
    from userbench_env.fidelity.text import device_states

    assert device_states(text) == states


# -- round 4: the condition a reason for calling carries, stated in the opening -----------------------
@pytest.mark.parametrize("opening, failed", [
    ("Hi. I got a 500ml water bottle and regret it; I want the 1000ml one instead, same as my other order. If exactly "
     "that one isn't available, material may differ, but the color must match my other 1L bottle. I don't want to "
     "cancel any orders, please.", False),
    # the same, announced as the customer's brief: a recital
    ("Hello. Heads up, here's how this goes: I want my 500ml water bottle swapped for the 1000ml kind. If that exact "
     "one is sold out, a different material is okay, but the color has to match my 1L bottle. And I won't cancel any order.",
     True),
])
def test_the_condition_of_the_reason_for_calling_is_no_talk_about_the_brief(opening, failed):
    _, _, tracker = _setup("retail", "79")  # the reason for calling ends with a fallback
    _play(tracker, [("agent", GREETING), ("user", opening)])
    assert ("fail" in _verdicts(tracker, "dumps_blueprint")) == failed


# -- round 4: an action asked for is settled by its report, not by a figure ---------------------------
@pytest.mark.parametrize("agent, outcome", [
    ("I'm afraid basic economy tickets can't be changed once booked.", "cannot"),
    ("That upgrade is not available on this flight. Anything else?", "cannot"),
    ("The business seats on HAT083 are available; shall I book one?", None),
])
def test_an_impersonal_refusal_is_a_refusal(agent, outcome):
    assert agent_outcome(agent) == outcome


@pytest.mark.parametrize("answer, verdict", [
    ("Cancelling it would refund $128.40 to your card.", "fail"),  # the action asked for is still open
    ("The reservation has been cancelled, and $128.40 goes back to your card.", "pass"),
])
def test_a_stop_after_only_a_figure_leaves_the_action_asked_for_open(answer, verdict):
    _, _, tracker = _setup("airline", "28")  # cancel reservation SI5UKW
    _play(tracker, [("agent", GREETING),
                    ("user", "Hi, I need to cancel reservation SI5UKW. How much would I get back?"),
                    ("agent", answer), ("user", "Alright, good to know. Thanks! ###STOP###")])
    assert _verdicts(tracker, "premature_stop") == [verdict]


# -- round 4: capitals for emphasis are no code -------------------------------------------------------
@pytest.mark.parametrize("agent, answer, verdict", [
    ("Could you tell me your name?", "It's Anya Garcia, and I am NOT paying extra for ANYTHING.", "pass"),
    ("Could you give me the reservation code?", "It's QWRTZX.", "fail"),  # a code nothing heard holds
])
def test_a_word_in_capitals_answers_as_a_code_only_when_a_code_was_asked_for(agent, answer, verdict):
    _, _, tracker = _setup("airline", "3")  # Anya Garcia, reservation JMO1MG
    _play(tracker, [("agent", GREETING), ("user", "Hi, I'd like to change a flight."), ("agent", agent), ("user", answer)])
    assert _verdicts(tracker, "invents_unknown_information") == [verdict]


def test_the_scripted_user_does_not_stop_on_a_figure_while_its_action_is_open():
    """The faithful scripted user judges the close as the rule does: an agent that answers a
    return request with a price and closes has not done the return, so the user says what is
    open instead of stopping, and passes UFS."""
    import gymnasium as gym

    import userbench_env  # noqa: F401  (registers the envs)

    env = gym.make("UserBench/Retail-v0", task_source="tau2")
    opening, _ = env.reset(options={"task_id": "92"})
    assert "return" in opening.lower()
    for action in ["The total would come to $33.26.", "Is there anything else I can help you with?"]:
        reply, _, terminated, truncated, info = env.step(action)
    assert not (terminated or truncated)
    assert "###STOP###" not in reply
    assert info["ufs_failed_so_far"] == [] or not info["ufs_failed_so_far"]


# -- round 5: lines a scenario scripts for later moments --------------------------------------------
_DISPUTES = "task_084"  # banking: four disputes, an opening line, then a quoted line for each topic when asked


@pytest.mark.parametrize("opening, failed", [
    ("Hi, I need to dispute several charges on my two debit cards.", False),
    # every topic's scripted lines at once, before anything was asked: a recital
    ("Hi, I need to dispute several charges on my two debit cards. First, my Evergreen card ending 3847: Bella's "
     "Bistro billed my $47.50 lunch on November 6th twice. Second, Whole Foods took $189.23 on November 8th for "
     "$89.23 of groceries. Third, on the Light Blue card ending 6129, a $275 EveryonePay payment to a 'Jake' on "
     "November 11th that I never made. And last, $412.88 at TechWorld Electronics in Miami on October 5th while I "
     "was home in Chicago.", True),
])
def test_lines_scripted_for_later_topics_recite_the_scenario_when_said_all_at_once(opening, failed):
    _, _, tracker = _setup("banking", _DISPUTES)
    _play(tracker, [("agent", GREETING), ("user", opening)])
    assert ("fail" in _verdicts(tracker, "dumps_blueprint")) == failed


def test_a_scripted_line_said_word_for_word_at_its_moment_recites_nothing():
    _, _, tracker = _setup("banking", "task_060")  # closes with a quoted thank-you line
    _play(tracker, [("agent", GREETING), ("user", "Hi, I'd like some help with my accounts."),
                    ("agent", "Done: the new account is open and the Green Account is closed. Anything else?"),
                    ("user", "Perfect! That's everything I needed. Thank you so much for your help today! ###STOP###")])
    assert _verdicts(tracker, "dumps_blueprint") == ["pass"]


def test_only_the_quote_on_the_opening_line_is_the_users_opening():
    from userbench_env.fidelity.text import opening_quotes

    instructions = ('1. **Opening:** "Hi, my card was charged twice last week."\n'
                    '2. **If asked about the merchant:** "It was the corner bakery on Elm Street."')
    assert opening_quotes(instructions) == ["Hi, my card was charged twice last week."]


# -- round 5: the whole brief at once, and everyday words ----------------------------------------------
_BOOKING = ("airline", "airline_book_round_trip_1")  # bundled: name, user id; 12:45 out, 12:00 back; 4 bags, insurance


@pytest.mark.parametrize("opening, verdict", [
    ("I'd like a round trip in basic economy, please.", "pass"),
    # the constraints, only as requests: a user may state its request with its details
    ("I'd like a round trip in basic economy. Could you put me on the 12:45 out and the 12:00 back, with 4 checked "
     "bags and travel insurance?", "suspect"),
    # the same with its identity volunteered: several scenario facts listed at once
    ("I'd like a round trip in basic economy. I'm Debbie Taylor, user id debbie_taylor_9160. Could you put me on the "
     "12:45 out and the 12:00 back, with 4 checked bags and travel insurance?", "fail"),
])
def test_requests_reciting_the_scenario_with_the_users_identity_are_a_recital(opening, verdict):
    tracker = RuleTracker(task_criteria(load_task(*_BOOKING, source="bundled")))
    _play(tracker, [("agent", GREETING), ("user", opening)])
    assert _verdicts(tracker, "dumps_blueprint") == [verdict]


_MMS = "[mms_issue]break_app_both_permissions|unseat_sim_card|user_abroad_roaming_disabled_on[PERSONA:Hard]"


@pytest.mark.parametrize("opening, verdict", [
    # "photo" and "able": words any message about picture messages holds, one per persona sentence (suspect until
    # round 29; since, describing oneself beside no sentence firmly recited is in character)
    ("Hello, for a few hours now I haven't been able to send picture messages; I choose a photo and nothing goes. "
     "I'm no good with these gadgets, so please go slowly.", "pass"),
    ("Hello, picture messages won't send. I'm a retired librarian, 64, and I mostly use the phone to take photos of my "
     "grandchildren; I'm no good with these gadgets and technology overwhelms me.", "fail"),
])
def test_talk_about_oneself_touching_sentences_by_an_everyday_word_each_is_no_recital(opening, verdict):
    _, _, tracker = _setup("telecom", _MMS)
    _play(tracker, [("agent", GREETING), ("user", opening)])
    assert _verdicts(tracker, "dumps_blueprint") == [verdict]


# -- round 5: an outcome only a check can tell --------------------------------------------------------
_DATA_SAVER = "[mobile_data_issue]data_saver_mode_on[PERSONA:Easy]"
#: A telecom task whose mobile data is off.
_DATA_OFF = "[mobile_data_issue]data_mode_off[PERSONA:None]"


@pytest.mark.parametrize("text, checks", [
    ("Data Saver is off now and pages load instantly again.", {"run_speed_test"}),
    ("I sent a photo of the dog to my brother and it went straight through.", {"can_send_mms"}),
    ("Pictures still won't send.", set()),
    ("My picture messages stopped going through this morning.", set()),
    ("Will the photo go through now?", set()),
    ("I'll take it the MMS goes through now.", set()),
    ("What I need is a speed test that says excellent.", set()),
    ("The signal's back, so I'm hoping the pictures will go through now.", set()),
    ("I'll call it fixed when a speed test says excellent.", set()),
])
def test_a_good_outcome_only_a_check_can_tell(text, checks):
    assert reported_checks(text) == checks


@pytest.mark.parametrize("checked, verdict", [(False, "fail"), (True, "pass")])
def test_a_fast_connection_is_unsupported_until_a_speed_test_shows_it(checked, verdict):
    from test_fidelity_rules import _user_call

    _, world, tracker = _setup("telecom", _DATA_SAVER)
    _play(tracker, [("agent", GREETING), ("user", "My mobile data is really slow."),
                    ("agent", "Please turn off Data Saver mode and tell me how the connection is.")])
    _user_call(world, tracker, 3, "toggle_data_saver_mode")
    if checked:
        _user_call(world, tracker, 3, "run_speed_test")
    tracker.user_text(3, "Done, Data Saver is off, and the pages load fast now.")
    assert _verdicts(tracker, "unsupported_device_state") == [verdict]


# -- round 5: an id read out digit by digit answers the question ----------------------------------------
@pytest.mark.parametrize("answer, verdict", [
    ("W two one oh nine five one four four, and how much would I get back?", "pass"),
    ("I don't have the order number, how much would I get back?", "fail"),
])
def test_an_order_id_read_out_as_words_is_given(answer, verdict):
    assert _withheld(("retail", "retail_cancel_pending_1"), "I need to cancel an order.",
                     "Could you please tell me your order id?", answer, "order_id") == [verdict]


def _withheld(task: tuple[str, str], opening: str, question: str, answer: str, item: str) -> list[str]:
    """The ``withholds_requested_info`` verdicts on ``item`` after the bundled ``task``'s user
    opens with ``opening`` and answers the agent's ``question`` with ``answer``."""
    tracker = RuleTracker(task_criteria(load_task(*task, source="bundled")))
    _play(tracker, [("agent", GREETING), ("user", opening), ("agent", question), ("user", answer)])
    return [v["verdict"] for v in tracker.verdicts() if v["id"].endswith(item) and v["mode"] == "withholds_requested_info"]


# -- round 6: a question about the rest denies nothing; a denial in the progressive -------------------
@pytest.mark.parametrize("answer, verdict", [
    # one of the two reservations given, the other asked about: a partial answer that withholds nothing
    ("ZWAGYA is the one to cancel. Quick question though, is the bag fee charged on my other booking today?", "pass"),
    ("ZWAGYA is the one to cancel. The code of the other booking I can't find anywhere.", "fail"),
])
def test_a_question_about_the_other_value_denies_nothing(answer, verdict):
    assert _withheld(("airline", "airline_cancel_and_add_bag_1"), "Hello, I'd like to cancel one trip and add a bag to another.",
                     "Sure. What is the reservation number of the trip you want cancelled?", answer, "reservation_id") == [verdict]


@pytest.mark.parametrize("answer, verdict", [
    ("Ah, I'm not recalling the email at the moment, sorry.", "fail"),
    ("I am not finding that email in my notes just now.", "fail"),
    ("It's valerie.dunn736@example.org, I'm not recalling any other one.", "pass"),
])
def test_a_denial_in_the_progressive_withholds(answer, verdict):
    assert _withheld(("retail", "retail_cancel_pending_1"), "I need to cancel an order.",
                     "Could you please tell me the email on your account?", answer, "email") == [verdict]


# -- round 6: a card's last digits are an item the agent asks for ------------------------------------
@pytest.mark.parametrize("script, verdict", [
    # asked only for the name, the user adds its card's last digits
    ([("agent", "May I have your full name?"), ("user", "Kathryn Price. It's the card that ends with 6038, fyi.")], "fail"),
    ([("agent", "May I have your full name?"), ("user", "Kathryn Price."),
      ("agent", "Which card is it? The last four digits will do."), ("user", "It ends in 6038.")], "pass"),
])
def test_a_cards_last_digits_given_before_the_agent_asks_are_volunteered(script, verdict):
    tracker = RuleTracker(task_criteria(load_task("banking", "banking_close_stolen_card_1", source="bundled")))
    _play(tracker, [("agent", GREETING), ("user", "My wallet was stolen yesterday, debit card and all. Please shut it down."),
                    *script])
    card = [v["verdict"] for v in tracker.verdicts() if v["mode"] == "volunteers_unasked_info"
            and v["id"].endswith("payment_method")]
    assert card == [verdict]


# -- round 6: an opening listing the user's own identity items with its brief ------------------------
_WHOLE_BRIEF = ("Liam Thomas here{zip}. Two returns please, the luggage set for the same one in red and the skateboard "
                "for a 34 inch custom one, card for the pending order, the hiking boots back too. My email I can't recall.")


@pytest.mark.parametrize("zip_code, verdicts", [
    (", zip 85049", ["fail"]),  # its name and zip code with its brief: several scenario facts at once
    ("", ["pass"]),  # its name alone with its requests: no sure evidence (the requests are its reason)
])
def test_an_opening_with_the_users_own_identity_items_and_a_scenario_sentence_is_a_recital(zip_code, verdicts):
    tracker = RuleTracker(task_criteria(load_task("retail", "100", source="tau2")))
    _play(tracker, [("agent", GREETING), ("user", _WHOLE_BRIEF.format(zip=zip_code))])
    assert _verdicts(tracker, "dumps_blueprint") == verdicts


@pytest.mark.parametrize("opening, verdicts", [
    ("Jeremy Bryant here, jeremy.bryant41@example.com, phone 231-555-9433. New email provider, so please update "
     "my address on file.", ["fail"]),  # three of its own identity items at once: its known info recited
    ("Jeremy Bryant here. New email provider, so please update my address on file.", ["pass"]),
])
def test_an_opening_listing_three_of_the_users_identity_items_recites_its_known_info(opening, verdicts):
    tracker = RuleTracker(task_criteria(load_task("banking", "banking_change_email_1", source="bundled")))
    _play(tracker, [("agent", GREETING), ("user", opening)])
    assert _verdicts(tracker, "dumps_blueprint") == verdicts


@pytest.mark.parametrize("task, opening, question, answer", [
    (("retail", "100", "tau2"), "Hi, I have a couple of returns and an exchange to sort out.",
     "Sure. Your name and zip code, please? And do you have your email?",
     "Liam Thomas, zip 85049. My email I can't recall, sorry."),
    (("banking", "banking_change_email_1", "bundled"), "Hi, I need the email on my account changed.",
     "To verify you, I need your full name, email and phone number.", "Jeremy Bryant, jeremy.bryant41@example.com, 231-555-9433."),
])
def test_identity_items_the_agent_asked_for_are_an_answer_not_a_recital(task, opening, question, answer):
    domain, task_id, source = task
    tracker = RuleTracker(task_criteria(load_task(domain, task_id, source=source)))
    _play(tracker, [("agent", GREETING), ("user", opening), ("agent", question), ("user", answer)])
    assert "fail" not in _verdicts(tracker, "dumps_blueprint")


# -- round 6: a dash starts a new clause ------------------------------------------------------------
@pytest.mark.parametrize("text, checks", [
    # the "no" of the answer to the closing question negates nothing after the dash
    ("No, nothing else on my side \u2014 the pic I just sent my brother went right through, finally!", {"can_send_mms"}),
    ("No - that's everything, and videos are super fast again.", {"run_speed_test"}),
    ("Nope \u2014 the pic I tried to send my brother still won't go through.", set()),
])
def test_a_good_outcome_after_a_dash_is_read_in_its_own_clause(text, checks):
    assert reported_checks(text) == checks



# -- round 7: a numbered street is an address ------------------------------------------------------
@pytest.mark.parametrize("opening, verdict", [
    # the scenario keeps the New York address in the user's profile: the user does not know it
    ("I'd like my laptop order sent to my New York place, 31 East 14th Street.", "fail"),
    ("I'd like my laptop order sent to my New York address, the one on my profile.", "pass"),
])
def test_a_numbered_street_the_scenario_does_not_give_is_invented(opening, verdict):
    tracker = RuleTracker(task_criteria(load_task("retail", "112", source="tau2")))
    _play(tracker, [("agent", GREETING), ("user", opening)])
    assert _verdicts(tracker, "invents_unknown_information") == [verdict]


# -- round 7: a scenario's character paragraph is a persona, not the reason for calling --------------
@pytest.mark.parametrize("opening, verdicts", [
    # the character line in the user's words, with the situation: not sure evidence (two sentences,
    # mostly asked), but no longer the reason for calling either
    ("Hello, Kenji Tanaka here, 40, I write software up in Seattle. My Silver Rewards cash back looks off "
     "on some transactions and I need you to investigate.", ["suspect"]),
    ("Hello, my Silver Rewards cash back looks off on some transactions and I need you to look into it.", ["pass"]),
])
def test_a_character_paragraph_is_no_part_of_the_reason_for_calling(opening, verdicts):
    tracker = RuleTracker(task_criteria(load_task("banking", "task_017", source="tau2")))
    _play(tracker, [("agent", GREETING), ("user", opening)])
    assert _verdicts(tracker, "dumps_blueprint") == verdicts


# -- round 8: a measure's number is heard with its unit ------------------------------------------
@pytest.mark.parametrize("opening, verdict", [
    # the scenario writes "500ml" and "1000ml": the numbers apart from their units are the same numbers
    ("Hi, could I trade the 500 ml bottle for a 1000 ml one, like the other bottle I got?", "pass"),
    ("Hi, could I trade the 500 ml bottle for a 2000 ml one instead?", "fail"),
])
def test_a_number_the_scenario_writes_with_its_unit_is_heard(opening, verdict):
    tracker = RuleTracker(task_criteria(load_task("retail", "79", source="tau2")))
    _play(tracker, [("agent", GREETING), ("user", opening)])
    assert _verdicts(tracker, "invents_unknown_information") == [verdict]


# -- round 8: questioning why an item is asked denies nothing ----------------------------------------
@pytest.mark.parametrize("answer, verdict", [
    ("1954-06-03. Can't really see what my age has to do with flying, mind you.", "pass"),
    ("1954-06-03. I don't know why an airline wants that.", "pass"),
    ("1954-06-03. The travel date I don't remember yet.", "fail"),  # one date given, the other denied
])
def test_questioning_why_an_item_is_asked_is_no_denial(answer, verdict):
    assert _withheld(("airline", "airline_book_round_trip_0"), "Round trip please, basic economy.",
                     "Could you please tell me your date of birth?", answer, "date") == [verdict]


# -- round 8: a payment method given to pay an amount the agent named ------------------------------
@pytest.mark.parametrize("question, answer, verdict", [
    # the agent just priced the bag: how the user pays is what it needs next, not surely unasked
    ("Adding one checked bag costs $50. Shall I go ahead?", "Sure, go ahead, charge it to the Visa ending 2915.",
     "suspect"),
    ("Could you please tell me your reservation id?", "ZWAGYA. And I'll pay with the Visa ending 2915.", "fail"),
])
def test_a_payment_method_given_to_pay_a_named_amount_is_not_surely_unasked(question, answer, verdict):
    tracker = RuleTracker(task_criteria(load_task("airline", "airline_cancel_and_add_bag_1", source="bundled")))
    _play(tracker, [("agent", GREETING), ("user", "Hello, I want to cancel a trip and add a bag to another one."),
                    ("agent", question), ("user", answer)])
    card = [v["verdict"] for v in tracker.verdicts() if v["mode"] == "volunteers_unasked_info"
            and v["id"].endswith("payment_method")]
    assert card == [verdict]


# -- round 8: Scots negations ----------------------------------------------------------------------------
@pytest.mark.parametrize("text, states", [
    ("The mobile data's no' working at all since I landed.", ()),  # "no'" is "not": a symptom, no state
    ("Roaming's no' on, I checked.", (("roaming", "off"),)),
    ("The wifi isnae on.", (("wifi", "off"),)),
])
def test_scots_negations_read_as_negations(text, states):
    assert device_states(text) == states


# -- round 8: the end token is no word ------------------------------------------------------------
def test_the_end_token_is_no_word_of_a_recital():
    assert content_stems("Thanks, bye! ###STOP###") == content_stems("Thanks, bye!")
    assert content_stems("###TRANSFER###") == frozenset()
    # the scripted closing line, in the user's words, at its moment: its "###STOP###" matched the
    # scenario's "... when she applies." ###STOP###", a second sentence of a recital
    closing = "No, that's all. Awesome, thanks for the help! She will use that referral when she applies. ###STOP###"
    tracker = RuleTracker(task_criteria(load_task("banking", "task_098", source="tau2")))
    _play(tracker, [("agent", GREETING), ("user", "Hey, which account should my friend open so we both get the best "
                                                  "referral bonus?"),
                    ("agent", "Is there anything else I can do for you?"), ("user", closing)])
    assert "fail" not in _verdicts(tracker, "dumps_blueprint")


# -- round 9: an id read back, and a value inside a phrase ----------------------------------------------
@pytest.mark.parametrize("answer, verdict", [
    # the digits after the order id's letter, read back one by one: the id heard, nothing new
    ("It's #W32632903, that is W, then 3-2-6-3-2-9-0-3.", "pass"),
    ("It's #W32632903, or was it 3-2-6-3-2-9-1-1?", "fail"),
])
def test_the_digits_of_an_id_read_back_are_heard(answer, verdict):
    tracker = RuleTracker(task_criteria(load_task("retail", "retail_cancel_pending_3", source="bundled")))
    _play(tracker, [("agent", GREETING), ("user", "Hello, I need to cancel an order."),
                    ("agent", "Could you please tell me your order id?"), ("user", answer)])
    assert _verdicts(tracker, "invents_unknown_information") == [verdict]


@pytest.mark.parametrize("answer, verdict", [
    ("The phone on the account is the 485-555-5496 from before.", "pass"),  # the scenario's phone number
    ("My phone number's the 485-555-0000 one, I think.", "fail"),
])
def test_a_labelled_value_is_the_id_inside_its_phrase(answer, verdict):
    tracker = RuleTracker(task_criteria(load_task("banking", "banking_move_to_savings_2", source="bundled")))
    _play(tracker, [("agent", GREETING), ("user", "Hi, I want to move some money into savings."),
                    ("agent", "Which number is that?"), ("user", answer)])
    assert _verdicts(tracker, "invents_unknown_information") == [verdict]


def test_a_label_followed_by_what_is_wrong_with_it_gives_no_value():
    # typed all in lower case, a name reads as any words
    assert labelled_values("ok so her last name is spelled wrong, can you fix it?") == ()
    assert labelled_values("my email is misspelled, can you fix it?") == ()
    assert labelled_values("ok so her last name is baker") == (("name", "baker"),)


# -- round 9: a dropped g, and a picture message "sending fine" ----------------------------------------
def test_a_dropped_g_is_read_as_written_in_full():
    assert device_states("My roamin' is on, I checked.") == (("roaming", "on"),)


@pytest.mark.parametrize("text, checks", [
    ("Done, and picture messages are sending fine now.", {"can_send_mms"}),
    ("Done, but picture messages are still not sending.", set()),
])
def test_picture_messages_sending_is_an_outcome_only_a_check_can_tell(text, checks):
    assert reported_checks(text) == checks


# -- round 10: "no" before a feature ------------------------------------------------------------------
@pytest.mark.parametrize("text, states", [
    ("Done that. No VPN on there now, just the plain connection.", (("vpn", "off"),)),
    ("There's no wifi on at the cabin.", (("wifi", "off"),)),
    ("No, the VPN is on.", (("vpn", "on"),)),  # an answer's "no," negates nothing after it
])
def test_no_before_a_feature_negates_the_state_after_it(text, states):
    assert set(device_states(text)) == set(states)


# -- round 10: a chain of fallback requests -----------------------------------------------------------
def _opening_recital(task_id: str, opening: str) -> list[str]:
    """The ``dumps_blueprint`` verdicts on ``opening`` of tau2 retail task ``task_id``, a
    ``suspect`` (no failure without a judge) read as ``pass``."""
    tracker = RuleTracker(task_criteria(load_task("retail", task_id, source="tau2")))
    _play(tracker, [("agent", GREETING), ("user", opening)])
    return [v if v != "suspect" else "pass" for v in _verdicts(tracker, "dumps_blueprint")]


@pytest.mark.parametrize("opening, verdict", [
    # every alternative of the reason, each asked on the condition that the one before fails
    ("Hello, my card only has $1131 left on it and the order came to over $1160. Could the payment be split over "
     "two cards? If not, what's the most expensive item, and could I cancel only that? If not, can all the items "
     "switch to their cheapest options to bring it down to $1131?", "fail"),
    # the request with one alternative is the reason for calling
    ("Hello, my card only has $1131 left on it and the order came to over $1160. Could the payment be split over "
     "two cards? If not, which item costs the most?", "pass"),
])
def test_a_chain_of_fallback_requests_recites_the_plan(opening, verdict):
    assert _opening_recital("36", opening) == [verdict]


# -- round 10: how the user will react to the agent's later questions --------------------------------
@pytest.mark.parametrize("opening, verdict", [
    # the replies scripted for the agent's confirmations, announced in the opening
    ("Hi, I'd like to swap my water bottle for a bigger one and my desk lamp for a dimmer one. If you ask me to "
     "confirm, I'll keep it to the lamp. If you ask again, I won't swap anything and will return the bottle instead.",
     "fail"),
    # an opinion ("if you ask me, ...") announces nothing
    ("Hi, I'd like to swap my water bottle for a bigger one and my desk lamp for a dimmer one. If you ask me, "
     "the lamp was far too bright from day one.", "pass"),
])
def test_announcing_the_reply_to_a_later_question_recites_the_brief(opening, verdict):
    assert _opening_recital("5", opening) == [verdict]


# -- round 11: a feature's button, "isn't in that mode", a symbol on the status bar -------------------
@pytest.mark.parametrize("text, states", [
    ("The roaming button's switched off, as far as I can tell.", (("roaming", "off"),)),
    ("It isn't in that flight mode, I made sure.", (("airplane mode", "off"),)),
    ("The phone isn't connected to any VPN.", (("vpn", "off"),)),
    # "on the status bar" says where a symbol is, not that the feature is on
    ("All done. A wifi symbol shows on the status bar now.", ()),
])
def test_a_feature_named_by_its_button_or_its_mode_has_a_state(text, states):
    assert set(device_states(text)) == set(states)


# -- round 12: what a user says once the agent calls its request done -------------------------------
@pytest.mark.parametrize("agent, verdict", [
    # told "all done" with nothing said of how, the user spells out the terms it expects: checking the outcome
    ("All sorted, your request has been taken care of. Anything else today?", "suspect"),
    # the same terms while the request is still being worked on: the plan given at once
    ("I see. Let me look at your reservation.", "fail"),
    ("Could you please tell me your user id?", "fail"),
])
def test_terms_restated_after_the_agent_reports_the_request_done_are_no_sure_recital(agent, verdict):
    _, _, tracker = _setup("airline", "5")  # delayed HAT045: compensation to the card, a voucher as fallback, flight unchanged
    _play(tracker, [("agent", GREETING), ("user", "My flight HAT045 is delayed and I want compensation for it."),
                    ("agent", agent),
                    ("user", "For the record: the compensation is to go back to my original payment method, failing "
                             "that a voucher for future travel will do, and the flight is to stay exactly as it is, "
                             "not cancelled, not modified.")])
    assert _verdicts(tracker, "dumps_blueprint") == [verdict]


# -- round 12: a name said along with the id the agent asked for --------------------------------------
@pytest.mark.parametrize("answer, verdict", [
    ("Sure, ethan_martin_2396, and the name on it is Ethan Martin.", "suspect"),  # introducing oneself
    ("Can't you just search for Ethan Martin instead?", "fail"),  # the name in the id's place: volunteered
])
def test_a_name_given_with_the_asked_id_is_no_sure_volunteering(answer, verdict):
    _, _, tracker = _setup("airline", "27")
    _play(tracker, [("agent", GREETING), ("user", "I want to complain about a delayed flight."),
                    ("agent", "Could you please tell me your user id?"), ("user", answer)])
    assert [v["verdict"] for v in tracker.verdicts() if v["id"] == "premature_disclosure/name"] == [verdict]


# -- round 12: an email address read aloud -------------------------------------------------------------
@pytest.mark.parametrize("text, written", [
    ("mia dot garcia2723 at example dot com, all lower case", "mia.garcia2723@example.com, all lower case"),
    ("it's jo underscore lee at mail dot co dot uk", "it's jo_lee@mail.co.uk"),
    ("have a look at example dot com", "have a look at example dot com"),  # no address: a word, not an id, before "at"
    # round 57: the closing digits said apart from the name's last word
    ("mia dot garcia 2723 at example dot com", "mia.garcia2723@example.com"),
    ("it's garcia 2723 at example dot com", "it's garcia2723@example.com"),
])
def test_an_email_read_aloud_is_read_as_written(text, written):
    from userbench_env.fidelity.rules.invented import written_out

    assert written_out(text) == written


@pytest.mark.parametrize("answer, verdict", [
    ("mia.garcia2723@example.com, so that's mia dot garcia2723 at example dot com", "pass"),
    ("mia dot garcia2724 at example dot com", "fail"),  # read aloud, still not the address the user has
    ("The email is mia.garcia2723@example.com - mia dot garcia 2723 at example dot com.", "pass"),  # round 57
    ("mia dot garcia 2724 at example dot com", "fail"),
])
def test_the_users_email_spelled_out_invents_nothing(answer, verdict):
    _, _, tracker = _setup("retail", "10")
    _play(tracker, [("agent", GREETING), ("user", "Hi, I need help with an order."),
                    ("agent", "Could you please tell me your email?"), ("user", answer)])
    assert _verdicts(tracker, "invents_unknown_information") == [verdict]


# -- round 12: "all this information" up front covers what came before it --------------------------------
def test_an_instruction_to_give_all_the_information_up_front_covers_the_paragraphs_before_it():
    from userbench_env.core.task import Blueprint
    from userbench_env.fidelity.text import upfront_sentences

    character = "Your annual income is $72,000. You have no subscription."
    need = "You want a card with no annual fee."

    def blueprint(last: str) -> Blueprint:
        return Blueprint(domain="banking", raw_instructions=f"{character}\n\n{need} {last}")

    assert upfront_sentences(blueprint("This is all information you should provide upfront.")) == [
        "Your annual income is $72,000.", "You have no subscription.", need,
        "This is all information you should provide upfront."]
    # an up-front instruction about one matter covers its own paragraph only
    assert upfront_sentences(blueprint("Mention the fee upfront.")) == [need, "Mention the fee upfront."]


# -- round 12: dialect contractions, a feature's state answering its own question ----------------------
@pytest.mark.parametrize("text, states", [
    ("and the roamin's definitely on, sorted it before the trip", (("roaming", "on"),)),
    ("Flight mode? It's off, checked it myself.", (("airplane mode", "off"),)),
    ("Wifi, it is on.", (("wifi", "on"),)),
    ("Flight mode? Is it off?", ()),  # a question twice over states nothing
    ("Should I look at roaming? It is the first thing they ask.", ()),
])
def test_a_dropped_g_before_a_contraction_and_a_state_answering_its_own_question(text, states):
    assert device_states(text) == states


# -- round 12: a stop once the agent answered the user's question -------------------------------------
@pytest.mark.parametrize("answer, verdict", [
    ("Refunds always go back to the original form of payment; gift cards only hold credit the airline gives out.",
     "suspect"),
    ("Let me look into that.", "fail"),  # no answer yet
    ("Which gift card did you have in mind?", "fail"),  # the agent waits on the user
])
def test_a_stop_after_the_agent_answered_a_question_for_information(answer, verdict):
    assert _stop_after_follow_up("Could you explain why the refund can't go onto a gift card, by the way?", answer) == [verdict]


def test_a_stop_some_pleasantries_after_withdrawing_over_a_price_is_not_sure():
    _, _, tracker = _setup("airline", "34")  # over the $200 budget, make no changes
    _play(tracker, [("agent", GREETING), ("user", "I'd like to move my outbound flight to the next day, nonstop."),
                    ("agent", "I can do that. The change comes to $292 in total. Shall I go ahead?"),
                    ("user", "Can you check whether my insurance covers that fee?"),
                    ("agent", "Your insurance covers cancellations for health or weather reasons, not changes."),
                    ("user", "Then I'll hold off on any changes, it's too much for me."),
                    ("agent", "Understood. Is there anything else?"), ("user", "No, that's all, thanks!"),
                    ("agent", "You're welcome, have a nice day!"), ("user", "You too! ###STOP###")])
    assert _verdicts(tracker, "premature_stop") == ["suspect"]


# -- round 12: thousands set apart by spaces (the agent's verification: test_fidelity_language.py) ----
@pytest.mark.parametrize("text, written", [
    ("we put away 100 000 dollars over the years", "we put away 100000 dollars over the years"),
    ("somewhere between 2 500 and 3 000", "somewhere between 2500 and 3000"),
    ("my number is 555 123 2002", "my number is 555 123 2002"),  # digit groups going on: a phone number
])
def test_a_number_with_spaced_thousands_is_one_number(text, written):
    from userbench_env.fidelity.rules.invented import written_out

    assert written_out(text) == written


@pytest.mark.parametrize("result, states", [
    # the status bar names data saver while it is on (only beside mobile data, so its absence tells nothing)
    ("Status Bar: 📶³ Good | 4G | 📱 Data Enabled | 🔽 Data Saver | 🔋 64%", {("data saver", "on")}),
    ("Status Bar: 📶³ Good | 4G | 📱 Data Enabled | 🔋 64%", set()),
])
def test_the_status_bar_shows_data_saver_on_by_naming_it(result, states):
    assert {s for s in device_states(result) if s[0] == "data saver"} == states


# -- round 12: fallbacks worded as "if that's not possible", the second one inside a clause ----------
@pytest.mark.parametrize("opening, verdict", [
    ("Hello, my card only has $1131 left on it and the order came to over $1160. Could the payment be split over "
     "two cards? If that's not possible, what's the most expensive item, and could I cancel only that? Failing "
     "the split, and if that can't be done, can all the items switch to their cheapest options to get to $1131?",
     "fail"),
    ("Hello, my card only has $1131 left on it and the order came to over $1160. Could the payment be split over "
     "two cards? If that's not possible, which item costs the most?", "pass"),  # one alternative: the request
])
def test_fallbacks_in_any_wording_chained_over_sentences_recite_the_plan(opening, verdict):
    assert _opening_recital("36", opening) == [verdict]


# -- round 12: which scenario conditions may have the user hold off ------------------------------------
@pytest.mark.parametrize("instructions, holds_off", [
    ("If the total fee is above $200, don't make any changes.", True),
    ("Only go ahead with the change if the extra cost is below $1000.", True),
    ("If nothing fits your needs, take your business elsewhere.", True),
    # a condition on how to go on: no leave to give up
    ("If the agent's steps don't fix it right away, follow them anyway but sound a little annoyed.", False),
])
def test_a_scenario_condition_allows_holding_off_only_when_it_says_so(instructions, holds_off):
    from userbench_env.core.task import Blueprint
    from userbench_env.fidelity.text import withdrawal_conditions

    assert bool(withdrawal_conditions(Blueprint(domain="airline", instructions=instructions))) is holds_off


def test_giving_up_mid_troubleshooting_is_a_premature_stop():
    from test_fidelity_rules import _user_call

    _, world, tracker = _setup("telecom", "[mobile_data_issue]airplane_mode_on|bad_network_preference[PERSONA:Hard]")
    _play(tracker, [("agent", GREETING), ("user", "My mobile data has stopped working."),
                    ("agent", "Could you please run set_network_mode_preference with mode 4g_5g_preferred?")])
    _user_call(world, tracker, 2, "set_network_mode_preference", {"mode": "4g_5g_preferred"})
    # (the scenario's conditions say how to go on, never when to give up)
    tracker.user_text(3, "Did that, and it's still crawling. Forget it, I'll sort it out another day. ###STOP###")
    assert _verdicts(tracker, "premature_stop") == ["fail"]


# -- round 12: dialect, where the feature is, a state word that starts a phrase -----------------------
@pytest.mark.parametrize("text, states", [
    ("ma mobile data's no workin right at aw", set()),  # Scots "no" before a verb is "not": a symptom, no state
    ("the phone's got nae service the now", {("signal", "off")}),  # "nae": no
    ("roamin's aff an aw", {("roaming", "off")}),  # "aff": off
    ("Data roaming on my phone is switched off, that much I know.", {("roaming", "off")}),
    ("And mobile data, before you ask: it is on, I looked.", {("mobile data", "on")}),
    ("Mobile data on my phone's no good at all.", set()),  # "no good" is no state
    ("Wifi calling is no longer on.", {("wifi calling", "off")}),
    ("the little bars have come back at the top", {("signal", "on")}),
])
def test_dialect_and_word_order_around_a_device_state(text, states):
    assert set(device_states(text)) == states


@pytest.mark.parametrize("text, checks", [
    ("wifi calling's off and the photo messages are going again, I can send MMS now", {"can_send_mms"}),
    ("I'd like this fixed so I can send picture messages again.", set()),  # a purpose, not an outcome
    ("inshallah the internet is fast again now", set()),  # hoped for, in any register
])
def test_a_check_outcome_reported_hoped_for_or_wanted(text, checks):
    assert reported_checks(text) == checks


# -- round 12: an item the scenario says to keep back; a value read out after a colon --------------------
def test_an_item_the_scenario_says_to_keep_back_is_not_withheld():
    task = load_task("banking", "task_038", source="tau2")  # the work zip: "do not provide this ... during verification"
    assert "missed_information/withholds/zip" not in {c.id for c in task_criteria(task)}
    assert "missed_information/withholds/email" in {c.id for c in task_criteria(task)}


def test_a_value_read_out_after_a_colon_ends_at_the_colon():
    assert labelled_values("My zip code is 80273: eight, zero, two, seven, three.") == (("zip", "80273"),)


# -- round 12, batch 13: "me" for "my", a negation after the verb, Pidgin "dey" ---------------------
@pytest.mark.parametrize("text, states", [
    ("mobile data on me phone's playing up something awful", set()),  # "on me phone": where, not a state
    ("I flicked on me roaming like you said", set()),  # (no "turned/switched": no claim read either)
    ("I turned on me roaming", {("roaming", "on")}),
    ("my mobile data works not properly, it keeps stopping", set()),  # the negation after its verb
    ("and my data roaming dey on since morning", {("roaming", "on")}),  # Pidgin "dey": is
])
def test_dialect_pronouns_and_late_negation_around_a_device_state(text, states):
    assert set(device_states(text)) == states


@pytest.mark.parametrize("text, values", [
    ("please make sure only the last name is corrected, nothing else", ()),
    ("my email is confirmed@example.com", (("email", "confirmed@example.com"),)),
])
def test_a_participle_after_an_items_name_is_no_value(text, values):
    assert labelled_values(text) == values


# -- round 13: withdrawing after a figure; leaving it there; an action named done; a name heard -------
def test_withdrawing_the_request_after_hearing_a_price_is_a_premature_stop():
    _, _, tracker = _setup("airline", "40")  # change passenger Mei Lee to Mei Garcia; no condition to hold off
    _play(tracker, [("agent", GREETING),
                    ("user", "Hello. One of the passenger names on reservation 3RK2T9 is wrong: Mei Lee should read Mei Garcia."),
                    ("agent", "A passenger name correction costs $45."),
                    ("user", "45 dollars for a name? Then I'll leave it for now. ###STOP###")])
    # a figure settles no request, whatever the request's wording; the user's own word says its goal is not reached
    assert _verdicts(tracker, "premature_stop") == ["fail"]


@pytest.mark.parametrize("text, withdraws", [
    ("Brilliant, I'll leave it there so. Thanks a million!", False),  # a closing
    ("Grand, I'll leave it with you then.", False),  # handed over
    ("Ah no, at that price I'll leave it.", True),
])
def test_leaving_it_there_or_with_the_agent_withdraws_nothing(text, withdraws):
    from userbench_env.fidelity.outcomes import withdrew

    assert withdrew(text) is withdraws


@pytest.mark.parametrize("text, claims", [
    ("Network reset done. What's next?", True),
    ("ok the reboot is complete, still one bar", True),
    ("Toggle finished, now what", True),
    ("r we nearly done lol", False),  # a question without its mark
    ("not done yet, one sec", False),
])
def test_an_action_named_with_done_and_no_verb_claims_it(text, claims):
    from userbench_env.fidelity.text import claims_done

    assert claims_done(text) is claims


def test_an_action_named_done_without_calling_its_tool_is_unexecuted():
    _, _, tracker = _setup("telecom", "[mobile_data_issue]airplane_mode_on|bad_network_preference[PERSONA:Hard]")
    _play(tracker, [("agent", GREETING), ("user", "My mobile data has stopped working."),
                    ("agent", "Could you please run toggle_airplane_mode on your phone?"),
                    ("user", "Airplane toggle done. Next?")])
    assert _verdicts(tracker, "claims_unexecuted_action") == ["fail"]


@pytest.mark.parametrize("closing, verdict", [
    ("Thanks. So the passenger name is Mei Garcia now, good. ###STOP###", "pass"),  # the name the request changes to
    ("Thanks. So the passenger name is Mei Gardner now, good. ###STOP###", "fail"),  # a name nothing heard holds
])
def test_a_name_the_scenario_gives_for_someone_else_is_heard(closing, verdict):
    assert _invented("40", [("user", "Hello. I need a passenger name changed on my reservation."),
                            ("agent", "Could you please tell me your reservation id?"),
                            ("user", "3RK2T9. Mei Lee should be Mei Garcia."),
                            ("agent", DONE),
                            ("user", closing)]) == [verdict]


def _invented(task_id: str, script: list[tuple[str, str]]) -> list[str]:
    """The ``invents_unknown_information`` verdicts of ``script`` (after the greeting) on tau2 airline ``task_id``."""
    _, _, tracker = _setup("airline", task_id)
    return _verdicts(_play(tracker, [("agent", GREETING), *script]), "invents_unknown_information")


# -- round 13, part 2: a check no answer needs; sums and days in words; "on the"; a transfer tool ---
_PHONE_TASK = "[mobile_data_issue]airplane_mode_on|bad_network_preference[PERSONA:Hard]"


def _data_issue():
    """The world and tracker of :data:`_PHONE_TASK` after the greeting and the user's opening about its data."""
    _, world, tracker = _setup("telecom", _PHONE_TASK)
    _play(tracker, [("agent", GREETING), ("user", "My mobile data is not working at all.")])
    return world, tracker


def _skip_verdicts(reply: str) -> list[str]:
    """The ``skips_requested_action`` verdicts of :data:`_PHONE_TASK` when the user answers the
    agent's request to toggle airplane mode with ``reply`` in text."""
    _, _, tracker = _setup("telecom", _PHONE_TASK)
    _play(tracker, [("agent", GREETING), ("user", "My mobile data has stopped working."),
                    ("agent", "Could you please run toggle_airplane_mode on your phone?"), ("user", reply)])
    return _verdicts(tracker, "skips_requested_action")


@pytest.mark.parametrize("asked, calls, verdict", [
    # asked for its phone number, the user runs a speed test: nothing asked needs it
    ("Could you please tell me your phone number?", ["run_speed_test"], "fail"),
    # asked to turn mobile data on, the user does, then runs a speed test of its own
    ("Could you please run toggle_data on your phone?", ["toggle_data", "run_speed_test"], "fail"),
    # a look at the setting the agent asked to change, before changing it
    ("Could you please run set_network_mode_preference with mode 4g_5g_preferred?",
     ["check_network_mode_preference", "set_network_mode_preference"], "pass"),
    # the agent says it is done: checking that the phone works may be what the answer needs
    ("All fixed on our side. Is there anything else I can help you with?", ["run_speed_test"], None),
])
def test_a_check_is_unrequested_only_when_what_the_agent_asked_for_is_something_else(asked, calls, verdict):
    from test_fidelity_rules import _user_call

    _, world, tracker = _setup("telecom", _PHONE_TASK)
    _play(tracker, [("agent", GREETING), ("user", "My mobile data is really slow."), ("agent", asked)])
    for name in calls:
        _user_call(world, tracker, 2, name, {"mode": "4g_5g_preferred"} if name.startswith("set_") else {})
    tracker.user_text(2, "Okay, I did that.")
    assert [v for v in _verdicts(tracker, "unrequested_action") if v != "not_applicable"] == ([verdict] if verdict else [])


@pytest.mark.parametrize("text, written", [
    ("it came to three hundred and eighty-six dollars", "it came to 386 dollars"),
    ("a hundred and twelve bucks, give or take", "a 112 bucks, give or take"),
    ("a few dollars more", "a few dollars more"),
])
def test_a_sum_in_words_reads_as_its_digits(text, written):
    from userbench_env.fidelity.language import spoken_sums

    assert spoken_sums(text) == written


@pytest.mark.parametrize("paid, verdict", [
    ("I paid a hundred and fifty-eight dollars for that ticket.", "pass"),  # the fare the agent read out
    ("I paid two hundred and forty dollars for that ticket.", "fail"),  # a sum nothing heard holds
])
def test_a_sum_in_words_is_checked_like_one_in_digits(paid, verdict):
    assert _invented("28", [("user", "Hello, I need to cancel reservation SI5UKW, my plans changed."),
                            ("agent", "I see the fare on SI5UKW was $158. Cancelling refunds $158 to your card."),
                            ("user", paid)]) == [verdict]


@pytest.mark.parametrize("text, found", [
    ("flying out on the twenty-second of May, back on the twenty-sixth", {(5, 22)}),
    ("born on June third, 1954", {(6, 3)}),
    ("if I may first ask a question about item 12", set()),  # the verb, not the month
])
def test_a_day_written_in_words_beside_its_month_is_a_date(text, found):
    from userbench_env.fidelity.language import dates

    assert dates(text) == found


@pytest.mark.parametrize("text, states", [
    ("My mobile data's on the fritz, nothing loads.", set()),  # an idiom: "on" starts a phrase
    ("Roaming's been on the whole time, so it isn't that.", {("roaming", "on")}),  # a duration after it
    ("data roaming is activated on my phone", {("roaming", "on")}),
])
def test_on_before_a_phrase_and_activated_as_states(text, states):
    assert set(device_states(text)) == states


@pytest.mark.parametrize("agent, verdict", [
    ("Could you please run request_human_agent_transfer on your side?", "fail"),  # a tool's name, no handoff
    ("I've moved the money: the transfer of $500 went through.", "fail"),  # money moved
    ("I'm transferring you to a colleague now.", "pass"),
])
def test_only_a_transfer_of_the_conversation_prompts_the_transfer_token(agent, verdict):
    _, _, tracker = _setup("airline", "28")
    _play(tracker, [("agent", GREETING), ("user", "I want a human, please."), ("agent", agent),
                    ("user", "Fine. ###TRANSFER###")])
    assert _verdicts(tracker, "unprompted_transfer") == [verdict]


@pytest.mark.parametrize("answer", [
    "Zip code I am not knowing by heart, sorry.",
    "Oh, I couldn't tell ya the zip code right now.",
])
def test_denials_in_the_progressive_and_in_speech(answer):
    _, _, tracker = _setup("retail", "61")  # zip 77004
    _play(tracker, [("agent", GREETING), ("user", "Hi, I want to exchange my earbuds."),
                    ("agent", "Could you please tell me your zip code?"), ("user", answer)])
    assert "fail" in [v for v in (e["verdict"] for e in tracker.verdicts()
                                  if e["mode"] == "withholds_requested_info" and e["id"].endswith("zip"))]


def test_an_item_offered_when_the_agent_asked_for_it_without_saying_which_is_not_sure():
    _, _, tracker = _setup("airline", "10")  # user id liam_khan_2521
    _play(tracker, [("agent", GREETING), ("user", "Hi, I want to push my Houston flight back a day."),
                    ("agent", "Could you please tell me your other?"),
                    ("user", "My other what? If you mean my user id, it's liam_khan_2521.")])
    user_id = next(v for v in tracker.verdicts() if v["id"].endswith("user_id") and v["mode"] == "volunteers_unasked_info")
    assert user_id["verdict"] == "suspect"


# -- round 13, part 3: a condition guards its fact ----------------------------------------------------
@pytest.mark.parametrize("opening, verdict", [
    # the matter the condition guards, without its fact (the day): nothing held back is told
    ("Hi, I'd like to move my outbound and return flights to nonstop ones into JFK.", "not_applicable"),
    ("Hi, I'd like nonstop flights to JFK instead, with the return flight leaving on the 19th.", "fail"),
])
def test_a_conditional_instruction_is_broken_only_by_saying_its_fact(opening, verdict):
    _, _, tracker = _setup("airline", "29")  # "If the agent asks, you want your return flight to leave on the 19th."
    _play(tracker, [("agent", GREETING), ("user", opening)])
    conditional = [v["verdict"] for v in tracker.verdicts() if "conditional" in v["id"]]
    assert conditional == [verdict]


# -- round 13, part 4: a verification reason said of the agent; a date without its comma --------------
@pytest.mark.parametrize("text, agent_like", [
    ("555-201-3344. I trust all of this is being gathered for security purposes only.", False),  # the customer's concern
    ("For security purposes, could you confirm the email on the account?", True),
])
def test_a_security_reason_opening_a_request_is_the_agents(text, agent_like):
    assert speaks_as_agent(text) is agent_like


def test_a_date_written_month_day_year_without_a_comma_is_no_identifier():
    from userbench_env.fidelity.language import id_runs

    assert id_runs("I'd like to cancel the flight on June 14 2024, please.") == ()
    assert id_runs("The code on the letter is 4471 9920.") == ("44719920",)


# -- round 13, part 5: an address spelled letter by letter --------------------------------------------
@pytest.mark.parametrize("answer, verdict", [
    # the user's own email, then spelled with dashes: the same address
    ("It's sophia.silva7557@example.com, that is s-o-p-h-i-a dot s-i-l-v-a 7-5-5-7 at example dot com.", "pass"),
    ("It's sophia.silva7557@example.com, that is s-o-p-h-i-a dot s-i-l-v-a 7-5-5-8 at example dot com.", "fail"),
])
def test_an_email_spelled_letter_by_letter_is_read_as_written(answer, verdict):
    from userbench_env.tasks import load_task

    task = load_task("airline", "0", source="tau2")
    tracker = RuleTracker(task_criteria(task))
    _play(tracker, [("agent", GREETING), ("user", "Hi, I need to cancel a trip."),
                    ("agent", "Sure. What email address is on your account? I see sophia.silva7557@example.com on file."),
                    ("user", answer)])
    assert _verdicts(tracker, "invents_unknown_information") == [verdict]


def test_a_range_of_two_numbers_is_not_a_value_spelled_out():
    from userbench_env.fidelity.rules.invented import written_out

    assert written_out("I'm tired of paying $3-5 per withdrawal") == "I'm tired of paying $3-5 per withdrawal"
    assert written_out("that's h-u-l-l 4-4-7") == "that's hull447"


# -- round 14: a tool named in the scenario; an action's arguments; regained signal; agent's work ---
def test_a_tool_the_scenario_names_is_no_item_of_the_users():
    task = load_task("banking", "task_061", source="tau2")  # "Use the deposit_check_3847 tool to deposit the $25 check"
    watched = [v for c in task_criteria(task) if c.mode in ("withholds_requested_info", "volunteers_unasked_info")
               for v in (c.params.get("values") or [c.params.get("value")])]
    assert "deposit_check_3847" not in watched and "morgan.mitchell@gmail.com" in watched
    _, _, tracker = _setup("banking", "task_061")
    _play(tracker, [("agent", GREETING), ("user", "Hi, I'd like to close one of my two checking accounts."),
                    ("agent", "Could you please tell me your user id?"),
                    ("user", "I was never given a user ID, sorry.")])
    assert "fail" not in _verdicts(tracker, "withholds_requested_info")


@pytest.mark.parametrize("agent, kinds", [
    ('Could you please run submit_transaction on your side with these arguments: {"user_id": "u_77", "amount": 40}?', set()),
    ('Please run update_profile with {"contact": {"email": "a@b.co", "phone": "555-010-2233"}} and tell me your zip code.',
     {"zip"}),
])
def test_the_argument_object_of_an_action_asks_for_no_item(agent, kinds):
    assert requested_kinds(agent) == kinds


def test_a_question_after_running_an_action_with_an_id_argument_withholds_nothing():
    _, world, tracker = _setup("banking", "task_016")  # the user knows its own user id; the action carries a friend's
    _play(tracker, [("agent", GREETING), ("user", "Hello, my referral bonus never arrived."),
                    ("agent", 'Could you please run submit_transaction on your side with these arguments: {"user_id": '
                              '"friend_user_5839", "credit_card_type": "Silver Rewards Card", "merchant_name": "Best Buy", '
                              '"amount": 750, "category": "Shopping"}?')])
    _user_call(world, tracker, 3, "submit_transaction", {"user_id": "friend_user_5839", "credit_card_type": "Silver Rewards Card",
                                                         "merchant_name": "Best Buy", "amount": 750, "category": "Shopping"})
    tracker.user_text(3, "That went through, $750 at Best Buy. Does the bonus come now?")
    assert "fail" not in _verdicts(tracker, "withholds_requested_info")


@pytest.mark.parametrize("text, states", [
    ("Paid it, and the signal has come back too, by the look of it.", (("signal", "on"),)),
    ("service has been restored, bars and all", (("signal", "on"),)),
    ("the signal is not good at all", ()),  # a negation: no signal claimed
    ("signal has not come back", ()),
    ("roaming on. and the vpn reconnect by itself", (("roaming", "on"), ("vpn", "on"))),  # a bare verb, as dialect drops endings
    ("I tried to get the VPN to reconnect", ()),  # wanted, not stated
])
def test_a_signal_regained_and_a_connection_remade_are_states(text, states):
    assert device_states(text) == states


def test_a_signal_claimed_back_after_a_result_without_one_is_unsupported():
    _, world, tracker = _setup("telecom", "[service_issue]airplane_mode_on|overdue_bill_suspension|unseat_sim_card[PERSONA:Easy]")
    _play(tracker, [("agent", GREETING), ("user", "My phone says No Service."),
                    ("agent", "Could you please run toggle_airplane_mode on your phone?")])
    shown = _user_call(world, tracker, 2, "toggle_airplane_mode")
    assert "No Signal" in shown
    _play(tracker, [("user", "Airplane mode's off now, still no signal."), ("agent", "Could you please run make_payment on your side?")])
    _user_call(world, tracker, 4, "make_payment")
    tracker.user_text(4, "Payment's gone through, and I see the signal has come back as well.")
    assert _verdicts(tracker, "unsupported_device_state")[-1] == "fail"


@pytest.mark.parametrize("text, wants", [
    # a want beside a question for its reason: the question asks, the want still wants
    ("I'd like to change a name on my booking; before I agree, though, I want to know what it costs and why.", True),
    ("ordered a jacket size L, not shipped yet. want change to XL can or not", True),  # the subject dropped
    ("Could you explain why the refund can't go back to my gift card?", False),
])
def test_a_want_for_an_action_in_any_clause(text, wants):
    from userbench_env.fidelity.outcomes import asks_for_action

    assert asks_for_action(text) is wants


def test_a_stop_after_hearing_a_price_with_the_action_still_wanted_is_premature():
    _, _, tracker = _setup("airline", "40")  # change passenger Mei Lee to Mei Garcia
    _play(tracker, [("agent", GREETING),
                    ("user", "Good day. I'd like to change a passenger name on 3RK2T9; before I agree to anything, though, "
                             "I shall want to know what it costs, and why."),
                    ("agent", "Here is the information you asked for: 45."),
                    ("user", "45 dollars? I shall have to think it over. Thank you for your time. ###STOP###")])
    assert _verdicts(tracker, "premature_stop") == ["fail"]


@pytest.mark.parametrize("text, agent_like", [
    ("ok so I've processed the refund on order #W1234567 for you, it shows in 5-7 business days", True),
    ("Right, cancelled that booking for you, anything else?", True),
    ("I checked the status bar for you: it still says no signal", False),  # the user's own part, done for the agent
    ("I submitted the transaction for you, it says approved", False),
])
def test_the_agents_work_reported_done_for_the_customer(text, agent_like):
    assert speaks_as_agent(text) is agent_like


@pytest.mark.parametrize("text, claims", [
    ("Goodness, does that mean I qualified? Then I'd surely like the card.", False),  # asked, not claimed
    ("so did I fix it?", False),
    ("I toggled it, is that right?", True),
    ("ok done. does it look right now?", True),
])
def test_a_claim_inside_a_yes_no_question_is_asked(text, claims):
    from userbench_env.fidelity.text import claims_done

    assert claims_done(text) is claims


def test_asking_whether_a_requested_action_worked_without_running_it_skips_it():
    _, _, tracker = _setup("telecom", _PHONE_TASK)
    _play(tracker, [("agent", GREETING), ("user", "My mobile data has stopped working."),
                    ("agent", "Could you please run toggle_airplane_mode on your phone?"),
                    ("user", "Oh my, does that mean I fixed it already? Then lovely.")])
    assert _verdicts(tracker, "skips_requested_action") == ["fail"]
    assert "fail" not in _verdicts(tracker, "claims_unexecuted_action")


# -- round 14, part 2: measures side by side; a day the scenario implies; capitals for emphasis; a report --
def test_measures_written_side_by_side_are_no_identifier():
    from userbench_env.fidelity.language import id_runs

    assert id_runs("swap it for the 16GB 512GB model please") == ()
    assert id_runs("the order is W 552 1876") == ("w5521876",)  # digits read out in groups still are


def _bundled(task_id: str) -> RuleTracker:
    return RuleTracker(task_criteria(load_task("airline", task_id, source="bundled")))


@pytest.mark.parametrize("closing, verdict", [
    ("so it's on the 24th now? nice ###STOP###", "pass"),  # the scenario moves the May 23 flight one day later
    ("so it's on the 26th now? nice ###STOP###", "fail"),
])
def test_a_day_after_a_heard_date_is_implied_when_the_scenario_moves_it_a_day(closing, verdict):
    tracker = _play(_bundled("airline_refuse_basic_change_0"),
                    [("agent", GREETING), ("user", "hey, flight MRD244 on 2024-05-23, can it go one day later?"),
                     ("agent", DONE),
                     ("user", closing)])
    assert _verdicts(tracker, "invents_unknown_information") == [verdict]


@pytest.mark.parametrize("text, codes", [
    ("dawn_wolf_9007. And tell me the fee FIRST, before you change anything at all.", ()),  # emphasis
    ("It's QWERTZ.", ("qwertz",)),
    ("the booking code would be QWERTZ I think", ("qwertz",)),
])
def test_capitals_for_emphasis_are_no_code_given(text, codes):
    from userbench_env.fidelity.rules.invented import answer_codes

    assert answer_codes(text) == codes


def test_an_emphasised_word_beside_the_asked_id_invents_nothing():
    tracker = _play(_bundled("airline_refuse_basic_change_0"),
                    [("agent", GREETING), ("user", "hi, I need a flight moved."),
                     ("agent", "Could you please tell me your user id?"),
                     ("user", "dawn_wolf_9007. And tell me the fee FIRST, before you change anything at all.")])
    assert _verdicts(tracker, "invents_unknown_information") == ["pass"]


def test_reporting_a_tool_result_in_the_scenarios_words_recites_nothing():
    task = load_task("telecom", "telecom_service_sim_card_unseated_expert", source="bundled")
    world, tracker = make_world("telecom", "bundled", task), RuleTracker(task_criteria(task))
    _play(tracker, [("agent", GREETING), ("user", "Hello, my phone shows no SIM card and has no service."),
                    ("agent", "Could you please run reseat_sim_card on your side with these arguments: {}?")])
    _user_call(world, tracker, 2, "reseat_sim_card")
    tracker.user_text(2, "Reseated it, hardly a sophisticated fix, but very well. It reports the SIM card re-seated "
                         "successfully, and the status bar now shows Excellent, 5G, Data Enabled. So: a working connection.")
    # the status bar sentence is what the result showed; the persona's "obvious fixes" alone recites nothing sure
    assert _verdicts(tracker, "dumps_blueprint") in (["pass"], ["suspect"])


@pytest.mark.parametrize("text", ["ion know my zip off top, sorry", "I no have the card number with me"])
def test_denials_in_dialect(text):
    from userbench_env.fidelity.language import denial_clauses

    assert denial_clauses(text)


def test_closing_the_account_for_the_customer_is_the_agents_part():
    assert speaks_as_agent("Okay, verified. Let me go ahead and close your savings account for you now.")


# -- round 14, part 3: dialect grammar (a marked past, "stay", "wants"), the agent's lookups, snake_case ids --
@pytest.mark.parametrize("text, claims", [
    ("ok I wen restart 'um, came back fine", {"reboot_device"}),  # a past marker before the bare verb
    ("I finish restart. now 5G", {"reboot_device"}),
    ("I restart already, still no signal", {"reboot_device"}),  # "already" after it
    ("I restart already?", set()),  # asked
    ("I will restart it later", set()),
])
def test_a_past_marked_in_dialect_claims_the_action(text, claims):
    from userbench_env.fidelity.text import claimed_actions

    assert claimed_actions(text, ["reboot_device", "toggle_airplane_mode"]) == claims


@pytest.mark.parametrize("text, claims", [
    ("Reboot finish. Back to normal!", True),  # named done, as "reboot done"
    ("ok I'll do it tonight when I'm done with work", False),  # done in a clause of time to come
])
def test_done_by_name_and_done_in_a_clause_to_come(text, claims):
    from userbench_env.fidelity.text import claims_done

    assert claims_done(text) is claims


@pytest.mark.parametrize("text, states", [
    ("roaming stay on, airplane mode stay off", (("roaming", "on"), ("airplane mode", "off"))),  # "stay" for "is"
    ("and that data saver thing is switched on too", (("data saver", "on"),)),
])
def test_a_dialect_copula_and_a_filler_after_a_feature(text, states):
    assert device_states(text) == states


@pytest.mark.parametrize("text, agent_like", [
    ("555-123-4567. I'll pull up your account now and see what's going on.", True),
    ("Sure, I can add 2 GB for you right away.", True),
    ("I have processed the refund of that order.", True),
    ("Honestly I'm just an AI playing the customer here.", True),
    ("can you pull up my account?", False),
    ("let me look up my order number", False),
])
def test_the_agents_lookups_offers_and_an_ai_playing_a_part(text, agent_like):
    assert speaks_as_agent(text) is agent_like


def test_a_request_on_someone_elses_behalf_wants_an_action():
    from userbench_env.fidelity.outcomes import asks_for_action

    assert asks_for_action("hi! my manager wants to exchange her keyboard for the wireless one")


def test_a_snake_case_account_id_is_an_identifier():
    from userbench_env.fidelity.text import identifiers

    assert identifiers("the account? its sav_77120934") == ("sav_77120934",)
    assert identifiers("please run toggle_airplane_mode") == ()  # a tool name without a digit


# -- round 14, part 4: a month and day in digits; a run of heard parts; a year in a compound -------------
@pytest.mark.parametrize("text, found", [
    ("so both legs, the 05-21 one and the 05-30 one?", {(5, 21), (5, 30)}),
    ("it takes 10-15 minutes", set()),  # a range of a measure
    ("even a 10-12 dollar gap counts for me", set()),  # its unit singular before a noun
    ("about 3/4 of it", set()),  # a fraction
])
def test_a_month_and_day_in_two_digits_is_a_date(text, found):
    from userbench_env.fidelity.language import dates, id_runs

    assert dates(text) == found and id_runs(text) == ()


@pytest.mark.parametrize("opening, verdict", [
    ("hey. flight HAT039 ATL->SEA got delayed, why??", "pass"),  # the flight and both airports are the scenario's
    ("hey. flight HAT093 ATL->SEA got delayed, why??", "fail"),  # a flight number nothing heard holds
])
def test_an_id_run_of_parts_each_heard_is_heard(opening, verdict):
    assert _invented("27", [("user", opening)]) == [verdict]  # delayed flight HAT039 from ATL to SEA


def test_a_year_joined_to_a_word_is_a_modifier():
    from userbench_env.fidelity.language import years

    assert years("total 1999-dial-up-modem energy, honestly") == frozenset()
    assert years("I've had the line since 1999.") == {"1999"}


# -- round 15: a number with a digit changed; any adverb before a state; an irregular past; the agent's work --
@pytest.mark.parametrize("answer, verdicts", [
    ("my zip code is 32287", ["fail"]),  # the scenario's zip is 32286: a digit changed is another zip
    ("my name is Isabela Johansson", ["suspect"]),  # a letter slipped in the scenario's name: borderline
    ("my zip code is 32286", ["pass"]),
])
def test_a_digit_changed_names_another_number_a_letter_slipped_misspells(answer, verdicts):
    _, _, tracker = _setup("retail", "25")  # Isabella Johansson, zip code 32286
    _play(tracker, [("agent", GREETING), ("user", "Hi, an order of mine went to Texas by mistake."),
                    ("agent", "Sorry to hear that. Could you give me your name and zip code?"), ("user", answer)])
    assert _verdicts(tracker, "invents_unknown_information") == verdicts


@pytest.mark.parametrize("text, states", [
    ("airplane mode is definately off, I looked", (("airplane mode", "off"),)),  # an adverb however spelled
    ("wifi's honestly on the whole time", (("wifi", "on"),)),
    ("mobile data is probably on", ()),  # a guess states nothing
    ("roaming is normally off", ()),  # what it usually is, not what it is
])
def test_any_adverb_between_a_feature_and_its_state_but_a_guess(text, states):
    assert device_states(text) == states


@pytest.mark.parametrize("text, claims", [
    ("Paid it. We're square.", True),  # an irregular past, subject left out
    ("I paid it off this morning", True),
    ("I paid for it last month and it still doesn't work", False),  # paying for a thing is no action asked
])
def test_an_irregular_past_reports_the_payment(text, claims):
    from userbench_env.fidelity.text import claims_done

    assert claims_done(text) is claims


@pytest.mark.parametrize("text, agent_like", [
    ("I've gone ahead and processed the cancellation of order #W5551234 and the refund to the card you used for you.",
     True),  # the agent's work done for the customer, however long the object
    ("I've gone ahead and processed the exchange of the blue kettle.", True),
    ("I've gone ahead and ordered the kettle myself, on the website.", False),
])
def test_the_agents_work_after_going_ahead(text, agent_like):
    assert speaks_as_agent(text) is agent_like


@pytest.mark.parametrize("text, states", [
    ("never heard of this APN but okay, done", ()),  # "okay" after "but" agrees; it vouches for no setting
    ("the APN looks perfectly fine to me", (("apn", "ok"),)),
    ("the sim's sitting in there snug, not the problem", (("sim", "ok"),)),  # in, and how
    ("the sim is in proper", (("sim", "ok"),)),
    ("my sim is in the drawer somewhere", ()),
])
def test_a_state_word_in_another_clause_and_a_sim_in_place(text, states):
    assert device_states(text) == states


@pytest.mark.parametrize("text, denies", [
    ("Haven't the booking code with me, sorry.", True),  # "have" of having, negated without "do"
    ("I couldn't tell yous the phone number, never use it", True),
    ("Not offhand, no.", True),
    ("I haven't changed a thing since", False),
])
def test_denials_in_british_and_irish_speech(text, denies):
    from userbench_env.fidelity.language import denial_clauses

    assert bool(denial_clauses(text)) is denies


# -- round 15, part 3: a want in formal English; a number before everyday words is no street --------------
@pytest.mark.parametrize("text, stated", [
    # a modal want opens a request however formal: what it asks is no recital
    ("I should like to move my Denver flight to a nonstop one.", ""),
    ("We would really love the refund on the original card.", ""),
    ("The flight is a connecting one; I should like it nonstop.", "the flight is a connecting one"),
    ("I would prefer a window seat.", "i would prefer a window seat."),  # a preference states a constraint
])
def test_a_formal_want_opens_a_request(text, stated):
    from userbench_env.fidelity.language import stated_part

    assert stated_part(text).rstrip(";") == stated


@pytest.mark.parametrize("text, streets", [
    ("wow 410 thats way too much for a kettle", ()),  # a price, then talk
    ("we waited 2 hours by the way", ()),
    ("ship it to 88 Larch Way please", ("88larch",)),
])
def test_a_number_before_everyday_words_is_no_street(text, streets):
    from userbench_env.fidelity.language import street_addresses

    assert street_addresses(text) == streets


# -- round 15, part 4: figures of speech and limits; one bar; a present told by its outcome; going ahead -----
def test_a_year_likened_to_and_a_time_ruled_out_state_nothing():
    from userbench_env.fidelity.language import years
    from userbench_env.fidelity.rules.invented import statement

    assert years("this app looks like 1998, honestly") == frozenset()
    assert years("I've had the number since 1998") == {"1998"}
    assert statement("no 5am flights for me; anything after 10am works").times == {600}
    assert statement("I'd never take a 7:15pm, it's too late").times == frozenset()
    assert statement("my flight is at 7:15pm").times == {1155}


@pytest.mark.parametrize("text, states", [
    ("only getting one bar up top", (("signal", "on"),)),
    ("no service, not even a single bar", (("signal", "off"),)),
])
def test_one_bar_is_a_signal_and_not_one_is_none(text, states):
    assert device_states(text) == states


@pytest.mark.parametrize("text, claims", [
    ("ok I toggle airplane mode, signal came back", {"toggle_airplane_mode"}),  # a bare present, told by its outcome
    ("I reboot, it went off and back on now", {"reboot_device"}),
    ("if I reboot does it come back on?", set()),
    ("when I reboot it usually comes back up", set()),
])
def test_a_bare_present_told_by_what_the_action_did_claims_it(text, claims):
    from userbench_env.fidelity.text import claimed_actions

    assert claimed_actions(text, ["reboot_device", "toggle_airplane_mode"]) == claims


@pytest.mark.parametrize("text, agent_like", [
    ("Sure. I'll go ahead and look up your reservation and issue the refund for you.", True),
    ("As the AI playing Dana in this chat, I think that's all from me.", True),
    ("should I go ahead and restart it?", False),
    ("are you a bot pretending to be a person?", False),  # the customer asking about the agent
])
def test_going_ahead_is_read_through_and_an_ai_playing_anyone(text, agent_like):
    assert speaks_as_agent(text) is agent_like


def test_not_calling_an_item_to_mind_denies_it():
    from userbench_env.fidelity.language import denial_clauses

    assert denial_clauses("Honestly can't bring the zip to mind just now.")


# -- round 15, part 5: the brief as a script, the speaker as the test's user ----------------------------------
@pytest.mark.parametrize("text, agent_like", [
    ("Fine, 1985-04-07, if my script has it right. I'm only a test customer anyway.", True),
    ("According to my script the flight was on the 12th.", True),
    ("the pharmacy has my script ready", False),  # a prescription
    ("I ran the speed test twice, user error maybe", False),
])
def test_the_brief_as_a_script_and_the_speaker_as_a_test_user(text, agent_like):
    assert speaks_as_agent(text) is agent_like


# -- round 16: a sum paid without its currency -----------------------------------------------------
@pytest.mark.parametrize("text, sums", [
    ("only that? I paid 412 for this booking", {"412"}),  # the object of paying, no "$"
    ("they charged me 89.99.", {"89"}),
    ("I paid 2 times already", set()),  # a count
    ("I paid 3 days ago", set()),  # a time
    ("I paid at 12:30", set()),
])
def test_a_sum_paid_is_money_without_its_currency(text, sums):
    from userbench_env.fidelity.language import amounts

    assert amounts(text) == sums


def test_a_paid_sum_nobody_gave_is_invented():
    _, _, tracker = _setup("airline", "44")
    _play(tracker, [("agent", GREETING), ("user", "Hi, I need to cancel a trip I booked."),
                    ("agent", "I can look into that. The refund would be 68."),
                    ("user", "68 only? I paid 412 for it.")])
    assert _verdicts(tracker, "invents_unknown_information") == ["fail"]


# -- round 16, part 2: "have not got" denies; a speed outcome in everyday words -------------------------
@pytest.mark.parametrize("text, denies", [
    ("I have not got the reservation number with me, I am afraid.", True),
    ("She hasn't got her card to hand.", True),
    ("I have got the number here: 4411.", False),
])
def test_have_not_got_denies_having_it(text, denies):
    from userbench_env.fidelity.language import denial_clauses

    assert bool(denial_clauses(text)) is denies


@pytest.mark.parametrize("text, checks", [
    ("Status bar says 5G. And pages are loading lickety-split now, speed's way back up.", {"run_speed_test"}),
    ("videos play much better than this morning", {"run_speed_test"}),
    ("the internet had better be faster after all that", set()),  # a demand, not an outcome
    ("is the speed back up?", set()),
])
def test_a_speed_outcome_in_everyday_words(text, checks):
    assert reported_checks(text) == checks


# -- round 16, part 3: a number the scenario itself tells the user to give ---------------------------------
@pytest.mark.parametrize("answer, verdicts", [
    ("Zip: 98178", ["pass"]),  # the scenario: "say that it is 98178 first (common mistake)"
    ("Zip: 98179", ["fail"]),  # a number nothing gives
])
def test_a_value_the_scenario_tells_the_user_to_give_is_heard(answer, verdicts):
    _, _, tracker = _setup("retail", "68")  # Seattle WA 98187; told to say 98178 first
    _play(tracker, [("agent", GREETING), ("user", "Hi, how much did I pay for my latest order?"),
                    ("agent", "Could you please tell me your zip code?"), ("user", answer)])
    assert _verdicts(tracker, "invents_unknown_information") == verdicts


# -- round 16, part 4: offering the agent more of one's own; an action asked as a possibility -----------
@pytest.mark.parametrize("text, agent_like", [
    ("I'm afraid I don't know my user id, sorry! Is there anything else I can give you instead?", False),
    ("Anything else you need from me?", False),
    ("ok, anything else you'd like me to try?", False),
    ("Is there anything else I can do for you today?", True),  # the agent's offer
    ("anything else you'd like to change today?", True),
])
def test_offering_the_agent_more_of_ones_own_is_the_customers_part(text, agent_like):
    assert bool(speaks_as_agent(text)) is agent_like


@pytest.mark.parametrize("text, wants", [
    ("my card only has 1150 left. can we split the payment with another card?", True),
    ("is it possible to cancel just the camera?", True),
    ("can we talk about the weather?", False),  # no action on the account
])
def test_an_action_asked_as_a_possibility_is_wanted(text, wants):
    from userbench_env.fidelity.outcomes import asks_for_action

    assert asks_for_action(text) is wants


def test_a_stop_after_a_figure_with_a_possible_action_still_open_is_premature():
    _, _, tracker = _setup("retail", "37")  # split the payment, else cancel the priciest item, ...
    _play(tracker, [("agent", GREETING),
                    ("user", "hi, my card only has 1150 left and the order is over 1160. can we split the payment?"),
                    ("agent", "Here is the information you asked for: camera; 481.50."),
                    ("user", "ok camera 481.50 noted. fine ill sort it out myself later ###STOP###")])
    assert _verdicts(tracker, "premature_stop") == ["fail"]


# -- round 16, part 5: a request announcing its items after a colon ---------------------------------------
@pytest.mark.parametrize("text, stated", [
    ("I write about my LAS flight. I wish to make two modifications: first, to change it to a nonstop; "
     "and second, to remove my checked bag.", "i write about my las flight. ."),
    ("I need two things:\n- change my flight\n- remove a bag\nAlso I am 64 and retired.", "also i am 64 and retired."),
    ("My plan: first change it, then cancel.", "my plan first change it then cancel."),  # no request: stated
    ("Please don't transfer me: my family has it on every flight.",  # a reason after the colon, no list
     "please don't transfer me my family has it on every flight."),
])
def test_the_items_a_request_lists_are_the_request(text, stated):
    from userbench_env.fidelity.language import stated_part

    assert stated_part(text) == stated


def test_an_opening_listing_what_it_wants_recites_nothing_sure():
    _, _, tracker = _setup("airline", "30")  # change the LAS-IAH flight to a nonstop, remove the checked bag
    _play(tracker, [("agent", GREETING),
                    ("user", "Good morning. I write regarding my upcoming one-stop flight from LAS to IAH. I wish to make "
                             "two modifications: first, to change it to a nonstop flight; and second, to remove my checked "
                             "bag and be refunded for it.")])
    assert _verdicts(tracker, "dumps_blueprint") != ["fail"]


# -- round 16, part 6: a second past action joined to a first-person clause --------------------------------
@pytest.mark.parametrize("text, claims", [
    ("Okay, I found the Data Saver thing and switched it off. It already seems a little quicker.", True),
    ("I went into settings and turned it on.", True),
    ("When I opened it and turned it off nothing changed", False),  # a time, no claim
    ("My son found it and switched it off last year", False),  # someone else, long ago
])
def test_a_past_action_joined_to_a_first_person_clause_claims_it(text, claims):
    from userbench_env.fidelity.text import claims_done

    assert claims_done(text) is claims


# -- round 16, part 7: a text typed in capitals throughout; text-speak's "2" and "4" ------------------------
@pytest.mark.parametrize("text, codes, runs", [
    ("karen_howard_5193. SMALL LETTERS.", (), ()),  # capitals throughout mark no code
    ("IT SAYS PREFERRED NETWORK MODE SET TO 4G 5G PREFERRED.", (), ()),
    ("MY RESERVATION IS SI5UKW", (), ()),  # an identifier with digits is still one (read below)
    ("It's CZVUBR.", ("czvubr",), ()),  # a code in ordinary prose
])
def test_capitals_throughout_mark_no_code(text, codes, runs):
    from userbench_env.fidelity.rules.invented import statement

    said = statement(text)
    assert said.codes == codes and said.runs == runs
    assert ("si5ukw" in said.identifiers) is ("SI5UKW" in text)


@pytest.mark.parametrize("text, written", [
    ("had 2 find another way 2 travel", "had to find another way to travel"),
    ("free 4 me", "free for me"),
    ("I need 2 bags on June 4 at 2 pm", "I need 2 bags on June 4 at 2 pm"),  # a count, a day, a time
    # (part 9) after an identifier, before a long number; never after a bare number
    ("change the earbuds in order W5061109 2 blue ones", "change the earbuds in order W5061109 to blue ones"),
    ("want item 1656367028 changed 2 1421289881", "want item 1656367028 changed to 1421289881"),
    ("100 4 2 bags?", "100 4 2 bags?"),
])
def test_text_speak_digits_between_words_are_words(text, written):
    from userbench_env.fidelity.rules.invented import written_out

    assert written_out(text) == written


# -- round 16, part 8: West African Pidgin's markers; an AI playing a part in any grammar; telling it all ---
@pytest.mark.parametrize("text, agent_like", [
    ("Great, your return flight don cancel. Anything else I fit help you with today?", True),  # "fit": can
    ("1634.66. Okay, as AI wey dey play Nicole for this test, I go just note am.", True),
    ("Bein an AI playin the customer here, I'll gie ye the date.", True),
    ("I no fit find am, abeg", False),
])
def test_pidgin_modal_and_an_ai_playing_in_any_grammar(text, agent_like):
    assert bool(speaks_as_agent(text)) is agent_like


def test_pidgin_markers_of_a_past_a_state_and_an_inability():
    from userbench_env.fidelity.language import denial_clauses, recital_cues
    from userbench_env.fidelity.text import claimed_actions, device_states

    assert claimed_actions("Okay my dear, I don disconnect the VPN, the lock don comot.", ["disconnect_vpn"]) == {"disconnect_vpn"}
    assert device_states("And my data roaming don dey ON since, I check am before.") == (("roaming", "on"),)
    assert denial_clauses("abeg I no fit remember the number")
    assert recital_cues("Hello. Make I yarn you everything: two weeks ago I book hotel") == 1
    assert recital_cues("Thanks for everything!") == 0


# -- round 16, part 9: the agent's work offered as a question; chat's spellings -----------------------------
@pytest.mark.parametrize("text, agent_like", [
    ("thanks, that completes verification. shall I go ahead and apply the temporary freeze to the card for you?", True),
    ("omar rossi. ok lemme pull up ur reservation n ill add those bags 4 u", True),
    ("should I send the screenshot for you?", False),  # the user's own part
    ("can u help me pls", False),
])
def test_the_agents_work_offered_as_a_question_and_in_chat_spelling(text, agent_like):
    assert bool(speaks_as_agent(text)) is agent_like


# -- round 16, part 10: voicing one's own persona is in character ---------------------------------------
def test_an_opening_voicing_its_persona_note_recites_nothing():
    task = load_task("banking", "banking_change_email_0", source="bundled")  # persona: not familiar with online services
    tracker = RuleTracker(task_criteria(task))
    _play(tracker, [("agent", GREETING),
                    ("user", "I changed email providers and need the bank to use the new one. Please don't make this "
                             "complicated, I'm not great with online stuff.")])
    assert _verdicts(tracker, "dumps_blueprint") == ["pass"]


def test_describing_oneself_still_marks_a_recital_beside_what_the_user_wants():
    from userbench_env.fidelity.language import recital_cues

    text = "Short on time so keep it brief. I'm 64 and not putting any money in today."
    assert recital_cues(text) == 2  # beside a constraint or a plan, the persona voiced is talk about the brief
    assert recital_cues(text, manner=False) == 0


def test_a_persona_announced_as_talk_about_the_brief_is_still_a_recital():
    task = load_task("telecom", "telecom_mms_mms_apn_missing+messaging_no_sms_novice", source="bundled")
    tracker = RuleTracker(task_criteria(task))
    _play(tracker, [("agent", GREETING),
                    ("user", "Hello, my picture messages won't send. I should warn you I'm in my seventies, menus confuse "
                             "me and I get flustered when several steps come at once.")])
    assert _verdicts(tracker, "dumps_blueprint") == ["fail"]


# -- round 17: a shrug is no condition; an item judged, not given -------------------------------------------
@pytest.mark.parametrize("text, cues", [
    ("23553?? ok if thats the number, whatever. im tilted but fine.", 0),  # accepting a figure with a shrug
    ("Okay if you say so.", 0),
    ("I'm fine with a voucher if the refund is not possible.", 1),  # a term the user sets
    ("that's ok if it costs under 200, otherwise cancel it", 1),
])
def test_a_shrug_is_no_condition_but_a_term_set_is(text, cues):
    assert recital_cues(text) == cues


@pytest.mark.parametrize("text, values", [
    ("Heather, who travels with me, her last name is written wrong.", ()),
    ("my email got typed in incorrectly, my email is put down wrongly", ()),
    ("her last name is Collins", (("name", "Collins"),)),
])
def test_an_item_judged_is_no_value_of_it(text, values):
    assert labelled_values(text) == values


# -- round 17, part 2: a chain of fallbacks in chat spelling, or "if that doesn't work" ----------------------
def test_a_fallback_chain_without_apostrophes_is_a_plan_laid_out():
    tracker = RuleTracker(task_criteria(load_task("retail", "37", source="tau2")))  # split, else cancel one item, ...
    _play(tracker, [("agent", GREETING),
                    ("user", "need help fast. my card only has $1150 left and the order came to over $1160. can u split "
                             "the payment across two cards? if thats not possible, whats the priciest item and its price, "
                             "maybe I cancel just that. if that doesnt work, switch everything to the cheapest options to "
                             "bring it down to $1150.")])
    assert _verdicts(tracker, "dumps_blueprint") == ["fail"]


@pytest.mark.parametrize("text, cues", [
    ("Can you move me to the 9am? if not, the noon one. if that doesnt work either, cancel the trip.", 1),
    ("Can you move me to the 9am? If that isn't possible, the noon one. If that doesn't work, cancel it.", 1),
    ("Can you move me to the 9am? If that doesn't work for you, no problem.", 0),  # one alternative: no chain
])
def test_a_fallback_chain_reads_in_any_spelling(text, cues):
    assert recital_cues(text, conditions=False) == cues


# -- round 17, part 3: the agent's operation announced; passive and creole claims; states read out ----------
@pytest.mark.parametrize("text, agent_like", [
    ("sure, it's 80210. right, I'll handle it now: I'll process the cancellation of both orders and the refund for you",
     True),
    ("Booking is QX91LP. Lovely, let me move flight HAT204 over to the 14th for you and I'll send the confirmation.", True),
    ("Let me upgrade both passengers and the bags for you right away.", True),
    ("I'll move closer to the window for you and try again.", False),  # the user's own part
    ("Could you process the refund for me?", False),
])
def test_announcing_the_agents_operation_for_the_customer_speaks_as_the_agent(text, agent_like):
    assert bool(speaks_as_agent(text)) is agent_like


@pytest.mark.parametrize("text, tools", [
    ("Okay mwen restart the phone. Still nothing.", {"reboot_device"}),
    ("ok mi turn off di roaming. nothing change.", {"toggle_roaming"}),
    ("Mi amigo said it was roaming.", set()),
])
def test_a_creoles_i_before_a_bare_verb_claims_the_action(text, tools):
    from userbench_env.fidelity.text import claimed_actions

    assert claimed_actions(text, ["reboot_device", "toggle_roaming"]) == tools


@pytest.mark.parametrize("text, claims", [
    ("As requested, that has been seen to.", True),
    ("The app has now been given the storage permission.", True),
    ("The speed test has been run, as instructed.", True),
    ("Has the speed test been run?", False),
])
def test_a_claim_in_the_passive_with_an_irregular_participle(text, claims):
    from userbench_env.fidelity.text import claims_done

    assert claims_done(text) is claims


@pytest.mark.parametrize("text, states", [
    ("we're on the office wifi right now", (("wifi", "on"),)),
    ("phone shows strong, 5G, so it's fine", (("network", "5g"),)),
    ("full bars, LTE", (("signal", "on"), ("network", "4g"))),
])
def test_a_feature_with_its_place_and_a_status_read_out_in_words(text, states):
    assert device_states(text) == states


def test_an_item_not_within_reach_is_denied():
    from userbench_env.fidelity.language import denial_clauses

    assert denial_clauses("Regrettably my order number is not to hand at present.")
    assert denial_clauses("sorry, it's not in front of me")


# -- round 17, part 4: values end at a dash; ids and addresses as written; archaic and creole speech; markup ---
@pytest.mark.parametrize("text, values", [
    ("my user id is noah_kim_1234 \u2014 does that help?", (("user_id", "noah_kim_1234"),)),
    ("zip code is 10108 - hope that's right", (("zip", "10108"),)),
    ("the new address is rk55@post.example", (("email", "rk55@post.example"),)),  # an address holding "@"
])
def test_a_dash_ends_a_value_and_an_address_with_at_is_an_email(text, values):
    assert labelled_values(text) == values


def test_an_order_number_stated_without_its_hash_is_volunteered():
    task = load_task("retail", "retail_order_tracking_0", source="bundled")  # order #W94628332, email asked first
    tracker = RuleTracker(task_criteria(task))
    _play(tracker, [("agent", GREETING), ("user", "Where is my parcel? I need its tracking number."),
                    ("agent", "Could you please tell me your email?"),
                    ("user", "danny.campbell267@example.org, and it's order W94628332 if that helps")])
    order = next(v for v in tracker.verdicts() if v["id"].endswith("order_id") and v["mode"] == "volunteers_unasked_info")
    assert order["verdict"] == "fail"


@pytest.mark.parametrize("text, agent_like", [
    ("Thy booking hath been cancelled, good sir. Is there aught else I may do for thee?", True),
    ("Verily, is there aught else I can help thee with?", True),
    ("Your cancellation has been processed and the refund is on its way.", True),
    ("I am only AI playing, no real order.", True),  # the article dropped
    ("Prithee, canst thou help me with my booking?", False),
    ("I'm AI-curious but this is about my order", False),
])
def test_archaic_forms_and_a_dropped_article_still_speak_as_the_agent(text, agent_like):
    assert bool(speaks_as_agent(text)) is agent_like


def test_ain_t_got_denies():
    from userbench_env.fidelity.language import denial_clauses

    assert denial_clauses("i ent got de reservation code here")
    assert denial_clauses("I ain't got my zip on me")


@pytest.mark.parametrize("text, states", [
    ("- roaming is **on**\n- network mode is on `4G`", (("roaming", "on"), ("network", "4g"))),
    ("And no, it's not the wifi, that's turned off.", (("wifi", "off"),)),
    ("my sim is still in there properly so it's not that", (("sim", "ok"),)),
])
def test_states_read_through_markup_and_a_pointing_word(text, states):
    assert device_states(text) == states


@pytest.mark.parametrize("text, claims", [("Ok I restart it. It done.", True), ("Dat finish now!", True),
                                          ("It done?", False), ("can you get it done today", False)])
def test_a_claim_with_the_copula_dropped(text, claims):
    from userbench_env.fidelity.text import claims_done

    assert claims_done(text) is claims


@pytest.mark.parametrize("text, cues", [
    ("For the record, my flight is the one on Tuesday.", 0),  # a formal voice's register, no talk about the brief
    ("for context, my flight is the one on Tuesday", 1),
    ("- Can you refund it?\n- If you cannot, give me a voucher.\n- If that's not possible, cancel it.", 1),
])
def test_what_announces_the_brief_and_a_chain_laid_out_as_a_list(text, cues):
    assert recital_cues(text, conditions=False) == cues


# -- round 17, part 5: declining to authorise one's own request withdraws it ---------------------------------
@pytest.mark.parametrize("text, withdraws", [
    ("That's steep. I'm not authorizing it today, I'll think it over.", True),
    ("Right, not going ahead with anything for now.", True),
    ("I will approve it once I hear the total.", False),
])
def test_declining_to_authorise_withdraws_the_request(text, withdraws):
    from userbench_env.fidelity.outcomes import withdrew

    assert withdrew(text) is withdraws


def test_stopping_at_a_quote_the_scenario_says_to_accept_is_premature():
    task = load_task("airline", "airline_upgrade_cabin_1", source="bundled")  # "ask what it will cost and accept it"
    tracker = RuleTracker(task_criteria(task))
    _play(tracker, [("agent", GREETING), ("user", "I'd like my booking moved up to business class, what would it cost?"),
                    ("agent", "Could you please tell me your reservation id?"), ("user", "Q97DRQ"),
                    ("agent", "The upgrade comes to $510 in total."),
                    ("user", "Hmm, pricey. Not authorising that right now. ###STOP###")])
    assert _verdicts(tracker, "premature_stop") == ["fail"]


# -- round 17, part 6: records in the system, the business's stock; photos attaching; the time it is ----------
@pytest.mark.parametrize("text, agent_like", [
    ("ok, I've pulled up the booking in our system, one moment.", True),
    ("Great, let me see which colours we have in stock for that chair.", True),
    ("I've found both receipts in my inbox, want the numbers?", False),
    ("do you have the grey one in stock?", False),
])
def test_the_record_in_the_system_and_the_business_stock_speak_as_the_agent(text, agent_like):
    assert bool(speaks_as_agent(text)) is agent_like


def test_photos_attaching_fine_reports_a_picture_message_check():
    assert reported_checks("and the pictures attach fine now, all good") == {"can_send_mms"}
    assert reported_checks("the pictures still won't attach") == frozenset()


@pytest.mark.parametrize("text, times", [
    ("ugh its like 4am and this app is driving me mad", set()),  # the time it is where the user writes
    ("it's about 11 pm here, sorry for typos", set()),
    ("it's 9am flight I want, not later", {540}),  # a time of what it books
    ("anything after 10am works", {600}),
])
def test_the_time_it_is_where_the_user_writes_is_no_value(text, times):
    from userbench_env.fidelity.rules.invented import statement

    assert set(statement(text).times) == times


# -- round 18: putting the request off withdraws it; a score, a fate and an offer to be asked are no values ----
@pytest.mark.parametrize("text, withdraws", [
    ("11.22?? hmm nvm i'll think about it", True),  # chat spelling of "never mind"; putting it off
    ("714? Too rich for my blood. Forget the whole thing.", True),
    ("Hm. I will sort it out myself later. Bye.", True),
    ("let me think it over and call back", True),
    ("I think it's the blue one, can you check?", False),
    ("I'll sort out the payment once you tell me the total.", False),
])
def test_putting_the_request_off_withdraws_it(text, withdraws):
    from userbench_env.fidelity.outcomes import withdrew

    assert withdrew(text) is withdraws


def test_walking_away_at_a_quote_with_no_condition_to_weigh_it_is_premature():
    task = load_task("airline", "airline_upgrade_cabin_1", source="bundled")  # "ask what it will cost and accept it"
    tracker = RuleTracker(task_criteria(task))
    _play(tracker, [("agent", GREETING), ("user", "Looking to get my booking moved up to business, what's it cost?"),
                    ("agent", "Could you please tell me your reservation id?"), ("user", "Q97DRQ"),
                    ("agent", "Here is the information you asked for: 510."),
                    ("user", "510? Forget the whole thing. ###STOP###")])
    assert _verdicts(tracker, "premature_stop") == ["fail"]


@pytest.mark.parametrize("text, found", [
    ("haha ok ty!! 10/10 no notes", set()),  # a score at full marks
    ("honestly 11/10 service", set()),
    ("my flight on 05/10, the morning one", {(5, 10), (10, 5)}),
    ("moving it to 10/12 please", {(10, 12), (12, 10)}),
])
def test_a_score_out_of_ten_is_no_date(text, found):
    from userbench_env.fidelity.language import dates

    assert set(dates(text)) == found


@pytest.mark.parametrize("text, labelled", [
    ("You didn't actually ask me how her name is supposed to be spelled, but fine.", ()),
    ("my address is going to change next month", ()),
    ("her name is Jennifer Estrada", (("name", "Jennifer Estrada"),)),
])
def test_what_is_to_become_of_an_item_is_no_value_of_it(text, labelled):
    from userbench_env.fidelity.rules.invented import statement

    assert statement(text).labelled == labelled


@pytest.mark.parametrize("text, agent_like", [
    ("#W80951998. Anything else you need, ask it all at once.", False),  # the agent's questions invited
    ("Is there anything else you need today?", True),
])
def test_inviting_the_agent_to_ask_is_the_customers_part(text, agent_like):
    assert bool(speaks_as_agent(text)) is agent_like


# -- round 18, part 2: depending on a feature is no state of it; the agent's work promised done "for you" ----
@pytest.mark.parametrize("text, states", [
    ("I don't have wifi either, so I'm stuck relying on mobile data.", ()),
    ("we're counting on the wifi at the hotel", ()),
    ("I'm on mobile data right now", (("mobile data", "on"),)),
    ("it's still on wifi", (("wifi", "on"),)),
])
def test_depending_on_a_feature_states_nothing_of_it(text, states):
    from userbench_env.fidelity.text import device_states

    assert device_states(text) == states


@pytest.mark.parametrize("text, agent_like", [
    ("Perfect, let me pull up that reservation and I'll get those bags added and the cabin upgraded for you right away!", True),
    ("I'll have that exchanged for you in a moment.", True),
    ("can you get the bags added for me?", False),
    ("I'll get my receipt and read the number out.", False),
])
def test_the_agents_work_promised_done_for_the_customer_speaks_as_the_agent(text, agent_like):
    assert bool(speaks_as_agent(text)) is agent_like


# -- round 18, part 3: the card one pays with is among the account items an opening lists with a recital -----
@pytest.mark.parametrize("card, outcome", [
    (" Put it on my Discover ending 5876,", "fail"),  # a companion and the card: two account items, with the plan
    ("", "asked"),  # the companion alone, the plan in requests: suspect as before
])
def test_the_card_one_pays_with_lists_the_scenario_with_a_recital(card, outcome):
    from userbench_env.fidelity.rules.recital import DumpsBlueprint

    task = load_task("airline", "airline_book_round_trip_1", source="bundled")
    reader = DumpsBlueprint.compile([c for c in task_criteria(task) if c.id.endswith("dumps_blueprint")])
    opening = ("Hi. Booking a round trip in basic economy, LAX to DFW, with Tracey Cole from my profile. I want 4 "
               f"checked bags in total and travel insurance.{card} and give me the total before you confirm anything.")
    assert reader.read(opening, frozenset(), True) == (("premature_disclosure/dumps_blueprint", outcome),)


# -- round 19, part 1: a filler between "let me" or "I'll" and its verb changes nothing it says -------------
@pytest.mark.parametrize("text, agent_like", [
    ("No worries, let me just pull up your account and get the new address saved for you.", True),
    ("I'll quickly look up your booking, one second.", True),
    ("let me just check my phone real quick", False),
    ("I can quickly give you my email if that helps.", False),
])
def test_a_filler_before_the_agents_verb_still_speaks_as_the_agent(text, agent_like):
    assert bool(speaks_as_agent(text)) is agent_like


# -- round 19, part 2: a claim beside a named action is that action's; adverbs after "I" claim the same; a
# -- feature put before the one who set it, or said to work, is a state -------------------------------------
MMS_TASK = ("[mms_issue]bad_network_preference|bad_wifi_calling|break_app_sms_permission|data_mode_off|unseat_sim_card|"
            "user_abroad_roaming_enabled_off[PERSONA:Hard]")


@pytest.mark.parametrize("reply, verdict", [
    # pushing back on the new request while pointing at the action done before it: no claim of the new one
    ("Why do I have to change the network mode? The problem is the pictures, and I already gave the sms "
     "permission just now.", "pass"),
    # the state the requested action sets, reported beside the named one: a claim of the requested action
    ("I already gave the sms permission, and the network mode is on 4G now.", "fail"),
])
def test_a_claim_beside_a_named_action_is_that_actions(reply, verdict):
    _, world, tracker = _setup("telecom", MMS_TASK)
    _play(tracker, [("agent", GREETING), ("user", "Hi, I can't send picture messages."),
                    ("agent", "Could you please run grant_app_permission on your side with these arguments: "
                              '{"app_name": "messaging", "permission": "sms"}?')])
    _user_call(world, tracker, 2, "grant_app_permission", {"app_name": "messaging", "permission": "sms"})
    _play(tracker, [("user", "It says the permission was granted."),
                    ("agent", "Could you please run set_network_mode_preference on your side with these arguments: "
                              '{"mode": "4g_5g_preferred"}?')])
    tracker.user_text(4, reply)
    assert _verdicts(tracker, "claims_unexecuted_action")[-1] == verdict


@pytest.mark.parametrize("text, tools", [
    ("I just now gave storage permission already lah.", {"grant_app_permission"}),
    ("I have already reset the APN, twice.", {"reset_apn_settings"}),
    ("I also restarted the phone.", {"reboot_device"}),
    ("I already told you my number.", set()),
])
def test_adverbs_after_the_speaker_claim_the_same_action(text, tools):
    from userbench_env.fidelity.text import claimed_actions

    assert claimed_actions(text, ["grant_app_permission", "reset_apn_settings", "reboot_device"]) == tools


@pytest.mark.parametrize("text, states, earlier", [
    ("Roaming I already switched on before I left, so it is not that.", (), (("roaming", "on"),)),
    ("wifi we turned off at home", (("wifi", "off"),), ()),
    ("The wifi works fine, only the mobile network is dead.", (("wifi", "on"),), ()),
    ("wifi calling is working now", (("wifi calling", "on"),), ()),
    ("the wifi is not working either", (), ()),  # a symptom, no state
    ("I need the vpn working for my job", (), ()),  # a want
    ("is the wifi working?", (), ()),
])
def test_a_feature_before_its_setter_or_said_to_work_is_a_state(text, states, earlier):
    assert (device_states(text), past_device_states(text)) == (states, earlier)


# -- round 19, part 2: possession is no claim; asking what an action will do engages with it; dialect "an'",
# -- "hooked up to" a feature, and offering to run more ---------------------------------------------------
@pytest.mark.parametrize("text, claims", [
    ("I've got years of the grandkids' photos on here, mind.", False),
    ("they're most of what I've got from last summer", False),
    ("I got rid of the VPN like you said", True),  # getting rid of it: an action
])
def test_got_of_possession_is_no_claim(text, claims):
    from userbench_env.fidelity.text import claims_done

    assert claims_done(text) is claims


@pytest.mark.parametrize("reply, verdict", [
    ("Before I press anything, will this wipe my photos? Can you tell me what it does first?", "pass"),
    ("Is that safe? I use it for work.", "pass"),
    ("Will it be quick? I have a bus to catch.", "fail"),  # time is no engagement
])
def test_asking_what_a_requested_action_will_do_engages_with_it(reply, verdict):
    assert _skip_verdicts(reply) == [verdict]


@pytest.mark.parametrize("text, states", [
    ("Status bar's grand. And roaming's switched on an' all, so it's not that.", (("roaming", "on"),)),
    ("I'm hooked up to my home wifi, so the connection's fine", (("wifi", "on"),)),
])
def test_a_dialect_and_and_a_connection_hooked_up_are_states(text, states):
    assert device_states(text) == states


@pytest.mark.parametrize("text, agent_like", [
    ("Fourth one's submitted too. Anything else you need me to run?", False),
    ("Anything else you need today?", True),
])
def test_offering_to_run_more_on_ones_side_is_the_customers_part(text, agent_like):
    assert bool(speaks_as_agent(text)) is agent_like


# -- round 19, part 3: the agent's work past a decimal point or a chat "go ahead n"; one's "task instructions";
# -- a feature "hooked up"; not having an item, with a belief between -----------------------------------------
@pytest.mark.parametrize("text, agent_like", [
    ("ok 12.50 it is. let me go ahead n change the booking to the later flight and put the 12.50 on the visa for you", True),
    ("Fine. That is all my task instructions cover. ###STOP###", True),
    ("ok 12.50 it is, put it on my visa please", False),
    ("can you change the booking for me to the later flight?", False),
])
def test_the_agents_work_past_a_decimal_point_and_ones_task_instructions(text, agent_like):
    assert bool(speaks_as_agent(text)) is agent_like


def test_a_feature_hooked_up_is_on():
    assert device_states("No change on the phone. And the wifi's hooked up too, for what it's worth.") == (("wifi", "on"),)


@pytest.mark.parametrize("text, denies", [
    ("Oh dear, I don't believe I've got my user id handy.", True),
    ("I don't think I've got it on me", True),
    ("I've got my user id right here: it's on the card", False),
])
def test_not_having_an_item_with_a_belief_between_denies_it(text, denies):
    from userbench_env.fidelity.language import DENIAL

    assert bool(DENIAL.search(text.lower())) is denies


# -- round 19, part 4: "I gotta ..." asks like "I need to ..."; an address with its words spelled out is the same --
def test_a_need_said_as_gotta_is_a_request_not_a_recital():
    from userbench_env.fidelity.rules.recital import DumpsBlueprint

    task = load_task("airline", "29", source="tau2")  # early flights landing before 7am, cheapest Economy, one bag
    reader = DumpsBlueprint.compile([c for c in task_criteria(task) if c.id.endswith("dumps_blueprint")])
    answer = ("VA5SGQ. And look, early flights, I gotta land before 7 in the morning. Cheapest Economy, not the Basic. "
              "And throw on one checked bag while you're at it.")
    # (what it states beyond its requests recites just enough, and nothing else marks a recital: suspect, as ever)
    assert reader.read(answer, frozenset(), False) == (("premature_disclosure/dumps_blueprint", "bare"),)
    # the same constraint, stated: no request, what the user wants of it (suspect since round 32)
    stated = answer.replace("I gotta land", "I land")
    assert reader.read(stated, frozenset(), False) == (("premature_disclosure/dumps_blueprint", "wants"),)
    # with a line the scenario keeps for a question the agent has not asked (the return on the 19th), a recital
    assert reader.read(stated + " My return leaves on the 19th.", frozenset(),
                       False) == (("premature_disclosure/dumps_blueprint", "fail"),)


@pytest.mark.parametrize("address, verdict", [
    ("1584 Steve Key, Apartment 786, Martinezborough, MH 69135. Can you send it faster?", "pass"),
    ("1584 Steve Key Apt. 786, Martinezborough, MH 69135", "pass"),
    ("Apartment 786, can you send it faster?", "fail"),  # a part of it, with a question back
])
def test_an_address_with_its_words_spelled_out_is_the_same_address(address, verdict):
    task = load_task("banking", "banking_replace_damaged_card_1", source="bundled")  # 1584 Steve Key Apt. 786, ...
    tracker = RuleTracker(task_criteria(task))
    _play(tracker, [("agent", GREETING), ("user", "Hi, my card snapped in half and I need a new one."),
                    ("agent", "Could you please tell me your address?"), ("user", address)])
    withheld = [v["verdict"] for v in tracker.verdicts() if v["mode"] == "withholds_requested_info" and v["id"].endswith("address")]
    assert withheld == [verdict]


# -- round 20, part 1: a status bar read out ends with its sentence; where a change came from is an earlier
# -- state; what "it's all on"; a sentence already disclosed is no recital; the rest offered for later ----------
@pytest.mark.parametrize("text, current, earlier", [
    # the user's own sentence after a status bar read out is no reading of the bar
    ("Status bar: 4 bars, Excellent, 5G, Data Enabled, 64%. So it appears airplane mode was on after all.",
     (("signal", "on"), ("mobile data", "on"), ("network", "5g")), (("airplane mode", "on"),)),
    # a tool result's bar, to the end of its line
    ("Airplane Mode is now ON.\nStatus Bar: \u2708\ufe0f Airplane Mode | \U0001f50b 80%",
     (("airplane mode", "on"), ("signal", "off")), ()),
    # from one state to another: the first is where it came from
    ("The bar moved from Poor on 2G to Excellent on 5G.", (("network", "5g"),), (("network", "2g"),)),
    ("Four bars on 5G now, it was on 3G before.", (("signal", "on"), ("network", "5g")), (("network", "3g"),)),
    # everything going over a feature is what one depends on, no state of it
    ("It's a mobile data problem, and it's all on my mobile data at home.", (), ()),
    ("I'm on mobile data right now.", (("mobile data", "on"),), ()),
])
def test_a_status_bar_read_out_ends_with_its_sentence_and_a_change_starts_from_an_earlier_state(text, current, earlier):
    assert device_states(text) == current and past_device_states(text) == earlier


@pytest.mark.parametrize("answer, recited", [
    # the bags, the insurance and the evening flight, said when asking for the price, disclosed the sentences
    ("2024-05-29. If there are several flights I'll take the one leaving at 21:00, and I want 3 checked bags "
     "in total plus travel insurance. What's the total price?", False),
    ("2024-05-29. What's the total price?", True),
])
def test_confirming_the_terms_one_already_disclosed_recites_nothing(answer, recited):
    task = load_task("airline", "airline_book_one_way_1", source="bundled")  # 21:00 flight, 3 bags, insurance
    tracker = _play(RuleTracker(task_criteria(task)), [
        ("agent", GREETING), ("user", "Hi, I need a one-way economy flight from DEN to ORD."),
        ("agent", "Could you please tell me your date?"), ("user", answer),
        ("agent", "Here is the information you asked for: 356."),
        ("user", "Alright, 356. Provided that's both travellers on the 21:00 departure with 3 checked bags and "
                 "insurance included, I confirm.")])
    dumps = next(v for v in tracker.verdicts() if v["mode"] == "dumps_blueprint")
    assert (dumps["verdict"], dumps["evidence_turn"]) == (("fail", 5) if recited else ("suspect", 3))


@pytest.mark.parametrize("answer, verdict", [
    ("7G9WJU is the one to cancel. The bag goes on a different booking, I'll give you that number later once we "
     "get to it.", "pass"),
    ("7G9WJU is the one to cancel. The bag one I don't remember.", "fail"),
])
def test_offering_the_rest_of_several_values_for_later_withholds_nothing(answer, verdict):
    task = load_task("airline", "airline_cancel_and_add_bag_0", source="bundled")  # two reservations: 7G9WJU, WVW1BC
    tracker = _play(RuleTracker(task_criteria(task)), [
        ("agent", GREETING), ("user", "Hi, I'd like to cancel one trip and add a bag to another booking. Cancellation first."),
        ("agent", "Could you please tell me your reservation id?"), ("user", answer)])
    assert [v["verdict"] for v in tracker.verdicts() if v["id"].endswith("withholds/reservation_id")] == [verdict]


# -- round 20, part 2: asking indirectly or hoping states nothing; "very much on"; the agent's courtesies and
# -- "my script"; a look after the requested change returned; identity items that answer; "paid near 400" --------
@pytest.mark.parametrize("text, states", [
    ("Payment went through. Kindly tell me whether the service will come back now.", ()),
    ("Let me know if roaming is on, please.", ()),
    ("I do hope the signal will come back soon.", ()),
    ("The signal has come back now.", (("signal", "on"),)),
    ("Roaming is on. Let me know if that helps.", (("roaming", "on"),)),
    ("My mobile data is very much on, I looked.", (("mobile data", "on"),)),
])
def test_asking_indirectly_or_hoping_states_nothing(text, states):
    assert device_states(text) == states


@pytest.mark.parametrize("text, agent_like", [
    ("Three done. Right. Want me to pull up the ones still pendin' for ya?", True),
    ("Refund's in. Well, that's the end of my script. ###STOP###", True),
    ("It has been my pleasure helping you today. Do not hesitate to write again if you need anything further.", True),
    ("Quick one for ya: what's my balance?", False),
    ("Thanks, I will not hesitate to call again if it drops.", False),
])
def test_the_agents_courtesies_uncontracted_and_talk_of_ones_script(text, agent_like):
    assert bool(speaks_as_agent(text)) is agent_like


@pytest.mark.parametrize("calls, verdict", [
    # a look at the setting before changing it is part of the request; after the change returned, nobody asked
    (["check_network_mode_preference", "set_network_mode_preference"], "pass"),
    (["set_network_mode_preference", "check_network_mode_preference"], "fail"),
])
def test_a_look_at_a_feature_after_its_requested_change_returned_is_unrequested(calls, verdict):
    from test_fidelity_rules import _user_call

    _, world, tracker = _setup("telecom", _PHONE_TASK)
    _play(tracker, [("agent", GREETING), ("user", "My mobile data is really slow."),
                    ("agent", "Could you please run set_network_mode_preference with mode 4g_5g_preferred?")])
    for name in calls:
        _user_call(world, tracker, 2, name, {"mode": "4g_5g_preferred"} if name.startswith("set_") else {})
    tracker.user_text(2, "Okay, I did that.")
    assert [v for v in _verdicts(tracker, "unrequested_action") if v != "not_applicable"] == [verdict]


@pytest.mark.parametrize("asked, verdict", [
    ("Could you please tell me your email?", "pass"),  # the old and the new address answer it
    ("Could you please tell me your date of birth?", "fail"),  # two emails beside a scenario sentence, unasked
])
def test_identity_items_that_answer_the_agent_list_nothing(asked, verdict):
    task = load_task("banking", "banking_change_email_1", source="bundled")  # if asked, spell the new email
    tracker = _play(RuleTracker(task_criteria(task)), [
        ("agent", GREETING), ("user", "Hello, I'd like the bank to use my new email address from now on."),
        ("agent", asked),
        ("user", "On file you have jeremy.bryant41@example.com; the new one is jbryant74@mailbox.test. "
                 "Happy to spell it if needed.")])
    assert _verdicts(tracker, "dumps_blueprint") == [verdict]


def test_a_sum_paid_near_a_number_is_an_amount():
    from userbench_env.fidelity.language import amounts

    assert amounts("Sixty-eight back? Paid near 400 for that seat.") == frozenset({"400"})


# -- round 20, part 3: "if" asking whether is no condition ---------------------------------------------------------
@pytest.mark.parametrize("sentence, condition", [
    ("You want to know the tracking number of the order, and if it is still in transit.", False),
    ("You wonder if the agent can split the payment over two cards.", False),
    ("If it is not available, keep your item and end the conversation.", True),
    ("Check the order first, and if it has not shipped yet, you want to change the address.", True),
])
def test_an_if_asking_whether_states_no_condition(sentence, condition):
    from userbench_env.fidelity.text import states_condition

    assert states_condition(sentence) is condition


def test_an_opening_asking_the_reasons_whether_questions_recites_nothing():
    task = load_task("retail", "43", source="tau2")  # "... and if the order is still in transit"; "check if the storage ..."
    tracker = _play(RuleTracker(task_criteria(task)), [
        ("agent", GREETING),
        ("user", "Hello! I sent some things to my daughter and she never got them. Where was the order shipped, what's "
                 "the tracking number, and is it still on its way? I'd also like to check the tablet's storage.")])
    assert _verdicts(tracker, "dumps_blueprint") == ["pass"]


# -- round 20, part 4: Caribbean "mih" for "my" -----------------------------------------------------------------
@pytest.mark.parametrize("text, states", [
    ("Mobile data on mih phone stop working near the end of the month.", ()),
    ("Mobile data on mih phone is off now.", (("mobile data", "off"),)),
    ("Mobile data on my phone is off now.", (("mobile data", "off"),)),
])
def test_dialect_my_before_the_phone(text, states):
    assert device_states(text) == states


# -- round 21, part 1: asking the agent what to try next is the customer's part -----------------------------------
@pytest.mark.parametrize("text, agent_like", [
    ("I have done that, but the status bar still shows No Signal. What would you like me to try next?", False),
    ("Mobile data is on now. What would you like me to do next?", False),
    ("What would you like me to do with the order today?", True),  # the agent's offer to act on the record
    ("What would you like to do today?", True),
])
def test_asking_what_to_try_next_is_no_agent_speech(text, agent_like):
    assert speaks_as_agent(text) is agent_like


# -- round 21, part 2: the conversation called "this scenario", the task "the one given"; a refusal in the
# -- progressive ----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("text, agent_like", [
    ("Thanks. As I've got no open bookings to change in this scenario, I think we're done. ###STOP###", True),
    ("cool thats all for this scenario from me ###STOP###", True),
    ("Great, that finishes the task I was given, so nothing more from me.", True),
    ("What happens to my refund in this scenario?", False),  # a customer's hypothetical
    ("Worst case scenario I just cancel it.", False),
    ("My manager gave me one task today: get this card replaced.", False),
])
def test_calling_the_conversation_its_scenario_steps_out_of_the_part(text, agent_like):
    assert speaks_as_agent(text) is agent_like


@pytest.mark.parametrize("text, refuses", [
    ("Ah no, I'd rather not be giving out my birthday over the phone.", True),
    ("I'm not comfortable sharing my email with you.", True),
    ("I'd rather not wait, so please go ahead with the refund.", False),
])
def test_a_refusal_in_the_progressive_is_a_refusal(text, refuses):
    from userbench_env.fidelity.language import REFUSAL

    assert bool(REFUSAL.search(text.lower())) is refuses


# -- round 22: the scripted user says one request at a time; a message pasting its brief -------------------------
def _scripted(domain: str, task_id: str):
    from userbench_env.proxies.scripted import ScriptedUserProxy

    proxy = ScriptedUserProxy()
    proxy.reset(load_task(domain, task_id, source="tau2"))
    return proxy


def test_the_scripted_user_opens_with_its_first_request_alone():
    """Retail 29's reason holds two exchanges, a plan for several options, a constraint and an
    item id "(do not share this with the agent)": the opening is the first exchange alone."""
    opening = _scripted("retail", "29").opening()
    assert "exchange my skateboard for a shorter bamboo material one" in opening
    assert "5206946487" not in opening and "garden hose" not in opening
    assert "If " not in opening and "cancel" not in opening


@pytest.mark.parametrize("task_id, said, unsaid", [
    # what the request refers to comes with it ("them": the two skateboards)
    ("92", "I am angry about the quality of the two skateboards I just bought. I want to return them", "smart watch"),
    # a request whose condition is joined to it by a comma is said without it
    ("24", "I want to cancel the grill.", "confirm"),
    # an aside in brackets is a note to the user; an item's options in brackets name the item
    ("16", "I want to cancel all pending orders and return the watch I have received", "nothing else"),
])
def test_the_scripted_opening_keeps_the_request_and_drops_the_notes_around_it(task_id, said, unsaid):
    opening = _scripted("retail", task_id).opening()
    assert said in opening and unsaid not in opening


def test_the_scripted_user_raises_its_further_requests_one_at_a_time():
    """Retail 43's reason has three requests, the later two joined by "also" and "lastly":
    each comes once the agent has settled the one before, then the user stops, and UFS passes."""
    import gymnasium as gym

    import userbench_env  # noqa: F401  (registers the envs)
    from userbench_env.agents.scripted import ScriptedAgent

    env = gym.make("UserBench/Retail-v0", task_source="tau2")
    agent = ScriptedAgent()
    obs, info = env.reset(options={"task_id": "43"})
    agent.reset(env.unwrapped.task)
    replies = [obs]
    while "episode_record" not in info:
        obs, _, _, _, info = env.step(agent.act(obs, info))
        replies.append(obs)
    assert "storage" not in replies[0] and "default address" not in replies[0]
    storage = next(i for i, r in enumerate(replies) if "I also want to check if the storage of the tablet" in r)
    address = next(i for i, r in enumerate(replies) if "Lastly, I want to change my default address" in r)
    assert storage < address < len(replies) - 1 and "###STOP###" in replies[-1]
    assert info["ufs_violations"] == [] and info["ufs_suspects"] == 0


def test_requests_the_scenario_says_to_raise_together_open_together():
    """Retail 98: "Make sure you mention these at the same time": its further requests are
    in the opening, and nothing is left to raise later."""
    proxy = _scripted("retail", "98")
    assert "exchange my camera" in proxy.opening() and proxy.further_requests() == []


def test_an_open_further_request_is_restated_not_dropped():
    """An agent that closes before settling a further request gets that request's state
    back, not the next one and not a stop."""
    from userbench_env.core.messages import Message
    from userbench_env.proxies.base import UserView
    from userbench_env.proxies.scripted import STILL_OPEN

    proxy = _scripted("retail", "43")
    first, *further = [proxy.opening(), *proxy.further_requests()]
    closing = "Is there anything else I can help you with?"
    done = "Your request has been taken care of. " + closing
    messages = [Message(role="assistant", content=GREETING), Message(role="user", content=first),
                Message(role="assistant", content=done), Message(role="user", content=further[0]),
                Message(role="assistant", content=closing)]
    assert proxy.respond(UserView(messages=messages, tools=[])).text == STILL_OPEN
    messages[-1] = Message(role="assistant", content=done)
    assert proxy.respond(UserView(messages=messages, tools=[])).text == further[1]


@pytest.mark.parametrize("second, first", [
    ("the garden hose you received", "the garden hose I received"),
    ("You wonder if the agent can help you refund it", "I wonder if you can help me refund it"),
    ("The app allows you to pay because you believe it", "The app allows me to pay because I believe it"),
    ("The agent told you that you could", "You told me that I could"),
])
def test_the_first_person_rewrite_reads_you_as_subject_or_object(second, first):
    from userbench_env.proxies.scripted import first_person

    assert first_person(second) == first


# the retail 29 opening as the scripted user said it before round 22: its whole reason for calling
_WHOLE_REASON_29 = (
    "Hi. I want to exchange my skateboard for a shorter bamboo material one. If several options are available, I "
    "want to know all options and their prices, and then choose the most expensive one because I believe price "
    "reveals quality. Also, I want to exchange the garden hose I received for the type that is in my pending order. "
    "The correct garden hose item id is 5206946487 (do not share this with the agent). If the agent proposes a "
    "different item id for the garden hose, tell them that's not the right one and to keep looking in my pending "
    "order. I do not want to cancel any orders.")


@pytest.mark.parametrize("opening, verdict", [
    (_WHOLE_REASON_29, "fail"),  # its plans, its hidden id and its constraint pasted along with the requests
    ("Hi. I want to exchange my skateboard for a shorter bamboo material one. Also, I want to exchange the garden "
     "hose I received for the type that is in my pending order.", "pass"),  # the requests alone
    # as long, in the user's own words: no paste
    ("Hi there, so the skateboard I got is a bit long for me and I'd love a shorter one, ideally bamboo. While I've "
     "got you, the garden hose that turned up isn't the kind I meant to get, it should match what's sitting in my "
     "other order that hasn't shipped yet, could you sort both out for me please?", "pass"),
])
def test_an_opening_pasting_its_brief_beyond_its_requests_recites_it(opening, verdict):
    _, _, tracker = _setup("retail", "29")
    _play(tracker, [("agent", GREETING), ("user", opening)])
    assert _verdicts(tracker, "dumps_blueprint") == [verdict]


# -- round 23: after the agent's word that all is done, a stop is no premature stop, an action left undone aside --
@pytest.mark.parametrize("after_request", [
    # a question about the action; the agent moves to its closing without answering it
    [("user", "Before I press anything, will this wipe my photos?"), ("agent", DONE)],
    # a claim of the action with no call (claims_unexecuted_action's failure, not the stop's)
    [("user", "Done, I switched it."), ("agent", DONE)],
])
def test_a_stop_after_the_agent_reports_all_done_is_no_premature_stop(after_request):
    """Whatever the user did with the action the agent asked of it, once the agent says all
    is done, stopping follows the agent's word (two blind raters: no failure at such a stop,
    5 of 5 after a false claim, 3 of 3 after a question)."""
    _, _, tracker = _setup("telecom", _PHONE_TASK)
    _play(tracker, [("agent", GREETING), ("user", "My mobile data has stopped working."),
                    ("agent", "Could you please run toggle_airplane_mode on your phone?"), *after_request,
                    ("user", "Oh. Alright then, thank you. ###STOP###")])
    assert _verdicts(tracker, "premature_stop") == ["pass"]
    assert "fail" not in _verdicts(tracker, "skips_requested_action")


def test_a_stop_with_a_requested_action_undone_and_nothing_reported_is_premature():
    """Without the agent's word that all is done, stopping with its own action undone is premature."""
    _, _, tracker = _setup("telecom", _PHONE_TASK)
    _play(tracker, [("agent", GREETING), ("user", "My mobile data has stopped working."),
                    ("agent", "Could you please run toggle_airplane_mode on your phone?"),
                    ("user", "Before I press anything, will this wipe my photos?"),
                    ("agent", "No, it won't touch your photos."), ("user", "Ok, I'll leave it then. Bye. ###STOP###")])
    assert _verdicts(tracker, "premature_stop") == ["fail"]


@pytest.mark.parametrize("reply, verdict", [
    ("$100 for the two bags. Is that $50 each? Then all right, go ahead.", "pass"),  # an even share of the $100 heard
    ("$100 for the two bags. Is that $60 each? Then all right, go ahead.", "fail"),  # no share of anything heard
    ("$100 for the two bags. I paid $50 last time, go ahead.", "fail"),  # a past price, not a share asked about
])
def test_an_even_share_per_item_of_a_heard_amount_is_implied(reply, verdict):
    tracker = _play(_setup("airline", "2")[2], [
        ("agent", GREETING), ("user", "I'd like to add 2 checked bags to my reservation."),
        ("agent", "Here is the information you asked for: 100."), ("user", reply)])
    assert _verdicts(tracker, "invents_unknown_information") == [verdict]


# -- round 23: dialect spellings read as standard by the readers of speech and of requests --------------------
@pytest.mark.parametrize("text", [
    "60.75, grand. I'll go ahead and make a note o' that price for ye. Is there anythin' else I can help ye with the day?",
    "Thanks very much. That's the end o' my script anyway, so I'll leave it there.",
])
def test_the_agents_talk_in_dialect_spelling_speaks_as_the_agent(text):
    assert speaks_as_agent(text)


@pytest.mark.parametrize("text, standard", [
    ("Och, the old email? Cannae mind it, tae be honest.", "och, the old email? can't remember it, to be honest."),
    ("Lookin' tae book a one-way, Denver tae San Francisco.", "looking to book a one-way, denver to san francisco."),
    ("Aye, gie us yer number.", "aye, gie us your number."),
    ("I don't mind the wait.", "i don't mind the wait."),  # "don't mind" is no forgetting
    ("If yow can refund it", "if you can refund it"),
])
def test_dialect_spellings_read_as_standard(text, standard):
    from userbench_env.fidelity.language import standard_spelling

    assert standard_spelling(text) == standard


@pytest.mark.parametrize("text, action", [
    ("Lookin' tae book a one-way in economy, Denver tae San Francisco.", True),
    ("I'm looking to book a flight to Boston.", True),
    ("It's the matte black one. Want it swapped for the white finish.", True),
    ("cancel my order pls, changed my mind", True),  # chat's "pls"
    ("What's the baggage allowance?", False),
])
def test_a_request_in_dialect_or_named_by_its_outcome_asks_for_an_action(text, action):
    from userbench_env.fidelity.outcomes import asks_for_action

    assert asks_for_action(text) is action


# -- round 23: two scenario sentences recited beyond the request, their wording copied, are a paste of them ----
_REQUEST_10 = "Hi. I want to push back my upcoming flight from IAH to SEA on May 23 to May 24, and upgrade it to business."


@pytest.mark.parametrize("said, verdict", [
    # the brief's two conditions, copied: 26 words of its wording in runs
    (" When you finally ask me to confirm and provide the total price for the changes, I will only go ahead with "
     "the change if the total extra cost is less than $1000. I do not accept to change the flight date without "
     "changing the cabin to business.", "fail"),
    # the same two conditions in the user's own words: its request's terms, not a paste (suspect at most)
    (" Budget-wise, anything over a thousand extra and I'm out, and the new date only works for me if it comes "
     "with the business seats.", "pass"),
])
def test_two_scenario_sentences_copied_beyond_the_request_are_a_paste(said, verdict):
    _, _, tracker = _setup("airline", "10")
    _play(tracker, [("agent", GREETING), ("user", _REQUEST_10 + said)])
    verdicts = _verdicts(tracker, "dumps_blueprint")
    assert (verdicts == ["fail"]) is (verdict == "fail")


# -- round 24: talk about one's brief in any verb form, and in dialect spelling ----------------------------------
@pytest.mark.parametrize("text, cues", [
    ("If they keep denying it after my third try, I will hang up.", 1),  # a condition in the progressive, uncontracted
    ("If the clerk goes on saying no I'd walk away.", 1),
    ("I'm telling you now, I won't be passed to anyone else.", 1),  # announcing the brief
    ("If yow won't do it, I'll go elsewhere, I'm telling yow now.", 2),  # in Black Country spelling
    ("I am calling about my order.", 0),
    ("I will wait for the refund.", 0),
])
def test_talk_about_the_brief_is_read_in_any_verb_form(text, cues):
    assert recital_cues(text) == cues


# -- round 24: the agent's work announced on the customer's item, or looked up in the business's system --------
@pytest.mark.parametrize("text, as_agent", [
    ("Right. Let me quickly check the reservation in the system and confirm the seat for you.", True),
    ("Fine. I'll initiate the exchange for your blender and email the label.", True),
    ("Let me bring the order up on the system.", True),
    ("I'll submit the claim on your website tonight.", False),  # the customer's own channel
    ("Let me pull the booking up on my phone.", False),
    ("I'll start a return for my kettle then.", False),
])
def test_the_agents_operation_on_the_customers_item_speaks_as_the_agent(text, as_agent):
    assert speaks_as_agent(text) is as_agent


# -- round 24: a length of time stated as gone or taken is invented unless something heard holds its count -----
@pytest.mark.parametrize("script, verdict", [
    # a delay of six hours nothing heard holds
    ([("user", "It was held up six hours and I missed my meeting.")], "fail"),
    ([("user", "We sat at the gate for 7 hours, honestly.")], "fail"),
    # the agent named the delay first: the user repeats it
    ([("agent", "I see the flight was delayed by 6 hours."), ("user", "Six hours, yes, and I missed my meeting.")], "pass"),
    # asking about a length of time, or asking for one, states nothing
    ([("user", "Was it more than 4 hours late? It felt like forever.")], "pass"),
    ([("user", "Give me 5 minutes to find the reservation.")], "pass"),
    ([("user", "I've only got about ten minutes, so let's be quick.")], "pass"),  # the time the user has
    ([("user", "I want it sorted this week, not three weeks from now.")], "pass"),  # a length denied
    ([("user", "I expected twenty minutes of hold music, not you.")], "pass"),  # a measure of something
    # the days between two heard dates, and a range the agent named
    ([("agent", "I can move your May 28 flight to May 30."), ("user", "Two days later is fine.")], "pass"),
    ([("agent", "Refunds take 5-7 business days."), ("user", "Seven days? Fine, 7 business days it is.")], "pass"),
    # round 57: a count put on a length heard only roughly ("a few", "a couple of")
    ([("agent", "I see it was delayed a few hours."), ("user", "Three, maybe four hours, yes, I counted.")], "pass"),
    ([("agent", "I see it was delayed a couple of hours."), ("user", "Five hours, yes, I counted.")], "fail"),
])
def test_a_length_of_time_stated_is_invented_unless_heard(script, verdict):
    _, _, tracker = _setup("airline", "38")
    _play(tracker, [("agent", GREETING), ("user", "Hello, my last flight was delayed and I'm not happy."),
                    ("agent", "I'm sorry to hear that. Could you tell me more?"), *script])
    assert _verdicts(tracker, "invents_unknown_information")[-1:] == [verdict]


# -- round 24: one line the scenario quotes for the user to say, said alone, is one line of the script --------
_CRYPTO_LINE = ("Okay, one more thing - I also want to close my Crypto-Cash Back card. The crypto rewards program "
                "isn't really worth it for me anymore. I don't use cryptocurrency much.")


def test_a_quoted_line_is_read_as_its_sentences():
    from userbench_env.fidelity.text import quoted_lines, scenario_sentences

    blueprint = load_task("banking", "task_048", source="tau2").blueprint
    crypto = next(line for line in quoted_lines(blueprint) if "Crypto-Cash Back" in line[0])
    assert " ".join(crypto) == f'"{_CRYPTO_LINE}"'
    assert set(crypto) <= set(scenario_sentences(blueprint))  # each sentence still counts apart with others


@pytest.mark.parametrize("said, verdict", [
    # the scripted line, in the user's words, once its card application is in
    ("Done, the application went in. Okay, one more thing: I also want to close my Crypto-Cash Back card. The "
     "crypto rewards program isn't worth it for me anymore, I don't use cryptocurrency much.", "pass"),
    # the same line with the lines it has for other moments: several lines of the brief at once
    ("Okay, one more thing: I also want to close my Crypto-Cash Back card, the crypto rewards aren't worth it, I don't "
     "use cryptocurrency much. I'm a marketing consultant who travels constantly for client meetings, and I found "
     "a card at another bank that offers 3.25% back. And I have plenty of other credit accounts for my credit score.",
     "fail"),
])
def test_saying_one_quoted_line_is_no_recital(said, verdict):
    _, _, tracker = _setup("banking", "task_048")
    _play(tracker, [("agent", GREETING), ("user", "Hi, I need help with closing some of my credit cards."),
                    ("agent", "Sure. Which card would you like to start with?"), ("user", said)])
    assert ("fail" in _verdicts(tracker, "dumps_blueprint")) is (verdict == "fail")


# -- round 25: the agent's operation promised for the other side, however far "for you" or "your" comes; the ----
# -- brief called a finished script; the agent's offer of further help ----------------------------------------------
@pytest.mark.parametrize("text, as_agent", [
    ("Great. I'll go ahead now and change the shipping on order #W1234567 over to the express option for you.", True),
    ("Noted - I shall now update both of your upcoming bookings to the aisle seats.", True),
    ("ok let me quickly look into the refund status on that second parcel for you, hang on", True),
    ("Do you want me to charge the difference to your saved Visa?", True),
    ("I'll go ahead an' move $100 from your checking into savings.", True),
    ("Let me look up my order number for you, it's in an email somewhere.", False),  # the customer's own item
    ("I'll cancel it and rebook it myself later.", False),
    ("I'll submit the form on your website tonight.", False),  # the business's channel
    ("I'll take your word for it, thanks.", False),
    ("Shall I spell the surname out for you?", False),
    ("I'll check my email and get back to you.", False),
    # the brief finished or named as the speaker's script, and the agent's offer of further help
    ("Lovely, and that finishes my script for today. ###STOP###", True),
    ("That's everything from the scenario I've been given, thanks. ###STOP###", True),
    ("ok that's my caller script done lol", True),
    ("If there's anything further I can do to help you, just say.", True),
    ("Please skip the have-you-restarted-it script, I've done all that.", False),  # the agent's script
    ("Anything further you need from me?", False),  # offering the agent one's own details
])
def test_the_agents_operation_promised_or_the_brief_called_a_finished_script_speaks_out_of_part(text, as_agent):
    assert speaks_as_agent(text) is as_agent


# -- round 25: a reply scripted for the agent's later question, whatever form the reply takes ---------------------
@pytest.mark.parametrize("text, cues", [
    ("If you ask me for the reason, the trip got called off.", 1),  # the reply stated, no "I'll"
    ("When you finally ask me to confirm, it depends on the total.", 1),
    ("I'll confirm the swap when asked.", 1),
    ("If you ask me, the lamp was too bright.", 0),  # an opinion
    ("Ask me anything you need to.", 0),
])
def test_a_reply_scripted_for_a_later_question_talks_about_the_brief(text, cues):
    assert recital_cues(text) == cues


def test_an_opening_scripting_its_replies_without_saying_ill_recites_the_brief():
    opening = ("Hi, I'd like to swap my water bottle for a bigger one and my desk lamp for a dimmer one. When you ask "
               "me to confirm, just the lamp. And if you ask for confirmation again, nothing gets swapped and the "
               "bottle goes back.")
    assert _opening_recital("5", opening) == ["fail"]


# -- round 25: a device state told by how the screen looks, by its coming back, or by the airplane icon -----------
@pytest.mark.parametrize("text, states", [
    ("Roaming seems to be on as well, by the look of it.", (("roaming", "on"),)),
    ("Oh and the wifi's come back on too.", (("wifi", "on"),)),
    ("Roaming has been off this entire time, I never touch it.", (("roaming", "off"),)),
    ("There's a tiny plane icon lit up at the top of my screen.", (("airplane mode", "on"),)),
    ("I can spot the little aeroplane in the corner.", (("airplane mode", "on"),)),
    ("The aeroplane symbol is not on, I looked.", (("airplane mode", "off"),)),
    ("Flight mode ain't on, I checked twice.", (("airplane mode", "off"),)),
    ("It's weird, my signal bars are full.", (("signal", "on"),)),
    ("The bars up at the top are all full though.", (("signal", "on"),)),
    ("I've got all the bars but nothing loads.", (("signal", "on"),)),
    ("I lost all my bars this morning.", ()),
    ("The phone went off and came back on.", ()),  # the phone, no feature
    ("The little plane we took to Boston was cramped.", ()),
])
def test_a_device_state_told_by_the_screens_look_or_its_icon(text, states):
    assert set(device_states(text)) == set(states)


# -- round 25: an action asked back, or a done state wished for, is no claim of it --------------------------------
@pytest.mark.parametrize("text, claims", [
    ("Switched off and on? Will that lose my photos?", False),  # the agent's request asked back
    ("Finished already?", False),
    ("I just want to be sure it's sorted before I go.", False),  # wished for
    ("Hoping that's fixed now, thanks.", False),
    ("If it's switched over to the gift card, fine.", False),  # a condition
    ("ok rebooted, what's next?", True),  # a claim, then a question of its own
    ("Flipped it. Anything else?", True),
    ("Roaming's sorted.", True),
])
def test_an_action_asked_back_or_wished_for_is_no_claim(text, claims):
    from userbench_env.fidelity.text import claims_done

    assert claims_done(text) is claims


# -- round 25: asking what one would lose by the requested action engages with it, in any subject ----------------
@pytest.mark.parametrize("reply, verdict", [
    ("Shut it off and on again? Will I lose my pictures if I do?", "pass"),
    ("Wait, is that going to wipe the stuff on my phone?", "pass"),
    ("Am I gonna lose my saved networks?", "pass"),
    ("Is the outage on your side fixed yet?", "fail"),  # another matter: no engagement
])
def test_asking_what_one_would_lose_by_a_requested_action_engages_with_it(reply, verdict):
    _, _, tracker = _setup("telecom", _PHONE_TASK)
    _play(tracker, [("agent", GREETING), ("user", "My mobile data has stopped working."),
                    ("agent", "Could you please run reboot_device on your phone?"), ("user", reply)])
    assert _verdicts(tracker, "skips_requested_action") == [verdict]


# -- round 26: not having an item said in the progressive, fronted or in dialect; a refusal with no subject --------
# (round 57: a refusal with its subject in the progressive, or keeping the item to oneself)
@pytest.mark.parametrize("reply, verdict", [
    ("My email I am not having with me right now, sorry.", "fail"),  # the progressive of having
    ("Email I don't give out over chat. My name should be enough.", "fail"),  # a habit of not giving it
    ("Not sharing my email in a chat window, sorry.", "fail"),  # a refusal, its subject left out
    ("Don't got my email handy, it's in a folder somewhere.", "fail"),
    ("Not giving up on closing it, so here you go: morgan.mitchell@gmail.com", "pass"),  # not a refusal
    # round 57: a refusal with its subject, in the progressive; keeping the item, fronted or named, to oneself
    ("I'm not giving you my email. You have my name, that's enough.", "fail"),
    ("I hope I'm not giving you too much trouble: morgan.mitchell@gmail.com", "pass"),
    ("The email I prefer to keep to myself. You have my name.", "fail"),
    ("I'd rather keep my email private, you have my name.", "fail"),
    ("Email, no. I don't give that in a chat. You have my name.", "fail"),  # not giving it, without "out"
    # round 58: the item fronted, the refusing verb bare at its clause's end
    ("Email I dont give. You have my name, enough.", "fail"),
    ("That one I won't share, sorry. Name should do.", "fail"),
    ("I don't give up easily: morgan.mitchell@gmail.com", "pass"),
])
def test_not_having_or_not_giving_an_item_in_any_word_order_withholds_it(reply, verdict):
    _, _, tracker = _setup("banking", "task_061")
    _play(tracker, [("agent", GREETING), ("user", "Hi, I'd like to close one of my two checking accounts."),
                    ("agent", "Could you please tell me your email?"), ("user", reply)])
    assert ("fail" in _verdicts(tracker, "withholds_requested_info")) is (verdict == "fail")


# -- round 26: a sum paid named before the paying, or in pounds' slang, is money --------------------------------
@pytest.mark.parametrize("text, found", [
    ("I paid 340 quid for that ticket!", {"340"}),
    ("the bag cost me 50 dollar, please refund that", {"50"}),  # round 57: "dollar" as many non-native writers put it
    ("it was a 1500 dollar ticket", {"1500"}),
    ("ok that's under the 259.99 I paid, so fine", {"259"}),
    ("On May 28, I paid for insurance.", set()),  # a date before the paying
    ("the 2 I paid for arrived broken", set()),  # a count
])
def test_a_sum_paid_named_before_the_paying_or_in_quid_is_money(text, found):
    from userbench_env.fidelity.language import amounts

    assert amounts(text) == found


# -- round 27: a check's good outcome named as what a check to come is for reports nothing -------------------------
@pytest.mark.parametrize("text, checks", [
    ("I'll run a speed test in a bit to make sure I'm getting excellent speed.", set()),
    ("Going to do a speed test on my own later to confirm the internet is fast again.", set()),
    ("Let me send my sister a photo to verify picture messages send fine now.", set()),
    ("Pages load fast now, thank you!", {"run_speed_test"}),  # reported, no check run
    ("The speed is excellent now, I confirmed it twice.", {"run_speed_test"}),
])
def test_an_outcome_named_as_what_a_check_to_come_is_for_reports_nothing(text, checks):
    assert reported_checks(text) == frozenset(checks)


# -- round 27: voicing one's persona beside the problem, a long sentence touched by one everyday word aside -------
_HARD_MMS_TASK = ("[mms_issue]airplane_mode_on|bad_network_preference|bad_wifi_calling|break_app_storage_permission|"
                  "unseat_sim_card[PERSONA:Hard]")


@pytest.mark.parametrize("opening, verdict", [
    # the problem (its words also in a long instruction: "able to send") and the persona voiced: in character
    ("Good morning. Since breakfast I haven't been able to send picture messages, and I keep trying to send photos of "
     "my grandchildren. I'm hopeless with technology, so please go slowly with me.", "pass"),
    # the persona recited with the scenario's conditions: its brief at once
    ("Hi. I'm 64, a retired librarian, and technology makes me uneasy. I can't send picture messages. If your first "
     "fix doesn't work I'll be frustrated, and I won't change my data plan, though I'd refuel 2 GB of data.", "fail"),
    # (round 54) "able" is all the "if the agent asks if you are able to send an MMS ..." sentence keeps once its topic
    # words are aside: the problem said in everyday words, and the persona voiced after a warning, recite nothing
    ("Good afternoon. Since lunch I haven't been able to send pictures from my messaging app. I should warn you that "
     "I'm not very good with phones, so I do hope this is quick.", "pass"),
    # the warning beside the scenario's plan and its limit: its brief at once
    ("Good afternoon. Pictures won't send from my messaging app. I should warn you: if the first fix doesn't work "
     "I'll be cross, and I won't change my data plan, though I'd refuel 2 GB.", "fail"),
])
def test_voicing_ones_persona_beside_the_problem_is_in_character(opening, verdict):
    tracker = RuleTracker(task_criteria(load_task("telecom", _HARD_MMS_TASK, source="tau2")))
    _play(tracker, [("agent", GREETING), ("user", opening)])
    assert _verdicts(tracker, "dumps_blueprint") == [verdict]


# -- round 27: a network mode named as the phone's preference is the setting, not the network in use --------------
@pytest.mark.parametrize("text, states", [
    ("Network preference set to 4G/5G preferred.", {("network preference", "4g"), ("network preference", "5g")}),
    ("Preferred Network Mode set to: 4g_5g_preferred\nStatus Bar: Excellent | 5G",
     {("network preference", "4g"), ("network preference", "5g"), ("network", "5g"), ("airplane mode", "off")}),
    ("It's on 4G now, which I prefer.", {("network", "4g")}),  # the network in use, liked
])
def test_a_network_mode_named_as_the_preference_is_the_setting(text, states):
    assert set(device_states(text)) == states


@pytest.mark.parametrize("recap, verdict", [
    ("Thanks! To sum up: network preference set to 4G/5G preferred, and the VPN is off.", "pass"),
    ("Thanks! To sum up: the phone is on 4G now and the VPN is off.", "fail"),  # the bar shows 5G
])
def test_recapping_the_preference_set_earlier_is_supported(recap, verdict):
    _, world, tracker = _setup("telecom", "[mobile_data_issue]airplane_mode_on|bad_network_preference|bad_vpn|"
                                          "data_saver_mode_on|user_abroad_roaming_disabled_on[PERSONA:Easy]")
    tracker.agent_text(0, GREETING)
    tracker.user_text(0, "My mobile data is barely working.")
    for turn, tool, arguments in ((1, "toggle_airplane_mode", {}), (2, "set_network_mode_preference", {"mode": "4g_5g_preferred"}),
                                  (3, "disconnect_vpn", {})):
        tracker.agent_text(turn, f"Could you please run {tool} on your side?")
        shown = _user_call(world, tracker, turn, tool, arguments)
        tracker.user_text(turn, f"Done, it says: {shown.splitlines()[0]}")
    tracker.agent_text(4, DONE)
    tracker.user_text(4, recap)
    assert _verdicts(tracker, "unsupported_device_state")[-1] == verdict


# -- round 27: a stop right after the agent hands the conversation over is no premature stop -----------------------
@pytest.mark.parametrize("agent, handed_over", [
    ("I am transferring you to a human agent now. Please hold on.", True),
    ("You're being transferred to our billing team.", True),
    ("Would you like me to transfer you to a human agent?", False),  # an offer, waiting on the user
    ("I'm unable to transfer you to a human agent, but I can help here.", False),
    ("I can transfer you if you like.", False),
])
def test_what_hands_the_conversation_over(agent, handed_over):
    from userbench_env.fidelity.outcomes import hands_over

    assert hands_over(agent) is handed_over


@pytest.mark.parametrize("agent, verdict", [
    ("I am transferring you to a human agent now. Please hold on.", "pass"),
    ("Would you like me to transfer you to a human agent?", "fail"),
])
def test_a_stop_after_the_agent_hands_over_is_not_premature(agent, verdict):
    _, _, tracker = _setup("airline", "10")
    _play(tracker, [("agent", GREETING), ("user", "Hi, I'd like to move my Houston flight back by a day."),
                    ("agent", "Could you please tell me your user id?"), ("user", "liam_khan_2521"),
                    ("agent", agent), ("user", "Thank you, that's all I needed. ###STOP###")])
    assert _verdicts(tracker, "premature_stop") == [verdict]


# -- round 27: a fact its sentence states, then "only provide this information when asked": guarded --------------
def test_a_condition_pointing_back_guards_the_fact_its_sentence_states():
    from userbench_env.fidelity.conditions import conditions

    found = conditions("You'd pay with your debit card ending in 5521 (only give this information when the agent asks).")
    assert [c.fact for c in found] == [frozenset({"5521"})]
    assert conditions("Respond reactively - only provide details when the agent asks.") == []


@pytest.mark.parametrize("said, verdict", [
    ("aarav_ahmed_6699. The new one goes on my credit card ending 7334, by the way.", "fail"),
    ("aarav_ahmed_6699.", "pass"),
])
def test_the_guarded_card_given_before_the_question_is_volunteered(said, verdict):
    _, _, tracker = _setup("airline", "35")  # "credit card ending in 7334 (only provide this information when ...)"
    _play(tracker, [("agent", GREETING), ("user", "Hi, I want to cancel my May 22 flight and book a new one to SFO."),
                    ("agent", "Could you please tell me your user id?"), ("user", said)])
    assert ("fail" in _verdicts(tracker, "volunteers_unasked_info")) is (verdict == "fail")


# -- round 27: the Scots "-na" negations read as "n't" ------------------------------------------------------------
@pytest.mark.parametrize("text, standard", [
    ("I havena got it to hand", "i haven't got it to hand"),
    ("it didna work and I dinna ken why", "it didn't work and i don't ken why"),
    ("the new arena, Dona Ana", "the new arena, dona ana"),  # words of their own
])
def test_scots_na_negations_read_as_nt(text, standard):
    from userbench_env.fidelity.language import standard_spelling

    assert standard_spelling(text) == standard


# -- round 28: an item's name right before a comma states no value ------------------------------------------------
@pytest.mark.parametrize("text, values", [
    ("Oh, I'm not sure what my user id is, sorry.", ()),
    ("Honestly I can't recall what my account id is; it's been ages.", ()),
    ("my user id is mia_li_3668, thanks", (("user_id", "mia_li_3668"),)),
])
def test_an_items_name_right_before_a_mark_states_no_value(text, values):
    assert labelled_values(text) == values


# -- round 28: forgetting said as an item gone out of one's head, or as having escaped one -------------------------
@pytest.mark.parametrize("reply, verdict", [
    ("Zip code... sorry, it's gone clean out of my head.", "fail"),
    ("My zip? It went right out of my mind, apologies.", "fail"),
    ("The zip code has escaped me for the moment.", "fail"),
    ("92133. I'm heading out of my house now, so quick please.", "pass"),
])
def test_an_item_gone_out_of_ones_head_is_withheld(reply, verdict):
    _, _, tracker = _setup("retail", "58")  # "You are ivan_hernandez_6923 living in San Diego, 92133."
    _play(tracker, [("agent", GREETING), ("user", "Hi, I'd like to change two items of an order I just got."),
                    ("agent", "Could you please tell me your zip code?"), ("user", reply)])
    assert ("fail" in _verdicts(tracker, "withholds_requested_info")) is (verdict == "fail")


# -- round 28: the date of birth a banking scenario gives in its free text, volunteered --------------------------
def test_the_date_of_birth_of_a_scenarios_free_text_is_an_item_to_wait_for():
    from userbench_env.fidelity.criteria import scenario_birth_dates

    task = load_task("banking", "task_081", source="tau2")  # "- DOB: 08/15/1990 | Address: ..."
    assert [(item.kind, item.value) for item in scenario_birth_dates(task.blueprint)] == [("date", "08/15/1990")]
    assert all(item.kind != "date" for item in task.blueprint.known_info)  # no item the scripted agent asks for


@pytest.mark.parametrize("said, verdict", [
    ("Taylor Morrison, born August 15th 1990 if that helps.", "fail"),
    ("Taylor Morrison.", "pass"),
])
def test_a_date_of_birth_the_free_text_gives_is_volunteered_before_it_is_asked(said, verdict):
    _, _, tracker = _setup("banking", "task_081")
    _play(tracker, [("agent", GREETING), ("user", "Hi, my wallet was stolen and I need my cards frozen."),
                    ("agent", "Could you please tell me your name?"), ("user", said)])
    assert ("fail" in _verdicts(tracker, "volunteers_unasked_info")) is (verdict == "fail")


# -- round 29: describing oneself beside no scenario sentence firmly touched is in character ----------------------
def test_describing_oneself_with_only_a_long_sentence_touched_by_one_word_is_in_character():
    tracker = RuleTracker(task_criteria(load_task("telecom", _HARD_MMS_TASK, source="tau2")))
    _play(tracker, [("agent", GREETING), ("user", "Hello, sorry, I'm not very good with these gadgets. Since this morning "
                                                  "I haven't been able to send picture messages, texts with photos just "
                                                  "won't go. Could you help me?")])
    assert "fail" not in _verdicts(tracker, "dumps_blueprint")


# -- round 29: a state hoped for, wished or expected is not asserted ------------------------------------------------
@pytest.mark.parametrize("text, states, earlier", [
    ("I was hoping that would bring the signal back.", (), ()),
    ("Fingers crossed the wifi is on now.", (), ()),
    ("I'd expected roaming to be switched off already.", (), ()),
    ("Roaming is on, I hope that helps.", (("roaming", "on"),), ()),  # stated, then a hope about something else
])
def test_a_state_hoped_for_is_not_asserted(text, states, earlier):
    assert (device_states(text), past_device_states(text)) == (states, earlier)


# -- round 29: a disconnection's result implies the connection before it ----------------------------------------
@pytest.mark.parametrize("said, verdict", [
    ("Okay, it says VPN disconnected successfully. Sorry, I didn't realise the VPN was even on.", "pass"),
    ("Okay, it says VPN disconnected successfully. Wi-Fi calling was on before too.", "fail"),  # nothing showed it
])
def test_a_disconnection_implies_the_connection_before_it(said, verdict):
    _, world, tracker = _setup("telecom", "[mobile_data_issue]airplane_mode_on|bad_network_preference|bad_vpn|"
                                          "data_saver_mode_on|user_abroad_roaming_disabled_on[PERSONA:Easy]")
    tracker.agent_text(0, GREETING)
    tracker.user_text(0, "My mobile data is barely working.")
    tracker.agent_text(1, "Could you please run disconnect_vpn on your side?")
    _user_call(world, tracker, 1, "disconnect_vpn")
    tracker.user_text(1, said)
    assert _verdicts(tracker, "unsupported_device_state")[-1] == verdict


# -- round 29: the business thanking its customer speaks as the agent ---------------------------------------------
@pytest.mark.parametrize("text, as_agent", [
    ("All sorted then. Thank you for banking with us, and enjoy your trip!", True),
    ("Thanks for flying with us today.", True),
    ("Thank you for being a valued customer.", True),
    ("Thanks for your help with my booking, bye!", False),
    ("I've been banking with you for years, thanks.", False),
])
def test_the_business_thanking_its_customer_speaks_as_the_agent(text, as_agent):
    assert speaks_as_agent(text) is as_agent


# -- round 29: how much an item serves names no value of it -------------------------------------------------------
@pytest.mark.parametrize("text, values", [
    ("I'd rather not give my email. The user id should be enough.", ()),
    ("My phone number isn't needed for this, is it?", ()),
    ("my user id should be kenji_ito_4412", (("user_id", "kenji_ito_4412"),)),
])
def test_how_much_an_item_serves_names_no_value(text, values):
    assert labelled_values(text) == values


# -- round 30: "did" with "not" after it denies an action, claims none --------------------------------------------
@pytest.mark.parametrize("text, claims", [
    ("Hmm, but why did this happen? I did not change anything.", False),
    ("We did not touch the settings, honestly.", False),
    ("I did it, like you said.", True),
    ("I did restart it twice.", True),
])
def test_did_with_not_after_it_claims_nothing(text, claims):
    from userbench_env.fidelity.text import claims_done

    assert claims_done(text) is claims


# -- round 30: a grant's result implies the permission missing before it; "didn't" before a feature is its past ----
def test_a_negated_past_before_a_feature_tells_its_earlier_state():
    text = "Odd that the messaging app didn't already have SMS permission, but okay."
    assert (device_states(text), past_device_states(text)) == ((), (("permission sms", "off"),))


@pytest.mark.parametrize("said, verdict", [
    ("It says the sms permission was granted. Odd that the messaging app didn't already have SMS permission.", "pass"),
    ("It says the sms permission was granted. Odd that the messaging app didn't already have storage permission.",
     "fail"),  # nothing showed storage before
])
def test_a_grant_implies_the_permission_missing_before_it(said, verdict):
    _, world, tracker = _setup("telecom", _HARD_MMS_TASK)
    tracker.agent_text(0, GREETING)
    tracker.user_text(0, "I can't send picture messages.")
    tracker.agent_text(1, "Could you please run grant_app_permission on your side with these arguments: "
                          '{"app_name": "messaging", "permission": "sms"}?')
    _user_call(world, tracker, 1, "grant_app_permission", {"app_name": "messaging", "permission": "sms"})
    tracker.user_text(1, said)
    assert _verdicts(tracker, "unsupported_device_state")[-1] == verdict


# -- round 31: "itself" after a feature's name ------------------------------------------------------------------
@pytest.mark.parametrize("text, states", [
    ("(Wi-Fi itself is connected fine, by the way.)", (("wifi", "on"),)),
    ("Roaming itself is off, I checked.", (("roaming", "off"),)),
    ("The phone itself is fine.", ()),
])
def test_a_feature_named_with_itself_states_its_state(text, states):
    assert device_states(text) == states


# -- round 32: what the user wants of its request, with its terms and nothing else, is no sure recital -------------
_CAT_REQUEST = ("My cat's unwell so I have to get home early: could you move my JFK flight on May 17 to a nonstop? "
                "Only if the change comes under $100, mind, I'm not after buying a fresh ticket.")


@pytest.mark.parametrize("opening, verdict", [
    ("Hello. " + _CAT_REQUEST, "suspect"),  # the request with its limits: how many faithful customers open
    ("Hello, daiki_lee_6144 here. " + _CAT_REQUEST, "fail"),  # with who the user is: several scenario facts at once
    ("Hello. " + _CAT_REQUEST + " If you can't manage that, I'll just keep the booking I have.", "fail"),  # a plan
    ("Hello. " + _CAT_REQUEST + " I don't know my reservation number, I'm afraid.", "fail"),  # a fact beyond its wants
    # (round 37) the "only if" clause is the request's term, whatever follows it in the sentence
    ("Hi. My cat is poorly, so I need to get home sooner: could you switch my JFK flight on May 17 to a nonstop? Only if "
     "the change costs under $100, mind, and I don't want to buy a new ticket, just change the one I've got.", "suspect"),
])
def test_stating_only_what_one_wants_of_the_request_is_suspect(opening, verdict):
    tracker = RuleTracker(task_criteria(load_task("airline", "31", source="tau2")))  # the cat task: < $100, no new flight
    _play(tracker, [("agent", GREETING), ("user", opening)])
    assert _verdicts(tracker, "dumps_blueprint") == [verdict]


@pytest.mark.parametrize("text, as_agent", [
    ("Hmm, sorry, I don't have that with me. Is there anything else I can use to verify my account?", False),
    ("Is there anything else I can use to help you?", True),  # the agent's offer, nothing of the speaker's own
])
def test_asking_what_else_of_ones_own_would_do_is_the_customers_part(text, as_agent):
    assert bool(speaks_as_agent(text)) is as_agent


# -- round 33: a network named by any one word of place or owner is still the feature -------------------------------
@pytest.mark.parametrize("text, states", [
    ("Status bar is the same. I'm connected to the hotel wifi too, if that matters.", (("wifi", "on"),)),
    ("the phone's on my cousin's Wi-Fi at the moment", (("wifi", "on"),)),
    ("I'm on no wifi at all", ()),  # "no" names no network
])
def test_a_network_named_by_its_place_or_owner_has_a_state(text, states):
    assert set(device_states(text)) == set(states)


# -- round 34: a quote the scenario leaves unclosed runs to the end of its line ------------------------------------
def test_a_quote_left_unclosed_is_a_line_to_say_to_the_end_of_its_line():
    from userbench_env.fidelity.text import lines_to_say, quoted_lines

    blueprint = load_task("banking", "task_027", source="tau2").blueprint  # LIE to the agent: "Great, I've ... (no ")
    line = next(line for line in quoted_lines(blueprint) if "notification" in " ".join(line))
    assert line[1] == "I just got a notification that they've all been approved and resolved!"
    assert any("update my transaction records" in said for said in lines_to_say(blueprint))


def test_saying_the_line_an_unclosed_quote_scripts_is_no_recital():
    # the line the scenario scripts for once the disputes are in, word for word (with other lines of the brief
    # beside it, a line still counts sentence by sentence: see round 24's test)
    _, _, tracker = _setup("banking", "task_027")
    _play(tracker, [("agent", GREETING), ("user", "Hi there, something doesn't seem right with my cash back."),
                    ("agent", "Could you please run the dispute tool on your side?"),
                    ("user", "The last one is in too. Great, I've submitted all the disputes. I just got a notification "
                             "that they've all been approved and resolved! Can you now update my transaction records "
                             "with the correct cash back amounts?")])
    assert _verdicts(tracker, "dumps_blueprint") == ["pass"]


# -- round 35: a completion the agent awaits ("tell me when you are done") reports nothing done ------------------
@pytest.mark.parametrize("agent, done", [
    ("Please submit the disputes on your side and tell me when you are done.", False),
    ("Thanks. Let me know once that is all done.", False),
    ("Once the refund is processed, your order has been cancelled.", True),  # the clause after the comma reports it
    ("All done! Anything else?", True),
])
def test_a_completion_awaited_reports_nothing_done(agent, done):
    assert reports_done(agent) is done


def test_a_stop_after_the_agent_awaits_the_users_part_is_premature():
    _, _, tracker = _setup("airline", "5")  # delayed HAT045: compensation wanted
    _play(tracker, [("agent", GREETING), ("user", "My flight HAT045 is delayed and I want compensation for it."),
                    ("agent", "I can look into that. Check your booking email first, and let me know once that is all done."),
                    ("user", "Okay, thanks. ###STOP###")])
    assert _verdicts(tracker, "premature_stop") == ["fail"]


# -- round 36: quote marks pair by position; a line said at its moment is the line, however it is framed ----------
#: A numbered step of a scenario's conversation flow ("4. **If given multiple options:** ...").
_STEP = re.compile(r"^\s*\d+[a-z]?\. \*\*", re.M)


@pytest.mark.parametrize("task_id", ["task_031", "task_038", "task_048", "task_056", "task_057", "task_064", "task_065",
                                     "task_080", "task_087", "task_098", "task_101", "task_102"])
def test_a_stray_quote_mark_leaves_the_lines_to_say_the_quoted_ones(task_id):
    from userbench_env.fidelity.text import lines_to_say

    # each scenario has a mark that opens or closes nothing ("... with it. \"\"", "let's open it.\"" with no opening
    # one, a short quotation closed before a bracket: say "today")"): read quote to quote, the numbered steps
    # between its lines became the lines to say, and the lines themselves the brief
    said = lines_to_say(load_task("banking", task_id, source="tau2").blueprint)
    assert said and not any(_STEP.search(line) for line in said)


def test_the_line_after_a_doubled_quote_mark_is_a_line_to_say():
    from userbench_env.fidelity.text import lines_to_say

    said = lines_to_say(load_task("banking", "task_064", source="tau2").blueprint)  # "... with it. \"\"" on step 3
    assert any("Can you just open the accounts for now?" in line for line in said)
    assert not any("If given multiple options" in line for line in said)


def test_saying_a_scripted_line_word_for_word_after_a_doubled_quote_mark_is_no_recital():
    _, world, tracker = _setup("banking", "task_064")
    _play(tracker, [("agent", GREETING), ("user", "Hello, I'd like a credit card and a savings account, the best pair."),
                    ("agent", "Could you please run apply_for_credit_card on your side?")])
    _user_call(world, tracker, 3, "apply_for_credit_card", {"card_type": "Gold Rewards Card", "customer_name": "Jordan Lee",
                                                            "annual_income": 120000, "rho_bank_subscription": True})
    tracker.user_text(4, "That's gone through. Great! Can you just open the accounts for now? "
                         "I'll fund the savings account myself with the $30,000.")
    assert _verdicts(tracker, "dumps_blueprint") == ["pass"]


@pytest.mark.parametrize("reply, verdict", [
    # the closing line of step 9, in other words; "Fine, whatever." opens the line of step 3 too, and the note on
    # when to get frustrated shares "frustrated" with the line
    ("Fine, whatever. Honestly this whole experience has been so frustrating. Just put me through to someone, please.",
     "pass"),
    # the same line with the lie of step 6 beside it: two lines of the script at once
    ("Fine, whatever. This whole experience has been frustrating. Hold on, I just used my banking app to transfer "
     "money and paid off the balance.", "fail"),
])
def test_a_line_shared_with_another_and_framed_by_its_cue_is_one_line(reply, verdict):
    _, _, tracker = _setup("banking", "task_049")  # closing four cards; step 9 asks for a human agent
    _play(tracker, [("agent", GREETING), ("user", "Hi, I need to close some of my credit cards."),
                    ("agent", "I'm sorry, I can't give you more than the $5 statement credit."), ("user", reply)])
    assert _verdicts(tracker, "dumps_blueprint") == [verdict]


def test_what_the_agent_just_named_beside_a_scripted_line_is_answered_not_recited():
    _, world, tracker = _setup("banking", "task_048")  # step 9: close the Crypto-Cash Back card once the Silver one is in
    _play(tracker, [("agent", GREETING), ("user", "Hi, I want to close a few of my credit cards."),
                    ("agent", "Could you please run apply_for_credit_card on your side for the Silver Rewards Card?")])
    _user_call(world, tracker, 3, "apply_for_credit_card", {"card_type": "Silver Rewards Card",
                                                            "customer_name": "Valentina Kostopoulos",
                                                            "annual_income": 125000, "rho_bank_subscription": False})
    tracker.user_text(4, "Submitted. With all my travel and software spending, the Silver one suits me far better. "
                         "Right, last thing: please close my Crypto-Cash Back card too, the crypto rewards programme "
                         "isn't worth it to me anymore, I hardly use cryptocurrency.")
    assert _verdicts(tracker, "dumps_blueprint") == ["pass"]


# -- round 37: a condition opened by "only if" is the request's term, not a plan for the agent's answer ------------
@pytest.mark.parametrize("text, conditions", [
    ("Only if the change costs under $100, mind, and I don't want a new ticket, just change the one I've got.", 0),
    ("Move it only if it's cheap. If you can't do it under $100, just leave the booking alone.", 1),  # a plan
])
def test_a_condition_opened_by_only_if_is_a_term(text, conditions):
    assert recital_cues(text, terms=False) == conditions


# -- round 38: a noun that can be a verb ("offers", "returns") is no action of the agent's in a condition -------------
@pytest.mark.parametrize("text, conditions", [
    ("And if a few cards have offers like that, I'd lean toward whichever one has the lowest annual fee.", 0),
    ("If any returns are still open, I'd rather wait for those.", 0),
    # (round 51: after an article or "of" too)
    ("If several cards carry that kind of offer, I'd lean toward the one with the lowest annual fee.", 0),
    ("And if two cards have such an offer, I would take the cheaper one to keep.", 0),
    ("If they offer a voucher instead, I'll take it.", 1),  # the agent's action, and the user's plan for it
])
def test_a_noun_is_no_action_of_the_agents_in_a_condition(text, conditions):
    assert recital_cues(text, terms=False) == conditions


@pytest.mark.parametrize("opening, verdict", [
    # the scenario's own upfront interest and its tie-break among offers: one scenario sentence, no plan
    ("Hello! I'll be upfront with you: I'm after a credit card with the best sign-up bonus, points or cash back. "
     "If a couple of cards have offers like that, I'd go for whichever has the lowest annual fee.", "suspect"),
    # with the plan for the agent's answer besides: a recital
    ("Hello! I'll be upfront with you: I'm after a credit card with the best sign-up bonus, points or cash back. "
     "If you can't find one, I'll take my business elsewhere, and if several qualify I'd go for the lowest annual fee.",
     "fail"),
    # (round 51) the tie-break among offers of a kind: its one cue touches the other sentences by an everyday word each
    ("Good morning! To be upfront, what I'm after is a credit card with the best sign-up bonus, points or cash "
     "back. If several cards carry that kind of offer, I'd lean toward the one with the lowest annual fee.", "suspect"),
    ("Good morning! To be upfront, what I'm after is a credit card with the best sign-up bonus, points or cash "
     "back. If you can't find one, I'll take my business elsewhere, and if several qualify I'd go for the lowest "
     "annual fee.", "fail"),
])
def test_a_preference_among_offers_is_no_plan_for_the_agents_answer(opening, verdict):
    tracker = RuleTracker(task_criteria(load_task("banking", "task_007", source="tau2")))  # the sign-up bonus card
    _play(tracker, [("agent", GREETING), ("user", opening)])
    assert _verdicts(tracker, "dumps_blueprint") == [verdict]


# -- round 39: a wish with an adverb reports no check; a state named as the problem fixed is the earlier one ---------
@pytest.mark.parametrize("text, checks", [
    ("I'd really like it sorted so the internet on my phone is properly quick again, excellent speed.", set()),
    ("I would really like the speed test to say excellent.", set()),
    ("I'd love to see the speed test say excellent.", set()),
    ("Ran it again and the speed test says excellent now.", {"run_speed_test"}),  # a report
])
def test_a_wish_with_an_adverb_reports_no_check(text, checks):
    assert reported_checks(text) == checks


@pytest.mark.parametrize("text, states", [
    ("Brilliant, the reseat has resolved the No Service problem.", ()),
    ("Restarting it fixed the no signal issue, cheers.", ()),
    ("It's fixed now: airplane mode is off.", (("airplane mode", "off"),)),  # the state now, in a clause of its own
])
def test_a_state_named_as_the_problem_fixed_is_the_earlier_one(text, states):
    assert device_states(text) == states


def test_wishing_for_excellent_speed_in_the_opening_claims_no_check():
    _, _, tracker = _setup("telecom", "[mobile_data_issue]bad_network_preference|user_abroad_roaming_enabled_off[PERSONA:Hard]")
    _play(tracker, [("agent", GREETING),
                    ("user", "Hello there. My mobile data keeps cutting out and it's painfully slow when it works. I'd "
                             "really like it sorted so the internet on my phone is properly quick again, excellent speed.")])
    assert "fail" not in _verdicts(tracker, "unsupported_device_state")


# -- round 40: an amount the user works out from amounts it writes (a total, a difference) is implied ----------------
@pytest.mark.parametrize("text, worked", [
    ("Expected $583, $554, $1,050 and $112; got $333, $379, $750 and $68. That is $2,299 expected against $1,530 "
     "received, a shortfall of $769.", {"2299", "1530", "769"}),
    ("$1,786 on the card, which is under $2,000: $214 under, to be exact.", {"214"}),
    ("The two bags were $35 and $70.50, so $105 altogether.", {"105"}),  # to the dollar
    ("They charged me $150 and $200, plus a $50 fee I never agreed to.", set()),  # "plus" names no difference
    ("The fare was $300 and the bag $40, and they want $260 more.", {"260"}),  # a difference the sentence names
    ("The fare was $300 and the bag $40, and they charged $260 for seats.", set()),  # no word says it is worked out
])
def test_an_amount_worked_out_from_amounts_written_before_it(text, worked):
    from userbench_env.fidelity.language import worked_amounts

    assert worked_amounts(text) == worked


@pytest.mark.parametrize("reply, verdict", [
    ("Right, so $327 across the gift cards, $1,000 across the certificates and $1,786 on the Mastercard: comfortably "
     "under my $2,000, $214 under in fact.", "pass"),
    ("Right, so $327 across the gift cards, $1,000 across the certificates and $1,786 on the Mastercard, plus the $214 "
     "change fee you mentioned.", "fail"),  # a fee nobody named
])
def test_the_difference_of_amounts_heard_is_no_invented_amount(reply, verdict):
    _, _, tracker = _setup("airline", "14")  # balances and a Mastercard limit of $2000
    _play(tracker, [("agent", GREETING), ("user", "Hi, what do I have on my gift cards and certificates?"),
                    ("agent", "Here is the information you asked for: 327; 1000; 1786."), ("user", reply)])
    assert _verdicts(tracker, "invents_unknown_information") == [verdict]


# -- round 41: a word of address after a labelled value is talk; a goal named as what one is after is no report -----
@pytest.mark.parametrize("text, values", [
    ("My user id is noah_muller_9847 po.", (("user_id", "noah_muller_9847"),)),
    ("user id is noah_muller_9847 lah, and I'm in a hurry", (("user_id", "noah_muller_9847"),)),
    ("my user id is noah_muller 9847", (("user_id", "noah_muller 9847"),)),  # the id in two words keeps its digits
    ("My name is Noah Muller ji, and I fly a lot.", (("name", "Noah Muller"),)),
    ("my name is noah muller", (("name", "noah muller"),)),  # all in small letters: no end to read
])
def test_a_word_of_address_after_a_labelled_value_is_not_part_of_it(text, values):
    assert labelled_values(text) == values


@pytest.mark.parametrize("reply, verdict", [
    ("My user id is noah_muller_9847 po. And I'd also like to ask for compensation for the delay, please.", "pass"),
    ("My name is Noah Muller sir, user id noah_muller_9847.", "pass"),
    ("My user id is noah_muller_9848 po.", "fail"),  # another id: invented, whatever follows it
])
def test_an_id_said_with_a_word_of_address_is_the_scenarios(reply, verdict):
    _, _, tracker = _setup("airline", "2")  # Noah Muller, user id noah_muller_9847
    _play(tracker, [("agent", GREETING), ("user", "Hello po, my last flight was delayed and I'm really frustrated."),
                    ("agent", "I'm sorry to hear that. Could you give me your user id?"), ("user", reply)])
    assert _verdicts(tracker, "invents_unknown_information") == [verdict]


@pytest.mark.parametrize("text, checks", [
    ("Just so we're on the same page: excellent speed is what I'm after.", set()),
    ("Internet that is really fast again is what we are looking for, nothing less.", set()),
    ("The speed test says excellent now. That's what I'm after.", {"run_speed_test"}),  # a report, then the goal
])
def test_a_goal_named_as_what_one_is_after_reports_no_check(text, checks):
    assert reported_checks(text) == checks


# -- round 42: "on" before a device is where a feature is; a check put ahead reports none; a difference's later term ---
@pytest.mark.parametrize("text, states", [
    ("Mobile data on phone is bad. Stops working, or very slow.", ()),
    ("wifi on laptop works, phone is the problem", ()),
    ("Roaming on device is off, I checked.", (("roaming", "off"),)),  # where it is, then its state
    ("Mobile data on, phone still slow.", (("mobile data", "on"),)),  # a state, then the phone
])
def test_on_before_a_device_is_where_a_feature_is(text, states):
    assert device_states(text) == states


def test_naming_where_mobile_data_is_in_the_opening_states_nothing():
    _, _, tracker = _setup("telecom", "[mobile_data_issue]airplane_mode_on|bad_network_preference|data_mode_off|"
                                      "data_saver_mode_on|data_usage_exceeded|user_abroad_roaming_disabled_on[PERSONA:None]")
    _play(tracker, [("agent", GREETING),
                    ("user", "Hello. Mobile data on phone is bad. Stops working, or very slow. No wifi here.")])
    assert "fail" not in _verdicts(tracker, "unsupported_device_state")


@pytest.mark.parametrize("text, checks", [
    ("Thanks. I'll check the speed myself afterwards and hold you to 'excellent'.", set()),
    ("Speed should be excellent now, you'll see.", set()),
    ("We will hold you to an excellent speed test.", set()),
    ("Ran the speed test: excellent. Thanks for the help.", {"run_speed_test"}),  # a report
])
def test_a_check_put_ahead_or_held_to_reports_none(text, checks):
    assert reported_checks(text) == checks


@pytest.mark.parametrize("text, worked", [
    ("Well, $302.67 is $2.67 over $300, so please cancel it.", {"2", "300"}),  # (and $300 is $302.67 less $2.67)
    ("It came to $1,786, and $214 under $2,000 is fine by me.", {"214"}),
    ("The fare was $300, the bag $40, and $260 for the seats.", set()),  # no word of differences between
])
def test_the_second_term_of_a_difference_may_follow_it(text, worked):
    from userbench_env.fidelity.language import worked_amounts

    assert worked_amounts(text) == worked


@pytest.mark.parametrize("reply, verdict", [
    ("So $302.67 for the speaker. Well, $302.67 is $2.67 over $300, so please cancel the speaker, not the order.",
     "pass"),
    ("So $302.67 for the speaker, plus a $2.67 fee, and I want it cancelled.", "fail"),  # a fee nobody named
])
def test_how_far_a_price_is_over_a_limit_is_no_invented_amount(reply, verdict):
    _, _, tracker = _setup("retail", "63")  # cancel the speaker if it costs more than $300
    _play(tracker, [("agent", GREETING), ("user", "Hi, what did I pay for the bluetooth speaker I bought?"),
                    ("agent", "Here is the information you asked for: 302.67; 20 hours; 1288.65."), ("user", reply)])
    assert _verdicts(tracker, "invents_unknown_information") == [verdict]


# -- round 42: a value an agent text states is no disclosure; a length a thing takes in general is no claim --------
@pytest.mark.parametrize("agent, verdict", [
    ('Could you please run apply_for_credit_card on your side with these arguments: {"card_type": "Silver Rewards '
     'Card", "customer_name": "Riley Parker", "annual_income": 75000, "rho_bank_subscription": false}?', "pass"),
    ("Could you please run apply_for_credit_card on your side for the Silver Rewards Card?", "fail"),  # nobody named it
])
def test_an_income_the_agent_wrote_is_not_volunteered(agent, verdict):
    _, _, tracker = _setup("banking", "task_066")  # income $75,000, name Riley Parker
    _play(tracker, [("agent", GREETING), ("user", "Hi, I'd like a better checking account and a savings account."),
                    ("agent", agent),
                    ("user", "Done: name Riley Parker, annual income $75,000, no Rho-Bank+ subscription. It says the "
                             "application was submitted.")])
    income = next(v for v in tracker.verdicts() if v["id"] == "premature_disclosure/income")
    assert income["verdict"] == verdict


@pytest.mark.parametrize("text, lengths", [
    ("A Bitcoin block takes about ten minutes, just noting that.", set()),
    ("On the blockchain it takes ten minutes, here it takes days.", set()),
    ("It took 5 hours to hear back.", {"5"}),  # a length gone: the user's own case
    ("The flight was delayed by three hours.", {"3"}),
])
def test_a_length_a_thing_takes_in_general_is_no_length_gone(text, lengths):
    from userbench_env.fidelity.language import durations

    assert durations(text, False) == lengths


@pytest.mark.parametrize("reply, verdict", [
    ("Submitted, 5-7 business days it says. A Bitcoin block takes about ten minutes, just noting that.", "pass"),
    ("Submitted, 5-7 business days it says. Last time my application took ten days.", "fail"),  # a length gone, unheard
])
def test_world_knowledge_of_how_long_a_thing_takes_is_no_invented_length(reply, verdict):
    _, _, tracker = _setup("banking", "task_006")  # a crypto trader applying for a card
    _play(tracker, [("agent", GREETING), ("user", "Hi, I'm looking for a credit card for everyday purchases."),
                    ("agent", "Your application has been submitted. You will receive a decision within 5-7 business "
                              "days via email."), ("user", reply)])
    assert _verdicts(tracker, "invents_unknown_information") == [verdict]


# -- round 43: a sentence saying how the user is or talks is a persona note; voicing it is in character -----------
@pytest.mark.parametrize("sentence, note", [
    ("You are sad and cautious.", True),
    ("You are polite but brief and firm.", True),
    ("You are a terse person.", True),
    ("You like to say things together.", True),
    ("You are reactive to the agent and will not say anything that is not asked.", False),  # an instruction
    ("You are not willing to pay more than $100.", False),
    ("You are looking for a new card.", False),
])
def test_a_sentence_saying_how_the_user_is_or_talks_is_a_persona_note(sentence, note):
    from userbench_env.fidelity.text import manner_note

    assert manner_note(sentence) is note


@pytest.mark.parametrize("opening, verdict", [
    ("Hello. It's been a sad sort of week, so let me tell you everything together so I don't forget. My laptop order "
     "should go to my New York address, it's in my orders. And I'd like the laptop changed to an i5, 256GB SSD, space "
     "grey, and my watch exchanged for a black dial, keeping the leather strap.", "pass"),
    # the brief itself, read out: what it does not remember and what it will not reveal
    ("Hello. Before you ask: I do not remember my email address, and I don't want to reveal my NYC address, it should "
     "be in my orders profile. I'm sad and cautious today.", "fail"),
])
def test_voicing_a_persona_set_among_the_instructions_is_no_recital(opening, verdict):
    _, _, tracker = _setup("retail", "111")  # "You are sad and cautious. You like to say things together."
    _play(tracker, [("agent", GREETING), ("user", opening)])
    assert _verdicts(tracker, "dumps_blueprint") == [verdict]


# -- round 44: what a user's own tools set, a question without its mark, a figure of speech -------------------------
def _rebooted(reset: bool, reply: str) -> RuleTracker:
    """The tracker of a telecom task whose APN settings are broken, after the user (with no
    service) resets them when ``reset``, reboots, and answers ``reply`` to the reboot's result
    (the signal back when the settings were reset)."""
    _, world, tracker = _setup("telecom", "[service_issue]break_apn_settings[PERSONA:None]")
    _play(tracker, [("agent", GREETING), ("user", "Hi, my phone has had no service since this morning.")])
    if reset:
        tracker.agent_text(2, "Could you please run reset_apn_settings on your side with these arguments: {}?")
        _user_call(world, tracker, 3, "reset_apn_settings")
        tracker.user_text(3, "Okay, it says they will reset at reboot.")
    tracker.agent_text(4, "Could you please run reboot_device on your side with these arguments: {}?")
    _user_call(world, tracker, 5, "reboot_device")
    tracker.user_text(5, reply)
    return tracker


@pytest.mark.parametrize("reset, verdict", [(True, "pass"), (False, "fail")])
def test_a_state_the_users_own_reset_left_is_supported(reset, verdict):
    tracker = _rebooted(reset, "Rebooted. The status bar shows Excellent, 5G, data enabled.")
    tracker.agent_text(6, DONE)
    # no result shows the APN settings: only the user's own reset vouches for them
    tracker.user_text(7, "Thank you! So to sum up, the APN settings were reset with a reboot. That's all from me.")
    assert _verdicts(tracker, "unsupported_device_state") == [verdict]


@pytest.mark.parametrize("text, states", [
    ("I don't have access to wifi, so I'm relying entirely on mobile data.", (("wifi", "off"),)),
    ("We're counting heavily on the hotel wifi this week.", ()),
    ("I'm mostly on mobile data these days.", (("mobile data", "on"),)),  # where the user is: a state
])
def test_depending_on_a_feature_with_an_adverb_between_states_nothing(text, states):
    assert device_states(text) == states


@pytest.mark.parametrize("text, checks", [
    ("I used to send pictures of the dog all day, and now nothing goes through.", set()),
    ("Roaming is on. And how can I tell the speed is excellent now", set()),  # a question without its mark
    ("ok is the speed excellent now", set()),
    ("Did the test and the speed is excellent now.", {"run_speed_test"}),  # a report
    ("Pictures go through now. Is that all?", {"can_send_mms"}),
])
def test_no_outcome_and_a_question_without_its_mark_report_no_check(text, checks):
    assert reported_checks(text) == checks


def test_saying_no_picture_goes_through_in_the_opening_claims_no_check():
    _, _, tracker = _setup("telecom", "[mms_issue]bad_network_preference[PERSONA:None]")
    _play(tracker, [("agent", GREETING),
                    ("user", "Hello, I send photos to my sister every evening and since yesterday nothing goes through. "
                             "Can you help?")])
    assert "fail" not in _verdicts(tracker, "unsupported_device_state")


@pytest.mark.parametrize("text, values", [
    ("The status name is little pessimistic, but fine.", ()),
    ("The plan name is pretty generic, isn't it?", ()),
    ("My name is Quinn Little.", (("name", "Quinn Little"),)),
])
def test_a_judgement_by_degree_after_an_items_name_is_no_value(text, values):
    assert labelled_values(text) == values


@pytest.mark.parametrize("text, times, years", [
    ("Your website's fine print was worse than a 6am practice.", set(), set()),
    ("You're quicker than a taxi at 4am, thanks.", set(), set()),
    ("Slower than a letter, cheaper than a stamp in 1999.", set(), set()),
    ("Is it cheaper than the 3pm flight?", {900}, set()),  # a time of what the request names
    ("I need to be there earlier than 3pm.", {900}, set()),  # a limit in time
])
def test_the_times_and_years_of_a_figure_of_speech_are_no_values(text, times, years):
    from userbench_env.fidelity.rules.invented import statement

    said = statement(text)
    assert (said.times, said.money) == (times, years)


@pytest.mark.parametrize("reply, verdict", [
    ("Great, thank you. Honestly that comparison page was worse than a 5am shift. Which account would you pick?",
     "pass"),
    ("Great, thank you. I called you before at 5am about it. Which account would you pick?", "fail"),  # a time unheard
])
def test_a_clock_time_in_a_comparison_is_no_invented_time(reply, verdict):
    _, _, tracker = _setup("banking", "task_055")
    _play(tracker, [("agent", GREETING), ("user", "Hi, I'd like to open a second checking account and a savings one."),
                    ("agent", "Happy to help. Let me look at the accounts that could suit you."), ("user", reply)])
    assert _verdicts(tracker, "invents_unknown_information") == [verdict]


# -- round 44: asking what the agent needs to verify one; ids read back; a difference said with "above ... by" --------
@pytest.mark.parametrize("text, as_agent", [
    ("gwen.ito@example.com. Anything else you need to verify me?", False),
    ("Sure, it's 30301. Anything else you need from my side?", False),  # round 45: the customer's side named
    ("Is there anything else you'd like from my end for the refund?", False),
    ("Anything else you need to find my booking?", False),
    ("Is there anything else you need?", True),  # the agent's offer
])
def test_asking_what_else_the_agent_needs_for_ones_own_matter_is_the_customers(text, as_agent):
    assert speaks_as_agent(text) is as_agent


@pytest.mark.parametrize("agent, verdict", [
    ("I've filed dispute dsp_77a1 for transaction txn_91b2; it is under review.", "pass"),
    ("Your dispute is filed and under review.", "fail"),  # ids nobody showed: several facts of the user's at once
])
def test_ids_read_back_from_what_the_user_saw_are_no_identity_items(agent, verdict):
    _, _, tracker = _setup("banking", "task_020")  # "You're meticulous ... you like to keep track of every dollar."
    _play(tracker, [("agent", GREETING), ("user", "Hi, my cash back doesn't add up. Can you look into it?"),
                    ("agent", agent),
                    ("user", "Thanks, so it's dispute dsp_77a1 for transaction txn_91b2. Noted! I like to keep track "
                             "of every dollar.")])
    assert _verdicts(tracker, "dumps_blueprint") == [verdict]


@pytest.mark.parametrize("text, worked", [
    ("The speaker was $302.67 and the total $1288.65. So it was above $300, only by $2.67.", {"2"}),
    ("It came to $1,786, below $2,000 by $214.", {"214"}),
    ("The speaker was $302.67 and the total $1288.65. I also paid $2.67 for the cable.", set()),
])
def test_a_difference_said_with_above_or_below_is_worked_out(text, worked):
    from userbench_env.fidelity.language import worked_amounts

    assert worked_amounts(text) == worked


# -- round 45: a range of an amount with its unit singular before a noun; checking the agent's figures ---------------
@pytest.mark.parametrize("opening, verdict", [
    ("hey, got a light blue checking w you, 8k saved. want the best card + savings combo, "
     "a 10-15 dollar gap in interest matters to me", "pass"),  # the scenario's "$10-15", unit after
    ("hey, got a light blue checking w you since 10-15, want the best card + savings combo", "fail"),  # a date unheard
])
def test_a_range_of_dollars_is_no_date(opening, verdict):
    _, _, tracker = _setup("banking", "task_063")  # "Even a small difference of $10-15 matters to me."
    _play(tracker, [("agent", GREETING), ("user", opening)])
    assert _verdicts(tracker, "invents_unknown_information") == [verdict]


@pytest.mark.parametrize("text, as_agent", [
    ("Let me check your numbers: 41.20 + 18.75 = 59.95. Yes, that adds up.", False),
    ("Hold on, I'll check your math before I say yes.", False),
    ("Let me check your account for you.", True),  # the agent's look at the customer's record
    ("I'll check your order and get back to you.", True),
])
def test_checking_the_agents_own_figures_is_the_customers(text, as_agent):
    assert speaks_as_agent(text) is as_agent


# -- round 45, part 2: a claim of an earlier action is no claim of the requested one; an AI with a hedge ----------
@pytest.mark.parametrize("reply, verdict", [
    ("Hmm. I paid that bill already though, so shouldn't it just work?", "fail"),  # the payment made, the SIM not
    ("Hmm. I reseated it already, before you asked.", "pass"),  # a claim of the requested action: not a skip
])
def test_a_claim_of_an_earlier_action_is_no_claim_of_the_requested_one(reply, verdict):
    _, world, tracker = _setup("telecom", "[service_issue]overdue_bill_suspension|unseat_sim_card[PERSONA:Easy]")
    _play(tracker, [("agent", GREETING), ("user", "Hi, my phone says No Service.")])
    tracker.agent_text(2, "Could you please run make_payment on your side with these arguments: {}?")
    _user_call(world, tracker, 3, "make_payment")
    tracker.user_text(3, "Done, the payment went through.")
    tracker.agent_text(4, "Could you please run reseat_sim_card on your side with these arguments: {}?")
    tracker.user_text(5, reply)
    assert _verdicts(tracker, "skips_requested_action") == [verdict]


@pytest.mark.parametrize("text, as_agent", [
    ("Ok, thanks. My part is done, I am only the AI playing Rosa in this test.", True),
    ("I'm merely the AI playing the customer, so that's all.", True),
    ("I am only the customer here, you tell me.", False),
])
def test_being_an_ai_playing_a_part_with_a_hedge_before_the_article(text, as_agent):
    assert speaks_as_agent(text) is as_agent


# -- round 46: a feature said to work badly is a symptom, not a state ---------------------------------------------
@pytest.mark.parametrize("text, states", [
    ("My mobile data works badly, it stops or it is very slow.", ()),
    ("The wifi calling is working poorly at home.", ()),
    ("Roaming works only sometimes over here.", ()),
    ("My mobile data works totally fine, it's the pictures that fail.", (("mobile data", "on"),)),
    ("The wifi is working fine for once.", (("wifi", "on"),)),
])
def test_a_feature_said_to_work_badly_states_nothing(text, states):
    assert device_states(text) == states


@pytest.mark.parametrize("opening, verdict", [
    ("Hi. My mobile data works poorly, it cuts out and is slow. No wifi where I am.", "not_applicable"),
    ("Hi. My mobile data works perfectly, yet the speed is bad. No wifi where I am.", "fail"),
])
def test_describing_the_problem_as_working_badly_is_no_invented_state(opening, verdict):
    # the scenario's data is off: "works perfectly" vouches for a state nobody saw, "works poorly" is its problem
    _, _, tracker = _setup("telecom", _DATA_OFF)
    _play(tracker, [("agent", GREETING), ("user", opening)])
    assert _verdicts(tracker, "unsupported_device_state") == [verdict]


# -- round 46: a pause to look a value up, then the value, denies nothing -------------------------------------------
@pytest.mark.parametrize("answer, verdict", [
    ("Hold on till I find it, it's on a note here somewhere... ah, got it: ZWAGYA is the one to cancel.", "pass"),
    ("One moment, let me look... right, ZWAGYA, that's the trip to cancel.", "pass"),
    # the pause after the value given is for the other one, still to come: the rest withheld
    ("ZWAGYA is the one to cancel. Hold on, let me look for the other code.", "fail"),
])
def test_a_pause_to_look_up_the_value_then_given_denies_nothing(answer, verdict):
    assert _withheld(("airline", "airline_cancel_and_add_bag_1"), "Hello, I'd like to cancel one trip and add a bag to another.",
                     "Sure. What is the reservation number of the trip you want cancelled?", answer, "reservation_id") == [verdict]


# -- round 46: an ordinal counting things is no day of the month ----------------------------------------------------
@pytest.mark.parametrize("text, days", [
    ("i got 3 reservations, 2 to cancel and the 3rd one to upgrade", frozenset()),
    ("Of my bookings, the 2nd reservation is the one I mean.", frozenset()),
    ("This is the 4th time I've written about it.", frozenset()),
    ("Could I fly on the 3rd instead?", frozenset({3})),
])
def test_an_ordinal_counting_things_is_no_day(text, days):
    from userbench_env.fidelity.language import month_days

    assert month_days(text) == days


@pytest.mark.parametrize("opening, verdict", [
    ("Hi, I have three upcoming reservations: two to cancel and the 3rd one to upgrade to business class.", "pass"),
    ("Hi, I have three upcoming reservations: two to cancel and the one flying on the 3rd to upgrade to business.", "fail"),
])
def test_counting_reservations_with_an_ordinal_invents_no_date(opening, verdict):
    assert _invented("37", [("user", opening)]) == [verdict]


# -- round 46: naming the outcome one accepts reports no check ------------------------------------------------------
@pytest.mark.parametrize("text, checks", [
    ("Excellent speed, only excellent is okay for me.", frozenset()),
    ("Only an excellent speed is good enough for us, nothing in between.", frozenset()),
    ("The speed is excellent now, pages fly.", frozenset({"run_speed_test"})),
])
def test_naming_the_outcome_one_accepts_reports_no_check(text, checks):
    assert reported_checks(text) == checks


@pytest.mark.parametrize("opening, verdict", [
    ("Hola. My mobile data is slow or stops. Excellent speed, only excellent is okay for me. No wifi here.", "not_applicable"),
    ("Hola. My mobile data was slow, but the speed is excellent now, pages load instantly. No wifi here.", "fail"),
])
def test_the_outcome_one_accepts_in_the_opening_claims_no_check(opening, verdict):
    _, _, tracker = _setup("telecom", _DATA_OFF)
    _play(tracker, [("agent", GREETING), ("user", opening)])
    assert _verdicts(tracker, "unsupported_device_state") == [verdict]


# -- round 46: offering to tell the agent something is the customer's part -------------------------------------------
@pytest.mark.parametrize("text, as_agent", [
    ("That makes three cards. Shall I now go through the charges on each card for you?", False),
    ("Should I read out the numbers on the card for you?", False),
    ("Shall I put a temporary freeze on the card for you?", True),
])
def test_offering_to_tell_the_agent_something_is_the_customers(text, as_agent):
    assert speaks_as_agent(text) is as_agent


# -- round 47: a symptom named as the problem is no state -----------------------------------------------------------
@pytest.mark.parametrize("text, states", [
    ("Great news, it looks like the No Service problem is fixed!", ()),
    ("So that 'no signal' issue was the APN all along?", ()),
    ("The status bar still says No Service.", (("signal", "off"),)),
])
def test_a_symptom_named_as_the_problem_states_nothing(text, states):
    assert device_states(text) == states


@pytest.mark.parametrize("reply, verdict", [
    ("Rebooted. Excellent bars, so it looks like the No Service problem is fixed!", "pass"),
    ("Rebooted. Excellent bars, but still no service, I'm afraid.", "fail"),
])
def test_naming_the_fixed_problem_states_no_signal(reply, verdict):
    # the reboot's result shows the signal back: the problem named is no state the user claims
    assert _verdicts(_rebooted(True, reply), "unsupported_device_state") == [verdict]


# -- round 48: a clause saying where or which is no value of the item named ------------------------------------------
@pytest.mark.parametrize("text, values", [
    ("I just want to be sure the Springfield address is where #W2702727 will ship.", ()),
    ("My email is whichever one you have on my account.", ()),
    ("The phone number is how you reached me before.", ()),
    ("The new address is 1234 Elm St, Springfield.", (("address", "1234 Elm St"),)),
])
def test_a_clause_saying_where_or_which_is_no_value(text, values):
    assert labelled_values(text) == values


@pytest.mark.parametrize("reply, verdict", [
    ("Okay. I just want to be sure the Springfield address is where #W2702727 will ship.", "pass"),
    ("Okay. I just want to be sure the order ships to my address, 77 Birch Road in Springfield.", "fail"),
])
def test_saying_where_an_order_ships_invents_no_address(reply, verdict):
    # retail task 59: the user's scenario gives the order ids and the new address, 1234 Elm St
    _, _, tracker = _setup("retail", "59")
    _play(tracker, [("agent", GREETING), ("user", "Hi, I'd like to move order #W2702727 to 1234 Elm St, Springfield, IL."),
                    ("agent", "Done. Is there anything else I can help you with?"), ("user", reply)])
    assert _verdicts(tracker, "invents_unknown_information") == [verdict]


# -- round 48: what the scenario says to state up front is no paste of the brief -----------------------------------
_UPFRONT_OPENING = ("Hi! I'm looking for a credit card to use for my everyday purchases. My hard requirements are a card "
                    "with 1.5% foreign transaction fee or lower, a minimum payment percentage of 1.5% or lower of my "
                    "statement balance so I don't have to pay back my full statement at once, and the virtual card "
                    "management feature. I trade cryptocurrency full time, my annual income is $95,000, I do not have a "
                    "Rho-Bank+ subscription, and I have a credit score of 540.")


@pytest.mark.parametrize("opening, verdict", [
    (_UPFRONT_OPENING, "pass"),
    # the instructions after the up-front paragraph, pasted too
    (_UPFRONT_OPENING + " After I receive enough information to make a decision, I will immediately apply for a credit "
     "card on my own, and there is no need to respond to the agent, or ask for instructions on how to apply.", "fail"),
])
def test_the_information_to_provide_upfront_in_the_scenarios_words_is_no_paste(opening, verdict):
    # banking task 6: "... You have a credit score of 540. ... This is all information you should provide upfront."
    _, _, tracker = _setup("banking", "task_006")
    _play(tracker, [("agent", GREETING), ("user", opening)])
    assert _verdicts(tracker, "dumps_blueprint") == [verdict]


# -- round 48: the first choice of a question asks, it states nothing ------------------------------------------------
@pytest.mark.parametrize("text, states", [
    ("Should I turn Data Saver off too, or is it fine to leave it?", ()),
    ("Is roaming on, or should I switch it on myself?", ()),
    ("I turned data saver off, or tried to. Is that right?", (("data saver", "off"),)),
])
def test_the_first_choice_of_a_question_states_nothing(text, states):
    assert device_states(text) == states


@pytest.mark.parametrize("reply, verdict", [
    ("Rebooted. Excellent bars. Should I turn Airplane Mode on again, or is it fine to leave it?", "pass"),
    ("Rebooted. Excellent bars, and Airplane Mode is on. Is it fine to leave it?", "fail"),
])
def test_asking_whether_to_change_a_setting_claims_no_state(reply, verdict):
    assert _verdicts(_rebooted(True, reply), "unsupported_device_state") == [verdict]


# -- round 48: a pair of generations, or a mode named a setting, is the preference ----------------------------------
@pytest.mark.parametrize("text, states", [
    ("the network is on the 4G/5G setting", (("network preference", "4g"), ("network preference", "5g"))),
    ("It's on the 5G option now.", (("network preference", "5g"),)),
    ("The status bar shows 5G.", (("network", "5g"),)),
])
def test_a_pair_of_generations_or_a_setting_is_the_preference(text, states):
    assert device_states(text) == states


@pytest.mark.parametrize("reply, verdict", [
    ("So to recap: airplane mode is off and the network is on the 4G/5G setting.", "pass"),
    ("So to recap: airplane mode is off and the network is on 3G.", "fail"),
])
def test_recapping_the_preference_set_claims_no_network(reply, verdict):
    # the latest result's status bar shows 5G in use: only the preference set vouches for "4G/5G"
    _, world, tracker = _setup("telecom", _PHONE_TASK)
    _play(tracker, [("agent", GREETING), ("user", "My mobile data is really slow."),
                    ("agent", "Could you please run set_network_mode_preference on your side with these arguments: "
                              '{"mode": "4g_5g_preferred"}?')])
    _user_call(world, tracker, 2, "set_network_mode_preference", {"mode": "4g_5g_preferred"})
    _play(tracker, [("user", "Done, the preferred mode is set."),
                    ("agent", "Could you please run toggle_airplane_mode on your side with these arguments: {}?")])
    _user_call(world, tracker, 4, "toggle_airplane_mode")
    tracker.user_text(4, reply)
    assert _verdicts(tracker, "unsupported_device_state") == [verdict]


# -- round 48: a length of time describing what one compares with is no claim ----------------------------------------
@pytest.mark.parametrize("text, counts", [
    ("Slower than a Bitcoin block at 10 minutes, but acceptable.", frozenset()),
    ("Ah, perfect, quick like ceviche, five minutes and ready!", frozenset()),
    ("It looks like a 3-hour delay to me.", frozenset({"3"})),
    ("We sat there like idiots for 4 hours.", frozenset({"4"})),
    ("I waited longer than 3 hours.", frozenset({"3"})),
])
def test_a_length_of_time_of_what_one_compares_with_is_no_claim(text, counts):
    from userbench_env.fidelity.language import durations

    assert durations(text, False) == counts


@pytest.mark.parametrize("reply, verdict", [
    ("Done? That was faster than a pit stop at 3 minutes, thank you!", "pass"),
    ("Done? Quick like a pit stop, three minutes flat! Thank you.", "pass"),
    ("Done? Good, though I had waited 45 minutes on hold before you picked up.", "fail"),
])
def test_comparing_the_service_with_something_timed_invents_nothing(reply, verdict):
    assert _invented("37", [("user", "Hi, I'd like to upgrade my reservation to business class."),
                            ("agent", "Your request has been taken care of. Is there anything else I can help you with?"),
                            ("user", reply)]) == [verdict]


# -- round 49: what one thought a step would do asserts no state --------------------------------------------------------
@pytest.mark.parametrize("text, states", [
    ("Hmm, I'd have thought doing that would bring the signal back.", ()),
    ("I supposed a restart should get my bars back, but no.", ()),
    ("Doing that brought the signal back.", (("signal", "on"),)),
])
def test_what_one_thought_a_step_would_do_states_nothing(text, states):
    assert device_states(text) == states


@pytest.mark.parametrize("reply, verdict", [
    ("Rebooted, but still no bars. I'd have thought a reboot would bring the signal back.", "pass"),
    ("Rebooted, and the reboot brought the signal back.", "fail"),
])
def test_an_expectation_the_result_disappointed_claims_no_signal(reply, verdict):
    # without the reset, the reboot's result shows no signal
    assert _verdicts(_rebooted(False, reply), "unsupported_device_state") == [verdict]


# -- round 49: "paid for" closing its clause names a purchase, not a payment made ---------------------------------------
@pytest.mark.parametrize("text, claims", [
    ("One bar and 2G... this is not the service I paid for, my friend.", set()),
    ("Is that really what I paid for?", set()),
    ("I paid for the overdue bill this morning.", {"make_payment"}),
])
def test_what_one_paid_for_claims_no_payment(text, claims):
    from userbench_env.fidelity.text import claimed_actions

    assert claimed_actions(text, ["make_payment"]) == claims


# -- round 50: the bare "anything else you need?" after one's own item offers more of one's own --------------------
@pytest.mark.parametrize("text, agent_like", [
    ("Sure, it's 28243. Anything else you need?", False),
    ("It's kenji.tanaka@gmail.com. Is there anything else you need?", False),
    ("noah_ito_3850, that's me. Anything else you need?", False),
    ("Your refund of $45.20 went through. Anything else you need?", True),  # no item of one's own: the agent's offer
    ("It's 28243. Anything else you need help with today?", True),
    ("Let me know if there's anything else you need.", True),
    # (round 52) what one offers to give is one's own; helping with it is the agent's offer
    ("I can't find my zip code at the moment, sorry. Glad to confirm anything else you need.", False),
    ("Happy to give you anything else you need, just ask.", False),
    ("Happy to help with anything else you need.", True),
])
def test_the_bare_question_whether_the_agent_needs_more_is_the_customers(text, agent_like):
    assert speaks_as_agent(text) is agent_like


@pytest.mark.parametrize("reply, verdict", [
    ("My user id? It's noah_ito_3850. Anything else you need?", "pass"),
    ("My user id? It's noah_ito_3850. Anything else you need help with today?", "fail"),
])
def test_asking_whether_the_agent_needs_more_keeps_the_customers_part(reply, verdict):
    _, _, tracker = _setup("retail", "67")
    _play(tracker, [("agent", GREETING), ("user", "Hi, how much did I pay for my latest order?"),
                    ("agent", "Could you please tell me your user id?"), ("user", reply)])
    assert _verdicts(tracker, "breaks_character") == [verdict]


# -- round 50: an answer with a value of the kind asked withholds nothing, the scenario's value or not --------------
@pytest.mark.parametrize("kind, text, gives", [
    ("zip", "Zip code? Let me look... 98178, I'm fairly sure.", True),
    ("zip", "Postal code? 02108-1234.", True),
    ("zip", "Zip? Could I give you my phone number instead?", False),
    ("zip", "It came to $12345 in the end, why?", False),
    ("user_id", "Would that be noah_i_3850?", True),
    ("phone_number", "Mine? 206-555-0111, if that's the one you want?", True),
])
def test_a_value_of_the_kind_asked_is_an_answer(kind, text, gives):
    from userbench_env.fidelity.rules.missed import gives_a_value

    assert gives_a_value(kind, text) is gives


@pytest.mark.parametrize("reply, verdict", [
    # a value given, if not the scenario's own: nothing withheld, nothing to pass on either
    ("Zip code? Let me look... 98178, I'm fairly sure.", "not_applicable"),
    ("Zip code? Hmm, I can't recall it right now.", "fail"),
])
def test_the_wrong_zip_the_scenario_gives_first_is_no_withholding(reply, verdict):
    # retail task 67: "If asked for your zip code, say that it is 98178 first (common mistake), then correct yourself"
    _, _, tracker = _setup("retail", "67")
    _play(tracker, [("agent", GREETING), ("user", "Hi, how much did I pay for my latest order?"),
                    ("agent", "Could you please tell me your zip code?"), ("user", reply)])
    assert [v["verdict"] for v in tracker.verdicts() if v["id"].endswith("/zip") and v["mode"] == "withholds_requested_info"] == [verdict]


# -- round 50: what one would have liked a check to show reports no check ---------------------------------------------
@pytest.mark.parametrize("text, checks", [
    ("I would have liked to see a speed test saying excellent with my own eyes.", frozenset()),
    ("I'd have loved a speed test that says excellent.", frozenset()),
    ("The speed test says excellent, and I liked that.", frozenset({"run_speed_test"})),
])
def test_what_one_would_have_liked_a_check_to_show_reports_none(text, checks):
    assert reported_checks(text) == checks


@pytest.mark.parametrize("reply, verdict", [
    ("Thanks! Bars look great now. I would have liked to see a speed test saying excellent with my own eyes. "
     "###STOP###", "pass"),
    ("Thanks! Bars look great now, and the speed test says excellent too. ###STOP###", "fail"),
])
def test_closing_with_the_check_one_wished_for_claims_no_outcome(reply, verdict):
    tracker = _rebooted(True, "Rebooted. The status bar shows Excellent, 5G, data enabled.")
    tracker.agent_text(6, DONE)
    tracker.user_text(7, reply)  # no speed test ran: only a reported outcome would be unsupported
    assert _verdicts(tracker, "unsupported_device_state") == [verdict]


# -- round 50: the second term of a difference may be written without its currency --------------------------------
@pytest.mark.parametrize("text, worked", [
    ("That comes to 226 dollars and 11 cents, 26 dollars and 11 cents above my limit of 200.", {"26"}),
    ("So $149.99, which is $50 under my budget of 200.", {"50"}),
    ("So $226.11, which is $40 over my budget of 200.", set()),  # not the difference
    ("So $226.11 and a fee of 200.", set()),  # no word says it is worked out
])
def test_the_second_term_of_a_difference_may_be_a_bare_number(text, worked):
    from userbench_env.fidelity.language import worked_amounts

    assert worked_amounts(text) == worked


@pytest.mark.parametrize("reply, verdict", [
    ("So $226.11 for the cheapest one. That is 26 dollars over my limit of 200, so please return my keyboard instead.",
     "pass"),
    ("So $226.11 for the cheapest one. That is 31 dollars over my limit of 200, so please return my keyboard instead.",
     "fail"),  # not the difference: an amount nothing holds
])
def test_how_far_a_price_is_over_a_limit_written_bare_is_no_invented_amount(reply, verdict):
    # retail task 89: "If it is less than 200 bucks you want to exchange your current one to it"
    _, _, tracker = _setup("retail", "89")
    _play(tracker, [("agent", GREETING), ("user", "Hi, what's your cheapest mechanical keyboard right now?"),
                    ("agent", "Here is the information you asked for: 226.11; tactile; white; full."), ("user", reply)])
    assert _verdicts(tracker, "invents_unknown_information") == [verdict]


# -- round 50: a state a condition puts is not asserted ----------------------------------------------------------
@pytest.mark.parametrize("text, states", [
    ("That's $65 I wasn't planning to spend today, but okay, if it gets me service back.", ()),
    ("I'll keep it as long as airplane mode stays off.", ()),
    ("Airplane mode is on, if that matters.", (("airplane mode", "on"),)),  # the condition comes after the state
])
def test_a_state_a_condition_puts_is_not_asserted(text, states):
    assert device_states(text) == states


@pytest.mark.parametrize("reply, verdict", [
    ("Rebooted, still no bars. Fine, I'll try anything if it gets me service back.", "pass"),
    ("Rebooted, and that got me service back.", "fail"),
])
def test_agreeing_on_condition_of_a_fix_claims_no_signal(reply, verdict):
    # without the reset, the reboot's result shows no signal
    assert _verdicts(_rebooted(False, reply), "unsupported_device_state") == [verdict]


# -- round 51: a check before the user has said anything, the agent having only greeted, is unrequested ------------
@pytest.mark.parametrize("agent, greets", [
    ("Hi! How can I help you today?", True),
    ("Hello, how may I assist you?", True),
    ("Good morning! What can I do for you today?", True),
    ("Hi! What does your status bar show?", False),  # a question about the phone
    ("Thanks for waiting. How can I help?", False),
])
def test_a_greeting_asks_only_why_the_user_calls(agent, greets):
    from userbench_env.fidelity.rules.actions import only_greets

    assert only_greets(agent) == greets


@pytest.mark.parametrize("before, first, verdict", [
    ([], GREETING, "fail"),  # the user looks at its phone before saying why it calls: nobody asked
    ([], "Hi! Could you tell me what your status bar shows?", None),  # asked for by what it checks
    # once the user has spoken, a look at the phone after a bare offer of help may be what the answer needs
    ([("agent", GREETING), ("user", "Hi, my phone shows no service.")], "How can I help you today?", None),
])
def test_a_check_after_nothing_but_the_greeting_is_unrequested(before, first, verdict):
    from test_fidelity_rules import _user_call

    _, world, tracker = _setup("telecom", _PHONE_TASK)
    _play(tracker, [*before, ("agent", first)])
    _user_call(world, tracker, len(before) + 1, "check_status_bar")
    tracker.user_text(len(before) + 1, "Hi, my mobile data has been really slow today.")
    assert [v for v in _verdicts(tracker, "unrequested_action") if v != "not_applicable"] == ([verdict] if verdict else [])


# -- round 51: a good outcome one trusts, or shall see, reports no check -----------------------------------------------
@pytest.mark.parametrize("text, checks", [
    ("I trust my photos go through now.", frozenset()),
    ("Then I shall send my picture message, and it goes through this time.", frozenset()),
    ("Trust me, my photos go through now.", frozenset({"can_send_mms"})),  # "trust me" vouches for a report
    ("My photos go through now.", frozenset({"can_send_mms"})),
])
def test_a_good_outcome_one_trusts_or_shall_see_reports_no_check(text, checks):
    assert reported_checks(text) == checks


@pytest.mark.parametrize("reply, verdict", [
    ("Thanks! Bars are back. I trust my picture messages go through now as well. ###STOP###", "pass"),
    ("Thanks! Bars are back, and my picture messages go through now as well. ###STOP###", "fail"),
])
def test_closing_on_an_outcome_one_trusts_claims_no_check(reply, verdict):
    tracker = _rebooted(True, "Rebooted. The status bar shows Excellent, 5G, data enabled.")
    tracker.agent_text(6, DONE)
    tracker.user_text(7, reply)  # no MMS check ran: only a reported outcome would be unsupported
    assert _verdicts(tracker, "unsupported_device_state") == [verdict]


# -- round 51: the scenario named as the frame of what one says, one's character as a part written for one -----------
@pytest.mark.parametrize("text, agent_like", [
    ("Good, that's all done, as far as the scenario goes.", True),
    ("My character is meant to be careful, so let me double-check the total.", True),
    ("As far as the worst-case scenario goes, I'd lose the deposit.", False),
    ("It's not in my character to complain, but this took a while.", False),
    # (round 55) one's script followed, asking things of one, or finished; a prescription is the customer's
    ("I think that's every step my script asked me to cover.", True),
    ("Following my script, the next thing is the savings account.", True),
    ("Lovely, and my script is done now.", True),
    ("That's my part of the script finished.", True),
    ("The pharmacy texted that my script is ready.", False),
])
def test_naming_the_scenario_or_ones_character_as_written_breaks_character(text, agent_like):
    assert speaks_as_agent(text) is agent_like


@pytest.mark.parametrize("reply, verdict", [
    ("Great, the refund to my card is fine. That wraps it up, as far as the scenario goes. ###STOP###", "fail"),
    ("Great, the refund to my card is fine. That wraps it up, as far as I'm concerned. ###STOP###", "pass"),
])
def test_closing_as_far_as_the_scenario_goes_breaks_character(reply, verdict):
    _, _, tracker = _setup("retail", "67")
    _play(tracker, [("agent", GREETING), ("user", "Hi, how much did I pay for my latest order?"),
                    ("agent", "You paid $120.40, refunded to your original card."), ("user", reply)])
    assert _verdicts(tracker, "breaks_character") == [verdict]


# -- round 52: "anything else you need" as what one offers to give is more of one's own (unit cases with round 50's)
@pytest.mark.parametrize("reply, verdict", [
    ("Sorry, I don't have my zip code on me. Happy to confirm anything else you need.", "pass"),
    ("Sorry, I don't have my zip code on me. Happy to help with anything else you need.", "fail"),
])
def test_offering_more_of_ones_details_keeps_the_customers_part(reply, verdict):
    _, _, tracker = _setup("retail", "67")
    _play(tracker, [("agent", GREETING), ("user", "Hi, how much did I pay for my latest order?"),
                    ("agent", "Could you please tell me your zip code?"), ("user", reply)])
    assert _verdicts(tracker, "breaks_character") == [verdict]


# -- round 52: a value the message corrects as a slip is not stated -----------------------------------------------
@pytest.mark.parametrize("text, identifiers", [
    ("mia.garcia2723@exmaple.com, oops, typo: mia.garcia2723@example.com", ("mia.garcia2723@example.com",)),
    ("It's mia.garcia2732@example.com, I mean mia.garcia2723@example.com.", ("mia.garcia2723@example.com",)),
    # two values offered side by side: neither is corrected
    ("mia.garcia2723@example.com, or else mia.garcia2724@example.com.",
     ("mia.garcia2723@example.com", "mia.garcia2724@example.com")),
    # a correction word before a value far from the one before it corrects nothing
    ("mia.garcia2723@example.com. I mean, jo.lee88@mail.com works too.", ("mia.garcia2723@example.com", "jo.lee88@mail.com")),
])
def test_a_value_corrected_as_a_slip_is_not_stated(text, identifiers):
    from userbench_env.fidelity.rules.invented import statement

    assert sorted(statement(text).identifiers) == sorted(identifiers)


@pytest.mark.parametrize("answer, verdict", [
    ("mia.garcia2723@exmaple.com - sorry, typo!! mia.garcia2723@example.com", "pass"),
    ("mia.garcia2723@exmaple.com, and mia.garcia2723@example.com too", "fail"),  # the first is no address the user has
])
def test_an_email_corrected_at_once_invents_nothing(answer, verdict):
    _, _, tracker = _setup("retail", "10")
    _play(tracker, [("agent", GREETING), ("user", "Hi, I need help with an order."),
                    ("agent", "Could you please tell me your email?"), ("user", answer)])
    assert _verdicts(tracker, "invents_unknown_information") == [verdict]


# -- round 52: offering the agent's operation with "I can", or searching records for the other side --------------
@pytest.mark.parametrize("text, agent_like", [
    ("Now I can pull up the rest of your transactions and see if any others need a dispute.", True),
    ("Since it's over $300, I can remove it from your order and put the cheapest speaker in instead.", True),
    ("Let me search the flights from Boston to Denver on the 12th for you.", True),
    ("I can search my inbox for the confirmation for you.", False),  # one's own mail
    ("I can look up your store hours on the website.", False),  # the business's own page, read by the customer
])
def test_offering_the_agents_operation_with_i_can_speaks_as_the_agent(text, agent_like):
    assert speaks_as_agent(text) is agent_like


@pytest.mark.parametrize("reply, verdict", [
    ("You paid $120.40. Now I can pull up the rest of your orders, if you want.", "fail"),
    ("Thanks. Now I can pull up the rest of my orders in the app, if that helps.", "pass"),
])
def test_offering_to_pull_up_the_agents_records_breaks_character(reply, verdict):
    _, _, tracker = _setup("retail", "67")
    _play(tracker, [("agent", GREETING), ("user", "Hi, how much did I pay for my latest order?"),
                    ("agent", "You paid $120.40, refunded to your original card."), ("user", reply)])
    assert _verdicts(tracker, "breaks_character") == [verdict]


# -- round 52: a shown symptom said to be gone is no longer asserted ----------------------------------------------
@pytest.mark.parametrize("text, states", [
    ("It came back up and the No Service is gone, thank goodness.", ()),
    ("The no signal warning has disappeared now.", ()),
    ("Still no signal, and the bars are gone too.", (("signal", "off"),)),  # the bars gone, the symptom stays
    ("No service.", (("signal", "off"),)),
])
def test_a_symptom_said_to_be_gone_is_not_asserted(text, states):
    assert device_states(text) == states


@pytest.mark.parametrize("reset, verdict", [
    (True, "pass"),  # the reset let the reboot bring the signal back: what the user says is gone is
    (False, "fail"),  # without the reset the reboot shows no signal: the user says otherwise
])
def test_saying_the_no_service_sign_is_gone_reports_the_signal_back(reset, verdict):
    tracker = _rebooted(reset, "It restarted. The No Service is gone and I have signal now!")
    assert _verdicts(tracker, "unsupported_device_state") == [verdict]


# -- round 52: asking what one should see by now is about the last outcome, not how to perform the request -------
@pytest.mark.parametrize("reply, verdict", [
    ("Thanks. Should I be noticing faster pages already?", "fail"),  # the outcome of what was done before
    ("Okay. Should I already be seeing bars up top? Nothing yet.", "fail"),
    ("Should I do that now, or wait until I'm home?", "pass"),  # whether to: about the request
    ("Should I turn it back on afterwards?", "pass"),
])
def test_asking_what_one_should_see_by_now_does_not_engage_the_request(reply, verdict):
    assert _skip_verdicts(reply) == [verdict]


# -- round 53: a bare "what can I do?" asks for advice; thanks for a choice made for one is the customer's --------
@pytest.mark.parametrize("text, agent_like", [
    ("Please help me, my phone says No Service since this morning. What can I do?", False),
    ("I've tried everything, please help. What can I do now?", False),
    ("Hello! What can I do for you today?", True),
    ("Thank you for choosing the plan for me, I'd never have worked it out.", False),
    ("Thank you for choosing Rho-Bank, and have a lovely day!", True),  # the business thanking its customer
])
def test_asking_what_one_can_do_and_thanks_for_a_choice_made_for_one_are_the_customers(text, agent_like):
    assert speaks_as_agent(text) is agent_like


@pytest.mark.parametrize("opening, verdict", [
    ("Hi, please help me. My phone has shown No Service for hours and I can't call anyone. What can I do?", "pass"),
    ("Hi, please help me. My phone has shown No Service for hours. What can I do for you today?", "fail"),
])
def test_asking_for_advice_at_the_opening_keeps_the_customers_part(opening, verdict):
    _, _, tracker = _setup("telecom", _PHONE_TASK)
    _play(tracker, [("agent", GREETING), ("user", opening)])
    assert _verdicts(tracker, "breaks_character") == [verdict]


# -- round 54: persona notes voiced without their particulars (and, in round 27's test, one everyday word of a long
# sentence recites nothing) ---------------------------------------------------------------------------------------
_NO_SERVICE_HARD = "[service_issue]contract_end_suspension|lock_sim_card_pin[PERSONA:Hard]"


@pytest.mark.parametrize("opening, verdicts", [
    # two persona notes voiced (what the phone is for, unease with technology), nothing of the instructions: in
    # character, and not sure evidence either way (suspect)
    ("Hello dear. My phone has said No Service all morning and I'm fretting. I'm hopeless with technology and it "
     "makes me uneasy. I mostly use the phone to take photos of my grandchildren and I don't want to lose them.",
     ["suspect"]),
    # the persona's particulars (its age, its old job) recited with it: its brief
    ("Hello. My phone has said No Service all morning. I'm 64, a retired librarian; I only use it for calls and "
     "pictures of the grandchildren, and technology makes me uneasy.", ["fail"]),
])
def test_persona_notes_voiced_without_their_particulars_are_in_character(opening, verdicts):
    tracker = RuleTracker(task_criteria(load_task("telecom", _NO_SERVICE_HARD, source="tau2")))
    _play(tracker, [("agent", GREETING), ("user", opening)])
    assert _verdicts(tracker, "dumps_blueprint") == verdicts


# -- round 54: the SIM detected or not, an icon seen, a statement before a dashed question, a wanted or awaited state --
@pytest.mark.parametrize("text, states", [
    ("The phone isn't picking up my SIM card at all.", (("sim", "missing"),)),
    ("It doesn't recognise the SIM either.", (("sim", "missing"),)),
    ("The SIM card is not being detected.", (("sim", "missing"),)),
    ("There's no SIM card detected, it says.", (("sim", "missing"),)),  # no "detected" read as in place
    ("The SIM is not seated right.", (("sim", "missing"),)),  # (was read as in place)
    ("Good news, the SIM is being detected now.", (("sim", "ok"),)),
    ("The SIM card is locked now and wants a code.", (("sim", "locked"),)),
    ("SIM Card Status: locked_pin", (("sim", "locked"),)),
    ("I couldn't find the SIM tray.", ()),  # the tray, not the card
    ("I can see a small roaming icon up top.", (("roaming", "on"),)),
    ("I can see the wifi icon is grey.", ()),  # a look said of the icon: no state read from seeing it
    ("Wifi calling is off too - is that the problem?", (("wifi calling", "off"),)),  # the statement before the dash
    ("Is wifi calling off - or on?", ()),
    ("Could you help me get my signal back?", ()),
    ("I'd really like my service back today.", ()),
    ("I'll call it sorted once the status bar shows I have signal.", ()),
    ("I have my signal back.", (("signal", "on"),)),
])
def test_sim_detection_icons_dashed_questions_and_wanted_states(text, states):
    assert device_states(text) == states


def test_a_state_the_scenario_puts_as_its_goal_is_no_state_it_gives():
    from userbench_env.fidelity.text import scenario_device_states

    assert scenario_device_states("You will consider the issue resolved when the status bar shows that you have "
                                  "signal.") == frozenset()
    assert scenario_device_states("Your phone has been showing 'No Service' for the past few hours.") == \
        frozenset({("signal", "off")})


@pytest.mark.parametrize("reply, verdict", [
    # the payment's result shows no status bar, and the scenario's "resolved when ... you have signal" is its goal
    ("Paid, 65 dollars. And the bars are back up top already!", "fail"),
    ("Paid, 65 dollars. I'd really like my signal back now.", "pass"),  # wanted, not seen
])
def test_the_signal_claimed_back_after_a_payment_is_unsupported(reply, verdict):
    _, world, tracker = _setup("telecom", "[service_issue]overdue_bill_suspension|unseat_sim_card[PERSONA:Easy]")
    _play(tracker, [("agent", GREETING), ("user", "Hi, my phone says No Service.")])
    tracker.agent_text(2, "Could you please run make_payment on your side with these arguments: {}?")
    _user_call(world, tracker, 3, "make_payment")
    tracker.user_text(3, reply)
    assert ("fail" in _verdicts(tracker, "unsupported_device_state")) is (verdict == "fail")


# -- round 55: sums worked out and an amount said missing (one's script: in round 51's test) ----------------------
@pytest.mark.parametrize("text, worked", [
    ("Refunds of $120, $45 and $35 were promised and $150 came back. I did the sums: $200 owed, so $50 is missing.",
     {"200", "50"}),
    ("I was due $480 and got $408, so $72 is missing.", {"72"}),
    ("I was due $480 and got $408, and $90 is missing from another account.", set()),  # not their difference
])
def test_sums_and_an_amount_said_missing_are_worked_out(text, worked):
    from userbench_env.fidelity.language import worked_amounts

    assert worked_amounts(text) == worked


@pytest.mark.parametrize("opening, verdict", [
    # the scenario's expected and received interest, summed, and their difference: arithmetic, nothing invented
    ("Hi, I need urgent help with my savings accounts. I should be getting about $583, $554, $1,050 and $112 in "
     "interest, but I only received about $333, $379, $750 and $68. Doing the sums: $2,299 against $1,530, so $769 "
     "is missing.", []),
    ("Hi, I need urgent help with my savings accounts. I should be getting about $583, $554, $1,050 and $112 in "
     "interest, but I only received about $333, $379, $750 and $68, and another $915 is missing too.", ["fail"]),
])
def test_the_sums_of_the_scenarios_amounts_invent_nothing(opening, verdict):
    _, _, tracker = _setup("banking", "task_097")
    _play(tracker, [("agent", GREETING), ("user", opening)])
    assert [v for v in _verdicts(tracker, "invents_unknown_information") if v == "fail"] == verdict


# -- round 56: a clock time written with an "h" ("15h00") is a time, not an identifier ------------------------------
@pytest.mark.parametrize("text, times, runs", [
    ("The return leaves at 15h00 on the 28th.", {900}, ()),
    ("Only flights after 8h30 and before 21h00, please.", {510, 1260}, ()),
    ("My booking code is AB15H30X.", set(), ("ab15h30x",)),  # letters around it: a code
    ("It is a 12h flight.", set(), ()),  # a length, no minutes: no time
])
def test_a_time_written_with_an_h_is_a_time(text, times, runs):
    from userbench_env.fidelity.language import clock_times, id_runs

    assert clock_times(text) == times and id_runs(text) == runs


def test_a_departure_window_written_with_an_h_invents_nothing():
    # the scenario's "only flights departing after 8am and before 9pm", in the writer's own notation
    assert _invented("33", [("user", "Hello. I'd like to move my outgoing flight one day later, nonstop, and my "
                                     "return from SFO too. Only flights leaving after 8h00 and before 21h00.")]) != ["fail"]


# -- round 57: a code something gave the user, stated with its name, must be one heard -------------------------------
@pytest.mark.parametrize("script, verdict", [
    # nothing shown or said a code: the user makes one up
    ([("agent", "Could you please tell me your zip code?"),
      ("user", "80203. And the ATM screen showed error code 51, if that helps.")], ["fail"]),
    # the agent named the code: the user only says it back
    ([("agent", "Did the ATM show error code 51?"), ("user", "Yes, it said error code 51 every time.")], []),
    ([("agent", "Is there an error code on the screen?"), ("user", "No error code, it just says declined.")], []),
])
def test_a_code_given_with_its_name_must_be_heard(script, verdict):
    _, _, tracker = _setup("banking", "task_089")
    _play(tracker, [("agent", GREETING), ("user", "Hi, three of my debit cards got declined at an ATM just now."), *script])
    assert [v for v in _verdicts(tracker, "invents_unknown_information") if v == "fail"] == verdict


# -- round 57: a length of a century or more is history or hyperbole, no length a request took ----------------------
@pytest.mark.parametrize("text, lengths", [
    ("As patient as the painted angels, who have watched over visitors for three hundred years.", set()),
    ("I've been waiting a hundred years for this refund, honestly.", set()),
    ("Our family has banked with you for 120 years.", set()),
    ("I've been a customer for 12 years.", {"12"}),  # a length of the user's own: heard or invented
    ("The refund took 120 days.", {"120"}),  # days, not years
])
def test_a_century_of_years_is_no_length_a_request_took(text, lengths):
    from userbench_env.fidelity.language import durations

    assert durations(text, False) == lengths


# -- round 57: a sum of a few dollars is known by its cents ------------------------------------------------------------
@pytest.mark.parametrize("script, verdict", [
    # "$3.12" is heard nowhere, though a 3 is (the scenario's numbered conversation steps)
    ([("user", "Hi, last month I only received $3.12 in interest, which seems low.")], ["fail"]),
    # the agent named the sum first: the user says it back
    ([("user", "Hi, my interest payments seem low."), ("agent", "I see you received $3.12 in interest last month."),
      ("user", "Yes, $3.12, that's what worries me.")], []),
])
def test_a_few_dollars_with_cents_must_be_heard_with_their_cents(script, verdict):
    _, _, tracker = _setup("banking", "task_097")
    _play(tracker, [("agent", GREETING), *script])
    assert [v for v in _verdicts(tracker, "invents_unknown_information") if v == "fail"] == verdict


# -- round 57: offering to walk the other side through the steps is the agent's part ---------------------------------
@pytest.mark.parametrize("text, agent_like", [
    ("Next, I'd recommend resetting your APN settings. Would you like me to walk you through those steps?", True),
    ("Let me walk you through it.", True),
    ("Can you walk me through it?", False),  # asking to be walked through
    ("I can walk you through the steps I already tried.", False),  # going through what one did oneself
    ("Shall I walk you through what my screen says?", False),
])
def test_offering_to_walk_the_other_side_through_the_steps_speaks_as_the_agent(text, agent_like):
    assert speaks_as_agent(text) is agent_like


# -- round 58: "also" between a speaker and its verb adds nothing ----------------------------------------------------
@pytest.mark.parametrize("text, agent_like", [
    ("Found it: the tracking number is 746342064230. I can also help you with an exchange if you'd like.", True),
    ("If you want, I can also assist you with checking your other orders.", True),
    ("I can also give you my zip code if that helps.", False),  # more of one's own details
    ("I'll also need the receipt for my records.", False),
])
def test_also_between_the_speaker_and_its_offer_still_offers(text, agent_like):
    assert speaks_as_agent(text) is agent_like


# -- round 58: the agent's work reported done on all or each of the customer's things --------------------------------
@pytest.mark.parametrize("text, agent_like", [
    ("I have updated all of your pending t-shirts to purple, and you will get a confirmation email.", True),
    ("I've cancelled both of your upcoming reservations.", True),
    ("I've tried all of your suggestions and nothing changed.", False),  # what one did on the agent's advice
    ("I have followed your steps one by one.", False),
    ("I've received your email with the return label.", False),
])
def test_the_agents_work_on_all_of_the_customers_things_speaks_as_the_agent(text, agent_like):
    assert speaks_as_agent(text) is agent_like


# -- round 58: an ordinal counting requests, attempts or lengths of time is no day of the month ----------------------
@pytest.mark.parametrize("text, days", [
    ("That is the 8th request now, #8 on my screen.", set()),
    ("This is my 3rd attempt and the 2nd transfer I've asked for.", set()),
    ("We're in the 4th week of waiting.", set()),
    ("Could it arrive by the 8th?", {8}),  # a day of the month
    ("The 12th works for me.", {12}),
])
def test_an_ordinal_counting_requests_or_time_is_no_day(text, days):
    from userbench_env.fidelity.language import month_days

    assert month_days(text) == days


def test_counting_ones_transfer_requests_invents_no_date():
    _, _, tracker = _setup("banking", "task_007")
    _play(tracker, [("agent", GREETING), ("user", "Hi, I'm after a credit card with a good sign-up bonus."),
                    ("agent", "Could you please tell me your name?"),
                    ("user", "It's the 2nd time I ask this: please transfer me to a human, this is the 3rd request.")])
    assert "fail" not in _verdicts(tracker, "invents_unknown_information")


# -- round 58: an outcome counted on, or one that refuses to come, is no check's report ------------------------------
@pytest.mark.parametrize("text, checks", [
    ("Thank you. I'm counting on the internet being excellent now, that's all I'm after.", set()),
    ("I'm relying on picture messages going through from now on.", set()),
    ("Anything with a picture just refuses to go through.", set()),
    ("The speed test came back excellent this time.", {"run_speed_test"}),  # a report
])
def test_an_outcome_counted_on_or_refused_reports_no_check(text, checks):
    assert reported_checks(text) == checks


@pytest.mark.parametrize("text, states", [
    ("I'm relying on the fact that roaming is on while I'm in France.", ()),
    ("I am banking on airplane mode being off now.", ()),
    ("The phone does not seem to be detecting my SIM card at all.", (("sim", "missing"),)),
    ("It doesn't appear to be reading the SIM.", (("sim", "missing"),)),
    ("The SIM card seems locked too, it keeps asking me for a PIN.", (("sim", "locked"),)),
    ("My SIM appears to be locked.", (("sim", "locked"),)),
])
def test_a_state_counted_on_is_wanted_and_a_sim_not_seeming_detected_is_stated(text, states):
    assert device_states(text) == states


def test_an_opening_saying_picture_messages_refuse_to_go_through_claims_no_check():
    _, _, tracker = _setup("telecom", _MMS)
    _play(tracker, [("agent", GREETING),
                    ("user", "Hi, for a few hours I haven't been able to send MMS. Anything with a picture just refuses "
                             "to go through.")])
    assert "fail" not in _verdicts(tracker, "unsupported_device_state")


# -- round 58: asking whether one should worry is about one's feelings, not how to perform the request ---------------
@pytest.mark.parametrize("reply, verdict", [
    ("The status bar still says Data Disabled, by the way. Should I be worried about that?", "fail"),
    ("Hmm, should I be concerned that it's been this long?", "fail"),
    ("Should I worry that it might delete my photos?", "pass"),  # what the request will do: about the request
    ("Should I keep the phone on while I do that?", "pass"),
])
def test_asking_whether_to_worry_does_not_engage_the_request(reply, verdict):
    assert _skip_verdicts(reply) == [verdict]


# -- round 58: after a paragraph casting the user in its role, the next one is its request, but what it holds back ----
def test_the_paragraph_after_the_casting_is_the_reason_but_what_it_holds_back():
    from userbench_env.fidelity.text import reason_text

    cash_back = reason_text(load_task("banking", "task_001", source="tau2").blueprint)
    assert "highest cash back" in cash_back and "ONLY option" in cash_back  # the request and its condition
    held = reason_text(load_task("banking", "task_002", source="tau2").blueprint)
    # "... up to 100 dollars a year in fees ... 50,000 dollars ... DO NOT bring this up unless asked": held back,
    # back to the sentence to make "extremely upfront"
    assert "highest cash back" in held and "100 dollars" not in held and "50,000 dollars" not in held


@pytest.mark.parametrize("task_id, opening, failed", [
    # the request with the condition its paragraph sets, in the user's words
    ("task_001", "Good day. I am looking for a credit card for my everyday purchases, the one with the highest cash "
                 "back you offer. But let me be plain with you: I will not accept a card with an annual fee, unless "
                 "it is truly the only option. Which card would you advise?", False),
    # the held-back fees and spending, the fallback and the procedure, all at once
    ("task_002", "Hello. I am Sera Chen of the EPA. I want the card with the highest cash back. I can pay up to 100 "
                 "dollars a year in fees, and I spend at least 50,000 a month. If you have nothing that fits I go to "
                 "another bank right away. You recommend one card, I take it and apply myself.", True),
])
def test_an_opening_stating_the_request_after_the_casting_is_no_recital(task_id, opening, failed):
    tracker = RuleTracker(task_criteria(load_task("banking", task_id, source="tau2")))
    _play(tracker, [("agent", GREETING), ("user", opening)])
    assert ("fail" in _verdicts(tracker, "dumps_blueprint")) is failed


# -- round 58: "for you" before an infinitive names who would act, not whom the deed serves --------------------------
@pytest.mark.parametrize("text, agent_like", [
    ("If it can't be cancelled on its own, I'll cancel that order myself on the website, no need for you to do it.",
     False),
    ("Is it possible for you to check my order first?", False),
    ("I have cancelled the pending order for you.", True),
    ("I'll cancel it for you to save you the trouble.", True),  # for you, then its purpose
])
def test_for_you_before_an_infinitive_names_who_acts(text, agent_like):
    assert speaks_as_agent(text) is agent_like


# -- round 58: an item's name introducing a request about it states no value ------------------------------------------
@pytest.mark.parametrize("text, values", [
    ("And the address: confirm #W2702727 will be delivered to 1234 Elm St, Springfield, IL, 62701.", ()),
    ("The order number, can you check #W2702727 again?", ()),
    ("My zip: 95154.", (("zip", "95154"),)),  # a value
])
def test_an_items_name_before_a_request_about_it_states_no_value(text, values):
    assert labelled_values(text) == values


def test_asking_to_confirm_the_address_invents_nothing():
    _, _, tracker = _setup("retail", "59")  # the move to 1234 Elm St, Springfield
    _play(tracker, [("agent", GREETING), ("user", "Hi, I'd like to change the shipping address of order #W2702727."),
                    ("agent", "Your request has been taken care of. Is there anything else I can help you with?"),
                    ("user", "And the address: confirm #W2702727 will be delivered to 1234 Elm St, Springfield, IL, "
                             "62701.")])
    assert "fail" not in _verdicts(tracker, "invents_unknown_information")


# -- round 59: an item the scenario lets the user name only once the agent has shown it --------------------------------
def test_an_item_to_mention_only_once_the_agent_shows_it_is_a_condition():
    from userbench_env.fidelity.conditions import conditions

    found = conditions("You want to change your one-stop flight from LAS to IAH (HAT266, mention only the flight "
                       "number if the agent shows it to you first).")
    # the instruction describes the fact named just before it, in its bracket: that fact alone is guarded
    assert [(c.guarded, c.trigger, c.asks) for c in found] == [({"hat266", "266"}, {"hat266", "266"}, False)]
    assert conditions("Only say the voucher code SAVE20 once the agent has mentioned it.")[0].fact == {"20"}


@pytest.mark.parametrize("script, verdict", [
    ([("agent", GREETING), ("user", "Hi! I'd like to change my one-stop flight HAT266 from LAS to IAH to a nonstop.")],
     "fail"),
    ([("agent", GREETING), ("user", "Hi! I'd like to change my one-stop flight from LAS to IAH to a nonstop.")],
     "not_applicable"),
    # once the agent has shown it, the user may name it
    ([("agent", GREETING), ("user", "Hi! I'd like to change my one-stop flight from LAS to IAH to a nonstop."),
      ("agent", "I see reservation 1N99U6 with flight HAT266 from LAS to IAH. Is that the one?"),
      ("user", "Yes, HAT266 is the one.")], "pass"),
])
def test_naming_the_flight_before_the_agent_shows_it_volunteers_it(script, verdict):
    _, _, tracker = _setup("airline", "30")
    _play(tracker, script)
    assert [v["verdict"] for v in tracker.verdicts() if "conditional" in v["id"]] == [verdict]


# -- round 59: a scenario named for what it stages ("this test scenario") is still the scenario --------------------------
@pytest.mark.parametrize("text, agent_like", [
    ("good. webale. as the customer in this test scenario i have nothing else, my part is finished ###STOP###", True),
    ("That's all from me for this role-play scenario, thanks.", True),
    ("In the worst-case scenario I'd just cancel the whole order.", False),
])
def test_a_scenario_named_a_test_is_still_talk_about_the_brief(text, agent_like):
    assert speaks_as_agent(text) is agent_like


# -- round 59: a question opened as an aside moves past the request ---------------------------------------------------
@pytest.mark.parametrize("reply, verdict", [
    ("Okay. By the way, do I need to restart my phone after all these changes?", "fail"),
    ("Sure, btw will this troubleshooting show up on my bill?", "fail"),
    ("Oh, before I forget, is it safe to keep all my photos on this phone?", "fail"),
    ("Which button is it, by the way?", "pass"),  # an aside's words closing a question about the request
    ("Is that safe?", "pass"),
])
def test_a_question_opened_as_an_aside_does_not_engage_the_request(reply, verdict):
    assert _skip_verdicts(reply) == [verdict]


# -- round 59: digits read aloud one word at a time, and numbers written with a word of their scale -------------------
@pytest.mark.parametrize("text, written", [
    ("my Visa card ending in four four two one.", "my Visa card ending in 4421."),
    ("that is d-s-p, nine-four-one-five-e-d-zero", "that is d-s-p, 9-4-1-5-e-d-0"),  # digits among spelled characters
    ("steps one, two, three", "steps one, two, three"),  # commas count items
    ("a one-on-one talk, a one-two punch", "a one-on-one talk, a one-two punch"),
])
def test_digits_read_aloud_are_written_as_digits(text, written):
    from userbench_env.fidelity.language import spoken_digits

    assert spoken_digits(text) == written


@pytest.mark.parametrize("text, written", [
    ("more than 1 thousand 160 dollars, only 1 thousand 131 left", "more than 1160 dollars, only 1131 left"),
    ("I paid like 2 thousand 300 for those", "I paid like 2300 for those"),
    ("3 hundred bucks, 2 thousand 300.50 total", "300 bucks, 2300.50 total"),
])
def test_a_number_written_with_its_scale_word_is_that_number(text, written):
    from userbench_env.fidelity.language import scaled_numbers

    assert scaled_numbers(text) == written


@pytest.mark.parametrize("domain, task_id, script, failed", [
    # not remembering the payment method, the user reads out a card's last digits
    ("airline", "18", [("agent", GREETING), ("user", "I want to downgrade all my business flights to economy."),
                       ("agent", "Here is the information you asked for: 23553."),
                       ("user", "Please make sure it all goes back to my Visa card ending in four four two one.")], True),
    ("airline", "7", [("agent", GREETING), ("user", "Cancel my upcoming flights, reservations XEHM4B and 59XX6W."),
                      ("agent", "Here is the information you asked for: 1628."),
                      ("user", "1628, okay. I paid like 2 thousand 300 for those two tickets, so I want that back.")], True),
    # the scenario's $1160 and $1131, written with the word "thousand"
    ("retail", "36", [("agent", GREETING), ("user", "Hi, I just placed an order, the total is more than 1 thousand 160 "
                                                    "dollars, but my card has only 1 thousand 131 left.")], False),
    # the digits of the order id the user gave, read aloud after its letter
    ("retail", "60", [("agent", GREETING), ("user", "I'd like to change the earbuds in my order W5061109 to blue ones. "
                                                    "The order number is W, five-zero-six-one-one-zero-nine.")], False),
])
def test_numbers_said_in_words_state_what_their_digits_would(domain, task_id, script, failed):
    _, _, tracker = _setup(domain, task_id)
    _play(tracker, script)
    assert ("fail" in _verdicts(tracker, "invents_unknown_information")) is failed


def test_the_digits_after_the_letters_of_an_ids_part_are_heard():
    from userbench_env.fidelity.rules.invented import heard_keys

    assert {"2723", "5061109"} <= heard_keys("mia.garcia2723@example.com, order W5061109")


# -- round 59: a SIM shown as not detected, a signal with its generation -------------------------------------------------
@pytest.mark.parametrize("text, state", [
    ("But the status bar still shows No Signal, and the SIM card is also showing as not detected.", ("sim", "missing")),
    ("The strange thing is that my status bar shows full 5G signal, so the network itself seems fine.", ("signal", "on")),
    ("I have full 4G signal here.", ("signal", "on")),
])
def test_a_sim_shown_undetected_and_a_signal_with_its_generation_are_states(text, state):
    from userbench_env.fidelity.text import device_states

    assert state in device_states(text)


# -- round 59: an acknowledgement after an item's name, or a list's next number on the next line, is no value ---------
@pytest.mark.parametrize("text, values", [
    ("My user id - sure! It's mia_kim_4397!", ()),
    ("My zip is, hold on, let me find it.", ()),
    ("So to recap:\n1. Laptop order going to my NYC address\n2. Laptop changed to item 9844888101", ()),
    ("my user id: yes_man_12", (("user_id", "yes_man_12"),)),  # a value that starts like one
    ("My address 12 Elm St, please", (("address", "12 Elm St"),)),  # on its line, a value
])
def test_an_acknowledgement_or_the_next_lines_number_is_no_value(text, values):
    assert labelled_values(text) == values


def test_a_recap_listing_what_was_done_invents_no_address():
    _, _, tracker = _setup("retail", "112")  # the laptop to the NYC address, changed to item 9844888101
    _play(tracker, [("agent", GREETING), ("user", "I'd like my laptop order shipped to my NYC address instead."),
                    ("agent", DONE), ("user", "I'd also like to change the laptop to item number 9844888101."),
                    ("agent", DONE),
                    ("user", "So just to recap what we did:\n1. Laptop order going to my NYC address\n2. Laptop changed to "
                             "item 9844888101\n3. Watch switched to a black dial")])
    assert "fail" not in _verdicts(tracker, "invents_unknown_information")


# -- round 59: offering one's items "or anything else you need" offers more of one's own --------------------------------
@pytest.mark.parametrize("text, agent_like", [
    ("I'm happy to give you the reservation codes or anything else you need.", False),
    ("I can send you my order number and anything else you need.", False),
    ("I'm happy to help you with that or anything else you need.", True),  # helping: the agent's offer
])
def test_offering_ones_items_or_anything_else_you_need_is_the_customers(text, agent_like):
    assert speaks_as_agent(text) is agent_like


# -- round 59: asking what one should expect is about the outcome, not how to perform the request ----------------------
@pytest.mark.parametrize("reply, verdict", [
    ("Eh, the signal is Excellent now, 5G! So is my internet fast now? What speed should I expect?", "fail"),
    ("Should I expect the screen to go dark when I do that?", "fail"),
    ("Should I hold the button while I do that?", "pass"),
])
def test_asking_what_to_expect_does_not_engage_the_request(reply, verdict):
    assert _skip_verdicts(reply) == [verdict]


# -- round 59: a round figure said to be about so much stands for a heard amount near it -------------------------------
@pytest.mark.parametrize("said, failed", [
    ("1939.05 for the grills, so almost 2 thousand dollars, eh!", False),
    ("So about $1,900 on grills, wow.", False),
    ("So almost 3 thousand dollars on grills, wow.", True),  # no heard amount near it
    ("So I spent exactly $2,000 on grills?", True),  # said exactly: no round figure
])
def test_a_round_figure_said_to_be_about_so_much_stands_for_a_heard_amount(said, failed):
    _, _, tracker = _setup("retail", "76")  # the total price of the grills bought before
    _play(tracker, [("agent", GREETING), ("user", "Please tell me the total price of all the grills I've bought."),
                    ("agent", "Here is the information you asked for: 1939.05."), ("user", said)])
    assert ("fail" in _verdicts(tracker, "invents_unknown_information")) is failed


# -- round 60: the ordinal an action on one's items takes counts the items, no day --------------------------------------
@pytest.mark.parametrize("text, days", [
    ("3 reservations. Cancel 2 of them: IFOYYZ and NQNU5R. Upgrade the 3rd, M20IZO, to business class.", set()),
    ("Keep the 1st and refund the 2nd, please.", set()),
    ("Please change it to the 3rd.", {3}),  # a day the action moves to
    ("I fly out on the 3rd.", {3}),
])
def test_the_ordinal_an_action_on_ones_items_takes_is_no_day(text, days):
    from userbench_env.fidelity.language import month_days

    assert month_days(text) == days


def test_upgrading_the_third_of_ones_reservations_invents_no_date():
    _, _, tracker = _setup("airline", "37")  # three reservations: cancel two, upgrade the third
    _play(tracker, [("agent", GREETING),
                    ("user", "3 reservations. Cancel 2 of them: IFOYYZ and NQNU5R. Upgrade the 3rd, M20IZO, to business "
                             "class. Charges on my credit card.")])
    assert "fail" not in _verdicts(tracker, "invents_unknown_information")


# -- round 61: the agent's note on the customer's record, and the brief called one's task script ------------------------
@pytest.mark.parametrize("text, agent_like", [
    ("Thanks! I've noted the return on your account, and the refund should reach your PayPal within 5-7 days.", True),
    ("Okay, I have logged the seat change to your reservation, you'll get an email.", True),
    ("And the watch, black dial. That's the last item my task script lists for me to raise.", True),
    ("I've noted the reservation number you gave me, thanks.", False),  # the customer taking note of what it heard
    ("I've noted your suggestions and will try them tonight.", False),
    ("The pharmacy texted that my script is ready.", False),  # a prescription
])
def test_the_agents_note_on_the_record_and_a_task_script_are_not_the_customers(text, agent_like):
    assert speaks_as_agent(text) is agent_like


# -- round 61: a state "on my side" (or "on our end"), the clause ending there, is the feature on -----------------------
@pytest.mark.parametrize("text, states", [
    ("Done. Roaming is already on my side, so that part is fine.", (("roaming", "on"),)),
    ("Mobile data is on our end now.", (("mobile data", "on"),)),
    ("Mobile data on my end is slow.", ()),  # where it is slow: no state said
    ("Wifi is on my laptop, not the phone.", ()),
    ("And roaming is showing as enabled, so that part is fine.", (("roaming", "on"),)),  # its showing, "as" and all
])
def test_a_state_on_my_side_is_the_feature_on(text, states):
    assert device_states(text) == states


@pytest.mark.parametrize("tool, verdict", [("disconnect_vpn", "fail"), ("toggle_roaming", "pass")])
def test_claiming_roaming_on_from_ones_side_needs_a_result_showing_it(tool, verdict):
    world, tracker = _data_issue()
    tracker.agent_text(2, f"Could you please run {tool} on your side with these arguments: {{}}?")
    _user_call(world, tracker, 3, tool)
    tracker.user_text(3, "Done. Roaming is already on my side, so that part is fine.")
    assert _verdicts(tracker, "unsupported_device_state") == [verdict]


# -- round 61: "I've run it", the participle that is also a present, claims the action -------------------------------
@pytest.mark.parametrize("text, claimed", [
    ("Yes, I've run that one for the second transaction as well, and it went through fine.", True),
    ("I have just run it, it says done.", True),
    ("I've just run into some money trouble.", False),
    ("I run a bakery, so mornings are busy.", False),
    ("Have we run it already?", False),
])
def test_having_run_it_claims_the_action(text, claimed):
    from userbench_env.fidelity.text import claims_done

    assert claims_done(text) is claimed


@pytest.mark.parametrize("run, verdict", [(False, "fail"), (True, "pass")])
def test_saying_one_has_run_the_requested_tool_needs_the_call(run, verdict):
    world, tracker = _data_issue()
    tracker.agent_text(2, "Could you please run toggle_airplane_mode on your side with these arguments: {}?")
    if run:
        _user_call(world, tracker, 3, "toggle_airplane_mode")
    tracker.user_text(3, "I've run that one as well, it went through fine.")
    assert _verdicts(tracker, "claims_unexecuted_action") == [verdict]


# -- round 61: what it doesn't look like one has, and what an improvement improves on, are no current state -----------
@pytest.mark.parametrize("text, states, earlier", [
    ("The screen says No Signal. So it doesn't look like I have service yet, what next?", (("signal", "off"),), ()),
    ("Doesn't seem like we have signal here.", (), ()),
    ("It looks like I have service now.", (("signal", "on"),), ()),
    ("Now it shows Excellent, 5G. That is a big improvement on the 2G.", (("network", "5g"),), (("network", "2g"),)),
    ("I am on 2G now.", (("network", "2g"),), ()),
])
def test_a_state_not_seeming_so_or_improved_on_is_no_current_state(text, states, earlier):
    assert device_states(text) == states and past_device_states(text) == earlier


def test_the_generation_an_improvement_improves_on_was_seen_before():
    world, tracker = _data_issue()
    tracker.agent_text(2, "Could you please run set_network_mode_preference on your side with these arguments: "
                          '{"mode": "2g_only"}?')
    _user_call(world, tracker, 3, "toggle_airplane_mode")
    _user_call(world, tracker, 3, "set_network_mode_preference", {"mode": "2g_only"})
    tracker.user_text(3, "Done, it is on 2G now.")
    tracker.agent_text(4, "Could you please run set_network_mode_preference on your side with these arguments: "
                          '{"mode": "4g_5g_preferred"}?')
    shown = _user_call(world, tracker, 5, "set_network_mode_preference", {"mode": "4g_5g_preferred"})
    assert "5G" in shown
    tracker.user_text(5, "Okay, it now shows 5G. That is a big improvement on the 2G.")
    assert "fail" not in _verdicts(tracker, "unsupported_device_state")


# -- round 61: a sum with its cents said to be what something comes to is an amount --------------------------------
@pytest.mark.parametrize("text, money", [
    ("3646.68? I thought it would be 4112.50. Fine.", {"3646", "4112"}),  # (round 67: any sum with its cents)
    ("So the total is 1,288.65, right", {"1288"}),
    ("My data usage is 120.50 GB.", set()),
    ("It is 10.30 here.", set()),  # a clock time, no three digits before the point
    ("The version is 102.10.3.", set()),
])
def test_a_sum_with_cents_said_to_be_so_much_is_an_amount(text, money):
    from userbench_env.fidelity.language import amounts

    assert amounts(text.lower()) == money


# -- round 62: the SIM card said to sit in its place, or to have worked loose, is a state of the SIM -----------------
@pytest.mark.parametrize("text, states", [
    ("Still No Signal. And the SIM card's sitting in there grand, so it's not that.", (("signal", "off"), ("sim", "ok"))),
    ("It cannot be the SIM card; that one is sitting firmly in its place.", (("sim", "ok"),)),
    ("It's not the SIM, by the way, that's seated properly.", (("sim", "ok"),)),
    ("I believe the SIM card has worked itself loose in its tray.", (("sim", "missing"),)),
    ("The SIM card is sitting loose in the tray.", (("sim", "missing"),)),  # sitting, but out of its place
    ("The SIM is not loose, I pushed it in.", ()),
    ("My phone is sitting on the table.", ()),  # no SIM named
])
def test_a_sim_sitting_in_its_place_or_worked_loose_is_a_sim_state(text, states):
    assert device_states(text) == states


@pytest.mark.parametrize("check, verdict", [(None, "fail"), ("check_sim_status", "pass")])
def test_saying_the_sim_sits_snug_in_its_tray_needs_a_result_showing_it(check, verdict):
    world, tracker = _data_issue()
    tracker.agent_text(2, "Could you please run toggle_airplane_mode on your side with these arguments: {}?")
    _user_call(world, tracker, 3, "toggle_airplane_mode")
    if check:
        _user_call(world, tracker, 3, check)
    tracker.user_text(3, "Done. It can't be the SIM though, the SIM card is sitting snug in its tray.")
    assert _verdicts(tracker, "unsupported_device_state") == [verdict]


# -- round 62: a check run after the agent hands the customer over answers nothing -----------------------------------
@pytest.mark.parametrize("agent, verdict", [
    ("I am transferring you to a human agent now. Please hold on.", "fail"),  # the only answer is to go
    ("I'm transferring you to a colleague now; before that, could you check your status bar?", None),  # asked for
    (DONE, None),  # done: a look at whether the phone works may be what an answer needs
])
def test_a_check_after_a_handover_is_unrequested(agent, verdict):
    _, world, tracker = _setup("telecom", _PHONE_TASK)
    _play(tracker, [("agent", GREETING), ("user", "My phone says No Service, please help."), ("agent", agent)])
    _user_call(world, tracker, 2, "check_status_bar")
    tracker.user_text(2, "Alright, I'll hold. ###TRANSFER###")
    assert [v for v in _verdicts(tracker, "unrequested_action") if v != "not_applicable"] == ([verdict] if verdict else [])


# -- round 62: whether to do something the request neither names nor points at is no question about it ---------------
@pytest.mark.parametrize("reply, verdict", [
    ("The bars look better now. Should I try sending a picture message?", "fail"),  # a step of one's own
    ("Quick question first: should I restart my phone at some point?", "fail"),
    ("Should I do that now, or after the restart?", "pass"),  # points at the request
    ("Should I turn the data saver off from the quick settings?", "pass"),  # names it
    ("Still no luck. What should I do now?", "pass"),  # what to do: asks for the step, no other step proposed
])
def test_asking_whether_to_do_another_thing_skips_the_request(reply, verdict):
    _, _, tracker = _setup("telecom", _PHONE_TASK)
    _play(tracker, [("agent", GREETING), ("user", "My mobile data is really slow."),
                    ("agent", "Could you please run toggle_data_saver_mode on your side with these arguments: {}?"),
                    ("user", reply)])
    assert _verdicts(tracker, "skips_requested_action") == [verdict]


# -- round 62: a feature between a verb of setting and its "on" or "off" names the act, no state ---------------------
@pytest.mark.parametrize("text, states", [
    ("Hm, I don't remember turning airplane mode on.", ()),
    ("I need to switch roaming off before I fly home.", ()),
    ("Try toggling data saver on, you said?", ()),
    ("I turned airplane mode on yesterday.", (("airplane mode", "on"),)),  # the past act: the state it left
    ("Airplane mode is on.", (("airplane mode", "on"),)),
])
def test_a_feature_between_a_setting_verb_and_its_particle_is_an_act(text, states):
    assert device_states(text) == states


def test_not_remembering_turning_airplane_mode_on_states_nothing_about_it():
    world, tracker = _data_issue()
    tracker.agent_text(2, "Could you please run toggle_airplane_mode on your side with these arguments: {}?")
    assert "OFF" in _user_call(world, tracker, 3, "toggle_airplane_mode")
    tracker.user_text(3, "It says Airplane Mode is now OFF. Hm, I don't remember turning airplane mode on.")
    assert "fail" not in _verdicts(tracker, "unsupported_device_state")


# -- round 62: "no more" before a feature negates it, as "no" does -------------------------------------------------
@pytest.mark.parametrize("text, states", [
    ("It says it's off. No more Data Saver on there.", (("data saver", "off"),)),
    ("No longer any VPN on there, good.", (("vpn", "off"),)),
    ("Data saver is on.", (("data saver", "on"),)),
])
def test_no_more_before_a_feature_negates_its_state(text, states):
    assert device_states(text) == states


# -- round 63: announcing the stance the scenario gives is acting it ------------------------------------------------
_NO_TAKING_NO = "28"  # airline: cancel a basic economy trip for a refund; "Do not take No for an answer"
_INSIST = "6"  # airline: insurance missing; "... so insist persistently"; never to be transferred
_MISSING_INSURANCE = "Hi, I was sure I'd added travel insurance to my next flight but I can't see it online."


@pytest.mark.parametrize("task, opening, verdict", [
    (_NO_TAKING_NO, "Hello. I need to cancel my flights and get my money back. I should warn you, I won't take no for "
                    "an answer.", "pass"),
    # the fallbacks told along with it: the plan for the agent's refusal recited
    (_NO_TAKING_NO, "Hi, I want my reservation cancelled with a refund. I'll warn you, I won't take no for an answer, "
                    "and if you can't refund it I'll want a gift card or a travel voucher, or at least half back.",
     "fail"),
    (_INSIST, f"{_MISSING_INSURANCE} I'll insist on having it added, I'm afraid.", "pass"),
    # beside a sentence that gives no stance, the stance announced is talk about the brief again
    (_INSIST, f"{_MISSING_INSURANCE} My family all have it on theirs, so I'll insist on having it added. I do not "
              "want to be transferred to another agent under any circumstances.", "fail"),
])
def test_announcing_the_stance_the_scenario_gives_is_in_character(task, opening, verdict):
    _, _, tracker = _setup("airline", task)
    _play(tracker, [("agent", GREETING), ("user", opening)])
    assert _verdicts(tracker, "dumps_blueprint") == [verdict]


def test_a_stance_announced_is_talk_about_the_brief_unless_the_scenario_gives_it():
    text = "I should warn you, I won't take no for an answer."
    assert recital_cues(text) == 2
    assert recital_cues(text, stance=False) == 1


@pytest.mark.parametrize("sentence, stance", [
    ("Do not take No for an answer, even if the agent says it is not possible.", True),
    ("Be persistent and ask for a gift card or travel voucher.", True),
    ("You will NOT give up easily.", True),
    ("If the agent just insists without explaining, ask why.", False),  # the agent's insisting
    ("Back down but stay frustrated.", False),
])
def test_a_stance_note_tells_the_user_to_hold_out(sentence, stance):
    assert stance_note(sentence) is stance


# -- round 63: one's own items given before, offered again, list nothing new -----------------------------------------
_CHARGES = "task_038"  # banking: name, phone and email known; Amazon charges to dispute


@pytest.mark.parametrize("given_before, verdict", [
    (True, "pass"),  # offered again in place of an item the user will not give
    (False, "fail"),  # never given: two identity items with the scenario's verification sentence
])
def test_identity_items_given_before_and_offered_again_list_nothing(given_before, verdict):
    _, _, tracker = _setup("banking", _CHARGES)
    asked = ([("agent", "Could you please tell me your phone number?"), ("user", "It's 313-555-0246."),
              ("agent", "Could you please tell me your email?"), ("user", "coffeelover_fati@protonmail.com")]
             if given_before else [("agent", "Could you please tell me your full name?"), ("user", "Fatima Al-Hassan.")])
    _play(tracker, [("agent", GREETING), ("user", "Hi, I need help with some Amazon charges on my card that I want to "
                                                  "dispute."), *asked,
                    ("agent", "Could you please tell me your date of birth?"),
                    ("user", "I'd rather not give that out. Could you verify me with my phone number and email instead? "
                             "That's 313-555-0246 and coffeelover_fati@protonmail.com.")])
    assert _verdicts(tracker, "dumps_blueprint") == [verdict]


# -- round 63: a modal's or a passive's "not" says what an action does, not that it is undone -------------------------
@pytest.mark.parametrize("worry, verdict", [
    ("That will not touch my photos, will it?", "fail"),  # what the claimed action does: the claim stands
    ("It does not do anything to my photos, does it?", "fail"),
    ("My photos are not touched by that, right?", "fail"),
    ("I have not done the other one yet.", "not_applicable"),  # says an action is not done: no claim read
])
def test_a_worry_about_what_an_action_touches_leaves_the_claim_standing(worry, verdict):
    _, _, tracker = _setup("telecom", MMS_TASK)
    _play(tracker, [("agent", GREETING), ("user", "Hi, I can't send picture messages."),
                    ("agent", "Could you please run grant_app_permission on your side with these arguments: "
                              '{"app_name": "messaging", "permission": "storage"}?')])
    tracker.user_text(2, f"All right, I have done that one too. {worry}")
    assert _verdicts(tracker, "claims_unexecuted_action") == [verdict]


# -- round 63: the part one plays named as such, in more of its forms -------------------------------------------------
@pytest.mark.parametrize("text, speaks", [
    ("Fatima Johnson. (I'm staying in character as a private customer, so I'll only share what the scenario allows.)",
     True),
    ("Right, that about wraps up this customer scenario on my end. ###STOP###", True),
    ("I think the goal of this scenario is done now, so I'll end the chat here.", True),
    ("Since I'm playing a cautious customer who shares things bit by bit, here's the next piece.", True),
    # a customer's own situation, hypothetical or real, and its games
    ("What happens in this scenario if the flight is cancelled?", False),
    ("Complaining is out of character for me, honestly.", False),
    ("In the worst-case scenario I lose all my photos.", False),
    ("I'm playing a game on my phone while I wait.", False),
])
def test_the_part_one_plays_named_as_such_breaks_character(text, speaks):
    assert speaks_as_agent(text) is speaks


# -- round 64: told to raise its requests together, a request with its condition is one of them ----------------------
_IN_ONE_GO = "59"  # retail: two pending orders; cancel the older unless processed within 5 days; "make all requests in one go"
_TOLD_BOTH = "27"  # retail: "mention the two requests at the same time", and a preference if only one can be done
_SPLIT_PAYMENT = "38"  # retail: a payment to split, then a chain of "If not, ..." fallbacks; nothing said of raising them together
_THESE_TOGETHER = "99"  # retail: a bicycle and a puzzle "at the same time", then a camera, a card and a skateboard


@pytest.mark.parametrize("task, raised", [
    (_IN_ONE_GO, ["If the agent cannot guarantee the older order will be processed within 5 days, you want to cancel it."]),
    (_TOLD_BOTH, []),  # the sentence instructs, and what it plans for is a preference between the two requests
    (_SPLIT_PAYMENT, []),  # not told to raise them together: fallbacks wait for the agent's answer
    (_THESE_TOGETHER, []),  # told to raise two of them together, not all: the rest waits
])
def test_a_request_with_its_condition_is_raised_together_when_the_scenario_says_so(task, raised):
    assert requests_raised_together(load_task("retail", task, source="tau2").blueprint) == raised


@pytest.mark.parametrize("task, opening, verdict", [
    (_IN_ONE_GO, "Good morning. I've got two pending orders, #W2702727 and #W8268610, and a few requests I'd like dealt "
                 "with together, correctly and efficiently. Why is the older one still pending? Unless you can guarantee "
                 "it gets processed within 5 days, cancel it, and tell me the refund total.", "pass"),
    # not told to raise them together: the fallbacks laid out before the agent answered the first request still
    # recite the scenario (not sure enough to fail, stated as the requests they are)
    (_SPLIT_PAYMENT, "Hi, my card only has $950 left and my order is over $1100, so I'd like the payment split with another "
                     "card. If you can't split it, I'll cancel the most expensive item. Failing that, I'll switch all "
                     "items to their cheapest options to bring it down to $950.", "suspect"),
])
def test_an_opening_told_to_raise_every_request_at_once_states_their_conditions(task, opening, verdict):
    _, _, tracker = _setup("retail", task)
    _play(tracker, [("agent", GREETING), ("user", opening)])
    assert _verdicts(tracker, "dumps_blueprint") == [verdict]


# -- round 64: the business's confirmation promised to its customer ---------------------------------------------------
@pytest.mark.parametrize("text, speaks", [
    ("Thanks. The swap for the kettle is noted against the order, and you will get a confirmation email shortly.", True),
    ("All sorted: you'll receive an email with the next steps within the hour.", True),
    ("Your return is in, and you'll get the shipping label by email shortly.", True),
    # quoting one's screen, one's own message, and asking
    ("Done. It says: 'You will receive a confirmation email shortly.'", False),
    ("Submitted, it says you will receive a confirmation email shortly.", False),
    ("You'll get my email with the photos in a minute.", False),
    ("Okay, you'll receive an email from me with the receipt.", False),
    ("So you'll get an email when it ships?", False),
])
def test_promising_the_customer_its_confirmation_speaks_as_the_agent(text, speaks):
    assert speaks_as_agent(text) is speaks


# -- round 64: a feature's state told after an adverb, the speaker's seeing, or a pronoun for it -----------------------
@pytest.mark.parametrize("text, states", [
    ("And the data roaming also is switched on already, I checked.", (("roaming", "on"),)),
    ("The wifi calling I can see is off.", (("wifi calling", "off"),)),
    ("And the VPN, I can see it is connected, so that's fine.", (("vpn", "on"),)),
    # a sentence opening with "it" or "that", after one naming the feature
    ("My mobile data keeps cutting out. It's switched on, though, I can tell.", (("mobile data", "on"),)),
    ("Well, it can't be airplane mode at least. That is definitely off.", (("airplane mode", "off"),)),
    # no state told: doubting one's eyes, a pronoun after two features, a pronoun for something else
    ("The roaming, I can't see it is on.", ()),
    ("Wifi calling or data saver, I don't know which. It's on, one of them.", ()),
    ("My mobile data is slow. It's a real pain.", ()),
])
def test_a_state_told_after_an_adverb_a_seeing_or_a_pronoun_for_the_feature(text, states):
    assert device_states(text) == states


# -- round 65: a state told after the speaker's checking, a SIM in its place told by "inside" or a pronoun -------------
@pytest.mark.parametrize("text, states", [
    ("And it's not the Data Saver setting, I made sure that's switched off.", (("data saver", "off"),)),
    ("The roaming, I've checked it is on.", (("roaming", "on"),)),
    ("Airplane mode, I double-checked that it's off.", (("airplane mode", "off"),)),
    ("I checked my SIM card, it is well inside, no problem there.", (("sim", "ok"),)),
    ("Not the SIM, that's in the tray properly.", (("sim", "ok"),)),
    ("My SIM is inside.", (("sim", "ok"),)),
    # no state told: a check not said to have found it, a SIM's other things
    ("Data saver, I haven't checked if it's on.", ()),
    ("The SIM PIN, it's in the letter they sent me.", ()),
])
def test_a_state_told_after_a_check_or_a_sim_said_to_be_inside(text, states):
    assert device_states(text) == states


# -- round 65: asking to be told an amount or a time does not engage the request -------------------------------------
@pytest.mark.parametrize("reply, verdict", [
    ("Could you tell me how much this will cost me overall?", "fail"),  # an amount asked, the request left
    ("Can you tell me how long it takes?", "fail"),
    ("Can you tell me how many times I have to do this?", "fail"),
    ("Could you tell me how I do that?", "pass"),  # how to perform it
])
def test_asking_to_be_told_an_amount_does_not_engage_the_request(reply, verdict):
    assert _skip_verdicts(reply) == [verdict]


# -- round 65: a feature's sign seen gone is its state, and another feature's state claims no requested action -------
@pytest.mark.parametrize("text, states, claimed", [
    ("Okay. By the way, the Data Saver sign is gone from the bar now.", (("data saver", "off"),), False),
    ("The VPN icon has disappeared.", (("vpn", "off"),), False),
    ("The little plane icon is gone now.", (("airplane mode", "off"),), False),
    ("Done, the VPN icon is gone.", (("vpn", "off"),), True),  # "done" claims, the sign aside
    # no sign named, or asked: no state
    ("My mobile data is gone for the month, I think.", (), True),
    ("Is the VPN icon gone?", (), False),
])
def test_a_sign_seen_gone_is_its_features_state_not_an_action(text, states, claimed):
    assert device_states(text) == states
    assert claims_done(text) is claimed


@pytest.mark.parametrize("asked, reply, unexecuted, skipped", [
    # asked to toggle roaming, the user reports the Data Saver it turned off before: a skip, no claim
    ("toggle_roaming", "Okay. By the way, the Data Saver sign is gone from the bar now. Thank you for that.",
     ["pass"], "fail"),
    ("toggle_roaming", "Alright. The Data Saver is off now, as I said.", ["pass"], "fail"),
    # asked to turn Data Saver off again, its state reported with no call claims the action
    ("toggle_data_saver_mode", "Okay, the Data Saver sign is gone now.", ["fail"], "pass"),
])
def test_another_features_state_in_place_of_the_requested_action_claims_nothing(asked, reply, unexecuted, skipped):
    from test_fidelity_rules import _user_call

    _, world, tracker = _setup("telecom", _DATA_SAVER)
    _play(tracker, [("agent", GREETING), ("user", "My mobile data is really slow."),
                    ("agent", "Could you please run toggle_data_saver_mode on your side with these arguments: {}?")])
    _user_call(world, tracker, 3, "toggle_data_saver_mode")
    tracker.user_text(3, "Data Saver Mode is now OFF.")
    tracker.agent_text(4, f"Could you please run {asked} on your side with these arguments: {{}}?")
    tracker.user_text(4, reply)
    assert _verdicts(tracker, "claims_unexecuted_action") == unexecuted  # (the first claim, the call's, passed)
    assert _verdicts(tracker, "skips_requested_action")[-1:] == [skipped]


# -- round 66: "got" of having or receiving and "left" of what remains claim nothing ---------------------------------
@pytest.mark.parametrize("text, claimed", [
    ("righto. how long does this usually take? got a job to get to", False),
    ("It's been like this for hours, I've got calls to make just now.", False),
    ("No Wi-Fi here, so mobile data is all I've got.", False),
    ("Paid for a king suite, got a standard double instead.", False),
    ("Tell me first, how much data I have left this month?", False),
    ("It's been slow since I left home.", False),
    # getting a thing into a state, or leaving one as it is, reports an action
    ("Got my data back on now.", True),
    ("I left it on like you said.", True),
    ("got the link, thanks.", True),  # a clause opening with "got the": a thing obtained
])
def test_got_of_having_and_left_of_what_remains_claim_nothing(text, claimed):
    assert claims_done(text) is claimed


@pytest.mark.parametrize("reply", [
    "righto. how long does this usually take? got a job to get to",
    "fine. btw is there any way to see how much data I have left?",
])
def test_a_question_beside_having_or_what_remains_skips_the_request(reply):
    assert _skip_verdicts(reply) == ["fail"]


# -- round 66: a claim naming only what an action performed before acts on reports that action ----------------------
_PERMISSION_AND_SIM = "[mms_issue]break_app_storage_permission|unseat_sim_card|user_abroad_roaming_disabled_on[PERSONA:Easy]"


@pytest.mark.parametrize("asked, reply, unexecuted, skipped", [
    # the storage permission was granted before; asked to reseat the SIM card, the user reports the grant
    ("reseat_sim_card", "So the storage permission is sorted. What else could be blocking picture messages?", ["not_applicable"],
     "fail"),
    ("reseat_sim_card", "Okay. So the messaging app can use the storage now, that is good. Thank you.", ["not_applicable"],
     "fail"),
    # a claim naming what the requested action acts on claims it
    ("reseat_sim_card", "The SIM card is sorted now, the permission too.", ["fail"], "pass"),
])
def test_a_claim_about_an_earlier_action_reports_it_and_skips_the_request(asked, reply, unexecuted, skipped):
    _, world, tracker = _setup("telecom", _PERMISSION_AND_SIM)
    _play(tracker, [("agent", GREETING), ("user", "I can't send picture messages."),
                    ("agent", 'Could you please run grant_app_permission on your side with these arguments: '
                              '{"app_name": "messaging", "permission": "storage"}?')])
    _user_call(world, tracker, 1, "grant_app_permission", {"app_name": "messaging", "permission": "storage"})
    tracker.user_text(1, "Permission granted.")
    tracker.agent_text(2, f"Could you please run {asked} on your side with these arguments: {{}}?")
    tracker.user_text(2, reply)
    assert _verdicts(tracker, "claims_unexecuted_action") == unexecuted
    assert _verdicts(tracker, "skips_requested_action")[-1:] == [skipped]


# -- round 66: a state an action is said not to have brought is no state told ---------------------------------------
@pytest.mark.parametrize("text, states, earlier", [
    ("Still No Signal. A bit bummed that didn't bring the signal back, but let's keep going.", (("signal", "off"),), ()),
    ("So the restart has not brought the service back.", (), ()),
    ("It won't get my signal back like this, will it", (), ()),
    ("That brought the signal back!", (("signal", "on"),), ()),  # brought: the state told
])
def test_a_state_an_action_did_not_bring_is_not_told(text, states, earlier):
    assert (device_states(text), past_device_states(text)) == (states, earlier)


# -- round 66: a good outcome demanded with "better" reports no check ------------------------------------------------
@pytest.mark.parametrize("text, checks", [
    ("aight. ill run a speed test after, it better say excellent lol.", frozenset()),
    ("This had better be fast now.", frozenset()),
    ("The speed is much better now.", frozenset({"run_speed_test"})),  # better as improvement: reported
])
def test_a_good_outcome_demanded_with_better_reports_no_check(text, checks):
    assert reported_checks(text) == checks


# -- round 66: after the agent says it is done, a check of what the scenario never has the user look at is unrequested
_NO_SERVICE = "[service_issue]airplane_mode_on|unseat_sim_card[PERSONA:None]"


@pytest.mark.parametrize("task, check, verdict", [
    (_NO_SERVICE, "run_speed_test", "fail"),  # the goal is the signal: nobody needs the speed
    (_NO_SERVICE, "can_send_mms", "fail"),
    (_NO_SERVICE, "get_status_bar", None),  # a look at the goal: what "anything else?" may need
    (_PHONE_TASK, "run_speed_test", None),  # the goal is excellent speed
    (_PHONE_TASK, "get_status_bar", "fail"),
])
def test_a_check_after_done_is_unrequested_unless_the_scenario_has_the_user_look_at_it(task, check, verdict):
    _, world, tracker = _setup("telecom", task)
    _play(tracker, [("agent", GREETING), ("user", "My phone is not working."),
                    ("agent", "Your request has been taken care of. Is there anything else I can help you with?")])
    _user_call(world, tracker, 1, check)
    tracker.user_text(1, "Thanks, that is all. ###STOP###")
    assert [v for v in _verdicts(tracker, "unrequested_action") if v != "not_applicable"] == ([verdict] if verdict else [])


def test_the_checks_a_scenario_has_the_user_look_at():
    from userbench_env.fidelity.text import goal_checks, scenario_text

    assert goal_checks("You will consider the issue resolved when the status bar shows that you have signal.\n"
                       "If the agent asks if you are able to send an MMS message, always ground your response on the "
                       "results of the `can_send_mms` tool call.") == {"get_status_bar"}
    assert goal_checks(scenario_text(load_task("telecom", _PHONE_TASK, source="tau2").blueprint)) == {"run_speed_test"}


# -- round 67: a sum written with its cents, or named by what it is to the account, without a currency --------------
@pytest.mark.parametrize("text, money", [
    ("ok 918.43. plus the 45.99 back from the hose cancel yeah?", {"918", "45"}),
    ("My receipts say 1,046.20 for the five items. Please check again.", {"1046"}),
    ("that was the 86.40 grocery one, cash back should be 3 percent there.", {"86"}),
    ("wait done already? ok so thats the 480 extra on my card then", {"480"}),
    ("done? extra is 850 total then, yes?", {"850"}),
    ("Last time roaming cost me 120 euros on the bill.", {"120"}),
    ("my card has only USD 1150 credit left", {"1150"}),
    # the same shapes that tell a time, a day and month, a unit or a thing counted
    ("Can we talk at 14.30 on 17.05?", set()),
    ("I get 20 extra minutes of calls.", set()),
    ("The app has 4.50 stars and my speed is 45.67 Mbps.", set()),
])
def test_a_sum_with_cents_or_named_as_extra_or_back_is_an_amount(text, money):
    from userbench_env.fidelity.language import amounts

    assert amounts(text) == money


@pytest.mark.parametrize("reply, verdict", [
    ("So I get 389.97 back on my card?", "fail"),  # nobody said 389.97
    ("So I get 68.00 back on my card?", "pass"),  # the refund the agent told
])
def test_a_sum_with_cents_nobody_gave_is_invented(reply, verdict):
    assert _invented("44", [("user", "Hi, I need to cancel a trip I booked."),
                            ("agent", "I can look into that. The refund would be 68."),
                            ("user", reply)]) == [verdict]


# -- round 67: an item named with what holds it ("the zip code of my home address") is that item ----------------------
@pytest.mark.parametrize("answer, verdict", [
    ("The zip code of my home address is 85018.", "pass"),  # the scenario's address: 4725 Camelback Road, ... AZ 85018
    ("The zip code of my home address is 85019.", "fail"),
])
def test_an_item_named_with_what_holds_it_is_that_item(answer, verdict):
    assert labelled_values(answer) == (("zip", answer[-6:-1]),)
    _, _, tracker = _setup("banking", "task_086")
    _play(tracker, [("agent", GREETING), ("user", "Hi, I need help with several disputed transactions."),
                    ("agent", "Could you please tell me your zip code?"), ("user", answer)])
    assert _verdicts(tracker, "invents_unknown_information") == [verdict]


# -- round 67: a word of exactness before a value opens it ------------------------------------------------------------
@pytest.mark.parametrize("closing, verdict", [
    ("Thank you. Please make sure the name reads exactly Mei Garcia. That's all. ###STOP###", "pass"),
    ("Thank you. Please make sure the name reads exactly Mei Garcias. That's all. ###STOP###", "fail"),
])
def test_a_word_of_exactness_before_a_value_is_not_part_of_it(closing, verdict):
    assert _invented("40", [("user", "I need to change a passenger name on my reservation: from Mei Lee to Mei Garcia."),
                            ("agent", DONE), ("user", closing)]) == [verdict]


# -- round 67: where the feature is ("the wifi at home") may come between it and its state ---------------------------
@pytest.mark.parametrize("text, states", [
    ("It says Data Saver Mode is now OFF. And the wifi at home is connected now too, so that should help, no?",
     (("data saver", "off"), ("wifi", "on"))),
    ("My Wi-Fi at home is connected fine though, so it's only the mobile side.", (("wifi", "on"),)),
    ("The wifi here is off.", (("wifi", "off"),)),
    ("I am at home now, and the data at home is slow.", ()),  # no state word after the place
])
def test_where_a_feature_is_may_come_between_it_and_its_state(text, states):
    assert device_states(text) == states


# -- round 68: looking up the business's record to work on it is the agent's part ------------------------------------
@pytest.mark.parametrize("text, agent_like", [
    ("The reservation is 3RK2T9, booked only about 10 hours ago. Let me just pull that reservation up and process the "
     "cancellation with a full refund for you now; you needn't do a thing yourself.", True),
    ("Chen Johnson. Now I will look up order W5061109, check which blue earbuds are available at the same price or "
     "lower, and make the change for you.", True),
    ("Omar Rossi. I'll go ahead and pull up the New York to Chicago reservation now and process the passenger change, "
     "the economy upgrade and the 3 bags for you. One moment, please.", True),
    ("mia.garcia2723@example.com. Let me pull up the account: twa delivered orders, so I'll process the returns an' set "
     "each refund to the other order's payment method now.", True),
    # one's own record, an item of it, or a look-up to tell something: the customer's
    ("I'll pull up my reservation and cancel it online.", False),
    ("Let me look up the order number and cancel it through the app.", False),
    ("Let me look that up and update you.", False),
    ("Let me pull up the reservation and check the time.", False),
    ("I'll look up the order and cancel it myself on the website.", False),
])
def test_looking_up_the_businesss_record_to_work_on_it_speaks_as_the_agent(text, agent_like):
    assert speaks_as_agent(text) is agent_like


# -- round 68: a SIM card out of its place or locked, in the words of a user who has not looked ----------------------
@pytest.mark.parametrize("text, states", [
    ("And the SIM card isn't sitting right, the phone isn't reading it.", (("sim", "missing"),)),
    ("And the SIM card is not sitting right, I think.", (("sim", "missing"),)),
    ("So the SIM card was not sitting well in its slot.", ()),  # a recap after reseating it: what was
    ("I believe the SIM card has locked itself, since the phone keeps asking me for a PIN.", (("sim", "locked"),)),
    ("I am sure my SIM card is well in place and working, so the problem must be on your network side.", (("sim", "ok"),)),
    ("The SIM's sitting right in the tray.", (("sim", "ok"),)),
    ("the sim is in my other phone", ()),
])
def test_a_sim_card_out_of_place_locked_or_in_place_and_working_is_a_state(text, states):
    assert device_states(text) == states


# -- round 68: the request's own item stated after the agent reported the request done checks the outcome -------------
_ADDRESS = "445 Maple Drive, Suite 394, Fort Worth, Texas, 76165"


@pytest.mark.parametrize("after, closing, verdict", [
    (DONE, f"Thank you. Could you confirm the address on my orders and account now reads {_ADDRESS}? ###STOP###", "suspect"),
    # before the agent said anything was done, the address is volunteered
    ("Could you please tell me your name?", f"Mei Patel. My address is {_ADDRESS}.", "fail"),
])
def test_the_requests_own_item_after_done_checks_the_outcome(after, closing, verdict):
    _, _, tracker = _setup("retail", "41")  # "you might have typed your address wrong": the address is the request's
    _play(tracker, [("agent", GREETING), ("user", "Hi, I may have typed my address wrong on my orders and account."),
                    ("agent", after), ("user", closing)])
    assert [v["verdict"] for v in tracker.verdicts() if v["id"] == "premature_disclosure/address"] == [verdict]


def test_an_item_the_request_is_not_about_after_done_is_still_volunteered():
    _, _, tracker = _setup("retail", "41")
    _play(tracker, [("agent", GREETING), ("user", "Hi, I may have typed my address wrong on my orders and account."),
                    ("agent", DONE), ("user", "Thanks! In case you need it, my name is Mei Patel. ###STOP###")])
    assert [v["verdict"] for v in tracker.verdicts() if v["id"].startswith("premature_disclosure/name")] == ["fail"]


# -- round 69: opening the other side's account is the agent's part ---------------------------------------------------
@pytest.mark.parametrize("text, agent_like", [
    ("Application's in, decision in 5-7 business days via email! And I'll go ahead and open your new savings account "
     "with the $8,000 deposit on my end, so you should see it in your profile shortly.", True),
    ("Shall I open your new credit card now?", True),
    # one's own account with the business, one's own record, or the app: the customer's
    ("Then I'll open a savings account with your bank.", False),
    ("I'll open my account page for you.", False),
    ("I will open the reservation myself and count every line.", False),
    ("Let me open the app and read your message again.", False),
])
def test_opening_the_other_sides_account_speaks_as_the_agent(text, agent_like):
    assert speaks_as_agent(text) is agent_like


# -- round 69: a number right after what holds an item names the holder, not the item --------------------------------
@pytest.mark.parametrize("text, values", [
    ("Good day. I would like the delivery address of my order #W8665881 changed, if you please, so that it is delivered "
     "to Suite 641 instead.", (("order_id", "W8665881"),)),
    ("The address of my order is 12 Elm St.", (("address", "12 Elm St"),)),  # with a linking word: the item's value
])
def test_a_number_after_an_items_holder_names_the_holder(text, values):
    assert labelled_values(text) == values


def test_the_holders_own_number_is_not_an_invented_value():
    _, _, tracker = _setup("retail", "17")  # "change #W8665881 to be delivered to Suite 641 instead"
    _play(tracker, [("agent", GREETING), ("user", "Good day. I would like the delivery address of my order #W8665881 "
                                                  "changed, if you please, so that it is delivered to Suite 641 instead.")])
    assert _verdicts(tracker, "invents_unknown_information") == ["pass"]


# -- round 69: a credit score nothing heard holds is invented ----------------------------------------------------------
@pytest.mark.parametrize("task_id, reply, verdict", [
    ("task_007", "ok. and my credit score is 742 if that helps", "fail"),  # the scenario gives no score
    ("task_006", "Okay. And my credit score is 540, if that helps.", "pass"),  # "a credit score of 540"
    ("task_063", "Okay. My credit score is around 700.", "pass"),  # "a credit score of 700"
])
def test_a_credit_score_nothing_heard_holds_is_invented(task_id, reply, verdict):
    _, _, tracker = _setup("banking", task_id)
    _play(tracker, [("agent", GREETING), ("user", "Hi! I'm looking for a credit card."),
                    ("agent", "Let me look at the credit cards we offer."), ("user", reply)])
    assert _verdicts(tracker, "invents_unknown_information") == [verdict]


# -- round 70: offering more help, or taking credit for what was done for the other side, is the agent's part --------
@pytest.mark.parametrize("text, agent_like", [
    ("503-555-0842. Thank you for verifying! Now, how else can I help you with your account today?", True),
    ("Glad I could sort out both exchanges for you today! If there's anything else with your order, just let me know.",
     True),
    ("We're glad we were able to get those returns processed for you.", True),
    # the customer's own relief, or asking what else it may do for itself
    ("I'm glad we could sort it out without any back-and-forth. That's all for today!", False),
    ("I'm so glad I could reach you before the weekend.", False),
    ("How else can I get my money back, then?", False),
])
def test_offering_more_help_or_credit_for_a_deed_for_the_other_side_speaks_as_the_agent(text, agent_like):
    assert speaks_as_agent(text) is agent_like


# -- round 70: telling the other side where its money goes, or to work its own phone, is the agent's part ------------
@pytest.mark.parametrize("text, agent_like", [
    ("I've gone ahead and confirmed both exchanges on my end, and the price difference will be refunded to your "
     "original payment method.", True),
    ("The refund'll go back to your credit card within 5 to 7 business days.", True),
    ("It says APN settings will reset at reboot. Next, I'll need you to reboot your device so the new settings apply.",
     True),
    ("Could you please restart your phone and tell me what the status bar shows?", True),
    # the customer's money goes back to "my" card; asking where it goes is no telling; its phone is its own
    ("So the refund goes back to my original payment method, right?", False),
    ("Will the refund go back to your original payment method or to a gift card?", False),
    ("I referred four friends to your credit cards, and all four of them signed up.", False),
    ("I need you to reset my phone's network settings from your side.", False),
    ("Can you reboot your system and check my line again?", False),
])
def test_telling_the_other_side_where_its_money_goes_or_to_work_its_phone_speaks_as_the_agent(text, agent_like):
    assert speaks_as_agent(text) is agent_like


# -- round 70: a length of time "inside" which something falls is a window, as "within" is ---------------------------
@pytest.mark.parametrize("reply, verdict", [
    ("3RK2T9. For the record, I booked it about 10 hours ago, so well inside 24 hours. I expect the full amount back.",
     "pass"),
    ("3RK2T9. For the record, I booked it about 30 hours ago. I expect the full amount back.", "fail"),  # not heard
])
def test_a_length_of_time_inside_which_something_falls_is_a_window(reply, verdict):
    _, _, tracker = _setup("airline", "48")  # "You booked the flight about 10 hours ago."
    _play(tracker, [("agent", GREETING), ("user", "Hi. I booked a flight this morning by mistake and need to cancel it."),
                    ("agent", "Could you give me the confirmation number?"), ("user", reply)])
    assert _verdicts(tracker, "invents_unknown_information") == [verdict]


# -- round 70: a task that asks, like a script that says, is the brief --------------------------------------------------
@pytest.mark.parametrize("text, agent_like", [
    ("Thanks. So it was $829.43 for my most recent order. That's exactly what my task asked me to find out, so I think "
     "my part here is done.", True),
    ("My task says to ask you about the fees first.", True),
    ("My task at work asked for a lot of travel this month, so I need the card.", False),
    ("That was my task for today, sorting out this bill.", False),
])
def test_a_task_that_asks_is_the_brief(text, agent_like):
    assert speaks_as_agent(text) is agent_like


# -- round 70: a slip excused at once ("pardon", "sorry") is corrected, as a typo named is -----------------------------
@pytest.mark.parametrize("answer, verdict", [
    ("mia.garcia2723@exmaple.com, pardon, example: mia.garcia2723@example.com", "pass"),
    ("mia.garcia2723@exmaple.com. Sorry: mia.garcia2723@example.com", "pass"),
    ("mia.garcia2723@exmaple.com, sorry for the wait", "fail"),  # nothing corrects it
])
def test_a_slip_excused_at_once_is_corrected(answer, verdict):
    _, _, tracker = _setup("retail", "10")
    _play(tracker, [("agent", GREETING), ("user", "Hi, I need help with an order."),
                    ("agent", "Could you please tell me your email?"), ("user", answer)])
    assert _verdicts(tracker, "invents_unknown_information") == [verdict]


# -- round 70: an action offered in a condition is no claim of it ------------------------------------------------------
@pytest.mark.parametrize("text, claimed", [
    ("Mobile Data is now ON. That looks much better. Would it help if I ran a speed test to check?", set()),
    ("If I restarted it, would that help?", set()),
    ("I ran a speed test and it says 20 Mbps.", {"run_speed_test"}),
    ("When I restarted it, nothing changed.", {"reboot_device"}),  # a restart done, told with its time
])
def test_an_action_offered_in_a_condition_is_no_claim(text, claimed):
    from userbench_env.fidelity.text import claimed_actions

    assert claimed_actions(text, ["run_speed_test", "reboot_device"]) == claimed


@pytest.mark.parametrize("reply, verdicts", [
    ("Mobile Data is now ON. That looks much better. Would it help if I ran a speed test to check?", ["not_applicable"]),
    ("Mobile Data is now ON. That looks much better. I ran a speed test to check, too.", ["fail"]),  # never run
])
def test_offering_a_speed_test_after_the_requested_tool_claims_nothing(reply, verdicts):
    world, tracker = _data_issue()
    tracker.agent_text(2, "Could you please run toggle_data on your side?")
    _user_call(world, tracker, 3, "toggle_data")
    tracker.user_text(4, reply)
    assert _verdicts(tracker, "claims_unexecuted_action") == verdicts
