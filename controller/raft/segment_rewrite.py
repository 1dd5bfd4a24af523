"""SegmentRewrite: the file work of one metadata log snapshot, planned on the event loop and run
on a worker thread.

Owns: what a snapshot changes on disk (the snapshot file written, the entries after it written
to a new segment named after the new log start offset, the old segment and snapshot deleted,
every step fsynced), as one blocking ``run`` that touches no in-memory state, so that the
driver can run it off its event loop while the log keeps answering reads and buffering
appends.  Does not own when a snapshot is taken or what the log holds in memory
(``FileReplicatedLog``: ``create_snapshot`` / ``install_snapshot`` plan it,
``complete_rewrite`` switches to the new segment).

Crash safety is the log's: the snapshot file is written (temp file, fsync, rename) before the
new segment, and the new segment (holding every entry after the snapshot that the log held
when it was planned) before the old one is deleted; the opener keeps the segment starting at
the log start offset, else the newest one below it.

Kafka concept: ``KafkaMetadataLog.createNewSnapshot`` / ``FileRawSnapshotWriter.freeze`` and the
log start offset advance (``maybeClean``) that deletes the segments a snapshot sums up; Kafka
runs them on the raft and controller threads, never on its network threads.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from kafkette.common.durable_files import fsync_dir, write_file_atomically


@dataclass
class SegmentRewrite:
    """One planned snapshot's file work.

    Attributes:
        directory: the partition directory.
        snapshot_path: the snapshot file to write.
        snapshot_bytes: its content (one frame).
        segment_path: the new segment (named after the new log start offset).
        segment_bytes: the frames of the entries kept after the snapshot (bytes).
        old_segment: the segment the log wrote to before (deleted once the new one is in place).
        old_snapshot: the snapshot file it replaces (deleted), or None.
        durable_end: the offset below which the new segment holds every entry fsynced; lowered
            when the log is truncated below it before the rewrite completes.
        truncate_at: a byte position in the new segment to cut it at once it is in place (the log
            was truncated into its kept entries meanwhile), or None.
        started: a driver has taken it to run.
    """

    directory: Path
    snapshot_path: Path
    snapshot_bytes: bytes
    segment_path: Path
    segment_bytes: bytes
    old_segment: Path
    old_snapshot: Path | None
    durable_end: int
    truncate_at: int | None = None
    started: bool = False

    def run(self) -> BinaryIO:
        """Write the snapshot and the new segment durably, delete what they replace (blocking:
        meant for a worker thread; reads no state but this object's).

        Returns:
            The new segment, open for appending (``r+b``, positioned at its end).

        Raises:
            OSError: a file could not be written, opened or deleted.
        """
        write_file_atomically(self.snapshot_path, self.snapshot_bytes)
        write_file_atomically(self.segment_path, self.segment_bytes)
        segment = open(self.segment_path, "r+b")  # noqa: SIM115 - handed to the log, which owns it
        try:
            segment.seek(0, os.SEEK_END)
            if self.old_segment != self.segment_path:
                self.old_segment.unlink(missing_ok=True)
            if self.old_snapshot is not None and self.old_snapshot != self.snapshot_path:
                self.old_snapshot.unlink(missing_ok=True)
            fsync_dir(self.directory)
        except BaseException:
            segment.close()
            raise
        return segment
