"""Running the ``kafkette`` click group in-process for the CLI argument tests (no broker).

Owns: ``run`` (CliRunner invocation) and ``assert_one_line_error`` (the CLI's rule for bad
arguments: exit non-zero with exactly one ``Error: ...`` line and no traceback).  Does not
own the commands themselves (``client/cli``).
"""

from __future__ import annotations

from click.testing import CliRunner, Result

from kafkette.client.cli.main import kafkette


def run(*args: str, stdin: str | None = None) -> Result:
    """Invoke ``kafkette *args`` in-process.

    Args:
        args: the command line after ``kafkette``.
        stdin: text fed to standard input, or None.

    Returns:
        click's Result (exit code, stdout, stderr).
    """
    return CliRunner().invoke(kafkette, list(args), input=stdin)


def assert_one_line_error(result: Result, fragment: str) -> None:
    """Assert the command failed with one ``Error: `` line containing ``fragment`` (any case), no traceback.

    Raises:
        AssertionError: any part of that rule broken.
    """
    assert result.exit_code != 0
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("Error: ")
    assert fragment.lower() in lines[0].lower(), lines[0]
    assert "Traceback" not in result.output
