"""R_tau components on hand-built airline transcripts (tau2 spec section 4)."""
from __future__ import annotations

import pytest

from userbench_env.core.messages import Message, ToolCall
from userbench_env.core.task import Action, EnvAssertion
from userbench_env.domains import make_world
from userbench_env.evaluation import JudgeReplyError, evaluate_episode, parse_judge_reply
from userbench_env.evaluation.actions import action_checks, action_matches
from userbench_env.evaluation.communicate import communicate_checks
from userbench_env.evaluation.environment import reference_hashes
from userbench_env.evaluation.nl_judge import JudgeSpec, render_transcript
from userbench_env.tasks import load_task


@pytest.fixture(scope="module")
def task0():
    """actions == [] (end state must equal the start), basis DB + COMMUNICATE."""
    return load_task("airline", "0", source="tau2")


@pytest.fixture(scope="module")
def task19():
    """One gold write: cancel_reservation."""
    return load_task("airline", "19", source="tau2")


def run_calls(task, calls, final_text="Done."):
    """A transcript whose tool results come from a live world of ``task``."""
    world = make_world(task.domain, source="tau2", task=task)
    messages = [Message(role="user", content="Hi, I need help.")]
    for i, (name, arguments) in enumerate(calls):
        call = ToolCall(id=f"c{i}", name=name, arguments=arguments)
        result = world.execute(call)
        messages.append(Message(role="assistant", tool_calls=[call]))
        messages.append(
            Message(role="tool", content=result.content, tool_call_id=call.id, requestor="assistant", error=result.error)
        )
    messages.append(Message(role="assistant", content=final_text))
    return messages


def gold_calls(task):
    return [(a.name, a.arguments) for a in task.gold_actions]


def with_eval(task, **changes):
    return task.model_copy(update={"evaluation": task.evaluation.model_copy(update=changes)})


# -- termination gate ----------------------------------------------------------------


@pytest.mark.parametrize("termination", ["max_steps", "too_many_errors", "agent_error", "user_error", "timeout"])
def test_premature_termination_scores_zero(task19, termination):
    v = evaluate_episode(task19, run_calls(task19, gold_calls(task19)), termination, source="tau2")
    assert v.reward == 0.0 and v.reward_excluding_nl == 0.0
    assert v.note == "terminated prematurely"
    assert v.db_match is None and all(c is None for c in v.components.values())


@pytest.mark.parametrize("termination", ["user_stop", "agent_stop"])
def test_gold_transcript_scores_one(task19, termination):
    v = evaluate_episode(task19, run_calls(task19, gold_calls(task19)), termination, source="tau2", include_nl=False)
    assert v.reward == 1.0 and v.db_match is True
    assert v.components["db"] == 1.0


def test_no_evaluation_criteria_scores_one(task19):
    v = evaluate_episode(task19.model_copy(update={"evaluation": None}), [], "user_stop", source="tau2")
    assert v.reward == 1.0 and v.note == "no evaluation criteria"


# -- DB component --------------------------------------------------------------------


def test_missing_write_fails_db(task19):
    v = evaluate_episode(task19, run_calls(task19, []), "user_stop", source="tau2")
    assert v.db_match is False and v.reward == 0.0 and v.env_reward == 0.0


def test_wrong_write_fails_db(task19):
    other = [("cancel_reservation", {"reservation_id": "NO6JO3"})]
    v = evaluate_episode(task19, run_calls(task19, other), "user_stop", source="tau2")
    assert v.db_match is False and v.reward == 0.0


def test_empty_actions_require_unchanged_state(task0):
    reads = [("get_user_details", {"user_id": "mia_li_3668"})]
    assert evaluate_episode(task0, run_calls(task0, reads), "user_stop", source="tau2").reward == 1.0
    write = [("send_certificate", {"user_id": "mia_li_3668", "amount": 100})]
    v = evaluate_episode(task0, run_calls(task0, write), "user_stop", source="tau2")
    assert v.db_match is False and v.reward == 0.0


def test_null_actions_and_assertions_skip_the_db_check(task0):
    task = with_eval(task0, actions=None, env_assertions=None)
    write = [("send_certificate", {"user_id": "mia_li_3668", "amount": 100})]
    v = evaluate_episode(task, run_calls(task, write), "user_stop", source="tau2")
    assert v.db_match is True and v.reward == 1.0


def test_failed_and_read_calls_are_not_replayed(task19):
    calls = gold_calls(task19) + [
        ("cancel_reservation", {"reservation_id": "ZZZZZZ"}),  # error: no state change
        ("get_user_details", {"user_id": "nobody"}),
        ("no_such_tool", {}),
    ]
    v = evaluate_episode(task19, run_calls(task19, calls), "user_stop", source="tau2")
    assert v.db_match is True and v.reward == 1.0


def test_db_not_in_basis_does_not_count(task19):
    task = with_eval(task19, reward_basis=["COMMUNICATE"])
    v = evaluate_episode(task, run_calls(task, []), "user_stop", source="tau2")
    assert v.db_match is False and v.env_reward == 1.0 and v.reward == 1.0
    assert v.components["db"] == 0.0


def test_reference_state_is_cached(task19):
    first = reference_hashes(task19, "tau2")
    assert reference_hashes(task19, "tau2") is first
    assert first.user is None and first.agent != make_world("airline", "tau2", task19).db_hash()


# -- ENV_ASSERTION ------------------------------------------------------------------


def test_env_assertion_needing_a_bool(task19):
    not_bool = EnvAssertion(env_type="assistant", func_name="get_flight_status", arguments={"flight_number": "HAT001", "date": "2024-05-01"})
    task = with_eval(task19, env_assertions=[not_bool], reward_basis=["DB", "ENV_ASSERTION"])
    v = evaluate_episode(task, run_calls(task, gold_calls(task)), "user_stop", source="tau2")
    assert v.env_assertions_met == [False] and v.db_match is True
    assert v.env_reward == 0.0 and v.reward == 0.0 and v.components["env_assertions"] == 0.0
    only_db = evaluate_episode(with_eval(task, reward_basis=["DB"]), run_calls(task, gold_calls(task)), "user_stop", source="tau2")
    assert only_db.env_reward == 1.0 and only_db.reward == 1.0


# -- ACTION -------------------------------------------------------------------------


def gold(name="cancel_reservation", compare_args=None, **arguments):
    return Action(name=name, arguments=arguments, compare_args=compare_args)


def call(name="cancel_reservation", **arguments):
    return ToolCall(name=name, arguments=arguments)


def test_action_match_rules():
    full = gold(reservation_id="ABC123", reason="x")
    assert action_matches(full, call(reservation_id="ABC123", reason="x"))
    assert not action_matches(full, call(name="get_reservation_details", reservation_id="ABC123", reason="x"))
    # compare_args null: compared keys are the call's own
    assert action_matches(full, call(reservation_id="ABC123"))  # subset of the gold args
    assert action_matches(full, call())  # no arguments: name only
    assert not action_matches(full, call(reservation_id="ABC123", reason="x", extra=1))
    assert not action_matches(full, call(reservation_id="XYZ"))
    # compare_args []: name only
    assert action_matches(gold(compare_args=[], summary="a"), call(summary="b", extra=1))
    # explicit subset: only listed keys, a key missing on one side fails
    subset = gold(compare_args=["reservation_id"], reservation_id="ABC123", reason="x")
    assert action_matches(subset, call(reservation_id="ABC123", reason="other", more=2))
    assert not action_matches(subset, call(reason="x"))
    assert not action_matches(gold(compare_args=["reason"], reservation_id="A"), call(reservation_id="A", reason="x"))
    # Python equality
    assert action_matches(gold(name="send_certificate", amount=100), call(name="send_certificate", amount=100.0))


def test_user_tool_calls_count_and_requestor_is_ignored():
    user_call = ToolCall(name="toggle_roaming", arguments={}, requestor="user")
    messages = [Message(role="user", tool_calls=[user_call]), Message(role="tool", content="ok", tool_call_id="")]
    wanted = Action(name="toggle_roaming", requestor="assistant", arguments={})
    assert action_checks([wanted], messages) == [True]
    assert action_checks([wanted], [Message(role="user", content="toggle_roaming")]) == [False]


def test_action_component_in_reward(task19):
    task = with_eval(task19, reward_basis=["ACTION"])
    assert evaluate_episode(task, run_calls(task, gold_calls(task)), "user_stop", source="tau2").reward == 1.0
    v = evaluate_episode(task, run_calls(task, []), "user_stop", source="tau2")
    assert v.action_reward == 0.0 and v.reward == 0.0 and v.action_checks == [False]
    none = evaluate_episode(with_eval(task, actions=[]), run_calls(task, []), "user_stop", source="tau2")
    assert none.action_reward == 1.0 and none.components["action"] is None


# -- COMMUNICATE --------------------------------------------------------------------


def test_communicate_rules():
    messages = [
        Message(role="user", content="I was told 999"),
        Message(role="tool", content="refund 777", tool_call_id="x"),
        Message(role="assistant", content="Your Refund is $1,628 in total.", tool_calls=[call(amount="555")]),
        Message(role="assistant", content="   "),
    ]
    assert communicate_checks(["1628", "REFUND IS", "999", "777", "555", "1,628"], messages) == [
        True, True, False, False, False, False,
    ]
    assert communicate_checks([], messages) == []


def test_communicate_component_in_reward(task0):
    task = with_eval(task0, communicate_info=["1628"])
    said = evaluate_episode(task, run_calls(task, [], final_text="A refund of $1,628."), "agent_stop", source="tau2")
    assert said.communicate_reward == 1.0 and said.reward == 1.0
    silent = evaluate_episode(task, run_calls(task, [], final_text="Bye."), "agent_stop", source="tau2")
    assert silent.communicate_reward == 0.0 and silent.reward == 0.0 and silent.components["communicate"] == 0.0


# -- NL_ASSERTION -------------------------------------------------------------------


def test_nl_pending_without_judge(task19):
    task = with_eval(task19, reward_basis=["DB", "NL_ASSERTION"], nl_assertions=["Agent cancels the reservation."])
    messages = run_calls(task, gold_calls(task))
    v = evaluate_episode(task, messages, "user_stop", source="tau2")
    assert v.nl_pending is True and v.reward is None
    assert v.components["nl_assertions"] is None and v.reward_excluding_nl == 1.0
    assert evaluate_episode(task, messages, "user_stop", source="tau2", judge="deferred").nl_pending is True
    left_out = evaluate_episode(task, messages, "user_stop", source="tau2", include_nl=False)
    assert left_out.nl_pending is False and left_out.reward == 1.0
    no_nl = evaluate_episode(with_eval(task, nl_assertions=[]), messages, "user_stop", source="tau2")
    assert no_nl.nl_pending is False and no_nl.nl_reward == 1.0 and no_nl.reward == 1.0


def test_nl_not_in_basis_is_never_judged(task19):
    # nl_assertions exist (airline) but the basis is DB + COMMUNICATE: no judge call at all
    v = evaluate_episode(task19, run_calls(task19, gold_calls(task19)), "user_stop", source="tau2", judge="no-such/model")
    assert v.nl_pending is False and v.nl_reward is None and v.reward == 1.0


def test_parse_judge_reply():
    outcomes = ["Agent refuses.", "Agent apologises."]
    reply = (
        '{"results": [{"expectedOutcome": "Agent refuses.", "reasoning": "It did.", "metExpectation": true},'
        ' {"expectedOutcome": "Agent apologises.", "reasoning": "No.", "metExpectation": false}]}'
    )
    checks = parse_judge_reply(reply, outcomes)
    assert [c.met for c in checks] == [True, False] and checks[0].reasoning == "It did."
    assert [c.met for c in parse_judge_reply("```json\n" + reply + "\n```", outcomes)] == [True, False]


@pytest.mark.parametrize(
    "reply",
    [
        "",
        "All outcomes met.",
        '{"results": [{"metExpectation": true}]}',  # one verdict for two outcomes
        '{"results": [{"metExpectation": "true"}, {"metExpectation": true}]}',  # not a bool
        '{"results": [{"metExpectation": true}, "yes"]}',
        '{"verdicts": [true, true]}',
        "[true, true]",
        '{"results": [{"metExpectation": true}, {"metExpectation": true}]} trailing',
    ],
)
def test_unparseable_judge_reply_is_an_error(reply):
    with pytest.raises(JudgeReplyError):
        parse_judge_reply(reply, ["a", "b"])


def test_judge_spec_and_transcript_rendering():
    assert JudgeSpec.parse("litellm:openai/gpt-4.1").model == "openai/gpt-4.1"
    assert JudgeSpec.parse({"model": "m", "base_url": "http://x"}).base_url == "http://x"
    text = render_transcript([Message(role="user", content="hi"), Message(role="assistant", content="hello")])
    assert text == "user: hi\nassistant: hello"
