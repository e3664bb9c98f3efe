"""The Ray backend on a real local Ray instance: the same records as the local backend,
resume and retry through the driver's store, a lost actor as an infrastructure error,
and a clear error when Ray is not installed."""
from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile

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
    # "local": a cluster of our own, whatever a past `ray start` left in /tmp/ray
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
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


def _dead_address() -> str:
    """A 127.0.0.1 port nothing listens on."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return f"127.0.0.1:{probe.getsockname()[1]}"


def _eval_in_a_fresh_process(tmp: str, *flags: str, timeout: float, **env: str) -> subprocess.CompletedProcess:
    """``userbench eval --backend ray`` on one airline task, Ray's state under ``tmp``."""
    inherited = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    environment = {**inherited, "RAY_TMPDIR": tmp, **env}
    command = [sys.executable, "-m", "userbench_env.cli", "eval", "--backend", "ray", "--workers", "1",
               "--domain", "airline", "--limit", "1", "--no-progress", "--out", os.path.join(tmp, "runs.jsonl"), *flags]
    return subprocess.run(command, env=environment, capture_output=True, text=True, timeout=timeout)


@pytest.fixture
def ray_tmp():
    pytest.importorskip("ray")
    tmp = tempfile.mkdtemp(prefix="ub-ray-", dir="/tmp")  # short: Ray's socket paths live under it
    yield tmp
    shutil.rmtree(tmp, ignore_errors=True)


def test_a_stale_cluster_file_does_not_stop_a_local_run(ray_tmp) -> None:
    # what a `ray start` whose cluster is gone leaves behind: Ray's "latest cluster" file
    os.makedirs(os.path.join(ray_tmp, "ray"))
    with open(os.path.join(ray_tmp, "ray", "ray_current_cluster"), "w", encoding="utf-8") as handle:
        handle.write(_dead_address())
    done = _eval_in_a_fresh_process(ray_tmp, timeout=240)
    assert done.returncode == 0, done.stderr[-2000:]
    records = list(EpisodeStore(os.path.join(ray_tmp, "runs.jsonl")).records())
    assert [(r["error"], r["reward"]) for r in records] == [(None, 1.0)]


@pytest.mark.parametrize("origin", ["--ray-address", "RAY_ADDRESS"])
def test_a_named_cluster_that_does_not_answer_is_one_line_naming_it(ray_tmp, origin) -> None:
    address = _dead_address()
    if origin == "RAY_ADDRESS":
        done = _eval_in_a_fresh_process(ray_tmp, timeout=120, RAY_ADDRESS=address)
    else:
        done = _eval_in_a_fresh_process(ray_tmp, "--ray-address", address, timeout=120)
    assert done.returncode == 2
    assert done.stderr.startswith(f"userbench eval: no Ray cluster answers at {address} (from {origin}): ")
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert not os.path.exists(os.path.join(ray_tmp, "runs.jsonl"))
