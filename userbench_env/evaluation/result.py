"""The verdict of one episode's task reward R_tau."""
from __future__ import annotations

from typing import Optional

from pydantic import BaseModel, ConfigDict, Field

#: Keys of :attr:`RewardResult.components`.
COMPONENT_KEYS = ("db", "action", "communicate", "env_assertions", "nl_assertions")


class NLCheck(BaseModel):
    """The judge's verdict on one natural-language assertion."""

    model_config = ConfigDict(frozen=True)

    assertion: str
    met: bool
    reasoning: str = ""


class RewardResult(BaseModel):
    """R_tau of one episode with every component (tau2 section 4).

    ``reward`` is the product over the task's ``reward_basis``; it is ``None`` only
    while NL assertions are pending (no judge given), and then ``nl_pending`` is true.
    ``reward_excluding_nl`` is the same product with NL left out (tau2 golden field).

    ``components`` maps ``db``, ``action``, ``communicate``, ``env_assertions`` and
    ``nl_assertions`` to 1.0/0.0, or ``None`` when the task has nothing of that kind to
    check (or NL is pending/left out). The ``*_reward``/``db_match`` attributes carry
    tau2's own values instead (tau2 reports 1.0 for a component with nothing to check;
    ``env_reward`` is tau2's environment factor: DB and ENV_ASSERTION, each only if in
    the basis). After a premature termination everything but the rewards is ``None``.
    """

    model_config = ConfigDict(frozen=True)

    reward: Optional[float]
    reward_excluding_nl: float
    reward_basis: list[str]
    termination: str
    components: dict[str, Optional[float]]
    db_match: Optional[bool] = None
    env_assertions_met: list[bool] = Field(default_factory=list)
    env_reward: Optional[float] = None
    action_reward: Optional[float] = None
    communicate_reward: Optional[float] = None
    nl_reward: Optional[float] = None
    nl_pending: bool = False
    action_checks: list[bool] = Field(default_factory=list)
    communicate_checks: list[bool] = Field(default_factory=list)
    nl_checks: list[NLCheck] = Field(default_factory=list)
    note: Optional[str] = None
