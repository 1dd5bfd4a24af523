"""The bootstrap servers a client uses when none are given: ``KAFKETTE_BOOTSTRAP_SERVERS``,
else 127.0.0.1:9092.

Owns: the environment variable's name (``BOOTSTRAP_SERVERS_ENV``), the last-resort default
(``DEFAULT_BOOTSTRAP_SERVERS``, Kafka's tools' ``localhost:9092`` on loopback), reading and
checking the variable (``bootstrap_servers_from_environment``) and the choice the SDK's
``AdminClient``, ``Producer`` and ``Consumer`` make when built without ``bootstrap_servers``
(``default_bootstrap_servers``).  Does not own the CLI's order of flags, properties file and
data directory (``kafkette.client.cli.bootstrap``) nor parsing ``host:port`` lists
(``kafkette.client.kafka_client.parse_bootstrap_servers``).

Kafka concept: the ``bootstrap.servers`` client property.  Kafka's Java clients have no
default for it; kafkette's SDK and CLI share one so that ``kafkette cluster start`` plus one
``export KAFKETTE_BOOTSTRAP_SERVERS=...`` line points every client at that cluster.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from kafkette.client.kafka_client import parse_bootstrap_servers

BOOTSTRAP_SERVERS_ENV = "KAFKETTE_BOOTSTRAP_SERVERS"
DEFAULT_BOOTSTRAP_SERVERS = "127.0.0.1:9092"


def check_bootstrap_servers(servers: str, source: str) -> str:
    """Check that ``servers`` is a ``host:port[,host:port...]`` list.

    Args:
        servers: the list as given.
        source: where it came from, for the message (``"KAFKETTE_BOOTSTRAP_SERVERS"``,
            ``"--bootstrap-server"``, ``"client.properties"``).

    Returns:
        ``servers`` with surrounding blanks removed.

    Raises:
        ValueError: an empty list or an entry that is not ``host:port`` with a port in
            1..65535; one line naming ``source`` and the value.
    """
    try:
        parse_bootstrap_servers(servers)
    except ValueError:
        raise ValueError(
            f"Invalid bootstrap servers {servers!r} in {source}: expected HOST:PORT[,HOST:PORT...]"
        ) from None
    return servers.strip()


def bootstrap_servers_from_environment(environ: Mapping[str, str] | None = None) -> str | None:
    """The value of ``KAFKETTE_BOOTSTRAP_SERVERS``, checked; None when it is unset or blank.

    Args:
        environ: the environment to read (default ``os.environ``, read at each call).

    Raises:
        ValueError: a malformed value (the message names the variable).
    """
    raw = (os.environ if environ is None else environ).get(BOOTSTRAP_SERVERS_ENV, "")
    if not raw.strip():
        return None
    return check_bootstrap_servers(raw, BOOTSTRAP_SERVERS_ENV)


def default_bootstrap_servers(bootstrap_servers: str | None, environ: Mapping[str, str] | None = None) -> str:
    """The bootstrap servers of an SDK client: the ones given, else ``KAFKETTE_BOOTSTRAP_SERVERS``,
    else ``127.0.0.1:9092``.

    Args:
        bootstrap_servers: the constructor's ``bootstrap_servers`` argument (None: not given).
        environ: the environment to read (default ``os.environ``).

    Returns:
        ``"host:port,..."``.

    Raises:
        ValueError: ``bootstrap_servers`` is None and the variable holds a malformed value.
    """
    if bootstrap_servers is not None:
        return bootstrap_servers
    return bootstrap_servers_from_environment(environ) or DEFAULT_BOOTSTRAP_SERVERS
