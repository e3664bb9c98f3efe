"""Gymnasium wrappers for UserBench envs, importable as ``userbench_env.wrappers``.

* :class:`FidelityGate`: marks, or zeroes the reward of, episodes whose user failed UFS
  or chosen failure families;
* :class:`FidelityWeightedReward`: terminal reward times a weight from the criteria;
* :class:`RecordEpisodes`: appends each finished episode's record to a JSONL store;
* :class:`ChatMessages`: observations as OpenAI message lists plus the tool schemas;
* :class:`ParseToolCalls`: model text with tool-call markup turned into actions.
"""
from userbench_env.wrappers.chat import ChatMessages, to_openai_messages
from userbench_env.wrappers.fidelity import FidelityGate, FidelityWeightedReward, pass_fraction
from userbench_env.wrappers.recording import RecordEpisodes
from userbench_env.wrappers.toolcalls import ParseToolCalls, parse_tool_calls

__all__ = [
    "ChatMessages",
    "FidelityGate",
    "FidelityWeightedReward",
    "ParseToolCalls",
    "RecordEpisodes",
    "parse_tool_calls",
    "pass_fraction",
    "to_openai_messages",
]
