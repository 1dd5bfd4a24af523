"""The ``kafkette`` command line (click): one module per command group, entry in main.py."""
