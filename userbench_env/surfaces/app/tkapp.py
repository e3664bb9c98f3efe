"""The one Tk desktop app every app task runs (standalone: stdlib only, runs in a container).

Usage: ``python3 tkapp.py PAYLOAD OUT_DIR STATE_DIR WIDTHxHEIGHT``. ``PAYLOAD`` is the
JSON of :func:`userbench_env.surfaces.app.spec.launch_payload`: title, catalogue rows,
basket limits, texts, output file and list key, and each row's hidden labels. A row's
hidden labels live in a label widget that is never placed on screen. Each row has an
add button that toggles the row in and out of the basket; the basket refuses more than
``max_picks`` rows, the submit button refuses fewer than ``min_picks``; a valid submit
writes ``OUT_DIR/<output_file>`` = ``{"app", <list_key>: [{id, name, <labels>}], "note"}``
and shows the confirmation screen.

Control: the app polls ``STATE_DIR/cmd.json`` (``{"seq": N, "op": "sync"|"load",
"payload": path}``). For a new ``seq`` it processes every pending X event, runs the op
(``load`` rebuilds the app from a payload and deletes the previous output file), waits
for the X server to draw, then writes ``STATE_DIR/ui.json``: ``{"seq", "pid",
"confirmed", "widgets": [{kind, text, context, x, y, w, h, enabled}]}`` listing every
visible label, button and text field in screen pixels. On start it answers the
current ``seq`` the same way, so a request pending across a restart is answered.
"""
from __future__ import annotations

import json
import os
import sys
import tkinter as tk
from pathlib import Path
from typing import Any

POLL_MS = 20
BG, PANEL, ACCENT, MUTED = "#ffffff", "#f3f4f6", "#1f6feb", "#555555"
FONT = ("DejaVu Sans", 11)
BOLD = ("DejaVu Sans", 11, "bold")
TITLE = ("DejaVu Sans", 18, "bold")


def write_json(path: Path, data: Any) -> None:
    """Write JSON atomically (temp file + rename), so readers never see half a file."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(data, ensure_ascii=False, indent=1), encoding="utf-8")
    os.replace(tmp, path)


class CatalogueApp:
    """The app window: catalogue rows with add buttons, a basket panel, a submit button."""

    def __init__(self, root: tk.Tk, payload_path: Path, out_dir: Path, state_dir: Path) -> None:
        self.root, self.out_dir, self.state_dir = root, out_dir, state_dir
        self.seq = self._current_seq()
        self.frame: tk.Frame | None = None
        self.load(payload_path, fresh=False)
        self.answer()
        root.after(POLL_MS, self.poll)

    # ------------------------------------------------------------------ building

    def load(self, payload_path: Path, fresh: bool) -> None:
        """(Re)build the window from a payload; ``fresh`` also deletes the old output."""
        self.spec = json.loads(payload_path.read_text(encoding="utf-8"))
        if fresh:
            (self.out_dir / self.spec["output_file"]).unlink(missing_ok=True)
        self.basket: list[str] = []
        self.confirmed = False
        self.root.title(self.spec["title"])
        if self.frame is not None:
            self.frame.destroy()
        self.frame = tk.Frame(self.root, bg=BG)
        self.frame.pack(fill="both", expand=True)
        head = tk.Frame(self.frame, bg=BG)
        head.pack(fill="x", padx=16, pady=(12, 4))
        tk.Label(head, text=self.spec["title"], font=TITLE, bg=BG).pack(anchor="w")
        if self.spec.get("subtitle"):
            tk.Label(head, text=self.spec["subtitle"], font=FONT, fg=MUTED, bg=BG).pack(anchor="w")
        body = tk.Frame(self.frame, bg=BG)
        body.pack(fill="both", expand=True, padx=16, pady=4)
        self.body = body
        self._build_catalogue(body)
        self._build_basket(body)
        self.refresh()

    def _build_catalogue(self, body: tk.Frame) -> None:
        listing = tk.Frame(body, bg=BG)
        listing.pack(side="left", fill="both", expand=True)
        self.add_buttons: dict[str, tk.Button] = {}
        section = None
        for item in self.spec["items"]:
            if item["section"] != section:
                section = item["section"]
                tk.Label(listing, text=section, font=BOLD, fg=ACCENT, bg=BG).pack(anchor="w", pady=(6, 0))
            row = tk.Frame(listing, bg=BG)
            row.pack(fill="x", pady=2)
            button = tk.Button(row, text=self.spec["add_label"], width=2, font=BOLD,
                               command=lambda i=item["id"]: self.toggle(i))
            button.pack(side="right", padx=6)
            button.ub_context = item["name"]  # type: ignore[attr-defined]
            self.add_buttons[item["id"]] = button
            text = tk.Frame(row, bg=BG)
            text.pack(side="left", fill="x", expand=True)
            tk.Label(text, text=f"{item['name']}   {item.get('price', '')}".rstrip(), font=BOLD, bg=BG).pack(anchor="w")
            if item.get("description"):
                tk.Label(text, text=item["description"], font=FONT, fg=MUTED, bg=BG).pack(anchor="w")
            # the hidden label: created, never placed, so never drawn
            tk.Label(row, text=json.dumps(self.spec["hidden"].get(item["id"], {})))

    def _build_basket(self, body: tk.Frame) -> None:
        panel = tk.Frame(body, bg=PANEL, width=300)
        panel.pack(side="right", fill="y", padx=(12, 0))
        panel.pack_propagate(False)
        tk.Label(panel, text=self.spec["basket_title"], font=BOLD, bg=PANEL).pack(anchor="w", padx=10, pady=(10, 4))
        self.basket_box = tk.Frame(panel, bg=PANEL)
        self.basket_box.pack(fill="x", padx=10)
        self.count_label = tk.Label(panel, text="", font=FONT, bg=PANEL)
        self.count_label.pack(anchor="w", padx=10, pady=4)
        tk.Label(panel, text=self.spec["note_label"], font=FONT, bg=PANEL).pack(anchor="w", padx=10, pady=(8, 0))
        self.note = tk.Entry(panel, font=FONT, insertofftime=0)
        self.note.pack(fill="x", padx=10)
        self.note.ub_context = self.spec["note_label"]  # type: ignore[attr-defined]
        self.submit = tk.Button(panel, text=self.spec["submit_label"], font=BOLD, command=self.place)
        self.submit.pack(fill="x", padx=10, pady=12)
        self.status = tk.Label(panel, text="", font=FONT, fg="#b42318", bg=PANEL, wraplength=270, justify="left")
        self.status.pack(anchor="w", padx=10)

    # ------------------------------------------------------------------ actions

    def toggle(self, item_id: str) -> None:
        """Add a row to the basket, or remove it when it is already there."""
        if item_id in self.basket:
            self.basket.remove(item_id)
            self.status.configure(text="")
        elif len(self.basket) >= self.spec["max_picks"]:
            self.status.configure(text=f"Your basket is full: at most {self.spec['max_picks']}. Remove one first.")
        else:
            self.basket.append(item_id)
            self.status.configure(text="")
        self.refresh()

    def refresh(self) -> None:
        """Redraw the basket list, the count and the add buttons' states."""
        for child in self.basket_box.winfo_children():
            child.destroy()
        names = {i["id"]: i["name"] for i in self.spec["items"]}
        for item_id in self.basket:
            tk.Label(self.basket_box, text=f"• {names[item_id]}", font=FONT, bg=PANEL,
                     wraplength=270, justify="left").pack(anchor="w")
        low, high = self.spec["min_picks"], self.spec["max_picks"]
        need = f"{low}" if low == high else f"{low}-{high}"
        self.count_label.configure(text=f"{len(self.basket)} selected (choose {need})")
        for item_id, button in self.add_buttons.items():
            button.configure(text="-" if item_id in self.basket else self.spec["add_label"],
                             relief="sunken" if item_id in self.basket else "raised")

    def place(self) -> None:
        """Write the output file and show the confirmation, if the basket count is valid."""
        low, high = self.spec["min_picks"], self.spec["max_picks"]
        if not low <= len(self.basket) <= high:
            need = f"{low}" if low == high else f"between {low} and {high}"
            self.status.configure(text=f"Please choose {need} before continuing.")
            return
        rows = {i["id"]: i for i in self.spec["items"]}
        entries = [{"id": i, "name": rows[i]["name"], **self.spec["hidden"].get(i, {})} for i in self.basket]
        self.out_dir.mkdir(parents=True, exist_ok=True)
        write_json(self.out_dir / self.spec["output_file"],
                   {"app": self.spec["title"], self.spec["list_key"]: entries, "note": self.note.get()})
        self.confirmed = True
        self.body.destroy()
        done = tk.Frame(self.frame, bg=BG)
        done.pack(fill="both", expand=True, padx=16, pady=40)
        tk.Label(done, text=self.spec["confirmation"], font=TITLE, fg="#1a7f37", bg=BG).pack(anchor="w")
        for entry in entries:
            tk.Label(done, text=f"• {entry['name']}", font=FONT, bg=BG).pack(anchor="w")

    # ------------------------------------------------------------------ control

    def _current_seq(self) -> int:
        try:
            return int(json.loads((self.state_dir / "cmd.json").read_text(encoding="utf-8"))["seq"])
        except (OSError, ValueError, KeyError, TypeError):
            return 0

    def poll(self) -> None:
        """Answer a new control request (see the module docstring)."""
        try:
            cmd = json.loads((self.state_dir / "cmd.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            cmd = None
        if cmd and int(cmd.get("seq", 0)) > self.seq:
            self.root.update()
            self.seq = int(cmd["seq"])
            if cmd.get("op") == "load":
                self.load(Path(cmd["payload"]), fresh=True)
            self.answer()
        self.root.after(POLL_MS, self.poll)

    def answer(self) -> None:
        """Process pending events, wait for the drawing, then write ``ui.json``."""
        self.root.update()
        self.root.winfo_pointerxy()  # a server round trip: every drawing request is done
        write_json(self.state_dir / "ui.json",
                   {"seq": self.seq, "pid": os.getpid(), "confirmed": self.confirmed, "widgets": self.widgets()})

    def widgets(self) -> list[dict[str, Any]]:
        """Every visible label, button and text field, in screen pixels, in tree order."""
        out: list[dict[str, Any]] = []
        stack: list[tk.Misc] = [self.root]
        while stack:
            widget = stack.pop(0)
            stack[:0] = widget.winfo_children()
            kind = {"Button": "button", "Label": "text", "Entry": "textbox"}.get(widget.winfo_class())
            if kind is None or not widget.winfo_viewable():
                continue
            text = widget.get() if kind == "textbox" else widget.cget("text")  # type: ignore[union-attr]
            out.append({
                "kind": kind, "text": text, "context": getattr(widget, "ub_context", ""),
                "x": widget.winfo_rootx(), "y": widget.winfo_rooty(),
                "w": widget.winfo_width(), "h": widget.winfo_height(),
                "enabled": str(widget.cget("state")) != "disabled",
            })
        return out


def main(argv: list[str]) -> int:
    """Run the app (see the module docstring for the arguments)."""
    payload, out_dir, state_dir, size = argv
    width, height = (int(v) for v in size.split("x"))
    root = tk.Tk()
    root.configure(bg=BG)
    root.geometry(f"{width}x{height}+0+0")
    CatalogueApp(root, Path(payload), Path(out_dir), Path(state_dir))
    root.mainloop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
