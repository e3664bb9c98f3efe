"""The airline agent toolkit, reproducing tau2-bench's tools output for output.

Behaviour follows tau2 including its quirks (spec section 8.2): arguments are not
validated except where tau2 builds a record from them; cancellation has no rules and
releases no seats; a certificate used in a booking is removed whole; the one-stop
search builds the next-day date without zero padding; new ids are fixed sequences.

Reads use ``peek``/``items_ro`` (shared records, never mutated); writes take
``table[key]`` (the world's private copy) only once every check has passed, so a
failed call leaves the DB untouched.
"""
from __future__ import annotations

from typing import Any

from userbench_env.domains.calculator import calculate_text
from userbench_env.domains.airline.models import (
    CabinClass,
    Certificate,
    FlightInfo,
    FlightType,
    Insurance,
    Passenger,
    Payment,
    Reservation,
    ReservationFlight,
)
from userbench_env.domains.store import copy_value
from userbench_env.domains.toolkit import Model, Toolkit, tool

#: Fixed clock of the airline world (reservation ``created_at``).
NOW = "2024-05-15T15:00:00"
#: Ids given to new reservations, first unused first.
NEW_RESERVATION_IDS = ("HATHAT", "HATHAU", "HATHAV")
#: Ids given to new certificates, first unused first.
NEW_CERTIFICATE_IDS = ("certificate_3221322", "certificate_3221323", "certificate_3221324")

AIRPORTS = (
    ("SFO", "San Francisco"),
    ("JFK", "New York"),
    ("LAX", "Los Angeles"),
    ("ORD", "Chicago"),
    ("DFW", "Dallas"),
    ("DEN", "Denver"),
    ("SEA", "Seattle"),
    ("ATL", "Atlanta"),
    ("MIA", "Miami"),
    ("BOS", "Boston"),
    ("PHX", "Phoenix"),
    ("IAH", "Houston"),
    ("LAS", "Las Vegas"),
    ("MCO", "Orlando"),
    ("EWR", "Newark"),
    ("CLT", "Charlotte"),
    ("MSP", "Minneapolis"),
    ("DTW", "Detroit"),
    ("PHL", "Philadelphia"),
    ("LGA", "LaGuardia"),
)

INSURANCE_FEE = 30
BAG_FEE = 50


def _as_models(items: list[Any], model: type) -> list[Any]:
    """tau2's conversion: build models only when *every* element is a dict."""
    if all(isinstance(item, dict) for item in items):
        return [model(**item) for item in items]
    return items


class AirlineTools(Toolkit):
    """Agent tools of the airline domain (booking, changes, cancellations, look-ups)."""

    # -- shared look-ups (read-only unless stated) ---------------------------------
    def _user(self, user_id: str) -> dict[str, Any]:
        if user_id not in self.db["users"]:
            raise ValueError(f"User {user_id} not found")
        return self.db["users"].peek(user_id)

    def _reservation(self, reservation_id: str) -> dict[str, Any]:
        if reservation_id not in self.db["reservations"]:
            raise ValueError(f"Reservation {reservation_id} not found")
        return self.db["reservations"].peek(reservation_id)

    def _flight(self, flight_number: str) -> dict[str, Any]:
        if flight_number not in self.db["flights"]:
            raise ValueError(f"Flight {flight_number} not found")
        return self.db["flights"].peek(flight_number)

    def _flight_date(self, flight_number: str, date: str) -> dict[str, Any]:
        flight = self._flight(flight_number)
        if date not in flight["dates"]:
            raise ValueError(f"Flight {flight_number} not found on date {date}")
        return flight["dates"][date]

    def _available_on(self, flight_number: str, date: str, cabin: str, travellers: int) -> dict[str, Any]:
        """The bookable date record of a flight, or the tau2 error for it."""
        day = self._flight_date(flight_number, date)
        if day["status"] != "available":
            raise ValueError(f"Flight {flight_number} not available on date {date}")
        if day["available_seats"][cabin] < travellers:
            raise ValueError(f"Not enough seats on flight {flight_number}")
        return day

    def _search_direct(
        self,
        date: str,
        origin: str | None,
        destination: str | None,
        leave_after: str | None = None,
        flights: list[dict[str, Any]] | None = None,
    ) -> list[Model]:
        """Bookable flights on ``date`` (DB order) as tau2's direct-flight records.

        ``flights`` lets a caller that searches repeatedly pass the flight records once.
        """
        found = []
        for flight in self.db["flights"].values_ro() if flights is None else flights:
            if origin is not None and flight["origin"] != origin:
                continue
            if destination is not None and flight["destination"] != destination:
                continue
            day = flight["dates"].get(date)
            if day is None or day["status"] != "available":
                continue
            if leave_after is not None and flight["scheduled_departure_time_est"] < leave_after:
                continue
            found.append(
                Model(
                    flight_number=flight["flight_number"],
                    origin=flight["origin"],
                    destination=flight["destination"],
                    status="available",
                    scheduled_departure_time_est=flight["scheduled_departure_time_est"],
                    scheduled_arrival_time_est=flight["scheduled_arrival_time_est"],
                    date=None,
                    available_seats=dict(day["available_seats"]),
                    prices=dict(day["prices"]),
                )
            )
        return found

    def _new_segment(self, info: FlightInfo, cabin: str, travellers: int) -> tuple[dict[str, Any], Any]:
        """A bookable flight of an itinerary as a reservation segment, and its cabin price
        as the DB holds it; tau2's error when the flight cannot take ``travellers``."""
        flight = self._flight(info.flight_number)
        day = self._available_on(info.flight_number, info.date, cabin, travellers)
        price = day["prices"][cabin]
        segment = ReservationFlight(
            flight_number=info.flight_number,
            origin=flight["origin"],
            destination=flight["destination"],
            date=info.date,
            price=price,
        ).model_dump()
        return segment, price

    def _charge_for_update(
        self, current: dict[str, Any], reservation_id: str, payment_id: str, amount: Any
    ) -> dict[str, Any]:
        """Check and apply the payment of a change to reservation ``current``; the
        reservation's writable record, with the payment logged when ``amount`` is not 0."""
        user_id = current["user_id"]
        user = self.db["users"].peek(user_id)
        if payment_id not in user["payment_methods"]:
            raise ValueError("Payment method not found")
        method = user["payment_methods"][payment_id]
        if method["source"] == "certificate":
            raise ValueError("Certificate cannot be used to update reservation")
        if method["source"] == "gift_card":
            if method["amount"] < amount:
                raise ValueError("Gift card balance is not enough")
            self.db["users"][user_id]["payment_methods"][payment_id]["amount"] -= amount
        reservation = self.db["reservations"][reservation_id]
        if amount != 0:
            reservation["payment_history"].append(Payment(payment_id=payment_id, amount=amount).model_dump())
        return reservation

    # -- tools (alphabetical, as tau2 lists them) ----------------------------------
    @tool("write")
    def book_reservation(
        self,
        user_id: str,
        origin: str,
        destination: str,
        flight_type: FlightType,
        cabin: CabinClass,
        flights: list[FlightInfo | dict],
        passengers: list[Passenger | dict],
        payment_methods: list[Payment | dict],
        total_baggages: int,
        nonfree_baggages: int,
        insurance: Insurance,
    ) -> Model:
        """Book a new reservation for a user and charge its payment methods.

        Args:
            user_id: Id of the customer who books, e.g. 'sara_doe_496'.
            origin: IATA code of the trip origin, e.g. 'SFO'.
            destination: IATA code of the trip destination, e.g. 'JFK'.
            flight_type: 'one_way' or 'round_trip'.
            cabin: 'basic_economy', 'economy' or 'business' (same for every flight).
            flights: Every flight segment of the trip, each with flight_number and date.
            passengers: Every traveller, each with first_name, last_name and dob.
            payment_methods: Payments covering the exact total, each with payment_id and amount.
            total_baggages: Number of checked bags in total.
            nonfree_baggages: Number of checked bags that must be paid for.
            insurance: 'yes' or 'no' for travel insurance.
        """
        flights = _as_models(flights, FlightInfo)
        passengers = _as_models(passengers, Passenger)
        payment_methods = _as_models(payment_methods, Payment)
        user = self._user(user_id)
        reservation_id = next((r for r in NEW_RESERVATION_IDS if r not in self.db["reservations"]), None)
        if reservation_id is None:
            raise ValueError("Too many reservations")
        reservation = Reservation(
            reservation_id=reservation_id,
            user_id=user_id,
            origin=origin,
            destination=destination,
            flight_type=flight_type,
            cabin=cabin,
            flights=[],
            passengers=passengers,
            payment_history=payment_methods,
            created_at=NOW,
            total_baggages=total_baggages,
            nonfree_baggages=nonfree_baggages,
            insurance=insurance,
        ).model_dump()

        total = 0
        seats_taken: list[tuple[str, str]] = []
        for info in flights:
            segment, price = self._new_segment(info, cabin, len(passengers))
            reservation["flights"].append(segment)
            seats_taken.append((info.flight_number, info.date))
            total += price * len(passengers)
        if insurance == "yes":
            total += INSURANCE_FEE * len(passengers)
        total += BAG_FEE * nonfree_baggages

        for payment in payment_methods:
            if payment.payment_id not in user["payment_methods"]:
                raise ValueError(f"Payment method {payment.payment_id} not found")
            method = user["payment_methods"][payment.payment_id]
            if method["source"] in ("gift_card", "certificate") and method["amount"] < payment.amount:
                raise ValueError(f"Not enough balance in payment method {payment.payment_id}")
        paid = sum(payment.amount for payment in payment_methods)
        if paid != total:
            raise ValueError(f"Payment amount does not add up, total price is {total}, but paid {paid}")

        mine = self.db["users"][user_id]
        for payment in payment_methods:
            # a certificate listed twice is gone by its second use: KeyError, as in tau2
            method = mine["payment_methods"][payment.payment_id]
            if method["source"] == "gift_card":
                method["amount"] -= payment.amount
            elif method["source"] == "certificate":
                del mine["payment_methods"][payment.payment_id]
        for flight_number, date in seats_taken:
            self.db["flights"][flight_number]["dates"][date]["available_seats"][cabin] -= len(passengers)
        self.db["reservations"][reservation_id] = reservation
        mine["reservations"].append(reservation_id)
        return Model(reservation)

    @tool("generic")
    def calculate(self, expression: str) -> str:
        """Evaluate an arithmetic expression and return the result rounded to 2 decimals.

        Args:
            expression: The arithmetic to evaluate, e.g. '2 + 2'. Only digits, + - * /, parentheses, dots and spaces are allowed.
        """
        return calculate_text(expression)

    @tool("write")
    def cancel_reservation(self, reservation_id: str) -> Model:
        """Cancel a whole reservation and refund every payment made for it.

        Args:
            reservation_id: The reservation id, e.g. 'ZFA04Y'.
        """
        self._reservation(reservation_id)
        reservation = self.db["reservations"][reservation_id]
        refunds = [
            Payment(payment_id=p["payment_id"], amount=-p["amount"]).model_dump()
            for p in reservation["payment_history"]
        ]
        reservation["payment_history"].extend(refunds)
        reservation["status"] = "cancelled"
        return Model(reservation)

    @tool("read")
    def get_flight_status(self, flight_number: str, date: str) -> str:
        """Return the status of a flight on a date (e.g. 'available', 'landed').

        Args:
            flight_number: The flight number, e.g. 'HAT001'.
            date: The date of the flight, 'YYYY-MM-DD'.
        """
        return self._flight_date(flight_number, date)["status"]

    @tool("read")
    def get_reservation_details(self, reservation_id: str) -> Model:
        """Return the full record of a reservation.

        Args:
            reservation_id: The reservation id, e.g. '8JX2WO'.
        """
        return Model(self._reservation(reservation_id))

    @tool("read")
    def get_user_details(self, user_id: str) -> Model:
        """Return a user's profile, payment methods and reservation ids.

        Args:
            user_id: The user id, e.g. 'sara_doe_496'.
        """
        return Model(self._user(user_id))

    @tool("read")
    def list_all_airports(self) -> list[Model]:
        """Return every airport served, as IATA code and city."""
        return [Model(iata=iata, city=city) for iata, city in AIRPORTS]

    @tool("read")
    def search_direct_flight(self, origin: str, destination: str, date: str) -> list[Model]:
        """Find the non-stop flights between two airports that can be booked on a date.

        Args:
            origin: IATA code of the departure airport, e.g. 'JFK'.
            destination: IATA code of the arrival airport, e.g. 'LAX'.
            date: Travel date, 'YYYY-MM-DD', e.g. '2024-05-01'.
        """
        return self._search_direct(date, origin, destination)

    @tool("read")
    def search_onestop_flight(self, origin: str, destination: str, date: str) -> list[list[Model]]:
        """Find bookable two-flight connections between two airports departing on a date.

        Args:
            origin: IATA code of the departure airport, e.g. 'JFK'.
            destination: IATA code of the final arrival airport, e.g. 'LAX'.
            date: Departure date of the first flight, 'YYYY-MM-DD', e.g. '2024-05-01'.
        """
        pairs: list[list[Model]] = []
        every_flight = list(self.db["flights"].values_ro())
        for first in self._search_direct(date, origin, None, flights=every_flight):
            first["date"] = date
            arrival = first["scheduled_arrival_time_est"]
            # tau2 quirk: the next-day date is built without zero padding.
            second_date = f"2024-05-{int(date[-2:]) + 1}" if "+1" in arrival else date
            for second in self._search_direct(second_date, first["destination"], destination, arrival, every_flight):
                second["date"] = second_date
                pairs.append([first, second])
        return pairs

    @tool("write")
    def send_certificate(self, user_id: str, amount: int) -> str:
        """Give a user a travel certificate of the given amount (use with care).

        Args:
            user_id: The user id, e.g. 'sara_doe_496'.
            amount: Value of the certificate in dollars.
        """
        user = self._user(user_id)
        for certificate_id in NEW_CERTIFICATE_IDS:
            if certificate_id not in user["payment_methods"]:
                record = Certificate(source="certificate", id=certificate_id, amount=amount).model_dump()
                self.db["users"][user_id]["payment_methods"][certificate_id] = record
                return f"Certificate {certificate_id} added to user {user_id} with amount {amount}."
        raise ValueError("Too many certificates")

    @tool("generic")
    def transfer_to_human_agents(self, summary: str) -> str:
        """Hand the conversation to a human agent with a summary of the issue.

        Use only when the customer explicitly asks for a human, or when the request
        cannot be handled with the policy and the available tools.

        Args:
            summary: A short summary of the customer's issue.
        """
        return "Transfer successful"

    @tool("write")
    def update_reservation_baggages(
        self, reservation_id: str, total_baggages: int, nonfree_baggages: int, payment_id: str
    ) -> Model:
        """Change the checked-bag counts of a reservation, charging any extra paid bags.

        Args:
            reservation_id: The reservation id, e.g. 'ZFA04Y'.
            total_baggages: New total number of checked bags.
            nonfree_baggages: New number of bags that must be paid for.
            payment_id: Stored payment method to charge, e.g. 'credit_card_7815826' or 'gift_card_7815826'.
        """
        current = self._reservation(reservation_id)
        self._user(current["user_id"])
        price = BAG_FEE * max(0, nonfree_baggages - current["nonfree_baggages"])
        reservation = self._charge_for_update(current, reservation_id, payment_id, price)
        reservation["total_baggages"] = total_baggages
        reservation["nonfree_baggages"] = nonfree_baggages
        return Model(reservation)

    @tool("write")
    def update_reservation_flights(
        self, reservation_id: str, cabin: CabinClass, flights: list[FlightInfo | dict], payment_id: str
    ) -> Model:
        """Replace the flights (and cabin) of a reservation, charging or refunding the difference.

        Args:
            reservation_id: The reservation id, e.g. 'ZFA04Y'.
            cabin: Cabin class for the whole reservation after the change.
            flights: Every flight segment of the new itinerary, unchanged ones included, each with flight_number and date.
            payment_id: Stored payment method for the difference, e.g. 'credit_card_7815826' or 'gift_card_7815826'.
        """
        flights = _as_models(flights, FlightInfo)
        current = self._reservation(reservation_id)
        self._user(current["user_id"])
        travellers = len(current["passengers"])
        total = 0
        new_flights: list[dict[str, Any]] = []
        for info in flights:
            kept = next(
                (
                    f
                    for f in current["flights"]
                    if f["flight_number"] == info.flight_number and f["date"] == info.date and cabin == current["cabin"]
                ),
                None,
            )
            if kept is not None:
                total += kept["price"] * travellers
                new_flights.append(dict(kept))
                continue
            segment = self._new_segment(info, cabin, travellers)[0]
            total += segment["price"] * travellers
            new_flights.append(segment)
        total -= sum(f["price"] for f in current["flights"]) * travellers

        reservation = self._charge_for_update(current, reservation_id, payment_id, total)
        reservation["flights"] = new_flights
        reservation["cabin"] = cabin
        return Model(reservation)

    @tool("write")
    def update_reservation_passengers(self, reservation_id: str, passengers: list[Passenger | dict]) -> Model:
        """Replace the passenger details of a reservation (the number must stay the same).

        Args:
            reservation_id: The reservation id, e.g. 'ZFA04Y'.
            passengers: Every traveller, each with first_name, last_name and dob.
        """
        passengers = _as_models(passengers, Passenger)
        current = self._reservation(reservation_id)
        if len(passengers) != len(current["passengers"]):
            raise ValueError("Number of passengers does not match")
        reservation = self.db["reservations"][reservation_id]
        reservation["passengers"] = [
            p.model_dump() if isinstance(p, Passenger) else copy_value(p) for p in passengers
        ]
        return Model(reservation)
