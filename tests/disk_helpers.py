"""Small real filesystems for disk faults: a size-capped tmpfs mount and a file that fills it.

Kafka's system tests make a log dir fail with ``chmod a-w``; a full disk is what a real
broker meets more often, and a tmpfs with ``size=`` gives ENOSPC exactly as a full disk
does.  Mounting needs root (CAP_SYS_ADMIN): ``mount_tmpfs`` raises ``DiskFaultError`` with
the reason otherwise, so a test that needs it fails loudly.
"""

from __future__ import annotations

import contextlib
import errno
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

FILLER = "chaos-filler"
_CHUNK = b"\0" * (1 << 20)


class DiskFaultError(RuntimeError):
    """A tmpfs could not be mounted or unmounted (the message has ``mount``'s error)."""


@contextlib.contextmanager
def mount_tmpfs(path: Path, size_bytes: int) -> Iterator[Path]:
    """Mount a tmpfs of ``size_bytes`` bytes at ``path`` (created) for the block; unmounted after.

    Raises:
        DiskFaultError: not root, or mount/umount failed.
    """
    if os.geteuid() != 0:
        raise DiskFaultError("mounting a tmpfs needs root")
    path.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size_bytes}", "tmpfs", str(path)],
        capture_output=True,
        text=True,
        timeout=30,
    )
    if done.returncode != 0:
        raise DiskFaultError(f"mount -t tmpfs at {path}: {done.stderr.strip()}")
    try:
        yield path
    finally:
        done = subprocess.run(["umount", "--lazy", str(path)], capture_output=True, text=True, timeout=30)
        if done.returncode != 0:
            raise DiskFaultError(f"umount {path}: {done.stderr.strip()}")


def fill(mount: Path) -> int:
    """Write ``<mount>/chaos-filler`` until the filesystem is full; returns the bytes written.

    Raises:
        OSError: an error other than ENOSPC.
    """
    written = 0
    with open(mount / FILLER, "ab", buffering=0) as fh:
        while True:
            try:
                written += fh.write(_CHUNK)
            except OSError as exc:
                if exc.errno != errno.ENOSPC:
                    raise
                break
        for size in (4096, 512, 1):  # the last pages too
            while True:
                try:
                    written += fh.write(b"\0" * size)
                except OSError as exc:
                    if exc.errno != errno.ENOSPC:
                        raise
                    break
    return written


def free(mount: Path) -> None:
    """Delete the filler: the filesystem has room again."""
    (mount / FILLER).unlink(missing_ok=True)
