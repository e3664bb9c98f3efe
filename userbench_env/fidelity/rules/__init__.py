"""Incremental rule checks: deterministic fidelity criteria evaluated as the episode runs.

A rule is a class registered under the name criteria use in their ``rule`` field. The
env feeds a :class:`RuleTracker` every agent text, every user text and every executed
tool call (agent's or user's, with its result) as they happen. The tracker records
agent texts and tool calls once, in a :class:`Feed` its rules share, and hands every
user text to the rules: a rule reads the part of the feed it has not read yet when a
user text needs it (most user texts need none of it). Rules keep O(criteria) state and
do a few substring/regex tests per user text (microseconds).

Each user text goes to every rule with the rule's reading of it (:meth:`Rule.read`, a
pure function of the text and the task's compiled data: its recitals, its stated ids,
whether it speaks as the agent, ...). A reading of None says the text holds nothing the
rule acts on; a rule that decides only from such cues (:attr:`Rule.cued`) is then not
called.

A rule that reads calls hears of each one as it is made (:meth:`Rule.call_made`).

Each rule keeps its criteria's outcomes (verdict and evidence turn; first failure wins
and is final; a pass may be revised into a failure) in the episode's verdict table: one
verdict dict per criterion, allocated with the tracker and filled in as the episode
runs, so reporting the verdicts at the end is a copy. A rule logs every violation it
sees in ``events`` as ``(criterion id, turn)``, so a later violation of an already-failed
criterion is still visible to the validation of the checkers; a first failure also
joins the episode's ``violations`` as it happens (see :meth:`Rule.fail`). A rule whose
outcomes an agent request decides (a request passes a criterion) hears of the first
request of each of its kinds (:meth:`Rule.first_request`).

Whatever a rule derives from its criteria alone (compiled patterns, parsed gold actions,
gates) is computed once per task by :meth:`Rule.compile` and shared, read-only, by every
episode through a :class:`RulePlan`; an episode's tracker only allocates the rules'
mutable state. Envs cache the plan per task (:func:`compile_rules`).

To add a rule: subclass :class:`Rule`, set ``name``, implement ``user_text`` (calling
:meth:`Rule.fail` and :meth:`Rule.passed`, or :meth:`Rule.settle_all`; ``compile`` for
per-task data, ``start`` for per-episode state, ``first_request`` for what requests decide,
``read`` and ``cued`` to be skipped on texts that cannot concern it), decorate with
:func:`register_rule`. Criteria naming an unregistered rule are reported
``pending``.

The package: one module per mode or family (:mod:`.disclosure`, :mod:`.recital`,
:mod:`.invented`, :mod:`.actions`, :mod:`.goal`, :mod:`.missed`), the base class
(:mod:`.base`) and the tracker (:mod:`.tracker`); importing it registers every rule.
"""
from userbench_env.fidelity.rules.base import RULES, STOP_TOKEN, TRANSFER_TOKEN, Feed, Rule, Verdict, register_rule
from userbench_env.fidelity.rules.disclosure import ConditionalDisclosure, PrematureDisclosure
from userbench_env.fidelity.rules.recital import DumpsBlueprint, RecitalReader
from userbench_env.fidelity.rules.invented import Heard, InventedInformation, Statement, statement
from userbench_env.fidelity.rules.actions import DeviceState, SkippedAction, UnexecutedAction, UnrequestedAction
from userbench_env.fidelity.rules.goal import BreaksCharacter, PrematureStop, UnpromptedTransfer
from userbench_env.fidelity.rules.missed import Withholding
from userbench_env.fidelity.rules.tracker import CHECK_LIMIT, RulePlan, RuleTracker, checked_text, compile_rules

__all__ = [
    "CHECK_LIMIT", "RULES", "STOP_TOKEN", "TRANSFER_TOKEN", "BreaksCharacter", "ConditionalDisclosure", "DeviceState",
    "DumpsBlueprint", "Feed", "Heard", "InventedInformation", "PrematureDisclosure", "PrematureStop", "RecitalReader",
    "Rule", "RulePlan", "RuleTracker", "SkippedAction", "Statement", "UnexecutedAction", "UnpromptedTransfer",
    "UnrequestedAction", "Verdict", "Withholding", "checked_text", "compile_rules", "register_rule", "statement",
]
