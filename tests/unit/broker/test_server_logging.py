"""Where a node's log files go (Kafka's ``kafka.logs.dir``): ``--log-dir``, else ``$LOG_DIR``,
else ``logs`` beside the first log dir (its parent when that is itself named ``logs``)."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from kafkette.broker.server_logging import configure_logging, kafka_logs_dir


def test_the_log_dir_flag_comes_first_then_the_LOG_DIR_variable(tmp_path):
    env = {"LOG_DIR": str(tmp_path / "variable")}
    assert kafka_logs_dir([str(tmp_path / "data")], str(tmp_path / "flag"), env) == tmp_path / "flag"
    assert kafka_logs_dir([str(tmp_path / "data")], None, env) == tmp_path / "variable"
    assert kafka_logs_dir([str(tmp_path / "data")], None, {"LOG_DIR": ""}) == tmp_path / "logs"


def test_the_default_is_a_logs_folder_beside_the_first_log_dir_never_inside_one(tmp_path):
    assert (
        kafka_logs_dir([str(tmp_path / "a" / "data"), str(tmp_path / "b")], None, {})
        == tmp_path / "a" / "logs"
    )
    assert kafka_logs_dir([str(tmp_path / "broker-1" / "logs")], None, {}) == tmp_path / "broker-1"


def test_relative_folders_are_made_absolute_and_an_empty_log_dirs_is_refused(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert kafka_logs_dir(["data"], None, {}) == tmp_path / "logs"
    assert kafka_logs_dir(["data"], "mine", {}) == tmp_path / "mine"
    with pytest.raises(ValueError, match="log.dirs"):
        kafka_logs_dir([], None, {})


@pytest.fixture
def restore_logging():
    """Take the root logger's handlers off for the test (``configure_logging`` closes the handlers
    it replaces: pytest's ``--log-file`` handler would write nothing more for the rest of the
    session), then put back the root logger's and ``state.change.logger``'s handlers and level,
    closing those the test added."""
    root, state_change = logging.getLogger(), logging.getLogger("state.change.logger")
    saved = (list(root.handlers), root.level, list(state_change.handlers))
    root.handlers[:] = []
    yield
    for logger in (root, state_change):
        for handler in logger.handlers:
            if handler not in saved[0] + saved[2]:
                handler.close()
    root.handlers[:], state_change.handlers[:] = saved[0], saved[2]
    root.setLevel(saved[1])


def test_server_log_gets_info_lines_and_state_change_log_the_state_change_logger(
    tmp_path: Path, restore_logging
):
    configure_logging(7, tmp_path / "made")
    logging.getLogger("kafkette.broker.test").info("started")
    logging.getLogger("state.change.logger").error("illegal transition")
    for handler in logging.getLogger().handlers + logging.getLogger("state.change.logger").handlers:
        handler.flush()
    server_log = (tmp_path / "made" / "server.log").read_text()
    assert "INFO [node 7] kafkette.broker.test: started" in server_log
    assert "illegal transition" in (tmp_path / "made" / "state-change.log").read_text()
