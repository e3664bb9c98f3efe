"""The telecom user toolkit: what the simulated customer can do on their phone.

Tools (listed to the user simulator) read or change the phone in the user DB and most
write tools end with the status bar; non-tool helpers set up task scenarios
(``set_user_info``, ``break_apn_settings``, ...). Texts and state changes follow tau2's
telecom user tools (spec section 8.4.5). Each world's toolkit owns its default VPN
details: ``connect_vpn`` installs that very object, so ``break_vpn`` degrading the
connection also degrades later connections *of the same world* (tau2 shares it across
the whole process, which we deliberately do not).
"""
from __future__ import annotations

from typing import Any, Callable

from userbench_env.domains.telecom import phone
from userbench_env.domains.telecom.assertions import UserAssertions
from userbench_env.domains.telecom.user_db import (
    PERMISSIONS,
    SIGNAL_NONE,
    SIM_ACTIVE,
    SIM_LOCKED_PIN,
    SIM_LOCKED_PUK,
    SIM_MISSING,
    STATUS_SEARCHING,
    APNSettings,
    NetworkModePreference,
    default_apn,
)
from userbench_env.domains.toolkit import Toolkit, tool

_SIM_TEXT = {
    SIM_ACTIVE: "Your SIM card is active and working.",
    SIM_MISSING: "No SIM card detected in the phone.",
    SIM_LOCKED_PIN: "The SIM card is locked with a PIN code.",
    SIM_LOCKED_PUK: "The SIM card is locked with a PUK code.",
}

_SPEED_ADVICE = {
    "Very Poor": "Connection is very slow. Basic web browsing might be difficult.",
    "Poor": "Connection is slow. Web browsing may be sluggish, streaming difficult.",
    "Fair": "Connection is okay for web browsing and some standard definition streaming.",
    "Good": "Connection is good for most activities, including HD streaming.",
    "Excellent": "Connection is very fast.",
}

_MODES = tuple(mode.value for mode in NetworkModePreference)


def _on_off(flag: Any) -> str:
    return "ON" if flag else "OFF"


def _enum_text(value: Any) -> str:
    """An enum-valued field as text; a raw non-string value fails like tau2's ``.value``."""
    if not isinstance(value, str):
        raise AttributeError(f"'{type(value).__name__}' object has no attribute 'value'")
    return value


def vpn_details_repr(details: dict[str, Any]) -> str:
    """Python's repr of tau2's VPN-details dump (the performance shows as an enum repr)."""
    parts = []
    for key, value in details.items():
        if key == "server_performance" and isinstance(value, str):
            text = f"<PerformanceLevel.{value.upper()}: {value!r}>"
        else:
            text = repr(value)
        parts.append(f"{key!r}: {text}")
    return "{" + ", ".join(parts) + "}"


def _ensure(toggle: str, on: bool, answer: str) -> Callable[["TelecomUserTools"], str]:
    """A scenario helper (not a tool) that calls switch method ``toggle`` (which flips a
    setting and returns its new value) until the setting reads ``on``, then says ``answer``."""

    def ensure(self: "TelecomUserTools") -> str:
        flip = getattr(self, toggle)
        if flip() != on:
            flip()
        return answer

    ensure.__doc__ = f"Make sure the setting flipped by ``{toggle}`` is {_on_off(on)}."
    return ensure


class TelecomUserTools(UserAssertions, Toolkit):
    """Phone actions of the simulated telecom customer over the user DB."""

    def __init__(self, db: Any, world: Any = None):
        super().__init__(db, world)
        self._vpn_default = {"server_address": "192.168.1.1", "protocol": "OpenVPN", "server_performance": "excellent"}

    @property
    def device(self) -> dict[str, Any]:
        """The phone's state (mutable)."""
        return self.db["device"]

    @property
    def surroundings(self) -> dict[str, Any]:
        """The customer's surroundings (mutable)."""
        return self.db["surroundings"]

    def _with_bar(self, text: str) -> str:
        return f"{text}\nStatus Bar: {phone.status_bar(self.device)}"

    def _flip(self, field: str, search: bool) -> bool:
        """Invert the phone's boolean setting ``field``, re-run the network search if ``search``;
        the new value."""
        state = not self.device[field]
        self.device[field] = state
        if search:
            self.simulate_network_search()
        return state

    def simulate_network_search(self) -> None:
        """Re-evaluate the cellular connection (see :func:`phone.network_search`)."""
        phone.network_search(self.device, self.surroundings)

    # -- scenario helpers (not tools) ------------------------------------------------
    def set_user_info(self, name: str, phone_number: str) -> None:
        """Record the customer's name and phone number (enables the sync hook)."""
        self.surroundings["name"] = name
        self.surroundings["phone_number"] = phone_number

    def set_user_location(self, abroad: bool) -> None:
        """Place the customer abroad or at home."""
        self.surroundings["is_abroad"] = abroad

    # -- status ------------------------------------------------------------------------
    @tool("read")
    def check_status_bar(self) -> str:
        """Read the icons at the top of the phone screen: signal, network type, mobile data, Wi-Fi, VPN and battery."""
        return f"Status Bar: {phone.status_bar(self.device)}"

    @tool("read")
    def check_network_status(self) -> str:
        """Show the phone's cellular and Wi-Fi connection details: airplane mode, SIM, signal, network type, data and roaming switches."""
        d = self.device
        lines = [
            f"Airplane Mode: {_on_off(d['airplane_mode'])}",
            f"SIM Card Status: {_enum_text(phone.effective_sim_status(d))}",
            f"Cellular Connection: {_enum_text(d['network_connection_status'])}",
            f"Cellular Signal: {_enum_text(d['network_signal_strength'])}",
            f"Cellular Network Type: {_enum_text(d['network_technology_connected'])}",
            f"Mobile Data Enabled: {'Yes' if d['data_enabled'] else 'No'}",
            f"Data Roaming Enabled: {'Yes' if d['roaming_enabled'] else 'No'}",
            f"Wi-Fi Radio: {_on_off(d['wifi_enabled'])}",
            f"Wi-Fi Connected: {'Yes' if d['wifi_connected'] else 'No'}",
        ]
        if d["wifi_connected"]:
            lines.append(f"Connected Wi-Fi Network: {d['wifi_ssid']}")
        return "\n".join(lines)

    @tool("read")
    def check_network_mode_preference(self) -> str:
        """Show which kind of cellular network the phone prefers."""
        return f"Network Mode Preference: {_enum_text(self.device['network_mode_preference'])}"

    @tool("write")
    def set_network_mode_preference(self, mode: NetworkModePreference | str) -> str:
        """Choose which kind of cellular network the phone prefers (5G, 4G/LTE, 3G or 2G); faster networks may use more battery.

        Args:
            mode: One of 4g_5g_preferred, 4g_only, 3g_only, 2g_only.
        """
        if isinstance(mode, str) and mode not in _MODES:
            return self._with_bar(f"Failed to set network mode: '{mode}' is not a valid option. Please use one of: {', '.join(_MODES)}")
        self.device["network_mode_preference"] = mode
        self.simulate_network_search()
        return self._with_bar(f"Preferred Network Mode set to: {_enum_text(mode)}")

    @tool("read")
    def run_speed_test(self) -> str:
        """Measure the phone's current download speed and say what it is good enough for."""
        speed, label = phone.speed_test(self.device, self.surroundings)
        if speed is None:
            return f"Speed test failed: {label}."
        return f"Speed Test Result: {speed:.2f} Mbps ({label}). {_SPEED_ADVICE.get(label, '')}"

    # -- airplane mode -------------------------------------------------------------------
    def _toggle_airplane(self) -> bool:
        d = self.device
        was_on = d["airplane_mode"]
        d["airplane_mode"] = not was_on
        if was_on:
            d["network_connection_status"] = STATUS_SEARCHING
            if d["wifi_enabled"]:
                self._drop_wifi()
        else:
            self._drop_wifi()
            if d["vpn_connected"]:
                self._disconnect_vpn()
        self.simulate_network_search()
        return d["airplane_mode"]

    def _drop_wifi(self) -> None:
        self.device["wifi_connected"] = False
        self.device["wifi_ssid"] = None
        self.device["wifi_signal_strength"] = SIGNAL_NONE

    @tool("write")
    def toggle_airplane_mode(self) -> str:
        """Switch airplane mode on or off; when on, every radio (cellular, Wi-Fi, Bluetooth) is disconnected."""
        return self._with_bar(f"Airplane Mode is now {_on_off(self._toggle_airplane())}.")

    turn_airplane_mode_on = _ensure("_toggle_airplane", True, "Airplane Mode is now ON.")
    turn_airplane_mode_off = _ensure("_toggle_airplane", False, "Airplane Mode is now OFF.")

    # -- SIM card --------------------------------------------------------------------------
    @tool("read")
    def check_sim_status(self) -> str:
        """Tell whether the SIM card works: active, missing, or locked with a PIN or PUK code."""
        status = phone.effective_sim_status(self.device)
        return _SIM_TEXT.get(status) or f"Unknown SIM status: {_enum_text(status)}"

    @tool("write")
    def reseat_sim_card(self) -> str:
        """Take the SIM card out and put it back in, which can fix a SIM that is not recognised."""
        self.device["sim_card_missing"] = False
        self.simulate_network_search()
        return self._with_bar("SIM card re-seated successfully.")

    def unseat_sim_card(self) -> str:
        """Remove the SIM card (fixed by ``reseat_sim_card``)."""
        self.device["sim_card_missing"] = True
        self.simulate_network_search()
        return "SIM card un-seated successfully."

    def lock_sim_card(self, mode: str) -> str:
        """Lock the SIM with a PIN (``pin``) or PUK (``puk``); no tool can unlock it."""
        if mode == "pin":
            self.device["sim_card_status"] = SIM_LOCKED_PIN
        elif mode == "puk":
            self.device["sim_card_status"] = SIM_LOCKED_PUK
        self.simulate_network_search()
        return f"SIM card locked successfully in {mode} mode."

    # -- mobile data and roaming ---------------------------------------------------------------
    def _toggle_data(self) -> bool:
        return self._flip("data_enabled", search=True)

    @tool("write")
    def toggle_data(self) -> str:
        """Switch mobile (cellular) data on or off."""
        return self._with_bar(f"Mobile Data is now {_on_off(self._toggle_data())}.")

    def turn_data_on(self) -> str:
        """Set the mobile-data switch on (without a network search)."""
        self.device["data_enabled"] = True
        return "Data connection restored."

    turn_data_off = _ensure("_toggle_data", False, "Data connection broken.")

    def _toggle_roaming(self) -> bool:
        return self._flip("roaming_enabled", search=True)

    @tool("write")
    def toggle_roaming(self) -> str:
        """Switch data roaming on or off; when on, the phone may use data on networks outside the carrier's coverage."""
        return self._with_bar(f"Data Roaming is now {_on_off(self._toggle_roaming())}.")

    turn_roaming_on = _ensure("_toggle_roaming", True, "Data Roaming is now ON.")
    turn_roaming_off = _ensure("_toggle_roaming", False, "Data Roaming is now OFF.")

    @tool("read")
    def check_data_restriction_status(self) -> str:
        """Tell whether a data-limiting feature (Data Saver) is on."""
        if self.device["data_saver_mode"]:
            return "Data Saver mode is ON (limits data usage)."
        return "Data Saver mode is OFF."

    def _toggle_data_saver(self) -> bool:
        return self._flip("data_saver_mode", search=False)

    @tool("write")
    def toggle_data_saver_mode(self) -> str:
        """Switch Data Saver on or off; it reduces data use and can slow data down."""
        return self._with_bar(f"Data Saver Mode is now {_on_off(self._toggle_data_saver())}.")

    turn_data_saver_mode_on = _ensure("_toggle_data_saver", True, "Data Saver Mode is now ON.")
    turn_data_saver_mode_off = _ensure("_toggle_data_saver", False, "Data Saver Mode is now OFF.")

    # -- APN ---------------------------------------------------------------------------------
    @tool("read")
    def check_apn_settings(self) -> str:
        """Show the APN settings used for mobile data: the APN name and the MMSC URL for picture messages."""
        apn = self.device["active_apn_settings"]
        return (
            f"Current APN Name: {_enum_text(apn['apn_name']) or 'Not Set'}\n"
            f"MMSC URL (for picture messages): {apn['mmsc_url'] or 'Not Set'}\n"
            "(These are technical settings, usually best left unchanged.)"
        )

    @tool("write")
    def set_apn_settings(self, apn_settings: APNSettings | dict) -> str:
        """Replace the phone's APN settings; fields left out take their default values.

        Args:
            apn_settings: The new settings (apn_name, reset_at_reboot, mms_apn, mmsc_url, mms_proxy, mms_port).
        """
        settings: Any = apn_settings
        if isinstance(settings, dict):
            settings = APNSettings(**settings).as_record()
        self.device["active_apn_settings"] = settings
        if not isinstance(settings, dict):
            raise AttributeError(f"'{type(settings).__name__}' object has no attribute 'apn_name'")
        status = f"APN settings set to: {settings['apn_name']}"
        self.simulate_network_search()
        return self._with_bar(status)

    @tool("write")
    def reset_apn_settings(self) -> str:
        """Restore the default APN settings; the change takes effect at the next reboot."""
        self.device["active_apn_settings"]["reset_at_reboot"] = True
        self.simulate_network_search()
        return self._with_bar("APN settings will reset at reboot.")

    def break_apn_settings(self) -> str:
        """Corrupt the APN name so the phone loses service (fixed by a reset and a reboot)."""
        self.device["active_apn_settings"]["apn_name"] = "broken"
        self.simulate_network_search()
        return "APN settings broken. Please call reset_apn_settings() to fix."

    def break_apn_mms_setting(self) -> str:
        """Clear the MMSC URL so MMS cannot be sent (fixed by a reset and a reboot)."""
        self.device["active_apn_settings"]["mmsc_url"] = None
        return "APN MMS setting broken. Please call reset_apn_settings() to fix."

    # -- Wi-Fi and Wi-Fi calling --------------------------------------------------------------
    @tool("read")
    def check_wifi_status(self) -> str:
        """Tell whether Wi-Fi is on, which network it is connected to and how strong the signal is."""
        d = self.device
        if not d["wifi_enabled"]:
            return "Wi-Fi is turned OFF."
        if d["wifi_connected"]:
            return f"Wi-Fi is ON and connected to '{d['wifi_ssid']}'. Signal strength: {_enum_text(d['wifi_signal_strength'])}."
        return "Wi-Fi is ON but not connected to any network."

    @tool("write")
    def toggle_wifi(self) -> str:
        """Switch the Wi-Fi radio on or off (not possible while airplane mode is on)."""
        d = self.device
        if d["airplane_mode"]:
            return self._with_bar("Cannot change Wi-Fi settings while Airplane Mode is ON.")
        state = not d["wifi_enabled"]
        d["wifi_enabled"] = state
        if not state:
            self._drop_wifi()
        return self._with_bar(f"Wi-Fi is now {_on_off(state)}.")

    @tool("read")
    def check_wifi_calling_status(self) -> str:
        """Tell whether Wi-Fi Calling (calls over Wi-Fi instead of the cellular network) is on."""
        return f"Wi-Fi Calling is currently turned {_on_off(self.device['wifi_calling_enabled'])}."

    def _toggle_wifi_calling(self) -> bool:
        return self._flip("wifi_calling_enabled", search=False)

    @tool("write")
    def toggle_wifi_calling(self) -> str:
        """Switch Wi-Fi Calling on or off; it can help where the cellular signal is weak."""
        return self._with_bar(f"Wi-Fi Calling is now {_on_off(self._toggle_wifi_calling())}.")

    def set_wifi_calling(self, enabled: bool, mms_over_wifi: bool | None = None) -> str:
        """Set Wi-Fi Calling to ``enabled`` and, if given, the MMS-over-Wi-Fi option."""
        if self.device["wifi_calling_enabled"] != enabled:
            self._toggle_wifi_calling()
        message = f"Wi-Fi Calling is now {_on_off(enabled)}."
        if mms_over_wifi is not None:
            self.device["wifi_calling_mms_over_wifi"] = mms_over_wifi
            message += f"\nMMS over Wi-Fi is now {_on_off(mms_over_wifi)}."
        return message

    # -- VPN ---------------------------------------------------------------------------------
    @tool("read")
    def check_vpn_status(self) -> str:
        """Tell whether a VPN is on and connected, with the connection details."""
        d = self.device
        if d["vpn_connected"]:
            details = d["vpn_details"]
            if details:
                return f"VPN is ON and connected. Details: {vpn_details_repr(details)}"
            return "VPN is ON and connected (no specific details available)."
        if d["vpn_enabled_setting"]:
            return "VPN is turned ON in settings, but currently not connected."
        return "VPN is turned OFF."

    @tool("write")
    def connect_vpn(self) -> str:
        """Connect the phone's VPN."""
        if self.device["vpn_connected"]:
            return "VPN already connected."
        self.device["vpn_connected"] = True
        self.device["vpn_details"] = self._vpn_default
        return self._with_bar("VPN connected successfully.")

    def _disconnect_vpn(self) -> bool:
        if not self.device["vpn_connected"]:
            return False
        self.device["vpn_connected"] = False
        self.device["vpn_details"] = None
        return True

    @tool("write")
    def disconnect_vpn(self) -> str:
        """Disconnect an active VPN connection, which can change speed or what content is reachable."""
        done = self._disconnect_vpn()
        return self._with_bar("VPN disconnected successfully." if done else "No active VPN connection to disconnect.")

    def break_vpn(self) -> str:
        """Connect the VPN and make its server slow (mobile data becomes very slow)."""
        self.connect_vpn()
        self.device["vpn_details"]["server_performance"] = "poor"
        return "VPN connection broken."

    # -- apps ----------------------------------------------------------------------------------
    @tool("read")
    def check_installed_apps(self) -> str:
        """List the apps installed on the phone."""
        return f"The following apps are installed on the phone: {', '.join(self.device['app_statuses'])}"

    def _granted(self, app: dict[str, Any]) -> list[str]:
        return [name.replace("_", " ").lower() for name, allowed in app["permissions"].items() if allowed]

    @tool("read")
    def check_app_status(self, app_name: str) -> str:
        """Show an app's details, including which permissions it has.

        Args:
            app_name: Name of the app.
        """
        app = self.device["app_statuses"].get(app_name)
        if not app:
            return f"App '{app_name}' not found on this phone."
        granted = self._granted(app)
        lines = [f"Status for App: {app_name}"]
        if granted:
            lines.append(" - Permissions Granted:")
            lines.extend(f"   - {perm}" for perm in granted)
        else:
            lines.append(" - Permissions: None granted.")
        return "\n".join(lines)

    @tool("read")
    def check_app_permissions(self, app_name: str) -> str:
        """List the permissions an app currently has (such as storage or SMS access).

        Args:
            app_name: Name of the app.
        """
        app = self.device["app_statuses"].get(app_name)
        if not app:
            return f"App '{app_name}' not found on this phone."
        granted = self._granted(app)
        if not granted:
            return f"App '{app_name}' currently has no permissions granted."
        return f"App '{app_name}' has permission for: {', '.join(granted)}."

    @tool("write")
    def grant_app_permission(self, app_name: str, permission: str) -> str:
        """Give an app a permission it needs to work properly (for example storage or SMS).

        Args:
            app_name: Name of the app.
            permission: Permission to grant, in lowercase.
        """
        app = self.device["app_statuses"].get(app_name)
        permission = permission.lower()
        if not app:
            text = f"Error. App '{app_name}' not found. Cannot grant permission."
        elif permission not in app["permissions"]:
            text = f"Error. Permission '{permission}' not tracked for app '{app_name}', available permissions: {list(app['permissions'])}"
        else:
            app["permissions"][permission] = True
            text = f"Success. Permission '{permission}' granted to app '{app_name}'."
        return self._with_bar(text)

    def remove_app_permission(self, app_name: str, permission: str) -> tuple[bool, str]:
        """Take a permission away from an app; returns ``(success, message)``."""
        app = self.device["app_statuses"].get(app_name)
        permission = permission.lower()
        if not app:
            return False, f"App '{app_name}' not found. Cannot remove permission."
        if permission not in PERMISSIONS:
            return False, f"Permission '{permission}' not tracked for app '{app_name}'."
        app["permissions"][permission] = False
        return True, f"Permission '{permission}' removed from app '{app_name}'."

    # -- MMS -----------------------------------------------------------------------------------
    @tool("read")
    def can_send_mms(self) -> str:
        """Tell whether the messaging app can currently send MMS (picture) messages."""
        if phone.can_send_mms(self.device, self.surroundings):
            return "Your messaging app can send MMS messages."
        return "Your messaging app cannot send MMS messages."

    # -- device ------------------------------------------------------------------------------------
    @tool("write")
    def reboot_device(self) -> str:
        """Restart the phone; this refreshes network services and applies a pending APN reset."""
        lines = []
        if self.device["active_apn_settings"]["reset_at_reboot"]:
            lines.append("Resetting APN settings...")
            self.device["active_apn_settings"] = default_apn()
        lines.append("Restarting network services...")
        self.device["network_connection_status"] = STATUS_SEARCHING
        self.simulate_network_search()
        return self._with_bar("\n".join(lines))

    # -- payments ------------------------------------------------------------------------------------
    @tool("read")
    def check_payment_request(self) -> str:
        """Tell whether the agent has sent a payment request, and for which bill and amount."""
        request = self.surroundings["payment_request"]
        if request is None:
            return "No payment request has been made."
        return f"You have a payment request for bill {request['bill_id']} of {request['amount_due']} USD."

    @tool("write")
    def make_payment(self) -> str:
        """Pay the bill of the payment request the agent has sent."""
        request = self.surroundings["payment_request"]
        if request is None:
            return "You do not have a payment request."
        request["paid"] = True
        return f"Payment of {request['amount_due']} USD has been made for bill {request['bill_id']}."
