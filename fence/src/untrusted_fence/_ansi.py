"""ANSI / ECMA-48: remove whole control sequences, keep their hidden payloads as hidden spans.

One regex pass; each match is a run of sequences, so pathological input (a megabyte of
``ESC [``) is one match, not a million.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["AnsiResult", "strip_ansi"]

_TRIGGER_RE = re.compile(r"[\x1b\x90\x98\x9b\x9d\x9e\x9f]")
# A control sequence (CSI, incomplete ones included so no "[31" residue stays) or a 2-byte
# escape (nF with intermediates, Fp, Fe, Fs), or a lone ESC.
_SIMPLE = r"(?:(?:\x1b\[|\x9b)[0-?]*+[ -/]*+[@-~]?|\x1b[ -/]*+[0-Z\\`-~]?)"
# Command strings: OSC, DCS, SOS, PM, APC, 7-bit and 8-bit introducers, then the payload up
# to BEL, ST (ESC \ or 0x9C), another ESC (aborts the string) or the end of the text.
_STRING_OPEN = r"(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])"
_ANSI_RE = re.compile(
    rf"(?P<open>{_STRING_OPEN})(?P<payload>[^\x07\x1b\x9c]*+)(?P<close>\x07|\x1b\\|\x9c)?"
    rf"|(?P<simple>{_SIMPLE}++)"
)
_SGR_RE = re.compile(r"(?:\x1b\[|\x9b)([0-9;:]*+)m")


@dataclass(frozen=True, slots=True)
class AnsiResult:
    """Text with every sequence removed, and the ``hidden`` spans in it (payloads, concealed)."""

    text: str
    hidden: tuple[tuple[int, int], ...]


Colour = tuple[int, ...] | None


@dataclass(frozen=True, slots=True)
class _Sgr:
    """The SGR state that decides visibility: conceal, foreground and background colour."""

    conceal: bool = False
    fg: Colour = None
    bg: Colour = None

    @property
    def hidden(self) -> bool:
        # Concealed, or drawn in its own background colour (an unset colour is the terminal's
        # default, which is never equal to a set one as far as this can know).
        return self.conceal or (self.fg is not None and self.fg == self.bg)


def _colour(params: list[str], i: int) -> tuple[Colour, int]:
    """The extended colour (38/48 ;5;n or ;2;r;g;b) starting after params[i]; the next index."""
    mode = params[i + 1] if i + 1 < len(params) else ""
    if mode == "5" and i + 2 < len(params) and params[i + 2].isdigit():
        n = int(params[i + 2])
        return ((n,) if n < 16 else (256, n)), i + 3
    if mode == "2" and i + 4 < len(params) and all(p.isdigit() for p in params[i + 2 : i + 5]):
        return (1 << 24, *(int(p) for p in params[i + 2 : i + 5])), i + 5
    return None, i + 1


def _sgr_change(run: str, state: _Sgr) -> _Sgr:
    conceal, fg, bg = state.conceal, state.fg, state.bg
    for params_text in _SGR_RE.findall(run):
        params = re.split(r"[;:]", params_text) if params_text else [""]
        i = 0
        while i < len(params):
            p = params[i]
            n = int(p) if p.isdigit() else -1
            if p in {"", "0"}:
                conceal, fg, bg = False, None, None
            elif n in (8, 28):  # conceal, reveal
                conceal = n == 8
            elif 30 <= n <= 37 or 90 <= n <= 97:
                fg = (n - 30,) if n < 90 else (n - 90 + 8,)
            elif 40 <= n <= 47 or 100 <= n <= 107:
                bg = (n - 40,) if n < 100 else (n - 100 + 8,)
            elif n == 39:
                fg = None
            elif n == 49:
                bg = None
            elif n in (38, 48):
                colour, i = _colour(params, i)
                fg, bg = (colour, bg) if n == 38 else (fg, colour)
                continue
            i += 1
    return _Sgr(conceal, fg, bg)


# 7-bit only forms, starting with a literal ESC so the regex engine scans for it quickly.  What
# can hide text: a command string's opener, a conceal, or a background colour (only then can
# text be drawn in its own background colour).  A terminal reads a parameter's leading
# zeros as nothing (``08`` conceals, ``041`` is a background), so they are allowed here too.
_C1 = "\x90\x98\x9b\x9d\x9e\x9f"
_MAY_HIDE_7_RE = re.compile(
    r"\x1b(?:[\]PX^_]|\[(?:[0-9;:]*[;:])?0*(?:8|4[0-8]|10[0-7])(?:[;:][0-9;:]*+)?m)"
)
_ONE_7 = r"\x1b(?:\[[0-?]*+[ -/]*+[@-~]?|[ -/]*+[0-Z\\`-~]?)"
_SIMPLE_7_RE = re.compile(rf"{_ONE_7}(?:{_ONE_7})*+")


def strip_ansi(text: str) -> AnsiResult:
    if _TRIGGER_RE.search(text) is None:
        return AnsiResult(text, ())
    if not any(c in text for c in _C1) and _MAY_HIDE_7_RE.search(text) is None:
        # No command string and no conceal: nothing is hidden, whole sequences are removed.
        out = _SIMPLE_7_RE.sub("", text)
        return AnsiResult(out, ())
    return _strip_with_hidden(text)


def _strip_with_hidden(text: str) -> AnsiResult:
    out: list[str] = []
    hidden: list[tuple[int, int]] = []
    pos = 0
    length = 0
    state = _Sgr()
    conceal_start = 0
    for m in _ANSI_RE.finditer(text):
        plain = text[pos : m.start()]
        out.append(plain)
        length += len(plain)
        pos = m.end()
        if m.group("simple") is not None:
            if "m" in m.group():
                now = _sgr_change(m.group(), state)
                if now.hidden and not state.hidden:
                    conceal_start = length
                elif state.hidden and not now.hidden and length > conceal_start:
                    hidden.append((conceal_start, length))
                state = now
            continue
        payload = m.group("payload")
        if payload:
            hidden.append((length, length + len(payload)))
            out.append(payload)
            length += len(payload)
    rest = text[pos:]
    out.append(rest)
    length += len(rest)
    if state.hidden and length > conceal_start:
        hidden.append((conceal_start, length))
    hidden.sort()
    return AnsiResult("".join(out), tuple(hidden))
