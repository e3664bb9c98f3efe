"""Goal deviation: ``premature_stop`` (:class:`PrematureStop`, judged from what the user could
know), ``unprompted_transfer`` (:class:`UnpromptedTransfer`) and ``breaks_character``
(:class:`BreaksCharacter`).
"""
from __future__ import annotations

import re

from typing import Any, ClassVar

from userbench_env.core.rubric import Criterion
from userbench_env.fidelity.language import content_stems, speaks_as_agent
from userbench_env.fidelity.outcomes import (accepts_offer, action_open, agent_outcome, answers, asks_for_information, hands_over,
                                             makes_request, referred_elsewhere, reports, reports_action, standing, withdrew)
from userbench_env.fidelity.text import lowered as lower, ToolMentions
from userbench_env.fidelity.rules.actions import _Requests
from userbench_env.fidelity.rules.base import register_rule, Rule, STOP_TOKEN, TRANSFER_TOKEN
from userbench_env.fidelity.rules.recital import SCENARIO_WORDS


class _OnToken(Rule):
    """A rule that acts only on user texts carrying its control ``token``."""

    token: ClassVar[str]
    cued = True

    @classmethod
    def read(cls, compiled: Any, text: str) -> bool | None:
        """True when ``text`` carries the token (None: it does not)."""
        return True if cls.token in text else None


@register_rule
class PrematureStop(_Requests, _OnToken):
    """Ends the conversation before the goal state is reached, judged from what the user
    could know (:mod:`userbench_env.fidelity.outcomes`: the agent's texts it saw, never the
    agent's tool calls or the world). At a ``###STOP###`` the goal is still open when the
    agent has neither reported it done nor said it cannot be done:

    * a stop in the opening message, before the agent answered, fails;
    * a stop right after the agent said it hands the conversation over to someone else now
      (:func:`~userbench_env.fidelity.outcomes.hands_over`: "I am transferring you to a human
      agent") passes: nothing is left to pursue with this agent, whichever token ends it;
    * a stop while an action the agent asked the user to perform on its side
      (``params["tools"]``, the user's tools) has not been performed since fails, unless the
      agent has reported the request done since (below): the user knows its own part of the
      goal is not done; after the agent's word that all is done, an action left undone is
      judged at the user's answer to the request (``claims_unexecuted_action``,
      ``skips_requested_action``), not at its stop;
    * a stop while the agent's latest word is waiting on the user (a question, a request
      for an item or a choice) and it never reported an outcome, fails; after an outcome it
      reported earlier, it is ``suspect`` (a further request or a follow-up question);
    * a stop with no outcome reported ("Is there anything else?" after nothing done) fails,
      unless the user's latest request asked for information
      (:func:`~userbench_env.fidelity.outcomes.asks_for_information`: "could you explain why
      ...") and the agent's latest text answered it
      (:func:`~userbench_env.fidelity.outcomes.answers`), no action of the user's left open:
      suspect; or unless the scenario tells the user when to give up (``params["gives_up"]``): suspect;
    * a stop after the agent reported the request done passes: whether it really was is
      the agent's success, not the user's fidelity; an answer with a figure reports no
      action done, so after one a stop with an action the user asked for neither reported
      done nor refused since is judged as with no outcome (:meth:`_action_open`), and so is
      a stop withdrawing the request after one (the user's own word that its goal is not
      reached: see below);
    * a stop in the message giving the go-ahead to an action the agent offered ("I can
      issue the voucher" - "please go ahead") is ``suspect``: the user has settled its
      request (carrying it out is the agent's part), though it might have waited for the
      agent's word that it was done;
    * a stop after the user withdrew its latest request ("I'll hold off on any changes"; in
      that message or any since, pleasantries after it included) is suspect when the scenario
      states conditions that may allow it (``params["conditional"]``: a condition whose
      outcome is holding off, :func:`~userbench_env.fidelity.text.withdrawal_conditions`;
      or when to give up) and the agent has told something such a condition
      could weigh (an outcome, a figure, at any point of the conversation:
      :func:`~userbench_env.fidelity.outcomes.reports`), even when the scenario says to
      insist otherwise; it fails otherwise, unless the agent said it cannot be done and no such
      condition exists (then the refusal decides, below);
    * a stop after the agent said it cannot be done (or referred the user to someone else
      for it, :func:`~userbench_env.fidelity.outcomes.agent_outcome`) fails when the scenario tells the user
      to insist (``params["insist"]``), unless the agent referred the user to someone else
      and the user says it will pursue its request there
      (:func:`~userbench_env.fidelity.outcomes.referred_elsewhere`): suspect; otherwise it passes once the scenario's fallbacks
      (``params["fallback"]``, its conditions and alternatives) have been raised by the
      user, and is suspect while one has not.

    The agent's outcomes answer the requests made before them: only the agent's texts since
    the user's latest request (:func:`~userbench_env.fidelity.outcomes.makes_request`)
    decide whether the goal is open.

    ``params["goal"]`` (the task's state-changing gold actions) only says the task has a
    goal to reach; it is never compared with the agent's calls. Applies when the user stops."""

    name = "premature_stop"
    token = STOP_TOKEN

    @classmethod
    def compile(cls, criteria: list[Criterion]) -> tuple[list[str], ToolMentions, list[frozenset[str]], bool, bool, bool]:
        """(the user's tools and their mentions (see :class:`_Requests`), the content stems of
        each fallback sentence, whether the scenario says to insist, whether it says when to
        give up, whether it states any condition (``params["conditional"]``))."""
        fallback = [content_stems(str(sentence)) - SCENARIO_WORDS for c in criteria for sentence in c.params.get("fallback", ())]
        return (*super().compile(criteria), [words for words in fallback if words],
                any(c.params.get("insist") for c in criteria), any(c.params.get("gives_up") for c in criteria),
                any(c.params.get("conditional") or c.params.get("gives_up") for c in criteria))

    def _unperformed(self) -> bool:
        """True when the agent asked for a user tool that no user call ran since."""
        self.resolve()
        called_at = self.feed.called_at
        return any(called_at.get(tool, -1) < at for tool, at in self.requested_at.items())

    def _unraised(self) -> bool:
        """True when some fallback sentence has not been raised: the user's texts hold fewer
        than two of its content words (all of them, for a shorter one)."""
        fallback = self.compiled[2]
        if not fallback:
            return False
        said = frozenset().union(*(content_stems(text) for _, text in self.feed.user))
        return any(len(words & said) < min(2, len(words)) for words in fallback)

    def start(self) -> None:
        super().start()
        self._open_at: tuple[int, int] | None = None  # the feed's lengths when the open action was last read
        self._open = False

    def _action_open(self) -> bool:
        """True when an action the user asked for before this text is still open from its
        view (:func:`~userbench_env.fidelity.outcomes.action_open`): an answer to its
        question ("you'd get $33.26 back") reports no action done. Read once per text."""
        feed = self.feed
        if self._open_at != (at := (len(feed.user), len(feed.agent))):
            turns = sorted([(clock, "user", said) for clock, said in feed.user[:-1]]
                           + [(clock, "agent", said) for clock, _, said, _ in feed.agent])
            self._open_at, self._open = at, action_open((role, said) for _, role, said in turns)
        return self._open

    def _withdrew(self, since: int) -> bool:
        """True when a user text since the clock ``since`` (this one included) withdraws its request."""
        return any(withdrew(said) for clock, said in self.feed.user if clock >= since)

    def user_text(self, turn: int, text: str, reading: bool) -> None:
        insist, gives_up, conditional = self.compiled[3:]
        feed = self.feed
        # what the agent said since the user's latest request (an outcome answers the requests before it)
        since, request = next(((clock, said) for clock, said in reversed(feed.user[:-1]) if makes_request(said)), (0, ""))
        agent = [said for clock, _, said, _ in feed.agent if clock > since]
        now = standing(agent)  # (a greeting is a courtesy: neither an outcome nor a wait)
        refused = any(agent_outcome(said) == "cannot" for _, _, said, _ in feed.agent)
        if len(feed.user) <= 1:
            verdict, why = "fail", "stops in its opening message, before the agent answered the request"
        elif feed.agent and hands_over(feed.agent[-1][2]):
            verdict, why = "pass", ""  # handed over: nothing is left to pursue with this agent
        # (a figure answers a question and settles no action: after one, a withdrawal says the goal is not reached)
        elif now == "done" and not self._action_open() and (any(map(reports_action, agent)) or not self._withdrew(since)):
            verdict, why = "pass", ""
        elif self.tools and self._unperformed():
            verdict, why = "fail", "stops with an action the agent asked of it not performed"
        elif (conditional or now != "cannot") and self._withdrew(since):
            # a scenario condition can only allow it once the agent has told something (a price, an outcome)
            verdict, why = ("suspect", "stops after withdrawing its request, as a scenario condition may allow") \
                if conditional and any(reports(said) for _, _, said, _ in feed.agent) else \
                ("fail", "withdraws its request and stops with nothing told that a scenario condition could weigh")
        elif insist and refused:
            verdict, why = ("suspect", "stops to pursue its request where the agent referred it; the scenario says to insist") \
                if feed.agent and referred_elsewhere(feed.agent[-1][2], text) \
                else ("fail", "stops after a refusal although the scenario says to insist")
        elif feed.agent and accepts_offer(feed.agent[-1][2], text):
            verdict, why = "suspect", "stops as it gives the go-ahead to an action the agent offered, before it was reported done"
        elif now == "cannot":
            verdict, why = ("suspect", "stops after a refusal with a scenario fallback not yet raised") if self._unraised() \
                else ("pass", "")
        elif now == "waiting" and any(agent_outcome(said) for said in agent):
            verdict, why = "suspect", "stops while the agent asks something, after it reported an outcome"
        elif now is None and agent and answers(agent[-1]) and asks_for_information(request) and not self._action_open():
            verdict, why = "suspect", "stops after the agent answered its question (no action of its own left open)"
        elif now is None and gives_up:
            verdict, why = "suspect", "stops with no outcome reported; the scenario says when to give up"
        else:
            verdict, why = "fail", "stops while its request is open (no outcome reported by the agent since)"
        for cid in self.ids:
            if verdict == "fail":
                self.fail(cid, turn)
            elif verdict == "suspect":
                self.suspect(cid, turn, why)
            else:
                self.passed(cid, turn)


#: What names no transfer of the conversation: a tool name ("request_human_agent_transfer",
#: a tool the agent asks the user to run) and money moved ("transfer $500", "a wire transfer").
_NOT_A_HANDOFF = re.compile(r"\w+_\w+|\btransfer(?:s|red|ring)?\s+(?:of\s+)?(?:\$|\d|funds|money|(?:the|your|that|this)\s+"
                            r"(?:funds|money|balance|amount|payment|deposit))|\b(?:wire|bank|balance|money|fund|funds)\s+transfers?\b")


def mentions_transfer(agent_text: str) -> bool:
    """True when an agent text speaks of transferring the conversation: "transfer" in its
    prose, tool names and money moved aside (:data:`_NOT_A_HANDOFF`)."""
    return "transfer" in _NOT_A_HANDOFF.sub(" ", lower(agent_text))


@register_rule
class UnpromptedTransfer(_OnToken):
    """Fails when the user sends ``###TRANSFER###`` before any agent text mentioned a
    transfer of the conversation (:func:`mentions_transfer`: not a tool's name, not money
    moved); passes on a transfer after one. Applies when the user transfers."""

    name = "unprompted_transfer"
    token = TRANSFER_TOKEN

    def start(self) -> None:
        self._offered = False
        self._read = 0  # agent texts read

    def user_text(self, turn: int, text: str, reading: bool) -> None:
        agent = self.feed.agent
        self._offered = self._offered or any(mentions_transfer(said) for _, _, said, _ in agent[self._read:])
        self._read = len(agent)
        self.settle_all(turn, not self._offered)


@register_rule
class BreaksCharacter(Rule):
    """Fails when a user text speaks as the agent or about being an AI, a chatbot, a
    language model or a simulated user (:func:`~userbench_env.fidelity.language.speaks_as_agent`):
    offering help ("How can I help you today?", "What brings you in?"), doing the agent's
    part (asking the agent for its customer's details, reporting the agent's work done or
    promising it for the other side: "I'll put the difference on your original payment
    method", or the business's confirmation: "you will get a confirmation email shortly"),
    calling its brief a script or scenario it finished.
    Customer talk ("thanks for your help", "can you help me?") passes, and so does courtesy
    both sides use (thanking the other for its patience, for bearing with one): only what
    a customer would not say is evidence. Applies to every user message."""

    name = "breaks_character"

    @classmethod
    def read(cls, compiled: Any, text: str) -> bool | None:
        """True when ``text`` speaks as the agent (None: it does not)."""
        return True if speaks_as_agent(text) else None

    def user_text(self, turn: int, text: str, reading: bool | None) -> None:
        bad = reading is not None
        if bad or not self._settled:
            self.settle_all(turn, bad)
