"""``python -m kafkette ARGS``: the ``kafkette`` command (same as the console script)."""

from kafkette.client.cli.main import main

if __name__ == "__main__":
    main()
