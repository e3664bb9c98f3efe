"""The Ray backend on a real local Ray instance: the same records as the local backend,
resume and retry through the driver's store, a lost actor as an infrastructure error,
and a clear error when Ray is not installed."""
from __future__ import annotations

import os
import sys

import pytest

from userbench_env.cli import main
from userbench_env.runner import EvalConfig, collect, run_eval
from userbench_env.runner.evaluation import plan
from userbench_env.runner.ray_backend import MISSING_RAY, import_ray
from userbench_env.runner.store import EpisodeStore

pytestmark = pytest.mark.filterwarnings("ignore:Pydantic serializer warnings:UserWarning")

PERTURBED = "perturbed:volunteers_unasked_info@0.5+scripted"


@pytest.fixture(scope="module")
def ray_session():
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()


def _by_key(path) -> dict[str, dict]:
    records = list(EpisodeStore(path).records())
    assert len(records) == len({r["key"] for r in records})  # every episode exactly once
    return {r["key"]: {k: v for k, v in r.items() if k != "duration_s"} for r in records}


def test_ray_backend_writes_the_same_records_as_the_local_backend(tmp_path, ray_session) -> None:
    config = EvalConfig(proxies=["scripted", PERTURBED], domains=["airline"], limit=3, concurrency=2, progress=False)
    local = run_eval(config.model_copy(update={"out": str(tmp_path / "local.jsonl")}))
    remote = run_eval(config.model_copy(update={"out": str(tmp_path / "ray.jsonl")}), backend="ray", workers=2)
    assert (remote.planned, remote.ran, remote.errors) == (local.planned, local.ran, local.errors) == (6, 6, 0)
    local_records, ray_records = _by_key(tmp_path / "local.jsonl"), _by_key(tmp_path / "ray.jsonl")
    assert set(ray_records) == {m.key for m in plan(config)}
    assert ray_records == local_records  # keys, rewards, UFS verdicts, messages, injections: all identical
    assert any(r["injections"] for r in ray_records.values())


def test_ray_resume_runs_only_the_missing_keys_and_retries_errors(tmp_path, ray_session) -> None:
    out = tmp_path / "runs.jsonl"
    config = EvalConfig(domains=["airline"], limit=2, concurrency=1, out=str(out), progress=False)
    first = run_eval(config, backend="ray", workers=2)
    assert (first.planned, first.ran) == (2, 2)
    first_lines = out.read_text(encoding="utf-8")
    wider = config.model_copy(update={"limit": 5})
    resumed = run_eval(wider, backend="ray", workers=2)
    assert (resumed.planned, resumed.skipped, resumed.ran, resumed.errors) == (5, 2, 3, 0)
    assert out.read_text(encoding="utf-8").startswith(first_lines)  # finished episodes are never rewritten
    assert set(_by_key(out)) == {m.key for m in plan(wider)}
    store = EpisodeStore(out)
    broken = dict(list(store.records())[3], error="ProxyError: provider down", termination="error", reward=0.0)
    store.append(broken)
    assert run_eval(wider, backend="ray", workers=2).ran == 0
    retried = run_eval(wider.model_copy(update={"retry_errors": True}), backend="ray", workers=2)
    assert (retried.skipped, retried.ran, retried.errors) == (4, 1, 0)
    assert store.latest()[broken["key"]]["error"] is None and store.latest()[broken["key"]]["reward"] == 1.0


def test_ray_collect_plays_on_the_actors_and_keeps_episode_order(ray_session) -> None:
    def _say_pid(observation, info):  # a local function travels to the actors by value
        return f"served by process {os.getpid()}. Goodbye! ###STOP###"

    result = collect("UserBench/Airline-v0", _say_pid, episodes=4, concurrency=1, gate=None, seed=3,
                     backend="ray", workers=2)
    assert (len(result.records), result.rejected, result.errors) == (4, 0, [])
    assert [r["seed"] for r in result.records] == [3, 4, 5, 6]
    pids = {[m["content"] for m in r["messages"] if m["role"] == "assistant"][-1] for r in result.records}
    assert len(pids) == 2 and f"served by process {os.getpid()}. Goodbye! ###STOP###" not in pids


def test_a_lost_actor_is_an_infrastructure_error_and_is_restarted(tmp_path, ray_session) -> None:
    marker = tmp_path / "died-once"

    def dies_once(observation, info):
        if not marker.exists():
            marker.write_text("x", encoding="utf-8")
            os._exit(1)  # the actor's process is lost mid-episode
        return "Goodbye! ###STOP###"

    result = collect("UserBench/Airline-v0", dies_once, episodes=2, concurrency=1, gate=None, backend="ray", workers=1)
    assert len(result.records) == 1 and result.records[0]["termination"] == "agent_stop"
    assert [e["termination"] for e in result.errors] == ["crash"]
    assert result.errors[0]["error"].startswith("crash: ") and "Actor" in result.errors[0]["error"]


def test_a_proxy_the_workers_cannot_import_fails_the_run_before_any_episode(tmp_path, monkeypatch, ray_session) -> None:
    (tmp_path / "driver_only_users.py").write_text(
        "from userbench_env.proxies.scripted import ScriptedUserProxy\n\n"
        "class DriverOnlyUser(ScriptedUserProxy):\n    name = 'driver-only'\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))  # importable in this process, not on the Ray workers
    from driver_only_users import DriverOnlyUser

    out = tmp_path / "runs.jsonl"
    with pytest.raises(ray_session.exceptions.RayActorError, match="driver_only_users"):
        collect("UserBench/Airline-v0", "scripted", episodes=2, concurrency=1, gate=None, out=str(out),
                env_kwargs={"user_proxy": DriverOnlyUser}, backend="ray", workers=1)
    assert not out.exists()


def test_missing_ray_is_a_clear_error_before_any_episode(tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` now fails as if it were not installed
    with pytest.raises(ImportError, match=r'pip install -e "\.\[ray\]"'):
        import_ray()
    out = tmp_path / "runs.jsonl"
    with pytest.raises(ImportError, match="not installed"):
        run_eval(EvalConfig(domains=["airline"], limit=1, out=str(out), progress=False), backend="ray")
    assert main(["eval", "--backend", "ray", "--domain", "airline", "--limit", "1", "--out", str(out)]) == 2
    assert MISSING_RAY in capsys.readouterr().err
    assert not out.exists()


def test_bad_backend_arguments_are_refused(tmp_path) -> None:
    config = EvalConfig(domains=["airline"], limit=1, out=str(tmp_path / "r.jsonl"), progress=False)
    with pytest.raises(ValueError, match="'local' or 'ray'"):
        run_eval(config, backend="dask")
    with pytest.raises(ValueError, match="workers"):
        run_eval(config, backend="ray", workers=0)
    assert not (tmp_path / "r.jsonl").exists()
