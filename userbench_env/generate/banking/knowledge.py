"""Harbor Point Bank's knowledge base and agent prompt, written from our own templates.

Procedure articles name the discoverable tools the agent must unlock (or hand to the
customer) and the rules around them; product and help articles are generated from
per-product facts so retrieval has realistic distractors. Every document has the tau2
document shape ``{id, title, content}``.
"""
from __future__ import annotations

import random
from typing import Any

from userbench_env.generate.banking.world import CARD_TYPES, CHECKING_LEVELS, SAVINGS_LEVELS

#: Procedures: id suffix -> (title, content). Tool names are the domain's discoverable tools.
PROCEDURES: dict[str, tuple[str, str]] = {
    "identity_verification": (
        "Verifying a caller before account servicing",
        "Before discussing or changing anything on an account, confirm who you are talking to. Look the "
        "customer up (by email, name or user id) and have them confirm at least two of: date of birth, phone "
        "number, home address, email address. When two match, record the check with log_verification, passing "
        "the customer's details exactly as stored in their profile and the current time from get_current_time. "
        "Record the check once per conversation. If the details do not match, do not proceed.",
    ),
    "debit_freeze": (
        "Temporarily freezing a debit card",
        "A customer who misplaced a debit card but may still find it can have it frozen. Unlock the tool "
        "freeze_debit_card_3892 and call it with the card_id. Only ACTIVE cards can be frozen. Freezing is "
        "reversible: recommend closing the card instead only if the customer says it was stolen.",
    ),
    "debit_unfreeze": (
        "Unfreezing a debit card",
        "When a customer has found a frozen card, unlock unfreeze_debit_card_3893 and call it with the card_id. "
        "Only FROZEN cards can be unfrozen, and the linked account must be open.",
    ),
    "debit_close": (
        "Closing a lost or stolen debit card",
        "If a debit card was stolen or is definitely lost, close it permanently: unlock close_debit_card_4721 and "
        "call it with the card_id and a reason among lost, stolen, fraud_suspected, damaged, no_longer_needed, "
        "account_closing. Closed cards cannot be reactivated.",
    ),
    "debit_recurring": (
        "Blocking recurring charges on a debit card",
        "Customers can stop subscriptions and other recurring merchant charges on an active debit card. Unlock "
        "set_debit_card_recurring_block_7382 and call it with the card_id and block_recurring true (false lifts "
        "the block). One-off purchases keep working.",
    ),
    "internal_transfer": (
        "Moving money between a customer's own accounts",
        "Transfers between two open accounts of the same customer are immediate and free. Unlock "
        "transfer_funds_between_bank_accounts_7291 and call it with source_account_id, destination_account_id and "
        "amount in dollars. The source must hold at least the amount. Confirm the accounts and amount with the "
        "customer first.",
    ),
    "card_payment": (
        "Paying a credit card from a checking account",
        "A customer can pay their Harbor Point credit card from one of their checking accounts. Unlock "
        "pay_credit_card_from_checking_9182 and call it with user_id, checking_account_id, credit_card_account_id "
        "and amount. The amount cannot exceed the checking balance or the card's outstanding balance.",
    ),
    "limit_increase": (
        "Credit limit increase requests",
        "Cardholders whose credit card account has been open for at least 180 days may request a higher limit. "
        "Unlock submit_credit_limit_increase_request_7392 and call it with credit_card_account_id, user_id and "
        "requested_increase_amount in whole dollars (at most 5000). Accounts open for less than 180 days are not "
        "eligible: explain this and do not submit a request.",
    ),
    "card_closure": (
        "Closing a credit card account",
        "A credit card can be closed only when its current balance is $0.00; otherwise ask the customer to pay "
        "it off first and do not close it. To close: ask why, record the reason with "
        "log_credit_card_closure_reason_4521 (reasons: annual_fee, not_using_card, found_better_card, "
        "unhappy_with_rewards, simplifying_finances, negative_experience, other), then call "
        "close_credit_card_account_7834 with the credit_card_account_id and user_id. Unlock both tools first.",
    ),
    "card_replacement": (
        "Replacing a damaged or worn credit card",
        "For a damaged card, unlock order_replacement_credit_card_7291 and call it with credit_card_account_id, "
        "user_id, shipping_address (the address in the customer's profile unless they give another), reason "
        "damaged, and expedited_shipping false unless the customer asks for faster delivery. The old card stops "
        "working when the replacement is ordered.",
    ),
    "open_savings": (
        "Opening a savings account",
        "Customers with a checking account that is open and at least 14 days old can open a savings account. "
        "Unlock open_bank_account_4821 and call it with user_id, account_type savings and account_class set to the "
        "full product name (" + ", ".join(SAVINGS_LEVELS) + "). If the customer has no checking account at least "
        "14 days old, explain that they are not yet eligible.",
    ),
    "close_savings": (
        "Closing a savings account",
        "An account can be closed when its balance is $0.00 (move any money out first, with the customer's "
        "agreement). Unlock close_bank_account_7392 and call it with the account_id and the customer's reason.",
    ),
    "mobile_deposit": (
        "Depositing a paper check with a phone",
        "Customers deposit checks themselves with the mobile deposit tool. Give the customer the tool "
        "deposit_check_3847 with give_discoverable_user_tool, filling in account_id (the account they want) and "
        "check_amount (the amount written on the check). The customer then runs it from their phone.",
    ),
    "email_change": (
        "Updating the email address on file",
        "After verifying the customer, update the email with change_user_email (user_id, new_email). Read the new "
        "address back to the customer before saving it.",
    ),
    "fraud_escalation": (
        "Suspected fraud and account takeover",
        "If a customer reports transactions they did not make on a credit card, or thinks someone accessed their "
        "online banking, do not try to resolve it yourself: transfer the customer with transfer_to_human_agents "
        "using reason fraud_or_security_concern and a short summary.",
    ),
}

_TOPICS = (
    ("ATM use", "Withdrawals at Harbor Point ATMs are free. Other banks' ATMs cost ${fee} per withdrawal, refunded up to {n} times a month on {level}."),
    ("Overdraft coverage", "Overdraft coverage is optional on {level}. Each covered overdraft costs ${fee}, at most {n} per day."),
    ("Paper statements", "Paper statements cost ${fee} a month on {level}; electronic statements are free."),
    ("Wire transfers", "Outgoing domestic wires cost ${fee}; {level} customers get {n} free wires a month."),
    ("Foreign card use", "Purchases in other currencies carry a {n}% fee on {level}."),
    ("Branch and phone hours", "Branches open 9 to 5 on weekdays; the phone line answers {n} hours a day for {level} customers."),
)


def _product_docs(rng: random.Random) -> list[dict[str, str]]:
    docs = []
    for level in CHECKING_LEVELS + SAVINGS_LEVELS:
        fee = rng.choice([0, 5, 9, 12, 15])
        minimum = rng.choice([0, 500, 1500, 2500, 5000])
        rate = rng.choice(["0.01", "0.10", "0.45", "1.20", "3.10", "3.85"])
        docs.append({
            "title": f"{level}: features and fees",
            "content": f"{level} has a monthly fee of ${fee}, waived with a balance of at least ${minimum}. "
            f"It earns {rate}% APY. Debit cards are issued free of charge; replacements cost ${rng.choice([0, 5, 10])}.",
        })
    for card in CARD_TYPES:
        docs.append({
            "title": f"{card}: rewards and rates",
            "content": f"The {card} earns {rng.choice([1, 2, 3])} points per dollar on {rng.choice(['groceries', 'dining', 'travel', 'gas'])} "
            f"and 1 point elsewhere. Purchase APR {rng.randint(17, 28)}.{rng.randint(0, 99):02d}%. Annual fee ${rng.choice([0, 0, 95, 150])}. "
            f"Late payment fee ${rng.choice([29, 35, 40])}.",
        })
    for title, text in _TOPICS:
        for level in rng.sample(CHECKING_LEVELS, 2):
            docs.append({
                "title": f"{title} ({level})",
                "content": text.format(fee=rng.choice([2, 3, 5, 25, 30]), n=rng.choice([2, 4, 6, 24]), level=level),
            })
    return docs


def knowledge_base(rng: random.Random) -> list[dict[str, str]]:
    """Every document (procedures first, then product and help articles) with ids."""
    docs = [{"id": f"hpb_proc_{key}", "title": title, "content": content} for key, (title, content) in PROCEDURES.items()]
    for n, doc in enumerate(_product_docs(rng), start=1):
        docs.append({"id": f"hpb_info_{n:03d}", **doc})
    return docs


def doc_id(key: str) -> str:
    """The id of the procedure article ``key``."""
    if key not in PROCEDURES:
        raise KeyError(key)
    return f"hpb_proc_{key}"


PROMPT = """# Harbor Point Bank — service agent instructions

You are a service agent of Harbor Point Bank, helping customers by chat. Today is 11/14/2025.

## How you work

- Verify the customer's identity before servicing any account, following the verification article
  of the knowledge base, and record the verification.
- The knowledge base holds the bank's procedures and product facts. Search it (`KB_search` /
  `grep`) before acting on a request and follow the procedure you find. Do not rely on memory or
  guess rules, fees or eligibility.
- Many actions use tools that are not listed to you. A procedure names such a tool; unlock it
  with `unlock_discoverable_agent_tool`, then run it with `call_discoverable_agent_tool`, passing
  its arguments as a JSON object. Some tools are meant for the customer: hand them over with
  `give_discoverable_user_tool` and tell the customer how to use them.
- Explain what you will do and get the customer's explicit agreement before any change.
- Make one tool call at a time. Only state facts that come from the tools, the knowledge base or
  the customer.
- Refuse what the procedures do not allow and say why. Transfer to a human agent only when a
  procedure says so or the request is outside what you can do.
"""


def document_files(docs: list[dict[str, str]]) -> dict[str, Any]:
    """``documents/<id>.json`` -> document, for the pipeline's file map."""
    return {f"documents/{d['id']}.json": d for d in docs}
