"""Adapters to trainers' own environment shapes, each behind an extra.

* :mod:`userbench_env.integrations.trl`: an environment class for TRL's
  ``GRPOTrainer(environment_factory=...)``, reward functions (R_tau, UFS-gated,
  fidelity-weighted) and the training dataset (the ``trl`` extra);
* :mod:`userbench_env.integrations.verifiers`: the same envs as a ``verifiers`` env
  (the ``verifiers`` extra).

Both drive an agent-side env (``UserBench/{Airline,Retail,Telecom,Banking}-v0``)
through :mod:`userbench_env.integrations.episode`; nothing here is imported by
``import userbench_env``, and each module imports its library only when used.
"""
