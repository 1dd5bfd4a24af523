"""Where a demo's brokers (and checkpoints) keep their files: ``--data-dir`` or a temporary directory.

Owns: ``demo_data_dir``, shared by the demos' ``main()``.  Does not own the cluster or
what the demo writes there.
"""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path


@contextlib.contextmanager
def demo_data_dir(given: str | None, prefix: str) -> Iterator[Path]:
    """The directory a demo runs in, removed afterwards only when the demo made it.

    Args:
        given: the user's ``--data-dir`` (kept as is, with its contents), or None.
        prefix: name prefix of the temporary directory made when ``given`` is None.

    Returns:
        A context manager yielding the directory's path.
    """
    if given:
        yield Path(given)
        return
    data_dir = Path(tempfile.mkdtemp(prefix=prefix))
    try:
        yield data_dir
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)
