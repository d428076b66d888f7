"""Call resolution's memo: lookups remembered only where a fresh one would answer the same, and
what each one read.

Resolving a call follows names through scopes, imports, modules and class
bases (:mod:`greploom.core.calls`), and the same lookups recur from call to
call, so their answers are remembered. Two things make an answer depend on
where the walk that asked for it started, and such an answer is not kept:

- a cycle (modules re-exporting a name from each other, bases that reach
  back): a lookup asked for again while it is under way answers its
  placeholder (nothing), so the answers met inside the cycle, and the lookup
  it closes on, are not kept;
- the depth limit (:data:`MAX_DEPTH` re-exports and bases followed): an answer
  that reached it depends on the depth it was asked at; one that did not is
  reused only where asking it anew would not reach the limit either.

So a call links where resolving that call alone, with nothing remembered,
links it, whichever calls were resolved before it and whether they were
(law 10 of tests/properties/test_calls.py): an index run can resolve the calls
of a few files and keep the links of the others.

The memo also notes what each lookup read (:class:`Reads`): the files whose
definitions, bindings and nodes it looked at, and the names it looked up in
the tables that span the code base (:func:`table_key`: top-level definitions
anywhere, classes by name, objects functions are defined on, the names a
directory's modules bind, modules by path). A remembered answer brings its
reads along, so a call's reads are those of its fresh resolution: a call that
read nothing that changed links as before (greploom.core.relink).
"""

from __future__ import annotations

from collections.abc import Hashable

import attrs

MAX_DEPTH = 12  # re-export chains and base classes followed; guards cycles
TABLE_MARK = "\0"  # a read of a code-base-wide table, not of a file


def table_key(table: str, name: str) -> str:
    """The read of one entry of a code-base-wide table (``top``, ``class``, ``owned``, ``dir``,
    ``path``, ``stem``, ``suffix``): never a file's name, which cannot start with NUL."""
    return f"{TABLE_MARK}{table}:{name}"


class _Miss:
    """No answer remembered that may be reused here."""


MISS = _Miss()


@attrs.frozen
class Reads:
    """What resolving some calls read: file names, and :func:`table_key` entries."""

    items: frozenset[str] = frozenset()

    @property
    def files(self) -> frozenset[str]:
        return frozenset(i for i in self.items if not i.startswith(TABLE_MARK))

    @property
    def tables(self) -> frozenset[str]:
        return frozenset(i for i in self.items if i.startswith(TABLE_MARK))


class _Frame:
    __slots__ = ("deepest", "depth", "key", "reads", "tainted")

    def __init__(self, key: Hashable, depth: int) -> None:
        self.key = key
        self.depth = depth
        self.deepest = depth
        self.reads: set[str] = set()
        self.tainted = False


class Memo:
    """Lookups under way (a stack of frames) and answers that may be reused, with their reads.

    A memoised lookup asks :meth:`get` first; on :data:`MISS` it calls
    :meth:`push`, computes, and hands its answer to :meth:`pop`. Reads go into
    :attr:`reads` (the set of the lookup under way); the depth limit is asked
    through :meth:`beyond`. A caller resolving one call brackets it with
    :meth:`start` and :meth:`finish`.
    """

    def __init__(self) -> None:
        self._answers: dict[Hashable, tuple[object, frozenset[str], int]] = {}
        self._stack: list[_Frame] = [_Frame(None, 0)]
        self._active: dict[Hashable, int] = {}
        self._sets: dict[frozenset[str], frozenset[str]] = {}  # equal read sets shared, not copied
        self.reads: set[str] = self._stack[0].reads

    def start(self) -> None:
        """Begin resolving one call: its reads are gathered apart."""
        self._stack.append(_Frame(None, 0))
        self.reads = self._stack[-1].reads

    def finish(self) -> set[str]:
        """End resolving one call: what it read."""
        frame = self._stack.pop()
        self.reads = self._stack[-1].reads
        return frame.reads

    def get(self, key: Hashable, depth: int, placeholder: object) -> object:
        """A reusable answer (its reads added to the lookup under way), the placeholder of a
        lookup under way (a cycle), or :data:`MISS`."""
        at = self._active.get(key)
        if at is not None:
            for frame in self._stack[at:]:
                frame.tainted = True
            return placeholder
        entry = self._answers.get(key)
        if entry is None:
            return MISS
        answer, reads, span = entry
        if depth + span > MAX_DEPTH:
            return MISS  # asked deeper than it was: asking anew might meet the limit
        top = self._stack[-1]
        if reads:
            top.reads |= reads
        top.deepest = max(top.deepest, depth + span)
        return answer

    def push(self, key: Hashable, depth: int) -> None:
        """Begin a lookup (after :meth:`get` gave :data:`MISS`)."""
        self._active[key] = len(self._stack)
        self._stack.append(_Frame(key, depth))
        self.reads = self._stack[-1].reads

    def pop(self, answer: object) -> None:
        """End the lookup begun last, with its answer: kept unless a cycle or the limit met it."""
        frame = self._stack.pop()
        del self._active[frame.key]
        parent = self._stack[-1]
        self.reads = parent.reads
        parent.reads |= frame.reads
        parent.deepest = max(parent.deepest, frame.deepest)
        if not frame.tainted:
            reads = frozenset(frame.reads)
            shared = self._sets.setdefault(reads, reads)
            self._answers[frame.key] = (answer, shared, frame.deepest - frame.depth)

    def beyond(self, depth: int) -> bool:
        """Whether a lookup at ``depth`` is past :data:`MAX_DEPTH` (then nothing under way is kept)."""
        top = self._stack[-1]
        top.deepest = max(top.deepest, depth)
        if depth <= MAX_DEPTH:
            return False
        for frame in self._stack:
            frame.tainted = True
        return True
