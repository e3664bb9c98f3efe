"""What the agent has told the user about the user's request, read from the agent's texts
the user saw: the user's whole view of whether its goal is still open.

A faithful user keeps pursuing its goal while, as far as it can know, the goal is open: the
agent has neither said the request is done nor said it cannot be done, and is not waiting
on the user. The user never sees the agent's tool calls or the world's state, so nothing
here reads them: whether the agent really did what it says is the agent's success, not the
user's fidelity.

* :func:`agent_outcome`: the outcome one agent text reports: ``"done"`` (an action on the
  request completed: "your reservation has been cancelled", "I've updated ...", "you're all
  set", or an answer reporting figures or what a check found, asking nothing back), ``"cannot"`` (the request refused or impossible: "I'm unable to ...", "that is not
  possible under our policy", or referred elsewhere: "I recommend contacting ...") or None;
* :func:`accepts_offer`: a user text gives the go-ahead to an action the agent offered;
  :func:`referred_elsewhere`: the agent referred the user elsewhere and the user will go there;
  :func:`hands_over`: the agent hands the conversation over to someone else now;
* :func:`waits_on_user`: the text asks the user for something (an item, a choice, a
  confirmation), courtesy questions aside ("Is there anything else I can help you with?");
* :func:`standing`: over the agent's texts in order, the latest of those readings;
* :func:`makes_request`: a user text asks for something (a want, a need, a request): the
  agent's outcomes before it do not answer it; :func:`asks_for_action`: what it wants is an
  action (cancel, return, book ...), which :func:`reports_action` (done or refused) settles
  and an answer with a figure does not;
* :func:`withdrew`: a user text withdraws its own request; :func:`reports`: an agent text
  tells something a scenario condition could weigh (an outcome, a figure);
* :func:`insists`, :func:`says_when_to_give_up`: what a scenario says about refusals.

All readers are single passes of non-backtracking patterns over the text (linear time).
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import Iterable, Literal

from userbench_env.fidelity.language import SENTENCE_PART, clause_start, standard_spelling

Outcome = Literal["done", "cannot"]
Standing = Literal["done", "cannot", "waiting"]

#: Verbs of completing an action on a customer's request (past participles).
_COMPLETED = (r"(?:cancell?ed|booked|reserved|updated|changed|modified|processed|refunded|issued|added|removed|"
              r"upgraded|downgraded|confirmed|completed|submitted|applied|reset|resolved|fixed|restored|reactivated|"
              r"activated|enabled|disabled|credited|scheduled|placed|exchanged|returned|sent|made|switched|turned|"
              r"paid|charged|waived|lifted|unlocked|transferred|initiated|arranged|rebooked|upgraded|corrected|set up|"
              r"taken care of|handled|done|finished)")
#: An agent reporting an action on the request as completed.
_DONE = re.compile(
    r"\b(?:has|have|had) (?:now |just |also |already )?(?:been )?(?:successfully |now )?" + _COMPLETED + r"\b"
    r"|\b(?:is|are|was|were) (?:now |all |successfully )*(?:been )?" + _COMPLETED + r"\b"
    r"|\bi(?:'ve| have)? (?:now |just |also |already |successfully )*" + _COMPLETED + r"\b"
    r"|\bsuccessfully\b|\ball (?:set|done)\b|\bgood to go\b|\bis complete\b|\bare complete\b"
    r"|\b(?:your|the) (?:new )?(?:reservation|booking|confirmation|order|ticket|case|request) (?:id|number|code) is\b",
    re.I,
)
#: What opens a clause awaiting its completion: "tell me when you are done", "once that is all done".
_AWAITED = re.compile(r"\b(?:when|whenever|once|after|if|until|till|as soon as)\b", re.I)


def _completes(text: str) -> bool:
    """True when ``text`` reports a completion (:data:`_DONE`) outside a clause awaiting it
    (:data:`_AWAITED` in the completion's clause, :func:`~userbench_env.fidelity.language.clause_start`:
    "let me know when you are done" reports nothing done)."""
    return any(_AWAITED.search(text, clause_start(text, m.start()) + 1, m.start()) is None for m in _DONE.finditer(text))


#: An agent refusing the request or saying it is impossible.
_CANNOT = re.compile(
    r"\b(?:i|we) (?:can ?not|can't|cannot|am unable|'m unable|are unable|won't be able|will not be able|"
    r"am not able|'m not able|are not able|'re not able|do not have the ability|don't have the ability)\b"
    r"|\b(?:is|are|isn't|aren't) not (?:possible|allowed|permitted|eligible)\b|\b(?:not|isn't|aren't) (?:possible|eligible|"
    r"allowed|permitted|refundable|cancellable|modifiable|changeable)\b|\bineligible\b|\bunable to\b"
    r"|\b(?:policy|rules?) (?:does not|doesn't|do not|don't) (?:allow|permit)\b|\bno (?:way|option) to\b"
    # the thing asked for cannot be had ("basic economy flights cannot be modified", "not available for an upgrade")
    r"|\b(?:can ?not|can't) be (?:\w+ )?(?:modified|changed|cancell?ed|upgraded|refunded|booked|added|removed|"
    r"exchanged|returned|processed|done|made|applied|issued|transferred|updated|reversed|waived)\b"
    r"|\b(?:is|are|was|were)(?: \w+)? (?:not|no longer) available\b|\b(?:isn't|aren't|wasn't|weren't)(?: \w+)? available\b"
    r"|\bunavailable\b",
    re.I,
)
#: An agent referring the user to someone else for the request: it will not do it itself.
_REFERRAL = re.compile(
    r"\b(?:recommend|suggest|advise) (?:that )?(?:you )?(?:contact|contacting|reach(?:ing)? out|call(?:ing)?|speak(?:ing)? (?:to|with))\b"
    r"|\byou(?:'ll| will| would)? (?:need|have) to (?:contact|reach out|call|speak (?:to|with))\b",
    re.I,
)
#: A customer saying it will pursue its request elsewhere.
_ELSEWHERE = re.compile(r"\b(?:i'?ll|i will|i'?m going to|i'?m gonna|i need to|i'?ll have to|i'?ll try to) (?:\w+ ){0,2}?"
                        r"(?:reach out|contact|call|speak|talk|get in touch|follow up|take (?:it|this|that) up)\b", re.I)
#: A courtesy question every agent asks, which waits on nothing of the request.
_COURTESY = re.compile(
    r"\banything else\b|\bany(?:thing| other| further| more)? (?:questions?|concerns?|help|assistance)\b"
    r"|\b(?:help|assist) you (?:with )?(?:today|further)\b|\bhow (?:can|may) i (?:help|assist)\b|\bsomething else\b",
    re.I,
)
_SENTENCES = re.compile(r"[^.!?\n]*[.!?\n]?")
#: An instruction or request to the user in the imperative ("please provide ...", "let me know which ...").
_REQUEST = re.compile(r"\b(?:please (?:provide|confirm|tell|share|let me know|choose|select|send|give)|let me know (?:which|what|"
                      r"if|whether|how)|could you (?:please )?(?:provide|confirm|tell|share|give)|i (?:will )?need your)\b",
                      re.I)


#: An agent offering to act on the request, pending the user's go-ahead.
_OFFER = re.compile(r"\b(?:i can|i could|i'?m able to|shall i|should i|would you like me to|do you want me to|want me to|"
                    r"may i|let me know if you(?:'d| would)? like me to)\b", re.I)
#: A customer giving the go-ahead to what the agent offered.
_ACCEPT = re.compile(r"\b(?:go ahead|proceed|please do|yes,? please|do (?:it|that|so)|sounds good|that works|i accept|"
                     r"(?:i'?m|that'?s) (?:fine|ok|okay|happy) with (?:that|it))\b", re.I)
#: A handoff to someone else: no action on the request itself.
_HANDOFF = re.compile(r"\btransfer|\b(?:human|live|another) (?:agent|representative|person)|\bsupervisor|\bmanager\b", re.I)


#: A customer asking for something: a want, a need, a request to the agent.
_USER_REQUEST = re.compile(r"\b(?:i(?:'d| would) (?:also )?like|i (?:also )?(?:want|need|wish)|can you|could you|would you|"
                           r"will you|can we|could we|is it possible to|please (?:help|change|cancel|book|modify|update|add|remove|check|refund|upgrade|downgrade)|"
                           r"i'?m (?:calling|looking|hoping|trying) (?:to|for|about))\b", re.I)
#: A customer asking for an action on its account or booking (not for information): what only
#: a report of the action done (or refused) settles, never an answer with a figure.
_ACTION_REQUEST = re.compile(r"\b(?:cancel|return|exchange|swap|split|change|modify|book|rebook|upgrade|downgrade|refund|"
                             r"update|add|remove|move|replace|reset|fix|close|open|block|freeze|unfreeze|dispute|"
                             r"reactivate|activate|transfer|pay|order)\b"
                             # the action named by its outcome ("want it swapped", "need them changed")
                             r"|\b(?:wants?|needs?) (?:it|them|this|that|these|those) \w+ed\b", re.I)
#: Asking for a reason or an explanation ("why doesn't the refund go back to the gift card?",
#: "could you explain how ..."): information, whatever action it speaks of.
_WHY = re.compile(r"\b(?:why|how come|clarify|explain)\b", re.I)
#: A question for information ("what's the baggage allowance?", "which card is it on?").
_WH_QUESTION = re.compile(r"\b(?:how|what|what's|which|when|where|who|whether)\b[^.!?]*\?", re.I)
#: An agent announcing work still to do ("let me look into that", "one moment"): no answer yet.
_PENDING = re.compile(r"\b(?:let me|one moment|just a moment|give me a (?:moment|second|minute)|bear with me|"
                      r"please (?:hold|wait)|i'?ll (?:check|look|find out|get back))\b", re.I)
#: Wanting something, in any register ("I need to", "wanna", "please", chat's "pls"), the subject dropped
#: ("want change to XL can or not") or another's ("my boss wants to exchange it") included, or
#: asked as a possibility for both sides ("can we split the payment?", "is it possible to cancel it?"),
#: or as what one is after ("looking to book a one-way").
_WANTING = re.compile(r"\b(?:i(?:'d| would)? (?:also )?(?:like|wish)|wants?|needs?|wanna|gotta|have to|(?:looking|hoping) to|"
                      r"please|pls|plz|can you|could you|would you|will you|help me|can we|could we|is it possible to)\b", re.I)
#: A figure (an amount, a count, an id with digits): what an answer to a question reports.
_FIGURE = re.compile(r"\d")
#: A finding: the agent reporting what a check it made found ("I've checked your reservations,
#: and there are no other duplicates"), what an answer to a request to look something up reports.
_FINDING = re.compile(r"\bi(?:'ve| have)? (?:already |just |now |also |double-)*(?:checked|verified|reviewed|searched|"
                      r"looked (?:into|at|up|through|over)|(?:gone|went) (?:through|over))\b|\bthere(?:'s| is| are| was| were) no\b",
                      re.I)


#: A scenario telling the user to insist on its request after a refusal.
_INSIST = re.compile(r"\b(?:insist|persist|push back|do not accept|don't accept|not take no)", re.I)
#: A scenario telling the user when to give up or end the conversation.
_GIVE_UP = re.compile(r"\b(?:give up|end the (?:conversation|call|chat)|hang up|stop the conversation|leave it)\b", re.I)


def insists(scenario: str) -> bool:
    """True when the ``scenario`` tells the user to insist (a refusal does not end its goal)."""
    return _INSIST.search(scenario) is not None


def says_when_to_give_up(scenario: str) -> bool:
    """True when the ``scenario`` tells the user when to give up or end the conversation."""
    return _GIVE_UP.search(scenario) is not None


#: A customer withdrawing its own request (or declining to authorise it: "I am not authorising
#: anything today"; putting it off to think it over, or to sort out itself); leaving it "there"
#: or "at that" closes a conversation, and leaving it "with you" hands it over: neither
#: withdraws anything.
_WITHDRAW = re.compile(r"\b(?:hold off|never ?mind|nvm|forget (?:it|about it|the whole thing|all (?:of )?(?:it|that)|everything)|"
                       r"i'?ll pass|no longer (?:want|need)|"
                       # putting it off, or taking it away to do oneself ("i'll think about it", "I will sort it out myself")
                       r"i(?:'ll| will) (?:(?:have a )?think (?:about it|it over)|(?:sort|figure|work) (?:it|this|that) out "
                       r"(?:myself|on my own))|let me think (?:about it|it over)|"
                       r"(?:don't|do not|won't|will not|can't|cannot|not) (?:be able to )?(?:make (?:any|the) changes?|proceed|"
                       r"go(?:ing)? ahead|want to proceed|authori[sz](?:e|ing) (?:anything|it|that|this)|"
                       r"approv(?:e|ing) (?:anything|it|that|this))|"
                       r"decide[ds]? not to|i'?ll (?:leave it(?! (?:there|at that|here|with you|to you|in your hands)\b)|"
                       r"keep (?:it|things) as (?:it is|they are)))\b", re.I)


@lru_cache(maxsize=256)
def withdrew(text: str) -> bool:
    """True when a user ``text`` withdraws its own request ("I'll hold off on making any changes")."""
    return _WITHDRAW.search(text) is not None


def reports(text: str) -> bool:
    """True when an agent ``text`` tells the user something about its request: an outcome
    (:func:`agent_outcome`) or a figure (a price, a count, a date)."""
    return agent_outcome(text) is not None or _FIGURE.search(text) is not None


def accepts_offer(agent_text: str, text: str) -> bool:
    """True when a user ``text`` gives the go-ahead ("please go ahead") to an action the
    agent's ``agent_text`` offered ("I can proceed with issuing the voucher"): the user
    has settled its request, and carrying it out is the agent's part. Accepting a handoff
    (a transfer, a human agent) settles nothing of the request."""
    return (_OFFER.search(agent_text) is not None and _ACCEPT.search(text) is not None
            and _HANDOFF.search(text) is None)


#: An agent handing the conversation over now ("I am transferring you to a human agent", "you're
#: being transferred"), not offering to ("would you like me to transfer you?") or refusing to.
_HANDING_OVER = re.compile(r"\b(?:i'?m|i am|we'?re|we are|i'?ll|i will|we'?ll|we will|i'?ve|i have|i'?m going to) (?:now |just )?"
                           r"(?:be )?transferr?(?:ing|ed)? you\b|\byou(?:'re| are|'ll be| will be) (?:now )?(?:being )?transferred\b",
                           re.I)


def hands_over(agent_text: str) -> bool:
    """True when an agent text hands the conversation over to someone else now ("I am
    transferring you to a human agent now"), refusing nothing and asking nothing back: the
    user's request leaves this conversation, whichever token the user ends it with."""
    return (_HANDING_OVER.search(agent_text) is not None and _CANNOT.search(agent_text) is None
            and not waits_on_user(agent_text))


def referred_elsewhere(agent_text: str, text: str) -> bool:
    """True when the agent's ``agent_text`` refers the user to someone else for its request
    ("I recommend contacting ...") and the user's ``text`` says it will pursue it there
    ("I'll reach out to them"): the user's goal leaves this conversation, not abandoned."""
    return _REFERRAL.search(agent_text) is not None and _ELSEWHERE.search(text) is not None


@lru_cache(maxsize=256)
def asks_for_action(text: str) -> bool:
    """True when a user ``text`` wants an action on its account or booking ("I need to cancel
    an order", "wanna return the bottle"), whatever else it asks ("... how much do I get back?",
    "I'd like to add two bags; before I agree, I want to know why it costs that"); a clause
    asking for a reason ("could you explain why the refund can't go ...", :data:`_WHY`) wants none.
    Dialect forms read as standard (:func:`~userbench_env.fidelity.language.standard_spelling`:
    "lookin' tae book")."""
    text = standard_spelling(text)
    rest = " ".join(clause for clause in SENTENCE_PART.findall(text) if _WHY.search(clause) is None)
    return _WANTING.search(rest) is not None and _ACTION_REQUEST.search(rest) is not None


def asks_for_information(text: str) -> bool:
    """True when a user ``text`` asks for a reason or an explanation (:data:`_WHY`), or asks
    a question for information and no action (:func:`asks_for_action`): what an answer settles."""
    return _WHY.search(text) is not None or (_WH_QUESTION.search(text) is not None and not asks_for_action(text))


def answers(text: str) -> bool:
    """True when an agent ``text`` says something to the user that neither waits on it
    (:func:`waits_on_user`) nor announces work still to do (:data:`_PENDING`)."""
    return not waits_on_user(text) and _PENDING.search(text) is None


def reports_done(text: str) -> bool:
    """True when an agent ``text`` reports the user's request done ("your order has been
    cancelled", "taken care of"); an answer with a figure does not."""
    return _completes(text) and agent_outcome(text) == "done"


@lru_cache(maxsize=256)
def reports_action(text: str) -> bool:
    """True when an agent ``text`` settles an action asked of it: reports it done ("your order
    has been cancelled") or refuses it (:func:`agent_outcome` ``"cannot"``); a figure alone
    answers a question, not the action."""
    return _completes(text) or agent_outcome(text) == "cannot"


def action_open(turns: Iterable[tuple[str, str]]) -> bool:
    """True when, over the conversation's ``turns`` (``(role, text)`` in order, role
    ``"user"`` or ``"agent"``), the user's latest text asking for an action
    (:func:`asks_for_action`) has had no agent text since that settles it
    (:func:`reports_action`): an answer to its question alone ("you'd get $33.26 back")
    leaves the action open."""
    open_ = False
    for role, text in turns:
        if role == "user" and asks_for_action(text):
            open_ = True
        elif role == "agent" and open_ and reports_action(text):
            open_ = False
    return open_


@lru_cache(maxsize=256)
def makes_request(text: str) -> bool:
    """True when a user ``text`` asks for something (a want, a need, a request), in dialect
    too (:func:`~userbench_env.fidelity.language.standard_spelling`)."""
    return _USER_REQUEST.search(standard_spelling(text)) is not None


@lru_cache(maxsize=256)
def agent_outcome(text: str) -> Outcome | None:
    """The outcome of the user's request an agent ``text`` reports (see the module
    docstring): a refusal wins over a completion in the same text ("I've checked: I can't
    change it" reports no change)."""
    if _CANNOT.search(text) or _REFERRAL.search(text):
        return "cannot"
    if _completes(text) or ((_FIGURE.search(text) or _FINDING.search(text)) and not waits_on_user(text)):
        return "done"  # (an answer reporting figures or a finding, asking nothing back, answers a question)
    return None


@lru_cache(maxsize=256)
def waits_on_user(text: str) -> bool:
    """True when an agent ``text`` asks the user for something other than a courtesy
    question: a sentence ending in "?" that is not one, or a request for an item or a choice."""
    for sentence in _SENTENCES.findall(text):
        if sentence.rstrip().endswith("?") and not _COURTESY.search(sentence):
            return True
        if _REQUEST.search(sentence) and not _COURTESY.search(sentence):
            return True
    return False


def standing(agent_texts: Iterable[str]) -> Standing | None:
    """Where the user's request stands after the agent's ``agent_texts`` (in order): the
    latest reading among an outcome reported (a text reporting one is read as that, even
    with a question after it) and waiting on the user; None when no text did either."""
    found: Standing | None = None
    for text in agent_texts:
        outcome = agent_outcome(text)
        if outcome is not None:
            found = outcome
        elif waits_on_user(text):
            found = "waiting"
    return found


__all__ = ["Outcome", "Standing", "accepts_offer", "action_open", "answers", "asks_for_information", "agent_outcome", "asks_for_action", "reports_action", "referred_elsewhere", "reports_done", "insists", "makes_request", "reports", "says_when_to_give_up", "standing",
           "waits_on_user", "withdrew"]
