"""The agent's toolkit: listed banking tools, retrieval tools and the discoverable-tool gateway.

Listed tools answer with text; problems are reported as text starting ``Error:`` (error
flag unset), as in tau2. Discoverable tools (mixins ``CreditCardTools``, ``DebitCardTools``,
``BankAccountTools``) are registered but unlisted: the agent is meant to unlock them
(in-memory, per world) and run them through ``call_discoverable_agent_tool``, which logs
the call in ``agent_discoverable_tools`` when the tool writes or when the task's gold
solution calls it (the read-log allowlist, ``world.settings["read_log_allowlist"]``).
Calling a discoverable tool by its own name also works and bypasses unlock and logging.
"""
from __future__ import annotations

import json
from typing import Any, Literal, get_args

from userbench_env.domains.banking import ids
from userbench_env.domains.banking.accounts_tools import BankAccountTools
from userbench_env.domains.banking.credit_tools import CreditCardTools
from userbench_env.domains.banking.debit_tools import DebitCardTools
from userbench_env.domains.banking.discovery import tool_doc
from userbench_env.domains.banking.knowledge import KnowledgeBase, grep_answer, search_answer
from userbench_env.domains.banking.toolkit_base import name_tools_after
from userbench_env.domains.banking.user_tools import KnowledgeUserTools
from userbench_env.domains.toolkit import tool

TransferReason = Literal[
    "fraud_or_security_concern",
    "account_closure_request",
    "deceased_account_holder",
    "legal_or_regulatory_matter",
    "account_ownership_dispute",
    "complex_billing_dispute",
    "abusive_customer_behavior",
    "third_party_inquiry",
    "technical_system_error",
    "unconfirmed_external_communication",
    "customer_demands_after_unavailable_offer_refusal",
    "kb_search_unsuccessful_customer_requests_transfer",
    "specialized_department_required",
    "accessibility_or_special_needs",
    "customer_frustrated_demands_human",
    "supervisor_request_service_complaint",
    "customer_requests_human_no_specific_reason",
    "request_completed_customer_wants_human_followup",
    "other",
]


def _user_lookup(field: str, value: str) -> str:
    # tau2 builds this filter by string interpolation: a '"' in the value breaks the JSON.
    return f'{{"{field}": "{value}"}}'


class KnowledgeTools(CreditCardTools, DebitCardTools, BankAccountTools):
    """Rho-Bank agent tools (tau2 ``banking_knowledge``, retrieval variant ``bm25_grep``)."""

    def __init__(self, db: Any, world: Any = None):
        super().__init__(db, world)
        self._unlocked: dict[str, Any] = {}
        self._given: dict[str, dict[str, Any]] = {}

    # -- context -------------------------------------------------------------------
    def _knowledge(self) -> KnowledgeBase:
        return self.world.domain.knowledge_base(self.world.data_folder)

    def _read_log_allowlist(self) -> set[str]:
        if self.world is None:
            return set()
        return self.world.settings.get("read_log_allowlist", set())

    # -- retrieval -----------------------------------------------------------------
    @tool("read")
    def KB_search(self, query: str) -> str:
        """Search the bank's knowledge base with BM25 and return the 10 best articles.

        Args:
            query: Keywords to search for.
        """
        return search_answer(self._knowledge(), query)

    @tool("read")
    def grep(self, pattern: str) -> str:
        """Find knowledge-base articles matching a regular expression (case-insensitive).

        Args:
            pattern: The regular expression to look for.
        """
        return grep_answer(self._knowledge(), pattern)

    # -- listed banking tools ------------------------------------------------------
    @tool("generic")
    def transfer_to_human_agents(self, summary: str, reason: TransferReason = "other") -> str:
        """Hand the customer over to a human agent.

        Look up the right reason code in the knowledge base before transferring.

        Args:
            summary: What the customer needs and what was already tried.
            reason: Why the customer is transferred (a reason code).
        """
        reasons = list(get_args(TransferReason))
        if reason not in reasons:
            return f"Error: Invalid transfer reason '{reason}'. Must be one of: {', '.join(reasons)}"
        return f"Transfer successful (reason: {reason}). A human agent will assist you shortly."

    @tool("read")
    def get_current_time(self) -> str:
        """The bank's current date and time (use it when logging a verification)."""
        return "The current time is 2025-11-14 03:40:00 EST."

    @tool("read")
    def get_user_information_by_id(self, user_id: str) -> str:
        """A customer's profile (birth date, email, phone, address) by user id.

        Args:
            user_id: The customer's user id.
        """
        return self.query("users", _user_lookup("user_id", user_id))

    @tool("read")
    def get_user_information_by_name(self, customer_name: str) -> str:
        """A customer's profile by full name (exact, case-sensitive match).

        Args:
            customer_name: The customer's full name.
        """
        return self.query("users", _user_lookup("name", customer_name))

    @tool("read")
    def get_user_information_by_email(self, email: str) -> str:
        """A customer's profile by email address.

        Args:
            email: The customer's email address.
        """
        return self.query("users", _user_lookup("email", email))

    @tool("write")
    def change_user_email(self, user_id: str, new_email: str) -> str:
        """Replace a customer's email address.

        Args:
            user_id: The customer's user id.
            new_email: The new email address.
        """
        if not self.update("users", user_id, {"email": new_email}):
            return f"Error: User with ID '{user_id}' not found."
        return f"Email updated successfully.\n  - User ID: {user_id}\n  - New Email: {new_email}"

    @tool("read")
    def get_referrals_by_user(self, user_id: str) -> str:
        """Referrals made by a customer.

        Args:
            user_id: The referring customer's user id.
        """
        return self.query("referrals", _user_lookup("referrer_id", user_id))

    @tool("read")
    def get_credit_card_transactions_by_user(self, user_id: str) -> str:
        """A customer's credit-card transactions.

        Args:
            user_id: The customer's user id.
        """
        return self.query("credit_card_transaction_history", _user_lookup("user_id", user_id))

    @tool("read")
    def get_credit_card_accounts_by_user(self, user_id: str) -> str:
        """A customer's credit-card accounts (type, opening date, balance, reward points).

        Args:
            user_id: The customer's user id.
        """
        return self.query("credit_card_accounts", _user_lookup("user_id", user_id))

    @tool("write")
    def log_verification(
        self,
        name: str,
        user_id: str,
        address: str,
        email: str,
        phone_number: str,
        date_of_birth: str,
        time_verified: str,
    ) -> str:
        """Record that a customer's identity was verified (2 of 4 identity fields confirmed).

        Args:
            name: The customer's full name.
            user_id: The customer's user id.
            address: The customer's address.
            email: The customer's email.
            phone_number: The customer's phone number.
            date_of_birth: The customer's date of birth (MM/DD/YYYY).
            time_verified: When the verification happened, e.g. "2025-11-14 03:40:00 EST".
        """
        record = {
            "name": name,
            "user_id": user_id,
            "address": address,
            "email": email,
            "phone_number": phone_number,
            "date_of_birth": date_of_birth,
            "time_verified": time_verified,
        }
        if not self.add("verification_history", ids.verification_id(user_id, time_verified), record):
            return "Failed to log verification: Record may already exist."
        return (
            "Verification logged successfully.\n"
            f"  - User: {name} (ID: {user_id})\n"
            f"  - Verified at: {time_verified}"
        )

    # -- discoverable tools: user side -----------------------------------------------
    @tool("generic", mutates_state=True)
    def give_discoverable_user_tool(self, discoverable_tool_name: str, arguments: str = "{}") -> str:
        """Hand the customer a tool the knowledge base says they must run themselves.

        Args:
            discoverable_tool_name: Name of the customer-side tool.
            arguments: JSON object of suggested arguments, e.g. '{"user_id": "abc"}'.
        """
        if discoverable_tool_name not in KnowledgeUserTools.discoverable_tools():
            return f"Error: Unknown discoverable tool '{discoverable_tool_name}'."
        try:
            args = json.loads(arguments)
        except json.JSONDecodeError as exc:
            return f"Error: Invalid JSON in arguments: {exc}"
        method = KnowledgeUserTools.tool_function(discoverable_tool_name)
        accepted = KnowledgeUserTools.parameter_names(discoverable_tool_name)
        for name in args:
            if name not in accepted and name != "self":
                return f"Error: Unexpected parameter: {name}"
        doc = tool_doc(method)
        self._given[discoverable_tool_name] = {"arguments": args, "tool": doc}
        self.add(
            "user_discoverable_tools",
            ids.user_tool_given_id(discoverable_tool_name),
            {"tool_name": discoverable_tool_name, "status": "GIVEN"},
        )
        shown = json.dumps(args, indent=2) if args else "(no arguments)"
        return (
            f"Tool given to user: {discoverable_tool_name}\n"
            f"Description: {doc.description}\n"
            f"Arguments: {shown}\n\n"
            "The user can now execute this action by calling `call_discoverable_user_tool` "
            f"with discoverable_tool_name='{discoverable_tool_name}' and the same arguments."
        )

    # -- discoverable tools: agent side ----------------------------------------------
    @tool("generic", mutates_state=True)
    def unlock_discoverable_agent_tool(self, agent_tool_name: str) -> str:
        """Unlock an internal tool named by the knowledge base and show how to call it.

        Args:
            agent_tool_name: Name of the internal tool, e.g. "calculate_apr_adjustment_7842".
        """
        if agent_tool_name not in self.discoverable_tools():
            return f"Error: Unknown agent tool '{agent_tool_name}'. This tool is not available."
        doc = tool_doc(self.tool_function(agent_tool_name))
        self._unlocked[agent_tool_name] = doc
        return (
            f"Tool unlocked: {agent_tool_name}\n"
            f"Description: {doc.description}\n\n"
            f"{doc.for_agent()}\n\n"
            "You can now use this tool by calling `call_discoverable_agent_tool` with "
            f"agent_tool_name='{agent_tool_name}' and the required arguments."
        )

    @tool("write")
    def call_discoverable_agent_tool(self, agent_tool_name: str, arguments: str = "{}") -> str:
        """Run an internal tool unlocked earlier with `unlock_discoverable_agent_tool`.

        Args:
            agent_tool_name: Name of the unlocked internal tool.
            arguments: JSON object of its arguments, e.g. '{"user_id": "abc123"}'.
        """
        specs = self.discoverable_tools()
        if agent_tool_name not in specs:
            return f"Error: Unknown agent tool '{agent_tool_name}'. This tool is not available."
        if agent_tool_name not in self._unlocked:
            return (
                f"Error: Tool '{agent_tool_name}' has not been unlocked. "
                "You must first use `unlock_discoverable_agent_tool` to unlock this tool before calling it."
            )
        try:
            # JSON does not tell 33 from 33.0: numbers become floats so ids and hashes agree.
            args = json.loads(arguments, parse_int=float)
        except json.JSONDecodeError as exc:
            return f"Error: Invalid JSON in arguments: {exc}"
        try:
            result = self.method(agent_tool_name)(**args)
        except TypeError as exc:
            return f"Error: Invalid arguments: {exc}"
        if specs[agent_tool_name].mutates_state or agent_tool_name in self._read_log_allowlist():
            self.add(
                "agent_discoverable_tools",
                ids.agent_tool_log_id(agent_tool_name),
                {"tool_name": agent_tool_name, "status": "CALLED"},
            )
        return result

    @tool("read")
    def list_discoverable_agent_tools(self) -> str:
        """The internal tools called so far in this conversation."""
        return f"Your called agent tools:\n{self.query('agent_discoverable_tools')}"


name_tools_after(KnowledgeTools)
