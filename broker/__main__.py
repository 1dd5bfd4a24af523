"""``python -m kafkette.broker --config server.properties [--log-dir DIR]``: run one broker in the
foreground (``--log-dir``: the folder of ``server.log`` and ``state-change.log``, default
``$LOG_DIR``, else ``logs`` beside the first of ``log.dirs``)."""

from __future__ import annotations

import argparse
import sys

from kafkette.broker.server import run_broker


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m kafkette.broker", description="Run one Kafkette broker.")
    parser.add_argument("--config", required=True, help="path to server.properties")
    parser.add_argument(
        "--log-dir",
        default=None,
        help="folder of server.log and state-change.log (default $LOG_DIR, else 'logs' beside "
        "the first of log.dirs)",
    )
    args = parser.parse_args()
    return run_broker(args.config, args.log_dir)


if __name__ == "__main__":
    sys.exit(main())
