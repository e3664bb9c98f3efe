"""Record shapes of the airline DB and of the airline tools' structured arguments.

These pydantic models mirror tau2-bench's airline schema field for field and in the
same declaration order (which is the printed order of tool outputs). They are used at
two boundaries only: once when the DB file is loaded (to materialise defaults and
float amounts, as tau2's validated dump does) and when a tool builds a new record
from its arguments (so coercions and rejections match tau2's). Tool code otherwise
works on plain dicts.
"""
from __future__ import annotations

from typing import Annotated, Literal, Union

from pydantic import BaseModel, Field

FlightType = Literal["round_trip", "one_way"]
CabinClass = Literal["business", "economy", "basic_economy"]
Insurance = Literal["yes", "no"]
Membership = Literal["gold", "silver", "regular"]


class FlightInfo(BaseModel):
    """One flight segment requested by the agent: flight number and date."""

    flight_number: str
    date: str


class Passenger(BaseModel):
    """A traveller: first name, last name, date of birth (YYYY-MM-DD)."""

    first_name: str
    last_name: str
    dob: str


class Payment(BaseModel):
    """One payment (or refund, when negative) of a reservation, in whole dollars."""

    payment_id: str
    amount: int


class Name(BaseModel):
    """A user's name."""

    first_name: str
    last_name: str


class Address(BaseModel):
    """A user's postal address; ``address2`` is optional."""

    address1: str
    address2: str | None = None
    city: str
    country: str
    state: str
    zip: str


class CreditCard(BaseModel):
    """A stored credit card (no balance)."""

    source: Literal["credit_card"]
    id: str
    brand: str
    last_four: str


class GiftCard(BaseModel):
    """A stored gift card with its remaining balance."""

    source: Literal["gift_card"]
    id: str
    amount: float


class Certificate(BaseModel):
    """A travel certificate; consumed whole when used for a booking."""

    source: Literal["certificate"]
    id: str
    amount: float


PaymentMethod = Annotated[Union[CreditCard, GiftCard, Certificate], Field(discriminator="source")]


class User(BaseModel):
    """A customer profile."""

    user_id: str
    name: Name
    address: Address
    email: str
    dob: str
    payment_methods: dict[str, PaymentMethod]
    saved_passengers: list[Passenger]
    membership: Membership
    reservations: list[str]


class FlightDateAvailable(BaseModel):
    """A flight date still open for booking, with seats and prices per cabin."""

    status: Literal["available"]
    available_seats: dict[CabinClass, int]
    prices: dict[CabinClass, int]


class FlightDateLanded(BaseModel):
    """A flight date in the past: actual times."""

    status: Literal["landed"]
    actual_departure_time_est: str
    actual_arrival_time_est: str


class FlightDateCancelled(BaseModel):
    """A cancelled flight date."""

    status: Literal["cancelled"]


class FlightDateDelayed(BaseModel):
    """A delayed flight date: estimated times."""

    status: Literal["delayed"]
    estimated_departure_time_est: str
    estimated_arrival_time_est: str


class FlightDateFlying(BaseModel):
    """A flight in the air: actual departure, estimated arrival."""

    status: Literal["flying"]
    actual_departure_time_est: str
    estimated_arrival_time_est: str


class FlightDateOnTime(BaseModel):
    """A flight date expected on time: estimated times."""

    status: Literal["on time"]
    estimated_departure_time_est: str
    estimated_arrival_time_est: str


FlightDate = Annotated[
    Union[
        FlightDateAvailable,
        FlightDateLanded,
        FlightDateCancelled,
        FlightDateDelayed,
        FlightDateFlying,
        FlightDateOnTime,
    ],
    Field(discriminator="status"),
]


class Flight(BaseModel):
    """A scheduled flight and its status on each date it operates."""

    flight_number: str
    origin: str
    destination: str
    scheduled_departure_time_est: str
    scheduled_arrival_time_est: str
    dates: dict[str, FlightDate]


class ReservationFlight(BaseModel):
    """A flight segment of a reservation with the price paid per passenger."""

    flight_number: str
    origin: str
    destination: str
    date: str
    price: int


class Reservation(BaseModel):
    """A booking; ``status`` is ``None`` or ``"cancelled"``."""

    reservation_id: str
    user_id: str
    origin: str
    destination: str
    flight_type: FlightType
    cabin: CabinClass
    flights: list[ReservationFlight]
    passengers: list[Passenger]
    payment_history: list[Payment]
    created_at: str
    total_baggages: int
    nonfree_baggages: int
    insurance: Insurance
    status: Literal["cancelled"] | None = None


class FlightDB(BaseModel):
    """The whole airline DB: flights, users and reservations keyed by their ids."""

    flights: dict[str, Flight]
    users: dict[str, User]
    reservations: dict[str, Reservation]


#: The record model of each table, for re-validating records patched by initial data.
TABLE_MODELS: dict[str, type[BaseModel]] = {
    "flights": Flight,
    "users": User,
    "reservations": Reservation,
}
