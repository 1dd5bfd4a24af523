"""What every ``kafkette`` client command shares: ``--bootstrap-server``, ``--command-config``
and the event loop.

Owns: the ``bootstrap_server_option`` decorator (``--bootstrap-server`` and
``--command-config``, Kafka's flag names and defaults), ``command_config_alias_option``
(``--producer.config`` / ``--consumer.config``), ``sdk_settings`` (the keyword arguments
of the SDK class a command builds: Kafka client properties from ``--command-config
FILE`` and from ``--producer-property`` / ``--consumer-property k=v``, under the
command's own flags when those are given) and ``run_coroutine`` (runs a command's
coroutine on uvloop).
Error presentation (one line on stderr) lives in ``kafkette.client.cli.main``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Mapping, Sequence
from typing import Any, TypeVar

import click
from click.core import ParameterSource

from kafkette.client.client_properties import client_settings, read_properties_file, takes_property

DEFAULT_BOOTSTRAP_SERVER = "127.0.0.1:9092"

T = TypeVar("T")
F = TypeVar("F", bound=Callable[..., Any])


COMMAND_CONFIG_KEY = "kafkette.command_config"  # ctx.meta: (flag, FILE) or None


def remember_command_config(ctx: click.Context, param: click.Parameter, value: str | None) -> None:
    """Click callback of ``--command-config`` and its aliases (``--producer.config``, ...).

    Raises:
        click.UsageError: two of these flags name different files.
    """
    flag = param.opts[0]
    given = ctx.meta.get(COMMAND_CONFIG_KEY)
    if value is None:
        ctx.meta.setdefault(COMMAND_CONFIG_KEY, None)
    elif given is None or given[1] == value:
        ctx.meta[COMMAND_CONFIG_KEY] = (flag, value)
    else:
        raise click.UsageError(f"{given[0]} {given[1]} and {flag} {value} are two client properties files; give one")


def command_config_alias_option(flag: str) -> Callable[[F], F]:
    """Add ``flag FILE`` (``--producer.config``, ``--consumer.config``: Kafka's console and perf
    tools' name for it) as another spelling of ``--command-config FILE``."""
    return click.option(
        flag, flag.lstrip("-").replace(".", "_").replace("-", "_"), default=None, metavar="FILE",
        type=click.Path(exists=True, dir_okay=False), expose_value=False, callback=remember_command_config,
        is_eager=True, help="Same as --command-config.",
    )


def bootstrap_server_option(func: F) -> F:
    """Add the flags every client command takes: ``--bootstrap-server HOST:PORT[,...]``
    (default 127.0.0.1:9092) and ``--command-config FILE`` (a Kafka client properties file:
    ``request.timeout.ms``, ``client.id``, ``bootstrap.servers``, ...; read by ``sdk_settings``)."""
    func = click.option(
        "--command-config", default=None, metavar="FILE", type=click.Path(exists=True, dir_okay=False),
        expose_value=False, callback=remember_command_config, is_eager=True,
        help="Kafka client properties file (request.timeout.ms, client.id, ...); flags given win.",
    )(func)
    return click.option(
        "--bootstrap-server", "bootstrap_server", default=DEFAULT_BOOTSTRAP_SERVER, show_default=True,
        metavar="HOST:PORT[,...]", help="Broker(s) to bootstrap from.",
    )(func)


def sdk_settings(target: type, *, properties: Sequence[str] = (), property_flag: str = "--property",
                 flags: Mapping[str, tuple[str | None, Any]], shared_with: Sequence[type] = ()) -> dict[str, Any]:
    """The keyword arguments for ``target`` (``Producer``, ``Consumer`` or ``AdminClient``).

    Precedence, lowest first: the command's flag defaults, ``--command-config FILE``,
    ``properties`` (``k=v`` from ``--producer-property`` / ``--consumer-property``), then the
    flags the user typed.

    Args:
        target: the SDK class the command builds.
        properties: ``key=value`` strings given to ``property_flag``.
        property_flag: the flag ``properties`` came from, for messages.
        flags: ``{keyword: (click parameter name, value)}`` of the command's own flags,
            ``bootstrap_servers`` included (``{"request_timeout_ms": ("request_timeout_ms", 30000)}``);
            a parameter name of None marks a value the command sets only by default.
        shared_with: the other SDK classes a command builds from the same file
            (``perf end-to-end``: a Consumer and a Producer); a property ``target`` lacks
            but one of them takes is left to it instead of refused.

    Returns:
        ``{keyword: value}`` for ``target(**settings)``.

    Raises:
        click.UsageError: a malformed ``k=v``, an unknown property or a bad value; the
            message names the property and where it came from.
    """
    ctx = click.get_current_context()
    command_config = ctx.meta.get(COMMAND_CONFIG_KEY)

    def own(props: dict[str, str]) -> dict[str, str]:
        return {k: v for k, v in props.items()
                if takes_property(target, k) or not any(takes_property(other, k) for other in shared_with)}

    try:
        settings = client_settings(own(read_properties_file(command_config[1])), target, source=command_config[1]) \
            if command_config else {}
        given = dict(parse_key_value(p, property_flag) for p in properties)
        settings.update(client_settings(own(given), target, source=property_flag) if given else {})
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    for keyword, (parameter, value) in flags.items():
        typed = parameter is not None and ctx.get_parameter_source(parameter) is not ParameterSource.DEFAULT
        if keyword not in settings or typed:
            settings[keyword] = value
    return settings


def admin_client(bootstrap_server: str, request_timeout_ms: int | None, client_id: str) -> Any:
    """An ``AdminClient`` from ``--bootstrap-server``, ``--request-timeout-ms`` (when the command
    has it) and ``--command-config`` (see ``sdk_settings``).

    Raises:
        click.UsageError: a bad ``--command-config`` file.
    """
    from kafkette.client.admin import AdminClient  # the CLI's commands import this module first

    flags: dict[str, tuple[str | None, Any]] = {"bootstrap_servers": ("bootstrap_server", bootstrap_server),
                                         "client_id": (None, client_id)}
    if request_timeout_ms is not None:
        flags["request_timeout_ms"] = ("request_timeout_ms", request_timeout_ms)
    return AdminClient(**sdk_settings(AdminClient, flags=flags))


def run_coroutine(coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro`` to completion on a fresh event loop (uvloop when installed)."""
    try:
        import uvloop
    except ImportError:  # pragma: no cover - uvloop is a runtime dependency
        return asyncio.run(coro)
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        return runner.run(coro)


def parse_key_value(text: str, flag: str) -> tuple[str, str]:
    """Split ``key=value`` given to ``flag``.

    Raises:
        click.UsageError: no ``=`` or an empty key.
    """
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise click.UsageError(f"Invalid {flag} {text!r}: expected key=value")
    return key.strip(), value
