"""The agent's task reward R_tau, computed as tau2-bench computes it.

>>> from userbench_env.evaluation import evaluate_episode
>>> v = evaluate_episode(task, messages, termination="user_stop", source="tau2")  # doctest: +SKIP
>>> v.reward, v.components                                                         # doctest: +SKIP

One module per concern: ``environment`` (DB and env assertions), ``actions``,
``communicate``, ``nl_judge`` (LLM judge, litellm imported lazily), ``reward``
(combination), ``result`` (the verdict model).
"""
from userbench_env.evaluation.nl_judge import JudgeReplyError, JudgeSpec, parse_judge_reply
from userbench_env.evaluation.result import NLCheck, RewardResult
from userbench_env.evaluation.reward import SCORED_TERMINATIONS, evaluate_episode

__all__ = [
    "JudgeReplyError",
    "JudgeSpec",
    "NLCheck",
    "RewardResult",
    "SCORED_TERMINATIONS",
    "evaluate_episode",
    "parse_judge_reply",
]
