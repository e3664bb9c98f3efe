"""The judge-free user-action probe: gold user writes against the user's real tool calls."""
from __future__ import annotations

import pytest
from scripted_support import run_episode

from userbench_env.core.messages import Message, ToolCall
from userbench_env.core.task import Action
from userbench_env.domains import make_world
from userbench_env.envs.conversation import ConversationEnv
from userbench_env.fidelity.probe import probe_actions, probe_episode
from userbench_env.fidelity.scoring import episode_verdict
from userbench_env.proxies.base import UserTurn, UserView
from userbench_env.proxies.scripted import ScriptedUserProxy

CLAIM = "Done, I did it."


class ClaimingProxy(ScriptedUserProxy):
    """The scripted user, except that it says it performed a requested action instead of calling the tool."""

    name = "claims-only"

    def respond(self, view: UserView) -> UserTurn:
        turn = super().respond(view)
        return UserTurn(text=CLAIM) if turn.tool_call is not None else turn


def _user_call(call_id: str, name: str, arguments: dict | None = None, error: bool = False) -> list[Message]:
    call = ToolCall(id=call_id, name=name, arguments=arguments or {}, requestor="user")
    return [
        Message(role="user", tool_calls=[call]),
        Message(role="tool", content="result", tool_call_id=call_id, requestor="user", error=error),
    ]


def _gold(name: str, requestor: str = "user", **arguments) -> Action:
    return Action(action_id=name, name=name, arguments=arguments, requestor=requestor)


WRITES = {"toggle_data", "reboot_device", "grant_app_permission"}


def _probe(gold: list[Action], messages: list[Message]) -> dict:
    return probe_actions(gold, messages, WRITES.__contains__).to_info()


def test_counts_only_successful_matching_user_calls_one_per_gold_write():
    gold = [
        _gold("toggle_data"),
        _gold("reboot_device"),
        _gold("reboot_device"),
        _gold("grant_app_permission", app_name="messaging", permission="sms"),
        _gold("check_status_bar"),  # read-only: not a gold write
        _gold("toggle_data", requestor="assistant"),  # the agent's: not a user write
    ]
    messages = [
        Message(role="assistant", tool_calls=[ToolCall(id="a1", name="reboot_device", requestor="assistant")]),
        *_user_call("u1", "toggle_data", error=True),  # failed: not performed
        *_user_call("u2", "reboot_device"),
        *_user_call("u3", "grant_app_permission", {"app_name": "messaging", "permission": "storage"}),
        Message(role="user", content="I turned data on and rebooted twice."),
    ]
    assert _probe(gold, messages) == {
        "gold_user_writes": 4,
        "performed": 1,
        "missing": ["toggle_data", "reboot_device", "grant_app_permission"],
        "rate": 0.25,
    }
    messages += [*_user_call("u4", "reboot_device"), *_user_call("u5", "toggle_data"),
                 *_user_call("u6", "grant_app_permission", {"app_name": "messaging", "permission": "sms"})]
    assert _probe(gold, messages) == {"gold_user_writes": 4, "performed": 4, "missing": [], "rate": 1.0}


def test_matching_is_maximal_and_follows_tau2_argument_rules():
    specific = _gold("grant_app_permission", app_name="messaging", permission="sms")
    anything = Action(action_id="x", name="grant_app_permission", arguments={"app_name": "browser", "permission": "network"},
                      requestor="user", compare_args=[])
    # The first call matches both gold actions, the second only the name-only one: both must be performed.
    messages = [*_user_call("u1", "grant_app_permission", {"app_name": "messaging", "permission": "sms"}),
                *_user_call("u2", "grant_app_permission", {"app_name": "browser", "permission": "storage"})]
    assert _probe([specific, anything], messages)["performed"] == 2
    # tau2 compares the call's own keys: a call omitting a gold argument still matches.
    assert _probe([specific], _user_call("u1", "grant_app_permission", {"app_name": "messaging"}))["performed"] == 1


def test_no_gold_user_write_gives_no_rate_and_no_user_toolkit_means_no_writes(tau2_data):
    assert _probe([_gold("toggle_data", requestor="assistant")], []) == {
        "gold_user_writes": 0, "performed": 0, "missing": [], "rate": None}
    airline = make_world("airline", source="tau2")
    assert probe_episode([_gold("toggle_data")], [], airline.user).gold_user_writes == 0


@pytest.fixture(scope="module")
def telecom_env(tau2_data) -> ConversationEnv:
    return ConversationEnv("telecom", task_source="tau2")


def test_scripted_user_performs_every_gold_user_write_on_the_telecom_base_tasks(telecom_env):
    assert len(telecom_env.tasks) == 114
    gold = performed = 0
    incomplete = []
    for task in telecom_env.tasks:
        episode = run_episode(telecom_env, task.id)["episode_record"]
        probe = episode["probe"]
        gold += probe["gold_user_writes"]
        performed += probe["performed"]
        if probe["missing"]:
            incomplete.append((task.id, probe))
        # Beside UFS, never folded into it: the UFS verdict comes from the criteria alone.
        assert episode["ufs_pass"] == episode_verdict(episode["criteria"])[0]
    assert not incomplete
    assert gold == performed and gold > 300


def test_a_proxy_that_only_claims_actions_is_caught(tau2_data):
    telecom_env = ConversationEnv("telecom", task_source="tau2", user_proxy=ClaimingProxy())
    caught = 0
    with_writes = [t for t in telecom_env.tasks if any(a.requestor == "user" for a in t.gold_actions)]
    assert len(with_writes) >= 90
    for task in with_writes:
        info = run_episode(telecom_env, task.id)
        probe = info["episode_record"]["probe"]
        assert info["user_tool_calls"] == 0
        assert any(m.role == "user" and m.content == CLAIM for m in telecom_env.messages)
        assert probe["gold_user_writes"] > 0 and probe["performed"] == 0 and probe["rate"] == 0.0
        assert probe["missing"] == [a.name for a in task.gold_actions if a.requestor == "user"]
        caught += 1
    assert caught == len(with_writes)
