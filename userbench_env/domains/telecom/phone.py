"""Derived behaviour of the simulated phone: network search, data, speed, MMS, status bar.

Pure functions over the user DB's ``device`` and ``surroundings`` dicts, following tau2's
phone model (spec section 8.4.4). Only :func:`network_search` mutates (the device).
"""
from __future__ import annotations

from typing import Any

from userbench_env.domains.telecom.user_db import (
    APN_BROKEN,
    SIGNAL_NONE,
    SIM_ACTIVE,
    SIM_MISSING,
    STATUS_CONNECTED,
    STATUS_NO_SERVICE,
    TECH_2G,
    TECH_3G,
    TECH_4G,
    TECH_5G,
    TECH_NONE,
)

Device = dict[str, Any]
Surroundings = dict[str, Any]

_SPEED_RANGES = {TECH_2G: (0.1, 0.4), TECH_3G: (1.0, 5.0), TECH_4G: (10.0, 100.0), TECH_5G: (50.0, 500.0), TECH_NONE: (0.0, 0.0)}
_SIGNAL_FACTORS = {"poor": 0.2, "fair": 0.5, "good": 0.8, "excellent": 1.0, SIGNAL_NONE: 0.0}
_SIGNAL_ICONS = {SIGNAL_NONE: "📵 No Signal", "poor": "📶¹ Poor", "fair": "📶² Fair", "good": "📶³ Good", "excellent": "📶⁴ Excellent"}
_MODE_TECH = {"4g_only": TECH_4G, "3g_only": TECH_3G, "2g_only": TECH_2G}


def effective_sim_status(device: Device) -> str:
    """The SIM status the phone reports: ``missing`` when unseated, else the card's status."""
    return SIM_MISSING if device["sim_card_missing"] else device["sim_card_status"]


def _no_service(device: Device) -> None:
    device["network_connection_status"] = STATUS_NO_SERVICE
    device["network_technology_connected"] = TECH_NONE
    device["network_signal_strength"] = SIGNAL_NONE


def network_search(device: Device, surroundings: Surroundings) -> None:
    """Re-evaluate the cellular connection (status, technology, signal) of ``device``.

    An active SIM connects on the preferred technology with the surroundings' signal for it
    (``4g_5g_preferred`` falls back to 4G where there is no 5G signal; unknown preferences
    use 4G); otherwise no service. Airplane mode, a broken APN or an inactive line force
    no service.
    """
    if effective_sim_status(device) == SIM_ACTIVE:
        device["network_connection_status"] = STATUS_CONNECTED
        signals = surroundings["signal_strength"]
        preference = device["network_mode_preference"]
        if preference == "4g_5g_preferred":
            five_g = signals.get(TECH_5G, SIGNAL_NONE)
            tech = TECH_4G if five_g == SIGNAL_NONE else TECH_5G
        else:
            tech = _MODE_TECH.get(preference, TECH_4G) if isinstance(preference, str) else TECH_4G
        device["network_technology_connected"] = tech
        device["network_signal_strength"] = signals.get(tech, SIGNAL_NONE)
    else:
        _no_service(device)
    if device["airplane_mode"]:
        _no_service(device)
    if device["active_apn_settings"]["apn_name"] == APN_BROKEN:
        _no_service(device)
    if not surroundings["line_active"]:
        _no_service(device)


def mobile_data_working(device: Device, surroundings: Surroundings) -> bool:
    """Whether cellular data works (radio on, signal, service, roaming abroad, switch, quota)."""
    if device["airplane_mode"] or device["network_signal_strength"] == SIGNAL_NONE:
        return False
    if device["network_connection_status"] == STATUS_NO_SERVICE:
        return False
    if surroundings["is_abroad"] and (not device["roaming_enabled"] or not surroundings["roaming_allowed"]):
        return False
    if not device["data_enabled"]:
        return False
    return not surroundings["mobile_data_usage_exceeded"]


def speed_test(device: Device, surroundings: Surroundings) -> tuple[float | None, str]:
    """``(Mbps, label)`` of a simulated speed test, or ``(None, "No Connection")``."""
    if not mobile_data_working(device, surroundings):
        return None, "No Connection"
    details = device["vpn_details"]
    factor = 0.1 if device["vpn_connected"] and details and details["server_performance"] == "poor" else 1.0
    if device["data_saver_mode"]:
        factor *= 0.2
    low, high = _SPEED_RANGES.get(device["network_technology_connected"], (0.0, 0.0))
    signal = _SIGNAL_FACTORS.get(device["network_signal_strength"], 0.0)
    speed = round((low + high) / 2.0 * signal * factor, 2)
    if speed < 1:
        return speed, "Very Poor"
    if speed < 5:
        return speed, "Poor"
    if speed < 25:
        return speed, "Fair"
    if speed < 100:
        return speed, "Good"
    return speed, "Excellent"


def can_send_mms(device: Device, surroundings: Surroundings) -> bool:
    """Whether the messaging app can send MMS (data path, 3G+, no MMS-over-Wi-Fi, MMSC, permissions)."""
    if not mobile_data_working(device, surroundings):
        return False
    if device["network_technology_connected"] == TECH_2G:
        return False
    if device["wifi_calling_enabled"] and device["wifi_calling_mms_over_wifi"]:
        return False
    if device["active_apn_settings"]["mmsc_url"] is None:
        return False
    app = device["app_statuses"].get("messaging")
    if app is None:
        return False
    return bool(app["permissions"]["storage"] and app["permissions"]["sms"])


def status_bar(device: Device) -> str:
    """The status-bar text: airplane or signal/technology/data icons, Wi-Fi, VPN, battery."""
    parts: list[str] = []
    if device["airplane_mode"]:
        parts.append("✈️ Airplane Mode")
    else:
        parts.append(_SIGNAL_ICONS.get(device["network_signal_strength"], "📵 No Signal"))
        tech = device["network_technology_connected"]
        if tech != TECH_NONE:
            parts.append(tech)
        if device["data_enabled"] and tech != TECH_NONE:
            parts.append("📱 Data Enabled")
            if device["data_saver_mode"]:
                parts.append("🔽 Data Saver")
        else:
            parts.append("📵 Data Disabled")
    if device["wifi_enabled"] and device["wifi_connected"]:
        parts.append(f"📡 Connected to {device['wifi_ssid']}" if device["wifi_ssid"] else "📡 Enabled")
    if device["vpn_connected"]:
        parts.append("🔒 VPN Connected")
    parts.append(f"🔋 {device['battery_level']}%")
    return " | ".join(parts)
