"""The rule checks on paraphrased user language: each failure class with varied phrasings, and
the hard negatives that must stay clean, on real tasks and real tool results."""
from __future__ import annotations

import json

import pytest

from userbench_env.core.messages import Message, ToolCall
from userbench_env.domains import make_world
from userbench_env.fidelity import RuleTracker, episode_verdict, task_criteria
from userbench_env.fidelity.grading import grade_verdicts
from userbench_env.fidelity.language import content_stems, id_key, id_runs, speaks_as_agent
from userbench_env.fidelity.taxonomy import TAXONOMY, rule_modes
from userbench_env.fidelity.text import claims_done, device_states, past_device_states
from userbench_env.serve import CannedResponder, ChatServer
from userbench_env.tasks import load_task, load_tasks

REQUEST = "Could you please run {} on your side with these arguments: {{}}?"


def _setup(domain: str, task_id: str | None = None, source: str = "tau2"):
    task = load_task(domain, task_id, source=source) if task_id else load_tasks(domain, source=source, split="base")[0]
    return task, make_world(domain, source, task), RuleTracker(task_criteria(task))


def _call(world, tracker, turn: int, name: str, arguments: dict | None = None) -> str:
    call = ToolCall(name=name, arguments=arguments or {}, requestor="user")
    result = world.execute(call)
    tracker.tool_call(turn, call, result)
    return result.content


def _modes(tracker: RuleTracker, turn: int) -> set[str]:
    return {e["mode"] for e in tracker.events() if e["turn"] == turn}


def test_the_new_modes_are_rule_covered():
    assert {"breaks_character", "unrequested_action"} <= set(rule_modes())
    assert TAXONOMY["breaks_character"].rule == "breaks_character" and TAXONOMY["unrequested_action"].rule == "unrequested_action"


def test_readings_of_paraphrase():
    assert content_stems("I'd like it, I don't know") == content_stems("i would like it and I do NOT know")
    assert id_key("# W 237-8156") == id_key("#W2378156") == "w2378156"
    assert id_runs("it was K7-PX 2M, or 5521 0087 AB; 2 GB for $20 at 3pm") == ("k7px2m", "55210087ab")
    assert device_states("roaming's already on; wifi isn't on; airplane mode is definitely not enabled") == (
        ("roaming", "on"), ("wifi", "off"), ("airplane mode", "off"))
    assert past_device_states("Before I touched it, airplane mode was on") == (("airplane mode", "on"),)
    for claim in ("flipped it", "ok... done", "did the on-off thing", "that one's sorted now", "yep, all set",
                  "I went ahead and switched it"):
        assert claims_done(claim), claim
    for not_a_claim in ("Should I flip it?", "I haven't done it yet", "Got it, thanks", "If I turned it off, would I lose data?",
                        "I wanted to ask first"):
        assert not claims_done(not_a_claim), not_a_claim


def test_having_a_question_back_and_no_change_claim_nothing():
    # issue 22, round 7: "got" of having, a question asking whether it is over, a change denied
    for not_a_claim in ("Sure, fine. Quick one though, I've got a train to catch.", "OK. So are we done now?",
                        "Right, data saver. Nothing's changed on my screen though."):
        assert not claims_done(not_a_claim), not_a_claim
    for claim in ("We've switched it, it's working.", "Right, we're done, data saver's off.", "That's changed now."):
        assert claims_done(claim), claim


def test_a_paraphrased_recital_of_constraints_fallback_and_persona_is_a_dump(tau2_data):
    task, _, tracker = _setup("retail", "0")
    # the reason for calling alone, in the user's words, is not a dump
    assert tracker.user_text(0, "Hey, I got order #W2378156 and want to swap the keyboard for a clicky-switch one and "
                                "the thermostat for a Google Home model.") == []
    # its fallback plus the persona note, reworded: a dump
    assert "premature_disclosure/dumps_blueprint" in tracker.user_text(
        1, "Just so you know, I'm really detail oriented and I want every last thing handled in one go. And if you "
           "can't find a clicky full-size RGB one, I'll settle for one without backlight.")
    task, _, tracker = _setup("retail", "0")
    assert tracker.user_text(1, "I'd like it all addressed in one go, please.") == []  # one sentence is no dump


def test_claims_are_resolved_against_the_agent_request(tau2_data):
    for claim in ("flipped it, all good", "Okay, did the on-off thing.", "um... done", "That's taken care of."):
        _, world, tracker = _setup("telecom")
        tracker.agent_text(1, REQUEST.format("toggle_airplane_mode"))
        assert "claims_unexecuted_action" in _modes(tracker, 1) | {e["mode"] for e in _fail(tracker, 1, claim)}, claim
    _, world, tracker = _setup("telecom")
    tracker.agent_text(1, REQUEST.format("toggle_airplane_mode"))
    _call(world, tracker, 1, "toggle_airplane_mode")
    assert tracker.user_text(1, "flipped it, airplane mode is off now") == []


def _fail(tracker: RuleTracker, turn: int, text: str) -> list[dict]:
    tracker.user_text(turn, text)
    return [e for e in tracker.events() if e["turn"] == turn]


def _skips(reply: str) -> bool:
    """Whether ``reply`` to a request to toggle airplane mode skips it (no tool called)."""
    _, _, tracker = _setup("telecom")
    tracker.agent_text(1, REQUEST.format("toggle_airplane_mode"))
    tracker.user_text(1, reply)
    return "skips_requested_action" in _modes(tracker, 1)


def test_an_unrelated_question_is_no_engagement_with_the_request(tau2_data):
    for question, skipped in (("How much is my bill this month?", True), ("Is this going to take long?", True),
                              ("Where do I find that setting?", False), ("What do you mean by airplane mode?", False)):
        assert _skips(question) is skipped, question


def test_declining_the_requested_action_is_a_skip_whatever_else_it_claims(tau2_data):
    # issue 22, round 6: turning the request down while reporting another action or an outcome
    for reply, skipped in (("No point fiddling with airplane mode, I already restarted the whole phone.", True),
                           ("I'll leave that one alone if it's all the same, data's on anyway.", True),
                           ("Done, airplane mode went on and off again.", False),
                           ("Should I still do airplane mode, or is it pointless after a restart?", False)):
        assert _skips(reply) is skipped, reply


def test_asking_for_another_step_instead_is_no_engagement_with_the_request(tau2_data):
    # issue 22, round 6: "how" and "should I" words asking past the request, not how to perform it
    for reply, skipped in (("Nah, I'd sooner not fiddle with that. What should I do next?", True),
                           ("Never touched that one, it'll be fine. So what should I try next?", True),
                           ("Hmm, is there anything else I could try instead?", True),
                           ("Should I do that now, before the restart?", False)):
        assert _skips(reply) is skipped, reply
    # issue 22, round 9: asking for the step after the requested one
    for reply, skipped in (("Okay then. And what should I do after that?", True),
                           ("Okay, and what comes afterwards?", True)):
        assert _skips(reply) is skipped, reply
    # issue 22, round 10: a question's "or what?" tail asks nothing about the request; a bare "what?" does
    for reply, skipped in (("Hang on, is the whole network down round here or what?", True),
                           ("Sorry, what? Turn off which bit?", False)):
        assert _skips(reply) is skipped, reply


def test_the_emphatic_did_before_a_verb_of_thinking_claims_nothing_done(tau2_data):
    # issue 22, round 10: "I did think ..." is no "I did it"
    for reply, skipped in (("Ah, so that's the culprit. I did think the phone was acting odd lately.", True),
                           ("Right, I did that a minute ago.", False)):
        assert _skips(reply) is skipped, reply


def test_device_states_read_tense_and_negation(tau2_data):
    _, world, tracker = _setup("telecom")
    tracker.agent_text(1, "What does your status bar show?")
    _call(world, tracker, 1, "check_status_bar")  # airplane mode on
    assert tracker.user_text(1, "It shows airplane mode's on.") == []
    tracker.agent_text(2, REQUEST.format("toggle_airplane_mode"))
    _call(world, tracker, 2, "toggle_airplane_mode")  # now off
    # the state before the toggle the user just made is not compared with the current one
    assert tracker.user_text(2, "Airplane mode was on before, I just switched it and now it's not on anymore.") == []
    assert tracker.user_text(3, "airplane mode is definitely still enabled") == ["groundedness/device_state"]
    _, _, tracker = _setup("telecom")
    assert "groundedness/device_state" in tracker.user_text(0, "Roaming's already turned on, and I've got full bars.")


def test_inventions_of_any_shape_and_stated_values_that_differ(tau2_data):
    task, _, tracker = _setup("retail", "0")
    assert tracker.user_text(0, "It's order # W 237 8156, the keyboard one.") == []  # the scenario's id, spaced
    for text in ("my user id is Yusuf Rossi", "The other order was W-555-0192.",
                 "I was born on March 3, 1985.", "I live at 41 Birch Avenue.", "It was about $260."):
        _, _, tracker = _setup("retail", "0")
        assert "groundedness/invented_information" in tracker.user_text(1, text), text
    # one letter from the scenario's name: a slip or an invention, not sure: suspect (issue 22: fail only on sure
    # evidence); one digit from its zip is another zip (round 15: writers inventing a zip one digit off)
    _, _, tracker = _setup("retail", "0")
    assert tracker.user_text(1, "My name is Yusuf Rosi.") == []
    assert next(v for v in tracker.verdicts() if v["mode"] == "invents_unknown_information")["verdict"] == "suspect"
    _, _, tracker = _setup("retail", "0")
    assert "groundedness/invented_information" in tracker.user_text(1, "My zip code is 19123.")


def test_hard_negatives_stay_clean(tau2_data):
    _, world, tracker = _setup("telecom")
    tracker.agent_text(1, "Your bill B1234321 of $65.00 is due on 2025-03-01. Could you confirm?")
    assert tracker.user_text(1, "Yes, B1234321, $65, due March 1st. I'm not sure what caused the overdue part though. "
                                "Can you tell me why?") == []
    task, _, tracker = _setup("airline", "7")
    assert tracker.user_text(0, "I need to cancel XEHM4B and 59XX6W, both of them.") == []


def test_withholding_idioms_refusals_deflections_and_the_item_asked(tau2_data):
    for answer in ("Ugh, it's slipped my mind.", "I'd rather not share that over chat.", "Why do you need it?",
                   "Hmm, I'd have to dig it out of my emails."):
        _, _, tracker = _setup("airline", "7")
        tracker.agent_text(1, "Could you please tell me your user id?")
        assert tracker.user_text(1, answer) == ["missed_information/withholds/user_id"], answer
    _, _, tracker = _setup("retail", "0")
    tracker.agent_text(1, "Could you please tell me your name?")
    assert tracker.user_text(1, "Yusuf.") == ["missed_information/withholds/name"]  # a part of the name
    _, _, tracker = _setup("retail", "0")
    tracker.agent_text(1, "Could you please tell me your zip code?")
    assert tracker.user_text(1, "I don't remember my email, sorry.") == []  # a denial about another item


def test_speaking_as_the_agent_breaks_character():
    for text in ("Hello! How can I help you today?", "What brings you in today?", "As an AI language model, I can't do that.",
                 "Thank you for contacting support, have a great day.", "Let me look up that order for you."):
        assert speaks_as_agent(text), text
    for text in ("Thanks for your help!", "Can you help me with my order?", "I hope you can help me.", "I need help, please."):
        assert not speaks_as_agent(text), text


def test_closing_with_the_agents_report_of_its_work_breaks_character():
    # issue 22, round 7: the close of a service call, in the agent's voice
    for text in ("All good. Thanks for calling, Maria! I've cancelled the subscription on your credit card.",
                 "That's everything. If anything changes, give us a ring and we'll sort it for you."):
        assert speaks_as_agent(text), text
    for text in ("Thanks for calling me back so quickly!", "I've stopped using your app since the update.",
                 "I have filed a complaint about your service before."):
        assert not speaks_as_agent(text), text


def test_talking_about_its_scenario_breaks_character():
    # issue 22, round 9: the user's part named as a part in a scenario
    for text in ("Speaking as the caller in this scenario, my zip is 12345.", "My scenario says I don't know my email.",
                 "The scenario gives my name as Ana Ruiz."):
        assert speaks_as_agent(text), text
    for text in ("In this case, what are my options?", "What happens in the worst-case scenario, a full refund?"):
        assert not speaks_as_agent(text), text


@pytest.mark.parametrize("text, breaks", [
    # issue 22, round 10: "the customer" as a part the speaker plays
    ("Speaking honestly, as the model acting as the user, I think we're done.", True),
    ("I'm playing the caller, so I can't see the order screen.", True),
    ("As the customer, I expect a refund.", False),
    ("I was playing tennis when the user id email came.", False),
    # issue 22, round 10: the agent's offer or its work, in the user's mouth
    ("It's gone through, so would you like me to help you set up a return?", True),
    ("Give me a moment and I'll submit the refund request for you.", True),
    ("Would you like me to spell that?", False),
    ("Could you submit it for me, please?", False),
    # issue 22, round 11: the agent finding the customer's record
    ("Thanks. Okay, I've located your booking and I can see both flights on it.", True),
    ("I've found your app really slow lately.", False),
    # issue 22, round 12: the agent verifying the customer or working on a named account, the part in other words
    ("Thanks, your identity is now verified.", True),
    ("Perfect. I will set up the Everyday Premium Checking account for you now.", True),
    ("Could you set up the Everyday Premium Checking account for me?", False),
    ("I can read the order number out for you if that helps.", False),  # the user's own part, offered
    ("As the AI wey dey play customer here, I think my part is done.", True),
    ("Thank you for verifying your identity, Mrs Ode.", True),
    ("I'll go ahead and close your checking account for you now.", True),
    ("As the bot on your website said, it should be off.", False),
    ("I play five-a-side on Sundays, so make it quick.", False),
])
def test_naming_its_part_or_offering_the_agents_service_breaks_character(text, breaks):
    assert speaks_as_agent(text) is breaks


def test_a_state_changing_call_nobody_asked_for_is_unrequested(tau2_data):
    _, world, tracker = _setup("telecom")
    tracker.agent_text(1, REQUEST.format("toggle_airplane_mode") + " Then tell me what your status bar shows.")
    _call(world, tracker, 1, "toggle_airplane_mode")
    _call(world, tracker, 1, "check_status_bar")  # a check the answer needs (round 13: not every check is)
    assert tracker.user_text(1, "done, airplane mode is off") == []
    _call(world, tracker, 2, "toggle_wifi")
    assert tracker.user_text(2, "I also turned wifi on.") == ["goal_deviation/unrequested_action"]


def test_a_suspect_rule_verdict_goes_to_a_configured_judge_and_stands_without_one(tau2_data):
    _, _, tracker = _setup("retail", "0")
    tracker.user_text(1, "My name is Yusof Rossi.")  # one letter from the scenario's: a slip or an invention
    verdict = next(v for v in tracker.verdicts() if v["mode"] == "invents_unknown_information")
    assert verdict["verdict"] == "suspect" and verdict["ambiguous"] == 1 and verdict["why"] and tracker.judged
    assert tracker.suspects == 1 and tracker.violations == []
    assert grade_verdicts([verdict], [], None)[0]["verdict"] == "suspect"  # no judge: the suspicion stands (no failure)
    assert episode_verdict([verdict]) == (True, {}) and episode_verdict([verdict], suspects="fail")[0] is False
    for answer, expected in (("pass", "pass"), ("fail", "fail")):
        reply = json.dumps({"verdict": answer, "evidence_turn": 1 if answer == "fail" else None, "reasoning": "Judged."})
        with ChatServer(CannedResponder([reply])) as server:
            graded = grade_verdicts([verdict], [Message(role="user", content="My name is Yusof Rossi.", turn=1)],
                                    {"model": "openai/fidelity-judge", "base_url": server.base_url, "api_key": "sk-local"})[0]
        assert (graded["verdict"], graded["source"], graded["rule_verdict"]) == (expected, "judge", "suspect")


@pytest.mark.parametrize("domain", ["airline", "retail", "telecom", "banking"])
def test_the_scripted_user_stays_clean_on_bundled_tasks(domain):
    from userbench_env.envs.conversation import ConversationEnv
    from userbench_env.fidelity.validate import run_episode

    env = ConversationEnv(domain, task_source="bundled")
    for task in env.tasks[:12]:
        run_episode(env, task.id)
        assert env.tracker.events() == [], (task.id, env.tracker.events())
