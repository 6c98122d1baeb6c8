"""Text from bots is data: what makes it safe to put on the organiser's terminal.

A bot controls its log lines, its ``Hello.version`` and its error text; printed raw, an ESC, OSC
or CSI sequence would retitle the window, write the clipboard (OSC 52) or redraw lines (CR, cursor
moves) to forge the dealer's own output. ``printable`` is the one place that escapes them.
"""

from __future__ import annotations

import unicodedata

_UNSAFE = {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"}  # controls, format (bidi), surrogates, unassigned, separators


def _escaped(char: str) -> str:
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def printable(text: str) -> str:
    """``text`` on one line with every control, format and separator character escaped
    (``\\x1b``, ``\\r``, ``\\u202e``): nothing in it can act on a terminal."""
    return "".join(_escaped(c) if unicodedata.category(c) in _UNSAFE else c for c in text)


def printable_lines(text: str) -> list[str]:
    """``text``'s lines (split at newlines only), each made ``printable``."""
    return [printable(line) for line in text.split("\n")]


def counted(count: int, one: str, many: str | None = None) -> str:
    """``count`` and the word for it: "1 match", "2 matches" (``many`` defaults to ``one`` + "s")."""
    return f"{count} {one if count == 1 else many or one + 's'}"
