"""ProducerStateManager: duplicate detection, sequence and epoch checks, rebuild from a log."""

from __future__ import annotations

import pytest
from broker_fakes import TP0, header_of, make_batch

from kafkette.broker.log.log_config import LogConfig
from kafkette.broker.log.producer_state_manager import (
    NUM_BATCHES_TO_RETAIN,
    BatchMetadata,
    ProducerStateManager,
)
from kafkette.broker.log.unified_log import UnifiedLog
from kafkette.protocol.errors import InvalidProducerEpochError, OutOfOrderSequenceNumberError


def header(records=1, *, producer_id=7, epoch=0, seq=0, base_offset=0):
    return header_of(
        make_batch(
            records, producer_id=producer_id, producer_epoch=epoch, base_sequence=seq, base_offset=base_offset
        )
    )


def test_batches_without_a_producer_id_are_never_checked_or_recorded():
    state = ProducerStateManager()
    plain = header(producer_id=-1, epoch=-1, seq=-1)
    state.update(plain, 0)
    assert state.check(plain) is None
    assert state.entries == {}


def test_first_batch_of_an_unknown_producer_is_accepted_at_any_sequence():
    state = ProducerStateManager()
    assert state.check(header(seq=42)) is None


def test_retried_batch_is_reported_with_its_original_offsets():
    state = ProducerStateManager()
    state.update(header(3, seq=0), 10)
    state.update(header(2, seq=3), 13)
    assert state.check(header(3, seq=0)) == BatchMetadata(
        first_seq=0, last_seq=2, first_offset=10, last_offset=12
    )
    assert state.check(header(2, seq=3)) == BatchMetadata(3, 4, 13, 14)


def test_next_sequence_is_accepted_and_a_gap_is_out_of_order():
    state = ProducerStateManager()
    state.update(header(3, seq=0), 0)
    assert state.check(header(1, seq=3)) is None
    with pytest.raises(OutOfOrderSequenceNumberError):
        state.check(header(1, seq=4))
    with pytest.raises(OutOfOrderSequenceNumberError):  # overlaps a retained batch without matching it
        state.check(header(2, seq=1))


def test_older_epoch_is_refused():
    state = ProducerStateManager()
    state.update(header(epoch=3, seq=0), 0)
    with pytest.raises(InvalidProducerEpochError):
        state.check(header(epoch=2, seq=1))


def test_epoch_bump_resets_the_producer_entry():
    state = ProducerStateManager()
    state.update(header(2, epoch=0, seq=0), 0)
    state.update(header(2, epoch=0, seq=2), 2)
    assert state.check(header(1, epoch=1, seq=0)) is None
    state.update(header(1, epoch=1, seq=0), 4)
    entry = state.entries[7]
    assert entry.producer_epoch == 1
    assert list(entry.batches) == [BatchMetadata(0, 0, 4, 4)]
    assert state.check(header(1, epoch=1, seq=0)) == BatchMetadata(0, 0, 4, 4)
    with pytest.raises(InvalidProducerEpochError):
        state.check(header(2, epoch=0, seq=2))


def test_update_with_an_older_epoch_is_ignored():
    state = ProducerStateManager()
    state.update(header(epoch=2, seq=0), 0)
    state.update(header(epoch=1, seq=1), 1)
    assert state.entries[7].producer_epoch == 2
    assert state.entries[7].last_seq == 0


def test_new_epoch_must_start_at_sequence_zero():
    # Kafka (ProducerAppendInfo.checkSequence): a batch opening a new producer epoch
    # with a non-zero sequence means earlier batches of that epoch were lost.
    state = ProducerStateManager()
    state.update(header(2, epoch=0, seq=0), 0)
    with pytest.raises(OutOfOrderSequenceNumberError):
        state.check(header(1, epoch=1, seq=5))


def test_only_the_last_five_batches_are_remembered_for_dedup():
    state = ProducerStateManager()
    for seq in range(NUM_BATCHES_TO_RETAIN + 1):
        state.update(header(1, seq=seq), seq)
    with pytest.raises(OutOfOrderSequenceNumberError):
        state.check(header(1, seq=0))
    assert state.check(header(1, seq=1)) == BatchMetadata(1, 1, 1, 1)


def _log(tmp_path, config=None):
    return UnifiedLog.open(tmp_path / str(TP0), TP0, config or LogConfig(), had_clean_shutdown=True)


def test_rebuild_reads_producer_batches_back_from_the_log(tmp_path):
    log = _log(tmp_path)
    log.append_as_leader(bytearray(make_batch(2, producer_id=1, producer_epoch=0, base_sequence=0)), 1)
    log.append_as_leader(bytearray(make_batch(1)), 1)
    log.append_as_leader(bytearray(make_batch(3, producer_id=2, producer_epoch=4, base_sequence=10)), 1)
    log.append_as_leader(bytearray(make_batch(1, producer_id=1, producer_epoch=0, base_sequence=2)), 1)
    state = ProducerStateManager()
    state.rebuild(log)
    assert list(state.entries[1].batches) == [BatchMetadata(0, 1, 0, 1), BatchMetadata(2, 2, 6, 6)]
    assert state.entries[2].producer_epoch == 4
    assert list(state.entries[2].batches) == [BatchMetadata(10, 12, 3, 5)]
    log.close()


def test_rebuild_after_truncation_forgets_truncated_batches(tmp_path):
    log = _log(tmp_path)
    log.append_as_leader(bytearray(make_batch(2, producer_id=1, producer_epoch=0, base_sequence=0)), 1)
    log.append_as_leader(bytearray(make_batch(2, producer_id=1, producer_epoch=0, base_sequence=2)), 1)
    state = ProducerStateManager()
    state.rebuild(log)
    log.truncate_to(2)
    state.rebuild(log)
    assert state.entries[1].last_seq == 1
    assert state.check(header(2, producer_id=1, seq=2)) is None
    log.close()


def test_rebuild_reads_across_segments(tmp_path):
    log = _log(tmp_path, LogConfig(segment_bytes=400))
    for seq in range(6):
        log.append_as_leader(
            bytearray(make_batch(1, producer_id=1, producer_epoch=0, base_sequence=seq, value_bytes=100)), 1
        )
    assert len(log.segments) >= 2
    state = ProducerStateManager()
    state.rebuild(log)
    assert state.entries[1].last_seq == 5
    assert state.check(header(1, producer_id=1, seq=5)) == BatchMetadata(5, 5, 5, 5)
    log.close()
