"""Phone and account faults a telecom task is built from, and how each is repaired.

A :class:`Fault` knows how to break a fresh world for a given customer line
(initialization actions), what a policy-following agent and the customer do to repair
it (gold actions, agent side first), and how the customer would describe it. Tasks
compose one to three faults of a family (no service, mobile data, MMS).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from userbench_env.core.task import Action, InitializationAction

Line = dict[str, Any]  # {"customer_id", "line_id", "plan": plan record, "line": line record}


def init(env_type: str, func: str, **arguments: Any) -> InitializationAction:
    """An initialization action."""
    return InitializationAction(env_type=env_type, func_name=func, arguments=arguments)  # type: ignore[arg-type]


def gold(requestor: str, name: str, compare_args: list[str] | None = None, **arguments: Any) -> Action:
    """A gold action."""
    return Action(requestor=requestor, name=name, arguments=arguments, compare_args=compare_args)  # type: ignore[arg-type]


@dataclass(frozen=True)
class Repair:
    """What breaks and what fixes.

    Repairs run as: every fault's ``agent`` actions, then every ``user`` action, then every
    ``agent_after`` action, then one ``reboot_device`` if any fault ``needs_reboot``.
    ``assertions`` are ``(env_type, function, arguments)`` checks true once repaired.
    """

    breaks: list[InitializationAction]
    agent: list[Action] = field(default_factory=list)
    user: list[Action] = field(default_factory=list)
    agent_after: list[Action] = field(default_factory=list)
    needs_reboot: bool = False
    solvable: bool = True
    assertions: list[tuple[str, str, dict[str, Any]]] = field(default_factory=list)


@dataclass(frozen=True)
class Fault:
    """A named fault of a family with its symptom wording and its repair for a line."""

    name: str
    family: str
    symptom: str
    repair: Callable[[Line], Repair]


def _ids(ctx: Line) -> dict[str, str]:
    return {"customer_id": ctx["customer_id"], "line_id": ctx["line_id"]}


def _overdue(contract_ended: bool) -> Callable[[Line], Repair]:
    def repair(ctx: Line) -> Repair:
        bill = ctx["overdue_bill_id"]
        breaks = [init("assistant", "suspend_line_for_overdue_bill", **_ids(ctx), new_bill_id=bill, contract_ended=contract_ended)]
        if contract_ended:
            return Repair(breaks, agent=[gold("assistant", "transfer_to_human_agents", compare_args=[], summary="Line suspended and contract ended; needs a new contract.")], solvable=False,
                          assertions=[("assistant", "assert_line_status", {**_ids(ctx), "expected_status": "Suspended"})])
        return Repair(
            breaks,
            agent=[gold("assistant", "send_payment_request", customer_id=ctx["customer_id"], bill_id=bill)],
            user=[gold("user", "make_payment")],
            agent_after=[gold("assistant", "resume_line", **_ids(ctx))],
            needs_reboot=True,
            assertions=[("assistant", "assert_no_overdue_bill", {"overdue_bill_id": bill})],
        )

    return repair


def _usage(ctx: Line) -> Repair:
    plan = ctx["plan"]
    over = round(plan["data_limit_gb"] + 0.3, 1)
    gb = 1.0
    return Repair(
        [init("assistant", "set_data_usage", **_ids(ctx), data_used_gb=over)],
        agent=[gold("assistant", "refuel_data", **_ids(ctx), gb_amount=gb)],
        assertions=[("assistant", "assert_data_refueling_amount", {**_ids(ctx), "expected_amount": gb})],
    )


def _roaming_both(ctx: Line) -> Repair:
    return Repair(
        [init("user", "set_user_location", abroad=True), init("user", "turn_roaming_off"), init("assistant", "disable_roaming", **_ids(ctx))],
        agent=[gold("assistant", "enable_roaming", **_ids(ctx))],
        user=[gold("user", "toggle_roaming")],
    )


def _roaming_device(ctx: Line) -> Repair:
    return Repair(
        [init("user", "set_user_location", abroad=True), init("user", "turn_roaming_off"), init("assistant", "enable_roaming", **_ids(ctx))],
        user=[gold("user", "toggle_roaming")],
    )


def _simple(breaks: list[InitializationAction], fix: list[Action], reboot: bool = False) -> Callable[[Line], Repair]:
    return lambda ctx: Repair(list(breaks), user=list(fix), needs_reboot=reboot)


FAULTS: dict[str, Fault] = {f.name: f for f in (
    # no service
    Fault("airplane_mode_on", "service", "the phone shows no signal at all", _simple([init("user", "turn_airplane_mode_on")], [gold("user", "toggle_airplane_mode")])),
    Fault("sim_card_unseated", "service", "the phone says there is no SIM card", _simple([init("user", "unseat_sim_card")], [gold("user", "reseat_sim_card")])),
    Fault("apn_broken", "service", "the phone has had no service since you fiddled with network settings", _simple([init("user", "break_apn_settings")], [gold("user", "reset_apn_settings")], reboot=True)),
    Fault("overdue_bill", "service", "the phone has no service and you might have missed a bill", _overdue(False)),
    Fault("sim_locked_pin", "service", "the phone asks for a SIM PIN you do not know", lambda ctx: Repair(
        [init("user", "lock_sim_card", mode="pin")],
        agent=[gold("assistant", "transfer_to_human_agents", compare_args=[], summary="SIM card locked with PIN; customer does not know the PIN.")],
        solvable=False, assertions=[("user", "assert_service_status", {"expected_status": "no_service"})])),
    Fault("overdue_contract_ended", "service", "the phone has no service and your contract may have ended", _overdue(True)),
    # mobile data
    Fault("data_off", "mobile_data", "web pages and apps do not load", _simple([init("user", "turn_data_off")], [gold("user", "toggle_data")])),
    Fault("data_saver_on", "mobile_data", "mobile internet is extremely slow", _simple([init("user", "turn_data_saver_mode_on")], [gold("user", "toggle_data_saver_mode")])),
    Fault("roaming_device_off", "mobile_data", "mobile internet stopped working since you arrived abroad", _roaming_device),
    Fault("roaming_line_off", "mobile_data", "mobile internet does not work on your trip abroad", _roaming_both),
    Fault("data_usage_exceeded", "mobile_data", "mobile internet stopped working near the end of the month", _usage),
    Fault("network_mode_3g", "mobile_data", "mobile internet is much slower than usual", _simple([init("user", "set_network_mode_preference", mode="3g_only")], [gold("user", "set_network_mode_preference", mode="4g_5g_preferred")])),
    Fault("vpn_slow", "mobile_data", "mobile internet crawls since you installed a VPN", _simple([init("user", "break_vpn")], [gold("user", "disconnect_vpn")])),
    # MMS
    Fault("mms_apn_missing", "mms", "picture messages fail to send", _simple([init("user", "break_apn_mms_setting")], [gold("user", "reset_apn_settings")], reboot=True)),
    Fault("messaging_no_storage", "mms", "the messaging app cannot attach photos", _simple([init("user", "remove_app_permission", app_name="messaging", permission="storage")], [gold("user", "grant_app_permission", app_name="messaging", permission="storage")])),
    Fault("messaging_no_sms", "mms", "no message of any kind goes out from the messaging app", _simple([init("user", "remove_app_permission", app_name="messaging", permission="sms")], [gold("user", "grant_app_permission", app_name="messaging", permission="sms")])),
    Fault("wifi_calling_mms", "mms", "picture messages fail since you changed calling settings", _simple([init("user", "set_wifi_calling", enabled=True, mms_over_wifi=True)], [gold("user", "toggle_wifi_calling")])),
    Fault("network_mode_2g", "mms", "picture messages fail and everything feels slow", _simple([init("user", "set_network_mode_preference", mode="2g_only")], [gold("user", "set_network_mode_preference", mode="4g_5g_preferred")])),
)}
