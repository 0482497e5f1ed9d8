"""The quick reader: block-style YAML written one entry a line, turned into the loader's events.

It reads block mappings and sequences written one entry a line, single-line plain and quoted
scalars, literal and folded block scalars, flow collections (also nested, and over several
lines when broken at commas or brackets), and anchors and aliases on values. Whenever it meets
anything else it raises ``_Unsupported`` and the loader gives the whole text to ruamel.yaml's
parser instead, so it never has to judge an error or an unusual construct itself. Both paths
feed the same builder in ``loader``, which enforces every rule.
"""

from __future__ import annotations

import re

from interpreter import limits
from interpreter.load.yaml_loader import _ALIAS, _END, _MAP, _SCALAR, _SEQ, _Unsupported

_KEY_PLAIN = re.compile(r"([^\s\-?:,\[\]{}#&*!|>'\"%@`][^:#,\[\]{}]*?) *:(?: +|$)")
_AFTER_QUOTED_KEY = re.compile(r" *:(?: +|$)")
_REST = re.compile(r"(?: +#.*| *)\Z")
_BLOCK_HEADER = re.compile(r"([|>])([-+]?)(?: +#.*| *)\Z")
_FLOW_PLAIN = re.compile(r"(?:[^\s\-?:,\[\]{}#&*!|>'\"%@`]|-[A-Za-z0-9_.(])[^,\[\]{}:#]*")
# Whole lines of the commonest shapes, each read with one match: "key: value", "key:",
# "- value" and "- key: value" with plain keys and values.  The code using them strips
# trailing spaces, takes a "#" as a comment only after a space, and leaves to the general
# code any value containing ": " or ending with ":" and any key over 1000 characters.
_K = r"[^\s\-?:,\[\]{}#&*!|>'\"%@`][^:#,\[\]{}]*"
_V = r"[^\s\-?:,\[\]{}#&*!|>'\"%@`][^#]*"
_LINE_PAIR = re.compile(rf"({_K}): +({_V})(#.*)?\Z")
_LINE_KEY = re.compile(rf"({_K}):(?: +#.*| *)\Z")
_ITEM_PAIR = re.compile(rf"- +({_K}): +({_V})(#.*)?\Z")
_ITEM_VALUE = re.compile(rf"- +({_V})(#.*)?\Z")
_ANCHOR = re.compile(r"&([A-Za-z0-9_-]+)(?: +|\Z)")
_ALIAS_NAME = re.compile(r"\*([A-Za-z0-9_-]+)")
_DOC_START = re.compile(r"---(?: +#.*| *)\Z")
_ESCAPES = {
    "0": "\0", "a": "\a", "b": "\b", "t": "\t", "n": "\n", "v": "\v", "f": "\f", "r": "\r",
    "e": "\x1b", " ": " ", '"': '"', "/": "/", "\\": "\\", "N": "\x85", "_": "\xa0",
    "L": "\u2028", "P": "\u2029",
}
_HEX_ESCAPES = {"x": 2, "u": 4, "U": 8}
_HEX = frozenset("0123456789abcdefABCDEF")
_PLAIN_BAD_START = frozenset("-?:,[]{}#&*!|>'\"%@`")
_DASH_START = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.(")

# kinds of open block collections
_BMAP, _BSEQ, _ISEQ = 0, 1, 2


def _quoted(s: str, i: int) -> tuple[str, int]:
    """A single-line quoted scalar starting at ``s[i]``; returns (value, index after it)."""
    quote = s[i]
    j = i + 1
    n = len(s)
    if quote == "'":
        parts = []
        while True:
            k = s.find("'", j)
            if k < 0:
                raise _Unsupported
            parts.append(s[j:k])
            if k + 1 < n and s[k + 1] == "'":
                parts.append("'")
                j = k + 2
                continue
            return "".join(parts), k + 1
    k = s.find('"', j)
    if k < 0:
        raise _Unsupported
    if "\\" not in s[j:k]:
        return s[j:k], k + 1
    out: list[str] = []
    while j < n:
        ch = s[j]
        if ch == '"':
            return "".join(out), j + 1
        if ch != "\\":
            out.append(ch)
            j += 1
            continue
        if j + 1 >= n:
            raise _Unsupported
        code = s[j + 1]
        if code in _ESCAPES:
            out.append(_ESCAPES[code])
            j += 2
        elif code in _HEX_ESCAPES:
            width = _HEX_ESCAPES[code]
            digits = s[j + 2:j + 2 + width]
            if len(digits) != width or not all(c in _HEX for c in digits):
                raise _Unsupported
            point = int(digits, 16)
            if 0xD800 <= point <= 0xDFFF or point > 0x10FFFF:
                raise _Unsupported
            out.append(chr(point))
            j += 2 + width
        else:
            raise _Unsupported
    raise _Unsupported


def _quick_events(text: str) -> list[tuple]:
    """Events for the common block style, or ``_Unsupported`` for anything else."""
    if "\t" in text or "\x85" in text or "\u2028" in text or "\u2029" in text or "\ufeff" in text:
        raise _Unsupported
    lines = text.split("\n")
    if "\r" in text:
        if text.count("\r") != text.count("\r\n"):
            raise _Unsupported  # a lone carriage return
        lines = [ln.removesuffix("\r") for ln in lines]
    ends_with_break = len(lines) > 1 and lines[-1] == ""
    if ends_with_break:
        lines.pop()
    total = len(lines)

    out: list[tuple] = []
    emit = out.append
    stack: list[list] = []  # open block collections: [kind, indent]
    pending = None          # (kind, line, col, indent) of a "key:" or "-" with its value below
    check = -1              # after a value on its own line, no later line may be indented more
    marker = False          # a "---" was read
    end_event = (_END, 0, 0, None, False, False, None)
    line_pair = _LINE_PAIR.match
    line_key = _LINE_KEY.match
    item_pair = _ITEM_PAIR.match
    item_value = _ITEM_VALUE.match

    def inline_value(s: str, c: int, lineno: int, holder: int, i: int, anchor=None) -> int:
        """Emit the value written at ``s[c:]`` (not empty), which has ``anchor`` (its name
        and column) if not None; return the next line to read."""
        nonlocal check
        first = s[c]
        name, col = anchor if anchor is not None else (None, c + 1)
        if first == "*":
            m = _ALIAS_NAME.match(s, c)
            if anchor is not None or m is None or not _REST.match(s, m.end()):
                raise _Unsupported
            emit((_ALIAS, lineno, c + 1, None, False, False, m.group(1)))
        elif first == '"' or first == "'":
            value, end = _quoted(s, c)
            if not _REST.match(s, end):
                raise _Unsupported
            emit((_SCALAR, lineno, col, value, False, False, name))
        elif first == "[" or first == "{":
            i, end = _flow(lines, i, c, holder, emit, anchor)
            if not _REST.match(lines[i], end):
                raise _Unsupported
        elif first == "|" or first == ">":
            return block_scalar(s, c, lineno, holder, i, anchor)
        else:
            if first in _PLAIN_BAD_START and not (first == "-" and s[c + 1:c + 2] in _DASH_START):
                raise _Unsupported
            rest = s[c:]
            cut = rest.find(" #")
            if cut >= 0:
                rest = rest[:cut]
            rest = rest.rstrip(" ")
            if ": " in rest or rest.endswith(":"):
                raise _Unsupported
            emit((_SCALAR, lineno, col, rest, True, False, name))
        check = holder
        return i + 1

    def block_scalar(s: str, c: int, lineno: int, holder: int, i: int, anchor) -> int:
        header = _BLOCK_HEADER.match(s, c)
        if header is None:
            raise _Unsupported
        folded = header.group(1) == ">"
        chomp = header.group(2)
        j = i + 1
        indent = -1
        body: list[str | None] = []
        while j < total:
            ln = lines[j]
            stripped = ln.lstrip(" ")
            if not stripped:
                # Blank lines before the first content line must be empty (the parser
                # refuses some with spaces); later ones may not reach into the content.
                if (indent < 0 and ln) or (indent >= 0 and len(ln) > indent):
                    raise _Unsupported
                body.append(None)
                j += 1
                continue
            width = len(ln) - len(stripped)
            if indent < 0:
                if width <= holder:
                    raise _Unsupported  # an empty block scalar
                indent = width
            if width < indent:
                break
            body.append(ln[indent:])
            j += 1
        if indent < 0 or (j == total and not ends_with_break):
            raise _Unsupported
        lead = 0
        while body[lead] is None:
            lead += 1
        last = len(body) - 1
        while body[last] is None:
            last -= 1
        trail = len(body) - 1 - last
        content = body[lead:last + 1]
        if folded:
            pieces: list[str] = []
            gap = 0
            for piece in content:
                if piece is None:
                    gap += 1
                    continue
                if piece[0] == " ":
                    raise _Unsupported  # a more indented line keeps its breaks
                if pieces:
                    pieces.append(" " if gap == 0 else "\n" * gap)
                pieces.append(piece)
                gap = 0
            value = "".join(pieces)
        else:
            value = "\n".join("" if piece is None else piece for piece in content)
        value = "\n" * lead + value
        if chomp == "":
            value += "\n"
        elif chomp == "+":
            value += "\n" * (trail + 1)
        name, col = anchor if anchor is not None else (None, c + 1)
        emit((_SCALAR, lineno, col, value, False, False, name))
        return j

    def key_at(s: str, c: int) -> tuple[str, bool, int] | None:
        """A mapping key at ``s[c:]``: (text, plain, index of its value), or None."""
        first = s[c]
        if first == '"' or first == "'":
            try:
                value, end = _quoted(s, c)
            except _Unsupported:
                return None
            m = _AFTER_QUOTED_KEY.match(s, end)
            if m is None:
                return None
            if end - c > 1000:
                raise _Unsupported  # longer than a YAML simple key may be
            return value, False, m.end()
        m = _KEY_PLAIN.match(s, c)
        if m is None:
            return None
        if m.end(1) - c > 1000:
            raise _Unsupported
        return m.group(1), True, m.end()

    def mapping_entry(s: str, c: int, lineno: int, i: int) -> int:
        """Emit the key and value of the entry at ``s[c:]`` in a mapping indented ``c``."""
        nonlocal pending
        found = key_at(s, c)
        if found is None:
            raise _Unsupported
        name, plain, vstart = found
        emit((_SCALAR, lineno, c + 1, name, plain, False, None))
        anchor = None
        if vstart < len(s) and s[vstart] == "&":
            m = _ANCHOR.match(s, vstart)
            if m is None:
                raise _Unsupported
            anchor = (m.group(1), vstart + 1)
            vstart = m.end()
        if vstart >= len(s) or s[vstart] == "#":
            pending = (_BMAP, lineno, c + 1, c, None if anchor is None else (anchor[0], lineno, anchor[1]))
            return i + 1
        return inline_value(s, vstart, lineno, c, i, anchor)

    i = 0
    while i < total:
        ln = lines[i]
        s = ln.lstrip(" ")
        if not s:
            i += 1
            continue
        if s[0] == "#":  # a comment line, wherever it is indented
            i += 1
            continue
        n = len(ln) - len(s)
        if check >= 0:
            if n > check:
                raise _Unsupported  # a continuation line or a misplaced block
            check = -1
        lineno = i + 1
        if n == 0 and (s[0] == "%" or s.startswith("---") or s.startswith("...")):
            if not out and not marker and _DOC_START.match(s):
                marker = True  # the "---" that may open the document
                i += 1
                continue
            raise _Unsupported
        is_entry = s[0] == "-" and (len(s) == 1 or s[1] == " ")

        if pending is not None:
            pkind, pline, pcol, pindent, panchor = pending
            pending = None
            # an anchored collection starts at its anchor
            name, aline, acol = panchor if panchor is not None else (None, lineno, n + 1)
            if n > pindent:
                if is_entry:
                    emit((_SEQ, aline, acol, None, False, False, name))
                    stack.append([_BSEQ, n])
                elif key_at(ln, n) is not None:
                    emit((_MAP, aline, acol, None, False, False, name))
                    stack.append([_BMAP, n])
                else:
                    raise _Unsupported
            elif pkind == _BMAP and n == pindent and is_entry:
                emit((_SEQ, aline, acol, None, False, False, name))
                stack.append([_ISEQ, n])
            elif pkind == _BMAP and panchor is None:
                emit((_SCALAR, pline, pcol, "", True, True, None))
            else:
                raise _Unsupported  # an empty sequence item, or an anchored empty value
        elif not stack:
            if out:
                raise _Unsupported
            if s[0] == "{":  # the whole document is one flow mapping (JSON, say)
                i, end = _flow(lines, i, n, -1, emit)
                if not _REST.match(lines[i], end):
                    raise _Unsupported
                for ln in lines[i + 1:]:
                    rest = ln.lstrip(" ")
                    if rest and rest[0] != "#":
                        raise _Unsupported
                return out
            if key_at(ln, n) is None:
                raise _Unsupported
            emit((_MAP, lineno, n + 1, None, False, False, None))
            stack.append([_BMAP, n])

        top = stack[-1]
        while top[1] > n or (top[1] == n and top[0] == _ISEQ and not is_entry):
            stack.pop()
            emit(end_event)
            if not stack:
                raise _Unsupported
            top = stack[-1]
        if top[1] != n:
            raise _Unsupported

        if top[0] == _BMAP:
            if is_entry:
                raise _Unsupported
            m = line_pair(ln, n)
            if m is not None:
                value = m.group(2)
                if m.group(3) is None or value[-1] == " ":
                    value = value.rstrip(" ")
                    name = m.group(1).rstrip(" ")
                    if ": " not in value and value[-1] != ":" and len(name) <= 1000:
                        emit((_SCALAR, lineno, n + 1, name, True, False, None))
                        emit((_SCALAR, lineno, m.start(2) + 1, value, True, False, None))
                        check = n
                        i += 1
                        continue
            m = line_key(ln, n)
            if m is not None:
                name = m.group(1).rstrip(" ")
                if len(name) <= 1000:
                    emit((_SCALAR, lineno, n + 1, name, True, False, None))
                    pending = (_BMAP, lineno, n + 1, n, None)
                    i += 1
                    continue
            i = mapping_entry(ln, n, lineno, i)
            continue

        if not is_entry:
            raise _Unsupported
        m = item_value(ln, n)
        if m is not None:
            value = m.group(1)
            if m.group(2) is None or value[-1] == " ":
                value = value.rstrip(" ")
                if ": " not in value and value[-1] != ":":
                    emit((_SCALAR, lineno, m.start(1) + 1, value, True, False, None))
                    check = n
                    i += 1
                    continue
        m = item_pair(ln, n)
        if m is not None:
            value = m.group(2)
            if m.group(3) is None or value[-1] == " ":
                value = value.rstrip(" ")
                name = m.group(1).rstrip(" ")
                if ": " not in value and value[-1] != ":" and len(name) <= 1000:
                    c = m.start(1)
                    emit((_MAP, lineno, c + 1, None, False, False, None))
                    stack.append([_BMAP, c])
                    emit((_SCALAR, lineno, c + 1, name, True, False, None))
                    emit((_SCALAR, lineno, m.start(2) + 1, value, True, False, None))
                    check = c
                    i += 1
                    continue
        c = n + 1
        size = len(ln)
        while c < size and ln[c] == " ":
            c += 1
        anchor = None
        if c < size and ln[c] == "&":
            m = _ANCHOR.match(ln, c)
            if m is None:
                raise _Unsupported
            anchor = (m.group(1), c + 1)
            c = m.end()
        if c >= size or ln[c] == "#":
            pending = (_BSEQ, lineno, c + 1, n, None if anchor is None else (anchor[0], lineno, anchor[1]))
            i += 1
            continue
        if ln[c] == "-" and (c + 1 == size or ln[c + 1] == " "):
            raise _Unsupported  # a sequence directly in a sequence item
        if key_at(ln, c) is not None:
            if anchor is not None:
                raise _Unsupported  # the anchor would name the first key
            emit((_MAP, lineno, c + 1, None, False, False, None))
            stack.append([_BMAP, c])
            i = mapping_entry(ln, c, lineno, i)
            continue
        i = inline_value(ln, c, lineno, n, i, anchor)

    if pending is not None:
        if pending[0] != _BMAP or pending[4] is not None:
            raise _Unsupported
        emit((_SCALAR, pending[1], pending[2], "", True, True, None))
    if not out:
        raise _Unsupported
    for _ in stack:
        emit(end_event)
    return out


def _flow(lines: list[str], i: int, k: int, holder: int, emit, anchor=None) -> tuple[int, int]:
    """Flow collections starting at ``lines[i][k]``, nested or not.

    Entries are scalars, aliases or flow collections, each perhaps with an anchor; a
    mapping's keys are scalars followed by ": " on the same line; a comma may follow the
    last entry.  A collection may go on over several lines, broken after an opening
    bracket, after a comma, or after an entry when the next line starts with a comma or
    a closing bracket; those lines are indented past ``holder``.  ``anchor`` (a name and
    a column) is that of the outermost collection.  Returns the line and the index just
    after the outermost closing bracket.
    """
    s = lines[i]
    n = len(s)
    open_maps: list[bool] = []  # for each open collection: is it a mapping?

    def gap(i: int, k: int) -> tuple[int, int, str, int]:
        """Skip spaces, an end-of-line comment and line breaks: (line, index, text, size)."""
        s = lines[i]
        n = len(s)
        while k < n and s[k] == " ":
            k += 1
        if k < n and not (s[k] == "#" and s[k - 1] == " "):
            return i, k, s, n
        while True:
            i += 1
            if i >= len(lines):
                raise _Unsupported
            s = lines[i]
            rest = s.lstrip(" ")
            if not rest:
                continue
            k = len(s) - len(rest)
            if k <= holder:
                raise _Unsupported
            if rest[0] != "#":
                return i, k, s, len(s)

    def key(i: int, k: int) -> tuple[int, int, str, int]:
        """A mapping key at ``lines[i][k]`` and the ": " after it."""
        start = k
        k = _flow_scalar(s, k, i + 1, emit)
        if k - start > 1000 or k + 1 >= n or s[k] != ":" or s[k + 1] != " ":
            raise _Unsupported
        return i, k + 2, s, n

    while True:
        # here an entry (or, first thing in a collection, its closing bracket) comes next
        while k < n and s[k] == " ":
            k += 1
        if k >= n:
            raise _Unsupported
        ch = s[k]
        if ch == "&":
            m = _ANCHOR.match(s, k)
            if anchor is not None or m is None or m.end() >= n:
                raise _Unsupported
            anchor = (m.group(1), k + 1)
            k = m.end()
            ch = s[k]
        name, col = anchor if anchor is not None else (None, k + 1)
        anchor = None
        if ch == "[" or ch == "{":
            if len(open_maps) >= limits.MAX_DEPTH:
                raise _Unsupported  # deeper than allowed: the full parser reports it
            is_map = ch == "{"
            emit((_MAP if is_map else _SEQ, i + 1, col, None, True, False, name))
            open_maps.append(is_map)
            i, k, s, n = gap(i, k + 1)
            if s[k] != ("}" if is_map else "]"):
                if is_map:
                    i, k, s, n = key(i, k)
                continue
        elif ch == "*":
            m = _ALIAS_NAME.match(s, k)
            if name is not None or m is None:
                raise _Unsupported
            emit((_ALIAS, i + 1, k + 1, None, False, False, m.group(1)))
            k = m.end()
        else:
            k = _flow_scalar(s, k, i + 1, emit, name, col)
        # after an entry: a comma and the next entry, or closing brackets
        while True:
            i, k, s, n = gap(i, k)
            ch = s[k]
            is_map = open_maps[-1]
            if ch == ",":
                i, k, s, n = gap(i, k + 1)
                if s[k] == ("}" if is_map else "]"):
                    continue  # a comma after the last entry
                if s[k] in "]},":
                    raise _Unsupported  # an empty entry
                if is_map:
                    i, k, s, n = key(i, k)
                break
            if ch != ("}" if is_map else "]"):
                raise _Unsupported
            emit((_END, i + 1, k + 1, None, False, False, None))
            open_maps.pop()
            k += 1
            if not open_maps:
                return i, k


def _flow_scalar(s: str, k: int, lineno: int, emit, name: str | None = None,
                 col: int | None = None) -> int:
    """A quoted or plain scalar at ``s[k]`` inside a flow collection (with the anchor
    ``name`` written at column ``col``, if any); returns the index after it and the
    spaces that follow."""
    n = len(s)
    while k < n and s[k] == " ":
        k += 1
    if k >= n:
        raise _Unsupported
    if col is None:
        col = k + 1
    ch = s[k]
    if ch == '"' or ch == "'":
        value, end = _quoted(s, k)
        emit((_SCALAR, lineno, col, value, False, False, name))
    else:
        m = _FLOW_PLAIN.match(s, k)
        if m is None:
            raise _Unsupported
        value = m.group().rstrip(" ")
        emit((_SCALAR, lineno, col, value, True, False, name))
        end = m.end()
    while end < n and s[end] == " ":
        end += 1
    return end
