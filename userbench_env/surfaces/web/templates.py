"""Our page templates: a shop, a booking table and a sign-up form, filled from data.

Every template lists the :class:`PageItem` s as ``.item[data-id]`` elements (the id is
never shown), keeps the chosen ones in ``#cart-items li[data-id]`` (what the ``dom``
output reads) and in ``window.__state`` (``cart``, ``submitted``; the ``js`` output),
caps the cart at ``cap`` and ends with a submit button and a confirmation. Labels are
never in the page: they stay in the task's hidden answer key. Layouts differ on
purpose: the shop has one "Add to basket" button per card, the booking table a "Book"
button and a "Details" toggle per row, the sign-up form a checkbox per session plus a
name field and a dropdown that must be filled before submitting.
"""
from __future__ import annotations

from html import escape

from userbench_env.surfaces.web.spec import PageItem, PageSpec

_BASE_CSS = """
*{box-sizing:border-box} body{margin:0;font:15px/1.45 "DejaVu Sans",Arial,sans-serif;color:#1f2430;background:#f5f3ee}
header{background:#1f2430;color:#fff;padding:16px 28px} header h1{margin:0;font-size:24px} header p{margin:4px 0 0;color:#cfd3dc}
.page{max-width:1180px;margin:0 auto;padding:24px 28px;display:grid;grid-template-columns:1fr 320px;gap:24px;align-items:start}
aside{background:#fff;border:1px solid #ddd8cc;border-radius:10px;padding:18px;position:sticky;top:12px}
aside h2{margin:0 0 6px;font-size:19px} #cart-items{list-style:none;margin:8px 0;padding:0}
#cart-items li{display:flex;justify-content:space-between;gap:8px;padding:7px 0;border-bottom:1px dotted #ccc}
button{font:600 14px "DejaVu Sans",Arial,sans-serif;border-radius:6px;border:1px solid #1f2430;background:#1f2430;color:#fff;padding:8px 14px;cursor:pointer}
button:disabled{background:#ccc;border-color:#ccc;color:#777;cursor:not-allowed} button.on{background:#fff;color:#1f2430}
#submit{width:100%;margin-top:10px;padding:12px} .done{background:#e5f2e0;border:1px solid #9c9;padding:10px;border-radius:6px;margin-top:10px}
.detail{color:#5d6170;font-size:13px} .price{font-weight:700}
"""

_TEMPLATE_CSS = {
    "shop": "#list{display:grid;grid-template-columns:repeat(3,1fr);gap:14px} .item{background:#fff;border-radius:10px;"
            "padding:14px;border:1px solid #ddd8cc;display:flex;flex-direction:column;gap:8px} .name{font-weight:700}",
    "booking": "table{width:100%;border-collapse:collapse;background:#fff} td,th{padding:10px;border-bottom:1px solid #e3dfd5;"
               "text-align:left;vertical-align:top} .more td{background:#faf8f3;color:#5d6170}",
    "signup": "fieldset{border:1px solid #ddd8cc;border-radius:10px;background:#fff;padding:14px 18px;margin:0 0 16px}"
              " .item{display:flex;gap:10px;padding:8px 0;border-bottom:1px dotted #ddd} .fields label{display:flex;"
              "flex-direction:column;gap:4px;margin:10px 0;font-weight:600} input[type=text],select{font:15px sans-serif;padding:8px}",
}

_CART_JS = """
(function () {
  var CAP = %(cap)d, state = {cart: [], submitted: false}, names = {};
  window.__state = state; window.__completed = false;
  document.querySelectorAll('.item').forEach(function (el) { names[el.getAttribute('data-id')] = el.querySelector('.name').textContent; });
  var list = document.getElementById('cart-items'), note = document.getElementById('cap-note');
  function has(id) { return state.cart.indexOf(id) !== -1; }
  function ready() { var f = document.getElementById('fullname'); return !f || f.value.trim() !== ''; }
  function toggle(id) {
    if (state.submitted) return;
    if (has(id)) { state.cart.splice(state.cart.indexOf(id), 1); }
    else if (state.cart.length >= CAP) { note.textContent = 'You already have ' + CAP + '. Remove one to swap it.'; render(); return; }
    else { state.cart.push(id); }
    note.textContent = ''; render();
  }
  function render() {
    list.innerHTML = '';
    state.cart.forEach(function (id) {
      var li = document.createElement('li'), s = document.createElement('span');
      li.setAttribute('data-id', id); s.textContent = names[id]; li.appendChild(s);
      if (!state.submitted) {
        var b = document.createElement('button'); b.type = 'button'; b.textContent = 'Remove';
        b.addEventListener('click', function () { toggle(id); }); li.appendChild(b);
      }
      list.appendChild(li);
    });
    document.getElementById('count').textContent = state.cart.length + ' of ' + CAP + ' chosen';
    document.getElementById('submit').disabled = state.submitted || state.cart.length !== CAP || !ready();
    document.querySelectorAll('.item').forEach(function (el) {
      var id = el.getAttribute('data-id'), pick = el.querySelector('.pick'), on = has(id);
      if (pick.type === 'checkbox') { pick.checked = on; pick.disabled = state.submitted; }
      else { pick.textContent = on ? pick.getAttribute('data-on') : pick.getAttribute('data-off'); pick.classList.toggle('on', on);
             pick.disabled = state.submitted || (!on && state.cart.length >= CAP); }
    });
  }
  document.querySelectorAll('.item').forEach(function (el) {
    var id = el.getAttribute('data-id'), pick = el.querySelector('.pick');
    pick.addEventListener(pick.type === 'checkbox' ? 'change' : 'click', function () { toggle(id); });
  });
  document.querySelectorAll('.toggle-more').forEach(function (b) {
    b.addEventListener('click', function () { var row = document.getElementById(b.getAttribute('aria-controls')); row.hidden = !row.hidden;
      b.setAttribute('aria-expanded', String(!row.hidden)); });
  });
  var f = document.getElementById('fullname'); if (f) f.addEventListener('input', render);
  document.getElementById('submit').addEventListener('click', function () {
    if (state.cart.length !== CAP || !ready()) return;
    state.submitted = true; window.__completed = true;
    document.getElementById('confirmation').hidden = false; render();
  });
  render();
})();
"""


def _shop(items: list[PageItem], spec: PageSpec) -> str:
    cards = "".join(
        f'<div class="item" data-id="{escape(i.id)}"><div class="name">{escape(i.name)}</div>'
        f'<div class="detail">{escape(i.detail)}</div><div class="price">{escape(i.price)}</div>'
        f'<button type="button" class="pick" data-on="In basket" data-off="Add to basket">Add to basket</button></div>'
        for i in items)
    return f'<section><h2>{escape(spec.heading)}</h2><p>{escape(spec.intro)}</p><div id="list">{cards}</div></section>'


def _booking(items: list[PageItem], spec: PageSpec) -> str:
    rows = "".join(
        f'<tr class="item" data-id="{escape(i.id)}"><td class="name">{escape(i.name)}</td><td>{escape(i.price)}</td>'
        f'<td><button type="button" class="toggle-more" aria-expanded="false" aria-controls="more-{n}">Details</button> '
        f'<button type="button" class="pick" data-on="Booked" data-off="Book">Book</button></td></tr>'
        f'<tr class="more" id="more-{n}" hidden><td colspan="3">{escape(i.detail)}</td></tr>'
        for n, i in enumerate(items, 1))
    return (f'<section><h2>{escape(spec.heading)}</h2><p>{escape(spec.intro)}</p><table><thead><tr><th>{escape(spec.noun.title())}'
            f'</th><th>Price</th><th></th></tr></thead><tbody>{rows}</tbody></table></section>')


def _signup(items: list[PageItem], spec: PageSpec) -> str:
    rows = "".join(
        f'<label class="item" data-id="{escape(i.id)}"><input type="checkbox" class="pick">'
        f'<span><span class="name">{escape(i.name)}</span><br><span class="detail">{escape(i.detail)} · {escape(i.price)}</span></span></label>'
        for i in items)
    return (f'<section><h2>{escape(spec.heading)}</h2><p>{escape(spec.intro)}</p><form onsubmit="return false">'
            f'<fieldset><legend>Choose {spec.cap}</legend>{rows}</fieldset>'
            '<fieldset class="fields"><legend>Your details</legend><label>Full name<input type="text" id="fullname" '
            'placeholder="Your name" autocomplete="off"></label><label>How should we remind you?<select id="remind">'
            '<option>Email</option><option>Text message</option><option>No reminders</option></select></label></fieldset></form></section>')


_BODIES = {"shop": _shop, "booking": _booking, "signup": _signup}


def render_page(spec: PageSpec) -> str:
    """The full HTML page for ``spec`` (deterministic)."""
    body = _BODIES[spec.template](spec.items, spec)
    cart_title = {"shop": "Your basket", "booking": "Your bookings", "signup": "Your sign-up"}[spec.template]
    return (
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{escape(spec.venue)}</title>'
        f"<style>{_BASE_CSS}{_TEMPLATE_CSS[spec.template]}</style></head><body>"
        f"<header><h1>{escape(spec.venue)}</h1><p>Choose {spec.cap} {escape(spec.noun)}s</p></header>"
        f'<div class="page"><main>{body}</main><aside><h2>{cart_title}</h2><div id="count"></div>'
        f'<ul id="cart-items"></ul><p id="cap-note" class="detail"></p>'
        f'<button type="button" id="submit" disabled>{escape(spec.submit)}</button>'
        f'<div class="done" id="confirmation" hidden>{escape(spec.confirmation)}</div></aside></div>'
        f"<script>{_CART_JS % {'cap': spec.cap}}</script></body></html>"
    )
