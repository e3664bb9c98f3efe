"""UserBench: Gymnasium environments for LLM agents against simulated users whose
fidelity is measured on every rollout.

``import userbench_env`` registers every env id (``UserBench/Airline-v0``, ...) and
stays fast: heavy dependencies (litellm, playwright, docker, ray, matplotlib) are
imported only inside the functions that need them.
"""
from __future__ import annotations

from userbench_env.registration import ENV_SPECS, register_envs

__version__ = "0.1.0"

register_envs()

__all__ = ["ENV_SPECS", "__version__", "register_envs"]
