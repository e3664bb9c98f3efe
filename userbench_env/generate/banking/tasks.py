"""Banking task templates: each adds its fixture customer and returns a draft.

Every servicing task starts the same way for a policy-following agent: find the
customer, record the identity check (``log_verification`` with the profile's values),
then unlock and call the discoverable tool the procedure article names. The customer
knows their email plus two identity details, and the facts of their request.
"""
from __future__ import annotations

import json
from typing import Any, Callable

from userbench_env.core.task import Action
from userbench_env.generate.banking.knowledge import doc_id
from userbench_env.generate.banking.world import VERIFIED_AT, BankWorld, mdy, money
from userbench_env.generate.draft import Derived, Fact, TaskDraft, act

Template = Callable[[BankWorld], TaskDraft]


def _identity(user: dict[str, Any]) -> list[Fact]:
    return [
        Fact(kind="name", value=user["name"], sentence=f"Your name is {user['name']}."),
        Fact(kind="email", value=user["email"], sentence=f"Your email is {user['email']}."),
        Fact(kind="date", value=user["date_of_birth"], sentence=f"You were born on {user['date_of_birth']}."),
        Fact(kind="phone_number", value=user["phone_number"], sentence=f"Your phone number is {user['phone_number']}."),
    ]


def _verify(user: dict[str, Any]) -> list[Action]:
    fields = {k: user[k] for k in ("name", "user_id", "address", "email", "phone_number", "date_of_birth")}
    return [act("get_user_information_by_email", email=user["email"]), act("log_verification", **fields, time_verified=VERIFIED_AT)]


def _tool(name: str, **arguments: Any) -> list[Action]:
    return [
        act("unlock_discoverable_agent_tool", agent_tool_name=name),
        act("call_discoverable_agent_tool", agent_tool_name=name, arguments=json.dumps(arguments)),
    ]


def _draft(docs: list[str], **fields: Any) -> TaskDraft:
    fields.setdefault("reward_basis", ["DB"])
    fields.setdefault("user_tools", [])
    return TaskDraft(id="pending", splits=[], required_documents=[doc_id("identity_verification")] + [doc_id(d) for d in docs], **fields)


def _checking(w: BankWorld, user: dict[str, Any]) -> dict[str, Any]:
    return w.owned("accounts", user, **{"class": "checking"})[0]


def _debit(w: BankWorld, user: dict[str, Any]) -> dict[str, Any]:
    return w.owned("debit_cards", user)[0]


def _last4(card: dict[str, Any]) -> Fact:
    return Fact(kind="number", value=card["last_4_digits"], sentence=f"Your debit card ends in {card['last_4_digits']}.")


# -- debit cards -------------------------------------------------------------------------------
def freeze_card(w: BankWorld) -> TaskDraft:
    """Misplaced debit card: freeze it."""
    user = w.add_user()
    card = _debit(w, user)
    return _draft(
        ["debit_freeze"],
        reason_for_call="You cannot find your debit card; it is probably somewhere at home, but you want nobody to be able to use it meanwhile.",
        known=_identity(user) + [_last4(card)],
        instructions="You do not want the card closed, since you expect to find it. Agree to a temporary freeze.",
        gold=_verify(user) + _tool("freeze_debit_card_3892", card_id=card["card_id"]),
        purpose="Freeze a misplaced debit card (reversible).",
    )


def unfreeze_card(w: BankWorld) -> TaskDraft:
    """Found the card again: unfreeze it."""
    user = w.add_user()
    card = _debit(w, user)
    card["status"] = "FROZEN"
    card["frozen_date"] = mdy(w.days_ago(2, 10))
    return _draft(
        ["debit_unfreeze"],
        reason_for_call="You froze your debit card a few days ago, found it in a coat pocket, and want to use it again.",
        known=_identity(user) + [_last4(card)],
        instructions="Confirm you have the card in hand.",
        gold=_verify(user) + _tool("unfreeze_debit_card_3893", card_id=card["card_id"]),
        purpose="Unfreeze a frozen debit card.",
    )


def close_stolen_card(w: BankWorld) -> TaskDraft:
    """Stolen debit card: close it."""
    user = w.add_user()
    card = _debit(w, user)
    return _draft(
        ["debit_close"],
        reason_for_call="Your wallet was stolen yesterday with your debit card in it.",
        known=_identity(user) + [_last4(card)],
        unknown=["You do not know whether the thief used the card."],
        instructions="You want the card shut down for good. You have not seen any charges you do not recognise.",
        gold=_verify(user) + _tool("close_debit_card_4721", card_id=card["card_id"], reason="stolen"),
        purpose="Close a stolen debit card permanently.",
    )


def block_recurring(w: BankWorld) -> TaskDraft:
    """Stop recurring charges on the debit card."""
    user = w.add_user()
    card = _debit(w, user)
    merchant = w.fake.company()
    return _draft(
        ["debit_recurring"],
        reason_for_call=f"A subscription from {merchant} keeps charging your debit card and you want all recurring charges on it stopped.",
        known=_identity(user) + [_last4(card)],
        instructions="You still want to use the card for normal purchases.",
        gold=_verify(user) + _tool("set_debit_card_recurring_block_7382", card_id=card["card_id"], block_recurring=True),
        purpose="Block recurring charges on a debit card.",
    )


# -- money movement ------------------------------------------------------------------------------
def move_to_savings(w: BankWorld) -> TaskDraft:
    """Transfer from checking to savings."""
    user = w.add_user()
    checking = _checking(w, user)
    savings = w.owned("accounts", user, **{"class": "savings"}) or [w.add_account(user, "savings", w.days_ago(40, 400))]
    balance = float(checking["current_holdings"].strip("$"))
    amount = float(max(50, int(balance * w.rng.uniform(0.2, 0.6)) // 50 * 50))
    return _draft(
        ["internal_transfer"],
        reason_for_call=f"You want to move ${amount:.0f} from your checking account to your savings account.",
        known=_identity(user) + [Fact(kind="number", value=f"{amount:.0f}", sentence=f"The amount is ${amount:.0f}.")],
        unknown=["You do not know your account numbers."],
        instructions="Confirm the transfer when the agent describes it.",
        gold=_verify(user) + [act("unlock_discoverable_agent_tool", agent_tool_name="get_all_user_accounts_by_user_id_3847")]
        + [act("call_discoverable_agent_tool", agent_tool_name="get_all_user_accounts_by_user_id_3847", arguments=json.dumps({"user_id": user["user_id"]}))]
        + _tool("transfer_funds_between_bank_accounts_7291", source_account_id=checking["account_id"], destination_account_id=savings[0]["account_id"], amount=amount),
        purpose="Transfer between the customer's own accounts.",
    )


def pay_card(w: BankWorld) -> TaskDraft:
    """Pay part of the credit card balance from checking."""
    user = w.add_user(credit_card=False)
    card = w.add_credit_card(user, balance=round(w.rng.uniform(300, 1500), 2))
    checking = _checking(w, user)
    checking["current_holdings"] = money(round(w.rng.uniform(1600, 6000), 2))
    full = w.rng.random() < 0.5
    amount = float(card["current_balance"].strip("$")) if full else float(w.rng.choice([100, 150, 200, 250]))
    what = "the full balance" if full else f"${amount:.0f}"
    return _draft(
        ["card_payment"],
        reason_for_call=f"You want to pay {what} of your {card['card_type']} from your checking account.",
        known=_identity(user) + [Fact(kind="other", value=card["card_type"], sentence=f"Your credit card is a {card['card_type']}.")],
        instructions="Confirm the payment when asked.",
        gold=_verify(user) + [act("get_credit_card_accounts_by_user", user_id=user["user_id"])]
        + _tool("pay_credit_card_from_checking_9182", user_id=user["user_id"], checking_account_id=checking["account_id"], credit_card_account_id=card["account_id"], amount=amount),
        purpose="Pay a credit card from checking.",
    )


# -- credit cards ---------------------------------------------------------------------------------
def limit_increase(w: BankWorld) -> TaskDraft:
    """Eligible credit limit increase request."""
    user = w.add_user(credit_card=False)
    card = w.add_credit_card(user, opened=w.days_ago(400, 1500))
    raise_by = w.rng.choice([1000, 1500, 2000, 3000])
    return _draft(
        ["limit_increase"],
        reason_for_call=f"You want the limit of your {card['card_type']} raised by ${raise_by}.",
        known=_identity(user) + [Fact(kind="number", value=str(raise_by), sentence=f"You want ${raise_by} more of credit limit.")],
        instructions="Accept that the request will be reviewed.",
        gold=_verify(user) + [act("get_credit_card_accounts_by_user", user_id=user["user_id"])]
        + _tool("submit_credit_limit_increase_request_7392", credit_card_account_id=card["account_id"], user_id=user["user_id"], requested_increase_amount=raise_by),
        purpose="Submit an eligible credit limit increase.",
    )


def refuse_limit_increase(w: BankWorld) -> TaskDraft:
    """Card too young for a limit increase: refuse (only the verification is recorded)."""
    user = w.add_user(credit_card=False)
    card = w.add_credit_card(user, opened=w.days_ago(20, 90))
    return _draft(
        ["limit_increase"],
        reason_for_call=f"You opened a {card['card_type']} recently and already want a $2000 higher limit on it.",
        known=_identity(user),
        instructions="If the agent says you are not eligible yet, accept it and end the conversation.",
        gold=_verify(user) + [act("get_credit_card_accounts_by_user", user_id=user["user_id"])],
        nl_assertions=["The agent does not submit a credit limit increase request."],
        purpose="Refusal: card account younger than 180 days.",
    )


def close_card(w: BankWorld) -> TaskDraft:
    """Close a paid-off credit card after logging the reason."""
    user = w.add_user(credit_card=False)
    card = w.add_credit_card(user, balance=0.0)
    reason, words = w.rng.choice([("annual_fee", "the annual fee is not worth it"), ("not_using_card", "you never use it"), ("simplifying_finances", "you want fewer cards")])
    return _draft(
        ["card_closure"],
        reason_for_call=f"You want to close your {card['card_type']}.",
        known=_identity(user),
        instructions=f"If asked why, say {words}. Confirm the closure.",
        gold=_verify(user) + [act("get_credit_card_accounts_by_user", user_id=user["user_id"])]
        + _tool("log_credit_card_closure_reason_4521", credit_card_account_id=card["account_id"], user_id=user["user_id"], closure_reason=reason)
        + _tool("close_credit_card_account_7834", credit_card_account_id=card["account_id"], user_id=user["user_id"]),
        purpose="Close a credit card with a zero balance, reason logged first.",
    )


def refuse_close_card(w: BankWorld) -> TaskDraft:
    """Balance outstanding: the card cannot be closed."""
    user = w.add_user(credit_card=False)
    card = w.add_credit_card(user, balance=round(w.rng.uniform(80, 900), 2))
    return _draft(
        ["card_closure"],
        reason_for_call=f"You want to close your {card['card_type']} today.",
        known=_identity(user),
        unknown=["You do not remember your current card balance."],
        instructions="You do not want to pay the balance today. If the agent will not close the card, end the conversation.",
        gold=_verify(user) + [act("get_credit_card_accounts_by_user", user_id=user["user_id"])],
        nl_assertions=["The agent does not close the credit card."],
        purpose="Refusal: a card with a balance cannot be closed.",
    )


def replace_damaged_card(w: BankWorld) -> TaskDraft:
    """Order a replacement for a damaged credit card."""
    user = w.add_user(credit_card=False)
    card = w.add_credit_card(user)
    fast = w.rng.random() < 0.4
    return _draft(
        ["card_replacement"],
        reason_for_call=f"Your {card['card_type']} snapped in half and you need a new one.",
        known=_identity(user) + [Fact(kind="address", value=user["address"], sentence=f"You live at {user['address']}.")],
        instructions="Send it to your home address. " + ("You need it quickly and ask for faster delivery." if fast else "Standard delivery is fine."),
        gold=_verify(user) + [act("get_credit_card_accounts_by_user", user_id=user["user_id"])]
        + _tool("order_replacement_credit_card_7291", credit_card_account_id=card["account_id"], user_id=user["user_id"], shipping_address=user["address"], reason="damaged", expedited_shipping=fast),
        purpose="Replacement for a damaged credit card.",
    )


def card_balance(w: BankWorld) -> TaskDraft:
    """Ask for the current credit card balance; it is stated."""
    user = w.add_user(credit_card=False)
    card = w.add_credit_card(user)
    return _draft(
        [],
        reason_for_call="You want to know how much you currently owe on your credit card.",
        known=_identity(user),
        instructions="You only want the balance.",
        gold=_verify(user) + [act("get_credit_card_accounts_by_user", user_id=user["user_id"])],
        derive=lambda world, results: Derived(communicate_info=[card["current_balance"].strip("$")]),
        reward_basis=["DB", "COMMUNICATE"],
        purpose="Look-up: credit card balance.",
    )


# -- accounts ---------------------------------------------------------------------------------------
def open_savings(w: BankWorld) -> TaskDraft:
    """Open a savings account (eligible: checking older than 14 days)."""
    user = w.add_user()
    for record in w.owned("accounts", user, **{"class": "savings"}):
        record["status"] = "CLOSED"
    level = w.rng.choice(["Starter Savings", "High Yield Savings"])
    return _draft(
        ["open_savings"],
        reason_for_call=f"You want to open a {level} account.",
        known=_identity(user),
        instructions="You do not want to move money into it today.",
        gold=_verify(user) + _tool("open_bank_account_4821", user_id=user["user_id"], account_type="savings", account_class=level),
        purpose="Open a savings account.",
    )


def refuse_open_savings(w: BankWorld) -> TaskDraft:
    """Checking account too young: no savings account yet."""
    user = w.add_user()
    for record in w.owned("accounts", user):
        record["date_opened"] = mdy(w.days_ago(2, 9))
        if record["class"] == "savings":
            record["status"] = "CLOSED"
    return _draft(
        ["open_savings"],
        reason_for_call="You opened a checking account last week and now also want a High Yield Savings account.",
        known=_identity(user),
        instructions="If the agent says you must wait, ask when you can apply, then end the conversation.",
        gold=_verify(user),
        nl_assertions=["The agent does not open an account."],
        purpose="Refusal: checking account younger than 14 days.",
    )


def close_empty_savings(w: BankWorld) -> TaskDraft:
    """Close a savings account with a zero balance."""
    user = w.add_user()
    savings = w.add_account(user, "savings", w.days_ago(300, 900), balance=0.0)
    return _draft(
        ["close_savings"],
        reason_for_call="You emptied your savings account and want it closed.",
        known=_identity(user),
        instructions="If asked why, say you are consolidating your money in checking. Confirm the closure.",
        gold=_verify(user) + _tool("close_bank_account_7392", account_id=savings["account_id"], reason="Consolidating money in checking"),
        purpose="Close an empty savings account.",
    )


def deposit_check(w: BankWorld) -> TaskDraft:
    """Mobile check deposit: the agent hands the tool over, the customer runs it."""
    user = w.add_user()
    checking = _checking(w, user)
    amount = float(w.rng.randint(40, 1200))
    args = json.dumps({"account_id": checking["account_id"], "check_amount": amount})
    return _draft(
        ["mobile_deposit"],
        reason_for_call=f"You received a paper check of ${amount:.0f} and want to deposit it into your checking account without going to a branch.",
        known=_identity(user) + [Fact(kind="number", value=f"{amount:.0f}", sentence=f"The check is for ${amount:.0f}.")],
        instructions="When the agent gives you a tool, run it with exactly the arguments the agent gave you.",
        gold=_verify(user)
        + [act("give_discoverable_user_tool", discoverable_tool_name="deposit_check_3847", arguments=args)]
        + [act("call_discoverable_user_tool", requestor="user", discoverable_tool_name="deposit_check_3847", arguments=args)],
        user_tools=["call_discoverable_user_tool", "list_discoverable_user_tools"],
        purpose="Hand a customer-side tool over; the customer deposits the check.",
    )


def change_email(w: BankWorld) -> TaskDraft:
    """Update the email on file."""
    user = w.add_user()
    first, last = user["name"].lower().split(" ", 1)
    new = f"{first[0]}{last.replace(' ', '')}{w.rng.randint(10, 99)}@mailbox.test"
    return _draft(
        ["email_change"],
        reason_for_call="You changed email providers and want the bank to use your new address.",
        known=_identity(user) + [Fact(kind="email", value=new, sentence=f"Your new email is {new}.")],
        instructions="Spell the new address if asked.",
        gold=_verify(user) + [act("change_user_email", user_id=user["user_id"], new_email=new)],
        purpose="Update the customer's email.",
    )


def referral_count(w: BankWorld) -> TaskDraft:
    """How many referrals were completed; the number is stated."""
    user = w.add_user()
    made = w.add_referrals(user, w.rng.randint(2, 4))
    done = sum(1 for r in made if r["referral_status"] == "COMPLETE")
    return _draft(
        [],
        reason_for_call="You referred several friends to the bank and want to know how many of those referrals are complete.",
        known=_identity(user),
        instructions="You only want the number of completed referrals.",
        gold=_verify(user) + [act("get_referrals_by_user", user_id=user["user_id"])],
        communicate_info=[str(done)],
        reward_basis=["DB", "COMMUNICATE"],
        purpose="Look-up: completed referrals.",
    )


def fraud_transfer(w: BankWorld) -> TaskDraft:
    """Unrecognised card charges: transfer to a human (fraud)."""
    user = w.add_user(credit_card=False)
    w.add_credit_card(user)
    return _draft(
        ["fraud_escalation"],
        reason_for_call="You see charges on your credit card that you never made.",
        known=_identity(user),
        instructions="You are worried. When the agent transfers you, end the conversation.",
        gold=_verify(user) + [act("transfer_to_human_agents", compare_args=["reason"], summary="Customer reports unrecognised credit card charges.", reason="fraud_or_security_concern")],
        reward_basis=["DB", "ACTION"],
        purpose="Escalation: suspected fraud goes to a human.",
    )


#: Template -> how many tasks of it the generator makes.
TEMPLATES: tuple[tuple[Template, int], ...] = (
    (freeze_card, 3),
    (unfreeze_card, 2),
    (close_stolen_card, 2),
    (block_recurring, 2),
    (move_to_savings, 3),
    (pay_card, 3),
    (limit_increase, 2),
    (refuse_limit_increase, 1),
    (close_card, 2),
    (refuse_close_card, 1),
    (replace_damaged_card, 2),
    (card_balance, 2),
    (open_savings, 2),
    (refuse_open_savings, 1),
    (close_empty_savings, 1),
    (deposit_check, 2),
    (change_email, 2),
    (referral_count, 1),
    (fraud_transfer, 1),
)
