"""Files that survive a crash: a directory fsync and an atomic replace.

Owns: ``fsync_dir`` and ``write_file_atomically``, used by the broker's checkpoint files and
log and by the controller's metadata log and snapshots (below both, so that neither imports
the other).  Does not own what the files hold.
"""

from __future__ import annotations

import os
from pathlib import Path


def fsync_dir(path: Path) -> None:
    """fsync a directory so that a rename or a new file in it survives a crash."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_file_atomically(path: Path, data: bytes, *, durable: bool = True) -> None:
    """Replace ``path`` with ``data`` atomically: temp file, fsync, rename, fsync the dir.

    A crash at any point leaves either the old or the new contents (plus, at worst, a
    stray ``<name>.tmp`` that readers ignore and the next write replaces).  With ``durable``
    False the fsyncs are skipped: a process crash still sees old or new contents, a machine
    crash may leave the new name with torn contents (for files checked by a CRC).

    Raises:
        OSError: the write, fsync or rename failed.
    """
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        view = memoryview(data)
        while view:
            written = os.write(fd, view)
            view = view[written:]
        if durable:
            os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)
    if durable:
        fsync_dir(path.parent)
