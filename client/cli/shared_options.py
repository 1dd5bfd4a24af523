"""What every ``kafkette`` client command shares: ``--bootstrap-server``, ``--data-dir``,
``--command-config`` and the event loop.

Owns: the ``bootstrap_server_option`` decorator (``--bootstrap-server`` and
``--command-config``, Kafka's flag names, and ``--data-dir``; the servers they choose are
resolved by ``kafkette.client.cli.bootstrap``), ``command_config_alias_option``
(``--producer.config`` / ``--consumer.config``), ``acks_option`` (``--acks``, one default for
every command that produces), ``sdk_settings`` (the keyword arguments
of the SDK class a command builds: Kafka client properties from ``--command-config
FILE`` and from ``--producer-property`` / ``--consumer-property k=v``, under the
command's own flags when those are given) and ``run_coroutine`` (runs a command's
coroutine on uvloop, beside the check that ends it at once when none of its bootstrap
servers listens).
Error presentation (one line on stderr) lives in ``kafkette.client.cli.main``.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
from collections.abc import Callable, Coroutine, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar, cast

import click
from click.core import ParameterSource

from kafkette.client.cli.bootstrap import (
    BootstrapServers,
    check_a_bootstrap_server_listens,
    describe_default,
    resolve_bootstrap_servers,
)
from kafkette.client.client_properties import client_settings, read_properties_file, takes_property
from kafkette.client.producer.acks import ACKS_CHOICES, DEFAULT_ACKS

T = TypeVar("T")
F = TypeVar("F", bound=Callable[..., Any])


COMMAND_CONFIG_KEY = "kafkette.command_config"  # ctx.meta: (flag, FILE) or None
BOOTSTRAP_KEY = "kafkette.bootstrap_servers"  # ctx.meta: the command's BootstrapServers
BOOTSTRAP_CHECKED_KEY = "kafkette.bootstrap_checked"  # ctx.meta: True once run_coroutine checked them


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
        raise click.UsageError(
            f"{given[0]} {given[1]} and {flag} {value} are two client properties files; give one"
        )


def command_config_alias_option(flag: str) -> Callable[[F], F]:
    """Add ``flag FILE`` (``--producer.config``, ``--consumer.config``: Kafka's console and perf
    tools' name for it) as another spelling of ``--command-config FILE``."""
    return click.option(
        flag,
        flag.lstrip("-").replace(".", "_").replace("-", "_"),
        default=None,
        metavar="FILE",
        type=click.Path(exists=True, dir_okay=False),
        expose_value=False,
        callback=remember_command_config,
        is_eager=True,
        help="Same as --command-config.",
    )


class BootstrapServerOption(click.Option):
    """``--bootstrap-server``, whose ``--help`` shows what it falls back to now
    (``$KAFKETTE_BOOTSTRAP_SERVERS``' value, or 127.0.0.1:9092)."""

    def get_help_extra(self, ctx: click.Context) -> Any:
        extra = super().get_help_extra(ctx)
        extra["default"] = describe_default()
        return extra


def bootstrap_server_option(func: F) -> F:
    """Add the flags every client command takes: ``--bootstrap-server HOST:PORT[,...]``,
    ``--data-dir DIR`` (the cluster ``kafkette cluster start --data-dir DIR`` recorded) and
    ``--command-config FILE`` (a Kafka client properties file: ``request.timeout.ms``,
    ``client.id``, ``bootstrap.servers``, ...; read by ``sdk_settings``).

    The command receives ``bootstrap_server``: the servers chosen in the order of
    ``kafkette.client.cli.bootstrap`` (``--bootstrap-server`` or ``--data-dir``, then the
    file's ``bootstrap.servers``, ``$KAFKETTE_BOOTSTRAP_SERVERS``, 127.0.0.1:9092), also
    kept for ``sdk_settings`` and ``run_coroutine``; it receives ``data_dir`` too when its
    signature has that parameter (``cluster status``).  With ``--data-dir`` and no
    ``--command-config``, the directory's ``admin.properties`` (a secure cluster's admin login,
    see ``kafkette cluster start --security``) is the command config.

    Raises:
        click.UsageError: both ``--bootstrap-server`` and ``--data-dir``, or a malformed list.
        click.ClickException: ``--data-dir`` without a ``cluster.json``.
    """
    passes_data_dir = "data_dir" in inspect.signature(func).parameters

    @functools.wraps(func)
    def with_bootstrap_servers(
        *args: Any, bootstrap_server: str | None, data_dir: str | None, **kwargs: Any
    ) -> Any:
        ctx = click.get_current_context()
        command_config = ctx.meta.get(COMMAND_CONFIG_KEY)
        bootstrap = resolve_bootstrap_servers(
            bootstrap_server=bootstrap_server,
            data_dir=data_dir,
            command_config=command_config[1] if command_config else None,
        )
        ctx.meta[BOOTSTRAP_KEY] = bootstrap
        if data_dir is not None and command_config is None:
            _use_admin_properties(ctx, Path(data_dir))
        if passes_data_dir:
            kwargs["data_dir"] = data_dir
        return func(*args, bootstrap_server=bootstrap.servers, **kwargs)

    wrapped: Callable[..., Any] = click.option(
        "--command-config",
        default=None,
        metavar="FILE",
        type=click.Path(exists=True, dir_okay=False),
        expose_value=False,
        callback=remember_command_config,
        is_eager=True,
        help="Kafka client properties file (request.timeout.ms, client.id, ...); flags given win.",
    )(with_bootstrap_servers)
    wrapped = click.option(
        "--data-dir",
        "data_dir",
        default=None,
        metavar="DIR",
        type=click.Path(file_okay=False),
        help="Bootstrap from the cluster 'kafkette cluster start --data-dir DIR' runs (DIR/cluster.json); "
        "instead of --bootstrap-server.",
    )(wrapped)
    wrapped = click.option(
        "--bootstrap-server",
        "bootstrap_server",
        cls=BootstrapServerOption,
        default=None,
        metavar="HOST:PORT[,...]",
        help="Broker(s) to bootstrap from. Without it: --data-dir's cluster, else bootstrap.servers of "
        "--command-config, else $KAFKETTE_BOOTSTRAP_SERVERS, else 127.0.0.1:9092.",
    )(wrapped)
    return cast(F, wrapped)


def _use_admin_properties(ctx: click.Context, data_dir: Path) -> None:
    """Make ``<data_dir>/admin.properties`` (a ``kafkette cluster start --security sasl_ssl``
    cluster's admin login) the command's ``--command-config`` when it has none."""
    from kafkette.client.local_cluster_security import admin_properties_path  # only a secure cluster's

    path = admin_properties_path(data_dir.resolve())
    if path.is_file():
        ctx.meta[COMMAND_CONFIG_KEY] = ("--data-dir", str(path))


def acks_option(*kafka_flags: str) -> Callable[[F], F]:
    """Add ``--acks all|-1|0|1`` (the producer's ``acks``, default ``all`` as Kafka's producer
    since 3.0, and so as kafka-producer-perf-test); the command receives ``acks`` as the string
    given (``Producer`` reads it with ``Acks.parse``).

    Args:
        kafka_flags: other spellings of the flag a Kafka tool takes
            (``--request-required-acks`` of kafka-console-producer).
    """
    return click.option(
        "--acks",
        *kafka_flags,
        "acks",
        type=click.Choice(ACKS_CHOICES),
        default=DEFAULT_ACKS,
        show_default=True,
        help="Acknowledgements the leader waits for: all (-1) every in-sync replica, 1 the leader only, "
        "0 none (the producer's acks).",
    )


def current_bootstrap_servers() -> BootstrapServers | None:
    """The bootstrap servers the running command chose (see ``bootstrap_server_option``), or None
    outside such a command."""
    ctx = click.get_current_context(silent=True)
    return None if ctx is None else ctx.meta.get(BOOTSTRAP_KEY)


def sdk_settings(
    target: type,
    *,
    properties: Sequence[str] = (),
    property_flag: str = "--property",
    flags: Mapping[str, tuple[str | None, Any]],
    shared_with: Sequence[type] = (),
) -> dict[str, Any]:
    """The keyword arguments for ``target`` (``Producer``, ``Consumer`` or ``AdminClient``).

    Precedence, lowest first: the command's flag defaults, ``--command-config FILE``,
    ``properties`` (``k=v`` from ``--producer-property`` / ``--consumer-property``), then the
    flags the user typed.  ``bootstrap_servers`` is the one ``bootstrap_server_option`` chose
    (its order places the file's ``bootstrap.servers`` already).

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
        return {
            k: v
            for k, v in props.items()
            if takes_property(target, k) or not any(takes_property(other, k) for other in shared_with)
        }

    try:
        settings = (
            client_settings(own(read_properties_file(command_config[1])), target, source=command_config[1])
            if command_config
            else {}
        )
        given = dict(parse_key_value(p, property_flag) for p in properties)
        settings.update(client_settings(own(given), target, source=property_flag) if given else {})
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    chosen = BOOTSTRAP_KEY in ctx.meta
    for keyword, (parameter, value) in flags.items():
        typed = parameter is not None and ctx.get_parameter_source(parameter) is not ParameterSource.DEFAULT
        if keyword not in settings or typed or (keyword == "bootstrap_servers" and chosen):
            settings[keyword] = value
    return settings


def admin_client(bootstrap_server: str, request_timeout_ms: int | None, client_id: str) -> Any:
    """An ``AdminClient`` from ``--bootstrap-server``, ``--request-timeout-ms`` (when the command
    has it) and ``--command-config`` (see ``sdk_settings``).

    Raises:
        click.UsageError: a bad ``--command-config`` file.
    """
    from kafkette.client.admin import AdminClient  # the CLI's commands import this module first

    flags: dict[str, tuple[str | None, Any]] = {
        "bootstrap_servers": ("bootstrap_server", bootstrap_server),
        "client_id": (None, client_id),
    }
    if request_timeout_ms is not None:
        flags["request_timeout_ms"] = ("request_timeout_ms", request_timeout_ms)
    return AdminClient(**sdk_settings(AdminClient, flags=flags))


def run_coroutine(coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro`` to completion on a fresh event loop (uvloop when installed).

    In a command of ``bootstrap_server_option``, its bootstrap servers are checked while
    ``coro`` runs (once per command): when every one refuses the connection before ``coro``
    ends, ``coro`` is cancelled.  A mistake ``coro`` finds before it connects (a bad
    property) still ends the command with its own message.

    Raises:
        click.ClickException: every bootstrap server refused (one line naming them, where they
            came from and how to give others; see ``check_a_bootstrap_server_listens``).
    """
    try:
        import uvloop

        loop_factory: Callable[[], asyncio.AbstractEventLoop] | None = uvloop.new_event_loop
    except ImportError:  # pragma: no cover - uvloop is a runtime dependency
        loop_factory = None
    ctx = click.get_current_context(silent=True)
    bootstrap = current_bootstrap_servers()
    if bootstrap is not None and ctx is not None and not ctx.meta.get(BOOTSTRAP_CHECKED_KEY):
        ctx.meta[BOOTSTRAP_CHECKED_KEY] = True
        coro = _cancelled_when_nothing_listens(coro, bootstrap)
    with asyncio.Runner(loop_factory=loop_factory) as runner:
        return runner.run(coro)


async def _cancelled_when_nothing_listens(coro: Coroutine[Any, Any, T], bootstrap: BootstrapServers) -> T:
    """Run ``coro`` beside ``check_a_bootstrap_server_listens``; the check's error cancels it."""
    command = asyncio.ensure_future(coro)
    check = asyncio.ensure_future(check_a_bootstrap_server_listens(bootstrap))
    try:
        await asyncio.wait((command, check), return_when=asyncio.FIRST_COMPLETED)
        nothing_listens = check.exception() if check.done() else None
        if not command.done() and nothing_listens is not None:
            command.cancel()
            await asyncio.gather(command, return_exceptions=True)
            raise nothing_listens
        return await command
    finally:
        for task in (check, command):
            task.cancel()
        await asyncio.gather(check, command, return_exceptions=True)


def parse_key_value(text: str, flag: str) -> tuple[str, str]:
    """Split ``key=value`` given to ``flag``.

    Raises:
        click.UsageError: no ``=`` or an empty key.
    """
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise click.UsageError(f"Invalid {flag} {text!r}: expected key=value")
    return key.strip(), value
