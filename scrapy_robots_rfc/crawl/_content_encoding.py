"""A robots.txt body decoded from its ``Content-Encoding`` as it arrives,
never past a limit (RFC 9309 §2.5: at most ``ROBOTSTXT_RFC_MAX_BYTES`` are
read, and RFC 9110 §8.4.1: the codings are undone in the reverse of the
order they were applied).

Scrapy's ``HttpCompressionMiddleware`` decodes a body once it is all in
memory, and refuses it as a whole past ``DOWNLOAD_MAXSIZE`` ("Ignored
response ..."). The fetcher instead feeds each piece of the body to a
:class:`DecodedBody` as the download handler receives it (the
``bytes_received`` signal), and stops the download as soon as more than the
limit is decoded: a gzip bomb costs the few kilobytes that decode to the
limit, never the gigabytes it would inflate to. It decodes the codings
Scrapy decodes, with the same modules: gzip (and x-gzip), deflate (zlib or
raw, as Microsoft servers send it), br (``brotli`` 1.2 or later, or
``brotlicffi``) and zstd (``compression.zstd`` on Python 3.14,
``backports.zstd`` before), each when its module can be imported.

Like Scrapy's gunzip, a body damaged after some of it decoded is read up to
the damage (servers that send a wrong gzip checksum are common); one that
decodes to nothing is not read at all.
"""

from __future__ import annotations

import importlib
import zlib
from typing import Any, Protocol


class Damaged(Exception):
    """The body cannot be decoded further; the message says why, and
    ``partial`` holds what the last piece decoded to before the damage."""

    def __init__(self, reason: str, partial: list[bytes] | None = None) -> None:
        super().__init__(reason)
        self.partial = partial or []


class _Stage(Protocol):
    """One content coding undone."""

    def take(self, data: bytes, room: int) -> list[bytes]:
        """Decode ``data`` into pieces of at most ``room`` (> 0) bytes in
        all. Input that would give more is dropped: the body is full then.
        Pieces, not one string, so that no decoded byte is ever copied
        twice: the fetch joins them once (:meth:`DecodedBody.body`)."""


class _Zlib:
    """gzip (``wbits`` 47: a gzip or zlib header, told apart by zlib),
    several gzip members one after the other as ``gzip.decompress`` reads
    them; or deflate: a zlib stream, or raw deflate when its first two
    bytes are not a zlib header (RFC 1950 §2.2)."""

    def __init__(self, gzip: bool) -> None:
        self._gzip = gzip
        self._head = b""
        self._d: Any = zlib.decompressobj(47) if gzip else None

    def take(self, data: bytes, room: int) -> list[bytes]:
        if self._d is None:  # deflate: which kind shows in the first two bytes
            self._head += data
            if len(self._head) < 2:
                return []
            cmf, flg = self._head[0], self._head[1]
            zlib_header = cmf & 0x0F == 8 and (cmf << 8 | flg) % 31 == 0
            self._d = zlib.decompressobj(15 if zlib_header else -15)
            data, self._head = self._head, b""
        out: list[bytes] = []
        size = 0
        while data and size < room:
            before = self._d.copy()
            try:
                piece = self._d.decompress(data, room - size)
            except zlib.error as exc:
                # zlib drops what the call decoded before the damage (a
                # wrong checksum at the end of a gzip member): decode the
                # piece again in small steps, up to the damage.
                out += _until_damage(before, data, room - size)
                raise Damaged(str(exc), out) from None
            out.append(piece)
            size += len(piece)
            data = b""
            if self._d.eof and self._gzip and self._d.unused_data.strip(b"\0"):
                # Another gzip member follows (RFC 1952 §2.2).
                data = self._d.unused_data
                self._d = zlib.decompressobj(47)
        return out


def _until_damage(d: Any, data: bytes, room: int) -> list[bytes]:
    """What ``data`` decodes to up to the damage in it, fed to ``d`` (a
    zlib decompressor) 512 bytes at a time, the damaged 512 one at a time."""
    out: list[bytes] = []
    size = 0
    for start in range(0, len(data), 512):
        if size >= room:
            break
        before = d.copy()
        try:
            piece = d.decompress(data[start : start + 512], room - size)
        except zlib.error:
            d = before
            for byte in range(start, min(start + 512, len(data))):
                if size >= room:
                    break
                try:
                    piece = d.decompress(data[byte : byte + 1], room - size)
                except zlib.error:
                    break
                out.append(piece)
                size += len(piece)
            break
        out.append(piece)
        size += len(piece)
    return out


class _Brotli:
    """br (RFC 7932), with brotli's output limit (brotli 1.2 or later, as
    Scrapy requires it for br). The limit is where brotli stops growing its
    output buffer, not a cap: a call may give twice as much, or 32 KiB. So
    the output is asked for in small steps, and the last step cut at
    ``room``."""

    _STEP = 16 * 1024

    def __init__(self, module: Any) -> None:
        self._error = module.error
        self._d = module.Decompressor()

    def take(self, data: bytes, room: int) -> list[bytes]:
        out: list[bytes] = []
        size = 0
        try:
            piece = self._d.process(data, output_buffer_limit=min(room, self._STEP))
            out.append(piece)
            size += len(piece)
            # As Scrapy's own br decoding drains it: until it gives nothing.
            while size < room and piece and not self._d.is_finished():
                piece = self._d.process(b"", output_buffer_limit=min(room - size, self._STEP))
                out.append(piece)
                size += len(piece)
        except self._error as exc:
            raise Damaged(str(exc) or "invalid brotli data", _cut(out, room)) from None
        return _cut(out, room)


def _cut(pieces: list[bytes], room: int) -> list[bytes]:
    """``pieces``, the last one cut so that they hold at most ``room`` bytes."""
    over = sum(len(piece) for piece in pieces) - room
    if over > 0:
        pieces[-1] = pieces[-1][: len(pieces[-1]) - over]
    return pieces


class _Zstd:
    """zstd (RFC 8878), several frames one after the other."""

    def __init__(self, module: Any) -> None:
        self._module = module
        self._d = module.ZstdDecompressor()

    def take(self, data: bytes, room: int) -> list[bytes]:
        out: list[bytes] = []
        size = 0
        try:
            while size < room:
                piece = self._d.decompress(data, room - size)
                out.append(piece)
                size += len(piece)
                data = b""
                if self._d.eof:
                    data = self._d.unused_data
                    if not data:
                        break
                    self._d = self._module.ZstdDecompressor()
                elif self._d.needs_input:
                    break
        except self._module.ZstdError as exc:
            raise Damaged(str(exc), out) from None
        return out


def _module(*names: str) -> Any:
    for name in names:
        try:
            return importlib.import_module(name)
        except ImportError:
            continue
    return None


def _stage(coding: str) -> _Stage | None:
    """A decoder for ``coding`` (lower case), or ``None`` when it is not one
    this module decodes, or its module is not installed."""
    if coding in ("gzip", "x-gzip", "deflate"):
        return _Zlib(gzip=coding != "deflate")
    if coding == "br":
        brotli = _module("brotli", "brotlicffi")
        # brotli before 1.2 has no output limit; Scrapy does not decode br then.
        if brotli is not None and hasattr(brotli.Decompressor, "can_accept_more_data"):
            return _Brotli(brotli)
        return None
    if coding == "zstd":
        zstd = _module("compression.zstd", "backports.zstd")
        return None if zstd is None else _Zstd(zstd)
    return None


class DecodedBody:
    """The decoded body of one response, fed piece by piece: at most
    ``limit`` + 1 bytes of it are ever decoded (one more than the limit
    tells a body larger than the limit from one that fills it exactly), and
    no coding of a chain (``gzip, br``) gives more than that to the next."""

    def __init__(self, codings: tuple[str, ...], stages: list[_Stage], limit: int) -> None:
        #: The codings in the order the server applied them: ``("gzip",)``.
        self.codings = codings
        self._stages = stages
        self._made = [0] * len(stages)
        self._limit = limit
        self._pieces: list[bytes] = []
        #: Bytes of the body as received (encoded).
        self.received = 0
        #: Bytes decoded so far.
        self.size = 0
        #: More than the limit decoded: the rest is not needed.
        self.full = False
        #: Why decoding stopped early, if it did: the body is damaged.
        self.damage: str | None = None

    @classmethod
    def of(cls, content_encoding: list[bytes], limit: int) -> DecodedBody | None:
        """The decoder for a response whose ``Content-Encoding`` header has
        the values ``content_encoding``; ``None`` when it names no coding
        (or only ``identity``), or one this module cannot decode."""
        codings = tuple(
            coding
            for value in content_encoding
            for part in value.split(b",")
            if (coding := part.strip().decode("latin-1").lower()) not in ("", "identity")
        )
        if not codings:
            return None
        stages = [_stage(coding) for coding in reversed(codings)]
        if any(stage is None for stage in stages):
            return None
        return cls(codings, [stage for stage in stages if stage is not None], limit)

    @property
    def stopped(self) -> bool:
        """Whether decoding stopped before the body's end: full, or damaged."""
        return self.full or self.damage is not None

    def feed(self, data: bytes) -> bool:
        """Decode the next piece of the body; whether decoding has stopped
        (:attr:`stopped`): the rest of the body is not needed."""
        if self.stopped:
            return True
        self.received += len(data)
        pieces = [data]
        for i, stage in enumerate(self._stages):
            out: list[bytes] = []
            for piece in pieces:
                room = self._limit + 1 - self._made[i]
                if not piece or room <= 0:
                    continue
                try:
                    got = stage.take(piece, room)
                except Damaged as exc:
                    # What decoded before the damage still goes through.
                    got = exc.partial
                    self.damage = self.damage or str(exc) or "damaged data"
                self._made[i] += sum(len(p) for p in got)
                out += got
                if self.damage is not None:
                    break
            if self._made[i] > self._limit:
                self.full = True
            pieces = out
        for piece in pieces:
            if piece:
                self._pieces.append(piece)
                self.size += len(piece)
        return self.stopped

    def body(self) -> bytes:
        """What was decoded, at most the limit and one byte; the pieces are
        let go (call it once)."""
        pieces, self._pieces = self._pieces, []
        return b"".join(pieces)
