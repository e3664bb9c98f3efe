"""Transcripts from other harnesses, scored by the rule tracker the envs feed.

* :mod:`.tau2` reads tau2-bench results files, :mod:`.taubench` tau-bench (v1) trajectory
  lists, each entry into a :class:`~.transcript.Transcript` (our messages, numbered with
  agent turns, mapped back to the input's message indices) against a task of a
  :class:`~.tasks.TaskIndex`;
* :mod:`.scoring` feeds a transcript to a rule tracker exactly as the env feeds one
  (:class:`~userbench_env.fidelity.feeding.TrackerFeed`) and grades it as the env does;
* :mod:`.files` scores a whole file, skipping (and reporting) the entries it cannot score;
* :mod:`.export` writes run-store episodes as a tau2 results file;
* :mod:`.cli` is ``userbench score-transcripts`` and ``userbench export``.

The command and its output schema are documented in ``docs/transcripts.md``.
"""
from userbench_env.fidelity.transcripts.files import ScoredFile, TaskChoice, score_file
from userbench_env.fidelity.transcripts.scoring import score_transcript
from userbench_env.fidelity.transcripts.transcript import BadEntry, NotThisFormat, Transcript

__all__ = ["BadEntry", "NotThisFormat", "ScoredFile", "TaskChoice", "Transcript", "score_file", "score_transcript"]
