"""Training agents on UserBench offline, on CPU: the chat a served model sees, as token
ids with the agent's turns marked for the loss (:mod:`.tokens`); supervised fine-tuning
on demonstrations (:mod:`.sft`); an in-process policy that plays episodes exactly as
``userbench models serve`` + ``userbench eval --agent direct:...`` would (:mod:`.policy`);
and group-relative policy optimisation on the env's fidelity-gated reward (:mod:`.grpo`).

torch and transformers are imported inside the functions that need them (the ``local``
extra: :func:`userbench_env.errors.extra_hint` says how to install it).
"""
