"""A text or CSV edge list as lines (private to :mod:`~graphinvariants.graphs.edgelist`).

:class:`Text` is the file as the reader sees it: decompressed, decoded, its first
``skiprows`` lines and its last ``skipfooter`` data lines left out; :class:`Trimmed`
streams what is kept to pandas. The rest reads single lines in Python, only where the
fast parser needs a decision or a message: the first data line (a ``%`` comment, a
Matrix Market size line) and the first malformed line, named by its number and text.
"""

import bz2
import codecs
import collections
import csv
import gzip
import io
import lzma
import math
import re

__all__ = []

#: How each compression is opened.
OPENERS = {"gzip": gzip.open, "bz2": bz2.open, "xz": lzma.open}
#: Characters read at a time from a file whose first or last lines are skipped.
TEXT_BLOCK = 1 << 20
#: An id written as an integer: an optional sign and the digits 0-9 (spaces around).
INTEGER = re.compile(r"\s*[+-]?[0-9]+\s*\Z")
#: The integers an id may be: 64-bit signed.
INT64 = (-(2**63), 2**63 - 1)
_LINE_END = re.compile(r"\r\n|\r|\n")


class Text:
    """A text or CSV file as the reader sees it: decompressed, decoded, its first
    ``skiprows`` lines and last ``skipfooter`` data lines left out."""

    def __init__(self, path, compression, encoding, comments, skiprows, skipfooter):
        self.path, self.compression, self.encoding = path, compression, encoding
        self.comments, self.skiprows, self.skipfooter = comments, skiprows, skipfooter
        #: Lines of the format's own header (a Matrix Market file's up to its size line),
        #: skipped as ``skiprows`` lines are but not counted as the caller's.
        self.header_lines = 0
        self.asked_skiprows = skiprows

    def source(self):
        """``(what pandas reads, its compression and encoding options)``: the path
        itself, or a new stream of the lines kept."""
        if not (self.skiprows or self.skipfooter):
            return self.path, {"compression": self.compression, "encoding": self.encoding}
        return Trimmed(self), {}

    def open(self):
        """The decoded text, every line (``newline=""``: line ends kept as written)."""
        opener = OPENERS.get(self.compression, open)
        if opener is open:
            return open(self.path, encoding=self.encoding, newline="")
        return opener(self.path, "rt", encoding=self.encoding, newline="")

    def is_data(self, line):
        content = line if self.comments is None else line.split(self.comments, 1)[0]
        return bool(content.strip())

    def lines(self, *, skip=True):
        """``(number, text)`` of the lines kept (every line with ``skip=False``), the
        line end cut off; numbers count every line of the file."""
        footer = self.skipfooter if skip else 0
        pending, data = collections.deque(), 0  # lines that may still be footer, and their data lines
        try:
            with self.open() as stream:
                for number, raw in enumerate(stream, 1):
                    if skip and number <= self.skiprows:
                        continue
                    line = raw.rstrip("\r\n")
                    if not footer:
                        yield number, line
                        continue
                    is_data = self.is_data(line)
                    pending.append((number, line, is_data))
                    data += is_data
                    # a line is kept once ``footer`` data lines follow it
                    while pending and data - pending[0][2] >= footer:
                        number, line, is_data = pending.popleft()
                        data -= is_data
                        yield number, line
        except UnicodeDecodeError as err:
            raise self.decode_error(err) from None

    def skip_header(self, lines):
        """Skip the format's first ``lines`` lines too (``skiprows`` skips more if larger)."""
        self.header_lines = lines
        self.skiprows = max(self.asked_skiprows, lines)

    def no_edge_error(self):
        """The ValueError of a file that gave no edge: naming ``skiprows`` and
        ``skipfooter`` when they skipped every line that holds data."""
        skiprows, skipfooter = self.asked_skiprows, self.skipfooter
        data = []
        if skiprows or skipfooter:
            lines = self.lines(skip=False)
            data = [number for number, line in lines if number > self.header_lines and self.is_data(line)]
        if not data:
            return ValueError(f"{self.path!r} contains no edge (it is empty, or holds only comments and blank lines): "
                              "an edge list without edges names no node")
        top = sum(number <= skiprows for number in data)
        parts = []
        if skiprows:
            parts.append(f"skiprows={skiprows} skips its first {_lines(skiprows)}, {top} of which "
                         f"hold{'s' if top == 1 else ''} data")
        if skipfooter:
            left = f"of the {len(data) - top} left" if skiprows else f"of its {len(data)}"
            last = "the last line that holds" if skipfooter == 1 else f"the last {skipfooter} lines that hold"
            parts.append(f"skipfooter={skipfooter} skips {last} data, {left}")
        return ValueError(f"{self.path!r} contains no edge once lines are skipped: " + "; ".join(parts)
                          + ": " + ("lower them" if len(parts) > 1 else "lower it"))

    def decode_error(self, err):
        """The ValueError naming the line of the first bytes ``encoding`` cannot decode."""
        decoder = codecs.getincrementaldecoder(self.encoding)()
        number = 1
        with OPENERS.get(self.compression, open)(self.path, "rb") as stream:
            for piece in stream:  # pieces end at b"\n": "\r\n" stays in one piece
                try:
                    text = decoder.decode(piece)
                except UnicodeDecodeError as bad:
                    err = bad
                    break
                number += len(_LINE_END.findall(text))
        byte = err.object[err.start:err.start + 1]
        return ValueError(f"{self.path!r}, line {number}: cannot be decoded as {self.encoding} ({err.reason}, byte "
                          f"{byte!r}): pass the file's encoding, e.g. encoding='latin-1'")


class Trimmed(io.TextIOBase):
    """The text of a :class:`Text` without its skipped lines, as a stream for pandas:
    the first ``skiprows`` lines are read and dropped, then blocks of
    :data:`TEXT_BLOCK` characters pass through, minus a held-back tail that always
    holds the last ``skipfooter`` data lines seen, dropped at the end."""

    def __init__(self, text):
        self.text, self.stream = text, text.open()
        self.ready, self.held, self.done = "", "", False
        try:
            for _ in range(text.skiprows):
                if not self.stream.readline():
                    break
        except UnicodeDecodeError as err:
            self.close()
            raise text.decode_error(err) from None

    def readable(self):
        return True

    def close(self):
        self.stream.close()
        super().close()

    def read(self, size=-1):
        size = None if size is None or size < 0 else size
        try:
            while not self.done and (size is None or len(self.ready) < size):
                block = self.stream.read(TEXT_BLOCK)
                self.held += block
                if not block:
                    self.done = True
                cut = self._footer_start()
                if cut is None:  # fewer data lines than the footer: all of it may be footer
                    cut = 0
                elif self.done:
                    self.held = self.held[:cut]  # the footer goes
                    cut = len(self.held)
                self.ready += self.held[:cut]
                self.held = self.held[cut:]
        except UnicodeDecodeError as err:
            raise self.text.decode_error(err) from None
        if size is None:
            out, self.ready = self.ready, ""
        else:
            out, self.ready = self.ready[:size], self.ready[size:]
        return out

    def _footer_start(self):
        """Where the last ``skipfooter`` data lines of the held text begin (the end
        when there is no footer), or None if it holds fewer."""
        held, wanted = self.held, self.text.skipfooter
        stop = len(held)
        if wanted == 0:
            return stop
        while stop > 0:
            while stop > 0 and held[stop - 1] in "\r\n":
                stop -= 1
            start = max(held.rfind("\n", 0, stop), held.rfind("\r", 0, stop)) + 1
            if self.text.is_data(held[start:stop]):
                wanted -= 1
                if wanted == 0:
                    return start
            stop = start
        return None


# ---------------------------------------------------------------- the first lines


def data_line(text, index):
    """``(number, text)`` of the line kept that is the ``index``-th (0-based) to hold
    data, its comment cut, or None: read in Python, for a message."""
    lines = text.lines()
    try:
        for number, line in lines:
            content = line if text.comments is None else line.split(text.comments, 1)[0]
            if content.strip():
                if index == 0:
                    return number, content
                index -= 1
        return None
    finally:
        lines.close()


def check_first_line(text, nodetype):
    """Refuse a file whose first data line is a ``%`` comment while ``comments`` is
    not ``"%"`` (KONECT, Matrix Market), or is the size line of a Matrix Market file."""
    first = data_line(text, 0)
    if first is None:
        return
    number, content = first
    matrix_market = matrix_market_size_line(text)
    if text.comments != "%" and content.lstrip().startswith("%") and nodetype is not str:
        hint = (f"pass format='matrixmarket' (or comments='%' and skiprows={matrix_market}, the size line of a Matrix "
                "Market file)" if matrix_market else "pass comments='%' (or format='konect' for a KONECT file)")
        raise ValueError(f"{text.path!r}, line {number}: starts with '%', which starts a comment in KONECT and Matrix "
                         f"Market files, but comments={text.comments!r}: {hint}: {content!r}")
    if matrix_market == number:
        raise ValueError(f"{text.path!r}, line {number}: the size line of a Matrix Market file (rows, columns, "
                         f"entries), not an edge: pass format='matrixmarket', or skiprows={number}: {content!r}")


def skip_matrix_market_header(text):
    """Check that ``text`` is a Matrix Market coordinate file (its banner) and skip its
    lines up to its size line."""
    lines = text.lines(skip=False)
    try:
        banner = next(lines, (1, ""))[1]
    finally:
        lines.close()
    words = banner.lower().split()
    if not words or words[0] != "%%matrixmarket":
        raise ValueError(f"{text.path!r}: a Matrix Market file starts with '%%MatrixMarket', but its first line is "
                         f"{banner[:80]!r}: pass format='text' to read it as an edge list")
    if len(words) > 2 and words[2] != "coordinate":
        raise ValueError(f"{text.path!r}: a Matrix Market {words[2]} (a dense matrix, every entry listed), not an "
                         "edge list: only the coordinate format lists edges")
    size = matrix_market_size_line(text)
    if size is not None:
        text.skip_header(size)


def matrix_market_size_line(text):
    """The number of the size line of a Matrix Market file (its first line that is
    neither blank nor a ``%`` comment), or None for any other file."""
    lines = text.lines(skip=False)
    try:
        first = next(lines, (1, ""))[1]
        if not first.lower().startswith("%%matrixmarket"):
            return None
        for number, line in lines:
            if line.strip() and not line.lstrip().startswith("%"):
                return number
        return None
    finally:
        lines.close()


# ---------------------------------------------------------------- malformed lines


def raise_bad_line(*, text, fmt, positions, delimiter, header, integer_ids):
    """Raise the ValueError naming the first malformed line, read line by line in
    Python (only after the fast reader found something wrong); return if none is."""
    need = max(positions) + 1
    csv_delimiter = delimiter if delimiter is not None else ","
    comments = text.comments
    first = True
    lines = text.lines()
    for number, line in lines:
        fields = _fields(line, fmt, comments, delimiter, csv_delimiter)
        if fields is None:
            continue
        if header:
            header = False
            continue
        problem = _line_problem(fields, positions, need, integer_ids)
        if problem:
            if len(fields) < need and first:
                problem += f" (a count line? skiprows={number} skips the lines up to it)"
            elif len(fields) < need and not any(_fields(rest, fmt, comments, delimiter, csv_delimiter)
                                                for _, rest in lines):
                problem += " (a terminator line? skipfooter=1 skips it)"
            raise ValueError(f"{text.path!r}, line {number}: {problem}: {line!r}")
        first = False


def _fields(line, fmt, comments, delimiter, csv_delimiter):
    """The fields of one line, or None for a blank or comment line."""
    content = line if comments is None else line.split(comments, 1)[0]
    if fmt == "text" and delimiter is None:
        return content.split() or None
    if not content:
        return None
    if fmt == "text":
        return content.split(delimiter)
    return next(csv.reader([content], delimiter=csv_delimiter))


def _line_problem(fields, positions, need, integer_ids):
    """What is wrong with one line's fields, or None."""
    if len(fields) < need:
        missing = [p for p in positions if p >= len(fields)]
        what = "weight" if len(positions) > 2 and missing == [positions[2]] else "node id"
        return f"{len(fields)} column{'s' if len(fields) != 1 else ''} where {need} are needed (no {what})"
    for p in positions[:2]:
        field = fields[p]
        if field == "":
            return f"node id missing in column {p}"
        if integer_ids:
            if not INTEGER.match(field):
                return f"node id {field!r} is not an integer"
            if not INT64[0] <= int(field) <= INT64[1]:
                return f"node id {field!r} does not fit in 64 bits (pass nodetype=str to read the ids as strings)"
    if len(positions) > 2:
        field = fields[positions[2]]
        try:
            value = float(field)
        except ValueError:
            return f"weight {field!r} is not a number"
        if not math.isfinite(value):
            return f"weight {field!r} is NaN or infinite"
        if value < 0:
            return f"weight {field!r} is negative"
    return None


def _lines(count):
    return f"{count} line{'s' if count != 1 else ''}"
