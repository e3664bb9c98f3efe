"""The generated airline world: flights over May 2024, users, reservations.

Shapes follow tau2's airline DB (flights keyed by number with a per-date status map,
users with payment methods and saved passengers, reservations keyed by a 6-character
code), so the airline domain's tools run on it unchanged. The tools' fixed clock is
2024-05-15 15:00 EST: earlier dates have flown (or were cancelled), the 15th is in
progress, the 16th is scheduled, later dates are open for booking.
"""
from __future__ import annotations

import string
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any


from userbench_env.generate.common import digits
from userbench_env.generate.world_base import SeededWorld

NOW = datetime(2024, 5, 15, 15, 0, 0)
FIRST_DAY = date(2024, 5, 1)
DAYS = 30
CABINS = ("basic_economy", "economy", "business")
#: Airports we fly between (all in the domain's fixed airport list).
AIRPORTS = ("SFO", "JFK", "LAX", "ORD", "DFW", "SEA", "ATL", "BOS", "DEN", "MIA")
#: Undirected routes (each flown in both directions) and their block time in minutes.
ROUTES: tuple[tuple[str, str, int], ...] = (
    ("SFO", "SEA", 120), ("SFO", "LAX", 85), ("SFO", "DEN", 150), ("LAX", "DFW", 190),
    ("JFK", "BOS", 75), ("JFK", "MIA", 185), ("JFK", "ORD", 150), ("ORD", "DEN", 165),
    ("ATL", "MIA", 110), ("ATL", "DFW", 140), ("DEN", "SEA", 170), ("BOS", "ORD", 155),
)
#: Ids the airline tools mint for new bookings and certificates: never used by the world.
RESERVED_IDS = {"HATHAT", "HATHAU", "HATHAV", "certificate_3221322", "certificate_3221323", "certificate_3221324"}


def day(n: int) -> str:
    """The ISO date of May ``n``, 2024."""
    return date(2024, 5, n).isoformat()


def _clock(minutes: int) -> str:
    extra = "+1" if minutes >= 24 * 60 else ""
    minutes %= 24 * 60
    return f"{minutes // 60:02d}:{minutes % 60:02d}:00{extra}"


@dataclass
class AirlineWorld(SeededWorld):
    """The DB under construction plus the random sources and id registries."""

    flights: dict[str, dict[str, Any]] = field(default_factory=dict)
    users: dict[str, dict[str, Any]] = field(default_factory=dict)
    reservations: dict[str, dict[str, Any]] = field(default_factory=dict)
    taken: set[str] = field(default_factory=lambda: set(RESERVED_IDS))

    # -- flights ---------------------------------------------------------------------
    def add_flights(self) -> None:
        """One daily flight per route direction, plus a second evening one on some routes."""
        number = 100
        for a, b, minutes in ROUTES:
            legs = [(a, b), (b, a)]
            for origin, destination in legs:
                for wave in range(2 if self.rng.random() < 0.3 else 1):
                    number += self.rng.randint(1, 9)
                    depart = (6 * 60 + self.rng.randint(0, 10) * 45) if wave == 0 else self.rng.randint(17, 21) * 60
                    self._add_flight(f"MRD{number}", origin, destination, depart, minutes)

    def _add_flight(self, number: str, origin: str, destination: str, depart: int, minutes: int) -> None:
        base = {"basic_economy": self.rng.randint(45, 90), "economy": 0, "business": 0}
        base["economy"] = base["basic_economy"] + self.rng.randint(40, 120)
        base["business"] = base["economy"] * 2 + self.rng.randint(50, 250)
        dates = {}
        for offset in range(DAYS):
            when = FIRST_DAY + timedelta(days=offset)
            dates[when.isoformat()] = self._status(when, depart, minutes, base)
        self.flights[number] = {
            "flight_number": number,
            "origin": origin,
            "destination": destination,
            "scheduled_departure_time_est": _clock(depart),
            "scheduled_arrival_time_est": _clock(depart + minutes),
            "dates": dates,
        }

    def _status(self, when: date, depart: int, minutes: int, base: dict[str, int]) -> dict[str, Any]:
        start = datetime.combine(when, datetime.min.time()) + timedelta(minutes=depart)
        drift = timedelta(minutes=self.rng.randint(-20, 35))
        if when < NOW.date() or (when == NOW.date() and start + timedelta(minutes=minutes) <= NOW):
            if self.rng.random() < 0.08:
                return {"status": "cancelled"}
            return {
                "status": "landed",
                "actual_departure_time_est": (start + drift).isoformat(),
                "actual_arrival_time_est": (start + drift + timedelta(minutes=minutes + self.rng.randint(-15, 20))).isoformat(),
            }
        if when == NOW.date() and start <= NOW:
            return {
                "status": "flying",
                "actual_departure_time_est": (start + drift).isoformat(),
                "estimated_arrival_time_est": (start + drift + timedelta(minutes=minutes)).isoformat(),
            }
        if when <= NOW.date() + timedelta(days=1):
            roll = self.rng.random()
            if roll < 0.1:
                return {"status": "cancelled"}
            late = timedelta(minutes=self.rng.randint(40, 240)) if roll < 0.45 else timedelta(0)
            return {
                "status": "delayed" if late else "on time",
                "estimated_departure_time_est": (start + late).isoformat(),
                "estimated_arrival_time_est": (start + late + timedelta(minutes=minutes)).isoformat(),
            }
        swing = {c: round(p * self.rng.uniform(0.8, 1.35)) for c, p in base.items()}
        return {
            "status": "available",
            "available_seats": {
                "basic_economy": self.rng.randint(0, 18),
                "economy": self.rng.randint(4, 25),
                "business": self.rng.randint(3, 16),
            },
            "prices": swing,
        }

    def status(self, number: str, when: str) -> dict[str, Any]:
        """The status record of flight ``number`` on ``when``."""
        return self.flights[number]["dates"][when]

    def flights_between(self, origin: str, destination: str) -> list[str]:
        """Flight numbers from ``origin`` to ``destination`` (DB order)."""
        return [n for n, f in self.flights.items() if f["origin"] == origin and f["destination"] == destination]

    # -- users ---------------------------------------------------------------------
    def person(self, born_from: int = 1950, born_to: int = 2005) -> dict[str, str]:
        """A new passenger record (first name, last name, date of birth)."""
        dob = date(self.rng.randint(born_from, born_to), self.rng.randint(1, 12), self.rng.randint(1, 28))
        return {"first_name": self.fake.first_name(), "last_name": self.fake.last_name(), "dob": dob.isoformat()}

    def _method_id(self, source: str) -> str:
        return self.new_id(lambda r: f"{source}_{digits(r, 7)}")

    def add_user(self, membership: str | None = None, gift_card: bool | None = None, certificate: bool | None = None) -> dict[str, Any]:
        """A new user with 1-2 cards and, at random or as asked, a gift card and a certificate."""
        me = self.person(1948, 2003)
        user_id = self.new_id(lambda r: f"{me['first_name'].lower()}_{me['last_name'].lower()}_{digits(r, 4)}")
        methods: dict[str, dict[str, Any]] = {}
        for _ in range(self.rng.randint(1, 2)):
            pid = self._method_id("credit_card")
            methods[pid] = {
                "source": "credit_card",
                "id": pid,
                "brand": self.rng.choice(["visa", "mastercard", "amex", "discover"]),
                "last_four": digits(self.rng, 4),
            }
        if gift_card if gift_card is not None else self.rng.random() < 0.45:
            pid = self._method_id("gift_card")
            methods[pid] = {"source": "gift_card", "id": pid, "amount": float(self.rng.randint(8, 60) * 10)}
        if certificate if certificate is not None else self.rng.random() < 0.35:
            pid = self._method_id("certificate")
            methods[pid] = {"source": "certificate", "id": pid, "amount": float(self.rng.choice([100, 150, 200, 250]))}
        user = {
            "user_id": user_id,
            "name": {"first_name": me["first_name"], "last_name": me["last_name"]},
            "address": {
                "address1": self.fake.street_address(),
                "address2": self.fake.secondary_address() if self.rng.random() < 0.4 else None,
                "city": self.fake.city(),
                "country": "USA",
                "state": self.fake.state_abbr(include_territories=False),
                "zip": self.fake.zipcode(),
            },
            "email": f"{me['first_name'].lower()}.{me['last_name'].lower()}{digits(self.rng, 3)}@example.net",
            "dob": me["dob"],
            "payment_methods": methods,
            "saved_passengers": [self.person() for _ in range(self.rng.randint(0, 2))],
            "membership": membership or self.rng.choice(["regular", "regular", "silver", "gold"]),
            "reservations": [],
        }
        self.users[user_id] = user
        return user

    # -- reservations ------------------------------------------------------------------
    def add_reservation(
        self,
        user: dict[str, Any],
        legs: list[tuple[str, str]],
        cabin: str,
        passengers: int = 1,
        created_at: datetime | None = None,
        insurance: str = "no",
        total_baggages: int = 0,
        nonfree_baggages: int = 0,
        payment_id: str | None = None,
        cancelled: bool = False,
    ) -> dict[str, Any]:
        """A reservation of ``user`` on ``legs`` ((flight number, date) pairs), paid in full.

        Prices are the cabin's price that day (or a plausible past fare when the flight
        is no longer on sale); the user travels with saved or new companions. A
        cancelled reservation carries the refunds the cancellation tool would add.
        """
        flights = []
        for number, when in legs:
            flight = self.flights[number]
            record = self.status(number, when)
            price = record["prices"][cabin] if record["status"] == "available" else self.rng.randint(60, 120) * (
                1 if cabin == "basic_economy" else 2 if cabin == "economy" else 5
            )
            flights.append(
                {"origin": flight["origin"], "destination": flight["destination"], "flight_number": number, "date": when, "price": price}
            )
        me = {"first_name": user["name"]["first_name"], "last_name": user["name"]["last_name"], "dob": user["dob"]}
        companions = list(user["saved_passengers"]) + [self.person() for _ in range(passengers)]
        people = [me] + companions[: passengers - 1]
        total = sum(f["price"] for f in flights) * passengers + (30 * passengers if insurance == "yes" else 0) + 50 * nonfree_baggages
        if payment_id is None:
            cards = [pid for pid, m in user["payment_methods"].items() if m["source"] == "credit_card"]
            payment_id = self.rng.choice(cards)
        first_date = datetime.fromisoformat(legs[0][1])
        if created_at is None:
            latest = min(NOW, first_date) - timedelta(hours=30)
            created_at = latest - timedelta(minutes=self.rng.randint(0, 60 * 24 * 40))
        rid = self.new_id(lambda r: "".join(r.choice(string.ascii_uppercase + string.digits) for _ in range(6)))
        history = [{"payment_id": payment_id, "amount": total}]
        if cancelled:
            history.append({"payment_id": payment_id, "amount": -total})
        round_trip = len(flights) == 2 and flights[1]["destination"] == flights[0]["origin"]
        reservation: dict[str, Any] = {
            "reservation_id": rid,
            "user_id": user["user_id"],
            "origin": flights[0]["origin"],
            "destination": flights[0]["destination"] if round_trip else flights[-1]["destination"],
            "flight_type": "round_trip" if round_trip else "one_way",
            "cabin": cabin,
            "flights": flights,
            "passengers": people,
            "payment_history": history,
            "created_at": created_at.isoformat(),
            "total_baggages": total_baggages,
            "nonfree_baggages": nonfree_baggages,
            "insurance": insurance,
        }
        if cancelled:
            reservation["status"] = "cancelled"
        self.reservations[rid] = reservation
        user["reservations"].append(rid)
        return reservation

    def open_day(self, number: str, seats: int, cabin: str, first: int = 17) -> str:
        """A date (from May ``first``) on which ``number`` sells at least ``seats`` in ``cabin``."""
        options = [
            day(n)
            for n in range(first, DAYS + 1)
            if self.status(number, day(n))["status"] == "available"
            and self.status(number, day(n))["available_seats"][cabin] >= seats
        ]
        return self.rng.choice(options)

    def days_with(self, number: str, status: str, last: int = DAYS) -> list[str]:
        """Dates (up to May ``last``) on which flight ``number`` has ``status``."""
        return [day(n) for n in range(1, last + 1) if self.status(number, day(n))["status"] == status]

    def document(self) -> dict[str, Any]:
        """The DB document (tau2 airline ``db.json`` shape)."""
        return {"flights": self.flights, "users": self.users, "reservations": self.reservations}

    def populate(self, users: int, reservations: int) -> None:
        """Background users and reservations in every state (flown, upcoming, cancelled)."""
        for _ in range(users):
            self.add_user()
        people = list(self.users.values())
        for _ in range(reservations):
            user = self.rng.choice(people)
            a, b, _minutes = self.rng.choice(ROUTES)
            origin, destination = (a, b) if self.rng.random() < 0.5 else (b, a)
            out = self.rng.choice(self.flights_between(origin, destination))
            start = self.rng.randint(2, DAYS - 4)
            legs = [(out, day(start))]
            if self.rng.random() < 0.5:
                back = self.rng.choice(self.flights_between(destination, origin))
                legs.append((back, day(min(DAYS, start + self.rng.randint(1, 4)))))
            cabin = self.rng.choice(CABINS + ("economy",))
            pax = self.rng.choice([1, 1, 1, 2, 2, 3])
            bags = self.rng.randint(0, pax * 2)
            self.add_reservation(
                user,
                legs,
                cabin,
                passengers=pax,
                insurance="yes" if self.rng.random() < 0.3 else "no",
                total_baggages=bags,
                nonfree_baggages=max(0, bags - pax) if cabin != "business" else 0,
                cancelled=self.rng.random() < 0.12,
            )
