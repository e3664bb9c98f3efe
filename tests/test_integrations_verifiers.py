"""The verifiers adapter end to end: verifiers' own rollout machinery over a few episodes.

The policy is the scripted oracle agent behind a local, streaming OpenAI-compatible
endpoint (verifiers' chat program always streams): it reads the conversation the
program sends (the user's messages and ``<tool_response>`` blocks), replays the oracle
on it and answers in the adapter's text protocol (``<tool_call>`` blocks or a message).
verifiers runs the adapter's harness (its ``null`` chat harness) as a local subprocess.
Everything runs as on a fresh machine without internet: ``uv``, ``curl``, ``wget`` and
``pip`` on ``PATH`` are stand-ins that fail, and the command-line run gets an empty
``HOME`` (no cached ``uv``), so any attempt to fetch ``uv`` or a package fails the test.
The rubric on each trace is checked against the env's own ``info["episode_record"]``.
Skipped (one-line reason) without verifiers.
"""
from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import subprocess
import sys
import threading
import time
from typing import Any

import gymnasium as gym
import pytest

import resources
import userbench_env  # noqa: F401  (registers the env ids)
from userbench_env.agents import ScriptedAgent
from userbench_env.errors import extra_hint
from userbench_env.integrations.episode import episode_rows, score_episode
from userbench_env.tasks import load_task

pytestmark = [pytest.mark.slow, pytest.mark.filterwarnings("ignore::DeprecationWarning")]

ENV_ID = "UserBench/Retail-v0"
GATE_FAILING_PROXY = "perturbed:volunteers_unasked_info@1.0+scripted"
TOOL_RESPONSE = ("<tool_response>\n", "\n</tool_response>")
KEY_VAR = "USERBENCH_ORACLE_KEY"  # the endpoint's (unchecked) API key


def oracle_reply(messages: list[dict[str, Any]], tasks_by_opening: dict[str, Any]) -> str:
    """The oracle's next action for the conversation, in the adapter's text protocol."""
    observations = []
    for m in messages:
        if m.get("role") != "user":
            continue
        text = m["content"] if isinstance(m["content"], str) else "".join(p.get("text", "") for p in m["content"])
        if text.startswith(TOOL_RESPONSE[0]) and text.endswith(TOOL_RESPONSE[1]):
            text = text[len(TOOL_RESPONSE[0]):-len(TOOL_RESPONSE[1])]
        observations.append(text)
    agent = ScriptedAgent()
    agent.reset(tasks_by_opening[observations[0]])
    for observation in observations:
        action = agent.act(observation, {})
    if action.lstrip().startswith(("{", "[")):
        calls = json.loads(action)
        calls = calls if isinstance(calls, list) else [calls]
        return "\n".join(f"<tool_call>\n{json.dumps(c)}\n</tool_call>" for c in calls)
    return action


class OracleServer:
    """A streaming ``/v1/chat/completions`` endpoint answering as the oracle (aiohttp, own thread)."""

    def __init__(self, tasks_by_opening: dict[str, Any]) -> None:
        self.tasks_by_opening = tasks_by_opening
        self.requests = 0
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)

    def __enter__(self) -> "OracleServer":
        self._thread.start()
        assert self._ready.wait(30)
        return self

    def __exit__(self, *exc: Any) -> None:
        asyncio.run_coroutine_threadsafe(self._runner.cleanup(), self._loop).result(30)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(30)

    def _serve(self) -> None:
        from aiohttp import web

        async def completions(request: web.Request) -> web.StreamResponse:
            body = await request.json()
            self.requests += 1
            text = oracle_reply(body["messages"], self.tasks_by_opening)
            response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
            await response.prepare(request)
            base = {"id": f"chatcmpl-{self.requests}", "object": "chat.completion.chunk", "created": int(time.time()),
                    "model": body.get("model", "oracle")}
            chunks = [
                {**base, "choices": [{"index": 0, "delta": {"role": "assistant", "content": text}, "finish_reason": None}]},
                {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
                {**base, "choices": [], "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}},
            ]
            for chunk in chunks:
                await response.write(f"data: {json.dumps(chunk)}\n\n".encode())
            await response.write(b"data: [DONE]\n\n")
            await response.write_eof()
            return response

        async def start() -> None:
            app = web.Application()
            app.router.add_post("/v1/chat/completions", completions)
            self._runner = web.AppRunner(app)
            await self._runner.setup()
            site = web.TCPSite(self._runner, "127.0.0.1", 0)
            await site.start()
            self.base_url = f"http://127.0.0.1:{site._server.sockets[0].getsockname()[1]}/v1"

        asyncio.set_event_loop(self._loop)
        self._loop.run_until_complete(start())
        self._ready.set()
        self._loop.run_forever()


#: programs an offline run must never call (verifiers' way to get uv: pip, then curl/wget)
FETCHERS = ("uv", "curl", "wget", "pip")


def offline_path(folder) -> str:
    """``PATH`` with failing stand-ins of :data:`FETCHERS` in front (made in ``folder``)."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in FETCHERS:
        shim = folder / name
        shim.write_text(f'#!/bin/sh\necho "offline run: {name} was called" >&2\nexit 97\n')
        shim.chmod(0o755)
    return f"{folder}{os.pathsep}{os.environ['PATH']}"


def openings(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Each row's opening user message (deterministic) -> its task, so the oracle knows the task."""
    found = {}
    for row in rows:
        env = gym.make(row["env_id"], task_source=row["task_source"], split=row["split"],
                       user_proxy=row["user_proxy"] or "scripted")
        opening, _ = env.reset(seed=row["seed"], options={"task_id": row["task_id"]})
        found[opening] = load_task("retail", row["task_id"], row["task_source"])
    return found


@pytest.fixture(scope="module")
def oracle(tmp_path_factory):
    """The oracle endpoint (knowing the first three retail test tasks, clean and gated), its
    key, and an offline ``PATH`` (:func:`offline_path`) for everything verifiers runs."""
    if importlib.util.find_spec("verifiers") is None:
        resources.go_without(f"verifiers is not installed: {extra_hint('verifiers')}", "verifiers")
    rows = episode_rows(ENV_ID, "test", limit=3)
    known = {**openings(rows), **openings([{**rows[0], "user_proxy": GATE_FAILING_PROXY}])}
    with OracleServer(known) as server, pytest.MonkeyPatch.context() as patch:
        patch.setenv(KEY_VAR, "local")
        patch.setenv("PATH", offline_path(tmp_path_factory.mktemp("offline")))
        yield server


@pytest.fixture(scope="module")
def evaluated(oracle):
    import verifiers.v1 as vf
    from verifiers.v1.env import RunSlot

    from userbench_env.integrations.verifiers import load_environment

    clean = load_environment(ENV_ID, part="test", reward="ufs_gated", limit=3, max_turns=40)
    gated = load_environment(ENV_ID, part="test", reward="ufs_gated", limit=1, max_turns=40,
                             user_proxy=GATE_FAILING_PROXY)

    async def run_all(server: OracleServer) -> list[Any]:
        ctx = vf.ModelContext(model="oracle", client=vf.EvalClientConfig(base_url=server.base_url, api_key_var=KEY_VAR))
        episodes = []
        for env in (clean, gated):
            async with env.serving():
                episodes += [await env.run_slot(RunSlot(task), ctx) for task in env.taskset]
        return episodes

    return asyncio.run(run_all(oracle))


def test_the_rubric_scores_match_the_envs_episode(evaluated) -> None:
    assert len(evaluated) == 4
    for vf_episode in evaluated:
        assert vf_episode.ok, [e.message for e in vf_episode.errors]
        (trace,) = vf_episode.traces
        episode = trace.info["episode_record"]
        assert episode["error"] is None and episode["termination"] in ("user_stop", "agent_stop")
        want = score_episode(episode, "ufs_gated")
        got = trace.rewards["ufs_gated"]
        assert (got is None) if want is None else got.score == pytest.approx(want)
        assert trace.metrics["r_tau"] == pytest.approx(score_episode(episode, "r_tau"))
        assert trace.metrics["fidelity_weighted"] == pytest.approx(score_episode(episode, "fidelity_weighted"))


def test_the_oracle_solves_the_clean_episodes_and_the_gate_drops_the_unfaithful_one(evaluated) -> None:
    clean, gated = evaluated[:3], evaluated[3]
    for vf_episode in clean:
        trace = vf_episode.traces[0]
        assert trace.info["episode_record"]["ufs_pass"] is not False
        assert trace.rewards["ufs_gated"].score == 1.0 == trace.metrics["r_tau"]
    trace = gated.traces[0]
    assert trace.info["episode_record"]["ufs_pass"] is False and trace.metrics["ufs_pass"] == 0.0
    assert trace.rewards["ufs_gated"] is None and "r_tau" in trace.metrics


def test_vf_eval_from_the_command_line(oracle, tmp_path) -> None:
    command = [sys.executable, "-m", "userbench_env.integrations.verifiers", "userbench",
               "--env.taskset.env-id", ENV_ID, "--env.taskset.limit", "1", "--env.reward", "r_tau", "-n", "1",
               "--model", "oracle", "--client.base-url", oracle.base_url, "--client.api-key-var", KEY_VAR,
               "-o", str(tmp_path), "--no-rich"]
    home = tmp_path / "home"  # no cached uv, no verifiers cache: a fresh machine's user
    home.mkdir()
    done = subprocess.run(command, capture_output=True, text=True, timeout=600,
                          env={**os.environ, KEY_VAR: "local", "HOME": str(home)})
    assert done.returncode == 0, done.stderr[-2000:]
    (traces,) = tmp_path.glob("*/traces.jsonl")
    (record,) = [json.loads(line) for line in traces.read_text().splitlines() if line.strip()]
    (trace,) = record["traces"]
    episode = trace["info"]["episode_record"]
    assert episode["termination"] in ("user_stop", "agent_stop") and episode["error"] is None
    assert trace["rewards"]["r_tau"]["score"] == episode["reward"] == 1.0


def test_the_harness_runs_the_chat_program_here_only_when_this_python_has_its_packages() -> None:
    if importlib.util.find_spec("verifiers") is None:
        resources.go_without(f"verifiers is not installed: {extra_hint('verifiers')}", "verifiers")
    from verifiers.v1.harnesses.utils.launch import CHAT_PROGRAM_SOURCE
    from verifiers.v1.runtimes import SubprocessConfig, SubprocessRuntime

    from userbench_env.integrations.verifiers_harness import (
        prepare_with_this_interpreter,
        prepared_script_path,
        script_metadata,
        unmet_requirements,
    )

    assert "mcp==2.0.0" in script_metadata(CHAT_PROGRAM_SOURCE)["dependencies"]
    assert unmet_requirements(CHAT_PROGRAM_SOURCE) == []  # verifiers' own dependencies
    other = '# /// script\n# requires-python = ">=99"\n# dependencies = ["httpx>=0", "no-such-package-x1"]\n# ///\n'
    assert unmet_requirements(other) == ["python>=99", "no-such-package-x1"]
    runtime = SubprocessRuntime(SubprocessConfig())
    assert prepare_with_this_interpreter(runtime, other) is False  # left to verifiers' uv path
    assert prepare_with_this_interpreter(runtime, CHAT_PROGRAM_SOURCE) is True
    path = prepared_script_path(runtime, CHAT_PROGRAM_SOURCE)
    with open(path, encoding="utf-8") as script:
        assert script.read() == CHAT_PROGRAM_SOURCE
    # verifiers' own launch path now runs it on this interpreter, without uv
    argv = asyncio.run(runtime.prepare_uv_script(CHAT_PROGRAM_SOURCE, {}, activate=False))
    assert argv == [sys.executable, path]
