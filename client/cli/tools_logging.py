"""Where the ``kafkette`` client commands' log lines go: stderr, WARN and above, in the layout of
Kafka's command-line tools.

Owns: ``configure_tools_logging`` (one stderr handler on the root logger, as Kafka's
``tools-log4j2.yaml``: level WARN, pattern ``[%d] %p %m (%c)%n``, so an SDK warning such as a
partition without a leader reads ``[2026-11-27 10:00:00,123] WARN [Consumer
clientId=kafkette-console-consumer] Partition t-1 has no leader ... (kafkette.client.consumer.fetcher)``)
with its ``KafkaToolsFormatter`` (Python's level names as log4j prints them).  ``kafkette
broker start`` replaces this set-up with the broker's own.  Records and
summaries stay on stdout/stderr as each command prints them.  Does not own the broker's
logging (``kafkette.broker.server.configure_logging``) nor keeping log lines off a progress
line (``kafkette.client.cli.progress``).
"""

from __future__ import annotations

import logging
import sys

KAFKA_LEVEL_NAMES = {logging.WARNING: "WARN", logging.CRITICAL: "FATAL"}
TOOLS_FORMAT = "[%(asctime)s] %(kafka_level)s %(message)s (%(name)s)"


class KafkaToolsFormatter(logging.Formatter):
    """``[%d] %p %m (%c)``: time, log4j's level name (``WARN``, ``FATAL``), message, logger name.

    The level name is worked out here rather than by a handler's filter, so a handler that
    takes this formatter over (tqdm's ``logging_redirect_tqdm``) prints the same line.
    """

    def __init__(self) -> None:
        super().__init__(TOOLS_FORMAT)

    def formatMessage(self, record: logging.LogRecord) -> str:  # noqa: N802 - logging's name
        record.kafka_level = KAFKA_LEVEL_NAMES.get(record.levelno, record.levelname)
        return super().formatMessage(record)


def configure_tools_logging(level: int = logging.WARNING) -> logging.Handler:
    """Send log records at ``level`` and above to stderr in Kafka's tools layout.

    Idempotent: a second call replaces the handler the first one added.

    Args:
        level: the root logger's level (default WARNING, Kafka's tools' WARN).

    Returns:
        The stderr handler (a ``logging.StreamHandler``).
    """
    root = logging.getLogger()
    for handler in list(root.handlers):
        if getattr(handler, "kafkette_tools", False):
            root.removeHandler(handler)
    handler = logging.StreamHandler(sys.stderr)
    handler.kafkette_tools = True  # type: ignore[attr-defined]
    handler.setFormatter(KafkaToolsFormatter())
    root.addHandler(handler)
    root.setLevel(level)
    return handler
