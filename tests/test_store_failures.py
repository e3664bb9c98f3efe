"""A full disk stops the run, and a store has one writer (issue 25, build item 4).

The disk is really full: a 64 KiB tmpfs (needs root, skipped otherwise) and a file-size
limit (``RLIMIT_FSIZE``, ``EFBIG``) set in a child process. The second writer is a
second real ``userbench eval`` process on the same store. The LLM cases go over real
HTTP to the local chat server playing the scripted user, whose recorded requests show
how many (paid) episodes were started.
"""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

import userbench_env  # noqa: F401  (registers the env ids)
from userbench_env.cli import main
from userbench_env.runner.store import EpisodeStore
from userbench_env.serve import ChatServer, ScriptedUserResponder
from userbench_env.tasks import load_tasks

ROOT = Path(__file__).resolve().parents[1]
AIRLINE = 46  # bundled airline tasks (default split)


@pytest.fixture
def tiny_disk(tmp_path):
    """A 64 KiB tmpfs (a real ENOSPC after about ten records); skipped where it cannot be mounted."""
    mount = tmp_path / "tiny"
    mount.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mount)], capture_output=True, text=True)
    if done.returncode:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    yield mount
    subprocess.run(["umount", str(mount)], check=False)


def _started(server: ChatServer) -> int:
    """Episodes the server saw begin: distinct system prompts (one task scenario each)."""
    return len({body["messages"][0]["content"] for body in server.stats.bodies})


def test_a_full_disk_stops_the_run_at_the_first_failed_write_and_resume_continues(tiny_disk, capsys) -> None:
    out = tiny_disk / "run.jsonl"
    tasks = load_tasks("airline", "bundled", "default")
    with ChatServer(ScriptedUserResponder(tasks)) as server:
        args = ["eval", "--domain", "airline", "--proxy", "direct:local", "--base-url", server.base_url,
                "--concurrency", "2", "--no-progress", "--out", str(out)]
        code = main(args)
        started = _started(server)
        error = capsys.readouterr().err.strip()
        store = EpisodeStore(out)
        stored = list(store.records())
        assert code == 1 and "\n" not in error
        assert f"cannot write {out}: [ENOSPC] No space left on device" in error
        assert f"; {len(stored)} of the run's {AIRLINE} episodes are safely stored there" in error
        assert "run the same command again to resume from there" in error
        assert 0 < len(stored) < AIRLINE and store.unreadable == 0  # whole records only: the failed batch is undone
        # a worker starts no episode before its last record is on disk, so besides the stored episodes only
        # one per worker was paid for: its record in the failed batch, or its episode in flight (cancelled)
        assert started <= len(stored) + 2
        subprocess.run(["mount", "-o", "remount,size=1m", str(tiny_disk)], check=True)
        assert main(args) == 0
    assert f"{AIRLINE - len(stored)} episodes run, {len(stored)} already in" in capsys.readouterr().out
    keys = [r["key"] for r in EpisodeStore(out).records()]
    assert len(keys) == len(set(keys)) == AIRLINE


LIMITED = textwrap.dedent("""
    import resource, signal, sys
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG instead of killing us
    resource.setrlimit(resource.RLIMIT_FSIZE, ({limit}, {limit}))
    from userbench_env.cli import main
    sys.exit(main(sys.argv[1:]))
""")


def test_a_file_size_limit_stops_the_run_with_one_line_and_resume_completes_it(tmp_path) -> None:
    out = tmp_path / "run.jsonl"
    args = ["eval", "--domain", "airline", "--concurrency", "2", "--no-progress", "--out", str(out)]
    limited = subprocess.run([sys.executable, "-c", LIMITED.format(limit=40_000), *args], cwd=ROOT,
                             capture_output=True, text=True, timeout=300)
    store = EpisodeStore(out)
    stored = list(store.records())
    error = limited.stderr.strip()
    assert limited.returncode == 1 and "\n" not in error and "Traceback" not in error
    assert f"userbench eval: cannot write {out}: [EFBIG] File too large; {len(stored)} of the run's {AIRLINE}" in error
    assert 0 < len(stored) < AIRLINE and store.unreadable == 0 and out.stat().st_size <= 40_000
    resumed = subprocess.run([sys.executable, "-m", "userbench_env.cli", *args], cwd=ROOT, capture_output=True,
                             text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    assert f"{AIRLINE - len(stored)} episodes run, {len(stored)} already in" in resumed.stdout
    keys = [r["key"] for r in EpisodeStore(out).records()]
    assert len(keys) == len(set(keys)) == AIRLINE


def test_a_second_runner_on_a_store_fails_with_one_line_and_nothing_is_doubled(tmp_path) -> None:
    out = tmp_path / "run.jsonl"
    tasks = load_tasks("airline", "bundled", "default")
    with ChatServer(ScriptedUserResponder(tasks), latency=0.3) as server:
        args = [sys.executable, "-m", "userbench_env.cli", "eval", "--domain", "airline", "--limit", "6", "--proxy",
                "direct:local", "--base-url", server.base_url, "--concurrency", "1", "--no-progress", "--out", str(out)]
        first = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            deadline = time.monotonic() + 120
            while server.stats.requests == 0 and first.poll() is None and time.monotonic() < deadline:
                time.sleep(0.05)  # the first runner is playing episodes: it holds the store
            second = subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=300)
            first_out, first_err = first.communicate(timeout=300)
        finally:
            if first.poll() is None:
                first.kill()
    assert first.returncode == 0, first_err
    assert "6 episodes run, 0 already in" in first_out
    error = second.stderr.strip()
    assert second.returncode == 2 and "\n" not in error
    assert error == (f"userbench eval: {out} is being written by another process (two writers would double its "
                     "episodes): wait for that run to end, or write to another --out")
    keys = [r["key"] for r in EpisodeStore(out).records()]
    assert len(keys) == len(set(keys)) == 6
