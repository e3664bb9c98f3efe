"""User fidelity (UFS): criteria built from blueprints, incremental rule checks, scoring.

``criteria.from_blueprint`` turns a task's structured blueprint into criteria;
``rules`` holds the registry of deterministic checks run after every user turn;
``scoring`` turns per-criterion verdicts into an episode's UFS pass/fail.
"""
from userbench_env.fidelity.criteria import from_blueprint
from userbench_env.fidelity.rules import RULES, RuleTracker, register_rule
from userbench_env.fidelity.scoring import episode_verdict

__all__ = ["RULES", "RuleTracker", "episode_verdict", "from_blueprint", "register_rule"]
