"""Unpacking a bot uploaded from the browser (``tourney serve --ladder-entry``) into a folder.

An upload is one file (the bot itself, e.g. ``bot.py``) or an archive of a folder (``.zip``,
``.tar``, ``.tar.gz``/``.tgz``, ``.tar.bz2``, ``.tar.xz``). Nothing in an archive decides where
a file lands or what it is: every member must be a plain file or folder with a relative name
that stays inside the target (no absolute path, no ``..``, no backslash or control character), and
links, devices and fifos are refused, never skipped, so the author learns why. The number of files
and the bytes written are bounded while writing (an archive's declared sizes may lie), so a small
zip that inflates to gigabytes stops at the bound. Files are written by this code with modes of
its choosing (0o644, 0o755 where the archive marks a file executable); nothing is run here: the
version's check runs it, in the sandbox.

An archive whose members all sit in one top folder (``mybot/main.py``) is unpacked from inside
that folder, as authors zip a folder by its name.
"""

from __future__ import annotations

import io
import os
import re
import stat
import tarfile
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path, PurePosixPath
from typing import IO

#: the most files an upload may hold, and the most bytes it may unpack to
MAX_FILES = 500
MAX_BYTES = 64 * 1024 * 1024
#: a file name as uploaded: no folder, no leading dot, printable ASCII
FILE_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.+-]{0,99}")
ARCHIVES = (".zip", ".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tar.xz")
CHUNK = 64 * 1024


class UnpackError(ValueError):
    """An upload that is refused: the reason, in one line, for its author."""


@dataclass
class Member:
    name: str            # as the archive gives it
    is_dir: bool
    executable: bool
    size: int            # as declared (checked again while writing)
    opener: Callable[[], IO[bytes] | None]  # the member's bytes


def safe_name(name: str) -> PurePosixPath:
    """An archive member's name as a relative path inside the target, or UnpackError."""
    if not name or any(ord(c) < 32 or c == "\\" for c in name):
        raise UnpackError(f"{name[:60]!r}: a file name with a backslash or control character")
    if name.startswith("/") or re.match(r"[A-Za-z]:", name):
        raise UnpackError(f"{name[:60]!r}: an absolute path (the archive must hold relative names)")
    parts = [p for p in PurePosixPath(name).parts if p not in ("", ".")]
    if ".." in parts:
        raise UnpackError(f"{name[:60]!r}: a path with '..' (it would land outside the bot's folder)")
    if not parts:
        raise UnpackError(f"{name[:60]!r}: an empty file name")
    return PurePosixPath(*parts)


def _zip_members(data: bytes) -> list[Member]:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, ValueError) as exc:
        raise UnpackError(f"not a readable zip file ({exc})") from None
    out = []
    for info in archive.infolist():
        mode = info.external_attr >> 16
        kind = stat.S_IFMT(mode)
        if kind and kind not in (stat.S_IFREG, stat.S_IFDIR):
            what = "a symbolic link" if kind == stat.S_IFLNK else "not a plain file or folder"
            raise UnpackError(f"{info.filename[:60]!r}: {what}; an upload may hold plain files and folders only")
        if info.flag_bits & 0x1:
            raise UnpackError(f"{info.filename[:60]!r}: an encrypted file")
        out.append(Member(info.filename, info.is_dir(), bool(mode & 0o111), info.file_size,
                          partial(archive.open, info)))
    return out


def _tar_members(data: bytes) -> list[Member]:
    try:
        # in memory, and read by the members' openers after this returns: nothing to close early
        archive = tarfile.open(fileobj=io.BytesIO(data), mode="r:*")  # noqa: SIM115
        infos = archive.getmembers()
    except (tarfile.TarError, EOFError, OSError) as exc:
        raise UnpackError(f"not a readable tar file ({exc})") from None
    out = []
    for info in infos:
        if info.issym() or info.islnk():
            raise UnpackError(f"{info.name[:60]!r}: a link; an upload may hold plain files and folders only")
        if not (info.isfile() or info.isdir()):
            raise UnpackError(f"{info.name[:60]!r}: a device, fifo or other special file; an upload may hold "
                              "plain files and folders only")
        out.append(Member(info.name, info.isdir(), bool(info.mode & 0o111), info.size,
                          partial(archive.extractfile, info)))
    return out


def unpack(file_name: str, data: bytes, target: Path, *, max_files: int = MAX_FILES,
           max_bytes: int = MAX_BYTES) -> list[str]:
    """Write the upload ``file_name`` (its bytes ``data``) into the empty folder ``target``;
    returns the files written, relative to it. Raises UnpackError, leaving ``target`` to be
    removed by the caller, when anything is refused."""
    target.chmod(0o755)  # a bot runs as a user of its own: it must reach its folder (mkdtemp makes 0o700)
    base = os.path.basename(file_name.replace("\\", "/"))
    lower = base.lower()
    if not lower.endswith(ARCHIVES):
        if not FILE_NAME.fullmatch(base):
            raise UnpackError(f"file name {base[:60]!r}: use letters, digits, '.', '_', '+' or '-' "
                              "(up to 100), not starting with a dot")
        if len(data) > max_bytes:
            raise UnpackError(f"the file is larger than {max_bytes} bytes")
        path = target / base
        path.write_bytes(data)
        path.chmod(0o755)  # the bot itself: its command may run it directly
        return [base]
    members = _zip_members(data) if lower.endswith(".zip") else _tar_members(data)
    names = [(safe_name(m.name), m) for m in members]
    files = [(n, m) for n, m in names if not m.is_dir]
    if not files:
        raise UnpackError("the archive holds no file")
    if len(files) > max_files:
        raise UnpackError(f"the archive holds {len(files)} files, more than {max_files}")
    if sum(m.size for _, m in files) > max_bytes:
        raise UnpackError(f"the archive unpacks to more than {max_bytes} bytes")
    tops = {n.parts[0] for n, _ in names}
    strip = 1 if len(tops) == 1 and all(len(n.parts) > 1 for n, _ in files) else 0
    written, total, seen = [], 0, set()
    for name, member in files:
        rel = PurePosixPath(*name.parts[strip:])
        if rel in seen:
            raise UnpackError(f"{member.name[:60]!r}: the archive holds this file twice")
        seen.add(rel)
        path = target.joinpath(*rel.parts)
        try:
            path.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
            src = member.opener()
            if src is None:
                raise UnpackError(f"{member.name[:60]!r}: cannot be read")
            with src, open(path, "xb") as out:
                while chunk := src.read(CHUNK):
                    total += len(chunk)
                    if total > max_bytes:
                        raise UnpackError(f"the archive unpacks to more than {max_bytes} bytes")
                    out.write(chunk)
        except (OSError, zipfile.BadZipFile, tarfile.TarError) as exc:
            raise UnpackError(f"{member.name[:60]!r}: cannot be unpacked ({exc.__class__.__name__})") from None
        path.chmod(0o755 if member.executable else 0o644)
        written.append(str(rel))
    return written
