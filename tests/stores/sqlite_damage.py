"""Damage to part of an SQLite store's records table, as a failing disk or
a copy cut short leaves it (issue 41): pages of the table's b-tree
overwritten in the file, while the rest of the file (the schema, the first
page of records, the locks table) reads as before. The crawl's reads and
writes of the origins on those pages fail; a read of one row does not.

The pages are found by reading the b-tree as the SQLite file format
describes it (https://www.sqlite.org/fileformat2.html, "B-tree Pages"): the
table's root is an interior page whose cells point to its leaves.
"""

from __future__ import annotations

import sqlite3
import struct
from dataclasses import dataclass, field
from pathlib import Path

#: Page types of a table b-tree (the file format's first header byte).
_INTERIOR, _LEAF = 0x05, 0x0D


@dataclass
class Damage:
    """Pages of ``path`` overwritten; :meth:`repair` writes them back."""

    path: Path
    page_size: int
    #: Page number -> the bytes it held before.
    pages: dict[int, bytes] = field(default_factory=dict)

    def repair(self) -> None:
        with self.path.open("r+b") as f:
            for number, data in self.pages.items():
                f.seek((number - 1) * self.page_size)
                f.write(data)


def leaves(path: Path, table: str = "records") -> tuple[int, list[int]]:
    """The page size and the leaf pages of ``table``, in key order: its root
    must be an interior page over leaves (a table of some hundred rows)."""
    db = sqlite3.connect(path)
    try:
        root = db.execute("SELECT rootpage FROM sqlite_schema WHERE name = ?", (table,)).fetchone()
        page_size = db.execute("PRAGMA page_size").fetchone()[0]
    finally:
        db.close()
    data = path.read_bytes()

    def page(number: int) -> bytes:
        start = (number - 1) * page_size
        return data[start : start + page_size]

    top = page(root[0])
    assert top[0] == _INTERIOR, f"the root of {table} is not an interior page"
    cells = struct.unpack(">H", top[3:5])[0]
    pointers = [struct.unpack(">H", top[12 + 2 * i : 14 + 2 * i])[0] for i in range(cells)]
    children = [struct.unpack(">I", top[p : p + 4])[0] for p in pointers]
    children.append(struct.unpack(">I", top[8:12])[0])  # the right-most child
    assert all(page(child)[0] == _LEAF for child in children)
    return page_size, children


def damage_records(path: Path) -> Damage:
    """Overwrite every leaf of the records table but the first with bytes
    that are no b-tree page. The file must be checkpointed and closed (no
    ``-wal`` file holds a newer copy of a page)."""
    assert not Path(f"{path}-wal").exists() or Path(f"{path}-wal").stat().st_size == 0
    page_size, children = leaves(path)
    assert len(children) >= 3, children
    damage = Damage(path, page_size)
    with path.open("r+b") as f:
        for number in children[1:]:
            f.seek((number - 1) * page_size)
            damage.pages[number] = f.read(page_size)
            f.seek((number - 1) * page_size)
            f.write(b"\xff" * page_size)
    return damage
