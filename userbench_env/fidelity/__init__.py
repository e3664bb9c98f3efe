"""User fidelity (UFS): taxonomy, criteria, incremental rule checks, the judge, scoring.

``taxonomy`` lists the failure families and modes (rule-covered or judge-only);
``criteria.from_blueprint`` turns a task's structured blueprint into rule criteria;
``rules`` holds the registry of deterministic checks run after every message;
``judge`` grades judge criteria one at a time; ``scoring`` turns verdicts into UFS;
``rubrics`` stores versioned rubric files; ``generate`` writes rubrics with an LLM;
``validate`` measures the checkers against the perturbed proxy's ground truth;
``feeding`` turns an episode's recorded messages into the tracker's feeding calls (the
env's path); ``transcripts`` scores other harnesses' transcripts (tau2 results files,
tau-bench lists) along that path and exports runs as tau2 results.

Importing this package registers the ``perturbed:<modes>@<rate>+<base spec>`` proxy
spec (the proxy module is imported only when such a spec is built).
"""
from typing import Any

from userbench_env.fidelity.criteria import from_blueprint, task_criteria
from userbench_env.fidelity.rules import RULES, RuleTracker, register_rule
from userbench_env.fidelity.scoring import episode_verdict, ufs_summary
from userbench_env.fidelity.taxonomy import FAMILIES, MODES, TAXONOMY
from userbench_env.proxies.spec import register_proxy_spec


def _perturbed_spec(rest: str, **options: Any) -> Any:
    from userbench_env.proxies.perturbed import make_perturbed

    return make_perturbed(rest, **options)


register_proxy_spec("perturbed", _perturbed_spec)

__all__ = [
    "FAMILIES", "MODES", "RULES", "RuleTracker", "TAXONOMY", "episode_verdict", "from_blueprint", "register_rule",
    "task_criteria", "ufs_summary",
]
