"""Scanned-envelope texts of the ATM deposits that have images (data of one discoverable tool)."""
from __future__ import annotations

_DISCREPANCY_NOTE = (
    "Images clearly show deposit contents totaling $1,135.00. ATM machine recorded only $385.00. "
    "Discrepancy of $750.00 confirmed via image review."
)


def _rent_refund_scan(envelope: str, time: str, location: str, check_number: str, bank: str, payee: str, check_date: str) -> str:
    return f"""
=== ATM DEPOSIT ENVELOPE SCAN ===
Envelope ID: {envelope}
Deposit Time: {time}
ATM Location: {location}

--- ENVELOPE CONTENTS ---
Item 1: Personal Check
  - Check Number: {check_number}
  - Drawn On: {bank}
  - Payee: {payee}
  - Amount: $875.00
  - Memo: "October rent refund"
  - Signature: Present and legible
  - Date on Check: {check_date}

Item 2: Cash
  - Denomination breakdown:
    * 2 x $100 bills = $200.00
    * 3 x $20 bills = $60.00
  - Total Cash: $260.00

--- DEPOSIT SUMMARY ---
Check Total: $875.00
Cash Total: $260.00
GRAND TOTAL: $1,135.00

--- MACHINE RECORD ---
Amount Recorded by ATM: $385.00
DISCREPANCY DETECTED: $750.00 difference

--- IMAGE QUALITY ---
Envelope scan: CLEAR
Check front: CLEAR
Check back (endorsement): CLEAR - endorsed "For Deposit Only - {payee}"
Cash image: CLEAR - bills visible and countable
"""


#: transaction id -> (ATM label, envelope text, verification note)
DEPOSIT_IMAGES: dict[str, tuple[str, str, str]] = {
    "btxn_834027370c20": (
        "ATM #3921",
        _rent_refund_scan(
            "ENV-2025-3921-00923", "3:47 PM CST", "Rho-Bank ATM #3921, Cedar Lane Branch, Austin, TX",
            "7284", "First Texas Bank", "Derek Yamamoto", "11/03/2025",
        ),
        _DISCREPANCY_NOTE,
    ),
    "btxn_test_deposit_001": (
        "ATM #3921",
        _rent_refund_scan(
            "ENV-2025-3921-00847", "2:34 PM EST", "Rho-Bank ATM #3921, 742 Oak Avenue, Portland, OR",
            "4821", "First National Bank", "Linda Patterson", "11/05/2025",
        ),
        _DISCREPANCY_NOTE,
    ),
    "btxn_test_atm_dep_partial": (
        "ATM #5847",
        """
=== ATM DEPOSIT ENVELOPE SCAN ===
Envelope ID: ENV-2025-5847-00293
Deposit Time: 10:15 AM EST

--- ENVELOPE CONTENTS ---
Item 1: Personal Check
  - Check Number: 7392
  - Amount: $500.00

--- DEPOSIT SUMMARY ---
Check Total: $500.00
Cash Total: $0.00
GRAND TOTAL: $500.00

--- MACHINE RECORD ---
Amount Recorded by ATM: $500.00
No discrepancy detected.
""",
        "Images confirm deposit matches recorded amount. No discrepancy found.",
    ),
}
