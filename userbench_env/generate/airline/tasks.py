"""Airline task templates: each builds its fixture in the world and returns a draft.

A template is ``template(world) -> TaskDraft`` (id and splits filled in later). It adds
the user and reservation the scenario needs to the world, so every task has a fixture
made for it, writes the blueprint (what the customer knows and wants, in our own words)
and states the gold actions a policy-following agent takes. Amounts to communicate are
derived from the world's own answers by the builder.
"""
from __future__ import annotations

import json
from datetime import timedelta
from typing import Any, Callable

from userbench_env.core.messages import ToolResult
from userbench_env.generate.airline.policy import (
    BAG_FEE,
    CANCELLED_FLIGHT_CREDIT,
    DELAYED_FLIGHT_CREDIT,
    FREE_BAGS,
    INSURANCE_FEE,
)
from userbench_env.generate.airline.world import NOW, ROUTES, AirlineWorld, day
from userbench_env.generate.draft import Derived, Fact, TaskDraft, act

Template = Callable[[AirlineWorld], TaskDraft]
REASONS_NOT_COVERED = ("your plans changed", "you found a cheaper fare elsewhere", "the meeting you were flying to was moved online")


# -- small helpers -------------------------------------------------------------------
def _who(user: dict[str, Any]) -> list[Fact]:
    full = f"{user['name']['first_name']} {user['name']['last_name']}"
    return [
        Fact(kind="name", value=full, sentence=f"Your name is {full}."),
        Fact(kind="user_id", value=user["user_id"], sentence=f"Your user id is {user['user_id']}."),
    ]


def _booking(rid: str) -> Fact:
    return Fact(kind="reservation_id", value=rid, sentence=f"Your reservation number is {rid}.")


def _holder(user: dict[str, Any], res: dict[str, Any]) -> list[Fact]:
    """Who the customer is, and the reservation ``res`` they call about."""
    return _who(user) + [_booking(res["reservation_id"])]


def _card(user: dict[str, Any]) -> dict[str, Any]:
    return next(m for m in user["payment_methods"].values() if m["source"] == "credit_card")


def _card_fact(card: dict[str, Any]) -> Fact:
    return Fact(
        kind="payment_method",
        value=card["last_four"],
        sentence=f"You want to pay with your {card['brand']} credit card ending in {card['last_four']}.",
    )


def _future_leg(w: AirlineWorld, seats: int = 1, cabin: str = "economy", first: int = 17) -> tuple[str, str]:
    a, b, _ = w.rng.choice(ROUTES)
    origin, destination = (a, b) if w.rng.random() < 0.5 else (b, a)
    number = w.rng.choice(w.flights_between(origin, destination))
    return number, w.open_day(number, seats, cabin, first)


def _return_leg(w: AirlineWorld, out: tuple[str, str], seats: int = 1, cabin: str = "economy") -> tuple[str, str]:
    flight = w.flights[out[0]]
    back = w.rng.choice(w.flights_between(flight["destination"], flight["origin"]))
    return back, w.open_day(back, seats, cabin, first=int(out[1][-2:]) + 1 if int(out[1][-2:]) < 30 else 30)


def _long_ago(w: AirlineWorld) -> Any:
    return NOW - timedelta(days=w.rng.randint(4, 25), minutes=w.rng.randint(0, 1000))


def _trip_words(w: AirlineWorld, legs: list[dict[str, Any]]) -> str:
    first = legs[0]
    text = f"from {first['origin']} to {first['destination']} on {first['date']}"
    if len(legs) == 2:
        text += f", returning on {legs[1]['date']}"
    return text


def _last_payment(results: list[ToolResult], index: int = -1) -> int:
    return int(json.loads(results[index].content)["payment_history"][-1]["amount"])


def _draft(**fields: Any) -> TaskDraft:
    return TaskDraft(id="pending", splits=[], **fields)


def _refusal(what: str) -> list[str]:
    return [f"The agent does not {what}."]


# -- cancellations --------------------------------------------------------------------
def cancel_recent(w: AirlineWorld) -> TaskDraft:
    """Booked within 24 hours: cancellable for any reason; the refund total is stated."""
    user = w.add_user()
    leg = _future_leg(w)
    res = w.add_reservation(user, [leg], w.rng.choice(["economy", "basic_economy"]), created_at=NOW - timedelta(hours=w.rng.randint(2, 20)))
    return _draft(
        reason_for_call=f"You booked a trip {_trip_words(w, res['flights'])} less than a day ago and want to cancel it.",
        unknown=["You do not remember how much you paid."],
        known=_holder(user, res),
        instructions="If the agent asks why, say your plans changed. Agree to the cancellation once the agent confirms the details, and ask how much will be refunded.",
        gold=[act("get_reservation_details", reservation_id=res["reservation_id"]), act("cancel_reservation", reservation_id=res["reservation_id"])],
        derive=lambda world, results: Derived(communicate_info=[str(res["payment_history"][0]["amount"])]),
        purpose="Cancellation allowed: booked less than 24 hours ago.",
    )


def cancel_business(w: AirlineWorld) -> TaskDraft:
    """Business cabin: cancellable whatever the reason."""
    user = w.add_user()
    out = _future_leg(w, cabin="business")
    res = w.add_reservation(user, [out, _return_leg(w, out, cabin="business")], "business", passengers=w.rng.randint(1, 2), created_at=_long_ago(w))
    reason = w.rng.choice(REASONS_NOT_COVERED)
    return _draft(
        reason_for_call=f"You want to cancel your business class round trip {_trip_words(w, res['flights'])}.",
        known=_holder(user, res),
        instructions=f"If asked for a reason, say {reason}. Confirm the cancellation when asked.",
        gold=[act("cancel_reservation", reservation_id=res["reservation_id"])],
        purpose="Cancellation allowed: business cabin.",
    )


def cancel_insured_illness(w: AirlineWorld) -> TaskDraft:
    """Insured and cancelling for illness: cancellable."""
    user = w.add_user()
    res = w.add_reservation(user, [_future_leg(w)], "economy", passengers=w.rng.randint(1, 2), created_at=_long_ago(w), insurance="yes")
    illness = w.rng.choice(["you caught pneumonia", "you sprained your ankle badly", "your father is in hospital"])
    return _draft(
        reason_for_call=f"You need to cancel your trip {_trip_words(w, res['flights'])} because {illness}.",
        known=_holder(user, res),
        instructions="You remember buying travel insurance. Explain the reason if asked and confirm the cancellation.",
        gold=[act("get_reservation_details", reservation_id=res["reservation_id"]), act("cancel_reservation", reservation_id=res["reservation_id"])],
        purpose="Cancellation allowed: insured, health reason.",
    )


def _cancelled_flight(w: AirlineWorld, last: int = 14) -> tuple[str, str]:
    options = [(n, d) for n in w.flights for d in w.days_with(n, "cancelled", last)]
    return w.rng.choice(options)


def cancel_airline_cancelled(w: AirlineWorld) -> TaskDraft:
    """A flight of the booking was cancelled by the airline: cancellable."""
    user = w.add_user(membership="regular")
    leg = _cancelled_flight(w)
    created = NOW - timedelta(days=20 + w.rng.randint(0, 5))
    res = w.add_reservation(user, [leg], "economy", created_at=created)
    return _draft(
        reason_for_call=f"Your flight {leg[0]} on {leg[1]} never took off and you want your money back for the booking.",
        known=_holder(user, res),
        unknown=["You do not know why the flight did not operate."],
        instructions="Ask for a full refund by cancelling the reservation. Confirm when the agent asks. Do not ask for any other compensation.",
        gold=[act("get_reservation_details", reservation_id=res["reservation_id"]), act("cancel_reservation", reservation_id=res["reservation_id"])],
        purpose="Cancellation allowed: the airline cancelled the flight.",
    )


def refuse_cancel_plain(w: AirlineWorld) -> TaskDraft:
    """Economy, old, no insurance, no covered reason: refuse."""
    user = w.add_user()
    res = w.add_reservation(user, [_future_leg(w)], "economy", created_at=_long_ago(w))
    reason = w.rng.choice(REASONS_NOT_COVERED)
    return _draft(
        reason_for_call=f"You want to cancel your trip {_trip_words(w, res['flights'])} and get a refund.",
        known=_holder(user, res),
        unknown=["You do not know the airline's cancellation rules."],
        instructions=f"The reason is that {reason}. You did not buy insurance. Insist once that you want the refund; if the agent still refuses, accept it and end the conversation.",
        nl_assertions=_refusal("cancel the reservation"),
        purpose="Refusal: no cancellation condition holds.",
    )


def refuse_cancel_insured_wrong_reason(w: AirlineWorld) -> TaskDraft:
    """Insured, but the reason is not covered: refuse."""
    user = w.add_user()
    res = w.add_reservation(user, [_future_leg(w)], "economy", created_at=_long_ago(w), insurance="yes")
    return _draft(
        reason_for_call=f"You want to cancel your trip {_trip_words(w, res['flights'])}; you paid for travel insurance so you expect a refund.",
        known=_holder(user, res),
        instructions="If asked why, say you simply do not feel like travelling any more. You are healthy. If the agent refuses, say you are disappointed and end the conversation.",
        nl_assertions=_refusal("cancel the reservation"),
        purpose="Refusal: insurance does not cover a change of mind.",
    )


def refuse_cancel_flown(w: AirlineWorld) -> TaskDraft:
    """The outbound has flown: nothing can be cancelled, even in business."""
    user = w.add_user()
    number = w.rng.choice(list(w.flights))
    out = (number, w.rng.choice(w.days_with(number, "landed", 13)))
    back = w.rng.choice(w.flights_between(w.flights[number]["destination"], w.flights[number]["origin"]))
    res = w.add_reservation(user, [out, (back, w.open_day(back, 1, "business"))], "business", created_at=NOW - timedelta(days=20))
    return _draft(
        reason_for_call=f"You flew out on {out[1]} and no longer need the return flight of your round trip; you want to cancel it for a refund.",
        known=_holder(user, res),
        instructions="Point out that you travel in business class. If the agent still refuses, accept and end the conversation. Do not ask to be transferred.",
        nl_assertions=_refusal("cancel the reservation"),
        purpose="Refusal: a flight of the reservation has already departed.",
    )


# -- bags, passengers, insurance -----------------------------------------------------------
def add_bags(w: AirlineWorld) -> TaskDraft:
    """Add checked bags above the allowance; the fee is stated."""
    user = w.add_user()
    cabin = w.rng.choice(["economy", "business", "basic_economy"])
    pax = w.rng.randint(1, 2)
    free = FREE_BAGS[user["membership"]][cabin] * pax
    res = w.add_reservation(user, [_future_leg(w)], cabin, passengers=pax, created_at=_long_ago(w), total_baggages=free)
    extra = w.rng.randint(1, 2)
    card = _card(user)
    return _draft(
        reason_for_call=f"You want to add {extra} checked bag{'s' if extra > 1 else ''} to your reservation.",
        known=_who(user) + [_booking(res["reservation_id"]), _card_fact(card)],
        unknown=["You do not know how many bags are free for you."],
        instructions="Ask how much it costs before agreeing. Accept the fee.",
        gold=[
            act("get_user_details", user_id=user["user_id"]),
            act("get_reservation_details", reservation_id=res["reservation_id"]),
            act(
                "update_reservation_baggages",
                reservation_id=res["reservation_id"],
                total_baggages=free + extra,
                nonfree_baggages=extra,
                payment_id=card["id"],
            ),
        ],
        communicate_info=[str(BAG_FEE * extra)],
        purpose="Bags above the membership/cabin allowance cost a fee each.",
    )


def refuse_remove_bags(w: AirlineWorld) -> TaskDraft:
    """Removing bags is not allowed."""
    user = w.add_user()
    res = w.add_reservation(user, [_future_leg(w)], "economy", created_at=_long_ago(w), total_baggages=3, nonfree_baggages=2)
    return _draft(
        reason_for_call="You booked too many checked bags and want to remove two of them and get the bag fees back.",
        known=_holder(user, res),
        instructions="If the agent says bags cannot be removed, accept and end the conversation.",
        nl_assertions=_refusal("remove bags from the reservation"),
        purpose="Refusal: bags can only be added.",
    )


def refuse_add_insurance(w: AirlineWorld) -> TaskDraft:
    """Insurance cannot be added after booking."""
    user = w.add_user()
    res = w.add_reservation(user, [_future_leg(w)], "economy", created_at=_long_ago(w))
    return _draft(
        reason_for_call="You want to add travel insurance to a reservation you already booked.",
        known=_holder(user, res),
        instructions=f"You are willing to pay the {INSURANCE_FEE} dollars. If the agent says it is not possible, end the conversation.",
        nl_assertions=_refusal("add insurance"),
        purpose="Refusal: insurance can only be bought at booking.",
    )


def _typo(name: str) -> str:
    return name[:-2] + name[-1] if len(name) > 4 else name + name[-1]


def fix_passenger_name(w: AirlineWorld) -> TaskDraft:
    """Correct a misspelled companion name (same number of passengers)."""
    user = w.add_user()
    res = w.add_reservation(user, [_future_leg(w)], "economy", passengers=2, created_at=_long_ago(w))
    friend = dict(res["passengers"][1])
    res["passengers"][1] = {**friend, "last_name": _typo(friend["last_name"])}
    return _draft(
        reason_for_call=f"The last name of your travel companion {friend['first_name']} is misspelled on your reservation.",
        known=_who(user)
        + [
            _booking(res["reservation_id"]),
            Fact(kind="name", value=f"{friend['first_name']} {friend['last_name']}", sentence=f"The correct name is {friend['first_name']} {friend['last_name']}."),
        ],
        instructions=f"Spell the last name letter by letter if asked. {friend['first_name']}'s date of birth stays {friend['dob']}.",
        gold=[
            act("get_reservation_details", reservation_id=res["reservation_id"]),
            act("update_reservation_passengers", reservation_id=res["reservation_id"], passengers=[res["passengers"][0], friend]),
        ],
        purpose="Passenger details can be corrected.",
    )


def fix_passenger_dob(w: AirlineWorld) -> TaskDraft:
    """Correct the account holder's date of birth on a reservation."""
    user = w.add_user()
    pax = w.rng.randint(1, 2)
    res = w.add_reservation(user, [_future_leg(w)], w.rng.choice(["economy", "business"]), passengers=pax, created_at=_long_ago(w))
    me = dict(res["passengers"][0])
    wrong = me["dob"][:8] + ("11" if me["dob"][8:] != "11" else "12")
    res["passengers"][0] = {**me, "dob": wrong}
    return _draft(
        reason_for_call="Your date of birth is wrong on one of your reservations and you want it corrected.",
        known=_who(user) + [_booking(res["reservation_id"]), Fact(kind="date", value=me["dob"], sentence=f"Your date of birth is {me['dob']}.")],
        instructions="Nothing else on the reservation should change.",
        gold=[act("update_reservation_passengers", reservation_id=res["reservation_id"], passengers=[me] + res["passengers"][1:])],
        purpose="Passenger details can be corrected.",
    )


# -- flight and cabin changes -----------------------------------------------------------------
def change_date(w: AirlineWorld) -> TaskDraft:
    """Move a one-way economy trip to another date on the same flight."""
    user = w.add_user()
    pax = w.rng.randint(1, 2)
    leg = _future_leg(w, seats=pax, first=17)
    res = w.add_reservation(user, [leg], "economy", passengers=pax, created_at=_long_ago(w))
    new = w.open_day(leg[0], pax, "economy", first=17)
    while new == leg[1]:
        new = w.open_day(leg[0], pax, "economy", first=17)
    card = _card(user)
    return _draft(
        reason_for_call=f"You want to move your flight {leg[0]} from {leg[1]} to {new}, same flight number.",
        known=_who(user) + [_booking(res["reservation_id"]), _card_fact(card)],
        instructions="Keep the same cabin. Accept any fare difference.",
        gold=[
            act("get_reservation_details", reservation_id=res["reservation_id"]),
            act(
                "update_reservation_flights",
                reservation_id=res["reservation_id"],
                cabin="economy",
                flights=[{"flight_number": leg[0], "date": new}],
                payment_id=card["id"],
            ),
        ],
        purpose="Economy flights can be changed; the fare difference is settled on a card.",
    )


def change_return(w: AirlineWorld) -> TaskDraft:
    """Move the return of a round trip; the outbound keeps its price."""
    user = w.add_user()
    cabin = w.rng.choice(["economy", "business"])
    out = _future_leg(w, cabin=cabin, first=17)
    back = _return_leg(w, out, cabin=cabin)
    res = w.add_reservation(user, [out, back], cabin, created_at=_long_ago(w))
    options = [d for d in (day(n) for n in range(int(out[1][-2:]) + 1, 31)) if d != back[1]
               and w.status(back[0], d)["status"] == "available" and w.status(back[0], d)["available_seats"][cabin] >= 1]
    new = w.rng.choice(options) if options else None
    if new is None:
        return change_date(w)
    card = _card(user)
    return _draft(
        reason_for_call=f"You want to change the return flight of your round trip to {new}; the outbound stays as it is.",
        known=_who(user) + [_booking(res["reservation_id"]), _card_fact(card)],
        instructions="You want the same return flight number as before, just on the new date. Accept the fare difference.",
        gold=[
            act("get_reservation_details", reservation_id=res["reservation_id"]),
            act(
                "update_reservation_flights",
                reservation_id=res["reservation_id"],
                cabin=cabin,
                flights=[{"flight_number": out[0], "date": out[1]}, {"flight_number": back[0], "date": new}],
                payment_id=card["id"],
            ),
        ],
        purpose="Changing one flight of a round trip; kept flights keep their price.",
    )


def upgrade_cabin(w: AirlineWorld) -> TaskDraft:
    """Economy to business on every flight; the amount to pay is stated."""
    user = w.add_user(gift_card=w.rng.random() < 0.5)
    pax = w.rng.randint(1, 2)
    leg = _future_leg(w, seats=pax, cabin="business")
    res = w.add_reservation(user, [leg], "economy", passengers=pax, created_at=_long_ago(w))
    diff = (w.status(*leg)["prices"]["business"] - res["flights"][0]["price"]) * pax
    gift = next((m for m in user["payment_methods"].values() if m["source"] == "gift_card" and m["amount"] >= diff), None)
    method = gift or _card(user)
    pay_fact = (
        Fact(kind="payment_method", value=gift["id"], sentence=f"You want to use your gift card {gift['id']}.")
        if gift
        else _card_fact(method)
    )
    return _draft(
        reason_for_call="You want to upgrade your reservation from economy to business class.",
        known=_who(user) + [_booking(res["reservation_id"]), pay_fact],
        unknown=["You do not know the business class fare."],
        instructions="Ask what the upgrade will cost in total and accept it.",
        gold=[
            act("get_reservation_details", reservation_id=res["reservation_id"]),
            act(
                "update_reservation_flights",
                reservation_id=res["reservation_id"],
                cabin="business",
                flights=[{"flight_number": leg[0], "date": leg[1]}],
                payment_id=method["id"],
            ),
        ],
        derive=lambda world, results: Derived(communicate_info=[str(_last_payment(results))]),
        purpose="Cabin change for all flights, paid with a gift card or credit card.",
    )


def refuse_basic_change(w: AirlineWorld) -> TaskDraft:
    """Basic economy flights cannot be changed."""
    user = w.add_user()
    leg = _future_leg(w, cabin="basic_economy")
    res = w.add_reservation(user, [leg], "basic_economy", created_at=_long_ago(w))
    return _draft(
        reason_for_call=f"You want to move your flight {leg[0]} on {leg[1]} one day later.",
        known=_holder(user, res),
        instructions="You do not want to change cabin. If the change is refused, end the conversation.",
        nl_assertions=_refusal("change the flights"),
        purpose="Refusal: basic economy flights cannot be changed.",
    )


# -- bookings -----------------------------------------------------------------------------------
def _book(w: AirlineWorld, round_trip: bool, certificate: bool) -> TaskDraft:
    user = w.add_user(certificate=certificate, gift_card=False)
    cabin = w.rng.choice(["economy", "business", "basic_economy"])
    companions = user["saved_passengers"][:1]
    pax = 1 + len(companions)
    out = _future_leg(w, seats=pax, cabin=cabin, first=18)
    legs = [out] + ([_return_leg(w, out, seats=pax, cabin=cabin)] if round_trip else [])
    insurance = w.rng.choice(["yes", "no"])
    bags = w.rng.randint(0, 2) + FREE_BAGS[user["membership"]][cabin] * pax
    nonfree = max(0, bags - FREE_BAGS[user["membership"]][cabin] * pax)
    total = sum(w.status(*leg)["prices"][cabin] for leg in legs) * pax + (INSURANCE_FEE * pax if insurance == "yes" else 0) + BAG_FEE * nonfree
    card = _card(user)
    payments = [{"payment_id": card["id"], "amount": total}]
    facts = _who(user)
    if certificate:
        cert = next(m for m in user["payment_methods"].values() if m["source"] == "certificate")
        used = min(int(cert["amount"]), total)
        payments = [{"payment_id": cert["id"], "amount": used}] + ([{"payment_id": card["id"], "amount": total - used}] if total > used else [])
        facts.append(Fact(kind="payment_method", value=cert["id"], sentence=f"You want to use your travel certificate {cert['id']} first and pay the rest with your credit card ending in {card['last_four']}."))
    else:
        facts.append(_card_fact(card))
    origin, destination = w.flights[out[0]]["origin"], w.flights[out[0]]["destination"]
    people = [{"first_name": user["name"]["first_name"], "last_name": user["name"]["last_name"], "dob": user["dob"]}] + companions
    trip = f"from {origin} to {destination} on {out[1]}" + (f", coming back on {legs[1][1]}" if round_trip else "")
    facts.append(Fact(kind="date", value=out[1], sentence=f"You want to fly {trip}."))
    facts.append(Fact(kind="date", value=user["dob"], sentence=f"Your date of birth is {user['dob']}."))
    if companions:
        c = companions[0]
        facts.append(Fact(kind="name", value=f"{c['first_name']} {c['last_name']}", sentence=f"{c['first_name']} {c['last_name']} (saved in your profile) travels with you."))
    gold = [act("search_direct_flight", origin=origin, destination=destination, date=out[1])]
    if round_trip:
        gold.append(act("search_direct_flight", origin=destination, destination=origin, date=legs[1][1]))
    gold.append(
        act(
            "book_reservation",
            user_id=user["user_id"],
            origin=origin,
            destination=destination,
            flight_type="round_trip" if round_trip else "one_way",
            cabin=cabin,
            flights=[{"flight_number": n, "date": d} for n, d in legs],
            passengers=people,
            payment_methods=payments,
            total_baggages=bags,
            nonfree_baggages=nonfree,
            insurance=insurance,
        )
    )
    cabin_words = cabin.replace("_", " ")
    return _draft(
        reason_for_call=f"You want to book a {'round trip' if round_trip else 'one-way trip'} in {cabin_words}.",
        known=facts,
        unknown=["You do not know the flight numbers or the fares."],
        instructions=(
            f"If several flights are offered, take the one leaving at {w.flights[out[0]]['scheduled_departure_time_est'][:5]}"
            + (f" out and the one leaving at {w.flights[legs[1][0]]['scheduled_departure_time_est'][:5]} back" if round_trip else "")
            + f". You want {bags} checked bag{'s' if bags != 1 else ''} in total"
            + (" and travel insurance." if insurance == "yes" else " and no travel insurance.")
            + " Ask for the total price before confirming, then confirm."
        ),
        gold=gold,
        communicate_info=[str(total)],
        purpose="Booking with fare, insurance and bag fees; payment split rules.",
    )


def book_one_way(w: AirlineWorld) -> TaskDraft:
    """One-way booking paid by credit card."""
    return _book(w, round_trip=False, certificate=False)


def book_round_trip(w: AirlineWorld) -> TaskDraft:
    """Round-trip booking paid by credit card."""
    return _book(w, round_trip=True, certificate=False)


def book_with_certificate(w: AirlineWorld) -> TaskDraft:
    """Booking paid with a certificate plus a card for the remainder."""
    return _book(w, round_trip=w.rng.random() < 0.5, certificate=True)


# -- look-ups and compensation ----------------------------------------------------------------
def flight_status(w: AirlineWorld) -> TaskDraft:
    """Ask for the status of a flight today or tomorrow; the status word is stated."""
    options = [(n, d) for n in w.flights for d in (day(15), day(16)) if w.status(n, d)["status"] != "available"]
    number, when = w.rng.choice(options)
    user = w.add_user()
    return _draft(
        reason_for_call=f"You are picking someone up from flight {number} on {when} and want to know its status.",
        known=_who(user) + [Fact(kind="other", value=number, sentence=f"The flight number is {number}.")],
        instructions="You only want the status of the flight. Do not book anything.",
        gold=[act("get_flight_status", flight_number=number, date=when)],
        derive=lambda world, results: Derived(communicate_info=[results[0].content]),
        purpose="Look-up: the agent states the flight status.",
    )


def gift_card_balance(w: AirlineWorld) -> TaskDraft:
    """Ask for the balance of gift cards and certificates; the gift card balance is stated."""
    user = w.add_user(gift_card=True)
    gift = next(m for m in user["payment_methods"].values() if m["source"] == "gift_card")
    return _draft(
        reason_for_call="You want to know how much is left on your Meridian Air gift card.",
        known=_who(user),
        unknown=["You do not know the gift card number."],
        instructions="You do not remember the gift card number. You do not want to book anything today.",
        gold=[act("get_user_details", user_id=user["user_id"])],
        derive=lambda world, results: Derived(communicate_info=[str(int(gift["amount"]))]),
        purpose="Look-up: the agent states the gift card balance.",
    )


def reservation_total(w: AirlineWorld) -> TaskDraft:
    """Ask what a reservation cost in total; the amount is stated."""
    user = w.add_user()
    res = w.add_reservation(user, [_future_leg(w)], w.rng.choice(["economy", "business"]), passengers=w.rng.randint(1, 3), created_at=_long_ago(w), insurance=w.rng.choice(["yes", "no"]))
    return _draft(
        reason_for_call="You need the total amount you paid for one of your reservations for an expense report.",
        known=_holder(user, res),
        instructions="You only want the amount; do not change anything.",
        gold=[act("get_reservation_details", reservation_id=res["reservation_id"])],
        derive=lambda world, results: Derived(communicate_info=[str(sum(p["amount"] for p in res["payment_history"]))]),
        purpose="Look-up: the agent states the amount paid.",
    )


def compensation_cancelled(w: AirlineWorld) -> TaskDraft:
    """Eligible member complains about a cancelled flight: certificate of 100 per passenger."""
    user = w.add_user(membership=w.rng.choice(["silver", "gold"]))
    leg = _cancelled_flight(w)
    pax = w.rng.randint(1, 2)
    res = w.add_reservation(user, [leg], "economy", passengers=pax, created_at=NOW - timedelta(days=25))
    return _draft(
        reason_for_call=f"Your flight {leg[0]} on {leg[1]} was cancelled and you had to find another way to travel. You are unhappy and want to know what the airline will do about it.",
        known=_holder(user, res),
        instructions="You do not want a refund of the booking or any change, only a gesture for the trouble. Accept what the agent offers.",
        gold=[
            act("get_reservation_details", reservation_id=res["reservation_id"]),
            act("send_certificate", user_id=user["user_id"], amount=CANCELLED_FLIGHT_CREDIT * pax),
        ],
        communicate_info=[str(CANCELLED_FLIGHT_CREDIT * pax)],
        purpose="Compensation: eligible member, cancelled flight.",
    )


def compensation_delayed(w: AirlineWorld) -> TaskDraft:
    """Business traveller complains about a delayed flight: certificate of 50 per passenger."""
    options = [(n, d) for n in w.flights for d in (day(15), day(16)) if w.status(n, d)["status"] == "delayed"]
    leg = w.rng.choice(options)
    user = w.add_user(membership="regular")
    pax = w.rng.randint(1, 2)
    res = w.add_reservation(user, [leg], "business", passengers=pax, created_at=NOW - timedelta(days=9))
    return _draft(
        reason_for_call=f"Your flight {leg[0]} on {leg[1]} is delayed and you are upset about it.",
        known=_holder(user, res),
        instructions="You still want to take the flight; do not change or cancel anything. Ask whether you get anything for the delay and accept what is offered.",
        gold=[
            act("get_reservation_details", reservation_id=res["reservation_id"]),
            act("get_flight_status", flight_number=leg[0], date=leg[1]),
            act("send_certificate", user_id=user["user_id"], amount=DELAYED_FLIGHT_CREDIT * pax),
        ],
        communicate_info=[str(DELAYED_FLIGHT_CREDIT * pax)],
        purpose="Compensation: business cabin, delayed flight.",
    )


def refuse_compensation(w: AirlineWorld) -> TaskDraft:
    """Regular member in economy without insurance: no compensation."""
    user = w.add_user(membership="regular")
    leg = _cancelled_flight(w)
    res = w.add_reservation(user, [leg], "economy", created_at=NOW - timedelta(days=22))
    return _draft(
        reason_for_call=f"Your flight {leg[0]} on {leg[1]} was cancelled and you want compensation for the inconvenience.",
        known=_holder(user, res),
        instructions="You already travelled by train and do not want to cancel the booking. If the agent says you are not eligible, complain briefly and end the conversation.",
        nl_assertions=_refusal("issue a certificate"),
        purpose="Refusal: not eligible for compensation.",
    )


# -- two requests in one call ---------------------------------------------------------------------
def cancel_and_add_bag(w: AirlineWorld) -> TaskDraft:
    """Cancel an eligible business trip and add a bag to another reservation."""
    user = w.add_user(membership="regular")
    trip = w.add_reservation(user, [_future_leg(w, cabin="business")], "business", created_at=_long_ago(w))
    other = w.add_reservation(user, [_future_leg(w)], "economy", created_at=_long_ago(w), total_baggages=1)
    card = _card(user)
    return _draft(
        reason_for_call="You have two requests: cancel one business class trip, and add one checked bag to another reservation.",
        known=_who(user)
        + [
            Fact(kind="reservation_id", value=trip["reservation_id"], sentence=f"The trip to cancel is {trip['reservation_id']}."),
            Fact(kind="reservation_id", value=other["reservation_id"], sentence=f"The bag goes on reservation {other['reservation_id']}."),
            _card_fact(card),
        ],
        instructions="Start with the cancellation. If asked for a reason, say your plans changed. Accept the bag fee.",
        gold=[
            act("cancel_reservation", reservation_id=trip["reservation_id"]),
            act("update_reservation_baggages", reservation_id=other["reservation_id"], total_baggages=2, nonfree_baggages=1, payment_id=card["id"]),
        ],
        communicate_info=[str(BAG_FEE)],
        purpose="Two requests: business cancellation and a paid bag.",
    )


#: Template -> how many tasks of it the generator makes.
TEMPLATES: tuple[tuple[Template, int], ...] = (
    (cancel_recent, 2),
    (cancel_business, 2),
    (cancel_insured_illness, 2),
    (cancel_airline_cancelled, 2),
    (refuse_cancel_plain, 2),
    (refuse_cancel_insured_wrong_reason, 1),
    (refuse_cancel_flown, 2),
    (add_bags, 3),
    (refuse_remove_bags, 1),
    (refuse_add_insurance, 1),
    (fix_passenger_name, 2),
    (fix_passenger_dob, 1),
    (change_date, 2),
    (change_return, 2),
    (upgrade_cabin, 2),
    (refuse_basic_change, 2),
    (book_one_way, 2),
    (book_round_trip, 2),
    (book_with_certificate, 2),
    (flight_status, 2),
    (gift_card_balance, 1),
    (reservation_total, 1),
    (compensation_cancelled, 2),
    (compensation_delayed, 1),
    (refuse_compensation, 2),
    (cancel_and_add_bag, 2),
)
