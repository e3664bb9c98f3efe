"""A user that breaks the episode is the user's failure, never the agent's R_tau 0.

An LLM user (real HTTP to the local server) that answers every turn with a tool call
loops until its error budget is spent: the episode ends as ``user_failure`` with a failed
env-decided criterion, no reward for the agent, and the runner, the report and the
training reward all leave the agent unscored. A user that cannot produce a valid turn
at all is an infrastructure error, excluded from every rate.
"""
from __future__ import annotations

import pytest

from test_direct_transport import TOOL_REPLY
from userbench_env.analysis.report import build_report
from userbench_env.envs.conversation import ConversationEnv
from userbench_env.envs.info import USER_FAILURE
from userbench_env.integrations.episode import score_episode
from userbench_env.runner.evaluation import EvalConfig, run_eval
from userbench_env.runner.store import EpisodeStore
from userbench_env.serve import CannedResponder, ChatServer, FaultSchedule, Reply
from userbench_env.fidelity.taxonomy import MODES

pytestmark = pytest.mark.filterwarnings("ignore:Pydantic serializer warnings:UserWarning")

OPTIONS = {"api_key": "sk-local", "backoff": 0.001, "max_retries": 1, "timeout": 10.0}


def looping_user() -> ChatServer:
    """A server whose user only ever calls a tool (``check_status_bar``), never answering the agent."""
    return ChatServer(CannedResponder([TOOL_REPLY]))


@pytest.mark.parametrize("domain", ["telecom", "airline"])  # with user tools, and with none
def test_a_user_looping_on_tool_calls_ends_reset_as_the_users_failure(domain: str) -> None:
    with looping_user() as server:
        env = ConversationEnv(domain, user_proxy="direct:openai/local-user", max_errors=4, max_user_tool_calls=3,
                              user_proxy_options={"base_url": server.base_url, **OPTIONS})
        observation, info = env.reset(seed=0)
    episode = info["episode_record"]
    assert observation == "" and episode["termination"] == USER_FAILURE and episode["error"] is None
    assert episode["reward"] is None and episode["reward_excluding_nl"] is None  # the agent never took a turn
    assert episode["ufs_pass"] is False and episode["failures_per_family"]["goal_deviation"] >= 1
    failed = [c for c in episode["criteria"] if c["source"] == "env"]
    assert failed == [{"id": "goal_deviation/never_answers_agent", "family": "goal_deviation",
                       "mode": "never_answers_agent", "verdict": "fail", "evidence_turn": 0, "source": "env",
                       "reason": failed[0]["reason"]}]
    assert "failed 4 times" in failed[0]["reason"]
    assert info["user_tool_errors"] == info["tool_errors"] == 4 and info["agent_tool_calls"] == 0
    assert score_episode(episode, "r_tau") is None and score_episode(episode, "ufs_gated") is None


def test_the_users_errors_do_not_spend_the_agents_error_budget() -> None:
    # the user fails one tool call per turn, then answers; the agent has 2 errors to spare
    replies = [TOOL_REPLY, Reply(text="It shows no signal."), TOOL_REPLY, Reply(text="Still nothing.")]
    with ChatServer(CannedResponder(replies)) as server:
        env = ConversationEnv("airline", user_proxy="direct:openai/local-user", max_errors=3,
                              user_proxy_options={"base_url": server.base_url, **OPTIONS})
        env.reset(seed=0)
        observation, reward, terminated, truncated, info = env.step("What do you see?")
    assert observation == "Still nothing." and not (terminated or truncated)
    assert info["tool_errors"] == 2 and info["user_tool_errors"] == 2 and "episode_record" not in info
    for _ in range(2):  # two agent errors: 4 errors in all, but the agent's budget is 3
        observation, reward, terminated, truncated, info = env.step("{not an action")
    assert not terminated and info["tool_errors"] == 4


def test_the_env_decides_exactly_one_mode() -> None:
    assert [m.name for m in MODES if m.coverage == "env"] == ["never_answers_agent"]


def test_the_runner_and_report_count_a_user_failure_in_ufs_not_in_r_tau(tmp_path) -> None:
    out = tmp_path / "runs.jsonl"
    with looping_user() as server:
        config = EvalConfig(proxies=["direct:openai/local-user"], domains=["telecom"], limit=2, out=str(out),
                            progress=False,
                            proxy_options={"base_url": server.base_url, **OPTIONS})
        result = run_eval(config)
    assert (result.ran, result.errors) == (2, 0)
    records = list(EpisodeStore(out).records())
    assert [(r["termination"], r["reward"], r["error"], r["ufs_pass"]) for r in records] == [
        (USER_FAILURE, None, None, False)] * 2
    report = build_report(records)
    (row,) = report["proxies"]
    assert (row["n"], row["errors"], row["r_tau"], row["ufs"]) == (2, 0, None, 0.0)
    assert report["domains"][0]["r_tau"] is None and report["domains"][0]["n_ufs"] == 2


def test_a_user_that_cannot_produce_a_valid_turn_is_an_infrastructure_error(tmp_path) -> None:
    out = tmp_path / "runs.jsonl"
    with ChatServer(CannedResponder([Reply(text="unused")]), faults=FaultSchedule(["empty_choices"], repeat=True)) as server:
        config = EvalConfig(proxies=["direct:openai/local-user"], domains=["airline"], limit=1, out=str(out),
                            progress=False, proxy_options={"base_url": server.base_url, **OPTIONS})
        run_eval(config)
    (record,) = EpisodeStore(out).records()
    assert record["termination"] == "error" and "MalformedReply: the reply has no choices" in record["error"]
    report = build_report([record])
    assert report["errors_total"] == 1 and report["domains"] == []
