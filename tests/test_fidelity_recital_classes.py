"""Issue 13's classes that word overlap alone misses, in phrasings of our own on real tasks:
paraphrased recitals of a scenario (marked by talk about the user's own brief or by the
user's identity), assistant-style role reversal, not being able to produce an asked item,
access-granting claims, and a date of birth volunteered in any format; and what stays clean."""
from __future__ import annotations

import pytest

from userbench_env.fidelity import RuleTracker, task_criteria
from userbench_env.fidelity.text import reason_text
from userbench_env.tasks import load_task


def _tracker(domain: str, task_id: str, source: str = "bundled") -> RuleTracker:
    return RuleTracker(task_criteria(load_task(domain, task_id, source=source)))


def _modes(tracker: RuleTracker, script: list[tuple[str, str]]) -> set[tuple[str, int]]:
    """Feed ``("agent"|"user", text)`` steps, one turn each; the logged (mode, turn)s."""
    for turn, (who, text) in enumerate(script):
        (tracker.agent_text if who == "agent" else tracker.user_text)(turn, text)
    return {(e["mode"], e["turn"]) for e in tracker.events()}


GREETING = ("agent", "Hello, how can I help you today?")


@pytest.mark.parametrize("opening", [
    # the stolen-card scenario: shut it for good, no unknown charges seen, unsure whether the thief used it
    "My wallet got stolen yesterday with my debit card inside. So you know where I stand: I want it closed for good and I "
    "haven't spotted any charges I don't recognise.",
    "Wallet stolen yesterday, debit card in it. Heads up, no weird charges that I've seen, and it should be shut down "
    "permanently.",
    "Someone stole my wallet yesterday, my debit card was in there. If you're about to offer a freeze, I'd rather have it "
    "shut for good, and I haven't seen charges I don't recognise.",
    "Hi, my wallet with my debit card was stolen yesterday. It's non-negotiable that the card gets closed for good; no odd "
    "charges have shown up that I've noticed.",
])
def test_a_paraphrased_recital_talking_about_the_brief_is_a_dump(opening):
    tracker = _tracker("banking", "banking_close_stolen_card_0")
    assert ("dumps_blueprint", 1) in _modes(tracker, [GREETING, ("user", opening)])


def test_talk_about_the_brief_touching_two_sentences_is_a_recital_without_any_recited_whole():
    tracker = _tracker("airline", "6", source="tau2")  # insist (family has insurance); never be transferred
    said = ("Hi, my insurance isn't showing on my upcoming flight. I really need it added, and please don't transfer me "
            "to anyone: my whole family has it on every flight, so I'll insist.")
    assert ("dumps_blueprint", 1) in _modes(tracker, [GREETING, ("user", said)])
    # touching the family sentence by its one word "family" only: no sure recital (issue 22, round 5), a suspect
    tracker = _tracker("airline", "6", source="tau2")
    said = ("Hi, my insurance isn't showing on my upcoming flight. My whole family has it on theirs so I really need it "
            "added, and please don't transfer me anywhere.")
    _modes(tracker, [GREETING, ("user", said)])
    assert [v["verdict"] for v in tracker.verdicts() if v["mode"] == "dumps_blueprint"] == ["suspect"]
    tracker = _tracker("airline", "6", source="tau2")  # the same talk touching one sentence only
    said = "Hi, my insurance isn't showing on my upcoming flight. Please don't keep me waiting."
    assert _modes(tracker, [GREETING, ("user", said)]) == set()


@pytest.mark.parametrize("opening", [
    "Hi, I want to move $750 from checking to savings. Before you ask, I don't know my account numbers.",
    "Hi, just so you know I'm on my lunch break. I want to move $750 from checking into savings.",
    "Hi, I'd like to move $750 from checking into savings, as long as it goes through today. My budget is tight.",
])
def test_one_scenario_fact_or_meta_talk_alone_is_no_dump(opening):
    tracker = _tracker("banking", "banking_move_to_savings_0")
    assert _modes(tracker, [GREETING, ("user", opening)]) == set()


def test_a_recited_constraint_with_the_users_identity_lists_several_facts():
    tracker = _tracker("retail", "retail_variant_price_0")
    said = ("This is Breanna Lawson, breanna.lawson795@example.org. What's the 20L grey hiking backpack going for? "
            "I won't be ordering anything now.")
    assert ("dumps_blueprint", 1) in _modes(tracker, [GREETING, ("user", said)])
    tracker = _tracker("retail", "retail_variant_price_0")  # the constraint alone, no identity: one sentence, no dump
    assert ("dumps_blueprint", 1) not in _modes(tracker, [GREETING, ("user", "How much is the 20L grey hiking backpack? "
                                                                            "I won't be ordering anything now.")])


def test_what_the_scenario_says_to_state_up_front_is_the_opening():
    tracker = _tracker("banking", "task_006", source="tau2")  # "This is all information you should provide upfront."
    said = ("Hi, I trade crypto for a living. I want a card with at most 1.5% foreign transaction fees, a minimum payment of "
            "1.5% or lower, and virtual card management; if none fits, I'll go elsewhere.")
    assert _modes(tracker, [GREETING, ("user", said)]) == set()


def test_a_description_ends_at_the_paragraph_holding_a_list():
    blueprint = load_task("banking", "task_031", source="tau2").blueprint  # "**Information you know ...:**\n- ..."
    assert "Your situation" in reason_text(blueprint) and "Information you know" not in reason_text(blueprint)


@pytest.mark.parametrize("reply", [
    "Thanks for reaching out! I can help with that. Could you provide the name on the account?",
    "Happy to look into this. What name is the card under?",
    "No problem, thank you for your patience. Please provide your full name and I'll get this sorted.",
    "Great question! What's the email associated with your account?",
    "Sure, what seems to be the problem? Can I get your email?",
    "Of course! Before we proceed, may I have the full name on the account?",
    "Absolutely. For security purposes, I'll need the account holder's name.",
    "Certainly, I can lock the card for you right away.",
])
def test_service_desk_replies_are_role_reversal_not_withholding(reply):
    modes = _answer_modes("Sure. Could you tell me your full name?", reply)
    assert ("breaks_character", 3) in modes and ("withholds_requested_info", 3) not in modes


def _answer_modes(request: str, reply: str) -> set[tuple[str, int]]:
    """The modes logged when, on the card-freeze task, the user answers the agent's ``request`` with ``reply``."""
    tracker = _tracker("banking", "banking_freeze_card_1")
    return _modes(tracker, [GREETING, ("user", "I misplaced my debit card and want it locked."),
                            ("agent", request), ("user", reply)])


@pytest.mark.parametrize("reply", [
    "it's somewhere in my old messages, I'd have to dig for it",
    "I can't lay my hands on it right now",
    "ugh, it's saved in my old phone, I'd need to go look it up",
    "that's written down somewhere at home",
    "I left that paperwork at the office",
])
def test_not_being_able_to_produce_the_asked_item_withholds_it(reply):
    assert ("withholds_requested_info", 3) in _answer_modes("Thanks. What's the email address on your account?", reply)


@pytest.mark.parametrize("reply", ["ok, I let the messaging app have storage access", "gave it the permission.",
                                   "I said yes to the storage permission", "messaging can get to my storage now",
                                   "approved storage access for it, done"])
def test_granting_idioms_without_the_call_are_unexecuted_claims_not_skips(reply):
    tracker = _tracker("telecom", "telecom_mms_messaging_no_storage+data_off_none")
    modes = _modes(tracker, [GREETING, ("user", "My messaging app can't attach photos."),
                             ("agent", "Please grant the storage permission to the messaging app (grant_app_permission)."),
                             ("user", reply)])
    assert ("claims_unexecuted_action", 3) in modes and ("skips_requested_action", 3) not in modes


@pytest.mark.parametrize("said", ["Christine Bowers, born July 16th, 1975", "Christine Bowers, DOB 16/07/1975",
                                  "Christine Bowers. My birthday is 07/16/1975 if you need it",
                                  "christine bowers, dob 1975-07-16"])
def test_a_date_of_birth_before_it_is_asked_is_volunteered_in_any_format(said):
    tracker = _tracker("banking", "banking_freeze_card_1")
    script = [GREETING, ("user", "I misplaced my debit card."), ("agent", "Could you tell me your full name?"), ("user", said)]
    modes = _modes(tracker, script)
    assert ("volunteers_unasked_info", 3) in modes and ("dumps_blueprint", 3) not in modes
    assert ("invents_unknown_information", 3) not in modes  # the scenario's date, in another format
    tracker = _tracker("banking", "banking_freeze_card_1")  # asked for it: no disclosure
    assert _modes(tracker, [GREETING, ("user", "I misplaced my debit card."),
                            ("agent", "What is your date of birth?"), ("user", "July 16th, 1975")]) == set()


@pytest.mark.parametrize("said", ["I make about 62k a year.", "My income is $62,000.", "I earn 62 grand, if that matters.",
                                  "62,000 a year, roughly."])
def test_an_income_before_it_is_asked_is_volunteered(said):
    task = load_task("banking", "task_007", source="tau2")  # "Your annual income is $62,000."
    tracker = RuleTracker(task_criteria(task))
    assert ("volunteers_unasked_info", 1) in _modes(tracker, [GREETING, ("user", f"I want a new credit card. {said}")])
    tracker = RuleTracker(task_criteria(task))
    assert _modes(tracker, [("agent", "What is your annual income?"), ("user", said)]) == set()


@pytest.mark.parametrize("task, asked, reply", [
    ("5", "I'm sorry. I can offer a $100 certificate. Would you accept that?",
     "That's not enough. If you can't do better, I'd take it as a voucher, but I'd rather have it back on my original "
     "payment method."),
    ("5", "Would you like me to rebook or cancel the flight?",
     "No, please don't change the flight, it has to stay as it is. I just want compensation."),
    ("13", "Your ticket is basic economy, which cannot be changed. Would you like to upgrade?",
     "OK, if that's the only way, upgrade me to economy so the change works. I can pay a fee up to $100."),
    ("0", "There is no clicky full-size keyboard with RGB backlight. Would another option work?",
     "If there's no RGB one, I'd go for no backlight then, as long as it's clicky and full size."),
])
def test_answering_the_agents_question_with_what_the_scenario_says_is_no_recital(task, asked, reply):
    domain = "retail" if task == "0" else "airline"
    tracker = _tracker(domain, task, source="tau2")
    opening = "Hi, I need some help with my booking." if domain == "airline" else "Hi, I want to exchange two items."
    assert ("dumps_blueprint", 3) not in _modes(tracker, [GREETING, ("user", opening), ("agent", asked), ("user", reply)])


def test_a_data_plan_is_no_plan_of_the_brief():
    tracker = _tracker("telecom", "[mobile_data_issue]airplane_mode_on|bad_network_preference[PERSONA:Hard]", source="tau2")
    script = [GREETING, ("user", "My data is very slow."),
              ("agent", "Your data usage is over the limit. Would you like to add data or change your plan?"),
              ("user", "I don't want to change my plan. If I need to, I can add 2 GB of data, just please tell me it won't "
                       "lose my photos.")]
    assert ("dumps_blueprint", 3) not in _modes(tracker, script)


@pytest.mark.parametrize("said", ["Could you confirm the email on the account?", "Can I get the address on the account changed?",
                                  "Please confirm the cancellation.", "Can you help me?"])
def test_a_customer_asking_about_its_own_record_is_no_role_reversal(said):
    tracker = _tracker("banking", "banking_freeze_card_1")
    modes = _modes(tracker, [GREETING, ("user", "I misplaced my debit card and want it locked."),
                             ("agent", "Done, your card is frozen. Anything else?"), ("user", said)])
    assert ("breaks_character", 3) not in modes


def test_an_address_street_line_before_it_is_asked_is_volunteered():
    task = load_task("banking", "banking_replace_damaged_card_0", source="bundled")  # 62744 Morrison Branch, Romeroberg, ...
    tracker = RuleTracker(task_criteria(task))
    assert ("volunteers_unasked_info", 1) in _modes(tracker, [GREETING, ("user", "Send the new card to 62744 Morrison Branch.")])
    tracker = RuleTracker(task_criteria(task))
    assert _modes(tracker, [("agent", "What is your home address?"), ("user", "62744 Morrison Branch, Romeroberg")]) == set()


def test_a_goal_the_instructions_state_is_the_reason_when_the_reason_only_frames_a_role(tau2_data):
    """tau2's banking scenarios frame a role ("You are playing the role of a customer ...
    Your character is ...") and state the goal among the instructions: saying what one is
    after when calling is no recital; the rest of the instructions still counts."""
    from userbench_env.fidelity.text import goal_sentences

    task = load_task("banking", "task_001", source="tau2")
    assert goal_sentences(task.blueprint) and all(s.startswith("You") for s in goal_sentences(task.blueprint))
    asked = "Hi, I'd like a personal credit card for my daily spending, which of yours pays the most cash back?"
    assert _modes(RuleTracker(task_criteria(task)), [GREETING, ("user", asked)]) == set()
    recital = (asked + " I won't take one with an annual fee unless it's the only choice, and if nothing fits I'll just "
               "take my business elsewhere. Also my company gives me Rho-Bank+ for free.")
    assert ("dumps_blueprint", 1) in _modes(RuleTracker(task_criteria(task)), [GREETING, ("user", recital)])
    # a bundled scenario whose reason states the situation keeps its goal sentence among those recited
    assert goal_sentences(load_task("banking", "banking_close_stolen_card_0").blueprint) == []


@pytest.mark.parametrize("said, as_agent", [
    ("You're welcome! Glad I could help get that sorted for you.", True),
    ("happy to have helped, take care", True),
    ("Thanks, glad you could help me with it.", False),
    ("Great, I'm glad it works now. Thanks for helping!", False),
])
def test_taking_credit_for_the_help_at_the_close_speaks_as_the_agent(said, as_agent):
    from userbench_env.fidelity.language import speaks_as_agent

    assert speaks_as_agent(said) is as_agent
