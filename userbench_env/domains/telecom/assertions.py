"""Env-assertion helpers of the telecom toolkits (tau2's ``assert_*`` methods).

They are plain toolkit methods (not tools): reachable only through a task's
``env_assertions``. Each returns a bool; mixed into the agent and user toolkits.
"""
from __future__ import annotations

from typing import Any

from userbench_env.domains.telecom import phone
from userbench_env.domains.telecom.agent_db import BILL_OVERDUE, BILL_PAID
from userbench_env.domains.telecom.user_db import NETWORK_STATUSES


class AgentAssertions:
    """Assertions over the agent DB (needs ``_target_line``, ``_customer``, ``_bill``)."""

    def assert_data_refueling_amount(self, customer_id: str, line_id: str, expected_amount: float) -> bool:
        """The line's refuelled data equals ``expected_amount`` (within 1e-6 GB)."""
        return abs(self._target_line(customer_id, line_id)["data_refueling_gb"] - expected_amount) < 1e-6  # type: ignore[attr-defined]

    def assert_line_status(self, customer_id: str, line_id: str, expected_status: str) -> bool:
        """The line's status equals ``expected_status``."""
        return self._target_line(customer_id, line_id)["status"] == expected_status  # type: ignore[attr-defined]

    def assert_overdue_bill_exists(self, customer_id: str, overdue_bill_id: str) -> bool:
        """The customer has bill ``overdue_bill_id`` and it is Overdue (raises otherwise)."""
        customer = self._customer(customer_id)  # type: ignore[attr-defined]
        if overdue_bill_id not in customer["bill_ids"]:
            raise ValueError(f"Overdue bill {overdue_bill_id} not found")
        if self._bill(overdue_bill_id)["status"] != BILL_OVERDUE:  # type: ignore[attr-defined]
            raise ValueError(f"Overdue bill {overdue_bill_id} is not overdue")
        return True

    def assert_no_overdue_bill(self, overdue_bill_id: str) -> bool:
        """The bill is missing from the DB or has been paid."""
        try:
            return self._bill(overdue_bill_id)["status"] == BILL_PAID  # type: ignore[attr-defined]
        except ValueError:
            return True


class UserAssertions:
    """Assertions over the phone (needs ``device`` and ``surroundings`` properties)."""

    device: dict[str, Any]
    surroundings: dict[str, Any]

    def assert_airplane_mode_status(self, expected_status: bool) -> bool:
        """Airplane mode is ``expected_status``."""
        return self.device["airplane_mode"] == expected_status

    def assert_service_status(self, expected_status: str) -> bool:
        """The cellular connection status equals ``expected_status`` (a valid status name)."""
        if expected_status not in NETWORK_STATUSES:
            raise ValueError(f"'{expected_status}' is not a valid NetworkStatus")
        return self.device["network_connection_status"] == expected_status

    def assert_mobile_data_status(self, expected_status: bool) -> bool:
        """Whether mobile data works equals ``expected_status``."""
        return phone.mobile_data_working(self.device, self.surroundings) == expected_status

    def assert_mobile_roaming_status(self, expected_status: bool) -> bool:
        """The phone's data-roaming switch is ``expected_status``."""
        return self.device["roaming_enabled"] == expected_status

    def assert_mobile_data_saver_mode_status(self, expected_status: bool) -> bool:
        """Data saver mode is ``expected_status``."""
        return self.device["data_saver_mode"] == expected_status

    def assert_internet_speed(self, expected_speed: float, expected_desc: str | None = None) -> bool:
        """The speed test gives at least ``expected_speed`` Mbps (and label ``expected_desc``, any case)."""
        speed, desc = phone.speed_test(self.device, self.surroundings)
        speed = speed or 0.0
        if expected_desc is None:
            return speed >= expected_speed
        return speed >= expected_speed and desc.lower() == expected_desc.lower()

    def assert_internet_not_excellent(self) -> bool:
        """The speed test label is not Excellent."""
        return phone.speed_test(self.device, self.surroundings)[1].lower() != "excellent"

    def assert_can_send_mms(self, expected_status: bool) -> bool:
        """Whether MMS can be sent equals ``expected_status``."""
        return phone.can_send_mms(self.device, self.surroundings) == expected_status

    def assert_mobile_data_usage_exceeded(self, expected_status: bool) -> bool:
        """The synced data-usage-exceeded flag equals ``expected_status``."""
        return self.surroundings["mobile_data_usage_exceeded"] == expected_status
