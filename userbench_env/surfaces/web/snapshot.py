"""The page as text: visible content in reading order, every usable control numbered.

One script runs in the page (:data:`SNAPSHOT_JS`): it walks the visible DOM (elements
hidden by ``hidden``, ``aria-hidden``, ``display``, ``visibility`` or zero opacity are
skipped with their subtree), turns block elements into lines (``#`` for headings,
``- `` for list items; table cells and inline blocks are spaced apart; a label
wrapping its control becomes the control's label) and every interactive element into a control: kind (button,
link, textbox, checkbox, radio, dropdown or its ARIA role), label (aria-label,
aria-labelledby, ``<label>``, visible text, placeholder, title, nearby text), item
context for labels that repeat (the enclosing item's own text), state (disabled,
checked, value, selected option) and its viewport box. The elements are kept on a
hidden page property so actions can address them by number. Ids, classes, comments
and ``data-*`` attributes are never read into the text.
"""
from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

#: the page-side property holding the numbered elements of the latest snapshot
REFS_PROP = "__userbenchRefs"

SNAPSHOT_JS = r"""
() => {
  const BLOCK = /^(block|flex|grid|list-item|table|table-row|table-caption|flow-root)$/;
  const SPACED = /^(table-cell|inline-block|inline-flex|inline-grid)$/;
  const SKIP = new Set(['SCRIPT','STYLE','NOSCRIPT','TEMPLATE','SVG','HEAD','META','LINK','IFRAME','CANVAS','OBJECT','EMBED','VIDEO','AUDIO','MAP']);
  const ROLES = new Set(['button','link','checkbox','radio','tab','menuitem','menuitemcheckbox','menuitemradio','option','switch','combobox','textbox','searchbox','slider','spinbutton','treeitem']);
  const clean = s => (s || '').replace(/\s+/g, ' ').trim();
  const refs = [], controls = [], lines = [];
  let cur = '', prefix = '';
  const flush = () => { const t = clean(cur); if (t) lines.push(prefix + t); cur = ''; prefix = ''; };
  const kindOf = el => {
    const tag = el.tagName.toUpperCase(), role = (el.getAttribute('role') || '').toLowerCase();
    if (ROLES.has(role)) return role === 'combobox' ? 'dropdown' : (role === 'searchbox' ? 'textbox' : role);
    if (tag === 'BUTTON') return 'button';
    if (tag === 'A' && el.hasAttribute('href')) return 'link';
    if (tag === 'SELECT') return 'dropdown';
    if (tag === 'TEXTAREA') return 'textbox';
    if (tag === 'INPUT') {
      const t = (el.getAttribute('type') || 'text').toLowerCase();
      if (t === 'hidden') return null;
      if (t === 'checkbox' || t === 'radio') return t;
      if (['button', 'submit', 'reset', 'image'].includes(t)) return 'button';
      if (t === 'range') return 'slider';
      return 'textbox';
    }
    if (el.isContentEditable && el.hasAttribute('contenteditable')) return 'textbox';
    return null;
  };
  const isControl = n => n.nodeType === 1 && kindOf(n) !== null;
  const ownText = (node, skip) => {
    let out = '';
    for (const c of node.childNodes) {
      if (c.nodeType === 3) out += ' ' + c.textContent;
      else if (c.nodeType === 1 && c !== skip && !isControl(c) && !SKIP.has(c.tagName.toUpperCase())) out += ' ' + ownText(c, skip);
    }
    return out;
  };
  const labelOf = (el, kind) => {
    let l = clean(el.getAttribute('aria-label'));
    if (l) return l;
    const by = el.getAttribute('aria-labelledby');
    if (by) {
      l = clean(by.split(/\s+/).map(id => { const n = document.getElementById(id); return n ? n.textContent : ''; }).join(' '));
      if (l) return l;
    }
    if (el.labels && el.labels.length) {
      l = clean(Array.from(el.labels).map(x => ownText(x, el)).join(' '));
      if (l) return l;
    }
    if (kind !== 'textbox' && kind !== 'dropdown' && el.tagName.toUpperCase() !== 'INPUT') {
      l = clean(el.innerText || el.textContent);
      if (l) return l.slice(0, 120);
    }
    if (el.tagName.toUpperCase() === 'INPUT' && ['button', 'submit', 'reset'].includes((el.type || '').toLowerCase())) {
      l = clean(el.value);
      if (l) return l;
    }
    l = clean(el.getAttribute('placeholder')) || clean(el.getAttribute('title')) || clean(el.getAttribute('alt'));
    if (l) return l;
    const prev = el.previousElementSibling;
    return prev ? clean(prev.innerText).slice(0, 80) : '';
  };
  const stateOf = (el, kind) => {
    const s = [];
    if (el.disabled || el.getAttribute('aria-disabled') === 'true') s.push('disabled');
    if (kind === 'checkbox' || kind === 'radio' || kind === 'switch' || kind === 'menuitemcheckbox' || kind === 'menuitemradio') {
      const on = el.tagName.toUpperCase() === 'INPUT' ? el.checked : el.getAttribute('aria-checked') === 'true';
      s.push(on ? 'checked' : 'not checked');
    }
    if (kind === 'textbox') s.push(el.isContentEditable ? 'value: "' + clean(el.innerText) + '"' : (el.value ? 'value: "' + el.value + '"' : 'empty'));
    if (kind === 'dropdown' && el.tagName.toUpperCase() === 'SELECT') {
      const sel = Array.from(el.selectedOptions).map(o => clean(o.text));
      s.push('selected: ' + (sel.length ? sel.join(', ') : 'none'));
      s.push('options: ' + Array.from(el.options).map(o => clean(o.text)).join(' | '));
    }
    if (kind === 'slider' && el.value !== undefined) s.push('value: ' + el.value);
    for (const a of ['selected', 'pressed', 'expanded', 'current']) {
      const v = el.getAttribute('aria-' + a);
      if (v && v !== 'false') s.push(a);
    }
    return s;
  };
  const shown = (el, st) => !(el.hidden || el.getAttribute('aria-hidden') === 'true' || st.display === 'none'
                             || st.visibility === 'hidden' || st.visibility === 'collapse' || st.opacity === '0');
  const addControl = (el, kind) => {
    refs.push(el);
    const r = el.getBoundingClientRect();
    controls.push({ref: refs.length, kind, label: labelOf(el, kind), context: '', state: stateOf(el, kind),
                   box: [r.x, r.y, r.width, r.height]});
    lines.push({ref: refs.length});
  };
  const walk = node => {
    if (node.nodeType === 3) { cur += node.textContent; return; }
    if (node.nodeType !== 1) return;
    const el = node, tag = el.tagName.toUpperCase();
    if (SKIP.has(tag)) return;
    const st = getComputedStyle(el);
    if (!shown(el, st)) return;
    const kind = kindOf(el);
    if (kind) { flush(); addControl(el, kind); return; }
    const block = BLOCK.test(st.display) || tag === 'BR' || tag === 'HR';
    if (block) flush();
    if (/^H[1-6]$/.test(tag)) prefix = '#'.repeat(Number(tag[1])) + ' ';
    else if (tag === 'LI') prefix = '- ';
    if (tag === 'LABEL' && el.control && el.contains(el.control)) {
      walk(el.control);
    } else {
      for (const c of el.childNodes) walk(c);
    }
    if (block) flush();
    else if (SPACED.test(st.display)) cur += ' ';
  };
  walk(document.body);
  flush();
  const counts = {};
  controls.forEach(c => { const k = c.label.toLowerCase(); counts[k] = (counts[k] || 0) + 1; });
  controls.forEach((c, i) => {
    if (counts[c.label.toLowerCase()] < 2) return;
    for (let a = refs[i].parentElement; a && a !== document.body; a = a.parentElement) {
      const t = clean(ownText(a, refs[i]));
      if (t && t.toLowerCase() !== c.label.toLowerCase()) { c.context = t.slice(0, 100); break; }
    }
  });
  Object.defineProperty(window, '__REFS__', {value: refs, configurable: true, enumerable: false, writable: true});
  const se = document.scrollingElement || document.documentElement;
  return {title: document.title, lines, controls, scroll_y: Math.round(window.scrollY),
          page_height: Math.round(se.scrollHeight), viewport: [window.innerWidth, window.innerHeight]};
}
""".replace("__REFS__", REFS_PROP)


#: page-side hit test for a click on ref ``i``: scrolls it into view if needed, then
#: returns its centre, or why a user could not click it there
CLICK_TARGET_JS = r"""
(i) => {
  const el = (window.__REFS__ || [])[i - 1];
  if (!el || !el.isConnected) return {error: 'is no longer on the page'};
  let r = el.getBoundingClientRect();
  if (r.width === 0 || r.height === 0) return {error: 'is not visible'};
  if (r.bottom <= 0 || r.top >= innerHeight || r.right <= 0 || r.left >= innerWidth) {
    el.scrollIntoView({block: 'center', inline: 'center', behavior: 'instant'});
    r = el.getBoundingClientRect();
  }
  const x = r.left + r.width / 2, y = r.top + r.height / 2, hit = document.elementFromPoint(x, y);
  const mine = hit && (hit === el || el.contains(hit) || Array.from(el.labels || []).some(l => l.contains(hit)));
  if (!mine) {
    const what = hit ? (hit.innerText || '').replace(/\s+/g, ' ').trim().slice(0, 60) : '';
    return {error: 'is covered by another element' + (what ? ' ("' + what + '")' : '')};
  }
  return {x, y};
}
""".replace("__REFS__", REFS_PROP)


class Control(BaseModel):
    """One numbered control: kind, label, item context, state and viewport box."""

    model_config = ConfigDict(extra="forbid")

    ref: int
    kind: str
    label: str
    context: str = ""
    state: list[str] = Field(default_factory=list)
    box: tuple[float, float, float, float]

    @property
    def disabled(self) -> bool:
        """Whether the control is disabled."""
        return "disabled" in self.state

    def line(self) -> str:
        """``[n] kind "label"[ for "context"][ (state)]``."""
        out = f'[{self.ref}] {self.kind} "{self.label}"'
        if self.context:
            out += f' for "{self.context}"'
        return out + (f" ({'; '.join(self.state)})" if self.state else "")

    def on_screen(self, width: int, height: int) -> bool:
        """Whether any part of the control is inside the viewport."""
        x, y, w, h = self.box
        return w > 0 and h > 0 and x + w > 0 and y + h > 0 and x < width and y < height


class Snapshot(BaseModel):
    """What :data:`SNAPSHOT_JS` returns, with the page rendered as text."""

    model_config = ConfigDict(extra="forbid")

    title: str
    lines: list[str | dict[str, int]]
    controls: list[Control]
    scroll_y: int
    page_height: int
    viewport: tuple[int, int]

    def control(self, ref: int) -> Control | None:
        """The control numbered ``ref``, or ``None``."""
        return self.controls[ref - 1] if 1 <= ref <= len(self.controls) else None

    def text(self) -> str:
        """The page: text lines, with each control's line where it sits."""
        out = []
        for line in self.lines:
            out.append(self.controls[line["ref"] - 1].line() if isinstance(line, dict) else line)
        return "\n".join(out)

    def on_screen(self) -> list[int]:
        """Refs of controls at least partly inside the viewport."""
        return [c.ref for c in self.controls if c.on_screen(*self.viewport)]

    def screen_line(self) -> str:
        """Scroll position and which controls are on screen."""
        refs = self.on_screen()
        shown = _ranges(refs) if refs else "none"
        bottom = min(self.page_height, self.scroll_y + self.viewport[1])
        return f"Viewing {self.scroll_y}-{bottom} px of {self.page_height} px; controls on screen: {shown}"


def parse_snapshot(raw: Any) -> Snapshot:
    """Validate the script's result."""
    return Snapshot.model_validate(raw)


def _ranges(refs: list[int]) -> str:
    """``[1, 2, 3, 7]`` -> ``1-3, 7``."""
    parts: list[str] = []
    start = prev = refs[0]
    for ref in refs[1:] + [-1]:
        if ref == prev + 1:
            prev = ref
            continue
        parts.append(str(start) if start == prev else f"{start}-{prev}")
        start = prev = ref
    return ", ".join(parts)
