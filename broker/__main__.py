"""``python -m kafkette.broker --config server.properties``: run one broker in the foreground."""

from __future__ import annotations

import argparse
import sys

from kafkette.broker.server import run_broker


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m kafkette.broker", description="Run one Kafkette broker.")
    parser.add_argument("--config", required=True, help="path to server.properties")
    args = parser.parse_args()
    return run_broker(args.config)


if __name__ == "__main__":
    sys.exit(main())
