"""The telecom user DB (``user_db.toml``): the customer's phone and surroundings.

``device`` and ``surroundings`` are plain dicts in tau2's field order with enum values
as strings. :class:`APNSettings` is a pydantic model because ``set_apn_settings`` lets
the simulated user pass arbitrary settings, which tau2 validates (with coercions and
error texts) exactly like this model does.
"""
from __future__ import annotations

from enum import Enum
from typing import Any

from pydantic import BaseModel, ConfigDict

from userbench_env.domains.telecom.schema import (
    REQUIRED,
    Shape,
    as_float,
    normalise,
    one_of,
    record,
)

SIM_ACTIVE, SIM_MISSING, SIM_LOCKED_PIN, SIM_LOCKED_PUK = "active", "missing", "locked_pin", "locked_puk"
TECH_NONE, TECH_2G, TECH_3G, TECH_4G, TECH_5G = "none", "2G", "3G", "4G", "5G"
SIGNAL_NONE, SIGNAL_POOR, SIGNAL_FAIR, SIGNAL_GOOD, SIGNAL_EXCELLENT = "none", "poor", "fair", "good", "excellent"
STATUS_CONNECTED, STATUS_SEARCHING, STATUS_NO_SERVICE = "connected", "searching", "no_service"
NETWORK_STATUSES = (STATUS_CONNECTED, STATUS_SEARCHING, STATUS_NO_SERVICE, "emergency_only")
PERFORMANCE_LEVELS = ("unknown", "poor", "fair", "good", "excellent")
APN_BROKEN = "broken"
#: The permissions an app tracks, in tau2's field order.
PERMISSIONS = ("sms", "storage", "phone", "network")


class NetworkModePreference(str, Enum):
    """The cellular network modes a phone can prefer."""

    FOUR_G_5G_PREFERRED = "4g_5g_preferred"
    FOUR_G_ONLY = "4g_only"
    THREE_G_ONLY = "3g_only"
    TWO_G_ONLY = "2g_only"


class APNNames(str, Enum):
    """Names of the access point the phone uses for mobile data."""

    INTERNET = "internet"
    BROKEN = "broken"


class APNSettings(BaseModel):
    """One access point (APN) configuration of the phone; unknown keys are rejected."""

    model_config = ConfigDict(extra="forbid")

    apn_name: APNNames = APNNames.INTERNET
    reset_at_reboot: bool = False
    mms_apn: str | None = "mms"
    mmsc_url: str | None = "http://mms.carrier.com/mms/wapenc"
    mms_proxy: str | None = None
    mms_port: int | None = None

    def as_record(self) -> dict[str, Any]:
        """The settings as a plain DB record (enum as its string value)."""
        data = self.model_dump()
        data["apn_name"] = self.apn_name.value
        return data


def default_apn() -> dict[str, Any]:
    """The factory APN settings record (used at load and by a reboot after a reset)."""
    return APNSettings().as_record()


_signal = one_of(SIGNAL_NONE, SIGNAL_POOR, SIGNAL_FAIR, SIGNAL_GOOD, SIGNAL_EXCELLENT)
_tech = one_of(TECH_NONE, TECH_2G, TECH_3G, TECH_4G, TECH_5G)

APN: Shape = [
    ("apn_name", one_of(*(n.value for n in APNNames)), "internet"),
    ("reset_at_reboot", None, False),
    ("mms_apn", None, "mms"),
    ("mmsc_url", None, "http://mms.carrier.com/mms/wapenc"),
    ("mms_proxy", None, None),
    ("mms_port", None, None),
]

VPN: Shape = [
    ("server_address", None, None),
    ("protocol", None, None),
    ("server_performance", one_of(*PERFORMANCE_LEVELS), "unknown"),
]

APP_PERMISSIONS: Shape = [(name, None, False) for name in PERMISSIONS]


def _app(value: dict[str, Any]) -> dict[str, Any]:
    return normalise(
        value,
        [("app_name", None, REQUIRED), ("permissions", record(APP_PERMISSIONS, "permissions"), {n: False for n in PERMISSIONS})],
        "app status",
    )


def _apps(value: dict[str, Any]) -> dict[str, Any]:
    return {name: _app(status) for name, status in value.items()}


DEFAULT_APPS = {
    "messaging": {"app_name": "messaging", "permissions": {"sms": True, "storage": True, "phone": True, "network": False}},
    "browser": {"app_name": "browser", "permissions": {"sms": False, "storage": True, "phone": False, "network": True}},
}

DEVICE: Shape = [
    ("sim_card_status", one_of(SIM_ACTIVE, SIM_MISSING, SIM_LOCKED_PIN, SIM_LOCKED_PUK), SIM_ACTIVE),
    ("sim_card_missing", None, False),
    ("airplane_mode", None, False),
    ("network_signal_strength", _signal, SIGNAL_GOOD),
    ("network_technology_connected", _tech, TECH_5G),
    ("network_connection_status", one_of(*NETWORK_STATUSES), STATUS_CONNECTED),
    ("battery_level", None, 80),
    ("data_enabled", None, True),
    ("roaming_enabled", None, False),
    ("network_mode_preference", one_of(*(m.value for m in NetworkModePreference)), "4g_5g_preferred"),
    ("active_apn_settings", record(APN, "apn settings"), default_apn()),
    ("wifi_enabled", None, False),
    ("wifi_connected", None, False),
    ("wifi_ssid", None, None),
    ("wifi_signal_strength", _signal, SIGNAL_NONE),
    ("wifi_calling_enabled", None, False),
    ("wifi_calling_mms_over_wifi", None, False),
    ("data_saver_mode", None, False),
    ("vpn_enabled_setting", None, False),
    ("vpn_connected", None, False),
    ("vpn_details", record(VPN, "vpn details"), None),
    ("app_statuses", _apps, DEFAULT_APPS),
]

PAYMENT_REQUEST: Shape = [
    ("bill_id", None, REQUIRED),
    ("amount_due", as_float, REQUIRED),
    ("paid", None, False),
]

SURROUNDINGS: Shape = [
    ("name", None, None),
    ("phone_number", None, None),
    ("is_abroad", None, False),
    ("roaming_allowed", None, False),
    ("signal_strength", None, {TECH_2G: SIGNAL_POOR, TECH_3G: SIGNAL_FAIR, TECH_4G: SIGNAL_GOOD, TECH_5G: SIGNAL_EXCELLENT}),
    ("mobile_data_usage_exceeded", None, False),
    ("line_active", None, True),
    ("payment_request", record(PAYMENT_REQUEST, "payment request"), None),
]


def normalise_user_db(raw: dict[str, Any]) -> dict[str, Any]:
    """The validated form of a parsed ``user_db.toml``: ``{device, surroundings}``."""
    unknown = [key for key in raw if key not in ("device", "surroundings")]
    if unknown:
        raise ValueError(f"telecom user db: unknown section(s) {', '.join(unknown)}")
    return {
        "device": normalise(raw.get("device", {}), DEVICE, "device"),
        "surroundings": normalise(raw.get("surroundings", {}), SURROUNDINGS, "surroundings"),
    }
